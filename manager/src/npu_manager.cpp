#include "npu/mgr/npu_manager.h"

#include "npu/mgr/npu_service.h"

namespace npu::mgr {

void ModelLoadStatusListener::notify_model_loaded(const ModelLoadRequest& r) {
  service_.notify_model_loaded(uid_, r);
}
void ModelLoadStatusListener::notify_model_unloaded(const ModelLoadRequest& r) {
  service_.notify_model_unloaded(uid_, r);
}

Result<void> NpuManager::request_can_load_model(const ModelLoadRequest& request,
                                                std::shared_ptr<ModelLoadRequestCallback> callback,
                                                Executor& executor) {
  return service_.can_load_model(uid_, request, std::move(callback), executor, listener_);
}

void NpuManager::cancel_model_load(const ModelLoadRequest& request) {
  service_.cancel_model_load(uid_, request);
}

Result<void> NpuManager::set_policy(const std::string& policy, const nlohmann::json& params) {
  return service_.set_policy(policy, params);
}

}  // namespace npu::mgr
