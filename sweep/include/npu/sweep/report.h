// The HTML report of a sweep database (`npusim sweep --db D --report r.html`): per workload, the Pareto
// front of latency, energy and area (a design is on it when no other design is at least as good in all
// three and better in one) drawn as latency-energy and latency-area scatter plots; each axis's
// sensitivity (how far each metric's mean moves over the axis's values); a sortable table of every row
// with the command line that reproduces it. Self-contained: inline data, script and styles, no network.
#pragma once

#include <string>
#include <vector>

#include "npu/sweep/database.h"

namespace npu::sweep {

// Indexes into `rows` (status ok, the given workload, with all three metrics) on the Pareto front of
// (latency, energy, area), all minimised. `latency_metric` names the latency column used.
std::vector<size_t> pareto_front(const std::vector<Row>& rows, const std::string& workload,
                                 const std::string& latency_metric);
// latency_p50_us when recorded, else latency_mean_us, else latency_p99_us; empty when none is.
std::string latency_metric(const SweepMeta& meta);

std::string html_report(const SweepMeta& meta, const std::vector<Row>& rows);
// The Pareto front of every workload as Markdown tables (axes, latency, energy, area), by latency.
std::string pareto_markdown(const SweepMeta& meta, const std::vector<Row>& rows);

}  // namespace npu::sweep
