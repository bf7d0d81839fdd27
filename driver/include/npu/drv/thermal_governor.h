// Thermal governors: the driver's policy for keeping the NPU below its trip points by choosing the DVFS
// operating point (the cooling state: 0 = fastest, the last = slowest), in the manner of Linux's
// thermal framework. Picked by name from config (driver.thermal.governor):
//   step_wise        — one step slower while the temperature is at or above the control trip and not
//                      falling; one step faster once it is below the trip minus its hysteresis and not
//                      rising; the slowest point at or above the critical trip.
//   power_allocator  — Linux IPA: a PID controller on (control temperature − temperature) sets a power
//                      budget around the sustainable power; the fastest point whose predicted power fits
//                      the budget is chosen. Predicted power of point i scales the measured dynamic
//                      power by f·V² and the leakage by V.
// A governor is pure logic (no SystemC, no registers): the driver feeds it samples and applies its
// answer. Not modelled: several cooling devices, per-trip weights, the Linux "user space" governor.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npu/common/config.h"

namespace npu::drv {

struct OppInfo {
  double mhz = 0;
  double mv = 0;
};

struct ThermalGovernorConfig {
  std::string governor = "step_wise";  // "step_wise" | "power_allocator" | "none"
  uint64_t poll_ns = 100'000'000;      // sampling period while any trip is asserted (passive polling)
  uint32_t control_trip = 1;           // trip index the governor regulates to (0 light … 3 critical)
  double sustainable_power_mw = 1500;  // IPA: power the device can dissipate at the control temperature
  double k_po = 400;                   // IPA: mW per °C proportional gain while above the control temp
  double k_pu = 800;                   // IPA: mW per °C proportional gain while below it
  double k_i = 10;                     // IPA: mW per °C·sample integral gain
  double k_d = 0;                      // IPA: mW per °C/sample derivative gain
  double integral_cutoff_c = 5;        // IPA: integrate only within this distance of the control temp
  double leakage_fraction = 0.2;       // IPA: share of measured power taken as leakage when predicting
  double emergency_margin_c = 5;       // EMERGENCY at critical trip + this
  double shutdown_margin_c = 10;       // SHUTDOWN at critical trip + this

  void declare(cfg::Schema& schema, const std::string& prefix = "driver.thermal");
};

struct ThermalSample {
  uint64_t now_ns = 0;
  double temp_c = 0;
  double power_mw = 0;             // average over the last sensor period
  uint32_t opp = 0;                // point in force
  uint32_t trip_status = 0;        // bit i: trip i asserted
  std::array<double, 4> trip_c{};  // trip thresholds
  std::array<double, 4> hysteresis_c{};
};

class ThermalGovernor {
 public:
  virtual ~ThermalGovernor() = default;
  virtual const char* name() const = 0;
  // The operating point to be in after this sample.
  virtual uint32_t update(const ThermalSample& s) = 0;
};

// The governors' names, from their factory table ("none" among them): the schema's choices.
const std::vector<std::string>& thermal_governor_names();
// nullptr for "none"; error text in `error` for an unknown name.
std::unique_ptr<ThermalGovernor> make_thermal_governor(const ThermalGovernorConfig& cfg,
                                                       const std::vector<OppInfo>& opps, std::string* error);

}  // namespace npu::drv
