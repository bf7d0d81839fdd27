// PowerConfig presets and overrides, and PowerModel's energy accounting.
#include "npu/sim/power/power_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "npu/common/config.h"
#include "npu/common/stats.h"
#include "npu/sim/power/power_config.h"

namespace npu::sim {
namespace {

PowerParams round_numbers() {
  PowerParams p;
  p.node = "test";
  p.nominal_v = 0.8;
  p.int8_mac_pj = 0.1;
  p.fp16_mac_pj = 0.5;
  p.fp32_mac_pj = 2.0;
  p.sram_byte_pj = 1.0;
  p.dram_byte_pj = 10.0;
  p.leakage_w = 0.05;
  p.leakage_per_c = 0.02;
  return p;
}

double stat(const stats::Registry& r, const std::string& path) {
  const double* v = r.find_value(path);
  EXPECT_NE(v, nullptr) << path;
  return v ? *v : NAN;
}

TEST(PowerConfig, PresetIsChosenByName) {
  cfg::Schema s;
  PowerConfig c;
  c.declare(s);
  ASSERT_TRUE(s.set("npu.power.node=5nm"));
  auto p = c.resolve();
  ASSERT_TRUE(p) << p.error();
  const auto five = *node_preset("5nm");
  EXPECT_EQ(p->node, "5nm");
  EXPECT_EQ(p->int8_mac_pj, five.int8_mac_pj);
  EXPECT_EQ(p->dram_byte_pj, five.dram_byte_pj);
  EXPECT_EQ(p->leakage_w, five.leakage_w);
  // Newer nodes spend less per action.
  const auto seven = *node_preset("7nm"), three = *node_preset("3nm");
  EXPECT_LT(three.int8_mac_pj, five.int8_mac_pj);
  EXPECT_LT(five.int8_mac_pj, seven.int8_mac_pj);
  EXPECT_LT(seven.int8_mac_pj, seven.fp16_mac_pj);
  EXPECT_LT(seven.fp16_mac_pj, seven.fp32_mac_pj);
}

TEST(PowerConfig, DefaultIsTheSevenNanometrePreset) {
  cfg::Schema s;
  PowerConfig c;
  c.declare(s);
  auto p = c.resolve();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->node, "7nm");
  EXPECT_EQ(p->fp32_mac_pj, node_preset("7nm")->fp32_mac_pj);
}

TEST(PowerConfig, OverrideReplacesOnlyItsOwnValue) {
  cfg::Schema s;
  PowerConfig c;
  c.declare(s);
  ASSERT_TRUE(
      s.apply(nlohmann::json::parse(R"({"npu": {"power": {"node": "3nm", "int8_mac_pj": 0.2}}})"), "t"));
  auto p = c.resolve();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->int8_mac_pj, 0.2);
  EXPECT_EQ(p->fp16_mac_pj, node_preset("3nm")->fp16_mac_pj);
}

TEST(PowerConfig, ZeroIsALegalOverride) {
  cfg::Schema s;
  PowerConfig c;
  c.declare(s);
  ASSERT_TRUE(s.set("npu.power.leakage_w=0"));
  auto p = c.resolve();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->leakage_w, 0.0);
}

TEST(PowerConfig, UnknownNodeAndBadValuesAreRejected) {
  cfg::Schema s;
  PowerConfig c;
  c.declare(s);
  auto r = s.set("npu.power.node=4nm");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("\"7nm\""), std::string::npos) << r.error();
  EXPECT_FALSE(s.set("npu.power.int8_mac_pj=-5"));
  ASSERT_TRUE(s.set("npu.power.nominal_v=0"));
  auto p = c.resolve();
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().find("npu.power.nominal_v"), std::string::npos);
}

TEST(PowerConfig, ExplainListsEveryBlock) {
  cfg::Schema s;
  PowerThermalConfig c;
  c.declare(s);
  const std::string e = s.explain();
  for (const char* key : {"npu.power.node", "npu.power.leakage_per_c", "npu.thermal.skin.resistance_k_per_w",
                          "npu.thermal.sample_period_us", "npu.thermal.trips.critical.hysteresis_c",
                          "npu.dvfs.opp3.voltage_v", "npu.dvfs.transition_us"}) {
    EXPECT_NE(e.find(key), std::string::npos) << key;
  }
}

TEST(PowerModel, ChargesEachActionToItsComponentAndCategory) {
  stats::Registry r;
  PowerModel m(round_numbers(), r);
  m.add_macs("npu.ch0", DataType::Int8, 1000);  // 1000 × 0.1 pJ = 100 pJ
  m.add_macs("npu.ch0", DataType::Fp32, 10);    // 10 × 2 pJ = 20 pJ
  m.add_dram_bytes("npu.ch0", 4);               // 4 × 10 pJ = 40 pJ
  m.add_sram_bytes("npu.ch1", 50);              // 50 × 1 pJ = 50 pJ
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.mac_int8"), 100);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.mac_fp32"), 20);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.mac_fp16"), 0);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.dram"), 40);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.dynamic"), 160);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch1.energy.sram"), 50);
  EXPECT_DOUBLE_EQ(stat(r, "npu.power.energy.dynamic"), 210);
  EXPECT_DOUBLE_EQ(stat(r, "npu.power.energy.total"), 210);
  EXPECT_DOUBLE_EQ(m.component_energy_pj("npu.ch1"), 50);
  EXPECT_EQ(m.component_energy_pj("npu.ch7"), 0);
  // The stats carry their unit.
  EXPECT_EQ(r.to_json(true)["npu"]["ch0"]["energy"]["dram"]["unit"], "pJ");
}

TEST(PowerModel, HandleAndPathNameTheSameComponent) {
  stats::Registry r;
  PowerModel m(round_numbers(), r);
  const auto h = m.component("npu.ch0");
  EXPECT_EQ(m.component("npu.ch0"), h);
  m.add_macs(h, DataType::Fp16, 2);          // 1 pJ
  m.add_macs("npu.ch0", DataType::Fp16, 2);  // 1 pJ
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.mac_fp16"), 2);
}

TEST(PowerModel, DynamicEnergyScalesWithVoltageSquaredButDramDoesNot) {
  stats::Registry r;
  PowerModel m(round_numbers(), r);
  m.set_voltage(0.4);  // (0.4 / 0.8)² = 0.25
  EXPECT_DOUBLE_EQ(m.dynamic_scale(), 0.25);
  m.add_macs("npu.ch0", DataType::Int8, 1000);  // 100 pJ × 0.25 = 25 pJ
  m.add_sram_bytes("npu.ch0", 8);               // 8 pJ × 0.25 = 2 pJ
  m.add_dram_bytes("npu.ch0", 1);               // 10 pJ, DRAM rail unscaled
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.mac_int8"), 25);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.sram"), 2);
  EXPECT_DOUBLE_EQ(stat(r, "npu.ch0.energy.dram"), 10);
  EXPECT_DOUBLE_EQ(stat(r, "npu.power.voltage_v"), 0.4);
}

TEST(PowerModel, LeakageFollowsTemperatureExponentiallyAndVoltageLinearly) {
  stats::Registry r;
  PowerModel m(round_numbers(), r);
  EXPECT_DOUBLE_EQ(m.leakage_w(25), 0.05);
  // 0.05 W · exp(0.02 · 35) = 0.05 · e^0.7
  EXPECT_NEAR(m.leakage_w(60), 0.05 * std::exp(0.7), 1e-15);
  m.set_voltage(0.4);
  EXPECT_DOUBLE_EQ(m.leakage_w(25), 0.025);
}

TEST(PowerModel, AveragePowerOfAnInterval) {
  stats::Registry r;
  PowerModel m(round_numbers(), r);
  // 1e9 int8 MACs × 0.1 pJ = 1e8 pJ = 100 µJ; leakage 0.05 W × 1 ms = 50 µJ. Over 1 ms: 0.15 W.
  m.add_macs("npu.ch0", DataType::Int8, 1'000'000'000);
  m.add_leakage(1e-3, 25);
  EXPECT_DOUBLE_EQ(m.interval_energy_pj(), 1.5e8);
  EXPECT_NEAR(m.end_interval(1e-3), 0.15, 1e-12);
  // The next interval starts empty; totals keep everything.
  EXPECT_EQ(m.end_interval(1e-3), 0.0);
  EXPECT_DOUBLE_EQ(stat(r, "npu.power.energy.leakage"), 5e7);
  EXPECT_DOUBLE_EQ(m.total_energy_pj(), 1.5e8);
  // A zero-length interval reports nothing and keeps the energy for the next one.
  m.add_sram_bytes("npu.ch0", 1);
  EXPECT_EQ(m.end_interval(0), 0.0);
  EXPECT_DOUBLE_EQ(m.interval_energy_pj(), 1.0);
}

}  // namespace
}  // namespace npu::sim
