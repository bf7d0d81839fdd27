// Simulation speed of multi-tenant scenarios: one shared run per scenario (the main policy, no isolated
// runs), each in a child process (SystemC cannot restart). Prints simulated seconds, wall seconds,
// simulated seconds per wall second, and the work simulated (driver jobs, NPU channel-seconds).
// Wall-clock figures are machine-dependent: a benchmark, never a test.
//
//   scenario_bench                          every file in configs/scenarios, at --scale 1
//   scenario_bench [--scale X] [--policy P] [--set k=v ...] [FILE ...]
// --set overrides a hardware parameter after each scenario's own (e.g. npu.timing.mode=fast).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <systemc>
#include <vector>

#include "npu/scenario/runner.h"
#include "npu/scenario/scenario.h"

namespace {

using Clock = std::chrono::steady_clock;

int usage() {
  std::fprintf(stderr, "usage: scenario_bench [--scale X] [--policy P] [--set k=v ...] [FILE ...]\n");
  return 2;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  using namespace npu::scenario;
  std::vector<std::string> files, sets;
  RunOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--scale" && i + 1 < argc) {
      options.duration_scale = std::atof(argv[++i]);
      if (!(options.duration_scale > 0)) return usage();
    } else if (arg == "--policy" && i + 1 < argc) {
      options.policy = argv[++i];
    } else if (arg == "--set" && i + 1 < argc) {
      sets.push_back(argv[++i]);
    } else if (!arg.empty() && arg[0] == '-') {
      return usage();
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(NPUSIM_SOURCE_DIR "/configs/scenarios"))
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  }
  std::printf("%-18s %-8s %10s %10s %12s %8s %10s\n", "scenario", "policy", "sim s", "wall s", "sim s/wall s",
              "jobs", "NPU ch-s");
  int status = 0;
  for (const auto& file : files) {
    auto sc = load_scenario(file);
    if (!sc) {
      std::fprintf(stderr, "scenario_bench: %s\n", sc.error().c_str());
      status = 1;
      continue;
    }
    sc->hardware_set.insert(sc->hardware_set.end(), sets.begin(), sets.end());
    const auto t0 = Clock::now();
    auto run = run_forked(*sc, options);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!run) {
      std::fprintf(stderr, "scenario_bench: %s: %s\n", file.c_str(), run.error().c_str());
      status = 1;
      continue;
    }
    uint64_t jobs = 0, cycles = 0;
    for (const auto& app : run->apps) {
      jobs += app.jobs.size();
      cycles += app.device_cycles;
    }
    const double sim = run->duration_s;
    std::printf("%-18s %-8s %10.2f %10.2f %12.2f %8llu %10.2f\n", sc->name.c_str(), run->policy.c_str(), sim,
                wall, sim / wall, static_cast<unsigned long long>(jobs), cycles / (run->clock_mhz * 1e6));
  }
  return status;
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
