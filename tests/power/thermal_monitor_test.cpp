// ThermalMonitor in a SystemC simulation: sampling, coupling to the PowerModel (leakage at the junction
// temperature), trip interrupts, the thermal-runaway fault hook.
// sc_spawn is only declared with dynamic processes enabled, before the first SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "npu/sim/power/thermal_monitor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <systemc>

#include "npu/common/config.h"
#include "npu/common/stats.h"
#include "npu/sim/power/power_model.h"

namespace npu::sim {
namespace {

using sc_core::SC_MS;
using sc_core::sc_time;
using sc_core::SC_US;

// A parent named "npu" makes the monitor "npu.thermal": its config prefix and stats path.
struct Npu : sc_core::sc_module {
  ThermalMonitor thermal;
  Npu(sc_core::sc_module_name name, const ThermalConfig& cfg, PowerModel& power, stats::Registry& stats)
      : sc_module(name), thermal("thermal", cfg, power, stats) {}
};

struct Bench {
  cfg::Schema schema;
  PowerConfig power_cfg;
  ThermalConfig thermal_cfg;
  stats::Registry stats;
  std::unique_ptr<PowerModel> power;
  std::unique_ptr<Npu> npu;
  ThermalMonitor* monitor = nullptr;

  explicit Bench(const std::vector<std::string>& overrides = {}) {
    power_cfg.declare(schema);
    thermal_cfg.declare(schema);
    for (const auto& o : overrides) EXPECT_TRUE(schema.set(o)) << o;
    auto p = power_cfg.resolve();
    EXPECT_TRUE(p);
    power = std::make_unique<PowerModel>(*p, stats);
    npu = std::make_unique<Npu>("npu", thermal_cfg, *power, stats);
    monitor = &npu->thermal;
  }
};

TEST(ThermalMonitor, SamplesEveryPeriodAndTracksTheRcModelWithLeakageFeedback) {
  // 1 ms samples; a workload adds 1.5e8 pJ of int8 MACs (0.1 pJ each) every 100 µs at odd 50 µs
  // offsets, so each 1 ms period holds exactly 10 of them: 1.5e9 pJ / 1 ms = 1.5 W of dynamic power.
  // Leakage 0.2 W at 25 °C, k = 0.03/°C, charged at the period's starting junction temperature.
  Bench b({"npu.power.int8_mac_pj=0.1", "npu.power.leakage_w=0.2", "npu.power.leakage_per_c=0.03"});
  sc_core::sc_spawn([&] {
    sc_core::wait(50, SC_US);
    for (;;) {
      b.power->add_macs("npu.ch0", DataType::Int8, 1'500'000'000);
      sc_core::wait(100, SC_US);
    }
  });
  sc_core::sc_start(sc_time(200.5, SC_MS));
  EXPECT_EQ(b.monitor->samples(), 200u);

  // The same arithmetic offline: each period P = 1.5 W + 0.2 W · e^{0.03 (T_j − 25)}, then an exact step.
  auto ref = ThermalRc::from_config(b.thermal_cfg);
  ASSERT_TRUE(ref);
  double expected_p = 0;
  for (int k = 0; k < 200; ++k) {
    expected_p = 1.5 + 0.2 * std::exp(0.03 * (ref->junction_c() - 25.0));
    ref->step(1e-3, expected_p);
  }
  EXPECT_NEAR(b.monitor->junction_c(), ref->junction_c(), 1e-9);
  EXPECT_NEAR(b.monitor->last_power_w(), expected_p, 1e-9);
  EXPECT_GT(b.monitor->junction_c(), 30.0);  // 200 ms is over one junction time constant
  EXPECT_EQ(b.monitor->sensor().temp_mc(), static_cast<int32_t>(std::lround(ref->junction_c() * 1000)));
  EXPECT_NEAR(*b.stats.find_value("npu.thermal.junction.temp_c"), ref->junction_c(), 1e-9);
  EXPECT_EQ(*b.stats.find_counter("npu.thermal.samples"), 200u);
}

TEST(ThermalMonitor, RunawayRaisesATripOnceAndRearmsAfterCooling) {
  // Idle NPU (leakage off), light trip at 40 °C with 2 °C hysteresis. 10 W injected from 10 ms: the
  // junction heads for 25 + 10·4 = 65 °C above a barely warming package with τ ≈ 0.12 s, so it passes
  // 40 °C within ~0.1 s and then stays above. Injection removed at 400 ms: the junction falls back to
  // near the package (~26 °C) and re-arms; injected again at 1.2 s, it raises a second time.
  Bench b({"npu.power.leakage_w=0", "npu.thermal.trips.light.temp_c=40",
           "npu.thermal.trips.light.hysteresis_c=2"});
  int interrupts = 0;
  std::vector<sc_time> raised_at;
  b.monitor->on_trip([&](const TripEvent& e) {
    EXPECT_EQ(e.name, "light");
    raised_at.push_back(sc_core::sc_time_stamp());
  });
  sc_core::sc_spawn([&] {
    for (;;) {
      sc_core::wait(b.monitor->trip_event());
      ++interrupts;
    }
  });
  bool high_while_injected = true;
  sc_core::sc_spawn([&] {
    sc_core::wait(10, SC_MS);
    b.monitor->inject_thermal_runaway(10.0);
    sc_core::wait(390, SC_MS);
    high_while_injected = b.monitor->junction_c() > 50.0;
    EXPECT_EQ(interrupts, 1);
    EXPECT_EQ(b.monitor->sensor().tripped() & 1u, 1u);
    b.monitor->inject_thermal_runaway(0.0);
    sc_core::wait(800, SC_MS);
    EXPECT_EQ(b.monitor->sensor().tripped() & 1u, 0u) << b.monitor->junction_c();
    b.monitor->inject_thermal_runaway(10.0);
  });
  sc_core::sc_start(sc_time(1600, SC_MS));
  EXPECT_TRUE(high_while_injected);
  EXPECT_EQ(interrupts, 2);
  ASSERT_EQ(raised_at.size(), 2u);
  EXPECT_GT(raised_at[0], sc_time(10, SC_MS));
  EXPECT_LT(raised_at[0], sc_time(200, SC_MS));
  EXPECT_EQ(*b.stats.find_counter("npu.thermal.trips.light.raised"), 2u);
  EXPECT_EQ(*b.stats.find_counter("npu.thermal.trips.moderate.raised"), 0u);
  EXPECT_DOUBLE_EQ(*b.stats.find_value("npu.thermal.injected_w"), 10.0);
  // The fault power is not charged as NPU energy.
  EXPECT_EQ(b.power->total_energy_pj(), 0.0);
}

TEST(ThermalMonitor, StopLetsTheSimulationRunOutOfEvents) {
  Bench b;
  sc_core::sc_spawn([&] {
    sc_core::wait(5500, SC_US);
    b.monitor->stop();
  });
  sc_core::sc_start();  // returns only because sampling stopped
  // Samples at 1..6 ms: the one scheduled before stop() at 5.5 ms still runs.
  EXPECT_EQ(b.monitor->samples(), 6u);
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(6, SC_MS));
}

TEST(ThermalMonitor, BadConfigThrowsNamingTheParameter) {
  Bench b;
  ThermalConfig bad = b.thermal_cfg;
  bad.skin.resistance_k_per_w = -1;
  try {
    ThermalMonitor m("thermal2", bad, *b.power, b.stats);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("npu.thermal.skin.resistance_k_per_w"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace npu::sim
