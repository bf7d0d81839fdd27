#include "npu_job.h"

#include <utility>

#include "prepared_models.h"

namespace npu::hal {

Status run_npu_job(drv::Driver& driver, drv::ContextId ctx, drv::JobRequest job, int default_priority,
                   const ExecuteOptions& options, ExecutionResult& r, std::shared_ptr<drv::Fence>* fence) {
  job.job_priority = options.job_priority.value_or(default_priority);
  if (job.job_priority < drv::kHighestPriority || job.job_priority > drv::kLowestPriority)
    return {ErrorStatus::INVALID_ARGUMENT, "job priority " + std::to_string(job.job_priority) +
                                               " is outside " + std::to_string(drv::kHighestPriority) +
                                               " … " + std::to_string(drv::kLowestPriority)};
  job.deadline_ns = options.deadline_hint_ns;
  job.timeout_ns = options.job_timeout_ns;
  auto submitted = driver.submit(ctx, std::move(job));
  if (!submitted) return driver_failure(submitted, "submit: ");
  *fence = *submitted;
  ++r.jobs;
  drv::Fence& f = **fence;
  drv::Os& os = driver.os();
  while (!f.signalled()) {
    if (!options.deadline) {
      f.waiters->wait();
      continue;
    }
    const uint64_t now = os.now_ns();
    if (now >= *options.deadline) {
      (void)driver.cancel(ctx, f.job_id);
      driver.wait(f);
      return {ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the execution deadline passed while NPU job " +
                                                          std::to_string(f.job_id) +
                                                          " ran; it was cancelled"};
    }
    f.waiters->wait_for(*options.deadline - now);
  }
  r.job_times.push_back({f.submit_ns, f.end_ns});
  // What a job that did not complete spent counts too: the NPU did that work.
  r.device_cycles += f.device_cycles;
  r.device_energy_pj += f.energy_pj;
  r.preemptions += f.preemptions;
  if (f.status != drv::JobStatus::COMPLETED) {
    r.revoked = f.end_reason == drv::WorkEndReason::CANCELLED_SYSTEM;
    return {ErrorStatus::GENERAL_FAILURE,
            "NPU job " + std::string(drv::to_string(f.status)) + ": " + f.error};
  }
  r.effective_priority = f.effective_priority;
  return {};
}

}  // namespace npu::hal
