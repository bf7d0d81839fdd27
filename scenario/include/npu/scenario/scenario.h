// A multi-tenant scenario as read from configs/scenarios/*.json: the hardware (a config file plus
// `path=value` overrides), the ambient temperature, a seed, a duration, timed events (thermal faults) and
// the apps — each with a uid, an importance timeline, a model, the size class and load priority it asks
// the NPU manager for, its job priority and its workload (periodic frames with a deadline, bursty
// interactive requests, Poisson arrivals, LLM prefill-then-decode sessions, batch background jobs).
// load_scenario() validates strictly: unknown keys, wrong types and out-of-range values are one error
// naming the file and the JSON path. It does not run anything (runner.h does).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"
#include "npu/common/result.h"
#include "npu/mgr/types.h"

namespace npu::scenario {

enum class WorkloadKind { PERIODIC, BURSTY, POISSON, LLM, BATCH };
inline constexpr enums::Entry<WorkloadKind> kWorkloadKindNames[] = {{WorkloadKind::PERIODIC, "periodic"},
                                                                    {WorkloadKind::BURSTY, "bursty"},
                                                                    {WorkloadKind::POISSON, "poisson"},
                                                                    {WorkloadKind::LLM, "llm"},
                                                                    {WorkloadKind::BATCH, "batch"}};
constexpr const auto& enum_table(WorkloadKind) { return kWorkloadKindNames; }
inline const char* to_string(WorkloadKind k) { return enums::to_string(k); }

// How requests arrive. Times in the file are in ms (durations) and s (start/stop).
struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::PERIODIC;
  double start_s = 0;
  double stop_s = -1;      // < 0: the end of the scenario
  double deadline_ms = 0;  // relative to the arrival; 0: none. A periodic frame not started by its
                           // deadline is dropped (counted as missed).
  double period_ms = 0;    // PERIODIC
  double rate_hz = 0;      // POISSON: mean arrivals per second
  double mean_gap_ms = 0;  // BURSTY: mean (exponential) idle time between bursts
  uint32_t burst_min = 1, burst_max = 1;  // BURSTY: requests per burst, uniform in [min, max]
  double burst_spacing_ms = 0;            // BURSTY: time between the requests of a burst
  uint32_t prefill_tokens = 0;            // LLM: prompt length of a session
  // LLM: the prompt runs as jobs of at most this many tokens (chunked prefill, as LLM runtimes do), so
  // one job's command buffers stay within the driver's command-buffer space (see models.h).
  uint32_t prefill_chunk_tokens = 32;
  uint32_t decode_tokens = 0;  // LLM: tokens generated per session, one job each
  double think_ms = 0;         // LLM: pause between sessions
  uint32_t jobs = 0;           // BATCH: jobs in total (0: unlimited)
  double gap_ms = 0;           // BATCH: pause after each job
};

// A decoder-only transformer, for timing-only runs: weights are sizes, never values.
struct DecoderShape {
  uint32_t layers = 0, hidden = 0, ffn = 0, kv_heads_ratio = 1;  // kv width = hidden / ratio (GQA)
  uint32_t vocab = 0;
  uint32_t head_dim = 128;        // attention head width: heads = hidden / head_dim
  uint64_t weight_bytes() const;  // int8 weights
  uint32_t kv_width() const { return hidden / kv_heads_ratio; }
  // int8 K and V cache bytes of every layer for `tokens` tokens of context.
  uint64_t kv_cache_bytes(uint64_t tokens) const { return uint64_t{layers} * 2 * kv_width() * tokens; }
};

// The model an app loads: a named built-in (see models.h) or a decoder of a given shape.
struct ModelSpec {
  std::string name;      // built-in name, or "decoder" for a custom shape
  DecoderShape decoder;  // set for decoder presets and custom shapes
  bool is_decoder() const { return decoder.layers > 0; }
};

struct ImportanceChange {
  double at_s = 0;
  mgr::Importance importance = mgr::Importance::FOREGROUND;
};

struct AppSpec {
  std::string name;
  int uid = 0;
  std::vector<ImportanceChange> importance;  // sorted by time; the first at 0
  ModelSpec model;
  mgr::SizeClass size_class = mgr::SizeClass::LESS_THAN_1GB;
  mgr::LoadPriority load_priority = mgr::LoadPriority::NORMAL;
  int job_priority = 0;  // 0 most urgent … 1000
  WorkloadSpec workload;
  double rerequest_delay_ms = 100;  // after the manager took the model away, ask again this much later
};

// A timed event: for now injected junction power (a failing power gate, thermal runaway).
struct EventSpec {
  double at_s = 0;
  double duration_s = 0;  // 0: until the end
  double watts = 0;
};

struct Scenario {
  std::string path;  // where it was read from (errors, report)
  std::string name, description;
  uint64_t seed = 1;
  double duration_s = 1;
  std::string hardware;                   // hardware config path, resolved against the scenario's folder
  std::vector<std::string> hardware_set;  // `path=value` overrides
  double ambient_c = 25;
  std::string policy = "default";  // baseline run when none is given on the command line
  double sample_ms = 10;           // temperature / frequency sampling for metrics and the report
  std::vector<AppSpec> apps;
  std::vector<EventSpec> events;
};

// Limits of a scenario file, each an error naming it: apps, timed events, and requests the open-loop
// workloads generate over the run (rate x duration, see expected_arrivals); the duration itself is at
// most 3600 s.
inline constexpr size_t kMaxApps = 32;
inline constexpr size_t kMaxEvents = 1000;
inline constexpr double kMaxArrivals = 2'000'000;

// Requests `w` generates in a run of `duration_s`: periodic frames, Poisson arrivals, bursts at most;
// the closed-loop LLM and batch workloads count their fixed job total (0 when open-ended: the NPU's
// speed bounds them).
double expected_arrivals(const WorkloadSpec& w, double duration_s);

// Reads and validates a scenario file.
Result<Scenario> load_scenario(const std::string& path);
// Validates a scenario document; `source` names it in errors, `dir` resolves a relative hardware path.
Result<Scenario> parse_scenario(const nlohmann::json& doc, const std::string& source, const std::string& dir);

}  // namespace npu::scenario
