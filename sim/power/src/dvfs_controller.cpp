#include "npu/sim/power/dvfs_controller.h"

#include <stdexcept>

namespace npu::sim {
namespace {

const DvfsConfig& validated(const DvfsConfig& cfg) {
  if (auto r = cfg.validate(); !r) throw std::invalid_argument(r.error());
  return cfg;
}

}  // namespace

DvfsController::DvfsController(sc_core::sc_module_name name, const DvfsConfig& cfg, ClockDomain& clock,
                               PowerModel& power, stats::Registry& stats)
    : sc_module(name),
      points_(validated(cfg).points.begin(), cfg.points.end()),
      clock_(clock),
      power_(power),
      latency_(cfg.transition_us, sc_core::SC_US),
      transitions_(
          stats.counter(std::string(this->name()) + ".transitions", "", "Operating-point changes applied")),
      mhz_(stats.value(std::string(this->name()) + ".mhz", "MHz", "Core clock of the point in force")),
      voltage_v_(stats.value(std::string(this->name()) + ".voltage_v", "V",
                             "Supply voltage of the point in force")) {
  for (size_t i = 0; i < points_.size(); ++i) {
    residency_ns_.push_back(
        &stats.value(std::string(this->name()) + ".opp" + std::to_string(i) + ".residency_ns", "ns",
                     "Time spent at operating point " + std::to_string(i)));
  }
  current_ = cfg.initial_point;
  clock_.set_mhz(points_[current_].mhz);
  power_.set_voltage(points_[current_].voltage_v);
  mhz_ = points_[current_].mhz;
  voltage_v_ = points_[current_].voltage_v;
  since_ = sc_core::sc_time_stamp();

  SC_HAS_PROCESS(DvfsController);
  SC_METHOD(apply_pending);
  sensitive << apply_event_;
  dont_initialize();
}

Result<void> DvfsController::set_operating_point(size_t index) {
  if (index >= points_.size()) {
    return make_error(std::string(name()) + ": no operating point " + std::to_string(index) + " (" +
                      std::to_string(points_.size()) + " points)");
  }
  apply_event_.cancel();
  pending_.reset();
  if (index == current_) return {};
  if (latency_ == sc_core::SC_ZERO_TIME) {
    apply(index);
    return {};
  }
  pending_ = index;
  apply_event_.notify(latency_);
  return {};
}

void DvfsController::apply_pending() {
  if (!pending_) return;
  const size_t index = *pending_;
  pending_.reset();
  apply(index);
}

void DvfsController::apply(size_t index) {
  update_stats();
  current_ = index;
  clock_.set_mhz(points_[index].mhz);
  power_.set_voltage(points_[index].voltage_v);
  mhz_ = points_[index].mhz;
  voltage_v_ = points_[index].voltage_v;
  ++transitions_;
  changed_.notify(sc_core::SC_ZERO_TIME);
  if (on_change_) on_change_(index);
}

void DvfsController::update_stats() {
  const sc_core::sc_time& now = sc_core::sc_time_stamp();
  *residency_ns_[current_] += (now - since_).to_seconds() * 1e9;
  since_ = now;
}

}  // namespace npu::sim
