// A simulation abandoned at its time limit (System::run's limit_s) while the app still holds a prepared
// model: the app's thread (and any thread it spawned) must be unwound, so everything on their stacks
// is destroyed (nothing leaks, LeakSanitizer has nothing to report) and the System tears down cleanly.
#include <memory>

#include "hal_test_util.h"
#include "npu/hal/device.h"

namespace npu::hal::test {
namespace {

std::unique_ptr<system::System> default_phone() {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  return std::move(*sys);
}

TEST(AbandonedRun, TimeLimitUnwindsTheAppThreadMidExecution) {
  auto sys = default_phone();
  auto on_app_stack = std::make_shared<int>(1);
  std::weak_ptr<int> watch = on_app_stack;
  bool returned = false;
  const TestModel t = big_conv_quant8();
  auto end = sys->run(
      [&](system::System& s) {
        const std::shared_ptr<int> held = std::move(on_app_stack);
        auto p = s.npu_device().prepare_model(t.model);
        ASSERT_TRUE(p.status.ok()) << p.status.message;
        ASSERT_TRUE(p.model->execute_synchronously(t.inputs, false).status.ok());
        s.os().delay_ns(3'600'000'000'000ULL);  // still holding the prepared model at the limit
        returned = true;
      },
      2e-3);
  ASSERT_FALSE(end.ok());
  EXPECT_NE(end.error().find("did not finish within"), std::string::npos) << end.error();
  EXPECT_FALSE(returned);
  EXPECT_TRUE(watch.expired()) << "the app's stack was not unwound: what it holds leaks";
  sys.reset();  // tears down cleanly after the unwinding
}

}  // namespace
}  // namespace npu::hal::test
