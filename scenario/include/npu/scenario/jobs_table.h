// The per-request table of a scenario run (`npusim scenario --out DIR`: jobs.csv), one row per request
// of every app: a camera frame, an assistant query, a batch job or an LLM session (its prefill and decode
// driver jobs counted in `jobs`). Times are simulated, from the start of the run; the columns and their
// units are listed in docs/scenarios.md ("Per-request table").
#pragma once

#include <map>
#include <string>

#include "npu/scenario/runner.h"
#include "npu/scenario/scenario.h"

namespace npu::scenario {

// The header line of jobs.csv (with its newline).
std::string jobs_csv_header();

// The rows of one policy's shared run. `isolated`: each app's isolated run by uid (may be empty: the
// isolated_ms and slowdown columns are then empty). `scenario` gives each app's model name.
std::string jobs_csv_rows(const Scenario& scenario, const RunResult& shared,
                          const std::map<int, RunResult>& isolated);

}  // namespace npu::scenario
