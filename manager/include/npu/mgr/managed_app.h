// An app that runs the NPU manager flow for real, as a simulated thread: request → wait for
// CAN_LOAD_NOW → prepare its model through the HAL (its own NpuDevice, so its uid's driver context and
// scheduling config apply) → notifyModelLoaded → execute frames at its period → when asked to unload
// (or done, or stopped): release the prepared model (the driver frees its buffers) → notifyModelUnloaded
// → wait for onModelLoadRequestComplete → ask again if it wants the NPU back. Callbacks arrive on its
// own Executor. A misbehaving variant ignores unload requests (the service's timeout then revokes it).
// Every callback and step is logged with its simulated time, for tests and scenarios.
// Not modelled: the app's own CPU work between frames, process death.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npu/hal/device.h"
#include "npu/mgr/npu_manager.h"
#include "npu/mgr/npu_service.h"

namespace npu::mgr {

struct ManagedAppConfig {
  std::string name = "app";  // thread names and logs
  int uid = 10000;
  SizeClass size = SizeClass::LESS_THAN_1GB;
  LoadPriority priority = LoadPriority::NORMAL;
  int64_t first_request_id = 1;           // each request takes the next id
  uint32_t frames_per_load = 0;           // executions per load; 0: until asked to unload or stopped
  uint64_t frame_period_ns = 33'333'333;  // 30 fps; 0: back to back
  bool honours_unload = true;             // false: ignores onRequestUnloadModel
  uint64_t unload_ns = 0;                 // extra tear-down time before notifyModelUnloaded
  bool rerequest = true;                  // ask again after a request ended
  uint64_t rerequest_delay_ns = 0;
  uint32_t max_requests = 0;  // 0: unlimited
};

struct AppEvent {
  uint64_t at_ns = 0;
  int64_t request_id = 0;
  std::string what;  // "onCanLoadModel CAN_LOAD_NOW", "loaded", "onRequestUnloadModel THERMAL", …
};

class ManagedApp {
 public:
  ManagedApp(NpuService& service, hal::Device& device, models::Model model, hal::TensorMap inputs,
             ManagedAppConfig cfg);
  ~ManagedApp();
  ManagedApp(const ManagedApp&) = delete;
  ManagedApp& operator=(const ManagedApp&) = delete;

  // Spawns the app's main thread (before or during the simulation).
  void start();
  // Finishes the frame in flight, gives the model back (or cancels the pending request) and ends.
  void stop();
  // Cancels the current request if it is still waiting for approval (cancelModelLoad).
  void cancel_pending();

  const ManagedAppConfig& config() const { return cfg_; }
  const std::vector<AppEvent>& events() const { return events_; }
  // Callbacks only ("onCanLoadModel CAN_LOAD_NOW", …), in order, without times.
  std::vector<std::string> callbacks() const;
  uint64_t frames_ok() const { return frames_ok_; }
  uint64_t frames_failed() const { return frames_failed_; }
  uint32_t requests() const { return requests_; }
  bool finished() const { return finished_; }
  bool loaded() const { return loaded_; }

 private:
  class Callback;
  void main();
  void run_load(const ModelLoadRequest& request);
  bool wait_until(uint64_t deadline_ns);  // false when woken early by news
  void log(int64_t id, std::string what);

  NpuService& service_;
  hal::Device& device_;
  models::Model model_;
  hal::TensorMap inputs_;
  ManagedAppConfig cfg_;
  NpuManager manager_;
  Executor executor_;
  std::shared_ptr<Callback> callback_;
  std::unique_ptr<drv::WaitQueue> wake_;
  std::vector<AppEvent> events_;
  ModelLoadStatusListener* listener_ = nullptr;
  int64_t next_id_;
  int64_t current_id_ = -1;
  // Set by callbacks for the current request, read by the main thread.
  bool approved_ = false, ended_ = false, unload_asked_ = false;
  bool stop_ = false, cancel_asked_ = false, cancelled_ = false;
  bool loaded_ = false, finished_ = false, started_ = false;
  uint64_t frames_ok_ = 0, frames_failed_ = 0;
  uint32_t requests_ = 0;
};

}  // namespace npu::mgr
