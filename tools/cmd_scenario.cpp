// `npusim scenario S.json`: runs a multi-tenant scenario under one baseline (or all with --compare) and
// prints the per-app metrics and the comparison; optional metrics JSON, Perfetto trace and HTML report.
// Every simulation (each policy's shared run and each app's isolated run) is a forked child process.
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "command.h"
#include "output_path.h"
#include "npu/scenario/baselines.h"
#include "npu/scenario/metrics.h"
#include "npu/scenario/report.h"
#include "npu/scenario/runner.h"

namespace npusim {
namespace {

struct ScenarioOptions {
  std::string file, policy, trace, report, json;
  bool compare = false, scale_thermal = false, trace_descriptors = false;
  double scale = 1;
  double sla_factor = 4;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

int run_scenario(const ScenarioOptions& o) {
  using namespace npu::scenario;
  auto sc = load_scenario(o.file);
  if (!sc) return fail(sc.error());
  for (const std::string* out : {&o.json, &o.report, &o.trace})
    if (auto why = unwritable_reason(*out); !why.empty()) return fail(why);
  const std::string main_policy = o.policy.empty() ? sc->policy : o.policy;
  if (!find_baseline(main_policy)) {
    std::string names;
    for (const auto& n : baseline_names()) names += (names.empty() ? "" : ", ") + n;
    return fail("--policy: unknown baseline \"" + main_policy + "\" (" + names + ")");
  }
  std::vector<std::string> policies = {main_policy};
  if (o.compare)
    for (const auto& n : baseline_names())
      if (n != main_policy) policies.push_back(n);
  std::vector<Metrics> all;
  RunResult main_run;
  for (const auto& policy : policies) {
    RunOptions ro;
    ro.policy = policy;
    ro.duration_scale = o.scale;
    ro.scale_thermal = o.scale_thermal;
    if (policy == main_policy) {
      ro.trace_path = o.trace;
      ro.trace_descriptors = o.trace_descriptors;
      ro.channel_timeline = !o.report.empty();
    }
    auto shared = run_forked(*sc, ro);
    if (!shared) return fail(shared.error());
    std::map<int, RunResult> isolated;
    for (const auto& app : sc->apps) {
      RunOptions io = ro;
      io.trace_path.clear();
      io.channel_timeline = false;
      io.only_uid = app.uid;
      auto alone = run_forked(*sc, io);
      if (!alone) return fail(alone.error());
      isolated.emplace(app.uid, std::move(*alone));
    }
    all.push_back(compute_metrics(*shared, isolated, o.sla_factor));
    if (policy == main_policy) main_run = std::move(*shared);
  }
  std::printf("npusim scenario %s (%s): %.3g s simulated, seed %llu, policy %s\n", sc->name.c_str(),
              o.file.c_str(), sc->duration_s * o.scale, static_cast<unsigned long long>(sc->seed),
              main_policy.c_str());
  std::fputs(app_table(all.front()).c_str(), stdout);
  std::fputs(("\n" + comparison_table(all)).c_str(), stdout);
  if (!o.json.empty()) {
    nlohmann::json j = {{"scenario", sc->name}, {"seed", sc->seed}, {"runs", nlohmann::json::array()}};
    for (const auto& m : all) j["runs"].push_back(m.to_json());
    if (!write_text(o.json, j.dump(2) + "\n")) return fail(o.json + ": cannot write");
    std::printf("metrics written to %s\n", o.json.c_str());
  }
  if (!o.report.empty()) {
    if (!write_text(o.report, html_report(main_run, all))) return fail(o.report + ": cannot write");
    std::printf("report written to %s\n", o.report.c_str());
  }
  if (!o.trace.empty()) std::printf("trace written to %s (open in ui.perfetto.dev)\n", o.trace.c_str());
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
  cmd->add_option("--sla-factor", o->sla_factor,
                  "N of the SLA satisfaction rate: a request meets its SLA within N x its isolated turnaround")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_flag("--compare", o->compare, "Run every baseline and print one comparison table");
  cmd->add_option("--trace", o->trace, "Perfetto trace (Chrome trace-event JSON) of the main policy's run");
  cmd->add_option("--report", o->report, "Self-contained HTML report");
  cmd->add_option("--json", o->json, "Metrics JSON (deterministic: same seed, same bytes)");
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
