// What a channel's interrupt means for its job (the bottom half hands each recorded event here, see
// interrupts.h): progress and energy, completion, a checkpoint taken, or a failure.
#include <algorithm>

#include "driver_stats.h"
#include "job_scheduler.h"
#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver"); }

const char* error_name(uint32_t code) {
  switch (static_cast<regs::ChannelError>(code)) {
    case regs::ChannelError::NONE:
      return "none";
    case regs::ChannelError::BAD_DESCRIPTOR:
      return "bad descriptor";
    case regs::ChannelError::DMA_FAULT:
      return "DMA fault";
    case regs::ChannelError::SRAM_OVERFLOW:
      return "SRAM overflow";
    case regs::ChannelError::SRAM_ECC:
      return "uncorrectable SRAM ECC error";
    case regs::ChannelError::INDEX_OUT_OF_RANGE:
      return "gather index out of range";
  }
  return "unknown error";
}

uint64_t read64(RegisterBus& regs, uint32_t lo, uint32_t hi) {
  return regs.read32(lo) | (static_cast<uint64_t>(regs.read32(hi)) << 32);
}

}  // namespace

void JobScheduler::channel_event(uint32_t ch, uint32_t bits) {
  if (!slots_[ch].task) return;  // the buffer was aborted after it raised this
  const uint32_t base = regs::channel_base(ch);
  Task& task = *slots_[ch].task;
  Fence& f = *task.job->fence;
  const uint64_t cycles = read64(hw_.regs, base + regs::CH_CYCLES_LO, base + regs::CH_CYCLES_HI);
  f.device_cycles += cycles;
  task.cycles += cycles;
  if (task.stage < f.stage_cycles.size())
    f.stage_cycles[task.stage] = std::max(f.stage_cycles[task.stage], task.cycles);
  f.energy_pj += read64(hw_.regs, base + regs::CH_ENERGY_LO, base + regs::CH_ENERGY_HI);
  if (bits & regs::CH_IRQ_ERROR) {
    const uint32_t error = regs::CH_STATUS_ERROR.get(hw_.regs.read32(base + regs::CH_STATUS));
    const uint32_t index = hw_.regs.read32(base + regs::CH_ERROR_INDEX);
    switch (static_cast<regs::ChannelError>(error)) {
      case regs::ChannelError::DMA_FAULT:
        ++st_->dma_faults;
        break;
      case regs::ChannelError::SRAM_ECC:
        ++st_->sram_ecc_errors;
        break;
      default:
        ++st_->other_channel_errors;
        break;
    }
    task_failed(ch, "channel " + std::to_string(ch) + ": " + error_name(error) + " at descriptor " +
                        std::to_string(index));
  } else if (bits & regs::CH_IRQ_PREEMPTED) {
    task_preempted(ch);
  } else if (bits & regs::CH_IRQ_DONE) {
    task_done(ch);
  }
}

void JobScheduler::task_failed(uint32_t ch, const std::string& error) {
  ++st_->channel_errors;
  auto job = jobs_.at(slots_[ch].task->job->id);
  logger()->warn("job {} failed: {}", job->id, error);
  leave_channel(ch);
  end_job(job, JobStatus::FAILED, WorkEndReason::FAILED, error);
}

void JobScheduler::task_preempted(uint32_t ch) {
  Slot& s = slots_[ch];
  Task* t = s.task;
  const uint32_t base = regs::channel_base(ch);
  t->resume_index = hw_.regs.read32(base + regs::CH_PROGRESS);
  t->saved_bytes = hw_.regs.read32(base + regs::CH_SAVE_BYTES);
  st_->save_bytes += t->saved_bytes;
  const double latency = static_cast<double>(now() - s.preempt_ns);
  st_->preempt_latency_ns_total += latency;
  st_->preempt_latency_ns_max = std::max(st_->preempt_latency_ns_max, latency);
  checkpoint_ns_estimate_ = 0.75 * checkpoint_ns_estimate_ + 0.25 * latency;
  logger()->debug("job {} checkpointed on channel {} at descriptor {} ({} B saved)", t->job->id, ch,
                  t->resume_index, t->saved_bytes);
  leave_channel(ch);
  requeue(t);
  if (t->job->running == 0) note_paused(*t->job);
}

void JobScheduler::task_done(uint32_t ch) {
  Slot& s = slots_[ch];
  Task* t = s.task;
  Job& job = *t->job;
  const uint32_t ran = t->count - t->resume_index;
  if (ran > 0) {
    const double per = static_cast<double>(now() - s.started_ns) / ran;
    ns_per_descriptor_ = ns_per_descriptor_ > 0 ? 0.875 * ns_per_descriptor_ + 0.125 * per : per;
  }
  if (s.preempting && s.mechanism == PreemptMechanism::CHECKPOINT) {
    // It finished before reaching a descriptor boundary where it could stop: still the latency seen.
    const double latency = static_cast<double>(now() - s.preempt_ns);
    st_->preempt_latency_ns_total += latency;
    st_->preempt_latency_ns_max = std::max(st_->preempt_latency_ns_max, latency);
  }
  if (tracer_)
    tracer_->span(channel_tracks_[ch], job.request.label, s.started_ns, now() - s.started_ns,
                  {{"job", job.id}, {"ctx", job.ctx}, {"stage", t->stage}, {"buffer", t->index}});
  leave_channel(ch);
  release_save_area(t);
  if (--job.remaining > 0) return;
  job.fence->device_ns += now() - job.stage_start_ns;
  if (job.stage + 1 < job.tasks.size()) {
    ++job.stage;
    queue_stage(job);
    return;
  }
  end_job(jobs_.at(job.id), JobStatus::COMPLETED, WorkEndReason::COMPLETED, "");
}

}  // namespace npu::drv
