#include "npu/sim/power/power_model.h"

#include <cmath>

namespace npu::sim {

PowerModel::PowerModel(const PowerParams& params, stats::Registry& stats, std::string root)
    : params_(params),
      stats_(stats),
      root_(std::move(root)),
      voltage_(params.nominal_v),
      dynamic_total_(stats.value(root_ + ".power.energy.dynamic", "pJ", "Dynamic energy of all components")),
      leakage_total_(stats.value(root_ + ".power.energy.leakage", "pJ", "Leakage energy of the NPU")),
      total_(stats.value(root_ + ".power.energy.total", "pJ", "Dynamic plus leakage energy")),
      voltage_stat_(stats.value(root_ + ".power.voltage_v", "V", "Supply voltage in force")) {
  voltage_stat_ = voltage_;
}

PowerModel::Component PowerModel::component(const std::string& path) {
  if (auto it = by_path_.find(path); it != by_path_.end()) return it->second;
  const std::string e = path + ".energy.";
  Stats s{};
  for (DataType t : {DataType::Int8, DataType::Fp16, DataType::Fp32}) {
    s.mac[static_cast<size_t>(t)] =
        &stats_.value(e + "mac_" + to_string(t), "pJ", std::string("Energy of ") + to_string(t) + " MACs");
  }
  s.sram = &stats_.value(e + "sram", "pJ", "Energy of scratchpad SRAM accesses");
  s.dram = &stats_.value(e + "dram", "pJ", "Energy of DRAM transfers");
  s.dynamic = &stats_.value(e + "dynamic", "pJ", "Dynamic energy of this component");
  components_.push_back(s);
  const Component c = components_.size() - 1;
  by_path_.emplace(path, c);
  return c;
}

void PowerModel::charge(Component c, double* category, double pj) {
  *category += pj;
  *components_[c].dynamic += pj;
  dynamic_total_ += pj;
  total_ += pj;
  interval_pj_ += pj;
}

void PowerModel::add_macs(Component c, DataType type, uint64_t count) {
  charge(c, components_[c].mac[static_cast<size_t>(type)],
         static_cast<double>(count) * params_.mac_pj(type) * scale_);
}

void PowerModel::add_sram_bytes(Component c, uint64_t bytes) {
  charge(c, components_[c].sram, static_cast<double>(bytes) * params_.sram_byte_pj * scale_);
}

void PowerModel::add_dram_bytes(Component c, uint64_t bytes) {
  // The DRAM interface and devices sit on their own supply, which DVFS of the NPU core does not move.
  charge(c, components_[c].dram, static_cast<double>(bytes) * params_.dram_byte_pj);
}

void PowerModel::set_voltage(double volts) {
  voltage_ = volts;
  voltage_stat_ = volts;
  const double r = volts / params_.nominal_v;
  scale_ = r * r;
}

double PowerModel::dynamic_scale() const { return scale_; }

double PowerModel::leakage_w(double temp_c) const {
  // Subthreshold leakage grows exponentially with temperature; over a DVFS range its supply dependence
  // (DIBL) is close to linear in V once multiplied by V for power.
  return params_.leakage_w * (voltage_ / params_.nominal_v) *
         std::exp(params_.leakage_per_c * (temp_c - 25.0));
}

void PowerModel::add_leakage(double seconds, double temp_c) {
  if (seconds <= 0) return;
  const double pj = leakage_w(temp_c) * seconds * 1e12;
  leakage_total_ += pj;
  total_ += pj;
  interval_pj_ += pj;
}

double PowerModel::end_interval(double seconds) {
  if (seconds <= 0) return 0;
  const double watts = interval_pj_ * 1e-12 / seconds;
  interval_pj_ = 0;
  return watts;
}

double PowerModel::component_energy_pj(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? 0.0 : *components_[it->second].dynamic;
}

}  // namespace npu::sim
