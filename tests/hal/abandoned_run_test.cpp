// Threads SystemC never resumes: a simulation abandoned at its time limit (System::run's limit_s) while
// the app still holds a prepared model, and a run whose app returns while a thread it spawned is parked.
// Those threads must be unwound, so everything on their stacks is destroyed (nothing leaks, LeakSanitizer
// has nothing to report) and the System tears down cleanly; and nothing on the heap may hang on a wait
// that is never resumed (a register access's payload).
#include <malloc.h>

#include <cstdlib>
#include <new>
#if defined(__SANITIZE_ADDRESS__)
#define NPUSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPUSIM_TEST_ASAN 1
#endif
#endif
#ifdef NPUSIM_TEST_ASAN
#include <sanitizer/allocator_interface.h>
#endif
#include <memory>
#include <tlm>
#include <vector>

#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "npu/regmap/npu_regs.h"

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

// The app returns while a thread it spawned is still parked mid-frame: SystemC never resumes it after
// the run, so System::run must unwind it (an RAII object on its stack is destroyed) for nothing to leak.
TEST(FinishedRun, ThreadsStillRunningWhenTheAppReturnsAreUnwound) {
  auto sys = default_phone();
  std::weak_ptr<int> watch;
  bool resumed = false;
  auto end = sys->run([&](system::System& s) {
    s.os().spawn("parked_helper", [&] {
      const auto held = std::make_shared<int>(1);  // lives on this thread's stack
      watch = held;
      sc_core::wait(sc_core::sc_time(1000, sc_core::SC_SEC));  // still waiting when the app returns
      resumed = true;
    });
    s.os().delay_ns(1000);  // the helper starts and parks
    EXPECT_FALSE(watch.expired());
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_LT(*end, 1.0) << "the run ends when the app returns, not when the helper would";
  EXPECT_FALSE(resumed);
  EXPECT_TRUE(watch.expired()) << "the parked thread's stack was not unwound: what it holds leaks";
  sys.reset();
}

// Bytes allocated and not yet freed: ASan's own count under ASan; elsewhere counted by this binary's
// operator new/delete (malloc's statistics count freed chunks parked in its caches as in use). ASan
// keeps its own operator new, which a replacement would mismatch.
#ifndef NPUSIM_TEST_ASAN
size_t g_live_bytes = 0;  // SystemC threads are coroutines of one OS thread: no race
#endif
size_t heap_in_use() {
#ifdef NPUSIM_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return g_live_bytes;
#endif
}

// Found by fuzzing: a register access kept its TLM payload (whose extension array is on the heap) alive
// across the access's wait, so a thread parked there at the end of a run leaked it. While a read's delay
// elapses, the heap holds what it held while the same thread sat in a plain wait.
// A TLM extension type, registered as a program using one would: every payload then carries a heap
// array of extension slots (without any, a payload allocates nothing and the test could not tell).
struct TestExtension : tlm::tlm_extension<TestExtension> {
  tlm::tlm_extension_base* clone() const override { return new TestExtension(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

TEST(FinishedRun, RegisterAccessHoldsNoPayloadAcrossItsWait) {
  ASSERT_GT(tlm::max_num_extensions(), TestExtension::ID);
  auto cfg =
      system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {"npu.mmio_access_ns=1000"});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto made = system::System::create(*cfg);
  ASSERT_TRUE(made.ok()) << made.error();
  auto sys = std::move(*made);
  // Rounds of (plain wait, read) on one thread; the heap is sampled halfway through each. Growth of
  // SystemC's own queues settles in the first rounds: the last one is compared.
  constexpr int kRounds = 4;
  std::vector<size_t> idle(kRounds), mid_read(kRounds);
  int reads_done = 0;
  auto end = sys->run([&](system::System& s) {
    drv::RegisterBus& bus = s.debug_registers();
    s.os().spawn("reader", [&] {
      for (int i = 0; i < kRounds; ++i) {
        sc_core::wait(sc_core::sc_time(1000, sc_core::SC_NS));   // parked in a plain wait
        EXPECT_EQ(bus.read32(regs::NPU_ID), regs::kNpuIdValue);  // parked in the read's 1 us
        ++reads_done;
      }
    });
    s.os().delay_ns(500);
    for (int i = 0; i < kRounds; ++i) {
      idle[i] = heap_in_use();
      s.os().delay_ns(1000);
      mid_read[i] = heap_in_use();
      EXPECT_EQ(reads_done, i) << "the reader is mid-read";
      s.os().delay_ns(1000);
    }
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(mid_read.back(), idle.back()) << "the register read holds heap memory across its wait";
}

}  // namespace
}  // namespace npu::hal::test

#ifndef NPUSIM_TEST_ASAN
void* operator new(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  npu::hal::test::g_live_bytes += malloc_usable_size(p);
  return p;
}
void operator delete(void* p) noexcept {
  if (p) npu::hal::test::g_live_bytes -= malloc_usable_size(p);
  std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }
#endif
