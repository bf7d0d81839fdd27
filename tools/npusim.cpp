// npusim: the command line. Subcommands: run (one inference), config (parameters), regmap (register map).
// Every error is one line naming the file, JSON path or argument, and the exit status is non-zero.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cmd_bench.h"
#include "cmd_graph.h"
#include "cmd_import.h"
#include "cmd_regress.h"
#include "cmd_zoo.h"
#include "command.h"
#include "examples.h"
#include "npu/common/digest.h"
#include "npu/common/file_io.h"
#include "npu/common/log.h"
#include "npu/common/version.h"
#include "npu/hal/op_table.h"
#include "npu/models/builder.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/tools/escaped_error.h"
#include "npu/tools/layers.h"
#include "npu/tools/progress.h"
#include "npu/tools/run_model.h"
#include "output_path.h"

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
  bool cpu_fallback = false;
  bool stats_meta = false;
  bool explain_tiling = false;
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
  // --out DIR: every result of the run in one folder; a file named by its own flag goes there instead.
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec || !std::filesystem::is_directory(o.out_dir))
      return fail(o.out_dir + ": --out: cannot create the folder" + (ec ? ": " + ec.message() : ""));
    const std::filesystem::path dir(o.out_dir);
    for (auto [flag, name] :
         {std::pair{&o.outputs, "outputs.json"}, {&o.stats, "stats.json"}, {&o.trace, "trace.json"}})
      if (flag->empty()) *flag = (dir / name).string();
  }
  if (o.stats_meta && o.stats.empty()) return fail("--stats-meta: has no effect without --stats or --out");
  auto model = tools::load_model_file(o.model, o.cpu_fallback);  // a file (.onnx imported), or zoo:NAME
  if (!model) return fail(model.error());
  auto cfg = system::load_system_config(o.hw, o.sets);
  if (!cfg) return fail(cfg.error());
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
  // A zoo model without --inputs runs on the zoo's seeded inputs (those `npusim zoo write` writes).
  const bool zoo_inputs = !timing_only_why && o.inputs.empty() && o.model.rfind("zoo:", 0) == 0;
  if (!timing_only_why && o.inputs.empty() && !zoo_inputs)
    return fail("--inputs is required (only a timing-only run or a zoo: model needs none)");
  if (!timing_only_why && o.outputs.empty())
    return fail("--outputs is required (only a timing-only run writes none)");
  hal::TensorMap zeros;
  if (o.inputs.empty() && !zoo_inputs)
    for (uint32_t idx : model->main.input_indexes) {
      const auto& op = model->main.operands[idx];
      if (!op.fully_specified())
        return fail(o.model + ": input " + std::to_string(idx) + " has unknown dimensions; give --inputs");
      zeros[idx] = models::make_tensor(op, op.dimensions);
    }
  auto inputs = zoo_inputs         ? Result<hal::TensorMap>(models::random_inputs(*model, 1))
                : o.inputs.empty() ? Result<hal::TensorMap>(std::move(zeros))
                                   : models::load_io_json(o.inputs, *model);
  if (!inputs) return fail(inputs.error());
  for (const std::string* out : {&o.outputs, &o.stats, &o.trace})
    if (auto why = npusim::unwritable_reason(*out); !why.empty()) return fail(why);
  cfg->waves_path = o.waves;
  cfg->trace = !o.trace.empty();
  tools::RunModelOptions ro;
  ro.name = o.model;
  ro.device = o.device;
  ro.check = o.check;
  ro.loop_timeout_ns = o.loop_timeout_ms * 1'000'000;
  auto run = tools::run_model(*model, *inputs, *cfg, ro);
  if (!run) return fail(run.error());
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
  if (executed && !result.timing_only &&
      !write_file(o.outputs, models::dump_json_pretty(npu::with_build(models::io_to_json(result.outputs))),
                  &error))
    return fail(error);
  auto& stats = sys->stats();
  if (!o.stats.empty()) {
    nlohmann::json tree = stats.to_json(o.stats_meta);
    tree[npu::kBuildKey] = made_by;
    if (!write_file(o.stats, tree.dump(2) + "\n", &error)) return fail(error);
  }
  if (!o.trace.empty()) {
    // Chrome trace-event JSON's "metadata" object, shown by chrome://tracing and Perfetto with the trace.
    nlohmann::json trace = sys->tracer()->to_json();
    trace["metadata"] = {{npu::kBuildKey, made_by}};
    if (!write_file(o.trace, trace.dump() + "\n", &error)) return fail(error);
  }
  const std::filesystem::path out_dir(o.out_dir);
  if (!o.out_dir.empty()) {
    auto resolved = system::resolved_config(o.hw, o.sets);
    if (!resolved) return fail(resolved.error());
    (*resolved)[npu::kBuildKey] = made_by;  // skipped when the file is read back as --hw
    if (!write_file((out_dir / "config.json").string(), resolved->dump(2) + "\n", &error)) return fail(error);
    nlohmann::json trace = sys->tracer()->to_json();
    const auto rows =
        tools::layer_table(*model, hal::target_for(sys->driver().device_info()), &trace, o.device == "cpu");
    if (!write_file((out_dir / "layers.csv").string(), layers_csv(rows), &error)) return fail(error);
  }

  tools::OutputComparison cmp;
  if (o.check && executed) {
    if (!reference.status.ok())
      return fail(o.model + ": CPU reference: " + hal::to_string(reference.status.code) + ": " +
                  reference.status.message);
    cmp = tools::compare_outputs(result.outputs, reference.outputs);
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
  if (o.json || !o.out_dir.empty()) {
    nlohmann::json j = {{npu::kBuildKey, made_by},
                        {"model", o.model},
                        {"device", o.device == "cpu" ? std::string(sys->cpu_device().name())
                                                     : std::string(sys->npu_device().name())},
                        {"placement", placement},
                        {"latency_us", timed ? nlohmann::json(result.timing.time_in_driver_us) : nullptr},
                        {"device_us", timed ? nlohmann::json(result.timing.time_on_device_us) : nullptr},
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
    if (executed && !result.timing_only) j["outputs"] = o.outputs;
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
    if (!o.out_dir.empty()) {
      j["out"] = o.out_dir;
      if (!write_file((out_dir / "summary.json").string(), j.dump(2) + "\n", &error)) return fail(error);
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
  if (zoo_inputs)
    std::printf("  inputs          the zoo's seeded inputs (as npusim zoo write writes them)\n");
  std::printf("  prepare         %.1f us simulated\n", prepare_ns / 1000.0);
  if (timed)
    std::printf("  latency         %llu us simulated (time in driver)\n",
                static_cast<unsigned long long>(result.timing.time_in_driver_us));
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
  else
    std::printf("  outputs written to %s\n", o.outputs.c_str());
  if (!o.stats.empty()) std::printf("  stats written to %s\n", o.stats.c_str());
  if (!o.trace.empty()) std::printf("  trace written to %s (open in ui.perfetto.dev)\n", o.trace.c_str());
  if (!o.out_dir.empty())
    std::printf("  run directory   %s: config.json, summary.json, stats.json, layers.csv, trace.json%s\n",
                o.out_dir.c_str(), result.timing_only || !executed ? "" : ", outputs.json");
  return status;
}

// Seeded example models for demos and smoke tests: NAME.model.json and NAME.inputs.json in `dir`.
int example_command(const std::string& name, const std::string& dir, uint64_t seed) {
  using namespace npu::models;
  auto example = npu::tools::make_example(name, seed);
  if (!example) return fail(example.error());
  // As the README's `--dir /tmp/m`: a folder that does not exist yet is created.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(dir + ": cannot create the folder: " + ec.message());
  const std::string base = dir + "/" + name;
  if (auto r = save_model_json(example->model, base + ".model.json", npu::build_json()); !r)
    return fail(r.error());
  std::string error;
  if (!write_file(base + ".inputs.json", dump_json_pretty(npu::with_build(io_to_json(example->inputs))),
                  &error))
    return fail(error);
  std::printf("%s.model.json\n%s.inputs.json\n", base.c_str(), base.c_str());
  return 0;
}

// Where measured device capabilities are kept: $NPUSIM_CACHE_DIR, else $XDG_CACHE_HOME/npusim, else
// ~/.cache/npusim; empty when none of these is set.
std::filesystem::path capability_cache_dir() {
  if (const char* d = std::getenv("NPUSIM_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "npusim";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "npusim";
  return {};
}

// The operation x operand-type table (docs/hal.md embeds it), probed against the configured NPU.
int ops_command(const std::string& hw, const std::vector<std::string>& sets) {
  using namespace npu;
  auto cfg = system::load_system_config(hw, sets);
  if (!cfg) return fail(cfg.error());
  hal::NpuTarget target;
  target.array_rows = cfg->npu.channel.array_rows;
  target.array_cols = cfg->npu.channel.array_cols;
  target.sram_bytes = static_cast<uint64_t>(cfg->npu.channel.sram_kib) * 1024;
  target.channels = cfg->npu.channels;
  std::cout << hal::operation_table_markdown(hal::probe_operation_table(target));
  return 0;
}

// Device discovery as NNAPI apps see it (getType, getVersionString, {VENDOR}-{DEVICE_NAME}) and the
// capabilities each device measured on its reference workloads (execution time and energy vs the CPU).
// Measuring takes seconds of simulation, so the rows are cached per resolved hardware config and build
// (which fixes the driver and HAL versions): a changed config or a new build measures again.
int devices_command(const std::string& hw, const std::vector<std::string>& sets) {
  using namespace npu;
  auto cfg = system::load_system_config(hw, sets);
  if (!cfg) return fail(cfg.error());
  auto resolved = system::resolved_config(hw, sets);
  if (!resolved) return fail(resolved.error());
  // "rows 2": rows carry each device's extensions (older cached rows did not).
  const std::string identity =
      resolved->dump() + "\n" + version_line() + "\n" + std::string(git_hash()) + "\nrows 2";
  char key[17];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(digest64(identity.data(), identity.size())));
  const std::filesystem::path dir = capability_cache_dir();
  const std::filesystem::path cached = dir.empty() ? dir : dir / (std::string("devices-") + key + ".json");
  nlohmann::json rows;
  if (!cached.empty()) {
    std::ifstream in(cached);
    if (in) {
      auto j = nlohmann::json::parse(in, nullptr, false);
      // A damaged or foreign file is measured again and overwritten, never trusted.
      if (!j.is_discarded() && j.value("identity", "") == identity && j.contains("devices"))
        rows = j["devices"];
    }
  }
  if (rows.is_null()) {
    auto sys = system::System::create(*cfg);
    if (!sys) return fail(sys.error());
    rows = nlohmann::json::array();
    auto end = (*sys)->run([&](system::System& s) {
      hal::Device* devices[] = {&s.npu_device(), &s.npu_device(10000, 1000, hal::NpuDevice::Variant::MINIMAL),
                                &s.cpu_device()};
      tools::Progress progress("devices: measuring capabilities", 3);
      uint32_t step = 0;
      for (hal::Device* d : devices) {
        progress.step(++step, d->name());
        const hal::Capabilities caps = d->capabilities();
        nlohmann::json perf = nlohmann::json::array();
        for (const auto& [type, p] : caps.operand_performance)
          perf.push_back({{"type", type}, {"exec_time", p.exec_time}, {"power_usage", p.power_usage}});
        const auto files = d->number_of_cache_files_needed();
        nlohmann::json extensions = nlohmann::json::array();
        for (const hal::Extension& e : d->supported_extensions()) extensions.push_back(e.name);
        rows.push_back({{"name", d->name()},
                        {"type", hal::to_string(d->type())},
                        {"version", d->version_string()},
                        {"cache_files", {files.first, files.second}},
                        {"extensions", extensions},
                        {"operand_performance", perf}});
      }
    });
    if (!end) return fail(end.error());
    if (!cached.empty()) {  // a cache that cannot be written only costs the next call its time
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (!ec)
        (void)io::write_file_atomic(cached.string(),
                                    nlohmann::json{{"identity", identity}, {"devices", rows}}.dump(1) + "\n");
    }
  }
  std::printf("%-20s %-12s %s\n", "name", "type", "version");
  for (const auto& r : rows) {
    std::printf("%-20s %-12s %s\n", r["name"].get<std::string>().c_str(),
                r["type"].get<std::string>().c_str(), r["version"].get<std::string>().c_str());
    // getSupportedExtensions: printed as the device answers it ("none" only when the list is empty).
    std::string extensions;
    for (const auto& e : r.value("extensions", nlohmann::json::array()))
      extensions += (extensions.empty() ? "" : ", ") + e.get<std::string>();
    std::printf("  cache files: %u model, %u data; extensions: %s\n", r["cache_files"][0].get<uint32_t>(),
                r["cache_files"][1].get<uint32_t>(), extensions.empty() ? "none" : extensions.c_str());
    for (const auto& p : r["operand_performance"])
      std::printf("  %-32s exec_time %.4f  power_usage %.4f\n", p["type"].get<std::string>().c_str(),
                  p["exec_time"].get<double>(), p["power_usage"].get<double>());
  }
  return 0;
}

// A register's access kind as the register map and the kernel header spell it.
const char* access_name(npu::regs::Access a) {
  switch (a) {
    case npu::regs::Access::RO:
      return "RO";
    case npu::regs::Access::RW:
      return "RW";
    case npu::regs::Access::W1C:
      return "W1C";
    case npu::regs::Access::WO:
      return "WO";
  }
  return "?";
}

int regmap_command() {
  using namespace npu::regs;
  std::printf(
      "# NPU register map\n\nGenerated by `npusim regmap` from common/include/npu/regmap/npu_regs.h.\n\n"
      "Access: RO ignores writes (the bus answers a command error), WO reads 0, W1C clears the bits written "
      "as 1, RW stores. Fields are `name[high:low]`, as the regs::Field constants of the header place "
      "them.\n\n");
  std::printf(
      "## Global block (offset from MMIO base)\n\n| offset | name | access | reset | description "
      "|\n|---|---|---|---|---|\n");
  for (const auto& r : kGlobalRegisters)
    std::printf("| 0x%03X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  std::printf(
      "\n## Thermal, power and DVFS block\n\n| offset | name | access | reset | description "
      "|\n|---|---|---|---|---|\n");
  for (const auto& r : kThermalRegisters)
    std::printf("| 0x%03X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  std::printf(
      "\n## Channel block n (offset from 0x%X + n·0x%X, n < %u)\n\n| offset | name | access | reset | "
      "description |\n|---|---|---|---|---|\n",
      kChannelBase, kChannelStride, kMaxChannels);
  for (const auto& r : kChannelRegisters)
    std::printf("| 0x%02X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  return 0;
}

// The register map as a kernel-style C header (kernel/npusim/npusim_regs.h is this output, checked by
// the ctest regmap.c_header): offsets, GENMASK/BIT fields, the channel states, errors and fault kinds.
int regmap_c_header() {
  using namespace npu::regs;
  auto upper = [](std::string_view s) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  };
  auto reg = [&](std::string_view name, uint32_t offset, const char* access) {
    std::printf("#define NPUSIM_%-28s 0x%03x /* %s */\n", std::string(name).c_str(), offset, access);
  };
  std::printf(
      "/* SPDX-License-Identifier: GPL-2.0 OR MIT */\n"
      "/*\n"
      " * npusim NPU register map. Generated by `npusim regmap --c-header` from\n"
      " * common/include/npu/regmap/npu_regs.h: do not edit; regenerate.\n"
      " */\n"
      "#ifndef NPUSIM_REGS_H\n#define NPUSIM_REGS_H\n\n"
      "#ifdef __KERNEL__ /* user space (the guest runner) uses the plain constants */\n"
      "#include <linux/bits.h>\n#endif\n\n");
  std::printf("#define NPUSIM_ID_VALUE 0x%08x\n\n/* Global block (offset from the MMIO base) */\n",
              kNpuIdValue);
  for (const auto& r : kGlobalRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf("\n/* Thermal, power and DVFS block */\n");
  for (const auto& r : kThermalRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf(
      "\n/* Channel block n: NPUSIM_CH_BASE(n) + the channel register's offset */\n"
      "#define NPUSIM_CH_BLOCK 0x%x\n#define NPUSIM_CH_STRIDE 0x%x\n#define NPUSIM_MAX_CHANNELS %u\n"
      "#define NPUSIM_CH_BASE(n) (NPUSIM_CH_BLOCK + (n) * NPUSIM_CH_STRIDE)\n",
      kChannelBase, kChannelStride, kMaxChannels);
  for (const auto& r : kChannelRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf("\n/* Fields: NPUSIM_<register>_<field> */\n");
  for (const auto& f : kFields) {
    const std::string name = upper(f.reg) + "_" + upper(f.name);
    if (f.field.width == 1)
      std::printf("#define NPUSIM_%-36s BIT(%u)\n", name.c_str(), f.field.shift);
    else
      std::printf("#define NPUSIM_%-36s GENMASK(%u, %u)\n", name.c_str(), f.field.shift + f.field.width - 1,
                  f.field.shift);
  }
  std::printf("\n#define NPUSIM_SAVE_AREA_HEADER %u\n", kSaveAreaHeader);
  // The enums have no name tables in npu_regs.h but FaultKind's; their values are listed here once, and
  // each line checks itself against the C++ enum at compile time.
  std::printf("\n/* CH_STATUS.state */\n");
#define NPUSIM_ENUM_LINE(prefix, type, value) \
  std::printf("#define NPUSIM_%s_%s %u\n", prefix, #value, static_cast<uint32_t>(type::value))
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, IDLE);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, BUSY);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, DONE);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, ERROR);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, PREEMPTED);
  std::printf("\n/* CH_STATUS.error */\n");
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, NONE);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, BAD_DESCRIPTOR);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, DMA_FAULT);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, SRAM_OVERFLOW);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, SRAM_ECC);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, INDEX_OUT_OF_RANGE);
#undef NPUSIM_ENUM_LINE
  std::printf("\n/* CH_FAULT_INJECT.kind */\n");
  for (const auto& e : kFaultKindNames)
    std::printf("#define NPUSIM_FAULT_%s %u\n", upper(e.name).c_str(), static_cast<uint32_t>(e.value));
  // The command-buffer descriptor facts a kernel driver needs to validate the device addresses
  // descriptors carry (descriptors.h): size, opcodes, and the byte offsets of the header's opcode and
  // of the DMA fields (DMA_IN/DMA_OUT/DMA_GATHER share the Dma layout up to dev_stride).
  {
    namespace d = npu::desc;
    std::printf("\n/* Command-buffer descriptors (common/include/npu/regmap/descriptors.h) */\n");
    std::printf("#define NPUSIM_DESC_BYTES %u\n", d::kDescriptorBytes);
    std::printf("#define NPUSIM_DESC_OPCODE_COUNT %u\n", d::kOpcodeCount);
    for (const auto& e : d::kOpcodeNames)
      std::printf("#define NPUSIM_OP_%s %u\n", std::string(e.name).c_str(), static_cast<uint32_t>(e.value));
    auto field = [](const char* name, size_t offset, size_t size) {
      std::printf("#define NPUSIM_DESC_%-22s %zu /* u%zu */\n", name, offset, size * 8);
    };
    field("OPCODE", offsetof(d::Header, opcode), sizeof(d::Header::opcode));
    field("DMA_DEV", offsetof(d::Dma, dev), sizeof(d::Dma::dev));
    field("DMA_ROW_BYTES", offsetof(d::Dma, row_bytes), sizeof(d::Dma::row_bytes));
    field("DMA_ROWS", offsetof(d::Dma, rows), sizeof(d::Dma::rows));
    field("DMA_DEV_STRIDE", offsetof(d::Dma, dev_stride), sizeof(d::Dma::dev_stride));
    field("GATHER_TABLE_ROWS", offsetof(d::DmaGather, table_rows), sizeof(d::DmaGather::table_rows));
    static_assert(offsetof(d::DmaGather, dev) == offsetof(d::Dma, dev) &&
                  offsetof(d::DmaGather, row_bytes) == offsetof(d::Dma, row_bytes) &&
                  offsetof(d::DmaGather, rows) == offsetof(d::Dma, rows) &&
                  offsetof(d::DmaGather, dev_stride) == offsetof(d::Dma, dev_stride));
  }
  std::printf("\n#endif /* NPUSIM_REGS_H */\n");
  return 0;
}

}  // namespace

// Help for every subcommand, generic over what is registered: `npusim`, `npusim --help`.
std::string full_help(CLI::App& app) {
  std::string text = app.help();
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    text += "\n" + sub->help(app.get_name());
  return text;
}

namespace {

int npusim_main(int argc, char* argv[]) {
  CLI::App app{"npusim: cycle-approximate NPU simulator with a driver, NNAPI-style HAL and NPU manager",
               "npusim"};
  app.set_help_flag();  // replaced by the generic full help below
  app.set_version_flag("--version", npu::version_line(),
                       "Print the version and the git commit it was built from");
  bool help = false;
  app.add_flag("-h,--help", help, "Explain every subcommand");
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "No progress lines on stderr (shown only on a terminal anyway)");
  app.fallthrough();  // --quiet and --log also after the subcommand: `npusim scenario s.json --quiet`
  std::string log_filter;
  app.add_option("--log", log_filter, "Log tags/components to print (overrides NPUSIM_LOG): all, or a list");

  RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run one inference of a model on the simulated NPU");
  run_cmd->add_option("--hw", run.hw, "Hardware config JSON")->capture_default_str();
  run_cmd
      ->add_option("--model", run.model,
                   "Model JSON (README: Model JSON), ONNX file (.onnx), or zoo:NAME (npusim zoo list)")
      ->required();
  run_cmd->add_flag("--cpu-fallback", run.cpu_fallback, "ONNX: import operators only the CPU reference runs");
  run_cmd->add_option("--inputs", run.inputs,
                      "Inputs JSON {\"<operand>\": [values]} (not needed by a timing-only run: zeros)");
  run_cmd->add_option("--outputs", run.outputs,
                      "Where to write the outputs JSON (a timing-only run writes none)");
  run_cmd->add_option("--stats", run.stats, "Where to write the stats tree JSON");
  run_cmd->add_flag("--stats-meta", run.stats_meta,
                    "With --stats: each leaf as {value, unit, description} instead of the bare value");
  run_cmd->add_option("--set", run.sets, "Override a hardware parameter: path=value (repeatable)");
  run_cmd->add_option(
      "--out", run.out_dir,
      "Run directory: writes config.json (every parameter as resolved), summary.json, stats.json, "
      "layers.csv (per-layer table), trace.json and outputs.json there");
  run_cmd->add_option("--trace", run.trace,
                      "Where to write a Perfetto-loadable trace (Chrome trace-event JSON)");
  run_cmd->add_option("--waves", run.waves, "RTL waveform file prefix (with compute_core.model=rtl)");
  run_cmd->add_flag("--json", run.json, "Print a machine-readable JSON summary");
  run_cmd->add_flag("--check", run.check, "Also run the CPU reference and compare (exit 3 on mismatch)");
  run_cmd->add_flag(
      "--explain-tiling", run.explain_tiling,
      "Print each CONV_2D / FULLY_CONNECTED's tiling (tile shape, loop order, buffering, tiles) with "
      "its predicted and simulated cycles");
  run_cmd
      ->add_option("--loop-timeout-ms", run.loop_timeout_ms,
                   "NNAPI's loop timeout: a WHILE running longer (simulated time) fails the run with "
                   "MISSED_DEADLINE_TRANSIENT")
      ->check(CLI::Range(uint64_t{0}, npu::hal::kMaxLoopTimeoutNs / 1'000'000))
      ->capture_default_str();
  run_cmd->add_option("--device", run.device, "Device to run on")
      ->check(CLI::IsMember({"npu", "cpu"}))
      ->capture_default_str();

  std::string example_name, example_dir = ".";
  uint64_t example_seed = 1;
  auto* example_cmd = app.add_subcommand("example", "Write a seeded example model and inputs");
  example_cmd->add_option("name", example_name, npu::tools::example_names())->required();
  example_cmd->add_option("--dir", example_dir, "Output folder")->capture_default_str();
  example_cmd->add_option("--seed", example_seed, "Random seed")->capture_default_str();

  bool explain = false;
  auto* config_cmd = app.add_subcommand("config", "Hardware configuration parameters");
  config_cmd->add_flag("--explain", explain, "List every parameter with default, unit and description");

  bool regmap_c = false;
  auto* regmap_cmd = app.add_subcommand("regmap", "Print the register map as Markdown");
  regmap_cmd->add_flag("--c-header", regmap_c,
                       "Print it as a kernel-style C header instead (kernel/npusim/npusim_regs.h)");

  std::string devices_hw = npu::tools::default_hw_config();
  std::vector<std::string> devices_sets;
  auto* devices_cmd =
      app.add_subcommand("devices", "List the NNAPI devices: name, type, version, capabilities");
  devices_cmd->add_option("--hw", devices_hw, "Hardware config JSON")->capture_default_str();
  devices_cmd->add_option("--set", devices_sets, "Override a hardware parameter: path=value");

  std::string ops_hw = npu::tools::default_hw_config();
  std::vector<std::string> ops_sets;
  auto* ops_cmd = app.add_subcommand(
      "ops", "Print the operation x operand-type table (CPU reference and NPU support) as Markdown");
  ops_cmd->add_option("--hw", ops_hw, "Hardware config JSON")->capture_default_str();
  ops_cmd->add_option("--set", ops_sets, "Override a hardware parameter: path=value");

  const auto zoo = npu::tools::add_zoo_command(app);
  const auto bench = npu::tools::add_bench_command(app);
  int command_exit = -1;
  npu::tools::register_import_commands(app, &command_exit);
  const auto regress = npu::tools::add_regress_command(app);
  const auto graph = npu::tools::add_graph_command(app);

  // Subcommands in their own files (tools/cmd_*.cpp); one line each.
  const std::vector<npusim::Subcommand> registered = {
      npusim::register_scenario_command(app), npusim::register_sweep_command(app),
      npusim::register_measure_command(app),  npusim::register_stress_command(app),
      npusim::register_vp_command(app),  // docs/vp-device.md
      npusim::register_program_command(app),
  };

  if (argc == 1) {
    std::fputs(full_help(app).c_str(), stdout);
    return 0;
  }
  // `npusim SUB [SUB2] ... --help`: that subcommand's help, found before parsing, which would fail
  // first on the subcommand's required arguments.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "-h" && arg != "--help") continue;
    CLI::App* target = &app;
    std::string parents = "npusim", usage_prefix;
    for (int j = 1; j < argc; ++j)
      for (CLI::App* sub : target->get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == argv[j]) {
          usage_prefix = parents;
          parents += " " + sub->get_name();
          target = sub;
          break;
        }
    std::fputs(target == &app ? full_help(app).c_str() : target->help(usage_prefix).c_str(), stdout);
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "npusim: %s (see npusim --help)\n", e.what());
    return 2;
  }
  if (help && !app.get_subcommands().empty()) {
    std::fputs(app.get_subcommands().front()->help().c_str(), stdout);
    return 0;
  }
  if (help || app.get_subcommands().empty()) {
    std::fputs(full_help(app).c_str(), stdout);
    return help ? 0 : 2;
  }
  // --log overrides NPUSIM_LOG; whichever selects the logs, an unknown name is refused naming it.
  const char* env_log = std::getenv("NPUSIM_LOG");
  const std::string log_source = !log_filter.empty() ? "--log" : "NPUSIM_LOG";
  const std::string logs = !log_filter.empty() ? log_filter : env_log ? env_log : "";
  if (const std::string bad = logs.empty() ? "" : npu::log::unknown_selector(logs); !bad.empty())
    return fail(log_source + ": no log is named '" + bad + "' (known: " + npu::log::known_roots() +
                ", or a component such as npu.ch0 or driver.regs)");
  if (!log_filter.empty()) npu::log::set_filter(log_filter);
  npu::tools::set_progress_quiet(quiet);
  if (command_exit >= 0) return command_exit;
  for (const auto& sub : registered)
    if (sub.cli->parsed()) return sub.run();
  if (run_cmd->parsed()) return run_command(run);
  if (const int status = zoo(); status >= 0) return status;
  if (const int status = bench(); status >= 0) return status;
  if (const int status = regress(); status >= 0) return status;
  if (const int status = graph(); status >= 0) return status;
  if (config_cmd->parsed()) {
    std::fputs(npu::system::explain_system_config().c_str(), stdout);
    return 0;
  }
  if (regmap_cmd->parsed()) return regmap_c ? regmap_c_header() : regmap_command();
  if (devices_cmd->parsed()) return devices_command(devices_hw, devices_sets);
  if (ops_cmd->parsed()) return ops_command(ops_hw, ops_sets);
  if (example_cmd->parsed()) return example_command(example_name, example_dir, example_seed);
  return 1;
}

}  // namespace

// The one top-level guard: whatever escapes a command or a SystemC process (which sc_start() rethrows as
// an sc_report) is one line on stderr and exit status 5, never the kernel's "Error: (E549) uncaught
// exception" report on stdout, which sc_elab_and_sim() would print for anything escaping sc_main.
int sc_main(int argc, char* argv[]) {
  // A fatal SystemC report would print on stdout and abort: thrown instead, it reaches the guard.
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
  try {
    return npusim_main(argc, argv);
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "npusim: %s\n", npu::tools::escaped_error_line(std::current_exception()).c_str());
    return npu::tools::kExitEscapedError;
  }
}

// libsystemc's own main() would print its banner before anything can silence it.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
