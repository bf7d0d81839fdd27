// The NPU's DVFS controller: a table of four operating points (frequency, voltage; opp0 the fastest) from
// `npu.dvfs.*`. set_operating_point() takes effect after `transition_us`: then the ClockDomain's frequency
// (so every block's timing from its next action on) and the PowerModel's voltage change together. At
// construction the initial point applies at once, overriding the clock domain's frequency.
//
// Contract: one transition in flight; a new request replaces the pending one and restarts the latency; a
// request for the point in force cancels any pending one. During the latency the old point stays in force.
// Stats, under the module's name (e.g. "npu.dvfs"): transitions; mhz, voltage_v in force;
// opp<i>.residency_ns (brought up to date at each transition and by update_stats()).
// Not modelled: the order of voltage and frequency steps within a transition (a real controller raises V
// before f and lowers it after), clock stalls during PLL relock, per-channel clock domains.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <systemc>
#include <vector>

#include "npu/common/result.h"
#include "npu/common/stats.h"
#include "npu/sim/clock.h"
#include "npu/sim/power/power_config.h"
#include "npu/sim/power/power_model.h"

namespace npu::sim {

class DvfsController : public sc_core::sc_module {
 public:
  // Throws std::invalid_argument naming the parameter when `cfg` fails DvfsConfig::validate().
  DvfsController(sc_core::sc_module_name name, const DvfsConfig& cfg, ClockDomain& clock, PowerModel& power,
                 stats::Registry& stats);

  // Requests operating point `index`; an error for an index outside the table.
  Result<void> set_operating_point(size_t index);
  size_t current_point() const { return current_; }
  std::optional<size_t> pending_point() const { return pending_; }
  size_t num_points() const { return points_.size(); }
  const OperatingPoint& point(size_t i) const { return points_[i]; }
  sc_core::sc_time transition_latency() const { return latency_; }

  // Notified (delta cycle) when a new point has applied; the callback is called with its index.
  const sc_core::sc_event& changed_event() const { return changed_; }
  void on_change(std::function<void(size_t)> cb) { on_change_ = std::move(cb); }

  // Brings the residency stats up to the present time (before dumping stats).
  void update_stats();

 private:
  void apply_pending();
  void apply(size_t index);

  std::vector<OperatingPoint> points_;
  ClockDomain& clock_;
  PowerModel& power_;
  sc_core::sc_time latency_;
  size_t current_ = 0;
  std::optional<size_t> pending_;
  sc_core::sc_event apply_event_;
  sc_core::sc_event changed_;
  std::function<void(size_t)> on_change_;
  sc_core::sc_time since_;
  uint64_t& transitions_;
  double& mhz_;
  double& voltage_v_;
  std::vector<double*> residency_ns_;
};

}  // namespace npu::sim
