#include "npu/sweep/area.h"

namespace npu::sweep {

sim::AreaBreakdown design_area(const system::SystemConfig& cfg) {
  const auto& n = cfg.npu;
  const auto params = n.area.resolve(n.power.node);
  if (!params) return {};
  sim::AreaInputs in;
  in.channels = n.channels;
  in.array_rows = n.channel.array_rows;
  in.array_cols = n.channel.array_cols;
  in.sram_kib = n.channel.sram_kib;
  in.fp32_macs_per_cycle = n.channel.fp32_macs_per_cycle;
  in.dma_bytes_per_cycle = n.channel.dma_bytes_per_cycle;
  in.dram_bandwidth_gbps = n.dram.bandwidth_gbps;
  return sim::estimate_area(in, *params);
}

}  // namespace npu::sweep
