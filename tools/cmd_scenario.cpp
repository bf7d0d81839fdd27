// `npusim scenario S.json`: runs a multi-tenant scenario under one baseline (or all with --compare) and
// prints the per-app metrics and the comparison; optional metrics JSON, Perfetto trace and HTML report.
// Every simulation (each policy's shared run and each app's isolated run) is a forked child process.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.h"
#include "npu/common/file_io.h"
#include "npu/common/interrupt.h"
#include "npu/common/version.h"
#include "npu/scenario/baselines.h"
#include "npu/scenario/jobs_table.h"
#include "npu/scenario/metrics.h"
#include "npu/scenario/report.h"
#include "npu/scenario/runner.h"
#include "npu/system/system.h"
#include "npu/tools/run_directory.h"
#include "npu/tools/scenario_runs.h"
#include "output_path.h"

namespace npusim {
namespace {

struct ScenarioOptions {
  std::string file, policy, trace, report, json;
  std::string out_dir;            // --out: summary.json, jobs.csv, report.html and trace.json in one folder
  std::vector<std::string> sets;  // --set: hardware overrides after the scenario's own
  bool compare = false, scale_thermal = false, trace_descriptors = false;
  double scale = 1;
  double sla_factor = 4;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

// Ctrl-C or SIGTERM: one line, exit 130 (the staged run directory is removed by its destructor).
int interrupted(const std::string& file) {
  std::fprintf(stderr, "npusim: scenario %s: interrupted (nothing written)\n", file.c_str());
  return 130;
}

npu::Result<void> write_text(const std::string& path, const std::string& text) {
  return npu::io::write_file_atomic(path, text);
}

int run_scenario(ScenarioOptions o) {
  using namespace npu::scenario;
  if (o.scale_thermal && o.scale == 1) return fail("--scale-thermal: has no effect without --scale");
  if (o.trace_descriptors && o.trace.empty())
    return fail("--trace-descriptors: has no effect without --trace");
  auto sc = load_scenario(o.file);
  if (!sc) return fail(sc.error());
  sc->hardware_set.insert(sc->hardware_set.end(), o.sets.begin(), o.sets.end());
  if (!o.sets.empty())  // refused here with the override's own error, before any run
    if (auto cfg = npu::system::load_system_config(sc->hardware, sc->hardware_set); !cfg)
      return fail("--set: " + cfg.error());
  // --out DIR: every result in one folder, written beside it and moved in whole once all are written
  // (tools/run_directory.h); a file named by its own flag goes there instead.
  std::string jobs_csv_path;
  std::optional<npu::tools::StagedDirectory> dir;
  if (!o.out_dir.empty()) {
    auto staged = npu::tools::StagedDirectory::create(
        o.out_dir, {"summary.json", "jobs.csv", "report.html", "trace.json"});
    if (!staged) return fail(staged.error());
    dir.emplace(std::move(*staged));
    for (auto [flag, name] :
         {std::pair{&o.json, "summary.json"}, {&o.report, "report.html"}, {&o.trace, "trace.json"}})
      if (flag->empty()) *flag = dir->staged(name);
    jobs_csv_path = dir->staged("jobs.csv");
  }
  auto shown = [&](const std::string& path) { return dir ? dir->shown(path) : path; };
  for (const std::string* out : {&o.json, &o.report, &o.trace, &jobs_csv_path})
    if (auto why = unwritable_reason(*out); !why.empty()) return fail(why);
  npu::tools::ScenarioRunsOptions ro;
  ro.policy = o.policy;
  ro.compare = o.compare;
  ro.scale = o.scale;
  ro.scale_thermal = o.scale_thermal;
  ro.trace = o.trace;
  ro.trace_metadata = {{npu::kBuildKey, npu::build_json()}};
  ro.trace_descriptors = o.trace_descriptors;
  ro.channel_timeline = !o.report.empty();
  ro.sla_factor = o.sla_factor;
  // Ctrl-C: the running simulation is killed, nothing of this run is kept (exit 130).
  npu::install_stop_handlers();
  auto runs = npu::tools::run_scenario_policies(*sc, ro);
  if (npu::stop_requested()) return interrupted(o.file);
  if (!runs) return fail(runs.error());
  const std::string& main_policy = runs->main_policy;
  const std::vector<Metrics>& all = runs->metrics;
  const RunResult& main_run = runs->main_run;
  std::printf("npusim scenario %s (%s): %.3g s simulated, seed %llu, policy %s\n", sc->name.c_str(),
              o.file.c_str(), sc->duration_s * o.scale, static_cast<unsigned long long>(sc->seed),
              main_policy.c_str());
  std::fputs(app_table(all.front()).c_str(), stdout);
  std::fputs(("\n" + comparison_table(all)).c_str(), stdout);
  if (!o.json.empty()) {
    nlohmann::json j = {{npu::kBuildKey, npu::build_json()},
                        {"scenario", sc->name},
                        {"seed", sc->seed},
                        {"runs", nlohmann::json::array()}};
    for (const auto& m : all) j["runs"].push_back(m.to_json());
    if (auto w = write_text(o.json, j.dump(2) + "\n"); !w) return fail(w.error());
    std::printf("metrics written to %s\n", shown(o.json).c_str());
  }
  if (!o.report.empty()) {
    if (auto w = write_text(o.report, html_report(main_run, all, runs->other_runs)); !w)
      return fail(w.error());
    std::printf("report written to %s\n", shown(o.report).c_str());
  }
  if (!o.trace.empty())
    std::printf("trace written to %s (open in ui.perfetto.dev)\n", shown(o.trace).c_str());
  if (!jobs_csv_path.empty()) {
    std::string csv = jobs_csv_header();
    csv += jobs_csv_rows(*sc, main_run, runs->isolated.front());
    for (size_t i = 0; i < runs->other_runs.size(); ++i)
      csv += jobs_csv_rows(*sc, runs->other_runs[i], runs->isolated[i + 1]);
    if (auto w = write_text(jobs_csv_path, csv); !w) return fail(w.error());
    std::printf("per-request table written to %s\n", shown(jobs_csv_path).c_str());
  }
  if (npu::stop_requested()) return interrupted(o.file);
  if (dir)
    if (auto c = dir->commit(); !c) return fail(c.error());
  // An app that was let in but whose every attempt failed is a broken run, not a slow one.
  int broken = 0;
  for (const auto& m : all)
    for (const auto& why : unserved_apps(m)) {
      std::fprintf(stderr, "npusim: %s: %s\n", o.file.c_str(), why.c_str());
      ++broken;
    }
  return broken ? 1 : 0;
}

}  // namespace

Subcommand register_scenario_command(CLI::App& app) {
  auto o = std::make_shared<ScenarioOptions>();
  auto* cmd = app.add_subcommand("scenario",
                                 "Run a multi-tenant scenario (apps → NPU manager → HAL → driver → NPU) "
                                 "and report ANTT, STP, fairness, deadline misses, latency, thermal");
  cmd->add_option("file", o->file, "Scenario JSON (configs/scenarios/*.json)")->required();
  cmd->add_option("--policy", o->policy,
                  "Baseline: fcfs | hpf | prema | rr | edf | default (default: the scenario's)");
  cmd->add_option(
         "--sla-factor", o->sla_factor,
         "N of the SLA satisfaction rate: a request meets its SLA within N x its isolated turnaround")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_flag("--compare", o->compare, "Run every baseline and print one comparison table");
  cmd->add_option("--set", o->sets,
                  "Override a hardware parameter after the scenario's own hardware.set: path=value "
                  "(repeatable; e.g. npu.timing.mode=fast)");
  cmd->add_option("--trace", o->trace, "Perfetto trace (Chrome trace-event JSON) of the main policy's run");
  cmd->add_option("--report", o->report, "Self-contained HTML report");
  cmd->add_option("--json", o->json, "Metrics JSON (deterministic: same seed, same bytes)");
  cmd->add_option("--out", o->out_dir,
                  "Run directory: summary.json (the --json metrics), jobs.csv (a row per request of every "
                  "app and policy), report.html and trace.json");
  cmd->add_option("--scale", o->scale,
                  "Multiply the scenario's duration and event times (e.g. 0.2 for a quick run)")
      ->check(CLI::Range(1e-3, 100.0));
  cmd->add_flag(
      "--scale-thermal", o->scale_thermal,
      "With --scale: also scale the package and skin heat capacities, so a shorter run heats as far");
  cmd->add_flag("--trace-descriptors", o->trace_descriptors,
                "With --trace: add the NPU's per-descriptor engine spans (large files on long runs)");
  return {cmd, [o] { return run_scenario(*o); }};
}

}  // namespace npusim
