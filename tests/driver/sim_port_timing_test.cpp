// The driver port's timing (npu.timing.mode): exact waits out every register access; fast runs the
// calling thread ahead of the kernel (temporal decoupling) and synchronises where it blocks, before a
// register that moves with the device, and at the quantum.
#include <gtest/gtest.h>

#include "npu/regmap/npu_regs.h"
#include "npu/system/system.h"

namespace {

using namespace npu;

std::unique_ptr<system::System> make_system(const std::vector<std::string>& overrides) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  return std::move(*sys);
}

uint64_t kernel_ns() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }

// npu.mmio_access_ns is 20 ns in the preset.
TEST(SimPortTiming, ExactWaitsOutEveryRegisterAccess) {
  auto sys = make_system({});
  uint64_t k0 = 0, k1 = 0, n1 = 0;
  const auto end = sys->run([&](system::System& s) {
    k0 = kernel_ns();
    for (int i = 0; i < 10; ++i) s.debug_registers().read32(regs::NPU_ID);
    k1 = kernel_ns();
    n1 = s.os().now_ns();
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(k1 - k0, 200u);
  EXPECT_EQ(n1, k1);
}

TEST(SimPortTiming, FastRunsAheadAndSynchronisesWhereItBlocks) {
  auto sys = make_system({"npu.timing.mode=fast", "npu.timing.quantum_ns=1000"});
  uint64_t k0 = 0, n0 = 0, k_ahead = 0, n_ahead = 0, k_live = 0, k_after_wait = 0, n_after_wait = 0,
           k_quantum = 0, n_quantum = 0;
  const auto end = sys->run([&](system::System& s) {
    k0 = kernel_ns();
    n0 = s.os().now_ns();  // the thread may start ahead (the driver's probe ran on it)
    for (int i = 0; i < 10; ++i) s.debug_registers().read32(regs::NPU_ID);
    k_ahead = kernel_ns();  // not moved: the thread is 200 ns further ahead
    n_ahead = s.os().now_ns();
    s.debug_registers().read32(regs::channel_base(0) + regs::CH_PROGRESS);  // live: synchronises first
    k_live = kernel_ns();
    auto q = s.os().make_wait_queue();
    q->wait_for(500);  // blocks: synchronises, then waits the 500 ns
    k_after_wait = kernel_ns();
    n_after_wait = s.os().now_ns();
    for (int i = 0; i < 60; ++i) s.debug_registers().read32(regs::NPU_ID);  // 1200 ns: past the quantum
    k_quantum = kernel_ns();
    n_quantum = s.os().now_ns();
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(k_ahead, k0);
  EXPECT_EQ(n_ahead, n0 + 200);
  EXPECT_EQ(k_live, n0 + 200);
  EXPECT_EQ(k_after_wait, n0 + 220 + 500);
  EXPECT_EQ(n_after_wait, k_after_wait);
  EXPECT_EQ(n_quantum, k_after_wait + 1200);
  EXPECT_EQ(k_quantum, k_after_wait + 1000) << "synchronised once, when the offset reached the quantum";
}

}  // namespace
