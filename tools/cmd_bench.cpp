// `npusim bench --model M [--iterations N] [--report r.html] [--json]`: latency and accuracy of one
// model (npu::mlts::run_bench), printed as a table or JSON, optionally as an HTML page with charts.
#include "cmd_bench.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "npu/common/interrupt.h"
#include "npu/common/version.h"
#include "npu/mlts/bench.h"
#include "npu/mlts/report.h"
#include "npu/tools/data_files.h"
#include "npu/tools/progress.h"
#include "npu/tools/run_model.h"
#include "output_path.h"

namespace npu::tools {
namespace {

struct BenchCli {
  mlts::BenchOptions options;
  std::string report;
  bool json = false;
};

int run(const BenchCli& c) {
  if (auto why = npusim::unwritable_reason(c.report); !why.empty()) {
    std::fprintf(stderr, "npusim: %s\n", why.c_str());
    return 1;
  }
  mlts::BenchOptions options = c.options;
  // Timed iterations then the CPU reference's: two steps per iteration.
  Progress progress("bench " + c.options.model, 2 * c.options.iterations);
  // Ctrl-C: at the next iteration, one line and exit 130; nothing has been written yet (the report is
  // written once the bench is done).
  install_stop_handlers();
  options.on_iteration = [&](const std::string& phase, uint32_t i) {
    if (stop_requested()) {
      std::fprintf(stderr, "%snpusim: bench %s: interrupted (nothing written)\n",
                   progress_enabled() ? "\r\033[K" : "", c.options.model.c_str());
      std::fflush(nullptr);
      std::_Exit(130);  // inside the simulation: SystemC's threads cannot be unwound
    }
    progress.step((phase == "iteration" ? 1 : 1 + c.options.iterations) + i,
                  phase + " " + std::to_string(i + 1) + " of " + std::to_string(c.options.iterations));
  };
  auto r = mlts::run_bench(options);
  if (!r) {
    auto cfg = system::load_system_config(options.hw, options.sets);
    std::fprintf(stderr, "npusim: %s%s\n", r.error().c_str(),
                 cfg ? device_memory_hint(r.error(), *cfg).c_str() : "");
    return 1;
  }
  if (!c.report.empty()) {
    if (auto w = mlts::write_bench_html(*r, c.report); !w) {
      std::fprintf(stderr, "npusim: %s\n", w.error().c_str());
      return 1;
    }
  }
  if (c.json) {
    nlohmann::json j = mlts::bench_json(*r);
    j[kBuildKey] = build_json();
    if (!c.report.empty()) j["report"] = c.report;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(mlts::bench_table(*r).c_str(), stdout);
    if (!c.report.empty()) std::printf("  report written to %s\n", c.report.c_str());
  }
  return 0;
}

}  // namespace

std::function<int()> add_bench_command(CLI::App& app) {
  auto c = std::make_shared<BenchCli>();
  c->options.hw = default_hw_config();
  auto* cmd = app.add_subcommand("bench",
                                 "MLTS-style benchmark: simulated latency over N iterations, "
                                 "compilation time, accuracy against the CPU reference");
  cmd->add_option("--model", c->options.model, "Model JSON, ONNX file (.onnx), or zoo:NAME (npusim zoo list)")
      ->required();
  cmd->add_flag("--cpu-fallback", c->options.cpu_fallback,
                "ONNX: import operators only the CPU reference runs");
  cmd->add_option("--iterations", c->options.iterations, "Inferences to time")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--seed", c->options.seed, "Seed of zoo weights and of the per-iteration inputs")
      ->capture_default_str();
  cmd->add_option("--hw", c->options.hw, "Hardware config JSON")->capture_default_str();
  cmd->add_option("--set", c->options.sets, "Override a hardware parameter: path=value (repeatable)");
  cmd->add_option("--report", c->report, "Where to write the HTML report with charts");
  cmd->add_flag("--json", c->json, "Print the results as JSON");
  return [cmd, c]() { return cmd->parsed() ? run(*c) : -1; };
}

}  // namespace npu::tools
