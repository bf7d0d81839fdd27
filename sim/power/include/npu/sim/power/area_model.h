// Silicon area of an NPU design from its configuration: the MAC arrays, the scratchpad SRAM banks, the
// vector units and DMA engines of every channel, and the DRAM PHY. Per-unit figures come from a
// process-node preset (`npu.power.node`: the same node the power model uses), each overridable under
// `npu.area.*`. docs/area.md cites the published figures the presets derive from and shows the
// arithmetic for the shipped configs.
//
// What it is for: comparing designs in a sweep (mm² beside joules and seconds). What it is not: a
// floorplan. It leaves out the command processor, interconnect, clocking, test logic and whitespace,
// which a real die adds on top; figures are ballpark, not sign-off.
#pragma once

#include <optional>
#include <string>

#include "npu/common/config.h"
#include "npu/common/result.h"

namespace npu::sim {

// Per-unit area figures of one process node.
struct AreaParams {
  std::string node;
  double int8_mac_um2 = 0;           // µm² per int8 MAC of the systolic array (with its pipeline registers)
  double sram_mm2_per_mib = 0;       // mm² per MiB of banked scratchpad SRAM macro (array + periphery)
  double fp32_mac_um2 = 0;           // µm² per fp32 MAC (fused multiply-add) of the vector unit
  double dma_mm2_per_32b = 0;        // mm² of a DMA engine per 32 B/cycle of its width
  double dram_phy_mm2_per_gbps = 0;  // mm² of DRAM PHY per GB/s of peak bandwidth (IO-bound: hardly scales)
};

std::optional<AreaParams> area_preset(const std::string& node);

// The `npu.area.*` overrides. As with the power figures, cfg::Schema cannot tell "set" from "left at
// default", so each override defaults to -1 and any negative value means "the node preset's figure".
struct AreaConfig {
  double int8_mac_um2 = -1;
  double sram_mm2_per_mib = -1;
  double fp32_mac_um2 = -1;
  double dma_mm2_per_32b = -1;
  double dram_phy_mm2_per_gbps = -1;
  std::string prefix = "npu.area";  // set by declare(), names keys in errors

  void declare(cfg::Schema& schema, const std::string& key_prefix = "npu.area");
  // The preset of `node` with every non-negative override applied.
  Result<AreaParams> resolve(const std::string& node) const;
};

// What the estimate needs from a design (plain numbers, so it needs no NpuConfig).
struct AreaInputs {
  unsigned channels = 0;
  unsigned array_rows = 0, array_cols = 0;
  unsigned sram_kib = 0;             // per channel
  unsigned fp32_macs_per_cycle = 0;  // per channel's vector unit
  unsigned dma_bytes_per_cycle = 0;  // per DMA engine; a channel has two (in, out)
  double dram_bandwidth_gbps = 0;
};

struct AreaBreakdown {
  double mac_array_mm2 = 0, sram_mm2 = 0, vector_mm2 = 0, dma_mm2 = 0, dram_phy_mm2 = 0;
  double total_mm2() const { return mac_array_mm2 + sram_mm2 + vector_mm2 + dma_mm2 + dram_phy_mm2; }
};

AreaBreakdown estimate_area(const AreaInputs& design, const AreaParams& params);

}  // namespace npu::sim
