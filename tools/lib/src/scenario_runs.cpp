#include "npu/tools/scenario_runs.h"

#include <map>

#include "npu/scenario/baselines.h"
#include "npu/tools/progress.h"

namespace npu::tools {

Result<ScenarioRuns> run_scenario_policies(const scenario::Scenario& sc, const ScenarioRunsOptions& o) {
  using namespace npu::scenario;
  ScenarioRuns out;
  out.main_policy = o.policy.empty() ? sc.policy : o.policy;
  if (!find_baseline(out.main_policy)) {
    std::string names;
    for (const auto& n : baseline_names()) names += (names.empty() ? "" : ", ") + n;
    return make_error("--policy: unknown baseline \"" + out.main_policy + "\" (" + names + ")");
  }
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
    ro.policy = policy;
    ro.duration_scale = o.scale;
    ro.scale_thermal = o.scale_thermal;
    ro.channel_timeline = o.channel_timeline;
    if (policy == out.main_policy) {
      ro.trace_path = o.trace;
      ro.trace_metadata = o.trace_metadata;
      ro.trace_descriptors = o.trace_descriptors;
    }
    auto shared = run_forked(sc, ro);
    if (!shared) return make_error(shared.error());
    std::map<int, RunResult> isolated;
    for (const auto& app : sc.apps) {
      RunOptions io = ro;
      io.trace_path.clear();
      io.channel_timeline = false;
      io.only_uid = app.uid;
      progress.step(++step, policy + ": " + app.name + " alone");
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
