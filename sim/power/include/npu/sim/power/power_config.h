// Parameters of the NPU's power, thermal and DVFS models, each declared once on a cfg::Schema.
//
// Power (`npu.power.*`): a process-node preset chosen by name supplies every energy and leakage figure;
// each figure also has an override key. cfg::Schema cannot tell "set" from "left at default", so an
// override's default is -1 and any negative value means "the preset's value" (0 is a legal override,
// e.g. leakage off). resolve() turns node + overrides into the effective PowerParams.
// Thermal (`npu.thermal.*`): the junction → package → skin → ambient RC chain, the sensor's sample period
// and four trip points (light, moderate, severe, critical) with hysteresis.
// DVFS (`npu.dvfs.*`): a schema holds no arrays, so the operating-point table is a fixed set of four
// points opp0..opp3 (opp0 the fastest), plus the transition latency and the point used at reset.
//
// Not modelled here: per-block voltage domains, body bias, process corners, DRAM background power.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/config.h"
#include "npu/common/enum_table.h"
#include "npu/common/result.h"

namespace npu::sim {

// Operand type of a multiply-accumulate, for energy accounting.
enum class DataType { Int8, Fp16, Fp32 };
inline constexpr enums::Entry<DataType> kDataTypeNames[] = {
    {DataType::Int8, "int8"}, {DataType::Fp16, "fp16"}, {DataType::Fp32, "fp32"}};
constexpr const auto& enum_table(DataType) { return kDataTypeNames; }
inline const char* to_string(DataType t) { return enums::to_string(t); }

// Effective energy and leakage figures of one NPU at its process node's nominal voltage.
struct PowerParams {
  std::string node;          // "7nm" | "5nm" | "3nm"
  double nominal_v = 0;      // V: the voltage the per-action energies are characterised at
  double int8_mac_pj = 0;    // pJ per int8×int8→int32 MAC, incl. array-local operand movement
  double fp16_mac_pj = 0;    // pJ per fp16 MAC (fp32 accumulate)
  double fp32_mac_pj = 0;    // pJ per fp32 MAC
  double sram_byte_pj = 0;   // pJ per byte read or written in the scratchpad
  double dram_byte_pj = 0;   // pJ per byte moved to/from DRAM (PHY + device, LPDDR class)
  double leakage_w = 0;      // W of the whole NPU at nominal voltage and 25 °C
  double leakage_per_c = 0;  // 1/°C: leakage ∝ exp(leakage_per_c · (T − 25 °C))

  double mac_pj(DataType t) const;
};

// The built-in preset of a node, or nullopt for an unknown name.
std::optional<PowerParams> node_preset(const std::string& node);
const std::vector<std::string>& node_names();

struct PowerConfig {
  std::string node;
  // Overrides: negative = the preset's value.
  double nominal_v = -1;
  double int8_mac_pj = -1;
  double fp16_mac_pj = -1;
  double fp32_mac_pj = -1;
  double sram_byte_pj = -1;
  double dram_byte_pj = -1;
  double leakage_w = -1;
  double leakage_per_c = -1;
  std::string prefix = "npu.power";  // set by declare(), names keys in errors

  void declare(cfg::Schema& schema, const std::string& key_prefix = "npu.power");
  // The preset of `node` with every non-negative override applied.
  Result<PowerParams> resolve() const;
};

struct ThermalNodeConfig {
  double capacity_j_per_k = 0;    // heat capacity of the node
  double resistance_k_per_w = 0;  // to the next node outward (the last node: to ambient)
};

struct TripConfig {
  double temp_c = 0;        // raised when the sensor reads ≥ temp_c
  double hysteresis_c = 0;  // re-armed when the sensor reads < temp_c − hysteresis_c
};

struct ThermalConfig {
  double ambient_c = 0;
  ThermalNodeConfig junction, package, skin;
  double sample_period_us = 0;
  // In severity order; names as in kTripNames.
  std::array<TripConfig, 4> trips{};

  std::string prefix = "npu.thermal";  // set by declare(), names keys in errors

  static constexpr std::array<const char*, 4> kTripNames = {"light", "moderate", "severe", "critical"};

  void declare(cfg::Schema& schema, const std::string& key_prefix = "npu.thermal");
};

struct OperatingPoint {
  double mhz = 0;
  double voltage_v = 0;
};

struct DvfsConfig {
  // opp0 is the fastest; frequencies strictly decrease and voltages do not increase with the index.
  std::array<OperatingPoint, 4> points{};
  double transition_us = 0;
  uint32_t initial_point = 0;
  std::string prefix = "npu.dvfs";  // set by declare(), names keys in errors

  void declare(cfg::Schema& schema, const std::string& key_prefix = "npu.dvfs");
  // The ordering rules above, with the offending key in the message.
  Result<void> validate() const;
};

// All three blocks under their usual prefixes, for a platform config that wants them together.
struct PowerThermalConfig {
  PowerConfig power;
  ThermalConfig thermal;
  DvfsConfig dvfs;
  void declare(cfg::Schema& schema) {
    power.declare(schema);
    thermal.declare(schema);
    dvfs.declare(schema);
  }
};

}  // namespace npu::sim
