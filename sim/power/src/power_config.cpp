#include "npu/sim/power/power_config.h"

#include <cmath>
#include <sstream>

namespace npu::sim {
namespace {

// Where the preset numbers come from (ballpark figures for architecture exploration, not sign-off):
// - Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, 45 nm at 0.9 V:
//   8b int multiply 0.2 pJ, 32b int add 0.1 pJ, fp16 multiply 1.1 pJ, fp32 add 0.9 pJ, fp32 multiply
//   3.7 pJ, 64-bit read of a 32 KB SRAM 20 pJ (2.5 pJ/B). A MAC is multiply + accumulator add at
//   accumulator width: int8 0.3 pJ, fp16 (fp32 accumulate) 2.0 pJ, fp32 4.6 pJ.
// - 45 nm → 7 nm: about 5× less energy per logic operation at nominal voltage (Stillmaker & Baas,
//   "Scaling equations for the accurate prediction of CMOS device performance from 180 nm to 7 nm",
//   Integration 58, 2017); SRAM energy, dominated by bitlines, scales less: about 3×.
// - A systolic array spends about half again the arithmetic energy on pipeline registers and operand
//   wires, so MAC figures carry a 1.5× factor.
// - 7 → 5 → 3 nm: foundry iso-performance power claims of about −30 % per node for logic (TSMC N5 vs N7,
//   N3E vs N5), about −15 % for SRAM.
// - DRAM per byte (PHY + device, read/write average): LPDDR4X ≈ 5 pJ/bit, LPDDR5 ≈ 4 pJ/bit, LPDDR5X
//   ≈ 3.5 pJ/bit, the memory a phone SoC of that node pairs with.
// - Leakage: tens of mW for a phone-class NPU at 25 °C; it roughly doubles every 28 °C
//   (k = ln 2 / 28 ≈ 0.025 /°C).
const std::vector<PowerParams>& presets() {
  static const std::vector<PowerParams> kPresets = {
      //   node  Vnom   int8   fp16  fp32  sram  dram   leak   k
      {"7nm", 0.75, 0.090, 0.60, 1.40, 0.75, 40.0, 0.060, 0.025},
      {"5nm", 0.72, 0.065, 0.42, 1.00, 0.64, 32.0, 0.050, 0.025},
      {"3nm", 0.70, 0.045, 0.30, 0.70, 0.55, 28.0, 0.045, 0.025},
  };
  return kPresets;
}

std::string trip_key(const std::string& prefix, size_t i, const char* leaf) {
  return prefix + ".trips." + ThermalConfig::kTripNames[i] + "." + leaf;
}

}  // namespace

double PowerParams::mac_pj(DataType t) const {
  switch (t) {
    case DataType::Int8:
      return int8_mac_pj;
    case DataType::Fp16:
      return fp16_mac_pj;
    case DataType::Fp32:
      return fp32_mac_pj;
  }
  return 0;
}

std::optional<PowerParams> node_preset(const std::string& node) {
  for (const auto& p : presets()) {
    if (p.node == node) return p;
  }
  return std::nullopt;
}

const std::vector<std::string>& node_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> n;
    for (const auto& p : presets()) n.push_back(p.node);
    return n;
  }();
  return kNames;
}

void PowerConfig::declare(cfg::Schema& s, const std::string& key_prefix) {
  prefix = key_prefix;
  const std::string preset = "; negative = the preset of " + prefix + ".node";
  s.choice(prefix + ".node", &node, "7nm", node_names(),
           "Process-node preset supplying every energy and leakage figure below");
  s.f64(prefix + ".nominal_v", &nominal_v, -1, "V",
        "Voltage the per-action energies are characterised at" + preset, -1, 5);
  s.f64(prefix + ".int8_mac_pj", &int8_mac_pj, -1, "pJ", "Energy per int8 MAC at nominal voltage" + preset,
        -1, 1e6);
  s.f64(prefix + ".fp16_mac_pj", &fp16_mac_pj, -1, "pJ", "Energy per fp16 MAC at nominal voltage" + preset,
        -1, 1e6);
  s.f64(prefix + ".fp32_mac_pj", &fp32_mac_pj, -1, "pJ", "Energy per fp32 MAC at nominal voltage" + preset,
        -1, 1e6);
  s.f64(prefix + ".sram_byte_pj", &sram_byte_pj, -1, "pJ",
        "Energy per scratchpad SRAM byte read or written at nominal voltage" + preset, -1, 1e6);
  s.f64(prefix + ".dram_byte_pj", &dram_byte_pj, -1, "pJ",
        "Energy per byte moved to or from DRAM (not voltage-scaled: DRAM has its own rail)" + preset, -1,
        1e6);
  s.f64(prefix + ".leakage_w", &leakage_w, -1, "W",
        "Leakage power of the NPU at nominal voltage and 25 °C" + preset, -1, 1e3);
  s.f64(prefix + ".leakage_per_c", &leakage_per_c, -1, "1/°C",
        "Temperature coefficient k of leakage ∝ exp(k·(T − 25 °C))" + preset, -1, 1);
}

Result<PowerParams> PowerConfig::resolve() const {
  auto preset = node_preset(node);
  if (!preset) return make_error(prefix + ".node: unknown process node \"" + node + "\"");
  PowerParams p = *preset;
  auto take = [](double override_value, double& field) {
    if (override_value >= 0) field = override_value;
  };
  take(nominal_v, p.nominal_v);
  take(int8_mac_pj, p.int8_mac_pj);
  take(fp16_mac_pj, p.fp16_mac_pj);
  take(fp32_mac_pj, p.fp32_mac_pj);
  take(sram_byte_pj, p.sram_byte_pj);
  take(dram_byte_pj, p.dram_byte_pj);
  take(leakage_w, p.leakage_w);
  take(leakage_per_c, p.leakage_per_c);
  // Voltage scaling divides by the nominal voltage.
  if (!(p.nominal_v > 0)) return make_error(prefix + ".nominal_v: must be > 0 V");
  return p;
}

void ThermalConfig::declare(cfg::Schema& s, const std::string& key_prefix) {
  prefix = key_prefix;
  // Phone-class defaults: a small die hot spot (τ ≈ 0.1 s), the package and board (τ ≈ tens of s) and
  // the device skin (τ ≈ minutes); junction-to-ambient 15 K/W in total.
  s.f64(prefix + ".ambient_c", &ambient_c, 25.0, "°C", "Ambient temperature (also the initial temperature)",
        -60, 150);
  s.f64(prefix + ".junction.capacity_j_per_k", &junction.capacity_j_per_k, 0.03, "J/K",
        "Heat capacity of the NPU junction (die hot spot)", 1e-9, 1e9);
  s.f64(prefix + ".junction.resistance_k_per_w", &junction.resistance_k_per_w, 4.0, "K/W",
        "Thermal resistance junction → package", 1e-9, 1e9);
  s.f64(prefix + ".package.capacity_j_per_k", &package.capacity_j_per_k, 3.0, "J/K",
        "Heat capacity of the package and nearby board", 1e-9, 1e9);
  s.f64(prefix + ".package.resistance_k_per_w", &package.resistance_k_per_w, 6.0, "K/W",
        "Thermal resistance package → skin", 1e-9, 1e9);
  s.f64(prefix + ".skin.capacity_j_per_k", &skin.capacity_j_per_k, 60.0, "J/K",
        "Heat capacity of the device skin (chassis, battery)", 1e-9, 1e9);
  s.f64(prefix + ".skin.resistance_k_per_w", &skin.resistance_k_per_w, 5.0, "K/W",
        "Thermal resistance skin → ambient", 1e-9, 1e9);
  s.f64(prefix + ".sample_period_us", &sample_period_us, 1000.0, "µs",
        "Thermal sensor sample period; the RC model is stepped with the average power of each period", 1,
        1e9);
  constexpr std::array<double, 4> kTemps = {65, 75, 85, 95};
  for (size_t i = 0; i < trips.size(); ++i) {
    const std::string name = ThermalConfig::kTripNames[i];
    s.f64(trip_key(prefix, i, "temp_c"), &trips[i].temp_c, kTemps[i], "°C",
          "Trip point " + name + ": interrupt when the junction reaches this temperature", -60, 300);
    s.f64(trip_key(prefix, i, "hysteresis_c"), &trips[i].hysteresis_c, 2.0, "°C",
          "Trip point " + name + ": re-armed only below temp_c minus this", 0, 100);
  }
}

void DvfsConfig::declare(cfg::Schema& s, const std::string& key_prefix) {
  prefix = key_prefix;
  // A 7 nm V/f curve; with another node preset, restate the voltages.
  constexpr std::array<OperatingPoint, 4> kDefaults = {{{1000, 0.75}, {800, 0.68}, {600, 0.62}, {400, 0.55}}};
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string key = prefix + ".opp" + std::to_string(i);
    const std::string which = i == 0 ? " (the fastest point)" : "";
    s.f64(key + ".mhz", &points[i].mhz, kDefaults[i].mhz, "MHz",
          "Operating point " + std::to_string(i) + " core clock" + which, 1, 10000);
    s.f64(key + ".voltage_v", &points[i].voltage_v, kDefaults[i].voltage_v, "V",
          "Operating point " + std::to_string(i) + " supply voltage", 0.1, 5);
  }
  s.f64(prefix + ".transition_us", &transition_us, 50.0, "µs",
        "Time from an operating-point request until the new clock and voltage apply (PLL relock, rail ramp)",
        0, 1e6);
  s.u32(prefix + ".initial_point", &initial_point, 0, "", "Operating point at reset", 0,
        static_cast<uint32_t>(points.size() - 1));
}

Result<void> DvfsConfig::validate() const {
  for (size_t i = 1; i < points.size(); ++i) {
    const std::string key = prefix + ".opp" + std::to_string(i);
    if (!(points[i].mhz < points[i - 1].mhz)) {
      std::ostringstream m;
      m << key << ".mhz: " << points[i].mhz << " MHz must be below opp" << i - 1 << "'s " << points[i - 1].mhz
        << " MHz (opp0 is the fastest point)";
      return make_error(m.str());
    }
    if (points[i].voltage_v > points[i - 1].voltage_v) {
      std::ostringstream m;
      m << key << ".voltage_v: " << points[i].voltage_v << " V must not exceed opp" << i - 1 << "'s "
        << points[i - 1].voltage_v << " V";
      return make_error(m.str());
    }
  }
  if (initial_point >= points.size()) return make_error(prefix + ".initial_point: out of range");
  return {};
}

}  // namespace npu::sim
