// One app of a scenario, as a simulated thread: it asks the NPU manager before loading its model
// (NpuManager::request_can_load_model), loads it through its HAL device when approved (a precompiled
// model: weights into the NPU's weight memory, copy time charged), serves its workload's requests as
// timing-only HAL executions at its job priority (the execution's priority, which the driver adds to the
// uid's SchedulingConfig from the manager), gives the model back when the manager asks (memory pressure,
// thermal) and asks again after `rerequest_delay_ms`. Requests that arrive while the model is not
// resident wait; a deadline-bound request whose deadline passed before it could start is dropped.
// Not modelled: the app's own CPU work, process death.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "npu/common/trace.h"
#include "npu/hal/device.h"
#include "npu/hal/prepared_program.h"
#include "npu/mgr/npu_manager.h"
#include "npu/mgr/npu_service.h"
#include "npu/scenario/models.h"
#include "npu/scenario/runner.h"

namespace npu::scenario {

class TenantApp {
 public:
  // `device`: the app's HAL device (its uid and pid), for this app alone.
  TenantApp(hal::NpuDevice& device, mgr::NpuService& service, const AppSpec& spec, RunnableModel model,
            uint64_t seed, uint64_t end_ns, trace::Tracer* tracer);
  ~TenantApp();
  TenantApp(const TenantApp&) = delete;
  TenantApp& operator=(const TenantApp&) = delete;

  void start();
  // What happened (call once, at the end of the run): unserved requests whose deadline passed count as
  // dropped; the NPU cycles and energy of a job still in flight count (its finished buffers from its
  // fence, `running_cycles` for its buffers still on channels — the energy of those is not known).
  AppRun finish(uint64_t running_cycles);
  const AppSpec& spec() const { return spec_; }

 private:
  class Callback;
  struct Arrival {
    uint64_t at_ns = 0, deadline_ns = 0;
    uint32_t seq = 0;
  };
  void main();
  // Adds one load request's wait (asked → granted, ended or the end of the run) to the run's totals.
  void count_load_wait(uint64_t asked_ns, uint64_t until_ns);
  bool load(int64_t request_id);
  void unload();
  // Serves requests until the manager asks for the model back or the run ends.
  void serve();
  // Runs the named programs of the loaded model as one execution.
  bool run_job(const std::vector<std::string>& programs, const char* what, RequestRecord* rec);
  // Next open-loop arrival (periodic, bursty, Poisson); at_ns = UINT64_MAX when past the stop time.
  Arrival next_arrival();
  bool closed_loop() const;
  uint64_t stop_ns() const;
  // Sleeps until `t` or news (unload asked, request ended); false when woken early.
  bool sleep_until(uint64_t t);
  bool interrupted() const { return unload_asked_ || ended_; }
  double uniform();

  hal::NpuDevice& device_;
  mgr::NpuService& service_;
  AppSpec spec_;
  RunnableModel model_;
  hal::PrecompiledModel precompiled_;
  uint64_t end_ns_;
  trace::Tracer* tracer_;
  uint32_t track_ = 0;
  mgr::NpuManager manager_;
  mgr::Executor executor_;
  std::shared_ptr<Callback> callback_;
  std::unique_ptr<drv::WaitQueue> wake_;
  std::mt19937_64 rng_;

  std::unique_ptr<hal::PreparedProgram> program_;  // while loaded
  // A decoder pass's programs: `weights` (prefill, prefill_tail or decode), then the attention of `m`
  // tokens over `context` tokens.
  std::vector<std::string> decoder_pass(const char* weights, uint32_t m, uint64_t context) const;

  mgr::ModelLoadStatusListener* listener_ = nullptr;
  int64_t current_id_ = 0;
  // When the load request in progress was made; kNoRequest once it was answered or counted. The run's
  // end may reach finish() before the waiting thread wakes, so finish() counts it then.
  static constexpr uint64_t kNoRequest = ~0ull;
  uint64_t asked_ns_ = kNoRequest;
  bool approved_ = false, ended_ = false, unload_asked_ = false;
  bool gave_up_ = false;  // the model can never load here (recorded as an error): stop asking
  uint64_t resident_since_ = 0;

  // Workload state.
  std::vector<Arrival> pending_;  // arrived or scheduled open-loop requests not yet served
  uint64_t next_open_ns_ = 0;     // the next open-loop arrival to generate
  uint32_t burst_left_ = 0;
  uint32_t seq_ = 0;
  uint32_t tokens_done_ = 0;   // LLM: decoded tokens of the current session (lost with the model)
  uint32_t prefill_done_ = 0;  // LLM: prompt chunks done in the current session (lost with the model)
  bool in_session_ = false;
  RequestRecord session_;
  uint32_t batch_done_ = 0;
  AppRun run_;
};

}  // namespace npu::scenario
