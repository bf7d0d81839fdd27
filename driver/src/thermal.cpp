// Thermal management: trip interrupts and passive polling feed the governor, which sets the DVFS
// operating point; the severity (Android thermal status) derived from the asserted trips and the
// temperature is reported to the ThermalObserver.
#include <cmath>
#include <mutex>

#include "driver_stats.h"
#include "npu/common/log.h"
#include "npu/drv/driver.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver.thermal"); }

double milli(uint32_t raw) { return static_cast<int32_t>(raw) / 1000.0; }

}  // namespace

void Driver::probe_thermal() {
  checkpoint_ns_estimate_ = info_.sram_bytes / 16.0;  // until measured: the whole SRAM at 16 B/ns
  const uint32_t config2 = hw_.regs.read32(regs::NPU_CONFIG2);
  info_.vector_lanes = regs::CONFIG2_VECTOR_LANES.get(config2);
  info_.sram_banks = regs::CONFIG2_SRAM_BANKS.get(config2);
  const uint32_t points = regs::CONFIG2_DVFS_POINTS.get(config2);
  auto& opps = info_.opps;
  opps.clear();
  for (uint32_t i = 0; i < points && i < regs::kDvfsPoints; ++i)
    opps.push_back({static_cast<double>(hw_.regs.read32(regs::DVFS_OPP_MHZ(i))),
                    static_cast<double>(hw_.regs.read32(regs::DVFS_OPP_MV(i)))});
  if (opps.empty()) return;  // no thermal/DVFS block: nothing to govern
  clock_mhz_ = opps.front().mhz;
  for (uint32_t i = 0; i < regs::kThermalTrips; ++i) {
    info_.trip_c[i] = milli(hw_.regs.read32(regs::THERM_TRIP(i)));
    hysteresis_c_[i] = milli(hw_.regs.read32(regs::THERM_HYST(i)));
  }
  opp_ = regs::DVFS_STATUS_POINT.get(hw_.regs.read32(regs::DVFS_STATUS));
  std::string error;
  governor_ = make_thermal_governor(cfg_.thermal, opps, &error);
  if (!governor_ && !error.empty()) logger()->error("{}", error);
  severity_since_ns_ = now();
}

ThermalSample Driver::thermal_sample() {
  ThermalSample s;
  s.now_ns = now();
  s.temp_c = milli(hw_.regs.read32(regs::THERM_TEMP));
  s.power_mw = hw_.regs.read32(regs::PWR_POWER_MW);
  s.opp = regs::DVFS_STATUS_POINT.get(hw_.regs.read32(regs::DVFS_STATUS));
  s.trip_status = regs::THERM_TRIP_ASSERTED.get(hw_.regs.read32(regs::THERM_TRIP_STATUS));
  s.trip_c = info_.trip_c;
  s.hysteresis_c = hysteresis_c_;
  return s;
}

void Driver::thermal_event() {
  const ThermalSample s = thermal_sample();
  // Highest asserted trip → severity; beyond critical, EMERGENCY and SHUTDOWN by temperature (with the
  // critical trip's hysteresis on the way down).
  ThermalSeverity sev = ThermalSeverity::NONE;
  for (int i = 3; i >= 0; --i) {
    if (s.trip_status & regs::THERM_TRIP_ASSERTED.bit(static_cast<uint32_t>(i))) {
      sev = static_cast<ThermalSeverity>(i + 1);
      break;
    }
  }
  if (sev == ThermalSeverity::CRITICAL) {
    const double critical = info_.trip_c[3], hyst = hysteresis_c_[3];
    auto above = [&](double margin, ThermalSeverity level) {
      const bool was = severity_ >= level;
      return s.temp_c >= critical + margin || (was && s.temp_c >= critical + margin - hyst);
    };
    if (above(cfg_.thermal.shutdown_margin_c, ThermalSeverity::SHUTDOWN)) {
      sev = ThermalSeverity::SHUTDOWN;
    } else if (above(cfg_.thermal.emergency_margin_c, ThermalSeverity::EMERGENCY)) {
      sev = ThermalSeverity::EMERGENCY;
    }
  }
  set_severity(sev, s.temp_c);
  const bool active = s.trip_status != 0 || opp_ != 0;
  if (active && !thermal_active_) thermal_wake_->wake_all();
  thermal_active_ = active;
}

void Driver::thermal_loop() {
  for (;;) {
    if (!thermal_active_) {
      thermal_wake_->wait();
      continue;
    }
    thermal_wake_->wait_for(cfg_.thermal.poll_ns);
    std::lock_guard guard(lock_);
    ThermalSample s = thermal_sample();
    s.opp = opp_;
    const uint32_t target = governor_ ? governor_->update(s) : opp_;
    if (target != opp_) {
      logger()->debug("{:.2f} °C, {:.0f} mW: operating point {} → {}", s.temp_c, s.power_mw, opp_, target);
      hw_.regs.write32(regs::DVFS_OPP, target);
      opp_ = target;
      ++st_->dvfs_changes;
      if (tracer_) tracer_->counter("driver", "dvfs opp", now(), target);
    }
    thermal_event();
  }
}

void Driver::set_severity(ThermalSeverity s, double temp_c) {
  if (s == severity_) return;
  update_stats();
  logger()->info("thermal severity {} → {} at {:.2f} °C", to_string(severity_), to_string(s), temp_c);
  severity_ = s;
  if (tracer_) tracer_->instant(thermal_track_, to_string(s), now(), {{"temp_c", temp_c}});
  if (thermal_observer_) thermal_observer_->on_thermal_severity(s, temp_c);
  if (s == ThermalSeverity::SHUTDOWN && !halted_) {
    thermal_shutdown(temp_c);
  } else if (halted_ && s < ThermalSeverity::CRITICAL) {
    halted_ = false;
    logger()->warn("thermal shutdown over at {:.2f} °C: the NPU takes work again", temp_c);
    dispatch();
  }
}

// What the silicon's thermal trip does when software let it get this far: the NPU stops. Running work
// is aborted (channels reset) and fails, queued work fails, new work is refused; leakage alone then
// cools it. Unlike a phone's THERMTRIP, which powers the whole system off, the simulation goes on so the
// recovery can be studied.
void Driver::thermal_shutdown(double temp_c) {
  halted_ = true;
  ++st_->thermal_shutdowns;
  const std::string why = "thermal shutdown: junction " + std::to_string(static_cast<int>(temp_c)) +
                          " °C, past the critical trip + " +
                          std::to_string(static_cast<int>(cfg_.thermal.shutdown_margin_c)) + " °C";
  logger()->error("{}; failing {} unfinished jobs", why, jobs_.size());
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_) doomed.push_back(job);
  for (auto& job : doomed) end_job(job, JobStatus::FAILED, WorkEndReason::FAILED, why);
}

void Driver::update_stats() {
  if (!st_) return;
  *st_->severity_ns[static_cast<size_t>(severity_)] += static_cast<double>(now() - severity_since_ns_);
  severity_since_ns_ = now();
}

}  // namespace npu::drv
