// Hardware parameters of the simulated NPU. The defaults are the phone-class preset
// (configs/npu/default.json restates them); every parameter is declared once in declare().
// Channels are identical: one `npu.channel.*` block configures them all.
#pragma once

#include <cstdint>
#include <string>

#include "npu/common/config.h"

namespace npu::sim {

struct ChannelConfig {
  uint32_t array_rows = 0;
  uint32_t array_cols = 0;
  std::string compute_core;  // "tlm" | "rtl"
  uint32_t fp32_macs_per_cycle = 0;
  uint32_t vector_lanes = 0;
  uint32_t sram_kib = 0;
  uint32_t dma_bytes_per_cycle = 0;
  uint32_t dma_setup_cycles = 0;
  uint32_t descriptor_fetch_cycles = 0;
};

struct DramConfig {
  double bandwidth_gbps = 0;
  double latency_ns = 0;
  uint32_t size_mib = 0;
  uint32_t arbitration_bytes = 0;
};

struct NpuConfig {
  uint32_t channels = 0;
  double clock_mhz = 0;
  double mmio_access_ns = 0;
  ChannelConfig channel;
  DramConfig dram;

  // Declares every parameter (and sets the defaults) on `schema` under the `npu.` prefix.
  void declare(cfg::Schema& schema);
};

}  // namespace npu::sim
