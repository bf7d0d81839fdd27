// Fault soak: several client contexts of different priorities run a small quantised model back to back
// on the NPU device while faults strike at random (seeded): hangs, DMA errors, SRAM ECC errors on a
// random channel's next command buffer, and thermal runaways (three times npu.faults.thermal_runaway_w of
// extra junction power for 20-100 ms, 100 ms apart at least). At the end every client releases its models
// and closes its context. Simulated time only: the same options give the same counters.
// What is checked (soak_violations): every job ended exactly once and the driver's totals add up, every
// execution's callback ran once with OK or GENERAL_FAILURE, every completed execution equals the CPU
// reference, every fault that struck a channel was found (hangs by the watchdog, errors by the interrupt
// handler) and failed its job only when it should, each kind was injected, and nothing is left alive:
// contexts, buffer objects, unsignalled fences, device memory beyond the driver's own.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::mlts {

struct SoakOptions {
  double simulated_s = 0.2;  // how long the clients keep submitting
  uint64_t seed = 1;
  uint32_t tenants = 4;            // client contexts, priorities HIGH, MEDIUM, LOW in turn
  double fault_interval_us = 300;  // mean time between injected faults (exponential)
  std::string hw;                  // hardware config JSON
  std::vector<std::string> sets;   // overrides path=value
};

struct SoakCounters {
  // Executions (HAL) by the clients.
  uint64_t executions = 0, executions_ok = 0, executions_failed = 0;
  uint64_t callbacks_missing = 0, callbacks_repeated = 0;  // each execution must report exactly once
  uint64_t failed_with_wrong_status = 0;                   // a failure other than GENERAL_FAILURE
  uint64_t output_mismatches = 0;                          // completed, but not the CPU reference's answer
  // Driver jobs: submitted = completed + failed + cancelled, each ended exactly once.
  uint64_t jobs_submitted = 0, jobs_completed = 0, jobs_failed = 0, jobs_cancelled = 0, submits_refused = 0;
  uint64_t jobs_not_ended_once = 0;  // jobs whose terminal WorkInfo event came other than once
  // Faults armed by kind, faults that struck a channel, and what the driver found.
  std::map<std::string, uint64_t> faults_injected;  // hang, dma_error, sram_ecc, thermal_runaway
  uint64_t faults_struck = 0;                       // Σ npu.chN.faults_injected
  uint64_t hangs_detected = 0, hang_retries = 0, channel_resets = 0, dma_faults = 0, sram_ecc_errors = 0;
  uint64_t thermal_shutdowns = 0, dvfs_changes = 0;
  uint32_t channels = 1;
  // Alive after every client closed its context.
  uint64_t live_contexts = 0, live_bos = 0, unsignalled_fences = 0, leaked_bytes = 0;
  double simulated_end_s = 0;
};

// Runs the soak in this process (it builds the process's one System).
Result<SoakCounters> run_soak(const SoakOptions& options);

// The invariants above that do not hold, one line each; empty when the soak passed.
std::vector<std::string> soak_violations(const SoakCounters& c);

nlohmann::json soak_json(const SoakCounters& c);
// The counters as an aligned text block.
std::string soak_table(const SoakCounters& c);

}  // namespace npu::mlts
