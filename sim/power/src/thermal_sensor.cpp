#include "npu/sim/power/thermal_sensor.h"

#include <cmath>
#include <limits>

namespace npu::sim {
namespace {

int32_t to_mc(double celsius) {
  const double mc = std::round(celsius * 1000.0);
  // A register saturates rather than wraps.
  if (mc >= static_cast<double>(std::numeric_limits<int32_t>::max()))
    return std::numeric_limits<int32_t>::max();
  if (mc <= static_cast<double>(std::numeric_limits<int32_t>::min()))
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(mc);
}

Result<void> check_hysteresis(const std::string& name, int32_t hysteresis_mc) {
  if (hysteresis_mc < 0) {
    return make_error("trip " + name + ": hysteresis must be ≥ 0, got " + std::to_string(hysteresis_mc) +
                      " m°C");
  }
  return {};
}

}  // namespace

Result<ThermalSensor> ThermalSensor::create(std::vector<TripPoint> trips) {
  if (trips.size() > kMaxTrips) {
    return make_error("thermal sensor: " + std::to_string(trips.size()) + " trip points, at most " +
                      std::to_string(kMaxTrips));
  }
  for (const auto& t : trips) {
    if (auto r = check_hysteresis(t.name, t.hysteresis_mc); !r) return make_error(r.error());
  }
  return ThermalSensor(std::move(trips));
}

Result<ThermalSensor> ThermalSensor::from_config(const ThermalConfig& cfg) {
  std::vector<TripPoint> trips;
  for (size_t i = 0; i < cfg.trips.size(); ++i) {
    trips.push_back(
        {ThermalConfig::kTripNames[i], to_mc(cfg.trips[i].temp_c), to_mc(cfg.trips[i].hysteresis_c)});
  }
  auto s = create(std::move(trips));
  // The register reads ambient before the first sample; trips are evaluated from the first sample on, so
  // a device that starts hot still interrupts once a handler can be listening.
  if (s) s->temp_mc_ = to_mc(cfg.ambient_c);
  return s;
}

ThermalSensor::ThermalSensor(std::vector<TripPoint> trips)
    : trips_(std::move(trips)), raised_(trips_.size(), 0) {}

uint32_t ThermalSensor::update(double temp_c) {
  temp_mc_ = to_mc(temp_c);
  uint32_t raised = 0;
  for (size_t i = 0; i < trips_.size(); ++i) {
    const uint32_t bit = 1u << i;
    const TripPoint& t = trips_[i];
    if (tripped_ & bit) {
      // 64-bit: threshold − hysteresis may leave the int32 range.
      if (static_cast<int64_t>(temp_mc_) < static_cast<int64_t>(t.threshold_mc) - t.hysteresis_mc) {
        tripped_ &= ~bit;
        rearm_pending_ |= bit;
      }
    } else if (temp_mc_ >= t.threshold_mc) {
      tripped_ |= bit;
      pending_ |= bit;
      raised |= bit;
      ++raised_[i];
    }
  }
  // Callbacks after the whole register state is updated, so a handler sees a consistent snapshot.
  if (on_trip_) {
    for (size_t i = 0; i < trips_.size(); ++i) {
      if (raised & (1u << i)) on_trip_(TripEvent{i, trips_[i].name, temp_mc_});
    }
  }
  return raised;
}

Result<void> ThermalSensor::set_trip(size_t i, int32_t threshold_mc, int32_t hysteresis_mc) {
  if (i >= trips_.size()) {
    return make_error("thermal sensor: no trip " + std::to_string(i) + " (" + std::to_string(trips_.size()) +
                      " trips)");
  }
  if (auto r = check_hysteresis(trips_[i].name, hysteresis_mc); !r) return r;
  trips_[i].threshold_mc = threshold_mc;
  trips_[i].hysteresis_mc = hysteresis_mc;
  return {};
}

}  // namespace npu::sim
