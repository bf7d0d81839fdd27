// The Android 17 NPU manager (com.android.npumanager), client side and `npu` service, in simulated
// time. Clients ask before loading a model (requestCanLoadModel); the service approves from the NPU
// weight memory each size class needs and the load policy, asks lower-ranked holders to unload when a
// higher-ranked request needs their memory, and tells clients the final fate of each request.
// Callbacks run on the client's Executor, a simulated thread. Not yet here: thermal severity input,
// the scheduling HAL (SchedulingConfig / WorkInfo), TURN_TAKING and BUDGET policies (issue 8).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "npu/drv/hw.h"

namespace npu::mgr {

enum class SizeClass { LESS_THAN_1GB, BETWEEN_1GB_AND_2GB, GREATER_THAN_2G };
enum class LoadPriority { BACKGROUND, NORMAL, OPPORTUNISTIC };
// onCanLoadModel statuses (AOSP values).
enum class LoadStatus : int { CAN_LOAD_NOW = 0, WAIT_FOR_UNLOAD = 1, NOT_PRIORITIZED = 2 };
// onModelLoadRequestComplete statuses (AOSP values).
enum class RequestStatus : int { CANCELLED = 3, COMPLETE = 4 };
enum class UnloadReason { MEMORY_PRESSURE, THERMAL };
enum class Importance { FOREGROUND = 0, VISIBLE = 1, SERVICE = 2, BACKGROUND = 3, CACHED = 4 };

const char* to_string(LoadStatus s);
const char* to_string(RequestStatus s);
const char* to_string(UnloadReason r);

// Weight memory a size class reserves (its upper bound; 4 GiB for the open-ended class).
uint64_t reserved_bytes(SizeClass s);

struct ModelLoadRequest {
  int64_t id = 0;
  SizeClass size = SizeClass::LESS_THAN_1GB;
  LoadPriority priority = LoadPriority::NORMAL;
};

// A simulated thread that runs posted tasks in order.
class Executor {
 public:
  Executor(drv::Os& os, const std::string& name, uint64_t task_cost_ns = 5000);
  void post(std::function<void()> task);

 private:
  void loop();
  drv::Os& os_;
  uint64_t task_cost_ns_;
  std::deque<std::function<void()>> tasks_;
  std::unique_ptr<drv::WaitQueue> wake_;
};

class NpuService;

// Handed to the client with an approval; it reports load and unload back to the service.
class ModelLoadStatusListener {
 public:
  ModelLoadStatusListener(NpuService& service, int uid) : service_(service), uid_(uid) {}
  void notify_model_loaded(const ModelLoadRequest& request);
  void notify_model_unloaded(const ModelLoadRequest& request);

 private:
  NpuService& service_;
  int uid_;
};

class ModelLoadRequestCallback {
 public:
  virtual ~ModelLoadRequestCallback() = default;
  virtual void on_can_load_model(const ModelLoadRequest& request, LoadStatus status,
                                 ModelLoadStatusListener& listener) = 0;
  virtual void on_request_unload_model(const ModelLoadRequest& request, UnloadReason reason) = 0;
  virtual void on_model_load_request_complete(const ModelLoadRequest& request, RequestStatus status) = 0;
};

struct ServiceConfig {
  uint64_t weight_memory_bytes = 6ull << 30;  // NPU weight memory the service arbitrates
  uint64_t binder_ns = 20000;                 // cost of one client → service call
};

// The `npu` system service. The default policy ranks requests by (app importance, load priority:
// NORMAL before BACKGROUND before OPPORTUNISTIC, then arrival) and admits in rank order while memory
// lasts; a waiting request may displace holders ranked below it (they are asked to unload).
class NpuService {
 public:
  NpuService(drv::Os& os, ServiceConfig cfg = {});

  void set_importance(int uid, Importance importance);
  void request_can_load_model(int uid, const ModelLoadRequest& request,
                              std::shared_ptr<ModelLoadRequestCallback> callback, Executor& executor);
  void cancel_model_load(int uid, const ModelLoadRequest& request);

  uint64_t used_bytes() const { return used_; }
  uint64_t capacity_bytes() const { return cfg_.weight_memory_bytes; }

 private:
  friend class ModelLoadStatusListener;
  enum class State { WAITING, APPROVED, LOADED, UNLOADING };
  struct Entry {
    int uid;
    ModelLoadRequest request;
    std::shared_ptr<ModelLoadRequestCallback> callback;
    Executor* executor;
    State state = State::WAITING;
    uint64_t arrival = 0;
    ModelLoadStatusListener* listener;  // one per uid, owned by listeners_
  };
  using Key = std::pair<int, int64_t>;  // (uid, request id): ids are unique per client

  bool ranks_above(const Entry& a, const Entry& b) const;
  void loaded(int uid, const ModelLoadRequest& request);
  void unloaded(int uid, const ModelLoadRequest& request);
  void schedule();
  void complete(Key key, RequestStatus status);

  drv::Os& os_;
  ServiceConfig cfg_;
  std::map<int, Importance> importance_;
  std::map<Key, Entry> entries_;
  std::map<int, std::unique_ptr<ModelLoadStatusListener>> listeners_;
  uint64_t used_ = 0;
  uint64_t arrivals_ = 0;
};

// The client API object an app holds (android.npumanager.NpuManager).
class NpuManager {
 public:
  NpuManager(NpuService& service, int uid) : service_(service), uid_(uid) {}
  void request_can_load_model(const ModelLoadRequest& request, std::shared_ptr<ModelLoadRequestCallback> callback,
                              Executor& executor) {
    service_.request_can_load_model(uid_, request, std::move(callback), executor);
  }
  void cancel_model_load(const ModelLoadRequest& request) { service_.cancel_model_load(uid_, request); }

 private:
  NpuService& service_;
  int uid_;
};

}  // namespace npu::mgr
