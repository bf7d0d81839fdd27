// MLTS-style benchmark of one model on the simulated platform (`npusim bench`): latency over N
// iterations in simulated time, compilation time, and accuracy of the NPU device against the CPU
// reference on the same inputs. What it measures and what it does not:
//  - Latency is simulated time of execute_synchronously on the NPU device (host copies, driver, NPU
//    jobs and any CPU-placed stages), back to back, each iteration with its own seeded input. The
//    simulation is deterministic, so latency varies only with platform state: temperature and the
//    DVFS operating point it drives, and warm-up effects. Input values do not change the timing model.
//  - Compilation: simulated time of prepareModel plus the host's wall-clock time to compile, without
//    and with the compilation cache (a first preparation writes the cache files into a temporary
//    directory, prepareModelFromCache then loads them; the directory is removed afterwards).
//  - Accuracy: after the latency loop, the CPU reference device runs the same inputs; sum over
//    outputs of the mean squared error (dequantised), the largest absolute error, and for
//    classifiers (first output [1, C], C ≥ 5) how often the reference's top class is the device's top
//    class (top-1) or among its top five (top-5).
// Timing-only models (weights as sizes only, e.g. the zoo's decoders) get latency and compilation
// figures; accuracy is not measured (there are no values) and they are not cached.
//  - Per layer: the first timed iteration is traced and broken down by operation as `npusim run --out`'s
//    layers.csv is (npu::tools::layer_table), with the roofs of the roofline: the MAC arrays' peak
//    (channels × rows × cols × 2 ops × the configured clock) and the DRAM bandwidth.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/tools/layers.h"

namespace npu::mlts {

struct BenchOptions {
  std::string model;          // model JSON path, zoo:NAME or an ONNX file (.onnx)
  bool cpu_fallback = false;  // ONNX: import operators only the CPU reference runs
  uint32_t iterations = 10;
  uint64_t seed = 1;  // weights of zoo models and per-iteration inputs (seed + i)
  std::string hw = "configs/npu/default.json";
  std::vector<std::string> sets;  // hardware overrides path=value
  // Called as each timed iteration starts (0-based), then as each CPU reference run starts, for progress.
  std::function<void(const std::string& phase, uint32_t iteration)> on_iteration;
};

struct Iteration {
  uint64_t latency_ns = 0;  // simulated, around execute_synchronously
  uint64_t device_us = 0;   // HAL Timing: time on device
  uint64_t npu_cycles = 0;
  double junction_c = 0;  // NPU junction temperature after the iteration
  double clock_mhz = 0;   // NPU clock after the iteration (DVFS)
  double mse_sum = 0;     // Σ over outputs of the mean squared error vs the CPU reference
  double max_abs_error = 0;
  int top1 = -1, top5 = -1;  // classifiers: 1 = agrees, 0 = not; -1 = not a classifier
  int64_t top_class = -1;    // classifiers: the device's top class
};

struct Distribution {
  double mean = 0, stddev = 0, min = 0, max = 0, p50 = 0, p90 = 0, p99 = 0;
  // Equal-width bins over [min, max] (one bin when every value is equal).
  std::vector<uint32_t> histogram;
  double bin_width = 0;
};

struct BenchResult {
  std::string model;
  std::string device;                       // NNAPI device name
  std::string hardware;                     // one line: channels, array, clock
  std::string placement;                    // as the prepared model reports it
  std::vector<std::string> cpu_operations;  // "DEPTHWISE_CONV_2D x17": operations the NPU cannot run
  uint64_t parameters = 0, macs = 0;
  uint64_t compile_simulated_ns = 0;
  double compile_wall_ms = 0;  // host wall clock (not deterministic)
  bool cached = false;         // prepared from the compilation cache
  uint64_t cached_compile_simulated_ns = 0;
  double cached_compile_wall_ms = 0;  // host wall clock (not deterministic)
  uint64_t cache_bytes = 0;           // size of the cache files
  std::string cache_note;             // why the cache was not used (empty when it was)
  // No values (weights are sizes only, or npu.functional=false): no outputs, accuracy not measured.
  bool timing_only = false;
  std::string timing_only_why;  // which of the two, for the table
  std::vector<Iteration> iterations;
  Distribution latency_us;
  bool classifier = false;
  double mse_sum = 0;                             // mean over iterations
  double max_abs_error = 0;                       // over all iterations
  double top1_agreement = 0, top5_agreement = 0;  // fractions of iterations
  double wall_s = 0;                              // host wall time of the whole benchmark (not deterministic)
  std::vector<tools::LayerRow> layers;            // per operation, from the first timed iteration
  double peak_ops_per_s = 0;    // compute roof: 2 ops per MAC, every array, configured clock
  double dram_bytes_per_s = 0;  // bandwidth roof: npu.dram.bandwidth_gbps
};

Result<BenchResult> run_bench(const BenchOptions& options);

// Nearest-rank percentiles, mean, population standard deviation and a histogram of `bins` bins.
Distribution describe(const std::vector<double>& values, uint32_t bins);

// The latency and accuracy table `npusim bench` prints.
std::string bench_table(const BenchResult& r);
nlohmann::json bench_json(const BenchResult& r);

}  // namespace npu::mlts
