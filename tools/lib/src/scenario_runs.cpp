#include "npu/tools/scenario_runs.h"

#include <chrono>
#include <cstdio>
#include <map>

#include "npu/common/interrupt.h"
#include "npu/common/suggest.h"
#include "npu/scenario/baselines.h"
#include "npu/tools/progress.h"

namespace npu::tools {

Result<std::string> scenario_policy(const scenario::Scenario& sc, const std::string& policy) {
  const std::string name = policy.empty() ? sc.policy : policy;
  if (scenario::find_baseline(name)) return name;
  std::string names;
  for (const auto& n : scenario::baseline_names()) names += (names.empty() ? "" : ", ") + n;
  return make_error("--policy: unknown baseline \"" + name + "\"" +
                    did_you_mean(name, scenario::baseline_names()) + " (" + names + ")");
}

Result<ScenarioRuns> run_scenario_policies(const scenario::Scenario& sc, const ScenarioRunsOptions& o) {
  using namespace npu::scenario;
  ScenarioRuns out;
  auto main_policy = scenario_policy(sc, o.policy);
  if (!main_policy) return make_error(main_policy.error());
  out.main_policy = *main_policy;
  std::vector<std::string> policies = {out.main_policy};
  if (o.compare)
    for (const auto& n : baseline_names())
      if (n != out.main_policy) policies.push_back(n);
  // A compare of six policies runs for minutes: say which run is going.
  Progress progress("scenario " + sc.name, static_cast<uint32_t>(policies.size() * (1 + sc.apps.size())));
  uint32_t step = 0;
  for (const auto& policy : policies) {
    progress.step(++step, policy + ": all apps");
    RunOptions ro;
    // The running simulation's share of the scenario's simulated time, on the same progress line (the
    // forked child prints it: it holds a copy of this Progress), at most every 0.2 s of wall time.
    std::string what = policy + ": all apps";
    ro.on_progress = [&progress, &step, &what, duration = sc.duration_s * o.scale,
                      last = std::chrono::steady_clock::time_point()](double done) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(200)) return;
      last = now;
      char pct[80];
      std::snprintf(pct, sizeof pct, " (%.0f %% of %.3g s simulated)", 100.0 * done, duration);
      progress.step(step, what + pct);
    };
    ro.policy = policy;
    ro.duration_scale = o.scale;
    ro.scale_thermal = o.scale_thermal;
    ro.channel_timeline = o.channel_timeline;
    if (policy == out.main_policy) {
      ro.trace_path = o.trace;
      ro.trace_metadata = o.trace_metadata;
      ro.trace_descriptors = o.trace_descriptors;
    }
    if (npu::stop_requested()) return make_error("interrupted");
    auto shared = run_forked(sc, ro);
    if (!shared) return make_error(shared.error());
    std::map<int, RunResult> isolated;
    for (const auto& app : sc.apps) {
      RunOptions io = ro;
      io.trace_path.clear();
      io.channel_timeline = false;
      io.only_uid = app.uid;
      what = policy + ": " + app.name + " alone";
      progress.step(++step, what);
      auto alone = run_forked(sc, io);
      if (!alone) return make_error(alone.error());
      isolated.emplace(app.uid, std::move(*alone));
    }
    out.metrics.push_back(compute_metrics(*shared, isolated, o.sla_factor));
    out.isolated.push_back(std::move(isolated));
    if (policy == out.main_policy)
      out.main_run = std::move(*shared);
    else
      out.other_runs.push_back(std::move(*shared));
  }
  return out;
}

}  // namespace npu::tools
