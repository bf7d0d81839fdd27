// The scenario report: one self-contained HTML page (no network: data embedded as JSON, charts drawn
// into inline SVG by a small script) with, for the main run, a timeline per app (its jobs and residency)
// and per channel (whose work ran where), latency distributions per app, junction/skin temperature and
// clock over time, and the comparison table of every policy run; `other_runs` (the other policies'
// shared runs under --compare) each get a channel timeline of their own. Axes carry tick values and
// units, the apps a colour legend, marks a hover text. Charts carry class "chart" and get
// data-rendered="1" once drawn (the headless-browser test checks that).
#pragma once

#include <string>
#include <vector>

#include "npu/scenario/metrics.h"
#include "npu/scenario/runner.h"

namespace npu::scenario {

std::string html_report(const RunResult& main_run, const std::vector<Metrics>& comparison,
                        const std::vector<RunResult>& other_runs = {});

}  // namespace npu::scenario
