// Runs a scenario: one SystemC simulation of the whole platform (apps → NPU manager → scheduling HAL →
// driver → NPU) under one baseline, and what it measured, per request, per app and over time.
// A SystemC kernel cannot be restarted, so a process runs at most one simulation: run_in_process()
// builds it in this process (tests, the child side), run_forked() in a fresh child process (fork) and
// brings the result back as JSON — the runner uses that for the comparison and for the isolated runs
// (each app alone) that ANTT/STP/fairness need.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/scenario/scenario.h"

namespace npu::scenario {

// One request (a camera frame, an assistant query, an LLM session, a batch job) of one app.
struct RequestRecord {
  uint32_t seq = 0;  // arrival order within the app (matches between shared and isolated runs)
  uint64_t arrival_ns = 0, start_ns = 0, end_ns = 0;
  uint64_t deadline_ns = 0;  // absolute; 0: none
  bool dropped = false;      // never started (its deadline passed first)
  bool missed = false;       // dropped or ended after its deadline
  uint32_t jobs = 0;         // driver jobs (an LLM session: prefill + one per token)
  uint32_t preemptions = 0;
  uint64_t device_cycles = 0, energy_pj = 0;
};

struct Span {
  uint64_t start_ns = 0, end_ns = 0;
  std::string what;
};

struct AppRun {
  std::string name;
  int uid = 0;
  std::string priority;                 // "<importance at start>/<job priority>": the tail-latency group
  std::vector<RequestRecord> requests;  // completed or dropped, in arrival order
  uint32_t arrivals = 0;                // requests that arrived before the end
  uint32_t load_requests = 0, loads = 0, unloads = 0;
  uint32_t approvals = 0;  // CAN_LOAD_NOW received (a load that then failed counts here, not in loads)
  // Σ request → CAN_LOAD_NOW (a request still waiting when the run ends: up to the end).
  uint64_t load_wait_ns = 0;
  // The same waits, each counted from the later of the request and the app's last promotion (its
  // importance rising, e.g. CACHED → FOREGROUND) before the grant: the part the manager kept an app
  // waiting at the importance it had when granted; waiting while it was less important is its own.
  uint64_t load_wait_since_promotion_ns = 0;
  uint64_t load_ns = 0;          // Σ time copying weights in
  uint64_t device_cycles = 0;    // Σ busy channel cycles of all its jobs (finished requests or not)
  uint64_t energy_pj = 0;        // Σ dynamic energy of all its jobs
  uint32_t preemptions = 0;      // Σ over all its jobs
  std::vector<Span> resident;    // loaded → unloaded (or the end)
  uint64_t first_loaded_ns = 0;  // end of the first load (0: never loaded)
  std::vector<Span> jobs;        // each driver job: submit → end
  // Failed loads, submissions or jobs, in order, each with what failed and why (should stay empty).
  std::vector<std::string> errors;
};

struct Sample {
  uint64_t t_ns = 0;
  double junction_c = 0, skin_c = 0, mhz = 0, power_w = 0;
  int severity = 0;  // drv::ThermalSeverity
};

struct ChannelSpan {
  uint32_t channel = 0;
  uint64_t start_ns = 0, end_ns = 0;
  int uid = 0;
};

struct RunResult {
  std::string scenario, policy;
  int only_uid = -1;  // ≥ 0: an isolated run of that app alone
  double duration_s = 0;
  uint32_t channels = 0;
  double clock_mhz = 0;    // at reset (the initial operating point): converts busy cycles to time
  double fastest_mhz = 0;  // the fastest operating point: below it the clock counts as throttled
  std::vector<std::pair<std::string, double>>
      trip_points_c;  // thermal trip points (name, °C), for the report
  std::vector<AppRun> apps;
  std::vector<Sample> samples;
  std::vector<ChannelSpan> channel_spans;  // which app's work ran on which channel (channel_timeline)
  uint64_t preemptions = 0;
  uint64_t preempt_latency_ns = 0, preempt_saved_bytes = 0, killed_work = 0;
  double energy_j = 0;
  double peak_junction_c = 0, peak_skin_c = 0;
  std::array<double, 7> severity_s{};  // time at each drv::ThermalSeverity
  uint64_t dvfs_changes = 0;
  nlohmann::json to_json() const;
  static Result<RunResult> from_json(const nlohmann::json& j);
};

struct RunOptions {
  std::string policy;              // baseline name; empty: the scenario's
  int only_uid = -1;               // ≥ 0: run only that app (isolated time)
  std::string trace_path;          // Perfetto trace of this run; empty: none
  nlohmann::json trace_metadata;   // the trace file's "metadata" (which npusim wrote it); null: none
  bool channel_timeline = false;   // record which app ran on which channel (the driver's trace)
  bool trace_descriptors = false;  // the trace also gets the NPU's per-descriptor engine spans (large)
  // Multiplies every point in time of the scenario (duration, start/stop, importance changes, events);
  // periods, rates and deadlines stay. CI keeps tests short with it.
  double duration_scale = 1;
  // Also multiplies the package and skin heat capacities by duration_scale, so that a scaled run heats
  // up as far as the full one (see runner.cpp).
  bool scale_thermal = false;
  // Called at each thermal sample with the simulated fraction done (0..1), inside the simulation (in the
  // forked child for run_forked): for a progress line only; it must not touch the simulation.
  std::function<void(double)> on_progress;
};

// Runs in this process (at most once per process: SystemC).
Result<RunResult> run_in_process(const Scenario& scenario, const RunOptions& options);
// Runs in a forked child process and returns its result.
Result<RunResult> run_forked(const Scenario& scenario, const RunOptions& options);

}  // namespace npu::scenario
