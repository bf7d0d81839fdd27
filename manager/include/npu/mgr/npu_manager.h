// The NPU manager's client API (android.npumanager.NpuManager): an app asks before it loads a model
// and the `npu` service (npu_service.h) answers through the app's callback, on the app's Executor, in
// simulated time. Flow: requestCanLoadModel → onCanLoadModel(CAN_LOAD_NOW, listener) → the app loads
// and calls listener.notifyModelLoaded → … → onRequestUnloadModel(reason) → the app frees the model and
// calls listener.notifyModelUnloaded → onModelLoadRequestComplete(COMPLETE). cancelModelLoad ends a
// request with CANCELLED. Each request gets exactly one onModelLoadRequestComplete, its last callback.
// Calls are binder calls: each charges the service's binder cost on the calling (simulated) thread.
// Not modelled: permissions (ACCESS_NPU_MODEL_MANAGER_API), binder death, the buffer NDK.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/mgr/types.h"

namespace npu::mgr {

class NpuService;

// Handed to the client with every onCanLoadModel; reports load and unload back to the service.
class ModelLoadStatusListener {
 public:
  ModelLoadStatusListener(NpuService& service, int uid) : service_(service), uid_(uid) {}
  void notify_model_loaded(const ModelLoadRequest& request);
  void notify_model_unloaded(const ModelLoadRequest& request);

 private:
  NpuService& service_;
  int uid_;
};

// android.npumanager.ModelLoadRequestCallback. Override either on_request_unload_model overload: the
// service calls the one with the reason, which by default forwards to the one without.
class ModelLoadRequestCallback {
 public:
  virtual ~ModelLoadRequestCallback() = default;
  virtual void on_can_load_model(const ModelLoadRequest& request, LoadStatus status,
                                 ModelLoadStatusListener& listener) = 0;
  virtual void on_request_unload_model(const ModelLoadRequest& request) { (void)request; }
  virtual void on_request_unload_model(const ModelLoadRequest& request, UnloadReason reason) {
    (void)reason;
    on_request_unload_model(request);
  }
  virtual void on_model_load_request_complete(const ModelLoadRequest& request, RequestStatus status) = 0;
};

// The object an app holds: one per uid.
class NpuManager {
 public:
  NpuManager(NpuService& service, int uid) : service_(service), uid_(uid), listener_(service, uid) {}
  NpuManager(const NpuManager&) = delete;
  NpuManager& operator=(const NpuManager&) = delete;

  // Asynchronous; the answers arrive on `executor`. An error (and no callback at all) when the request
  // id is still active for this uid or the size class can never fit the NPU's weight memory.
  Result<void> request_can_load_model(const ModelLoadRequest& request,
                                      std::shared_ptr<ModelLoadRequestCallback> callback, Executor& executor);
  // Ends the request with CANCELLED (a no-op for a request that already ended).
  void cancel_model_load(const ModelLoadRequest& request);
  // Switches the load policy by name (STATUS_QUO, TURN_TAKING, BUDGET, THERMAL_PRIORITY) with its
  // parameters as a JSON object (the PersistableBundle), e.g. {"maxBudget": 4}.
  Result<void> set_policy(const std::string& policy, const nlohmann::json& params = nlohmann::json::object());

  int uid() const { return uid_; }

 private:
  NpuService& service_;
  int uid_;
  ModelLoadStatusListener listener_;
};

}  // namespace npu::mgr
