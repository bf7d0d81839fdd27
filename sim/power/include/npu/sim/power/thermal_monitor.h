// The NPU's thermal block in the simulation: every `sample_period_us` it closes a PowerModel interval
// (leakage charged at the junction temperature at the start of the period), steps the RC network with
// that period's average power (plus any injected fault power), and feeds the junction temperature to the
// ThermalSensor. A sample that raises trips notifies trip_event() and calls the trip callback once per
// trip raised; the sensor's pending bits hold until acknowledged, for an interrupt controller to read.
//
// Stats, under the module's name (e.g. "npu.thermal"): samples; power_w and injected_w of the last
// period; {junction,package,skin}.temp_c; max_junction_c; {junction,skin}.{min,max,mean}_c (mean over
// time); trips.<name>.raised and trips.<name>.time_above_s (time the junction sampled at or above it).
//
// Idle pause: with an idle predicate set (set_idle_check), a sample after which the predicate holds, no
// trip is asserted and no fault power is injected stops the sampling clock, so a finished simulation runs
// out of events; wake() (called on new activity, before a register read, a voltage change or an
// injection) first computes the samples the pause skipped — on the same grid, with the same leakage-only
// power, hence the same temperatures as uninterrupted sampling — then restarts the clock.
// Not modelled: sensor conversion delay, power varying within a period (it is averaged), thermal coupling
// back to timing other than through the DVFS controller. Without an idle predicate sampling runs until
// stop(): sc_start() without a time limit does not return while it runs.
#pragma once

#include <cstdint>
#include <functional>
#include <systemc>
#include <vector>

#include "npu/common/stats.h"
#include "npu/sim/power/power_config.h"
#include "npu/sim/power/power_model.h"
#include "npu/sim/power/thermal_rc.h"
#include "npu/sim/power/thermal_sensor.h"

namespace npu::sim {

class ThermalMonitor : public sc_core::sc_module {
 public:
  // Throws std::invalid_argument naming the parameter when `cfg` cannot be built.
  ThermalMonitor(sc_core::sc_module_name name, const ThermalConfig& cfg, PowerModel& power,
                 stats::Registry& stats);

  ThermalSensor& sensor() { return sensor_; }
  const ThermalSensor& sensor() const { return sensor_; }
  const ThermalRc& rc() const { return rc_; }
  double junction_c() const { return rc_.junction_c(); }
  sc_core::sc_time sample_period() const { return period_; }

  // Notified (delta cycle) after a sample that raised at least one trip.
  const sc_core::sc_event& trip_event() const { return trip_event_; }
  // Called from the sampling process once per trip raised.
  void on_trip(std::function<void(const TripEvent&)> cb) { sensor_.on_trip(std::move(cb)); }
  // Called after every sample with its time (past grid points during a catch-up).
  void on_sample(std::function<void(const sc_core::sc_time&)> cb) { on_sample_ = std::move(cb); }
  // Enables the idle pause; the predicate says whether nothing that dissipates dynamic power is running.
  void set_idle_check(std::function<bool()> idle) { idle_ = std::move(idle); }
  // Catches up skipped samples and restarts sampling if paused; no effect otherwise.
  void wake();
  bool paused() const { return paused_; }

  // Fault hook: a fixed `extra_watts` into the junction from the next sample on (0 removes it), e.g. a
  // failing power gate; not charged to the PowerModel's energy.
  void inject_thermal_runaway(double extra_watts);
  double injected_w() const { return injected_w_; }

  // Average power of the last sample period, injected power included.
  double last_power_w() const { return power_w_; }
  uint64_t samples() const { return samples_; }
  // Ends sampling after the sample already scheduled, so the simulation can run out of events.
  void stop() { running_ = false; }
  // For the end of a run: catches up, takes a last (partial) sample up to now so energy and temperatures
  // cover the whole run, and stops sampling.
  void finish();

 private:
  struct Extremes {
    double* min;
    double* max;
    double* mean;
  };
  void tick();
  void sample(const sc_core::sc_time& at, double dt);
  void record(Extremes& e, double temp_c, double dt);

  PowerModel& power_;
  ThermalRc rc_;
  ThermalSensor sensor_;
  sc_core::sc_time period_;
  sc_core::sc_time last_sample_;
  sc_core::sc_event trip_event_;
  sc_core::sc_event wake_event_;
  std::function<void(const sc_core::sc_time&)> on_sample_;
  std::function<bool()> idle_;
  bool started_ = false;
  bool running_ = true;
  bool paused_ = false;
  double sampled_s_ = 0;
  double injected_w_ = 0;
  double& power_w_;
  double& injected_stat_;
  double& max_junction_c_;
  uint64_t& samples_;
  std::vector<double*> node_temp_c_;
  std::vector<uint64_t*> trip_raised_;
  std::vector<double*> trip_time_above_s_;
  Extremes junction_, skin_;
};

}  // namespace npu::sim
