// One app of a scenario, as a simulated thread: it asks the NPU manager before loading its model
// (NpuManager::request_can_load_model), loads it when approved (weights into the NPU's weight memory
// through the driver, copy time charged), serves its workload's requests as timing-only driver jobs at
// its job priority, gives the model back when the manager asks (memory pressure, thermal) and asks
// again after `rerequest_delay_ms`. Requests that arrive while the model is not resident wait; a
// deadline-bound request whose deadline passed before it could start is dropped.
// Jobs go straight to the driver (as the HAL's execute does) because the HAL has no per-execution
// priority yet; the uid's scheduling config still comes from the manager through the scheduling HAL.
// Not modelled: the app's own CPU work, process death.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "npu/common/trace.h"
#include "npu/drv/driver.h"
#include "npu/mgr/npu_manager.h"
#include "npu/mgr/npu_service.h"
#include "npu/scenario/models.h"
#include "npu/scenario/runner.h"

namespace npu::scenario {

class TenantApp {
 public:
  TenantApp(drv::Driver& driver, mgr::NpuService& service, const AppSpec& spec, RunnableModel model,
            double memcpy_gbps, uint64_t seed, uint64_t end_ns, trace::Tracer* tracer);
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
  bool run_job(const std::vector<std::vector<std::vector<desc::Raw>>>& stages, const char* what,
               RequestRecord* rec);
  // Next open-loop arrival (periodic, bursty, Poisson); at_ns = UINT64_MAX when past the stop time.
  Arrival next_arrival();
  bool closed_loop() const;
  uint64_t stop_ns() const;
  // Sleeps until `t` or news (unload asked, request ended); false when woken early.
  bool sleep_until(uint64_t t);
  bool interrupted() const { return unload_asked_ || ended_; }
  double uniform();

  drv::Driver& driver_;
  mgr::NpuService& service_;
  AppSpec spec_;
  RunnableModel model_;
  double memcpy_gbps_;
  uint64_t end_ns_;
  trace::Tracer* tracer_;
  uint32_t track_ = 0;
  mgr::NpuManager manager_;
  mgr::Executor executor_;
  std::shared_ptr<Callback> callback_;
  std::unique_ptr<drv::WaitQueue> wake_;
  std::mt19937_64 rng_;

  drv::ContextId ctx_ = 0;
  drv::BufferObject weights_{}, arena_{};
  // Relocated command buffers of each program while loaded.
  using Stages = std::vector<std::vector<std::vector<desc::Raw>>>;
  Stages infer_, prefill_, prefill_tail_, decode_;
  std::map<std::pair<uint32_t, uint32_t>, Stages> attention_;  // relocated RunnableModel::attention
  // A decoder pass's job: `weights` (prefill_, prefill_tail_ or decode_) then the attention of `m` tokens
  // over `context` tokens.
  Stages decoder_pass(const Stages& weights, uint32_t m, uint64_t context) const;

  std::shared_ptr<drv::Fence> in_flight_;  // the job being waited for, not yet accounted
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
