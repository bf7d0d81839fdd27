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
// after 0.5 s, below CRITICAL (95 °C). Once the source is off it falls back with the same τ.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "npu/drv/driver.h"
#include "npu/mgr/managed_app.h"
#include "npu/sim/npu.h"
#include "../support/conv_tile.h"
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

}  // namespace
