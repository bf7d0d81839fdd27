#include "npu/sim/power/thermal_monitor.h"

#include <stdexcept>

namespace npu::sim {
namespace {

ThermalRc build_rc(const ThermalConfig& cfg) {
  auto rc = ThermalRc::from_config(cfg);
  if (!rc) throw std::invalid_argument(rc.error());
  return std::move(rc).value();
}

ThermalSensor build_sensor(const ThermalConfig& cfg) {
  auto s = ThermalSensor::from_config(cfg);
  if (!s) throw std::invalid_argument(cfg.prefix + ".trips: " + s.error());
  return std::move(s).value();
}

}  // namespace

ThermalMonitor::ThermalMonitor(sc_core::sc_module_name name, const ThermalConfig& cfg, PowerModel& power,
                               stats::Registry& stats)
    : sc_module(name),
      power_(power),
      rc_(build_rc(cfg)),
      sensor_(build_sensor(cfg)),
      period_(cfg.sample_period_us, sc_core::SC_US),
      power_w_(stats.value(std::string(this->name()) + ".power_w", "W",
                           "Average junction power over the last sample period, injected power included")),
      injected_stat_(stats.value(std::string(this->name()) + ".injected_w", "W", "Fault power injected")),
      max_junction_c_(stats.value(std::string(this->name()) + ".max_junction_c", "°C",
                                  "Highest junction temperature sampled")),
      samples_(stats.counter(std::string(this->name()) + ".samples", "", "Sensor samples taken")) {
  if (period_ == sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument(cfg.prefix + ".sample_period_us: below the simulation time resolution");
  }
  const std::string base = this->name();
  static constexpr const char* kNodes[] = {"junction", "package", "skin"};
  for (size_t i = 0; i < rc_.size(); ++i) {
    double& t = stats.value(base + "." + kNodes[i] + ".temp_c", "°C",
                            std::string("Temperature of the ") + kNodes[i] + " node at the last sample");
    t = rc_.temperature_c(i);
    node_temp_c_.push_back(&t);
  }
  max_junction_c_ = rc_.junction_c();
  for (size_t i = 0; i < sensor_.num_trips(); ++i) {
    trip_raised_.push_back(&stats.counter(base + ".trips." + sensor_.trip(i).name + ".raised", "",
                                          "Upward crossings of trip point " + sensor_.trip(i).name));
  }
  SC_HAS_PROCESS(ThermalMonitor);
  SC_METHOD(tick);
}

void ThermalMonitor::inject_thermal_runaway(double extra_watts) {
  injected_w_ = extra_watts;
  injected_stat_ = extra_watts;
}

void ThermalMonitor::tick() {
  // The first activation is SystemC's initialisation at time 0: it only starts the sampling clock.
  if (started_) sample();
  started_ = true;
  last_sample_ = sc_core::sc_time_stamp();
  if (running_) next_trigger(period_);
}

void ThermalMonitor::sample() {
  const double dt = (sc_core::sc_time_stamp() - last_sample_).to_seconds();
  // Leakage at the temperature the period started at: the RC step is exact for the power it is given,
  // and the leakage-temperature feedback is resolved at the sample period.
  power_.add_leakage(dt, rc_.junction_c());
  power_w_ = power_.end_interval(dt) + injected_w_;
  rc_.step(dt, power_w_);
  ++samples_;
  for (size_t i = 0; i < node_temp_c_.size(); ++i) *node_temp_c_[i] = rc_.temperature_c(i);
  if (rc_.junction_c() > max_junction_c_) max_junction_c_ = rc_.junction_c();

  const uint32_t raised = sensor_.update(rc_.junction_c());
  if (raised != 0) {
    for (size_t i = 0; i < trip_raised_.size(); ++i) {
      if (raised & (1u << i)) ++*trip_raised_[i];
    }
    trip_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace npu::sim
