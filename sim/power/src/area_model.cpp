#include "npu/sim/power/area_model.h"

#include <vector>

namespace npu::sim {
namespace {

// The derivations, with their sources and arithmetic, are in docs/area.md ("Per-unit figures"); in short:
// - int8 MAC: the TPU v1 matrix unit (Jouppi et al., ISCA 2017: 65,536 MACs, a quarter of a die under
//   331 mm² in 28 nm) gives ≈1,263 µm² per MAC; 28 → 7 nm taken as 8× denser logic → 158 µm².
// - SRAM: high-density bitcells of 0.027 µm² (7 nm, IEDM 2016) and 0.021 µm² (5 nm, IEDM 2019; N3E keeps
//   it); 31.8 Mib/mm² with assist circuits, over a 70 % macro efficiency: 0.360 mm²/MiB.
// - fp32 MAC: a single-precision FMA of 0.045 mm² in 32 nm (Kaul et al., ISSCC 2012), scaled like the
//   MAC (8× from 28 nm, (32/28)² from 32 nm) → 4,307 µm².
// - DMA: a descriptor-based AXI DMA controller of 49.5 kGE (Benz et al., 2024), at 4 transistors per GE
//   and TSMC N7's 91.2 MTr/mm² with 70 % cell utilisation, for 8 B/cycle; ×4 for 32 B/cycle.
// - DRAM PHY: a x16 DDR3-2133 PHY of 1.3 mm² in 40 nm, 80 % IO (the figure and split McPAT uses); the IO
//   does not shrink, the rest scales with feature size squared; per GB/s at the LPDDR rate of the node.
// 7 → 5 → 3 nm logic: the foundry's density claims of 1.8× (N5 over N7) and 1.6× (N3 over N5).
const std::vector<AreaParams>& presets() {
  static const std::vector<AreaParams> kPresets = {
      // node   MAC µm²  SRAM mm²/MiB  fp32 µm²  DMA mm²/32B  PHY mm²/(GB/s)
      {"7nm", 158.0, 0.463, 4307.0, 0.0124, 0.123},
      {"5nm", 88.0, 0.360, 2393.0, 0.0069, 0.0816},
      {"3nm", 55.0, 0.360, 1496.0, 0.0043, 0.0610},
  };
  return kPresets;
}

}  // namespace

std::optional<AreaParams> area_preset(const std::string& node) {
  for (const auto& p : presets())
    if (p.node == node) return p;
  return std::nullopt;
}

void AreaConfig::declare(cfg::Schema& s, const std::string& key_prefix) {
  prefix = key_prefix;
  const std::string preset = "; negative = the preset of npu.power.node (";
  s.f64(prefix + ".int8_mac_um2", &int8_mac_um2, -1, "µm²",
        "Area of one int8 MAC of the systolic array" + preset +
            "7nm 158, 5nm 88, 3nm 55: TPU v1, Jouppi et al. ISCA 2017, scaled; docs/area.md)",
        -1, 1e9);
  s.f64(prefix + ".sram_mm2_per_mib", &sram_mm2_per_mib, -1, "mm²/MiB",
        "Area of a MiB of banked scratchpad SRAM macro" + preset +
            "7nm 0.463, 5nm and 3nm 0.360: published HD bitcells, IEDM 2016/2019/2022; docs/area.md)",
        -1, 1e6);
  s.f64(prefix + ".fp32_mac_um2", &fp32_mac_um2, -1, "µm²",
        "Area of one fp32 MAC of the vector unit" + preset +
            "7nm 4307, 5nm 2393, 3nm 1496: FMA of Kaul et al. ISSCC 2012, scaled; docs/area.md)",
        -1, 1e9);
  s.f64(prefix + ".dma_mm2_per_32b", &dma_mm2_per_32b, -1, "mm²",
        "Area of a DMA engine per 32 B/cycle of its width" + preset +
            "7nm 0.0124, 5nm 0.0069, 3nm 0.0043: DMAC of Benz et al. 2024 in gate equivalents; docs/area.md)",
        -1, 1e6);
  s.f64(prefix + ".dram_phy_mm2_per_gbps", &dram_phy_mm2_per_gbps, -1, "mm²/(GB/s)",
        "Area of DRAM PHY per GB/s of peak bandwidth" + preset +
            "7nm 0.123, 5nm 0.0816, 3nm 0.0610: x16 DDR3 PHY of 1.3 mm² in 40 nm as in McPAT; docs/area.md)",
        -1, 1e6);
}

Result<AreaParams> AreaConfig::resolve(const std::string& node) const {
  auto preset = area_preset(node);
  if (!preset) return make_error("npu.power.node: no area figures for process node \"" + node + "\"");
  AreaParams p = *preset;
  auto take = [](double override_value, double& field) {
    if (override_value >= 0) field = override_value;
  };
  take(int8_mac_um2, p.int8_mac_um2);
  take(sram_mm2_per_mib, p.sram_mm2_per_mib);
  take(fp32_mac_um2, p.fp32_mac_um2);
  take(dma_mm2_per_32b, p.dma_mm2_per_32b);
  take(dram_phy_mm2_per_gbps, p.dram_phy_mm2_per_gbps);
  return p;
}

AreaBreakdown estimate_area(const AreaInputs& d, const AreaParams& p) {
  AreaBreakdown a;
  const double ch = d.channels;
  a.mac_array_mm2 = ch * d.array_rows * d.array_cols * p.int8_mac_um2 * 1e-6;
  a.sram_mm2 = ch * (d.sram_kib / 1024.0) * p.sram_mm2_per_mib;
  a.vector_mm2 = ch * d.fp32_macs_per_cycle * p.fp32_mac_um2 * 1e-6;
  a.dma_mm2 = ch * 2 * (d.dma_bytes_per_cycle / 32.0) * p.dma_mm2_per_32b;  // dma_in and dma_out
  a.dram_phy_mm2 = d.dram_bandwidth_gbps * p.dram_phy_mm2_per_gbps;
  return a;
}

}  // namespace npu::sim
