// Helpers shared by the scenario tests: the shipped scenario files and runs of them (each simulation in
// a forked child: SystemC cannot restart).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "npu/scenario/metrics.h"
#include "npu/scenario/runner.h"

namespace npu::scenario {

inline Scenario shipped(const std::string& name) {
  auto s = load_scenario(std::string(NPUSIM_SOURCE_DIR "/configs/scenarios/") + name + ".json");
  EXPECT_TRUE(s.ok()) << s.error();
  return s.ok() ? *s : Scenario{};
}

// One run; every app must have run without errors.
inline RunResult run_checked(const Scenario& s, const RunOptions& o) {
  auto r = run_forked(s, o);
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return {};
  for (const auto& a : r->apps) EXPECT_TRUE(a.errors.empty()) << a.name << ": " << a.errors.front();
  return *r;
}

// The shared run only (no ANTT/STP/fairness).
inline Metrics run_shared(const Scenario& s, const std::string& policy, double scale,
                          bool scale_thermal = false) {
  RunOptions o;
  o.policy = policy;
  o.duration_scale = scale;
  o.scale_thermal = scale_thermal;
  return compute_metrics(run_checked(s, o), {});
}

// The shared run and each app's isolated run, as `npusim scenario` does.
inline Metrics run_with_isolated(const Scenario& s, const std::string& policy, double scale) {
  RunOptions o;
  o.policy = policy;
  o.duration_scale = scale;
  const RunResult shared = run_checked(s, o);
  std::map<int, RunResult> isolated;
  for (const auto& app : s.apps) {
    RunOptions io = o;
    io.only_uid = app.uid;
    isolated.emplace(app.uid, run_checked(s, io));
  }
  return compute_metrics(shared, isolated);
}

}  // namespace npu::scenario
