// The NPU manager's model-load arbitration in simulated time: clients run on Executors (SystemC
// threads), the service arbitrates 6 GiB of NPU weight memory.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "npu/drv/port/sim_port.h"
#include "npu/mgr/npu_manager.h"

namespace {

using namespace npu::mgr;

// Records every callback with its simulated time, and unloads `unload_ns` after being asked.
struct Client : ModelLoadRequestCallback {
  Client(std::string n, npu::drv::Os& o, std::vector<std::string>& l) : name(std::move(n)), os(o), log(l) {}
  std::string name;
  npu::drv::Os& os;
  std::vector<std::string>& log;
  ModelLoadStatusListener* listener = nullptr;
  uint64_t approved_ns = 0;
  uint64_t unload_ns = 1'000'000;  // freeing a giant model takes 1 ms

  void on_can_load_model(const ModelLoadRequest& r, LoadStatus s, ModelLoadStatusListener& l) override {
    log.push_back(name + " onCanLoadModel " + to_string(s));
    approved_ns = os.now_ns();
    listener = &l;
    l.notify_model_loaded(r);
  }
  void on_request_unload_model(const ModelLoadRequest& r, UnloadReason reason) override {
    log.push_back(name + " onRequestUnloadModel " + to_string(reason));
    os.delay_ns(unload_ns);
    listener->notify_model_unloaded(r);
  }
  void on_model_load_request_complete(const ModelLoadRequest&, RequestStatus s) override {
    log.push_back(name + " onModelLoadRequestComplete " + to_string(s));
  }
};

TEST(NpuManager, ForegroundLargeModelDisplacesBackgroundGiant) {
  npu::drv::SimOs os;
  NpuService service(os);
  Executor bg_exec(os, "bg_app"), fg_exec(os, "fg_app");
  std::vector<std::string> log;
  auto bg = std::make_shared<Client>("bg", os, log);
  auto fg = std::make_shared<Client>("fg", os, log);
  NpuManager bg_mgr(service, 1001), fg_mgr(service, 1002);
  uint64_t fg_request_ns = 0;
  sc_core::sc_spawn([&] {
    service.set_importance(1001, Importance::BACKGROUND);
    service.set_importance(1002, Importance::FOREGROUND);
    bg_mgr.request_can_load_model({1, SizeClass::GREATER_THAN_2G, LoadPriority::BACKGROUND}, bg, bg_exec);
    os.delay_ns(10'000'000);
    fg_request_ns = os.now_ns();
    fg_mgr.request_can_load_model({7, SizeClass::GREATER_THAN_2G, LoadPriority::NORMAL}, fg, fg_exec);
    os.delay_ns(100'000'000);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  const std::vector<std::string> expected{"bg onCanLoadModel CAN_LOAD_NOW", "bg onRequestUnloadModel MEMORY_PRESSURE",
                                          "bg onModelLoadRequestComplete COMPLETE", "fg onCanLoadModel CAN_LOAD_NOW"};
  EXPECT_EQ(log, expected);
  // Time to approval: request call (20 µs binder) → background executor runs the unload request
  // (5 µs task) → 1 ms unload → notify (20 µs binder) → foreground executor task (5 µs):
  // 20 + 5 + 1000 + 20 + 5 = 1050 µs.
  EXPECT_EQ(fg->approved_ns - fg_request_ns, 1'050'000u);
  EXPECT_EQ(service.used_bytes(), 4ull << 30);
}

TEST(NpuManager, CancelPendingRequestEndsCancelledWithoutApproval) {
  npu::drv::SimOs os;
  NpuService service(os, {2ull << 30, 20000});
  Executor exec_a(os, "a"), exec_b(os, "b");
  std::vector<std::string> log;
  auto a = std::make_shared<Client>("a", os, log);
  auto b = std::make_shared<Client>("b", os, log);
  NpuManager ma(service, 1), mb(service, 2);
  sc_core::sc_spawn([&] {
    service.set_importance(1, Importance::FOREGROUND);
    service.set_importance(2, Importance::BACKGROUND);
    ma.request_can_load_model({1, SizeClass::BETWEEN_1GB_AND_2GB, LoadPriority::NORMAL}, a, exec_a);
    mb.request_can_load_model({2, SizeClass::LESS_THAN_1GB, LoadPriority::BACKGROUND}, b, exec_b);
    os.delay_ns(1'000'000);
    mb.cancel_model_load({2, SizeClass::LESS_THAN_1GB, LoadPriority::BACKGROUND});
    os.delay_ns(1'000'000);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  const std::vector<std::string> expected{"a onCanLoadModel CAN_LOAD_NOW", "b onModelLoadRequestComplete CANCELLED"};
  EXPECT_EQ(log, expected);
  EXPECT_EQ(service.used_bytes(), 2ull << 30);
}

TEST(NpuManager, LowerRankedRequestDoesNotDisplaceHigherRankedHolder) {
  npu::drv::SimOs os;
  NpuService service(os, {4ull << 30, 20000});
  Executor exec_a(os, "a"), exec_b(os, "b");
  std::vector<std::string> log;
  auto a = std::make_shared<Client>("a", os, log);
  auto b = std::make_shared<Client>("b", os, log);
  NpuManager ma(service, 1), mb(service, 2);
  sc_core::sc_spawn([&] {
    service.set_importance(1, Importance::FOREGROUND);
    service.set_importance(2, Importance::BACKGROUND);
    ma.request_can_load_model({1, SizeClass::GREATER_THAN_2G, LoadPriority::NORMAL}, a, exec_a);
    mb.request_can_load_model({2, SizeClass::LESS_THAN_1GB, LoadPriority::OPPORTUNISTIC}, b, exec_b);
    os.delay_ns(5'000'000);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(log, std::vector<std::string>{"a onCanLoadModel CAN_LOAD_NOW"});
}

}  // namespace
