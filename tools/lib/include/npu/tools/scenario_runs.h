// A scenario under one baseline or all of them, as `npusim scenario [--compare]` runs it: per policy one
// shared run and each app's isolated run (every simulation a forked child process), then the metrics.
// The CLI and the Python module both call it. It prints and writes nothing except the trace file asked
// for in `trace`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/scenario/metrics.h"
#include "npu/scenario/runner.h"
#include "npu/scenario/scenario.h"

namespace npu::tools {

struct ScenarioRunsOptions {
  std::string policy;    // the main baseline; empty: the scenario's own
  bool compare = false;  // then every other baseline after the main one
  double scale = 1;      // RunOptions::duration_scale
  bool scale_thermal = false;
  double sla_factor = 4;  // SLA: a job within this many times its isolated time
  // Only for the main policy's shared run:
  std::string trace;              // Perfetto trace path (empty: none)
  nlohmann::json trace_metadata;  // its "metadata" object (the npusim version and commit)
  bool trace_descriptors = false;
  bool channel_timeline = false;  // what the HTML report draws (for every policy's shared run)
};

struct ScenarioRuns {
  std::string main_policy;
  std::vector<scenario::Metrics> metrics;       // the main policy first
  scenario::RunResult main_run;                 // the main policy's shared run
  std::vector<scenario::RunResult> other_runs;  // with compare: the other policies' shared runs, in order
  // Each policy's isolated runs (each app alone, by uid), in the order of `metrics`.
  std::vector<std::map<int, scenario::RunResult>> isolated;
};

// Errors: an unknown baseline (naming the known ones), or a run that failed.
// The baseline a run uses: `policy`, or the scenario's own when empty. An unknown name is an error naming
// it, the nearest baseline and the list (a mistake in the scenario request, refused before any run).
Result<std::string> scenario_policy(const scenario::Scenario& sc, const std::string& policy);

Result<ScenarioRuns> run_scenario_policies(const scenario::Scenario& scenario,
                                           const ScenarioRunsOptions& options);

}  // namespace npu::tools
