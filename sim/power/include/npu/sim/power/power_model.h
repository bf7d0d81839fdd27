// Energy accounting of the NPU: components report actions (MACs by data type, SRAM bytes, DRAM bytes)
// under their component path ("npu.ch0"); the model charges each at the resolved per-action energy,
// scaled by (V / V_nominal)² for the supply voltage in force when the action is reported. Leakage of the
// whole NPU is integrated over intervals the caller gives, at
//     P_leak(T, V) = leakage_w · (V / V_nominal) · exp(leakage_per_c · (T − 25 °C)).
// The energy reported since the last end_interval() divided by the interval is the average power the
// thermal model is stepped with, so an action is attributed to the interval in which it is reported:
// a component should report long actions when they end, or split them.
//
// Stats (pJ), for a component path p and the model root r (default "npu"):
//   p.energy.{mac_int8, mac_fp16, mac_fp32, sram, dram, dynamic}
//   r.power.energy.{dynamic, leakage, total}, r.power.voltage_v
// Not modelled: clock-tree and idle dynamic power (fold them into leakage_w), glitch power, data-dependent
// switching activity, DRAM refresh and background power, voltage dependence of DRAM energy (its own rail).
// Not a SystemC module: it holds no time; the caller passes interval lengths.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "npu/common/stats.h"
#include "npu/sim/power/power_config.h"

namespace npu::sim {

class PowerModel {
 public:
  // A registered component, to skip the path lookup on hot paths.
  using Component = size_t;

  PowerModel(const PowerParams& params, stats::Registry& stats, std::string root = "npu");

  // Registers `path`'s stats on first use; the same handle afterwards.
  Component component(const std::string& path);

  void add_macs(Component c, DataType type, uint64_t count);
  void add_sram_bytes(Component c, uint64_t bytes);
  void add_dram_bytes(Component c, uint64_t bytes);
  void add_macs(const std::string& path, DataType type, uint64_t count) {
    add_macs(component(path), type, count);
  }
  void add_sram_bytes(const std::string& path, uint64_t bytes) { add_sram_bytes(component(path), bytes); }
  void add_dram_bytes(const std::string& path, uint64_t bytes) { add_dram_bytes(component(path), bytes); }

  // Supply voltage for actions reported from now on and for leakage (the DVFS controller sets it).
  void set_voltage(double volts);
  double voltage() const { return voltage_; }
  // (V / V_nominal)²: the factor on every per-action energy.
  double dynamic_scale() const;

  // Leakage power at `temp_c` and the present voltage.
  double leakage_w(double temp_c) const;
  // Charges leakage_w(temp_c) over `seconds` (the caller picks the temperature of the interval).
  void add_leakage(double seconds, double temp_c);

  // Average power in W of everything reported since the previous call (or construction), taken over
  // `seconds`; starts the next interval. Returns 0 for a non-positive interval and keeps the energy.
  double end_interval(double seconds);
  double interval_energy_pj() const { return interval_pj_; }

  double dynamic_energy_pj() const { return dynamic_total_; }
  double leakage_energy_pj() const { return leakage_total_; }
  double total_energy_pj() const { return total_; }
  // Dynamic energy of one component (0 if it never reported).
  double component_energy_pj(const std::string& path) const;

  const PowerParams& params() const { return params_; }

 private:
  struct Stats {
    double* mac[3];
    double* sram;
    double* dram;
    double* dynamic;
  };
  void charge(Component c, double* category, double nominal_pj);

  PowerParams params_;
  stats::Registry& stats_;
  std::string root_;
  double voltage_;
  double scale_ = 1.0;
  std::unordered_map<std::string, Component> by_path_;
  std::vector<Stats> components_;
  double interval_pj_ = 0;
  double& dynamic_total_;
  double& leakage_total_;
  double& total_;
  double& voltage_stat_;
};

}  // namespace npu::sim
