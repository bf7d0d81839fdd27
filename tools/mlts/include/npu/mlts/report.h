// The benchmark's HTML page: one self-contained file (no network, no external scripts) with the result
// table and the charts an inline script draws into SVG from the embedded JSON (bench_json): latency per
// iteration, the latency histogram, junction temperature per iteration, the error against the CPU
// reference per iteration (not for timing-only models), and from the first iteration's per-layer table a
// roofline (log-log, one point per NPU operation with MACs, under the compute and DRAM roofs; the
// <svg> records data-points) and the MAC-array utilisation of each NPU operation (data-bars). After drawing,
// every chart records what it drew on its <svg> element (data-marks: number of drawn shapes; data-drawn-size:
// "W×H" of the drawn group's bounding box as laid out by the browser), so a headless browser can check the
// page rendered.
#pragma once

#include <string>

#include "npu/common/result.h"
#include "npu/mlts/bench.h"

namespace npu::mlts {

std::string bench_html(const BenchResult& r);

// Writes bench_html(r) to `path`; the error names the path.
Result<void> write_bench_html(const BenchResult& r, const std::string& path);

}  // namespace npu::mlts
