// `npusim run`: one inference of a model on the simulated NPU (or the CPU reference device), its summary
// on stdout, and on request its outputs, stats, trace and a run directory (--out) holding all of them.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.h"
#include "npu/common/file_io.h"
#include "npu/common/version.h"
#include "npu/hal/op_table.h"
#include "npu/models/builder.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/tools/layers.h"
#include "npu/tools/memory_budget.h"
#include "npu/tools/model_file.h"
#include "npu/tools/run_directory.h"
#include "npu/tools/run_model.h"
#include "output_path.h"

namespace npusim {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

std::string dims_text(const std::vector<uint32_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// Atomic (a temporary renamed over `path`): a failed write leaves no half-written file under the name.
bool write_file(const std::string& path, const std::string& text, std::string* error) {
  auto w = npu::io::write_file_atomic(path, text);
  if (!w) *error = w.error();
  return w.ok();
}

struct RunOptions {
  std::string hw = npu::tools::default_hw_config();
  std::string model, inputs, outputs, stats, waves, trace;
  std::string out_dir;  // --out: the run directory (config, summary, stats, per-layer table, trace, outputs)
  std::vector<std::string> sets;
  bool json = false;
  bool check = false;
  std::string memory_limit;  // --memory-limit: overrides NPUSIM_MEMORY_LIMIT (tools/memory_budget.h)
  bool cpu_fallback = false;
  bool stats_meta = false;
  bool explain_tiling = false;
  bool example_inputs = false;  // seeded inputs valid for each input's type (models::random_inputs)
  std::string device = "npu";
  uint64_t loop_timeout_ms = npu::hal::kDefaultLoopTimeoutNs / 1'000'000;
};

// The per-layer table as CSV (columns in the README, "Reading the outputs"); times are empty for operations
// without NPU timing.
std::string layers_csv(const std::vector<npu::tools::LayerRow>& rows) {
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string csv =
      "operation,type,where,cpu_reason,command_buffers,tiles,macs,dram_bytes,output_type,output_dims,start_"
      "us,device_us,"
      "busy_us,compute_us,dma_in_us,dma_out_us,stall_us,array_utilisation,energy_pj\n";
  for (const auto& r : rows) {
    char timing[256] = ",,,,,,,,";
    if (r.timed)
      std::snprintf(timing, sizeof timing, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%llu", r.start_us,
                    r.device_us, r.busy_us, r.compute_us, r.dma_in_us, r.dma_out_us, r.stall_us,
                    r.array_utilisation, static_cast<unsigned long long>(r.energy_pj));
    csv += std::to_string(r.operation) + "," + r.type + "," + r.where + "," + quoted(r.cpu_reason) + "," +
           std::to_string(r.command_buffers) + "," + std::to_string(r.tiles) + "," + std::to_string(r.macs) +
           "," + std::to_string(r.dram_bytes) + "," + r.output_type + "," + quoted(dims_text(r.output_dims)) +
           "," + timing + "\n";
  }
  return csv;
}

// The stats tree (with meta: each leaf {value, unit, description}) as flat text, gem5's habit: one
// "path value [unit] # description" line per leaf, in the tree's order.
void stats_lines(const nlohmann::json& node, const std::string& path, std::string* out) {
  if (node.is_object() && node.contains("value") && node.contains("unit") && !node["value"].is_object()) {
    const nlohmann::json& v = node["value"];
    std::string text = v.dump();
    if (v.is_number_float()) {  // the shortest text that reads back as the same double
      char buf[40];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v.get<double>());
        if (std::strtod(buf, nullptr) == v.get<double>()) break;
      }
      text = buf;
    }
    *out += path + " " + text;
    if (node.contains("unit") && !node["unit"].get<std::string>().empty())
      *out += " " + node["unit"].get<std::string>();
    if (node.contains("description")) *out += " # " + node["description"].get<std::string>();
    *out += "\n";
    return;
  }
  if (!node.is_object()) {
    *out += path + " " + node.dump() + "\n";
    return;
  }
  for (const auto& [key, child] : node.items())
    stats_lines(child, path.empty() ? key : path + "." + key, out);
}

std::string stats_text(const nlohmann::json& tree) {
  std::string out = "# npusim stats: " + npu::version_line() + "\n";
  stats_lines(tree, "", &out);
  return out;
}

// Faults the driver met during a run and what it did about them, from the stats tree: hangs found by the
// watchdog (each answered by a channel reset and a retry, until the hang limit fails the job), ERROR
// interrupts by code (DMA fault, uncorrectable SRAM ECC, other), failed jobs and thermal shutdowns.
struct RunFaults {
  uint64_t hangs = 0, retries = 0, channel_resets = 0, channel_errors = 0, dma_faults = 0, sram_ecc = 0,
           other_errors = 0, jobs_failed = 0, thermal_shutdowns = 0;
  bool any() const { return hangs || channel_errors || jobs_failed || thermal_shutdowns; }
  // The counts that are not zero, most telling first: "1 DMA fault, 1 failed job".
  std::string text() const {
    std::string out;
    auto add = [&](uint64_t v, const char* one, const char* many) {
      if (v) out += (out.empty() ? "" : ", ") + std::to_string(v) + " " + (v == 1 ? one : many);
    };
    add(hangs, "hang found by the watchdog", "hangs found by the watchdog");
    add(retries, "retry", "retries");
    add(dma_faults, "DMA fault", "DMA faults");
    add(sram_ecc, "uncorrectable SRAM ECC error", "uncorrectable SRAM ECC errors");
    add(other_errors, "other channel error", "other channel errors");
    add(channel_resets, "channel reset", "channel resets");
    add(jobs_failed, "failed job", "failed jobs");
    add(thermal_shutdowns, "thermal shutdown", "thermal shutdowns");
    return out;
  }
  nlohmann::json to_json() const {
    return {{"hangs", hangs},
            {"retries", retries},
            {"channel_resets", channel_resets},
            {"channel_errors", channel_errors},
            {"dma_faults", dma_faults},
            {"sram_ecc_errors", sram_ecc},
            {"other_channel_errors", other_errors},
            {"jobs_failed", jobs_failed},
            {"thermal_shutdowns", thermal_shutdowns}};
  }
};

RunFaults run_faults(const npu::stats::Registry& stats) {
  auto count = [&](const char* path) {
    const uint64_t* v = stats.find_counter(path);
    return v ? *v : 0;
  };
  RunFaults f;
  f.hangs = count("driver.watchdog.hangs");
  f.retries = count("driver.watchdog.retries");
  f.channel_resets = count("driver.channel_resets");
  f.channel_errors = count("driver.channel_errors");
  f.dma_faults = count("driver.errors.dma_fault");
  f.sram_ecc = count("driver.errors.sram_ecc");
  f.other_errors = count("driver.errors.other");
  f.jobs_failed = count("driver.jobs.failed");
  f.thermal_shutdowns = count("driver.thermal.shutdowns");
  return f;
}

// Utilisation and DRAM bandwidth over the execution window (command buffers in flight) and over the whole
// run.
struct RunWindow {
  double window_us = 0, compute_window = 0, compute_whole_run = 0, dram_window_gbps = 0,
         dram_whole_run_gbps = 0;
};

RunWindow run_window(const npu::stats::Registry& stats, uint32_t channels) {
  auto value = [&](const std::string& path) {
    const double* v = stats.find_value(path);
    return v ? *v : 0.0;
  };
  RunWindow w;
  w.window_us = value("npu.execution_window_ns") / 1000.0;
  for (uint32_t c = 0; c < channels; ++c) {
    w.compute_window += value("npu.ch" + std::to_string(c) + ".window_utilisation") / channels;
    w.compute_whole_run += value("npu.ch" + std::to_string(c) + ".utilisation") / channels;
  }
  w.dram_window_gbps = value("npu.dram.window_bandwidth_gbps");
  w.dram_whole_run_gbps = value("npu.dram.bandwidth_gbps");
  return w;
}

int run_command(RunOptions o) {
  using namespace npu;
  // The model and the hardware first: a bad model is blamed for what is wrong with it, not for a flag.
  auto model = tools::load_model_file(o.model, o.cpu_fallback);  // a file (.onnx imported), or zoo:NAME
  if (!model) return fail(model.error());
  auto cfg = system::load_system_config(o.hw, o.sets);
  if (!cfg) return fail(cfg.error());
  if (o.stats_meta && o.stats.empty() && o.out_dir.empty())
    return fail("--stats-meta: has no effect without --stats or --out");
  // The CPU reference device runs on the host: no NPU parameter changes what it computes or its timing.
  if (o.device == "cpu")
    for (const std::string& set : o.sets)
      if (set.rfind("npu.", 0) == 0)
        return fail("--set " + set +
                    ": has no effect with --device cpu (the CPU reference device runs on the host; " +
                    "host.* sets its costs)");
  if (!o.waves.empty() && cfg->npu.channel.compute_core != "rtl")
    return fail(
        "--waves: has no effect unless the compute core is the RTL (--set "
        "npu.channel.compute_core.model=rtl)");
  // Timing only: a model whose weights are sizes, or NPU hardware that computes nothing. Such a run
  // gives timing, never values: it needs no inputs, writes no outputs and has nothing to --check.
  const bool on_npu = o.device == "npu";
  const char* timing_only_why = !on_npu ? nullptr
                                : models::is_timing_only(*model)
                                    ? "a timing-only model (weights are sizes only)"
                                : !cfg->npu.functional ? "timing-only hardware (npu.functional=false)"
                                                       : nullptr;
  if (o.check && timing_only_why)
    return fail(o.model + ": --check: " + timing_only_why + " gives no values to compare");
  if (o.example_inputs && !o.inputs.empty())
    return fail("--example-inputs: give either --inputs or --example-inputs, not both");
  // A zoo model without --inputs runs on the zoo's seeded inputs (those `npusim zoo write` writes);
  // --example-inputs gives any model the same seeded values, valid for each input's type and quantisation.
  const bool seeded_inputs =
      !timing_only_why && o.inputs.empty() && (o.example_inputs || o.model.rfind("zoo:", 0) == 0);
  if (!timing_only_why && o.inputs.empty() && !seeded_inputs)
    return fail(
        "--inputs is required (or --example-inputs for seeded values; only a timing-only run or a "
        "zoo: model needs none)");
  // Before any operand buffer is allocated (a timing-only run still gets zero-filled inputs).
  std::optional<uint64_t> limit;
  if (!o.memory_limit.empty()) {
    auto n = tools::parse_memory_size(o.memory_limit);
    if (!n) return fail("--memory-limit: " + n.error());
    limit = *n;
  }
  auto budget = tools::memory_budget(limit);
  if (!budget) return fail(budget.error());
  if (auto r = tools::check_host_memory(*model, o.model, *budget); !r) return fail(r.error());
  hal::TensorMap zeros;
  if (o.inputs.empty() && !seeded_inputs)
    for (uint32_t idx : model->main.input_indexes) {
      const auto& op = model->main.operands[idx];
      if (!op.fully_specified())
        return fail(o.model + ": input " + std::to_string(idx) + " has unknown dimensions; give --inputs");
      zeros[idx] = models::make_tensor(op, op.dimensions);
    }
  auto inputs = seeded_inputs      ? Result<hal::TensorMap>(models::random_inputs(*model, 1))
                : o.inputs.empty() ? Result<hal::TensorMap>(std::move(zeros))
                                   : models::load_io_json(o.inputs, *model);
  if (!inputs) return fail(inputs.error());
  // --out DIR: every result of the run in one folder, written beside it and moved in whole at the end
  // (tools/run_directory.h); a file named by its own flag goes there instead.
  std::optional<tools::StagedDirectory> dir;
  if (!o.out_dir.empty()) {
    auto staged =
        tools::StagedDirectory::create(o.out_dir, {"outputs.json", "stats.json", "stats.txt", "trace.json",
                                                   "config.json", "layers.csv", "summary.json"});
    if (!staged) return fail(staged.error());
    dir.emplace(std::move(*staged));
    for (auto [flag, name] :
         {std::pair{&o.outputs, "outputs.json"}, {&o.stats, "stats.json"}, {&o.trace, "trace.json"}})
      if (flag->empty()) *flag = dir->staged(name);
  }
  auto shown = [&](const std::string& path) { return dir ? dir->shown(path) : path; };
  for (const std::string* out : {&o.outputs, &o.stats, &o.trace})
    if (auto why = npusim::unwritable_reason(*out); !why.empty()) return fail(why);
  cfg->waves_path = o.waves;
  cfg->trace = !o.trace.empty();
  tools::RunModelOptions ro;
  ro.name = o.model;
  ro.device = o.device;
  ro.check = o.check;
  ro.memory_budget = *budget;
  ro.loop_timeout_ns = o.loop_timeout_ms * 1'000'000;
  auto run = tools::run_model(*model, *inputs, *cfg, ro);
  if (!run) return fail(run.error() + tools::device_memory_hint(run.error(), *cfg));
  // A failed execution still leaves its summary, stats, per-layer table and trace (no outputs).
  const bool executed = run->execution_error.empty();
  // NNAPI's "no timing" (UINT64_MAX) after a failed execution.
  const bool timed = run->result.timing.time_in_driver_us != UINT64_MAX;
  if (!executed) std::fprintf(stderr, "npusim: %s\n", run->execution_error.c_str());
  const hal::ExecutionResult& result = run->result;
  const hal::ExecutionResult& reference = run->reference;
  const std::string& placement = run->placement;
  const uint64_t prepare_ns = run->prepare_ns;
  auto& sys = run->system;
  const std::vector<hal::OperationTiling>& tilings = run->tilings;

  std::string error;
  // Every JSON file names the npusim that wrote it, as the summary does.
  const nlohmann::json made_by = npu::build_json();
  // A timing-only model gives timing but no values: no outputs file rather than one of made-up values.
  if (executed && !result.timing_only && !o.outputs.empty() &&
      !write_file(o.outputs, models::dump_json_pretty(npu::with_build(models::io_to_json(result.outputs))),
                  &error))
    return fail(error);
  auto& stats = sys->stats();
  if (!o.stats.empty()) {
    nlohmann::json tree = stats.to_json(o.stats_meta);
    tree[npu::kBuildKey] = made_by;
    if (!write_file(o.stats, tree.dump(2) + "\n", &error)) return fail(error);
  }
  // stats.txt: the same tree flat, one "path value unit # description" line per leaf, for grep and diff.
  if (dir && !write_file(dir->staged("stats.txt"), stats_text(stats.to_json(true)), &error))
    return fail(error);
  if (!o.trace.empty()) {
    // Chrome trace-event JSON's "metadata" object, shown by chrome://tracing and Perfetto with the trace.
    nlohmann::json trace = sys->tracer()->to_json();
    trace["metadata"] = {{npu::kBuildKey, made_by}};
    if (!write_file(o.trace, trace.dump() + "\n", &error)) return fail(error);
  }
  if (dir) {
    auto resolved = system::resolved_config(o.hw, o.sets);
    if (!resolved) return fail(resolved.error());
    (*resolved)[npu::kBuildKey] = made_by;  // skipped when the file is read back as --hw
    if (!write_file(dir->staged("config.json"), resolved->dump(2) + "\n", &error)) return fail(error);
    nlohmann::json trace = sys->tracer()->to_json();
    const auto rows =
        tools::layer_table(*model, hal::target_for(sys->driver().device_info()), &trace, o.device == "cpu");
    if (!write_file(dir->staged("layers.csv"), layers_csv(rows), &error)) return fail(error);
  }

  tools::OutputComparison cmp;
  if (o.check && executed) {
    if (!reference.status.ok())
      return fail(o.model + ": CPU reference: " + hal::to_string(reference.status.code) + ": " +
                  reference.status.message);
    cmp = tools::compare_outputs(result.outputs, reference.outputs,
                                 model->relax_computation_float32_to_float16);
  }
  const auto& hwc = sys->config().npu;
  const RunFaults faults = run_faults(stats);
  const RunWindow window = run_window(stats, hwc.channels);
  // A run that met a hang or a device error finished only by recovering: its timing includes the
  // watchdog, reset and retry, so it is not a clean result.
  // A failed execution with no device fault behind it (none is known to happen) stays a plain error.
  const int status = !executed                   ? (faults.any() ? 4 : 1)
                     : o.check && cmp.mismatches ? 3
                     : faults.any()              ? 4
                                                 : 0;
  if (faults.any())
    std::fprintf(stderr, "npusim: %s: the run met faults: %s\n", o.model.c_str(), faults.text().c_str());
  if (o.json || dir) {
    nlohmann::json j = {{npu::kBuildKey, made_by},
                        {"model", o.model},
                        {"device", o.device == "cpu" ? std::string(sys->cpu_device().name())
                                                     : std::string(sys->npu_device().name())},
                        {"placement", placement},
                        {"latency_us", timed ? nlohmann::json(result.timing.time_in_driver_us) : nullptr},
                        {"device_us", timed ? nlohmann::json(result.timing.time_on_device_us) : nullptr},
                        {"call_latency_us", timed ? nlohmann::json(run->call_ns / 1000.0) : nullptr},
                        {"npu_cycles", result.device_cycles},
                        // The vocabulary of README "Reading the outputs", as the Python module names them.
                        {"jobs", result.jobs},
                        {"stages", result.stages},
                        {"command_buffers", result.command_buffers},
                        {"execution_window",
                         {{"time_us", window.window_us},
                          {"compute_utilisation", window.compute_window},
                          {"dram_bandwidth_gbps", window.dram_window_gbps}}},
                        {"whole_run",
                         {{"compute_utilisation", window.compute_whole_run},
                          {"dram_bandwidth_gbps", window.dram_whole_run_gbps}}},
                        {"faults", faults.to_json()},
                        {"simulated_end_s", run->simulated_end_s},
                        {"area_mm2", run->area_mm2},
                        {"timing_only", result.timing_only}};
    if (!executed) j["error"] = run->execution_error;
    // "outputs" names the file written; no key when none was (failed, timing-only, or no --outputs).
    if (executed && !result.timing_only && !o.outputs.empty()) j["outputs"] = shown(o.outputs);
    j["command"] = tools::command_line();
    if (o.check && executed)
      j["check"] = {{"elements", cmp.elements},
                    {"mismatches", cmp.mismatches},
                    {"max_abs_error", cmp.max_abs_error},
                    {"first_mismatch", cmp.first_mismatch}};
    if (o.explain_tiling) {
      j["tiling"] = nlohmann::json::array();
      for (const auto& t : tilings) {
        const auto it = result.operation_cycles.find(t.operation);
        j["tiling"].push_back({{"operation", t.operation},
                               {"type", t.type},
                               {"tiling", t.tiling},
                               {"predicted_cycles", t.predicted_cycles},
                               {"simulated_cycles", it == result.operation_cycles.end() ? 0 : it->second}});
      }
    }
    if (dir) {
      j["out"] = o.out_dir;
      if (!write_file(dir->staged("summary.json"), j.dump(2) + "\n", &error)) return fail(error);
      // Everything is written: the run directory takes this run's files whole.
      if (auto c = dir->commit(); !c) return fail(c.error());
    }
    if (o.json) {
      std::cout << j.dump(2) << "\n";
      return status;
    }
  }
  // The device that ran: the NPU's geometry, or the host CPU the reference device charges its time to.
  if (o.device == "cpu")
    std::printf("npusim run: %s on %s (CPU reference device: host CPU at %g GMAC/s, copies at %g GB/s)\n",
                o.model.c_str(), sys->cpu_device().name().c_str(), sys->config().host.cpu_gmacs,
                sys->config().host.memcpy_gbps);
  else
    std::printf("npusim run: %s on %s (%u channel%s, %ux%u %s array, %.0f MHz)\n", o.model.c_str(),
                sys->npu_device().name().c_str(), hwc.channels, hwc.channels == 1 ? "" : "s",
                hwc.channel.array_rows, hwc.channel.array_cols, hwc.channel.compute_core.c_str(),
                hwc.clock_mhz());
  std::printf("  placement       %s\n", placement.c_str());
  if (seeded_inputs)
    std::printf("  inputs          %s\n", o.example_inputs
                                              ? "seeded example values (--example-inputs, seed 1)"
                                              : "the zoo's seeded inputs (as npusim zoo write writes them)");
  std::printf("  prepare         %.1f us simulated\n", prepare_ns / 1000.0);
  // Two clocks users compare: NNAPI's time in driver (from the driver's entry to its return) and the whole
  // call as the app sees it, which adds the HAL call's own cost; bench and sweep report the latter.
  if (timed)
    std::printf(
        "  latency         %llu us simulated (time in driver); %.1f us as the caller sees the call (+ the "
        "HAL call's cost: what bench and sweep report)\n",
        static_cast<unsigned long long>(result.timing.time_in_driver_us), run->call_ns / 1000.0);
  else
    std::printf("  latency         none: a failed execution reports no timing\n");
  if (result.command_buffers) {
    if (timed)
      std::printf("  on device       %llu us\n",
                  static_cast<unsigned long long>(result.timing.time_on_device_us));
    std::printf("  submitted       %u job%s to the driver: %u stage%s, %u command buffer%s\n", result.jobs,
                result.jobs == 1 ? "" : "s", result.stages, result.stages == 1 ? "" : "s",
                result.command_buffers, result.command_buffers == 1 ? "" : "s");
    std::printf("  NPU cycles      %llu in %u command buffer%s\n",
                static_cast<unsigned long long>(result.device_cycles), result.command_buffers,
                result.command_buffers == 1 ? "" : "s");
    std::printf(
        "  execution window %.1f us with command buffers in flight: compute %.1f %% busy (whole run %.2f "
        "%%), "
        "DRAM %.2f GB/s (whole run %.3f)\n",
        window.window_us, 100.0 * window.compute_window, 100.0 * window.compute_whole_run,
        window.dram_window_gbps, window.dram_whole_run_gbps);
  }
  if (faults.any())
    std::printf("  faults          %s%s\n", faults.text().c_str(),
                faults.hangs && !faults.jobs_failed ? "; the hung command buffer was reset and retried" : "");
  if (!executed) std::printf("  failed          %s\n", run->execution_error.c_str());
  for (const auto& [idx, t] : result.outputs) {
    std::printf("  output %-8u %s %s\n", idx, std::string(models::to_string(t.type)).c_str(),
                dims_text(t.dimensions).c_str());
  }
  if (o.explain_tiling) {
    std::printf(
        "  tiling          %zu MAC-array operation%s (predicted = the compiler's cost model, simulated = "
        "the longest command buffer's NPU cycles)\n",
        tilings.size(), tilings.size() == 1 ? "" : "s");
    for (const auto& t : tilings) {
      const auto it = result.operation_cycles.find(t.operation);
      const uint64_t sim = it == result.operation_cycles.end() ? 0 : it->second;
      std::printf("    operations[%u] %s: %s\n      predicted %llu, simulated %llu cycles (%+.1f %%)\n",
                  t.operation, t.type.c_str(), t.tiling.c_str(),
                  static_cast<unsigned long long>(t.predicted_cycles), static_cast<unsigned long long>(sim),
                  t.predicted_cycles
                      ? 100.0 * (static_cast<double>(sim) - static_cast<double>(t.predicted_cycles)) /
                            static_cast<double>(t.predicted_cycles)
                      : 0.0);
    }
  }
  if (o.check && executed) {
    std::printf("  vs CPU reference %llu of %llu elements within tolerance, max |error| %.3g%s\n",
                static_cast<unsigned long long>(cmp.elements - cmp.mismatches),
                static_cast<unsigned long long>(cmp.elements), cmp.max_abs_error,
                cmp.mismatches ? "  MISMATCH" : "");
    if (cmp.mismatches) std::printf("  first mismatch  %s\n", cmp.first_mismatch.c_str());
  }
  if (!executed)
    std::printf("  outputs         none: the execution failed\n");
  else if (result.timing_only)
    std::printf("  outputs         none: %s; the NPU ran for timing\n",
                timing_only_why ? timing_only_why : "a timing-only run");
  else if (o.outputs.empty())
    std::printf("  outputs         not written (give --outputs FILE or --out DIR to keep them)\n");
  else
    std::printf("  outputs written to %s\n", shown(o.outputs).c_str());
  if (!o.stats.empty()) std::printf("  stats written to %s\n", shown(o.stats).c_str());
  if (!o.trace.empty())
    std::printf("  trace written to %s (open in ui.perfetto.dev)\n", shown(o.trace).c_str());
  if (dir)
    std::printf(
        "  run directory   %s: config.json, summary.json, stats.json, stats.txt, layers.csv, trace.json, "
        "command.txt%s\n",
        o.out_dir.c_str(), result.timing_only || !executed || o.outputs.empty() ? "" : ", outputs.json");
  return status;
}

}  // namespace

Subcommand register_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run one inference of a model on the simulated NPU");
  cmd->add_option("--hw", o->hw, "Hardware config JSON")->capture_default_str();
  cmd->add_option("--model", o->model,
                  "Model JSON (README: Model JSON), ONNX file (.onnx), or zoo:NAME (npusim zoo list)")
      ->required();
  cmd->add_flag("--cpu-fallback", o->cpu_fallback, "ONNX: import operators only the CPU reference runs");
  cmd->add_option("--inputs", o->inputs,
                  "Inputs JSON {\"<operand>\": [values]} (not needed by a timing-only run: zeros)");
  cmd->add_option("--outputs", o->outputs,
                  "Where to write the outputs JSON (without it or --out the outputs' shapes are printed, "
                  "their values not kept; a timing-only run writes none)");
  cmd->add_option("--stats", o->stats, "Where to write the stats tree JSON");
  cmd->add_flag("--stats-meta", o->stats_meta,
                "With --stats: each leaf as {value, unit, description} instead of the bare value");
  cmd->add_option("--set", o->sets, "Override a hardware parameter: path=value (repeatable)");
  cmd->add_option(
      "--out", o->out_dir,
      "Run directory: writes config.json (every parameter as resolved), summary.json, stats.json, "
      "stats.txt (flat), layers.csv (per-layer table), trace.json, outputs.json and command.txt there, "
      "all replacing the previous run's at once");
  cmd->add_option("--trace", o->trace, "Where to write a Perfetto-loadable trace (Chrome trace-event JSON)");
  cmd->add_option("--waves", o->waves, "RTL waveform file prefix (with compute_core.model=rtl)");
  cmd->add_flag("--json", o->json, "Print a machine-readable JSON summary");
  cmd->add_flag("--example-inputs", o->example_inputs,
                "Run on seeded example values, valid for each input's type and quantisation (no --inputs)");
  cmd->add_flag("--check", o->check, "Also run the CPU reference and compare (exit 3 on mismatch)");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "Host memory the run may take, e.g. 8G (default: NPUSIM_MEMORY_LIMIT, else 3/4 of physical "
                  "memory); inputs and outputs beyond it are refused before allocating");
  cmd->add_flag(
      "--explain-tiling", o->explain_tiling,
      "Print each CONV_2D / FULLY_CONNECTED's tiling (tile shape, loop order, buffering, tiles) with "
      "its predicted and simulated cycles");
  cmd->add_option("--loop-timeout-ms", o->loop_timeout_ms,
                  "NNAPI's loop timeout: a WHILE running longer (simulated time) fails the run with "
                  "MISSED_DEADLINE_TRANSIENT")
      ->check(CLI::Range(uint64_t{0}, npu::hal::kMaxLoopTimeoutNs / 1'000'000))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "Device to run on")
      ->check(CLI::IsMember({"npu", "cpu"}))
      ->capture_default_str();

  return {cmd, [o] { return run_command(*o); }};
}

}  // namespace npusim
