#include "npu/hal/prepared_program.h"

#include <utility>

#include "npu_job.h"
#include "prepared_models.h"

namespace npu::hal {

PreparedProgram::PreparedProgram(drv::Driver& driver, drv::ContextId ctx, const PrecompiledModel& model,
                                 drv::BufferObject weights, drv::BufferObject arena, HalCosts costs)
    : driver_(driver),
      ctx_(ctx),
      name_(model.name),
      weights_(weights),
      arena_(arena),
      costs_(costs),
      timing_only_(model.timing_only || !driver.functional()) {
  for (const auto& [name, stages] : model.programs) {
    auto& out = relocated_[name];
    for (const auto& stage : stages) {
      auto& buffers = out.emplace_back();
      for (const auto& step : stage)
        buffers.push_back(relocate(step, weights_.device_address, arena_.device_address));
    }
  }
}

PreparedProgram::~PreparedProgram() { release(); }

void PreparedProgram::release() {
  if (released_) return;
  released_ = true;
  (void)driver_.free_bo(ctx_, weights_.handle);
  (void)driver_.free_bo(ctx_, arena_.handle);
}

ExecutionResult PreparedProgram::execute(const std::vector<std::string>& programs,
                                         const ExecuteOptions& options, const std::string& label) {
  driver_.os().delay_ns(costs_.call_ns);
  ExecutionResult r;
  if (released_) {
    r.status = {ErrorStatus::GENERAL_FAILURE, name_ + " was released"};
    return r;
  }
  r.timing_only = timing_only_;
  drv::JobRequest job;
  job.label = label;
  job.timing_only = timing_only_;
  for (const std::string& name : programs) {
    auto it = relocated_.find(name);
    if (it == relocated_.end()) {
      r.status = {ErrorStatus::INVALID_ARGUMENT, name_ + " has no program \"" + name + "\""};
      return r;
    }
    for (const auto& stage : it->second) {
      job.stages.push_back(stage);
      r.command_buffers += static_cast<uint32_t>(stage.size());
    }
    r.stages += static_cast<uint32_t>(it->second.size());
  }
  if (job.stages.empty()) {
    r.status = {ErrorStatus::INVALID_ARGUMENT, name_ + ": an execution needs at least one program"};
    return r;
  }
  r.status =
      run_npu_job(driver_, ctx_, std::move(job), to_job_priority(Priority::MEDIUM), options, r, &in_flight_);
  if (in_flight_) r.device_ns = in_flight_->device_ns;
  in_flight_.reset();
  return r;
}

}  // namespace npu::hal
