// The NPU's thermal sensor as its registers see it, free of SystemC so the trip logic is testable alone:
// the temperature in milli-°C (what a TEMP register reads) and up to 32 trip points, each with a
// threshold and a hysteresis in milli-°C.
//
// Contract of a trip point: while armed, a sample ≥ threshold raises it — once: it disarms, sets its bit in
// tripped() and pending(), and calls the trip callback. It re-arms only when a sample falls below
// threshold − hysteresis, so jitter inside the hysteresis band raises nothing. pending() latches raises
// until acknowledge() (write-1-to-clear); rearm_pending() likewise latches re-arms (downward crossings past
// the hysteresis) until acknowledge_rearm(); tripped() is the live state. Comparisons are on integer
// milli-°C, as hardware compares register values. A sample that jumps over several thresholds raises each,
// in trip order.
// Not modelled: sensor noise, offset and conversion latency (the sensor reads the junction node exactly),
// several sensors per die.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/sim/power/power_config.h"

namespace npu::sim {

struct TripPoint {
  std::string name;
  int32_t threshold_mc = 0;
  int32_t hysteresis_mc = 0;
};

struct TripEvent {
  size_t trip = 0;
  std::string name;
  int32_t temp_mc = 0;  // the sample that raised it
};

class ThermalSensor {
 public:
  static constexpr size_t kMaxTrips = 32;  // one bit each in a 32-bit status register

  // Errors name the trip at fault (more than kMaxTrips, negative hysteresis).
  static Result<ThermalSensor> create(std::vector<TripPoint> trips);
  // light, moderate, severe, critical from `npu.thermal.trips.*`.
  static Result<ThermalSensor> from_config(const ThermalConfig& cfg);

  // One sample of the junction temperature. Returns the bits of the trips this sample raised.
  uint32_t update(double temp_c);

  int32_t temp_mc() const { return temp_mc_; }
  uint32_t tripped() const { return tripped_; }
  uint32_t pending() const { return pending_; }
  void acknowledge(uint32_t mask) { pending_ &= ~mask; }
  uint32_t rearm_pending() const { return rearm_pending_; }
  void acknowledge_rearm(uint32_t mask) { rearm_pending_ &= ~mask; }

  size_t num_trips() const { return trips_.size(); }
  const TripPoint& trip(size_t i) const { return trips_[i]; }
  // Reprograms a trip (as a driver writes its threshold registers); takes effect at the next sample.
  Result<void> set_trip(size_t i, int32_t threshold_mc, int32_t hysteresis_mc);
  uint64_t raised_count(size_t i) const { return raised_[i]; }

  void on_trip(std::function<void(const TripEvent&)> cb) { on_trip_ = std::move(cb); }

 private:
  explicit ThermalSensor(std::vector<TripPoint> trips);

  std::vector<TripPoint> trips_;
  std::vector<uint64_t> raised_;
  int32_t temp_mc_ = 0;
  uint32_t tripped_ = 0;
  uint32_t pending_ = 0;
  uint32_t rearm_pending_ = 0;
  std::function<void(const TripEvent&)> on_trip_;
};

}  // namespace npu::sim
