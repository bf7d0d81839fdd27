// The shipped situations beyond camera + LLM, on the whole platform and scaled down to keep each case
// well under 20 s of wall time. Simulated results are deterministic: the bounds are the acceptance
// figures of issue 9, the comments say what the measured runs showed (docs/scenarios.md has the tables
// of the full-length runs).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "npu/drv/driver.h"
#include "scenario_support.h"

namespace npu::scenario {
namespace {

double time_at_or_above(const Metrics& m, drv::ThermalSeverity s) {
  double t = 0;
  for (size_t i = static_cast<size_t>(s); i < m.severity_s.size(); ++i) t += m.severity_s[i];
  return t;
}

void print_thermal(const Metrics& m) {
  const AppMetrics* cam = m.app("camera");
  std::printf(
      "%-8s camera %u/%u missed, p99 %.2f ms; Tj max %.1f C, skin max %.1f C, throttled %.2f s of %.1f s, "
      "%llu DVFS changes; s at LIGHT/MODERATE/SEVERE/CRITICAL %.2f/%.2f/%.2f/%.2f\n",
      m.policy.c_str(), cam ? cam->missed : 0, cam ? cam->with_deadline : 0, cam ? cam->p99_ms : 0,
      m.peak_junction_c, m.peak_skin_c, m.throttled_s, m.duration_s,
      static_cast<unsigned long long>(m.dvfs_changes), m.severity_s[1], m.severity_s[2], m.severity_s[3],
      m.severity_s[4]);
}

// Sustained heat: 180 s scaled to 9 s with the package and skin heat capacities scaled alike, so the
// device heats as far as in the full run. The default policy pauses the opportunistic LLM at MODERATE;
// the thermal-oblivious hpf (no manager reaction to the severity; the driver's governor still guards
// the silicon) keeps the LLM running and the governor throttles the clock nearly all the time.
TEST(ScenarioMustShow, SustainedHeatDefaultHoldsWhereTheObliviousBaselineThrottles) {
  const Scenario s = shipped("sustained_heat");
  const Metrics def = run_shared(s, "default", 0.05, true);
  const Metrics obl = run_shared(s, "hpf", 0.05, true);
  print_thermal(def);
  print_thermal(obl);
  const AppMetrics* cam = def.app("camera");
  const AppMetrics* cam_obl = obl.app("camera");
  ASSERT_NE(cam, nullptr);
  ASSERT_NE(cam_obl, nullptr);
  EXPECT_GE(cam->with_deadline, 260u);
  EXPECT_LE(cam->miss_rate, 0.01);
  EXPECT_EQ(time_at_or_above(def, drv::ThermalSeverity::EMERGENCY), 0.0);
  EXPECT_EQ(time_at_or_above(def, drv::ThermalSeverity::SEVERE), 0.0);
  EXPECT_GT(def.severity_s[static_cast<size_t>(drv::ThermalSeverity::MODERATE)], 0.0) << "it did heat up";
  EXPECT_GT(def.app("llm")->npu_s, 0.0) << "the LLM runs between the pauses";
  EXPECT_LT(def.throttled_s, 0.05 * def.duration_s);
  // The oblivious baseline: throttled most of the run, hotter, slower frames.
  EXPECT_GT(obl.throttled_s, 0.5 * obl.duration_s);
  EXPECT_GT(obl.dvfs_changes, 0u);
  EXPECT_GT(obl.severity_s[static_cast<size_t>(drv::ThermalSeverity::MODERATE)], 0.5 * obl.duration_s);
  EXPECT_GT(obl.peak_junction_c, def.peak_junction_c);
  EXPECT_GT(obl.peak_skin_c, def.peak_skin_c + 2);
  EXPECT_GT(cam_obl->p99_ms, 1.5 * cam->p99_ms);
}

// PREMA mix, 0.5 s of the 5 s file: ANTT, STP and fairness of every baseline with isolated runs. As in
// the PREMA paper: PREMA has the best ANTT and fairness; preemptive highest-priority-first improves
// ANTT and STP over non-preemptive FCFS but starves the low priorities (worst fairness).
TEST(ScenarioMustShow, PremaMixRanksPremaFirstOnAnttAndFairness) {
  const Scenario s = shipped("prema_mix");
  std::vector<Metrics> runs;
  std::map<std::string, const Metrics*> by;
  for (const char* p : {"fcfs", "hpf", "prema", "default"}) runs.push_back(run_with_isolated(s, p, 0.1));
  for (const auto& m : runs) {
    by[m.policy] = &m;
    ASSERT_TRUE(m.antt && m.stp && m.fairness) << m.policy << ": every app completed requests in both runs";
  }
  const std::string table = comparison_table(runs);
  std::fputs(table.c_str(), stdout);
  EXPECT_NE(table.find("ANTT/fcfs"), std::string::npos);
  const Metrics &fcfs = *by["fcfs"], &hpf = *by["hpf"], &prema = *by["prema"], &def = *by["default"];
  EXPECT_LT(*prema.antt, *hpf.antt);
  EXPECT_LT(*hpf.antt, *fcfs.antt);
  EXPECT_GT(*prema.fairness, *fcfs.fairness);
  EXPECT_GT(*fcfs.fairness, *hpf.fairness);
  EXPECT_GT(*hpf.stp, *fcfs.stp);
  EXPECT_GE(*prema.stp, *hpf.stp);
  EXPECT_EQ(fcfs.preemptions, 0u);
  EXPECT_GT(prema.preemptions, 0u);
  EXPECT_LT(prema.preemptions, 10'000u) << "no preemption livelock";
  // The default policy schedules as hpf does: same driver policy, no thermal or memory pressure here.
  EXPECT_DOUBLE_EQ(*def.antt, *hpf.antt);
  EXPECT_DOUBLE_EQ(*def.fairness, *hpf.fairness);
}

}  // namespace
}  // namespace npu::scenario
