// The execution modes every prepared model shares: synchronous (a binder call), burst (a message
// queue), asynchronous and fenced (simulated threads of their own). Each ends in the subclass's run().
#include <string>
#include <utility>

#include "npu/hal/device.h"

namespace npu::hal {
namespace {

uint64_t to_us(uint64_t ns) { return (ns + 500) / 1000; }

}  // namespace

void SyncFence::signal(Status status) {
  if (signalled_) return;
  status_ = std::move(status);
  signalled_ = true;
  wake_->wake_all();
}

const Status& SyncFence::wait() {
  while (!signalled_) wake_->wait();
  return status_;
}

ExecutionResult PreparedModel::run_timed(const Request& request, const ExecuteOptions& options) {
  const uint64_t t0 = os_.now_ns();
  ExecutionResult r;
  if (options.loop_timeout_ns > kMaxLoopTimeoutNs) {
    r.status = {ErrorStatus::INVALID_ARGUMENT, "loop timeout " + std::to_string(options.loop_timeout_ns) +
                                                   " ns exceeds the maximum of 15 s"};
    return r;
  }
  if (options.deadline && *options.deadline <= t0) {
    r.status = {ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the execution deadline passed before it started"};
    return r;
  }
  r = run(request, options);
  // NNAPI: timing is reported only when asked for and only for a successful execution.
  if (!options.measure_timing || !r.status.ok()) {
    r.timing = {};
    return r;
  }
  r.timing.time_in_driver_us = to_us(os_.now_ns() - t0);
  if (r.timing.time_on_device_us != kNoTiming && r.timing.time_on_device_us > r.timing.time_in_driver_us)
    r.timing.time_on_device_us = r.timing.time_in_driver_us;  // rounding only: device time lies inside
  return r;
}

ExecutionResult PreparedModel::execute_synchronously(const Request& request, const ExecuteOptions& options) {
  os_.delay_ns(costs_.call_ns);
  return run_timed(request, options);
}

ExecutionResult PreparedModel::execute_synchronously(const TensorMap& inputs, bool measure_timing) {
  Request request;
  request.inputs = inputs;
  ExecuteOptions options;
  options.measure_timing = measure_timing;
  return execute_synchronously(request, options);
}

ExecutionResult Burst::execute(const Request& request, const ExecuteOptions& options) {
  model_.os().delay_ns(model_.costs_.burst_call_ns);
  return model_.run_timed(request, options);
}

Status PreparedModel::execute_async(Request request, ExecuteOptions options,
                                    std::function<void(ExecutionResult)> done) {
  os_.delay_ns(costs_.call_ns);
  if (!done) return {ErrorStatus::INVALID_ARGUMENT, "execute_async needs a callback"};
  os_.spawn("hal_execution_" + std::to_string(next_thread_++),
            [this, request = std::move(request), options, done = std::move(done)] {
              os_.delay_ns(costs_.thread_start_ns);
              done(run_timed(request, options));
            });
  return {};
}

FencedExecution PreparedModel::execute_fenced(Request request,
                                              std::vector<std::shared_ptr<SyncFence>> wait_for,
                                              ExecuteOptions options) {
  const uint64_t launched = os_.now_ns();
  os_.delay_ns(costs_.call_ns);
  FencedExecution f;
  for (size_t i = 0; i < wait_for.size(); ++i) {
    if (!wait_for[i]) {
      f.status = {ErrorStatus::INVALID_ARGUMENT, "wait_for[" + std::to_string(i) + "] is not a fence"};
      return f;
    }
  }
  f.fence = std::make_shared<SyncFence>(os_);
  auto info = std::make_shared<FencedExecutionInfo>();
  f.info = info;
  os_.spawn("hal_fenced_" + std::to_string(next_thread_++), [this, request = std::move(request),
                                                             wait_for = std::move(wait_for), options,
                                                             fence = f.fence, info, launched] {
    os_.delay_ns(costs_.thread_start_ns);
    for (size_t i = 0; i < wait_for.size(); ++i) {
      if (const Status& s = wait_for[i]->wait(); !s.ok()) {
        info->result.status = {ErrorStatus::GENERAL_FAILURE,
                               "wait_for[" + std::to_string(i) + "] signalled an error: " + s.message};
        fence->signal(info->result.status);
        return;
      }
    }
    const uint64_t fenced = os_.now_ns();
    info->result = run_timed(request, options);
    if (info->result.status.ok() && options.measure_timing) {
      const uint64_t now = os_.now_ns();
      info->timing_launched = {info->result.timing.time_on_device_us, to_us(now - launched)};
      info->timing_fenced = {info->result.timing.time_on_device_us, to_us(now - fenced)};
    }
    fence->signal(info->result.status);
  });
  return f;
}

}  // namespace npu::hal
