#include "npu/sim/power/thermal_monitor.h"

#include <algorithm>
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
    const std::string& trip = sensor_.trip(i).name;
    trip_raised_.push_back(
        &stats.counter(base + ".trips." + trip + ".raised", "", "Upward crossings of trip point " + trip));
    trip_time_above_s_.push_back(
        &stats.value(base + ".trips." + trip + ".time_above_s", "s",
                     "Time the junction was sampled at or above trip point " + trip));
  }
  auto extremes = [&](const std::string& node, double initial) {
    Extremes e{
        &stats.value(base + "." + node + ".min_c", "°C", "Lowest " + node + " temperature sampled"),
        &stats.value(base + "." + node + ".max_c", "°C", "Highest " + node + " temperature sampled"),
        &stats.value(base + "." + node + ".mean_c", "°C", "Time-weighted mean " + node + " temperature")};
    *e.min = *e.max = *e.mean = initial;
    return e;
  };
  junction_ = extremes("junction", rc_.junction_c());
  skin_ = extremes("skin", rc_.temperature_c(rc_.size() - 1));
  SC_HAS_PROCESS(ThermalMonitor);
  SC_METHOD(tick);
  sensitive << wake_event_;
}

void ThermalMonitor::record(Extremes& e, double temp_c, double dt) {
  *e.min = std::min(*e.min, temp_c);
  *e.max = std::max(*e.max, temp_c);
  *e.mean = sampled_s_ > 0 ? *e.mean + (temp_c - *e.mean) * dt / sampled_s_ : temp_c;
}

void ThermalMonitor::wake() {
  if (!paused_) return;
  paused_ = false;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (last_sample_ + period_ <= now) {
    last_sample_ += period_;
    sample(last_sample_, period_.to_seconds());
  }
  wake_event_.notify(last_sample_ + period_ - now);
}

void ThermalMonitor::finish() {
  wake();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now > last_sample_) {
    sample(now, (now - last_sample_).to_seconds());
    last_sample_ = now;
  }
  running_ = false;
  paused_ = true;
}

void ThermalMonitor::inject_thermal_runaway(double extra_watts) {
  wake();
  injected_w_ = extra_watts;
  injected_stat_ = extra_watts;
}

void ThermalMonitor::tick() {
  // The first activation is SystemC's initialisation at time 0: it only starts the sampling clock.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (started_) sample(now, (now - last_sample_).to_seconds());
  started_ = true;
  last_sample_ = now;
  if (!running_) return;
  if (idle_ && idle_() && sensor_.tripped() == 0 && injected_w_ == 0) {
    paused_ = true;  // static sensitivity (wake_event_) applies until wake()
    return;
  }
  next_trigger(period_);
}

void ThermalMonitor::sample(const sc_core::sc_time& at, double dt) {
  // Leakage at the temperature the period started at: the RC step is exact for the power it is given,
  // and the leakage-temperature feedback is resolved at the sample period.
  power_.add_leakage(dt, rc_.junction_c());
  power_w_ = power_.end_interval(dt) + injected_w_;
  rc_.step(dt, power_w_);
  ++samples_;
  for (size_t i = 0; i < node_temp_c_.size(); ++i) *node_temp_c_[i] = rc_.temperature_c(i);
  if (rc_.junction_c() > max_junction_c_) max_junction_c_ = rc_.junction_c();
  sampled_s_ += dt;
  record(junction_, rc_.junction_c(), dt);
  record(skin_, rc_.temperature_c(rc_.size() - 1), dt);
  for (size_t i = 0; i < trip_time_above_s_.size(); ++i) {
    if (rc_.junction_c() * 1000.0 >= sensor_.trip(i).threshold_mc) *trip_time_above_s_[i] += dt;
  }

  const uint32_t raised = sensor_.update(rc_.junction_c());
  if (raised != 0) {
    for (size_t i = 0; i < trip_raised_.size(); ++i) {
      if (raised & (1u << i)) ++*trip_raised_[i];
    }
    trip_event_.notify(sc_core::SC_ZERO_TIME);
  }
  if (on_sample_) on_sample_(at);
}

}  // namespace npu::sim
