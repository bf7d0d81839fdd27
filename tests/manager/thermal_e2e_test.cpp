// The whole thermal loop in one simulation, with real heat: an external 16 W heat source on the NPU's
// junction for 500 ms (as a camera ISP sharing the die would be) → the simulated RC network and the
// sensor's trip interrupts → the driver's thermal severity (its ThermalObserver) → the npu service's
// THERMAL_PRIORITY policy → the opportunistic app's work paused (PAUSED), the opportunistic and background
// holders asked to unload (THERMAL) → cooling below the trips minus their hysteresis → the paused work
// resumed (RESUMED) and the apps re-admitted, the opportunistic one only after the 1000 ms hold.
//
// Heat arithmetic (default thermal network: junction 0.03 J/K, 4 K/W to the package; package 3 J/K):
// 16 W raises the junction over the package by 16 · 4 = 64 K with τ = 0.03 · 4 = 0.12 s, while the
// package warms by only ≈ 16 W / 3 J/K ≈ 5 K/s. From 25 °C the junction passes LIGHT (65 °C) after ≈ 0.1 s,
// MODERATE (75 °C) after ≈ 0.18 s and SEVERE (85 °C) after ≈ 0.33 s, and peaks near 25 + 61 + 2 ≈ 88 °C
// after 0.5 s, below CRITICAL (95 °C). Once the source is off it falls back with the same τ. Solved
// exactly on the three-node chain (junction_rise_k_per_ms) the first 1 ms samples at or above the trips
// are 118, 181 and 316 ms into the step: IdleHeatSpike... asserts those on an idle NPU, and the spike
// below, where the apps' own heat adds, must cross no later.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "../support/conv_tile.h"
#include "npu/drv/driver.h"
#include "npu/mgr/managed_app.h"
#include "npu/sim/npu.h"
#include "platform.h"

namespace {

using namespace npu;
using namespace npu::mgr;

constexpr uint64_t kMs = 1'000'000;

uint64_t first_time(const ManagedApp& app, const std::string& what, int n = 0) {
  for (const auto& e : app.events())
    if (e.what == what && n-- == 0) return e.at_ns;
  return 0;
}

// The junction's rise over ambient at every whole millisecond of a constant-power step from ambient,
// on the thermal RC chain (junction → package → skin → ambient), by a method independent of the
// simulator's modal solution: classical RK4 on C dθ/dt = −G θ + P e₀ with a 1 µs step (the fastest time
// constant is ≈ 0.1 s, so the truncation error is far below a milli-°C). Element k is the rise at k ms.
std::vector<double> junction_rise_k_per_ms(const sim::ThermalConfig& t, double power_w, size_t ms) {
  const double c[3] = {t.junction.capacity_j_per_k, t.package.capacity_j_per_k, t.skin.capacity_j_per_k};
  const double g[3] = {1 / t.junction.resistance_k_per_w, 1 / t.package.resistance_k_per_w,
                       1 / t.skin.resistance_k_per_w};
  auto slope = [&](const std::array<double, 3>& th) {
    return std::array<double, 3>{(power_w - g[0] * (th[0] - th[1])) / c[0],
                                 (g[0] * (th[0] - th[1]) - g[1] * (th[1] - th[2])) / c[1],
                                 (g[1] * (th[1] - th[2]) - g[2] * th[2]) / c[2]};
  };
  auto plus = [](std::array<double, 3> a, const std::array<double, 3>& b, double k) {
    for (int i = 0; i < 3; ++i) a[i] += k * b[i];
    return a;
  };
  const double h = 1e-6;
  std::array<double, 3> th{0, 0, 0};
  std::vector<double> rise{0.0};
  while (rise.size() <= ms) {
    for (int n = 0; n < 1000; ++n) {
      const auto k1 = slope(th), k2 = slope(plus(th, k1, h / 2)), k3 = slope(plus(th, k2, h / 2)),
                 k4 = slope(plus(th, k3, h));
      for (int i = 0; i < 3; ++i) th[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    rise.push_back(th[0]);
  }
  return rise;
}

// The first whole millisecond k of `rise` at which the TEMP register (milli-°C, rounded) reads at
// least `trip_c` from ambient `ambient_c`; 0 if it never does within `rise`.
uint64_t first_ms_at_or_above(const std::vector<double>& rise, double ambient_c, double trip_c) {
  const int64_t threshold_mc = std::llround(trip_c * 1000);
  for (uint64_t k = 1; k < rise.size(); ++k)
    if (std::llround((ambient_c + rise[k]) * 1000) >= threshold_mc) return k;
  return 0;
}

TEST(ManagerThermal, RealHeatSpikePausesAndUnloadsOpportunisticWorkWhichResumesAfterCooling) {
  test::run_platform({}, [](system::System& s) {
    NpuService& svc = **s.npu_service();
    svc.set_importance(1, Importance::FOREGROUND);
    svc.set_importance(2, Importance::VISIBLE);
    svc.set_importance(3, Importance::BACKGROUND);
    auto make = [&](const std::string& name, int uid, LoadPriority prio, const test::SmallModel& m,
                    uint64_t period) {
      ManagedAppConfig c;
      c.name = name;
      c.uid = uid;
      c.priority = prio;
      c.frame_period_ns = period;
      return std::make_unique<ManagedApp>(svc, s.npu_device(uid), m.model, m.inputs, c);
    };
    const auto small = test::small_conv_model(1);
    auto f = make("f", 1, LoadPriority::NORMAL, small, 33'333'333);
    auto o = make("o", 2, LoadPriority::OPPORTUNISTIC, small, 33'333'333);
    auto b = make("b", 3, LoadPriority::NORMAL, small, 33'333'333);
    for (auto* a : {f.get(), o.get(), b.get()}) a->start();
    // The opportunistic uid's long-running NPU work (an LLM prefill, say), submitted at 100 ms: one
    // command buffer of 4000 timing-only conv tiles (590 µs each at 1 GHz, ≈ 2.4 s), so one channel; the
    // other three serve the apps' frames.
    s.os().delay_ns(100 * kMs);
    auto& d = s.driver();
    const auto ctx = *d.open_context(2, 2);
    drv::JobRequest job;
    job.stages.emplace_back().emplace_back();
    for (uint32_t i = 0; i < 4000; ++i) job.stages[0][0].push_back(test::timing_conv_tile(i));
    job.timing_only = true;
    job.label = "prefill";
    const auto fence = *d.submit(ctx, std::move(job));

    auto counter = [&](const char* path) { return *s.stats().find_counter(path); };
    // Sampled every millisecond: when each severity was first and last seen and when uid 2 was paused.
    std::vector<uint64_t> first_at(7, 0), last_at(7, 0);
    uint64_t paused_from = 0, paused_until = 0;
    // Work events (driver.work.paused / resumed) as the pause began (within 3 ms: a running tile is
    // finished first, ≤ 590 µs at 1 GHz, 1.5 ms at the slowest point, then saved) and as it ended; the
    // apps' frames also preempt the low-priority prefill now and then, each a PAUSED/RESUMED pair.
    uint64_t paused_before = 0, resumed_before = 0, paused_base = 0, paused_at_pause = 0,
             resumed_at_unpause = 0;
    bool spike_on = false, spike_off = false;
    drv::ThermalSeverity worst = drv::ThermalSeverity::NONE;
    while (s.os().now_ns() < 5000 * kMs) {
      const uint64_t now = s.os().now_ns();
      if (!spike_on && now >= 300 * kMs) spike_on = true, s.npu().inject_thermal_runaway(16.0);
      if (!spike_off && now >= 800 * kMs) spike_off = true, s.npu().inject_thermal_runaway(0.0);
      const auto sev = static_cast<size_t>(svc.thermal_severity());
      if (!first_at[sev]) first_at[sev] = now;
      last_at[sev] = now;
      worst = std::max(worst, svc.thermal_severity());
      const bool paused = svc.paused_uids().count(2) > 0;
      const uint64_t paused_events = counter("driver.work.paused"),
                     resumed_events = counter("driver.work.resumed");
      if (paused && !paused_from) {
        paused_from = now;
        paused_base = paused_before;
      }
      if (paused_from && now == paused_from + 3 * kMs) paused_at_pause = paused_events - paused_base;
      if (!paused && paused_from && !paused_until) {
        paused_until = now;
        resumed_at_unpause = resumed_events - resumed_before;
      }
      paused_before = paused_events;
      resumed_before = resumed_events;
      s.os().delay_ns(kMs);
    }
    d.wait(*fence);
    std::cout << "severity first/last seen (ms):";
    for (size_t i = 0; i < 7; ++i)
      if (first_at[i])
        std::cout << " " << drv::to_string(static_cast<drv::ThermalSeverity>(i)) << " " << first_at[i] / kMs
                  << "–" << last_at[i] / kMs;
    std::cout << "\nuid 2 paused " << paused_from / kMs << "–" << paused_until / kMs << " ms ("
              << paused_at_pause << " work ended PAUSED within 3 ms of its start, " << resumed_at_unpause
              << " started RESUMED as it ended); prefill " << fence->submit_ns / kMs << "–"
              << fence->end_ns / kMs << " ms\n";
    for (const auto* a : {f.get(), o.get(), b.get()}) {
      std::cout << a->config().name << ":";
      for (const auto& e : a->events())
        if (e.what.rfind("on", 0) == 0 || e.what == "loaded" || e.what == "unloaded")
          std::cout << " [" << e.at_ns / kMs << " ms " << e.what << "]";
      std::cout << " frames " << a->frames_ok() << " ok, " << a->frames_failed() << " failed\n";
    }
    const auto at = [](drv::ThermalSeverity v) { return static_cast<size_t>(v); };

    // The spike reached SEVERE through the real sensor path and never CRITICAL.
    EXPECT_EQ(worst, drv::ThermalSeverity::SEVERE);
    ASSERT_GT(first_at[at(drv::ThermalSeverity::MODERATE)], 300 * kMs);
    ASSERT_GT(first_at[at(drv::ThermalSeverity::SEVERE)], first_at[at(drv::ThermalSeverity::MODERATE)]);
    // Samples are 1 ms apart: an event seen at a sample happened within the millisecond before it.
    auto within_ms_after = [](uint64_t sample, uint64_t event) {
      return event <= sample && sample < event + kMs;
    };
    // Analytic upper bounds on the first crossings: the chain is linear and every response of its
    // junction to heat at the junction is non-negative, so the apps' own power and leakage on top of the
    // 16 W (and a warm start) only bring each crossing earlier than the 16 W step from ambient alone
    // would (IdleHeatSpike... below asserts that one to the sample). +1 ms: the spike is switched on at
    // a sample's own timestamp, so its power may count from the period before.
    const sim::ThermalConfig& t = s.config().npu.thermal;
    const std::vector<double> rise = junction_rise_k_per_ms(t, 16.0, 400);
    for (auto sev : {drv::ThermalSeverity::MODERATE, drv::ThermalSeverity::SEVERE}) {
      const uint64_t k = first_ms_at_or_above(rise, t.ambient_c, t.trips[at(sev) - 1].temp_c);
      ASSERT_GT(k, 0u) << drv::to_string(sev) << ": 16 W alone does not reach it in 400 ms";
      EXPECT_LE(first_at[at(sev)], (300 + k + 1) * kMs) << drv::to_string(sev) << ": alone by " << k << " ms";
      std::cout << drv::to_string(sev) << " first seen " << first_at[at(sev)] / kMs - 300
                << " ms into the spike; 16 W alone from 25 °C: " << k << " ms\n";
    }
    // MODERATE paused the opportunistic uid: its running work gave up its channel (ended PAUSED).
    const uint64_t moderate = first_at[at(drv::ThermalSeverity::MODERATE)];
    EXPECT_EQ(paused_from, moderate);
    EXPECT_GE(paused_at_pause, 1u);
    // SEVERE asked the opportunistic and the background holder to unload; the foreground app ran on.
    const uint64_t severe = first_at[at(drv::ThermalSeverity::SEVERE)];
    EXPECT_TRUE(within_ms_after(severe, first_time(*o, "onRequestUnloadModel THERMAL")));
    EXPECT_TRUE(within_ms_after(severe, first_time(*b, "onRequestUnloadModel THERMAL")));
    EXPECT_EQ(f->callbacks(), std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW"});
    EXPECT_EQ(f->frames_failed() + o->frames_failed() + b->frames_failed(), 0u);
    EXPECT_EQ(*s.stats().find_counter("manager.revocations"), 0u)
        << "a holder whose frame in flight is paused is not ignoring its unload request";
    // Cooling after the source went off at 800 ms: down through the trips (each re-armed only below its
    // temperature minus 2 °C of hysteresis) to NONE, where it stays.
    EXPECT_GT(last_at[at(drv::ThermalSeverity::SEVERE)], 800 * kMs);
    EXPECT_EQ(svc.thermal_severity(), drv::ThermalSeverity::NONE);
    EXPECT_EQ(d.thermal_severity(), drv::ThermalSeverity::NONE);
    // The paused work started again (RESUMED) only once cool: 1000 ms (the policy's hold) after the last
    // sample at MODERATE or above.
    const uint64_t last_hot =
        std::max(last_at[at(drv::ThermalSeverity::MODERATE)], last_at[at(drv::ThermalSeverity::SEVERE)]);
    EXPECT_GE(paused_until, last_hot + 1000 * kMs - kMs);
    EXPECT_LE(paused_until, last_hot + 1000 * kMs + kMs);
    EXPECT_GE(resumed_at_unpause, 1u);
    // The prefill was held for the whole pause and then finished: alone it needs at least 4000 tiles ×
    // 151 M MACs / 256 MACs per cycle = 2.36 s at 1 GHz (more when throttled).
    EXPECT_EQ(fence->status, drv::JobStatus::COMPLETED) << fence->error;
    EXPECT_GE(fence->end_ns - fence->submit_ns, 2359 * kMs + (paused_until - paused_from) - kMs);
    // The opportunistic app unloaded once its frame could finish, and is back on the NPU afterwards.
    EXPECT_GE(first_time(*o, "unloaded"), paused_until - kMs);
    EXPECT_GT(first_time(*o, "onCanLoadModel CAN_LOAD_NOW", 1), first_time(*o, "unloaded"));
  });
}

// The analytic first-crossing times of the heat-spike arithmetic above, asserted to the sensor sample.
// With leakage off and no work the NPU dissipates nothing, so the junction follows the RC chain under
// the injected 16 W alone. The sensor samples every 1 ms and holds the period's power constant: power
// injected at 300.5 ms is stepped from the 300 ms grid point, so sample k (at 300 + k ms) reads the
// chain k ms into a 16 W step from 25 °C. A trip is raised by the first sample ≥ its threshold (the TEMP
// register's milli-°C, rounded), and its interrupt reaches the driver's severity at that sample's time.
// Polls are every 10 µs, 5 µs off the sample grid, so the first poll after the sample sees it.
TEST(ManagerThermal, IdleHeatSpikeRaisesEachTripAtTheSampleTheRcChainPredicts) {
  test::run_platform({"npu.power.leakage_w=0"}, [](system::System& s) {
    const sim::ThermalConfig& t = s.config().npu.thermal;
    ASSERT_EQ(t.sample_period_us, 1000.0);
    ASSERT_EQ(t.ambient_c, 25.0);
    // Predicted sample (ms after 300) of each trip's first raise: the first k with T(k ms) ≥ trip.
    constexpr size_t kTrips = 3;  // light, moderate, severe; 16 W cannot reach critical (25 + 64 + ... < 95)
    const std::vector<double> rise = junction_rise_k_per_ms(t, 16.0, 400);
    std::array<uint64_t, kTrips> predicted_ms{};
    for (size_t i = 0; i < kTrips; ++i) {
      predicted_ms[i] = first_ms_at_or_above(rise, t.ambient_c, t.trips[i].temp_c);
      ASSERT_GT(predicted_ms[i], 0u) << sim::ThermalConfig::kTripNames[i] << ": not crossed in 400 ms";
    }
    std::cout << "predicted first samples after the 16 W step (ms): light " << predicted_ms[0]
              << ", moderate " << predicted_ms[1] << ", severe " << predicted_ms[2] << "\n";

    constexpr uint64_t kUs = 1000;
    auto& d = s.driver();
    s.os().delay_ns(300 * kMs + 500 * kUs);
    ASSERT_EQ(d.thermal_severity(), drv::ThermalSeverity::NONE);
    s.npu().inject_thermal_runaway(16.0);
    std::array<uint64_t, kTrips> seen_ns{};
    s.os().delay_ns(5 * kUs);  // off the grid: sample and poll never share a timestamp
    while (s.os().now_ns() < 700 * kMs && !seen_ns[kTrips - 1]) {
      s.os().delay_ns(10 * kUs);
      const auto sev = static_cast<size_t>(d.thermal_severity());
      for (size_t i = 0; i < kTrips; ++i)
        if (sev >= i + 1 && !seen_ns[i]) seen_ns[i] = s.os().now_ns();
    }
    s.npu().inject_thermal_runaway(0.0);
    for (size_t i = 0; i < kTrips; ++i) {
      const uint64_t sample_ns = (300 + predicted_ms[i]) * kMs;
      EXPECT_GE(seen_ns[i], sample_ns) << sim::ThermalConfig::kTripNames[i];
      EXPECT_LT(seen_ns[i], sample_ns + 10 * kUs) << sim::ThermalConfig::kTripNames[i];
      std::cout << sim::ThermalConfig::kTripNames[i] << " seen at " << seen_ns[i] << " ns\n";
    }
  });
}

}  // namespace
