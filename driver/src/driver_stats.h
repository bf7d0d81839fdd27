// The driver's statistics, registered once under `driver.` (see Driver::set_stats).
#pragma once

#include <array>
#include <cstdint>

#include "npu/common/stats.h"
#include "npu/drv/driver.h"

namespace npu::drv {

struct DriverStats {
  explicit DriverStats(stats::Registry& r);

  uint64_t& jobs_submitted;
  uint64_t& jobs_completed;
  uint64_t& jobs_failed;
  uint64_t& jobs_cancelled;
  uint64_t& submits_refused;
  uint64_t& work_paused;
  uint64_t& work_resumed;
  uint64_t& preemptions;
  uint64_t& checkpoints;
  uint64_t& kills;
  uint64_t& drains;
  uint64_t& resumes;
  double& preempt_latency_ns_total;
  double& preempt_latency_ns_max;
  uint64_t& save_bytes;
  uint64_t& restore_bytes;
  double& killed_work_ns;
  uint64_t& hangs;
  uint64_t& hang_retries;
  uint64_t& channel_resets;
  uint64_t& channel_errors;
  // channel_errors by ChannelError code: DMA fault, SRAM ECC, and the rest (bad descriptor, SRAM overflow).
  uint64_t& dma_faults;
  uint64_t& sram_ecc_errors;
  uint64_t& other_channel_errors;
  uint64_t& dvfs_changes;
  uint64_t& thermal_shutdowns;
  std::array<double*, 7> severity_ns;  // time spent at each ThermalSeverity
};

}  // namespace npu::drv
