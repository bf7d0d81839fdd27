// `npusim stress [--cases a,b] [--scale X] [--soak S] [--out DIR]`: MLTS-style crash and stress tests
// (npu::mlts, stress.h). Each case is this same executable run again with the hidden `--child CASE`, under
// a wall-time watchdog; the parent classifies it SUCCESS, FAILURE, HANG or CRASH and exits 1 unless every
// case is SUCCESS.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "command.h"
#include "npu/common/file_io.h"
#include "npu/common/interrupt.h"
#include "npu/common/version.h"
#include "npu/mlts/stress.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/tools/progress.h"
#include "npu/tools/run_directory.h"

namespace npusim {
namespace {

struct StressCli {
  npu::mlts::StressOptions options;
  std::vector<std::string> cases;
  double timeout_s = 300;
  double soak_s = -1;  // --soak given: the soak's simulated seconds
  std::string out_dir;
  bool list = false;
  std::string child;  // hidden: run this one case in this process
};

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

// The child: one case in this process, its report as JSON on stdout; 0 when every check held.
int run_child_case(const StressCli& c) {
  auto r = npu::mlts::run_stress_case(c.child, c.options);
  if (!r) return fail("stress " + c.child + ": " + r.error());
  std::printf("%s\n", r->to_json().dump().c_str());
  std::fflush(stdout);
  return r->passed() ? 0 : 1;
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

int run_stress(StressCli c) {
  // The soak's length follows --scale unless --soak gives it.
  c.options.soak_s = c.soak_s >= 0 ? c.soak_s : c.options.soak_s * c.options.scale;
  if (!c.child.empty()) return run_child_case(c);
  const bool with_tests = npu::mlts::stress_test_cases_enabled();
  const auto known = npu::mlts::stress_cases(with_tests);
  if (c.list) {
    for (const auto& k : known) std::printf("%-22s %s\n", k.name.c_str(), k.description.c_str());
    return 0;
  }
  std::vector<std::string> selected = c.cases;
  if (selected.empty())
    for (const auto& k : known)
      if (!k.test_only) selected.push_back(k.name);
  std::set<std::string> seen;
  for (const auto& name : selected) {
    bool found = false;
    for (const auto& k : known) found |= k.name == name;
    if (!found) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k.name;
      return fail("--cases: no stress case is named \"" + name + "\" (" + names + ")");
    }
    if (!seen.insert(name).second) return fail("--cases: \"" + name + "\" is listed twice");
  }
  // A bad config would fail every child the same way: one error here instead.
  if (auto cfg = npu::system::load_system_config(c.options.hw, c.options.sets); !cfg)
    return fail(cfg.error());
  // --out: written beside the folder and moved in whole at the end (tools/run_directory.h).
  std::optional<npu::tools::StagedDirectory> dir;
  if (!c.out_dir.empty()) {
    auto staged = npu::tools::StagedDirectory::create(c.out_dir, {"report.html", "summary.json"});
    if (!staged) return fail(staged.error());
    dir.emplace(std::move(*staged));
  }
  const std::string self = self_executable();
  if (self.empty()) return fail("stress: cannot find this executable (/proc/self/exe)");

  npu::mlts::StressRun run;
  run.options = c.options;
  run.timeout_s = c.timeout_s;
  const auto t0 = std::chrono::steady_clock::now();
  // Ctrl-C: the running case is killed, nothing is written, exit 130.
  npu::install_stop_handlers();
  npu::tools::Progress progress("stress", static_cast<uint32_t>(selected.size()));
  for (size_t i = 0; i < selected.size(); ++i) {
    progress.step(static_cast<uint32_t>(i + 1), selected[i]);
    char scale[32], soak[32];
    std::snprintf(scale, sizeof scale, "%.17g", c.options.scale);
    std::snprintf(soak, sizeof soak, "%.17g", c.options.soak_s);
    std::vector<std::string> argv = {self,      "stress", "--child", selected[i],
                                     "--scale", scale,    "--seed",  std::to_string(c.options.seed),
                                     "--soak",  soak,     "--hw",    c.options.hw};
    for (const auto& s : c.options.sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    const auto child = npu::mlts::run_child(argv, c.timeout_s);
    if (npu::stop_requested()) {
      std::fprintf(stderr, "npusim: stress: interrupted during %s (nothing written)\n", selected[i].c_str());
      return 130;
    }
    run.cases.push_back(npu::mlts::classify(selected[i], child, c.timeout_s));
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fputs(npu::mlts::stress_table(run).c_str(), stdout);
  if (dir) {
    nlohmann::json j = npu::mlts::stress_json(run);
    j[npu::kBuildKey] = npu::build_json();
    if (auto w = npu::io::write_file_atomic(dir->staged("summary.json"), j.dump(2) + "\n"); !w)
      return fail(w.error());
    if (auto w = npu::io::write_file_atomic(dir->staged("report.html"), npu::mlts::stress_html(run)); !w)
      return fail(w.error());
    if (auto w = dir->commit(); !w) return fail(w.error());
    std::printf("  report written to %s (and summary.json)\n",
                dir->shown(dir->staged("report.html")).c_str());
  }
  return run.all_success() ? 0 : 1;
}

}  // namespace

Subcommand register_stress_command(CLI::App& app) {
  auto c = std::make_shared<StressCli>();
  c->options.hw = npu::tools::default_hw_config();
  auto* cmd = app.add_subcommand(
      "stress",
      "MLTS-style crash and stress tests, each case in a child process under a watchdog: SUCCESS, FAILURE, "
      "HANG or CRASH (exit 1 unless all SUCCESS)");
  cmd->add_option("--cases", c->cases, "Cases to run, comma-separated (default: all; --list names them)")
      ->delimiter(',');
  cmd->add_flag("--list", c->list, "List the cases and exit");
  cmd->add_option("--scale", c->options.scale,
                  "Multiply every case's iteration counts (0.05 for a quick run)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1000.0));
  cmd->add_option("--seed", c->options.seed, "Seed of models, inputs and faults")->capture_default_str();
  cmd->add_option(
         "--soak", c->soak_s,
         "Simulated seconds of the soak case (default 0.5 x --scale); `--cases soak --soak 5` runs it alone")
      ->check(CLI::Range(1e-4, 1e5));
  cmd->add_option("--timeout", c->timeout_s, "Wall-time limit of each case in seconds: beyond it, HANG")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1e6));
  cmd->add_option("--hw", c->options.hw, "Hardware config JSON")->capture_default_str();
  cmd->add_option("--set", c->options.sets, "Override a hardware parameter: path=value (repeatable)");
  cmd->add_option("--out", c->out_dir, "Folder for report.html and summary.json");
  cmd->add_option("--child", c->child, "")->group("");  // hidden: the child side of one case
  return {cmd, [c] { return run_stress(*c); }};
}

}  // namespace npusim
