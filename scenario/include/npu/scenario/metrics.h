// The metrics of the multi-tenant NPU literature (Eyerman & Eeckhout's system-level metrics as PREMA
// uses them), from one shared run and each app's isolated run (the app alone, same policy):
//   NTT  (normalised turnaround time) of a request = shared turnaround / isolated turnaround, where the
//        turnaround is arrival → end and requests are matched by their arrival order (seq);
//        an app's NTT is the mean over its requests completed in both runs;
//   ANTT = mean of the apps' NTTs (lower is better);
//   NP   (normalised progress) of an app = 1 / NTT;  STP = Σ NP (higher is better);
//   fairness = min NP / max NP (1 = every app slowed down equally).
// Plus per app: deadline-miss rate (dropped or late), p50/p99 latency (arrival → end, completed only),
// preemptions, NPU time (busy channel cycles at the nominal clock), energy of its jobs, model loads,
// unloads and load waits; and overall: preemption count and cost, energy, peak junction and skin
// temperature, time at each thermal severity, time throttled (clock below the fastest point).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/scenario/runner.h"

namespace npu::scenario {

struct AppMetrics {
  std::string name;
  int uid = 0;
  uint32_t arrivals = 0, completed = 0, dropped = 0, missed = 0, with_deadline = 0;
  double miss_rate = 0;  // missed / requests with a deadline (0 without deadlines)
  double p50_ms = 0, p99_ms = 0, mean_ms = 0;
  std::optional<double> ntt;  // none when no request completed in both runs
  uint32_t preemptions = 0;
  double npu_s = 0;     // channel-seconds of its jobs
  double loaded_s = 0;  // from the end of its first load to the end of the run
  double energy_j = 0;  // dynamic energy of its jobs
  uint32_t loads = 0, unloads = 0, load_requests = 0;
  double load_wait_ms = 0, load_ms = 0;
  double load_wait_since_promotion_ms = 0;  // see AppRun::load_wait_since_promotion_ns
  uint32_t errors = 0;
};

struct Metrics {
  std::string scenario, policy;
  double duration_s = 0;
  uint32_t channels = 0;
  std::vector<AppMetrics> apps;
  std::optional<double> antt, stp, fairness;
  uint64_t preemptions = 0;
  double preempt_latency_ms = 0;  // Σ time from preempt request to channel free
  double preempt_saved_mib = 0;   // checkpoint save + restore traffic
  double energy_j = 0;
  double peak_junction_c = 0, peak_skin_c = 0;
  std::array<double, 7> severity_s{};
  double throttled_s = 0;
  uint64_t dvfs_changes = 0;

  const AppMetrics* app(const std::string& name) const;
  // NPU time of `name` over the channel time the other apps left free, from the end of its first model
  // load on (the others' NPU time prorated to that window): before it, it could not have run at all.
  double share_of_leftover(const std::string& name) const;
  nlohmann::json to_json() const;
};

// `isolated`: each app's isolated run by uid (may be empty: then no NTT/ANTT/STP/fairness).
Metrics compute_metrics(const RunResult& shared, const std::map<int, RunResult>& isolated);

// One table, a row per policy: ANTT, STP, fairness, per-app miss rate and p99, preemptions, energy,
// peak temperatures, time throttled and the worst severity reached.
std::string comparison_table(const std::vector<Metrics>& runs);
// The per-app table of one run.
std::string app_table(const Metrics& m);

}  // namespace npu::scenario
