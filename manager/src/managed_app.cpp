#include "npu/mgr/managed_app.h"

#include "npu/common/log.h"

namespace npu::mgr {

// Runs on the app's executor: records, sets flags, wakes the main thread.
class ManagedApp::Callback : public ModelLoadRequestCallback {
 public:
  explicit Callback(ManagedApp& app) : app_(app) {}
  void on_can_load_model(const ModelLoadRequest& r, LoadStatus status,
                         ModelLoadStatusListener& listener) override {
    app_.log(r.id, std::string("onCanLoadModel ") + to_string(status));
    if (r.id != app_.current_id_ || status != LoadStatus::CAN_LOAD_NOW) return;
    app_.listener_ = &listener;
    app_.approved_ = true;
    app_.wake_->wake_all();
  }
  void on_request_unload_model(const ModelLoadRequest& r, UnloadReason reason) override {
    app_.log(r.id, std::string("onRequestUnloadModel ") + to_string(reason));
    if (r.id != app_.current_id_ || !app_.cfg_.honours_unload) return;
    app_.unload_asked_ = true;
    app_.wake_->wake_all();
  }
  void on_model_load_request_complete(const ModelLoadRequest& r, RequestStatus status) override {
    app_.log(r.id, std::string("onModelLoadRequestComplete ") + to_string(status));
    if (r.id != app_.current_id_) return;
    app_.ended_ = true;
    app_.wake_->wake_all();
  }

 private:
  ManagedApp& app_;
};

ManagedApp::ManagedApp(NpuService& service, hal::Device& device, models::Model model, hal::TensorMap inputs,
                       ManagedAppConfig cfg)
    : service_(service),
      device_(device),
      model_(std::move(model)),
      inputs_(std::move(inputs)),
      cfg_(std::move(cfg)),
      manager_(service, cfg_.uid),
      executor_(service.os(), cfg_.name),
      callback_(std::make_shared<Callback>(*this)),
      wake_(service.os().make_wait_queue()),
      next_id_(cfg_.first_request_id) {}

ManagedApp::~ManagedApp() = default;

void ManagedApp::start() {
  if (started_) return;
  started_ = true;
  service_.os().spawn(cfg_.name + "_main", [this] { main(); });
}

void ManagedApp::stop() {
  stop_ = true;
  wake_->wake_all();
}

void ManagedApp::cancel_pending() {
  cancel_asked_ = true;
  wake_->wake_all();
}

std::vector<std::string> ManagedApp::callbacks() const {
  std::vector<std::string> out;
  for (const auto& e : events_)
    if (e.what.rfind("on", 0) == 0) out.push_back(e.what);
  return out;
}

void ManagedApp::log(int64_t id, std::string what) {
  log::get("manager")->debug("{} request {}: {}", cfg_.name, id, what);
  events_.push_back({service_.os().now_ns(), id, std::move(what)});
}

bool ManagedApp::wait_until(uint64_t deadline_ns) {
  drv::Os& os = service_.os();
  while (os.now_ns() < deadline_ns) {
    if (stop_ || ended_ || (unload_asked_ && cfg_.honours_unload)) return false;
    wake_->wait_for(deadline_ns - os.now_ns());
  }
  return true;
}

void ManagedApp::main() {
  drv::Os& os = service_.os();
  while (!stop_ && (cfg_.max_requests == 0 || requests_ < cfg_.max_requests)) {
    const ModelLoadRequest request{next_id_++, cfg_.size, cfg_.priority};
    current_id_ = request.id;
    approved_ = ended_ = unload_asked_ = cancelled_ = cancel_asked_ = false;
    ++requests_;
    log(request.id, "requestCanLoadModel");
    if (auto r = manager_.request_can_load_model(request, callback_, executor_); !r) {
      log(request.id, "refused: " + r.error());
      break;
    }
    while (!approved_ && !ended_) {
      if ((stop_ || cancel_asked_) && !cancelled_) {
        cancelled_ = true;
        log(request.id, "cancelModelLoad");
        manager_.cancel_model_load(request);
        continue;
      }
      wake_->wait();
    }
    if (approved_ && !ended_ && !cancelled_) run_load(request);
    while (!ended_) wake_->wait();
    if (!cfg_.rerequest) break;
    if (cfg_.rerequest_delay_ns && !stop_) wait_until(os.now_ns() + cfg_.rerequest_delay_ns);
  }
  finished_ = true;
  log(current_id_, "finished");
}

void ManagedApp::run_load(const ModelLoadRequest& request) {
  drv::Os& os = service_.os();
  auto prepared = device_.prepare_model(model_);
  if (!prepared.status.ok()) {
    log(request.id, std::string("prepare failed: ") + hal::to_string(prepared.status.code) + " " +
                        prepared.status.message);
    manager_.cancel_model_load(request);
    return;
  }
  listener_->notify_model_loaded(request);
  loaded_ = true;
  log(request.id, "loaded");
  uint64_t next = os.now_ns();
  for (uint32_t frame = 0; cfg_.frames_per_load == 0 || frame < cfg_.frames_per_load; ++frame) {
    if (stop_ || ended_ || (unload_asked_ && cfg_.honours_unload)) break;
    if (cfg_.frame_period_ns && !wait_until(next)) break;
    auto r = prepared.model->execute_synchronously(inputs_, false);
    if (r.status.ok()) {
      ++frames_ok_;
    } else {
      ++frames_failed_;
      log(request.id, std::string("frame failed: ") + hal::to_string(r.status.code) + " " + r.status.message);
    }
    next += cfg_.frame_period_ns;
  }
  prepared.model.reset();  // the driver frees the model's buffers
  if (cfg_.unload_ns) os.delay_ns(cfg_.unload_ns);
  loaded_ = false;
  log(request.id, "unloaded");
  if (!ended_) listener_->notify_model_unloaded(request);  // a revoked request has already ended
}

}  // namespace npu::mgr
