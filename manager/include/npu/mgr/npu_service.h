// The `npu` system service (com.android.server.npumanager): it arbitrates the NPU's weight memory
// between apps through model-load requests, owns every request's lifecycle and callbacks, and asks a
// LoadPolicy (policy.h) what to do after each event. Its inputs: requests from NpuManager clients,
// app importance (set by the scenario, as ActivityManager would), thermal severity (the driver's
// ThermalObserver, relayed by the scheduling HAL) and completed NPU work (ISchedulingCallback). Its
// outputs: client callbacks, per-uid SchedulingConfigs (priority alignment: importance → priority
// and job-priority bounds, so a background app's urgent job cannot outrank foreground work), pausing
// a uid's NPU work, and revoking a client that ignores an unload request for longer than its timeout
// (its NPU work is cancelled — CANCELLED_SYSTEM — its memory reclaimed and its request ends CANCELLED).
//
// Threads: binder calls run on the caller's simulated thread after the binder cost; driver and HAL
// events and timers run on the service's own Executor. Not modelled: binder death of a client, the
// allocator/buffer NDK (memory is accounted by size class; a revoked client's buffers stay allocated
// in the driver until it frees them).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npu/common/config.h"
#include "npu/common/result.h"
#include "npu/common/stats.h"
#include "npu/common/trace.h"
#include "npu/hal/scheduling_hal.h"
#include "npu/mgr/npu_manager.h"
#include "npu/mgr/policy.h"

namespace npu::mgr {

// The SchedulingConfig the service gives a uid of one importance.
struct PriorityBand {
  uint32_t app_priority = 0;
  uint32_t min_job_priority = 0;
  uint32_t max_job_priority = 1000;
};

struct ServiceConfig {
  uint64_t weight_memory_mib = 0;  // NPU weight memory arbitrated; 0: the driver's (scheduling HAL)
  std::array<uint64_t, 3> size_class_mib{1024, 2048, 4096};  // memory each size class reserves
  uint64_t binder_ns = 20'000;                               // one client → service call
  uint64_t task_ns = 5'000;                                  // the service thread handling one event
  uint64_t unload_timeout_ms = 1000;                // a holder asked to unload has this long to report it
  uint32_t debounce_ms = hal::kDebounceDurationMs;  // of the service's scheduling callback
  std::string policy = "THERMAL_PRIORITY";
  // Per Importance (FOREGROUND … CACHED). Foreground work spans effective priorities 0…500, background
  // work 900…1500: no background job can outrank a foreground one.
  std::array<PriorityBand, 5> bands{
      {{0, 0, 500}, {100, 0, 500}, {200, 0, 600}, {500, 400, 1000}, {800, 600, 1000}}};

  // Declares the parameters under `manager.` (size classes and bands as manager.size_class.*,
  // manager.band.<importance>.*).
  void declare(cfg::Schema& schema);
};

class NpuService : public drv::ThermalObserver {
 public:
  // Registers with the scheduling HAL (callback) and, through it, as the driver's thermal observer.
  // Fails when the policy name or the configured bands are invalid.
  static Result<std::unique_ptr<NpuService>> create(hal::SchedulingHal& hal, ServiceConfig cfg = {},
                                                    stats::Registry* stats = nullptr);
  ~NpuService() override;
  NpuService(const NpuService&) = delete;
  NpuService& operator=(const NpuService&) = delete;

  // Binder entry points of INpuManagerService (the NpuManager client calls these).
  Result<void> can_load_model(int uid, const ModelLoadRequest& request,
                              std::shared_ptr<ModelLoadRequestCallback> callback, Executor& executor,
                              ModelLoadStatusListener& listener);
  void cancel_model_load(int uid, const ModelLoadRequest& request);
  void notify_model_loaded(int uid, const ModelLoadRequest& request);
  void notify_model_unloaded(int uid, const ModelLoadRequest& request);
  Result<void> set_policy(const std::string& name, const nlohmann::json& params);

  // ActivityManager: the uid's importance changed (apps are BACKGROUND until told otherwise). Updates
  // the uid's SchedulingConfig and re-evaluates. Call from a simulated thread.
  void set_importance(int uid, Importance importance);
  // The thermal status as the thermal service reports it; the driver's ThermalObserver lands here too.
  void set_thermal_severity(ThermalSeverity severity);

  drv::Os& os() { return hal_.os(); }
  // NPU weight memory arbitrated (the driver's is known once it probed the NPU).
  uint64_t capacity_bytes() const;
  uint64_t held_bytes() const;  // by APPROVED, LOADED and UNLOADING requests
  uint64_t max_held_bytes() const { return max_held_; }
  uint64_t bytes_for(SizeClass size) const;
  ThermalSeverity thermal_severity() const { return severity_; }
  const std::set<int>& paused_uids() const { return paused_; }
  std::string policy_name() const { return policy_->name(); }
  size_t active_requests() const { return entries_.size(); }
  std::optional<RequestState> state_of(int uid, int64_t request_id) const;
  Importance importance_of(int uid) const;
  hal::SchedulingConfig scheduling_config_for(int uid, Importance importance) const;

  // Records a track per uid under "manager" (each request's wait and hold as spans, unload requests and
  // revocations as instants) and counters of held memory and thermal severity. nullptr: off.
  void set_tracer(trace::Tracer* tracer) { tracer_ = tracer; }

  // drv::ThermalObserver (kernel context): the change is handled on the service thread.
  void on_thermal_severity(ThermalSeverity severity, double junction_c) override;

 private:
  using Key = std::pair<int, int64_t>;  // (uid, request id)
  struct Entry {
    int uid = 0;
    ModelLoadRequest request;
    std::shared_ptr<ModelLoadRequestCallback> callback;
    Executor* executor = nullptr;
    ModelLoadStatusListener* listener = nullptr;
    RequestState state = RequestState::PENDING;
    std::optional<LoadStatus> last_status;  // last onCanLoadModel status sent
    uint64_t arrival = 0;
    uint64_t waiting_since_ns = 0;         // arrival
    uint64_t waited_ns = 0;                // frozen at admission
    uint64_t unload_token = 0;             // identifies the pending unload timeout
    bool unload_timeout_deferred = false;  // it ran out while the uid's work was paused: restarts on resume
  };
  class WorkListener;
  // Registered under `manager.` in the stats registry.
  struct Counters {
    uint64_t* requests = nullptr;
    uint64_t* approvals = nullptr;
    uint64_t* unload_requests = nullptr;
    uint64_t* thermal_unloads = nullptr;
    uint64_t* revocations = nullptr;
    uint64_t* cancellations = nullptr;
    uint64_t* completions = nullptr;
  };

  NpuService(hal::SchedulingHal& hal, ServiceConfig cfg, std::unique_ptr<LoadPolicy> policy,
             stats::Registry* stats);
  void on_work_completed(int uid);
  void evaluate();
  void apply(Entry& e, const Ruling& r);
  void send_status(Entry& e, LoadStatus status);
  void complete(const Key& key, RequestStatus status);
  void unload_timed_out(const Key& key, uint64_t token);
  void schedule_reevaluation(uint64_t at_ns);
  void apply_paused(const std::set<int>& wanted);
  void note_held();
  uint32_t track_of(int uid);

  hal::SchedulingHal& hal_;
  ServiceConfig cfg_;
  std::unique_ptr<LoadPolicy> policy_;
  Executor thread_;
  std::shared_ptr<WorkListener> work_listener_;
  std::map<Key, Entry> entries_;
  std::map<int, Importance> importance_;
  std::map<int, uint64_t> last_completed_ns_;
  std::set<int> paused_;
  ThermalSeverity severity_ = ThermalSeverity::NONE;
  uint64_t arrivals_ = 0;
  uint64_t next_token_ = 1;
  uint64_t reevaluation_at_ns_ = 0;  // the earliest pending re-evaluation timer, 0: none
  uint64_t max_held_ = 0;
  bool evaluating_ = false;
  trace::Tracer* tracer_ = nullptr;
  std::map<int, uint32_t> tracks_;
  uint64_t last_traced_held_ = UINT64_MAX;
  stats::Registry own_stats_;  // when the caller gives no registry
  Counters counters_;
};

}  // namespace npu::mgr
