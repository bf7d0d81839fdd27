// Submitting one driver job and waiting for it: the one place the HAL does it, for prepared models and
// prepared programs alike.
#pragma once

#include <memory>

#include "npu/hal/device.h"

namespace npu::hal {

// Submits `job` in `ctx` at the execution's priority (options.job_priority, else `default_priority`)
// with its deadline hint and job timeout, waits for it (cancelling it once options.deadline passed) and
// adds what it did to `r`: jobs, cycles, energy, preemptions, device time, its submit and end times and,
// for a job the system cancelled, `revoked`. `*fence` holds the job's fence from submit on (for a caller
// that must see a job still in flight); the fence also gives per-stage cycles.
Status run_npu_job(drv::Driver& driver, drv::ContextId ctx, drv::JobRequest job, int default_priority,
                   const ExecuteOptions& options, ExecutionResult& r, std::shared_ptr<drv::Fence>* fence);

}  // namespace npu::hal
