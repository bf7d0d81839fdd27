#include "npu/drv/thermal_governor.h"

#include <algorithm>
#include <cmath>

#include "npu/common/factory_table.h"

namespace npu::drv {

void ThermalGovernorConfig::declare(cfg::Schema& s, const std::string& p) {
  s.choice(p + ".governor", &governor, "step_wise", thermal_governor_names(),
           "Thermal governor driving DVFS from the sensor");
  s.u64(p + ".poll_ns", &poll_ns, 100'000'000, "ns", "Governor sampling period while a trip is asserted",
        1000, 10'000'000'000ull);
  s.u32(p + ".control_trip", &control_trip, 1, "",
        "Trip the governor regulates to (0 light, 1 moderate, 2 severe)", 0, 2);
  s.f64(p + ".sustainable_power_mw", &sustainable_power_mw, 1500, "mW",
        "power_allocator: power dissipated at the control temperature in steady state", 1, 1e6);
  s.f64(p + ".k_po", &k_po, 400, "mW/°C", "power_allocator: proportional gain above the control temperature",
        0, 1e6);
  s.f64(p + ".k_pu", &k_pu, 800, "mW/°C", "power_allocator: proportional gain below the control temperature",
        0, 1e6);
  s.f64(p + ".k_i", &k_i, 10, "mW/(°C·sample)", "power_allocator: integral gain", 0, 1e6);
  s.f64(p + ".k_d", &k_d, 0, "mW·sample/°C", "power_allocator: derivative gain", 0, 1e6);
  s.f64(p + ".integral_cutoff_c", &integral_cutoff_c, 5, "°C",
        "power_allocator: the error is integrated only within this distance of the control temperature", 0,
        100);
  s.f64(p + ".leakage_fraction", &leakage_fraction, 0.2, "",
        "power_allocator: share of measured power treated as leakage when predicting other points", 0, 0.95);
  s.f64(p + ".emergency_margin_c", &emergency_margin_c, 5, "°C",
        "EMERGENCY severity at the critical trip + this", 0, 100);
  s.f64(p + ".shutdown_margin_c", &shutdown_margin_c, 10, "°C",
        "SHUTDOWN severity at the critical trip + this", 0, 100);
}

namespace {

constexpr uint32_t kCriticalTrip = 3;

class StepWise final : public ThermalGovernor {
 public:
  StepWise(const ThermalGovernorConfig& cfg, size_t points)
      : cfg_(cfg), slowest_(static_cast<uint32_t>(points - 1)) {}
  const char* name() const override { return "step_wise"; }
  uint32_t update(const ThermalSample& s) override {
    const double trend = has_last_ ? s.temp_c - last_c_ : 0.0;
    has_last_ = true;
    last_c_ = s.temp_c;
    const uint32_t t = cfg_.control_trip;
    if (s.temp_c >= s.trip_c[kCriticalTrip]) return slowest_;
    if (s.temp_c >= s.trip_c[t] && trend >= 0) return std::min(s.opp + 1, slowest_);
    if (s.temp_c < s.trip_c[t] - s.hysteresis_c[t] && trend <= 0 && s.opp > 0) return s.opp - 1;
    return s.opp;
  }

 private:
  ThermalGovernorConfig cfg_;
  uint32_t slowest_;
  bool has_last_ = false;
  double last_c_ = 0;
};

class PowerAllocator final : public ThermalGovernor {
 public:
  PowerAllocator(const ThermalGovernorConfig& cfg, std::vector<OppInfo> opps)
      : cfg_(cfg), opps_(std::move(opps)) {}
  const char* name() const override { return "power_allocator"; }
  uint32_t update(const ThermalSample& s) override {
    const double control = s.trip_c[cfg_.control_trip];
    const double err = control - s.temp_c;
    if (std::fabs(err) < cfg_.integral_cutoff_c) integral_ += err;
    const double derivative = has_last_ ? err - last_err_ : 0.0;
    has_last_ = true;
    last_err_ = err;
    const double kp = err < 0 ? cfg_.k_po : cfg_.k_pu;
    const double budget = cfg_.sustainable_power_mw + kp * err + cfg_.k_i * integral_ + cfg_.k_d * derivative;
    if (s.temp_c >= s.trip_c[kCriticalTrip]) return static_cast<uint32_t>(opps_.size() - 1);
    // Predict each point's power from the measurement at the point in force.
    const OppInfo& now = opps_[s.opp];
    const double leak = s.power_mw * cfg_.leakage_fraction;
    const double dyn = s.power_mw - leak;
    for (uint32_t i = 0; i < opps_.size(); ++i) {
      const double f = opps_[i].mhz / now.mhz;
      const double v = opps_[i].mv / now.mv;
      if (dyn * f * v * v + leak * v <= budget) return i;
    }
    return static_cast<uint32_t>(opps_.size() - 1);
  }

 private:
  ThermalGovernorConfig cfg_;
  std::vector<OppInfo> opps_;
  double integral_ = 0;
  double last_err_ = 0;
  bool has_last_ = false;
};

// One row per governor: creation and the schema's choices both read these rows.
using GovernorRow = factory::Row<std::unique_ptr<ThermalGovernor> (*)(const ThermalGovernorConfig&,
                                                                      const std::vector<OppInfo>&)>;

// "none" has no constructor: the driver then never changes the operating point.
constexpr GovernorRow kGovernors[] = {
    {"step_wise", "one operating point at a time towards the control trip",
     [](const ThermalGovernorConfig& cfg, const std::vector<OppInfo>& opps)
         -> std::unique_ptr<ThermalGovernor> { return std::make_unique<StepWise>(cfg, opps.size()); }},
    {"power_allocator", "PID power budget, the fastest point that fits it",
     [](const ThermalGovernorConfig& cfg, const std::vector<OppInfo>& opps)
         -> std::unique_ptr<ThermalGovernor> { return std::make_unique<PowerAllocator>(cfg, opps); }},
    {"none", "no governor", nullptr},
};

}  // namespace

const std::vector<std::string>& thermal_governor_names() {
  static const std::vector<std::string> names = factory::names(kGovernors);
  return names;
}

std::unique_ptr<ThermalGovernor> make_thermal_governor(const ThermalGovernorConfig& cfg,
                                                       const std::vector<OppInfo>& opps, std::string* error) {
  const auto* row = factory::find(kGovernors, cfg.governor);
  if (row && !row->make) return nullptr;
  if (opps.empty() || opps.front().mhz <= 0 || opps.front().mv <= 0) {
    *error = "thermal governor: the NPU reports no DVFS operating points";
    return nullptr;
  }
  if (row) return row->make(cfg, opps);
  *error = "thermal governor: unknown governor \"" + cfg.governor + "\"";
  return nullptr;
}

}  // namespace npu::drv
