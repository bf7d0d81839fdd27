#include "watchdog.h"

#include <algorithm>
#include <mutex>

#include "driver_stats.h"
#include "job_scheduler.h"
#include "npu/common/log.h"

namespace npu::drv {

void Watchdog::start() {
  os_.spawn("npu_watchdog", [this] { loop(); });
}

void Watchdog::loop() {
  const auto& slots = jobs_.slots();
  for (;;) {
    bool busy = false;
    for (const auto& s : slots) busy |= s.task != nullptr;
    if (!busy) {
      wake_->wait();
      continue;
    }
    // A time-slicing scheduler is asked again at its tick: a slice ends without any event.
    const uint64_t tick = jobs_.tick_ns();
    wake_->wait_for(tick ? std::min(tick, timeouts_.watchdog_period_ns) : timeouts_.watchdog_period_ns);
    std::lock_guard guard(lock_);
    bool acted = false;
    for (uint32_t ch = 0; ch < slots.size(); ++ch) {
      const JobScheduler::Slot& s = slots[ch];
      if (!s.task) continue;
      const uint64_t limit =
          s.task->job->request.timeout_ns ? s.task->job->request.timeout_ns : timeouts_.job_ns;
      if (s.preempting && s.mechanism == PreemptMechanism::CHECKPOINT &&
          now() - s.preempt_ns > timeouts_.preempt_ns) {
        hang(ch, "checkpoint request not honoured within " + std::to_string(timeouts_.preempt_ns) + " ns");
        acted = true;
      } else if (now() - s.started_ns > limit) {
        hang(ch, "running for more than " + std::to_string(limit) + " ns");
        acted = true;
      }
    }
    if (acted || tick) jobs_.dispatch();
  }
}

void Watchdog::hang(uint32_t ch, const std::string& why) {
  JobScheduler::Task* t = jobs_.slots()[ch].task;
  const JobId job = t->job->id;
  ++st_->hangs;
  ++t->hangs;
  log::get("driver")->warn("channel {} hung ({}): job {} stage {} buffer {}, hang {} of {}", ch, why, job,
                           t->stage, t->index, t->hangs, timeouts_.hang_limit + 1);
  jobs_.abort_channel(ch);
  if (t->hangs > timeouts_.hang_limit) {
    jobs_.fail_job(
        job, "hung " + std::to_string(t->hangs) + " times (channel " + std::to_string(ch) + ": " + why + ")");
    return;
  }
  ++st_->hang_retries;
  jobs_.restart(t);  // progress and any checkpoint are not trusted after a hang
}

}  // namespace npu::drv
