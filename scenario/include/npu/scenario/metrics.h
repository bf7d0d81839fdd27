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
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "npu/scenario/runner.h"

namespace npu::scenario {

struct AppMetrics {
  std::string name;
  int uid = 0;
  uint32_t arrivals = 0, completed = 0, dropped = 0, missed = 0, with_deadline = 0;
  double miss_rate = 0;  // missed / requests with a deadline (0 without deadlines)
  double p50_ms = 0, p99_ms = 0, mean_ms = 0;
  std::optional<double> ntt;         // none when no request completed in both runs
  std::string priority;              // "<importance>/<job priority>" (its tail-latency group)
  double energy_per_request_mj = 0;  // energy_j / completed requests (0 without any)
  uint32_t preemptions = 0;
  double npu_s = 0;     // channel-seconds of its jobs
  double loaded_s = 0;  // from the end of its first load to the end of the run
  double energy_j = 0;  // dynamic energy of its jobs
  uint32_t loads = 0, unloads = 0, load_requests = 0;
  double load_wait_ms = 0, load_ms = 0;
  double load_wait_since_promotion_ms = 0;  // see AppRun::load_wait_since_promotion_ns
  uint32_t approvals = 0;                   // CAN_LOAD_NOW received
  uint32_t errors = 0;                      // failed loads, submissions or jobs
  std::string first_error;                  // the first of them, as the app recorded it ("" without)
};

// Latency of the completed requests of every app in one priority group ("<importance>/<job priority>").
struct PriorityTail {
  std::string priority;
  uint32_t completed = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

struct Metrics {
  std::string scenario, policy;
  double duration_s = 0;
  uint32_t channels = 0;
  std::vector<AppMetrics> apps;
  std::optional<double> antt, stp, fairness;
  // PREMA's SLA satisfaction: of the requests that completed in their app's isolated run, the fraction
  // that also completed in the shared run within sla_factor × their isolated turnaround (a request
  // dropped or never finished in the shared run fails it). None without isolated runs.
  double sla_factor = 4;
  std::optional<double> sla_satisfaction;
  std::vector<PriorityTail> tails;     // by priority group, most urgent importance first
  double energy_per_inference_mj = 0;  // NPU energy of the run / requests completed (all apps)
  double killed_work_ms = 0;           // channel time thrown away by kills
  double preempt_overhead_ms = 0;      // preempt_latency_ms + killed_work_ms
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

// `isolated`: each app's isolated run by uid (may be empty: then no NTT/ANTT/STP/fairness/SLA).
// `sla_factor`: N of the SLA satisfaction rate (a request meets its SLA within N × its isolated time).
Metrics compute_metrics(const RunResult& shared, const std::map<int, RunResult>& isolated,
                        double sla_factor = 4);

// Apps that were approved to load but completed no request, with failures recorded (a load, submission or
// execution that failed): one line each naming the app, the policy and the first error. A scenario run
// with any such app is broken, not slow — `npusim scenario` exits non-zero. An app that simply ran out
// of time (a long LLM session still running at the end) has no errors and is not listed.
std::vector<std::string> unserved_apps(const Metrics& m);

// One table, a row per policy: ANTT, STP, fairness, per-app miss rate and p99, preemptions, energy,
// peak temperatures, time throttled and the worst severity reached.
std::string comparison_table(const std::vector<Metrics>& runs);
// The per-app table of one run.
std::string app_table(const Metrics& m);

}  // namespace npu::scenario
