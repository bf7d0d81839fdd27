#include "npu/sim/power/area_model.h"

#include <vector>

namespace npu::sim {
namespace {

// The derivations, with their sources, are in docs/area.md ("Per-unit figures"); in short:
// - int8 MAC: the TPU v1 matrix unit (65,536 MACs, a quarter of a die under 331 mm² in 28 nm) gives
//   ≈1,260 µm² per MAC; 28 → 7 nm taken as 8× denser logic → 158 µm²; 5 nm 1.8× denser than 7 nm, 3 nm
//   1.6× denser than 5 nm (the foundry's logic-density claims).
// - SRAM: high-density bitcells of 0.027 µm² (7 nm) and 0.021 µm² (5 nm and 3 nm/N3E: no shrink); at
//   the 31.8 Mib/mm² reported for N3E with assist circuits, a MiB of bits is 0.252 mm², over a 70 %
//   macro efficiency 0.36 mm²/MiB; 7 nm scales by the bitcell ratio.
// - fp32 vector MAC ≈ 8 int8 MACs; DMA engine and DRAM PHY: stated assumptions (docs/area.md).
const std::vector<AreaParams>& presets() {
  static const std::vector<AreaParams> kPresets = {
      // node   MAC µm²  SRAM mm²/MiB  fp32 µm²  DMA mm²/32B  PHY mm²/(GB/s)
      {"7nm", 158.0, 0.463, 1264.0, 0.020, 0.070},
      {"5nm", 88.0, 0.360, 704.0, 0.012, 0.066},
      {"3nm", 55.0, 0.360, 440.0, 0.008, 0.063},
  };
  return kPresets;
}

}  // namespace

std::optional<AreaParams> area_preset(const std::string& node) {
  for (const auto& p : presets())
    if (p.node == node) return p;
  return std::nullopt;
}

AreaBreakdown estimate_area(const AreaInputs& d, const AreaParams& p) {
  AreaBreakdown a;
  const double ch = d.channels;
  a.mac_array_mm2 = ch * d.array_rows * d.array_cols * p.int8_mac_um2 * 1e-6;
  a.sram_mm2 = ch * (d.sram_kib / 1024.0) * p.sram_mm2_per_mib;
  a.vector_mm2 = ch * d.fp32_macs_per_cycle * p.fp32_lane_um2 * 1e-6;
  a.dma_mm2 = ch * 2 * (d.dma_bytes_per_cycle / 32.0) * p.dma_mm2_per_32b;  // dma_in and dma_out
  a.dram_phy_mm2 = d.dram_bandwidth_gbps * p.dram_phy_mm2_per_gbps;
  return a;
}

}  // namespace npu::sim
