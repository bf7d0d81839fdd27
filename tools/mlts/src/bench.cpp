#include "npu/mlts/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>

#include "npu/hal/device.h"
#include "npu/models/builder.h"
#include "npu/models/extensions.h"
#include "npu/models/figures.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "npu/tools/model_file.h"

namespace npu::mlts {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Real value of element i: dequantised for quantised types.
double real_value(const models::Tensor& t, uint64_t i) {
  const double v = models::read_element(t.type, t.data, i);
  return models::is_float_type(t.type) || t.scale == 0.0f ? v : (v - t.zero_point) * t.scale;
}

// Indices of the k largest values, ties to the lower index.
std::vector<uint64_t> top_k(const models::Tensor& t, size_t k) {
  std::vector<uint64_t> idx(t.element_count());
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](uint64_t a, uint64_t b) {
                      const double va = real_value(t, a), vb = real_value(t, b);
                      return va != vb ? va > vb : a < b;
                    });
  idx.resize(k);
  return idx;
}

// A classifier's first output is [1, C] with at least five classes.
bool is_classifier(const models::Model& m) {
  if (m.main.output_indexes.empty()) return false;
  const auto& d = m.main.operands[m.main.output_indexes.front()].dimensions;
  return d.size() == 2 && d[0] == 1 && d[1] >= 5;
}

void compare(const hal::TensorMap& device, const hal::TensorMap& reference, uint32_t first_output,
             bool classifier, Iteration* it) {
  for (const auto& [idx, want] : reference) {
    const auto got = device.find(idx);
    if (got == device.end() || got->second.element_count() != want.element_count()) {
      it->mse_sum = INFINITY;
      it->max_abs_error = INFINITY;
      continue;
    }
    double squares = 0;
    const uint64_t count = want.element_count();  // once: it builds a shaped operand on each call
    for (uint64_t i = 0; i < count; ++i) {
      const double e = real_value(got->second, i) - real_value(want, i);
      squares += e * e;
      it->max_abs_error = std::max(it->max_abs_error, std::fabs(e));
    }
    it->mse_sum += want.element_count() ? squares / static_cast<double>(want.element_count()) : 0.0;
  }
  if (!classifier) return;
  const auto got = device.find(first_output);
  const auto want = reference.find(first_output);
  if (got == device.end() || want == reference.end()) {
    it->top1 = it->top5 = 0;
    return;
  }
  const uint64_t label = top_k(want->second, 1).front();
  const std::vector<uint64_t> five = top_k(got->second, 5);
  it->top_class = static_cast<int64_t>(five.front());
  it->top1 = five.front() == label ? 1 : 0;
  it->top5 = std::find(five.begin(), five.end(), label) != five.end() ? 1 : 0;
}

std::vector<std::string> cpu_operations(const models::Model& m, const std::vector<bool>& supported) {
  std::map<std::string, uint32_t> counts;
  for (size_t i = 0; i < supported.size(); ++i)
    if (!supported[i]) ++counts[models::operation_name(m, m.main.operations[i].type)];
  std::vector<std::string> out;
  for (const auto& [name, n] : counts) out.push_back(name + " x" + std::to_string(n));
  return out;
}

// A temporary directory for the compilation cache files, removed with everything in it.
class CacheDir {
 public:
  CacheDir() {
    std::error_code ec;
    const auto base = std::filesystem::temp_directory_path(ec);
    if (ec) return;
    std::string tmpl = (base / "npusim-bench-cache-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~CacheDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  CacheDir(const CacheDir&) = delete;
  CacheDir& operator=(const CacheDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  uint64_t bytes() const {
    uint64_t n = 0;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(path_, ec)) n += f.file_size(ec);
    return n;
  }

 private:
  std::string path_;
};

// NNAPI leaves the token to the application; a digest of what identifies the model will do.
hal::CacheToken cache_token(const std::string& model, uint64_t seed) {
  hal::CacheToken token{};
  uint64_t h = 1469598103934665603ull;  // FNV-1a, spread over the 32 bytes
  for (size_t i = 0; i < token.size(); ++i) {
    for (char c : model + "#" + std::to_string(seed) + "#" + std::to_string(i)) {
      h ^= static_cast<uint8_t>(c);
      h *= 1099511628211ull;
    }
    token[i] = static_cast<uint8_t>(h >> 24);
  }
  return token;
}

// prepareModelFromCache on the files the first preparation wrote; the prepared model is dropped.
void measure_cached_compilation(system::System& s, hal::NpuDevice& npu, const hal::PrepareOptions& prepare,
                                const CacheDir& cache, BenchResult* r) {
  if (r->timing_only) {
    r->cache_note = s.config().npu.functional ? "not cached (timing-only model: no weight values)"
                                              : "not cached (timing-only hardware: npu.functional=false)";
    return;
  }
  if (!cache.ok()) {
    r->cache_note = "no temporary directory for the cache files";
    return;
  }
  const auto wall0 = Clock::now();
  const uint64_t t0 = s.os().now_ns();
  auto from_cache = npu.prepare_model_from_cache(prepare);
  r->cached_compile_simulated_ns = s.os().now_ns() - t0;
  r->cached_compile_wall_ms = seconds_since(wall0) * 1e3;
  r->cached = from_cache.status.ok();
  r->cache_bytes = cache.bytes();
  if (!r->cached)
    r->cache_note = std::string(hal::to_string(from_cache.status.code)) + ": " + from_cache.status.message;
}

}  // namespace

Distribution describe(const std::vector<double>& values, uint32_t bins) {
  Distribution d;
  if (values.empty()) return d;
  std::vector<double> v = values;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  d.min = v.front();
  d.max = v.back();
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double sq = 0;
  for (double x : v) sq += (x - d.mean) * (x - d.mean);
  d.stddev = std::sqrt(sq / n);
  auto rank = [&](double p) { return v[static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n))) - 1]; };
  d.p50 = rank(50);
  d.p90 = rank(90);
  d.p99 = rank(99);
  if (d.max == d.min || bins <= 1) {
    d.histogram = {static_cast<uint32_t>(v.size())};
    d.bin_width = 0;
    return d;
  }
  d.histogram.assign(bins, 0);
  d.bin_width = (d.max - d.min) / bins;
  for (double x : v) {
    const auto b = static_cast<size_t>((x - d.min) / d.bin_width);
    ++d.histogram[std::min<size_t>(b, bins - 1)];
  }
  return d;
}

Result<BenchResult> run_bench(const BenchOptions& o) {
  const auto wall0 = Clock::now();
  if (o.iterations == 0) return make_error("bench: --iterations must be at least 1");
  // The loader every npusim command uses: model JSON, zoo:NAME or .onnx, validated.
  auto model = tools::load_model_file(o.model, o.cpu_fallback, o.seed);
  if (!model) return make_error(model.error());
  auto cfg = system::load_system_config(o.hw, o.sets);
  if (!cfg) return make_error(cfg.error());
  cfg->trace = true;  // recorded for the first timed iteration only: the per-layer table
  auto sys = system::System::create(*cfg);
  if (!sys) return make_error(sys.error());

  BenchResult r;
  r.model = o.model;
  const models::ModelFigures figures = models::model_figures(*model);
  r.parameters = figures.parameters;
  r.macs = figures.macs;
  r.classifier = is_classifier(*model);
  const auto& hw = (*sys)->config().npu;
  // No values to compare: a model with weight sizes only, or hardware that moves no data.
  r.timing_only = models::is_timing_only(*model) || !hw.functional;
  if (models::is_timing_only(*model))
    r.timing_only_why = "a timing-only model (weights are sizes only; the NPU ran in timing-only mode)";
  else if (!hw.functional)
    r.timing_only_why = "timing-only hardware (npu.functional=false: the NPU moved and computed no data)";
  r.hardware = std::to_string(hw.channels) + " channel" + (hw.channels == 1 ? "" : "s") + ", " +
               std::to_string(hw.channel.array_rows) + "x" + std::to_string(hw.channel.array_cols) + " " +
               hw.channel.compute_core + " array, " + std::to_string(static_cast<int>(hw.clock_mhz())) +
               " MHz";
  const uint32_t first_output = model->main.output_indexes.front();
  std::string error;

  trace::Tracer& tracer = *(*sys)->tracer();
  tracer.set_recording(false);
  auto end = (*sys)->run([&](system::System& s) {
    hal::NpuDevice& npu = s.npu_device();
    r.device = npu.name();
    std::vector<bool> supported;
    if (hal::Status st = npu.supported_operations(*model, &supported); !st.ok()) {
      error = std::string("getSupportedOperations: ") + hal::to_string(st.code) + ": " + st.message;
      return;
    }
    r.cpu_operations = cpu_operations(*model, supported);
    CacheDir cache;
    hal::PrepareOptions prepare;
    if (cache.ok()) {
      prepare.cache_dir = cache.path();
      prepare.token = cache_token(o.model, o.seed);
    }
    const auto compile_wall0 = Clock::now();
    const uint64_t t0 = s.os().now_ns();
    auto prepared = npu.prepare_model(*model, prepare);
    r.compile_simulated_ns = s.os().now_ns() - t0;
    r.compile_wall_ms = seconds_since(compile_wall0) * 1e3;
    if (!prepared.status.ok()) {
      error = std::string("prepareModel: ") + hal::to_string(prepared.status.code) + ": " +
              prepared.status.message;
      return;
    }
    measure_cached_compilation(s, npu, prepare, cache, &r);
    r.placement = prepared.model->placement();
    // Latency first, back to back, so the CPU reference runs do not let the NPU cool between iterations.
    std::vector<hal::TensorMap> outputs;
    for (uint32_t i = 0; i < o.iterations; ++i) {
      if (o.on_iteration) o.on_iteration("iteration", i);
      const auto inputs = models::random_inputs(*model, o.seed + i, 0);
      Iteration it;
      const uint64_t start = s.os().now_ns();
      tracer.set_recording(i == 0);
      hal::ExecutionResult e = prepared.model->execute_synchronously(inputs, true);
      tracer.set_recording(false);
      it.latency_ns = s.os().now_ns() - start;
      if (!e.status.ok()) {
        error = "execute (iteration " + std::to_string(i) + "): " + hal::to_string(e.status.code) + ": " +
                e.status.message;
        return;
      }
      it.device_us = e.timing.time_on_device_us;
      it.npu_cycles = e.device_cycles;
      it.junction_c = s.npu().thermal().junction_c();
      it.clock_mhz = s.npu().clock().mhz();
      r.iterations.push_back(it);
      outputs.push_back(std::move(e.outputs));
    }
    if (r.timing_only) return;  // no values: nothing to compare
    auto reference = s.cpu_device().prepare_model(*model);
    if (!reference.status.ok()) {
      error = "CPU reference: " + reference.status.message;
      return;
    }
    for (uint32_t i = 0; i < o.iterations; ++i) {
      if (o.on_iteration) o.on_iteration("CPU reference", i);
      hal::ExecutionResult want =
          reference.model->execute_synchronously(models::random_inputs(*model, o.seed + i, 0), false);
      if (!want.status.ok()) {
        error = "CPU reference (iteration " + std::to_string(i) + "): " + want.status.message;
        return;
      }
      compare(outputs[i], want.outputs, first_output, r.classifier, &r.iterations[i]);
    }
  });
  if (!end) return make_error(end.error());
  if (!error.empty()) return make_error(o.model + ": " + error);
  const nlohmann::json first_iteration = tracer.to_json();
  r.layers = tools::layer_table(*model, hal::target_for((*sys)->driver().device_info()), &first_iteration);
  r.peak_ops_per_s = 2.0 * hw.channels * hw.channel.array_rows * hw.channel.array_cols * hw.clock_mhz() * 1e6;
  r.dram_bytes_per_s = hw.dram.bandwidth_gbps * 1e9;

  std::vector<double> latency;
  double top1 = 0, top5 = 0;
  for (const Iteration& it : r.iterations) {
    latency.push_back(static_cast<double>(it.latency_ns) / 1e3);
    r.mse_sum += it.mse_sum / static_cast<double>(r.iterations.size());
    r.max_abs_error = std::max(r.max_abs_error, it.max_abs_error);
    top1 += it.top1 > 0;
    top5 += it.top5 > 0;
  }
  r.latency_us = describe(latency, std::min<uint32_t>(10, o.iterations));
  r.top1_agreement = top1 / static_cast<double>(r.iterations.size());
  r.top5_agreement = top5 / static_cast<double>(r.iterations.size());
  r.wall_s = seconds_since(wall0);
  return r;
}

std::string bench_table(const BenchResult& r) {
  std::string s;
  // One formatted line; every call passes arguments, so the formats stay checkable literals.
  auto add = [&s](const char* fmt, auto... args) {
    char line[256];
    std::snprintf(line, sizeof line, fmt, args...);
    s += line;
  };
  s += "npusim bench: " + r.model + " on " + r.device + " (" + r.hardware + ")\n";
  add("  model           %.2f M parameters, %.1f M MACs per inference\n", r.parameters / 1e6, r.macs / 1e6);
  s += "  placement       " + r.placement + "\n";
  if (!r.cpu_operations.empty()) {
    std::string ops;
    for (const std::string& op : r.cpu_operations) ops += (ops.empty() ? "" : ", ") + op;
    s += "  on the CPU      " + ops + "\n";
  }
  add("  compilation     %.1f us simulated, %.1f ms host wall\n", r.compile_simulated_ns / 1e3,
      r.compile_wall_ms);
  if (r.cached)
    add("  from the cache  %.1f us simulated, %.1f ms host wall (%.2f MB of cache files)\n",
        r.cached_compile_simulated_ns / 1e3, r.cached_compile_wall_ms, r.cache_bytes / 1e6);
  else
    s += "  from the cache  " + r.cache_note + "\n";
  const Distribution& d = r.latency_us;
  add("  latency (simulated time, %zu iterations, us)\n", r.iterations.size());
  add("    %10s %10s %10s %10s %10s %10s %10s\n", "mean", "std", "min", "p50", "p90", "p99", "max");
  add("    %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", d.mean, d.stddev, d.min, d.p50, d.p90, d.p99,
      d.max);
  s += "  histogram (us)\n";
  uint32_t most = 1;
  for (uint32_t n : d.histogram) most = std::max(most, n);
  for (size_t b = 0; b < d.histogram.size(); ++b) {
    const double lo = d.min + d.bin_width * static_cast<double>(b);
    const double hi = d.histogram.size() == 1 ? d.max : lo + d.bin_width;
    add("    %10.3f - %-10.3f %-30s %u\n", lo, hi, std::string(d.histogram[b] * 30 / most, '#').c_str(),
        d.histogram[b]);
  }
  if (!r.iterations.empty()) {
    add("  platform        junction %.2f -> %.2f C, NPU clock %.0f -> %.0f MHz over the iterations\n",
        r.iterations.front().junction_c, r.iterations.back().junction_c, r.iterations.front().clock_mhz,
        r.iterations.back().clock_mhz);
  }
  if (r.timing_only) {
    s += "  accuracy        not measured: " + r.timing_only_why + "\n";
    add("  host wall time  %.2f s\n", r.wall_s);
    return s;
  }
  add("  accuracy vs the CPU reference (same %zu inputs)\n", r.iterations.size());
  add("    sum of MSE %.6g   max |error| %.6g", r.mse_sum, r.max_abs_error);
  if (r.classifier) {
    add("   top-1 agreement %.1f %%   top-5 agreement %.1f %%", r.top1_agreement * 100,
        r.top5_agreement * 100);
  }
  add("\n  host wall time  %.2f s\n", r.wall_s);
  return s;
}

nlohmann::json bench_json(const BenchResult& r) {
  nlohmann::json iterations = nlohmann::json::array();
  for (const Iteration& it : r.iterations) {
    nlohmann::json j = {{"latency_us", it.latency_ns / 1e3},
                        {"device_us", it.device_us},
                        {"npu_cycles", it.npu_cycles},
                        {"junction_c", it.junction_c},
                        {"clock_mhz", it.clock_mhz}};
    if (!r.timing_only) {
      j["mse_sum"] = it.mse_sum;
      j["max_abs_error"] = it.max_abs_error;
    }
    if (r.classifier) {
      j["top1"] = it.top1 == 1;
      j["top5"] = it.top5 == 1;
      j["top_class"] = it.top_class;
    }
    iterations.push_back(std::move(j));
  }
  const Distribution& d = r.latency_us;
  nlohmann::json j = {{"model", r.model},
                      {"device", r.device},
                      {"hardware", r.hardware},
                      {"placement", r.placement},
                      {"cpu_operations", r.cpu_operations},
                      {"parameters", r.parameters},
                      {"macs", r.macs},
                      {"compilation",
                       {{"simulated_us", r.compile_simulated_ns / 1e3},
                        {"host_wall_ms", r.compile_wall_ms},
                        {"cached", r.cached}}},
                      {"latency_us",
                       {{"mean", d.mean},
                        {"std", d.stddev},
                        {"min", d.min},
                        {"p50", d.p50},
                        {"p90", d.p90},
                        {"p99", d.p99},
                        {"max", d.max},
                        {"histogram", d.histogram},
                        {"bin_width", d.bin_width}}},
                      {"timing_only", r.timing_only},
                      {"iterations", iterations},
                      {"host_wall_s", r.wall_s}};
  if (r.cached) {
    j["compilation"]["from_cache_simulated_us"] = r.cached_compile_simulated_ns / 1e3;
    j["compilation"]["from_cache_host_wall_ms"] = r.cached_compile_wall_ms;
    j["compilation"]["cache_bytes"] = r.cache_bytes;
  } else {
    j["compilation"]["cache_note"] = r.cache_note;
  }
  if (!r.timing_only)
    j["accuracy"] = {
        {"mse_sum", r.mse_sum}, {"max_abs_error", r.max_abs_error}, {"classifier", r.classifier}};
  if (r.classifier && !r.timing_only) {
    j["accuracy"]["top1_agreement"] = r.top1_agreement;
    j["accuracy"]["top5_agreement"] = r.top5_agreement;
  }
  // Per operation as layers.csv names its columns; times only where the trace gave them.
  nlohmann::json layers = nlohmann::json::array();
  for (const tools::LayerRow& l : r.layers) {
    nlohmann::json row = {{"operation", l.operation}, {"type", l.type},   {"where", l.where},
                          {"macs", l.macs},           {"tiles", l.tiles}, {"dram_bytes", l.dram_bytes}};
    if (l.timed) {
      row["start_us"] = l.start_us;
      row["device_us"] = l.device_us;
      row["busy_us"] = l.busy_us;
      row["compute_us"] = l.compute_us;
      row["array_utilisation"] = l.array_utilisation;
    }
    layers.push_back(std::move(row));
  }
  j["layers"] = std::move(layers);
  j["roofline"] = {{"peak_ops_per_s", r.peak_ops_per_s}, {"dram_bytes_per_s", r.dram_bytes_per_s}};
  return j;
}

}  // namespace npu::mlts
