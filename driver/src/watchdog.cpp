// Hang detection: a kernel thread that, while work runs, checks every watchdog period whether a command
// buffer has run past its timeout or a checkpoint request went unanswered; it resets the channel and
// retries the buffer from its start, or fails the job once it has hung more than the hang limit. Other
// channels and other contexts' jobs carry on.
#include <algorithm>
#include <mutex>

#include "driver_stats.h"
#include "npu/common/log.h"
#include "npu/drv/driver.h"

namespace npu::drv {

void Driver::watchdog() {
  for (;;) {
    bool busy = false;
    for (const auto& s : slots_) busy |= s.task != nullptr;
    if (!busy) {
      watchdog_wake_->wait();
      continue;
    }
    // A time-slicing scheduler is asked again at its tick: a slice ends without any event.
    const uint64_t tick = scheduler_->tick_ns();
    watchdog_wake_->wait_for(tick ? std::min(tick, cfg_.timeouts.watchdog_period_ns)
                                  : cfg_.timeouts.watchdog_period_ns);
    std::lock_guard guard(lock_);
    bool acted = false;
    for (uint32_t ch = 0; ch < info_.channels; ++ch) {
      const Slot& s = slots_[ch];
      if (!s.task) continue;
      const uint64_t limit =
          s.task->job->request.timeout_ns ? s.task->job->request.timeout_ns : cfg_.timeouts.job_ns;
      if (s.preempting && s.mechanism == PreemptMechanism::CHECKPOINT &&
          now() - s.preempt_ns > cfg_.timeouts.preempt_ns) {
        hang(ch,
             "checkpoint request not honoured within " + std::to_string(cfg_.timeouts.preempt_ns) + " ns");
        acted = true;
      } else if (now() - s.started_ns > limit) {
        hang(ch, "running for more than " + std::to_string(limit) + " ns");
        acted = true;
      }
    }
    if (acted || tick) dispatch();
  }
}

void Driver::hang(uint32_t ch, const std::string& why) {
  Task* t = slots_[ch].task;
  auto job = jobs_.at(t->job->id);
  ++st_->hangs;
  ++t->hangs;
  log::get("driver")->warn("channel {} hung ({}): job {} stage {} buffer {}, hang {} of {}", ch, why, job->id,
                           t->stage, t->index, t->hangs, cfg_.timeouts.hang_limit + 1);
  abort_channel(ch);
  if (t->hangs > cfg_.timeouts.hang_limit) {
    end_job(job, JobStatus::FAILED, WorkEndReason::FAILED,
            "hung " + std::to_string(t->hangs) + " times (channel " + std::to_string(ch) + ": " + why + ")");
    return;
  }
  ++st_->hang_retries;
  t->resume_index = 0;  // progress and any checkpoint are not trusted after a hang
  release_save_area(t);
  requeue(t);
}

}  // namespace npu::drv
