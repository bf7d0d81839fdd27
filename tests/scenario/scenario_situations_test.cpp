// The shipped situations beyond camera + LLM, on the whole platform and scaled down to keep each case
// short — except thermal_critical, whose fault does not scale: it runs the whole 6 s file (two runs,
// 15–25 s of wall time). Simulated results are deterministic: the bounds are the situations'
// acceptance figures, the comments say what the measured runs showed (docs/scenarios.md has the tables
// of the full-length runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

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
// the PREMA paper: PREMA has the best ANTT, STP and fairness; preemptive highest-priority-first raises
// STP over non-preemptive FCFS but starves the low priorities (less fair than FCFS). Whether hpf's ANTT
// beats FCFS's depends on the window (it does here, not over the full 5 s: docs/scenarios.md), so it is
// not asserted. The default policy (adaptive scheduler) is asserted against all of them.
TEST(ScenarioMustShow, PremaMixRanksPremaFirst) {
  const Scenario s = shipped("prema_mix");
  std::vector<Metrics> runs;
  std::map<std::string, const Metrics*> by;
  for (const char* p : {"fcfs", "hpf", "prema", "default"}) runs.push_back(run_with_isolated(s, p, 0.1));
  // (rr and edf are left out to keep the test short: without deadlines and with buffers shorter than
  // the slices they schedule as fcfs and as non-preemptive priority do.)
  for (const auto& m : runs) {
    by[m.policy] = &m;
    ASSERT_TRUE(m.antt && m.stp && m.fairness) << m.policy << ": every app completed requests in both runs";
  }
  const std::string table = comparison_table(runs);
  std::fputs(table.c_str(), stdout);
  EXPECT_NE(table.find("ANTT/fcfs"), std::string::npos);
  const Metrics &fcfs = *by["fcfs"], &hpf = *by["hpf"], &prema = *by["prema"], &def = *by["default"];
  EXPECT_LT(*prema.antt, *hpf.antt);
  EXPECT_LT(*prema.antt, *fcfs.antt);
  EXPECT_GT(*hpf.stp, *fcfs.stp);
  EXPECT_GE(*prema.stp, *hpf.stp);
  EXPECT_GT(*fcfs.fairness, *hpf.fairness);
  EXPECT_GT(*prema.fairness, *fcfs.fairness);
  EXPECT_EQ(fcfs.preemptions, 0u);
  EXPECT_GT(prema.preemptions, 0u);
  EXPECT_LT(prema.preemptions, 10'000u) << "no preemption livelock";
  // The default policy against all of them, in this 0.5 s window: ANTT within 5 % of PREMA's (the rule
  // for every shipped file), STP no more than 5 % below the best, less checkpoint traffic than hpf.
  // Measured: default ANTT 1.855 against PREMA's 1.936. Not asserted because it does not hold in this
  // window: fairness at least PREMA's (default 0.604 against 0.669 here: big-a's and vis-a's requests were
  // slowed 2.32x and 2.29x; over the whole 5 s file it holds, 0.757 against 0.746, docs/scenarios.md).
  EXPECT_LE(*def.antt, 1.05 * *prema.antt);
  for (const auto& m : runs) EXPECT_GE(*def.stp, 0.95 * *m.stp) << m.policy;
  EXPECT_LT(def.preempt_saved_mib, hpf.preempt_saved_mib);
}

// Thermal fault, the whole 6 s file (the event's heating does not scale: see docs/scenarios.md): at 2 s
// a failing power gate injects 6 W into the junction for 0.35 s. Measured: LIGHT to SEVERE within
// 0.1 s, the governor at its slowest point by 2.07 s, the background LLM unloaded at SEVERE (2.18 s),
// CRITICAL from 2.29 s, peak 98.3 °C at the end of the fault; the LLM loads again at 2.48 s and the
// clock is back at 1 GHz at 2.47 s. The thermal-oblivious hpf keeps the LLM on the NPU through the
// fault and peaks at 101.9 °C: EMERGENCY.
TEST(ScenarioSituation, ThermalCriticalForegroundSurvivesBackgroundUnloadedAndBack) {
  const Scenario s = shipped("thermal_critical");
  ASSERT_EQ(s.events.size(), 1u);
  const uint64_t fault_end_ns =
      static_cast<uint64_t>(std::llround((s.events[0].at_s + s.events[0].duration_s) * 1e9));
  RunOptions o;
  o.policy = "default";
  const RunResult r = run_checked(s, o);
  const Metrics m = compute_metrics(r, {});
  print_thermal(m);
  const AppMetrics *cam = m.app("camera"), *llm = m.app("llm");
  ASSERT_NE(cam, nullptr);
  ASSERT_NE(llm, nullptr);
  ASSERT_EQ(r.apps.size(), 2u);
  const AppRun& llm_run = r.apps[1];
  ASSERT_EQ(llm_run.name, "llm");
  std::printf("llm: %u loads, %u unloads, %u load requests, load wait %.1f ms; resident", llm->loads,
              llm->unloads, llm->load_requests, llm->load_wait_ms);
  for (const Span& sp : llm_run.resident) std::printf(" %.3f-%.3f s", sp.start_ns / 1e9, sp.end_ns / 1e9);
  std::printf("\n");
  // Reached CRITICAL, not EMERGENCY.
  EXPECT_GT(m.severity_s[static_cast<size_t>(drv::ThermalSeverity::CRITICAL)], 0.0);
  EXPECT_EQ(time_at_or_above(m, drv::ThermalSeverity::EMERGENCY), 0.0);
  EXPECT_GE(m.peak_junction_c, 95.0);
  EXPECT_LT(m.peak_junction_c, 100.0);
  // The foreground camera keeps its deadlines.
  EXPECT_GE(cam->with_deadline, 180u);
  EXPECT_LE(cam->miss_rate, 0.01);
  // The background LLM was unloaded while the severity was SEVERE or worse, and loaded again.
  ASSERT_FALSE(r.samples.empty());
  ASSERT_GE(llm_run.resident.size(), 2u);
  const uint64_t unloaded_ns = llm_run.resident[0].end_ns;
  int severity_at_unload = 0;
  for (const Sample& smp : r.samples)
    if (smp.t_ns <= unloaded_ns) severity_at_unload = smp.severity;
  EXPECT_GE(severity_at_unload, static_cast<int>(drv::ThermalSeverity::SEVERE));
  EXPECT_EQ(llm->unloads, 1u) << "asked to unload at SEVERE";
  EXPECT_EQ(llm->loads, 2u) << "loaded again after the fault";
  EXPECT_GT(llm_run.resident[1].start_ns, fault_end_ns);
  // The governor cut the clock to its slowest point and gave it back soon after the fault.
  double min_mhz = r.samples.front().mhz, max_mhz = 0;
  uint64_t last_throttled_ns = 0;
  for (const Sample& smp : r.samples) max_mhz = std::max(max_mhz, smp.mhz);
  for (const Sample& smp : r.samples) {
    min_mhz = std::min(min_mhz, smp.mhz);
    if (smp.mhz < max_mhz) last_throttled_ns = smp.t_ns;
  }
  EXPECT_EQ(min_mhz, 400.0);
  EXPECT_GT(last_throttled_ns, 0u);
  EXPECT_LT(last_throttled_ns, fault_end_ns + 500'000'000u) << "full clock within 0.5 s of the fault's end";
  EXPECT_LE(r.samples.back().severity, static_cast<int>(drv::ThermalSeverity::LIGHT))
      << "recovered by the end";

  // hpf, thermal-oblivious: the LLM stays through the fault, the junction runs hotter, into EMERGENCY.
  o.policy = "hpf";
  const Metrics obl = compute_metrics(run_checked(s, o), {});
  print_thermal(obl);
  ASSERT_NE(obl.app("llm"), nullptr);
  EXPECT_EQ(obl.app("llm")->unloads, 0u);
  EXPECT_GT(obl.peak_junction_c, m.peak_junction_c + 2);
  EXPECT_GT(time_at_or_above(obl, drv::ThermalSeverity::EMERGENCY), 0.0);
  EXPECT_LE(obl.app("camera")->miss_rate, 0.01);
}

// Assistant in the foreground, photo indexing in the background submitting job priority 0 ("urgent"),
// 2 s of the 10 s file: the manager's bands put the background's urgent jobs behind the assistant's,
// which preempt them; non-preemptive FCFS makes the assistant wait for the photo job in flight.
TEST(ScenarioSituation, AssistantStaysResponsiveBesideUrgentBackgroundJobs) {
  const Scenario s = shipped("assistant_photos");
  const Metrics def = run_shared(s, "default", 0.2), fcfs = run_shared(s, "fcfs", 0.2);
  const AppMetrics *a = def.app("assistant"), *p = def.app("photos"), *a_fcfs = fcfs.app("assistant");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(a_fcfs, nullptr);
  std::printf(
      "default: assistant %u requests, p50 %.2f p99 %.2f ms, %u missed; photos %u jobs, %u preempted, %.2f "
      "NPU s of %.2f; fcfs: assistant p99 %.2f ms\n",
      a->arrivals, a->p50_ms, a->p99_ms, a->missed, p->completed, p->preemptions, p->npu_s,
      def.channels * def.duration_s, a_fcfs->p99_ms);
  EXPECT_GE(a->with_deadline, 5u);
  EXPECT_EQ(a->missed, 0u);
  EXPECT_EQ(a->preemptions, 0u);
  EXPECT_GT(p->preemptions, 0u) << "the assistant's requests preempt the urgent background jobs";
  EXPECT_LT(a->p99_ms, a_fcfs->p99_ms);
  EXPECT_GT(p->npu_s, 0.8 * def.channels * def.duration_s) << "the background still gets the NPU";
}

// Eight foreground tenants with bursty arrivals at ~80 % offered load beside a 30 fps camera
// (a bursty many-tenant mix). Under `default`, a waiting buffer that backfilling keeps off a freed
// channel (a better-ranked running job's next stage needs it) used to preempt a running buffer all the same:
// the channel it freed went to the next waiting buffer, which it then killed again, microsecond after
// microsecond (2,752 kills in the first 40 ms, 532,702 in half a second, the run's memory past 19 GB). The
// first 40 ms hold the first such deadlock (at 15 ms).
TEST(ScenarioSituation, BurstyTenantsPreemptNoChannelTheyWouldBeHeldFrom) {
  const nlohmann::json doc = nlohmann::json::parse(R"({
  "name": "bursty_tenants", "seed": 11, "duration_s": 0.04,
  "hardware": {"config": "configs/npu/default.json", "set": {"manager.weight_memory_mib": 16384}},
  "apps": [
    {"name":"camera","uid":10201,"importance":"FOREGROUND","model":"vision-small","job_priority":0,"workload":{"type":"periodic","period_ms":33.3,"deadline_ms":33.3}},
    {"name":"big-a","uid":10202,"importance":"FOREGROUND","model":"vision-large","job_priority":0,"workload":{"type":"bursty","mean_gap_ms":75.4,"burst_min":1,"burst_max":4,"burst_spacing_ms":2}},
    {"name":"big-b","uid":10203,"importance":"FOREGROUND","model":"vision-large","job_priority":500,"workload":{"type":"bursty","mean_gap_ms":73.9,"burst_min":1,"burst_max":4,"burst_spacing_ms":3}},
    {"name":"asst-a","uid":10204,"importance":"FOREGROUND","model":"assistant","job_priority":200,"workload":{"type":"bursty","mean_gap_ms":59.7,"burst_min":2,"burst_max":8,"burst_spacing_ms":1}},
    {"name":"asst-b","uid":10205,"importance":"FOREGROUND","model":"assistant","job_priority":500,"workload":{"type":"bursty","mean_gap_ms":59.7,"burst_min":2,"burst_max":8,"burst_spacing_ms":1}},
    {"name":"asst-c","uid":10206,"importance":"FOREGROUND","model":"assistant","job_priority":0,"workload":{"type":"bursty","mean_gap_ms":55.7,"burst_min":2,"burst_max":8,"burst_spacing_ms":2}},
    {"name":"vis-a","uid":10207,"importance":"FOREGROUND","model":"vision-small","job_priority":200,"workload":{"type":"bursty","mean_gap_ms":26.9,"burst_min":1,"burst_max":3,"burst_spacing_ms":2}},
    {"name":"vis-b","uid":10208,"importance":"FOREGROUND","model":"vision-small","job_priority":500,"workload":{"type":"bursty","mean_gap_ms":26.9,"burst_min":1,"burst_max":3,"burst_spacing_ms":2}},
    {"name":"vis-c","uid":10209,"importance":"FOREGROUND","model":"vision-small","job_priority":0,"workload":{"type":"bursty","mean_gap_ms":27.9,"burst_min":1,"burst_max":3,"burst_spacing_ms":1}}
  ]})");
  auto s = parse_scenario(doc, "bursty_tenants.json", NPUSIM_SOURCE_DIR);
  ASSERT_TRUE(s.ok()) << s.error();
  const Metrics m = run_shared(*s, "default", 1.0);
  std::printf("default: %llu preemptions in %.2f s\n", static_cast<unsigned long long>(m.preemptions),
              m.duration_s);
  EXPECT_LT(m.preemptions, 200u);
}

// Foreground load against a resident giant model, the whole 8 s file (the translator, CACHED, asks at
// once and turns foreground at 2 s): the manager asks the giant to unload, the translator loads, the
// giant waits for its turn. Load waits: the translator's total counts the 2 s it asked while CACHED
// (the manager rightly kept it waiting); counted from its promotion, the wait is the manager's own.
// Whole, not scaled: at 8 s the run's end reached the metrics before the giant's waiting thread woke,
// and its 5.8 s wait was reported as 0.
TEST(ScenarioSituation, ForegroundLoadEvictsTheResidentGiant) {
  const Scenario s = shipped("foreground_load");
  RunOptions o;
  o.policy = "default";
  const RunResult r = run_checked(s, o);
  ASSERT_EQ(r.apps.size(), 2u);
  const AppRun &giant = r.apps[0], &fg = r.apps[1];
  const double foreground_at_ms = s.apps[1].importance.back().at_s * o.duration_scale * 1e3;
  const double loaded_after_ms = fg.first_loaded_ns / 1e6 - foreground_at_ms;
  const Metrics m = compute_metrics(r, {});
  const AppMetrics *giant_m = m.app("giant"), *fg_m = m.app("translator");
  ASSERT_NE(giant_m, nullptr);
  ASSERT_NE(fg_m, nullptr);
  std::printf(
      "giant: %u loads, %u unloads, %u requests, load wait %.1f ms (since promotion %.1f); translator loaded "
      "%.1f ms after turning foreground (weights copied in %.1f ms), %zu sessions, load wait %.1f ms (since "
      "promotion %.1f)\n",
      giant.loads, giant.unloads, giant.load_requests, giant_m->load_wait_ms,
      giant_m->load_wait_since_promotion_ms, loaded_after_ms, fg.load_ns / 1e6, fg.requests.size(),
      fg_m->load_wait_ms, fg_m->load_wait_since_promotion_ms);
  EXPECT_EQ(giant.unloads, 1u);
  EXPECT_GE(giant.load_requests, 2u) << "asks again and waits";
  EXPECT_EQ(giant.loads, 1u) << "the foreground keeps the memory";
  EXPECT_EQ(fg.loads, 1u);
  EXPECT_GT(loaded_after_ms, 0.0);
  EXPECT_LT(loaded_after_ms, 500.0);
  EXPECT_GE(fg.requests.size(), 1u);
  // The translator asked at 0 while CACHED: its total wait holds the CACHED second, the wait since its
  // promotion only the manager's (the giant finishing its job and unloading), after which it copied its
  // weights.
  EXPECT_EQ(fg.load_requests, 1u);
  // (It asks 20 µs into the run.)
  EXPECT_NEAR(fg_m->load_wait_ms - fg_m->load_wait_since_promotion_ms, foreground_at_ms, 0.1);
  EXPECT_GT(fg_m->load_wait_since_promotion_ms, 0.0);
  EXPECT_NEAR(fg_m->load_wait_since_promotion_ms + fg_m->load_ms, loaded_after_ms, 1e-6);
  // The giant, never promoted, asked again after its unload and was still waiting at the end: counted
  // up to the end, all of it the manager's.
  EXPECT_DOUBLE_EQ(giant_m->load_wait_since_promotion_ms, giant_m->load_wait_ms);
  // From its unload (the end of its first resident span) it waits for the manager to end the request,
  // asks again rerequest_delay_ms later and is still waiting at the end.
  ASSERT_FALSE(giant.resident.empty());
  const double unloaded_ms = giant.resident.front().end_ns / 1e6;
  // (Equal when the manager ends the request at the unload's instant; 1 ns for the sums of doubles.)
  EXPECT_LE(giant_m->load_wait_ms, m.duration_s * 1e3 - unloaded_ms - s.apps[0].rerequest_delay_ms + 1e-6);
  EXPECT_GT(giant_m->load_wait_ms, m.duration_s * 1e3 - unloaded_ms - s.apps[0].rerequest_delay_ms - 100.0);
  const nlohmann::json j = m.to_json();
  EXPECT_EQ(j["apps"][1]["load_wait_since_promotion_ms"].get<double>(),
            std::round(fg_m->load_wait_since_promotion_ms * 1e6) / 1e6);
  EXPECT_NE(app_table(m).find("since promo"), std::string::npos);
}

}  // namespace
}  // namespace npu::scenario
