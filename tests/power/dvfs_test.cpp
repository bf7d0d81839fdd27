// DvfsController: operating points drive the clock domain (timing) and the power model (voltage), after
// the transition latency.
// sc_spawn is only declared with dynamic processes enabled, before the first SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <gtest/gtest.h>

#include <memory>
#include <systemc>

#include "npu/common/config.h"
#include "npu/common/stats.h"
#include "npu/sim/clock.h"
#include "npu/sim/power/dvfs_controller.h"
#include "npu/sim/power/power_model.h"

namespace npu::sim {
namespace {

using sc_core::SC_MS;
using sc_core::sc_time;
using sc_core::SC_US;

// A parent named "npu" makes the controller "npu.dvfs": its config prefix and stats path.
struct Npu : sc_core::sc_module {
  DvfsController dvfs;
  Npu(sc_core::sc_module_name name, const DvfsConfig& cfg, ClockDomain& clock, PowerModel& power,
      stats::Registry& stats)
      : sc_module(name), dvfs("dvfs", cfg, clock, power, stats) {}
};

struct Bench {
  cfg::Schema schema;
  PowerConfig power_cfg;
  DvfsConfig dvfs_cfg;
  stats::Registry stats;
  ClockDomain clock{250.0};  // the controller's initial point overrides this
  std::unique_ptr<PowerModel> power;
  std::unique_ptr<Npu> npu;
  DvfsController* dvfs = nullptr;

  // opp2 at half of opp0's 1000 MHz, 0.60 V; transition 50 µs (the defaults otherwise).
  explicit Bench(std::vector<std::string> overrides = {}) {
    power_cfg.declare(schema);
    dvfs_cfg.declare(schema);
    overrides.insert(overrides.begin(), {"npu.dvfs.opp2.mhz=500", "npu.dvfs.opp2.voltage_v=0.60"});
    for (const auto& o : overrides) EXPECT_TRUE(schema.set(o)) << o;
    auto p = power_cfg.resolve();
    EXPECT_TRUE(p);
    power = std::make_unique<PowerModel>(*p, stats);
    npu = std::make_unique<Npu>("npu", dvfs_cfg, clock, *power, stats);
    dvfs = &npu->dvfs;
  }
};

TEST(Dvfs, InitialPointAppliesAtOnce) {
  Bench b({"npu.dvfs.initial_point=1"});  // opp1: 800 MHz, 0.68 V
  EXPECT_EQ(b.dvfs->current_point(), 1u);
  EXPECT_EQ(b.clock.mhz(), 800.0);
  EXPECT_EQ(b.clock.period(), sc_time(1.25, sc_core::SC_NS));
  EXPECT_EQ(b.power->voltage(), 0.68);
}

TEST(Dvfs, HalvingTheClockDoublesAFixedCycleWorkload) {
  // 1 000 000 cycles: at opp0 (1000 MHz, 1 ns) 1 ms; at opp2 (500 MHz, 2 ns) 2 ms.
  Bench b;
  sc_time fast, slow;
  sc_core::sc_spawn([&] {
    sc_time t0 = sc_core::sc_time_stamp();
    sc_core::wait(b.clock.cycles(1'000'000));
    fast = sc_core::sc_time_stamp() - t0;
    EXPECT_TRUE(b.dvfs->set_operating_point(2));
    sc_core::wait(b.dvfs->changed_event());
    t0 = sc_core::sc_time_stamp();
    sc_core::wait(b.clock.cycles(1'000'000));
    slow = sc_core::sc_time_stamp() - t0;
  });
  sc_core::sc_start();
  EXPECT_EQ(fast, sc_time(1, SC_MS));
  EXPECT_EQ(slow, sc_time(2, SC_MS));
  EXPECT_EQ(slow, 2 * fast);
}

TEST(Dvfs, ChangeAppliesAfterTheTransitionLatency) {
  // Requested at 10 µs with a 50 µs latency: opp0 holds until 60 µs, then clock and voltage change together.
  Bench b;
  sc_time applied;
  std::vector<size_t> seen;
  b.dvfs->on_change([&](size_t i) {
    seen.push_back(i);
    applied = sc_core::sc_time_stamp();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(10, SC_US);
    EXPECT_TRUE(b.dvfs->set_operating_point(2));
    EXPECT_EQ(b.dvfs->pending_point(), std::optional<size_t>(2));
    sc_core::wait(49, SC_US);  // 59 µs
    EXPECT_EQ(b.clock.mhz(), 1000.0);
    EXPECT_EQ(b.power->voltage(), 0.75);
    sc_core::wait(1, SC_US);  // 60 µs: the change lands now; let it
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_EQ(b.clock.mhz(), 500.0);
    EXPECT_EQ(b.power->voltage(), 0.60);
    EXPECT_FALSE(b.dvfs->pending_point());
  });
  sc_core::sc_start();
  EXPECT_EQ(applied, sc_time(60, SC_US));
  EXPECT_EQ(seen, (std::vector<size_t>{2}));
  b.dvfs->update_stats();
  // 60 µs at opp0, then opp2 until the simulation ran out of events at 60 µs.
  EXPECT_DOUBLE_EQ(*b.stats.find_value("npu.dvfs.opp0.residency_ns"), 60'000.0);
  EXPECT_EQ(*b.stats.find_counter("npu.dvfs.transitions"), 1u);
  EXPECT_EQ(*b.stats.find_value("npu.dvfs.mhz"), 500.0);
}

TEST(Dvfs, ANewRequestReplacesThePendingOne) {
  // opp1 requested at 0, opp3 at 20 µs: the latency restarts, only opp3 applies, at 70 µs.
  Bench b;
  std::vector<size_t> seen;
  sc_time applied;
  b.dvfs->on_change([&](size_t i) {
    seen.push_back(i);
    applied = sc_core::sc_time_stamp();
  });
  sc_core::sc_spawn([&] {
    EXPECT_TRUE(b.dvfs->set_operating_point(1));
    sc_core::wait(20, SC_US);
    EXPECT_TRUE(b.dvfs->set_operating_point(3));
    sc_core::wait(200, SC_US);
    // Back to the point in force: nothing pending, nothing applied.
    EXPECT_TRUE(b.dvfs->set_operating_point(3));
    EXPECT_FALSE(b.dvfs->pending_point());
  });
  sc_core::sc_start();
  EXPECT_EQ(seen, (std::vector<size_t>{3}));
  EXPECT_EQ(applied, sc_time(70, SC_US));
  EXPECT_EQ(b.clock.mhz(), 400.0);
}

TEST(Dvfs, LowerPointLowersPowerForTheSameWorkRate) {
  // One job per 1 ms period: 200 000 cycles of a 16×16 int8 array (256 MAC/cycle = 51.2 M MACs). It takes
  // 200 µs at opp0 and 400 µs at opp2; both meet the period, so the work rate is the same.
  // 7 nm preset: 0.09 pJ/MAC at 0.75 V, leakage 60 mW at 0.75 V and 25 °C (held at 25 °C here).
  //   opp0: 51.2e6 · 0.09 pJ = 4.608 µJ per ms = 4.608 mW, + 60 mW leakage          = 64.608 mW
  //   opp2: 4.608 mW · (0.60 / 0.75)² = 2.949 mW, + 60 mW · 0.60 / 0.75 = 48 mW    = 50.949 mW
  Bench b;
  constexpr uint64_t kCycles = 200'000, kMacs = 256 * kCycles;
  const auto ch = b.power->component("npu.ch0");
  double p_fast = 0, p_slow = 0;
  sc_core::sc_spawn([&] {
    auto run_periods = [&](int n) {
      b.power->end_interval(1);  // drop anything before the measurement
      for (int k = 0; k < n; ++k) {
        const sc_time start = sc_core::sc_time_stamp();  // a copy: the stamp is a live reference
        sc_core::wait(b.clock.cycles(kCycles));
        EXPECT_LE(sc_core::sc_time_stamp() - start, sc_time(1, SC_MS));
        b.power->add_macs(ch, DataType::Int8, kMacs);
        sc_core::wait(sc_time(1, SC_MS) - (sc_core::sc_time_stamp() - start));
      }
      b.power->add_leakage(n * 1e-3, 25.0);
      return b.power->end_interval(n * 1e-3);
    };
    p_fast = run_periods(10);
    EXPECT_TRUE(b.dvfs->set_operating_point(2));
    sc_core::wait(b.dvfs->changed_event());
    p_slow = run_periods(10);
  });
  sc_core::sc_start();
  EXPECT_NEAR(p_fast, 0.064608, 1e-12);
  EXPECT_NEAR(p_slow, 0.00294912 + 0.048, 1e-12);
  EXPECT_LT(p_slow, p_fast);
}

TEST(Dvfs, BadRequestsAndTablesAreRejected) {
  Bench b;
  auto r = b.dvfs->set_operating_point(4);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("npu.dvfs"), std::string::npos) << r.error();

  cfg::Schema s;
  DvfsConfig c;
  c.declare(s);
  ASSERT_TRUE(s.set("npu.dvfs.opp1.mhz=1200"));
  auto v = c.validate();
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().find("npu.dvfs.opp1.mhz"), std::string::npos) << v.error();
  ASSERT_TRUE(s.set("npu.dvfs.opp1.mhz=800"));
  ASSERT_TRUE(s.set("npu.dvfs.opp3.voltage_v=0.9"));
  v = c.validate();
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().find("npu.dvfs.opp3.voltage_v"), std::string::npos) << v.error();
  EXPECT_FALSE(s.set("npu.dvfs.initial_point=4"));
}

}  // namespace
}  // namespace npu::sim
