#include "thermal_manager.h"

#include <cmath>
#include <mutex>

#include "driver_stats.h"
#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver.thermal"); }

double milli(uint32_t raw) { return static_cast<int32_t>(raw) / 1000.0; }

}  // namespace

ThermalManager::ThermalManager(RegisterBus& regs, Os& os, KernelLock& lock, const ThermalGovernorConfig& cfg,
                               Hooks hooks)
    : regs_(regs), os_(os), lock_(lock), cfg_(cfg), hooks_(std::move(hooks)) {}

ThermalManager::~ThermalManager() = default;

void ThermalManager::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (tracer_) track_ = tracer_->track("driver", "thermal");
}

void ThermalManager::probe(uint32_t points, DeviceInfo& info) {
  info_ = &info;
  wake_ = os_.make_wait_queue();
  auto& opps = info.opps;
  opps.clear();
  for (uint32_t i = 0; i < points && i < regs::kDvfsPoints; ++i)
    opps.push_back({static_cast<double>(regs_.read32(regs::DVFS_OPP_MHZ(i))),
                    static_cast<double>(regs_.read32(regs::DVFS_OPP_MV(i)))});
  if (opps.empty()) return;  // no thermal/DVFS block: nothing to govern
  for (uint32_t i = 0; i < regs::kThermalTrips; ++i) {
    info.trip_c[i] = milli(regs_.read32(regs::THERM_TRIP(i)));
    hysteresis_c_[i] = milli(regs_.read32(regs::THERM_HYST(i)));
  }
  opp_ = regs::DVFS_STATUS_POINT.get(regs_.read32(regs::DVFS_STATUS));
  std::string error;
  governor_ = make_thermal_governor(cfg_, opps, &error);
  if (!governor_ && !error.empty()) logger()->error("{}", error);
  severity_since_ns_ = now();
}

void ThermalManager::start() {
  // Even without a governor the thread polls while a trip is asserted: EMERGENCY and SHUTDOWN are
  // crossings of temperature margins that raise no interrupt of their own.
  if (info_ && !info_->opps.empty()) os_.spawn("npu_thermal", [this] { loop(); });
}

ThermalSample ThermalManager::sample() {
  ThermalSample s;
  s.now_ns = now();
  s.temp_c = milli(regs_.read32(regs::THERM_TEMP));
  s.power_mw = regs_.read32(regs::PWR_POWER_MW);
  s.opp = regs::DVFS_STATUS_POINT.get(regs_.read32(regs::DVFS_STATUS));
  s.trip_status = regs::THERM_TRIP_ASSERTED.get(regs_.read32(regs::THERM_TRIP_STATUS));
  s.trip_c = info_->trip_c;
  s.hysteresis_c = hysteresis_c_;
  return s;
}

void ThermalManager::event() {
  const ThermalSample s = sample();
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
    const double critical = info_->trip_c[3], hyst = hysteresis_c_[3];
    auto above = [&](double margin, ThermalSeverity level) {
      const bool was = severity_ >= level;
      return s.temp_c >= critical + margin || (was && s.temp_c >= critical + margin - hyst);
    };
    if (above(cfg_.shutdown_margin_c, ThermalSeverity::SHUTDOWN)) {
      sev = ThermalSeverity::SHUTDOWN;
    } else if (above(cfg_.emergency_margin_c, ThermalSeverity::EMERGENCY)) {
      sev = ThermalSeverity::EMERGENCY;
    }
  }
  set_severity(sev, s.temp_c);
  const bool active = s.trip_status != 0 || opp_ != 0;
  if (active && !active_) wake_->wake_all();
  active_ = active;
}

void ThermalManager::loop() {
  for (;;) {
    if (!active_) {
      wake_->wait();
      continue;
    }
    wake_->wait_for(cfg_.poll_ns);
    std::lock_guard guard(lock_);
    ThermalSample s = sample();
    s.opp = opp_;
    const uint32_t target = governor_ ? governor_->update(s) : opp_;
    if (target != opp_) {
      logger()->debug("{:.2f} °C, {:.0f} mW: operating point {} → {}", s.temp_c, s.power_mw, opp_, target);
      regs_.write32(regs::DVFS_OPP, target);
      opp_ = target;
      ++st_->dvfs_changes;
      if (tracer_) tracer_->counter("driver", "dvfs opp", now(), target);
    }
    event();
  }
}

void ThermalManager::set_severity(ThermalSeverity s, double temp_c) {
  if (s == severity_) return;
  update_stats();
  logger()->info("thermal severity {} → {} at {:.2f} °C", to_string(severity_), to_string(s), temp_c);
  severity_ = s;
  if (tracer_) tracer_->instant(track_, to_string(s), now(), {{"temp_c", temp_c}});
  if (observer_) observer_->on_thermal_severity(s, temp_c);
  if (s == ThermalSeverity::SHUTDOWN && !halted_) {
    shutdown(temp_c);
  } else if (halted_ && s < ThermalSeverity::CRITICAL) {
    halted_ = false;
    logger()->warn("thermal shutdown over at {:.2f} °C: the NPU takes work again", temp_c);
    hooks_.resume();
  }
}

// What the silicon's thermal trip does when software let it get this far: the NPU stops. Running work
// is aborted (channels reset) and fails, queued work fails, new work is refused; leakage alone then
// cools it. Unlike a phone's THERMTRIP, which powers the whole system off, the simulation goes on so the
// recovery can be studied.
void ThermalManager::shutdown(double temp_c) {
  halted_ = true;
  ++st_->thermal_shutdowns;
  hooks_.shutdown("thermal shutdown: junction " + std::to_string(static_cast<int>(temp_c)) +
                  " °C, past the critical trip + " +
                  std::to_string(static_cast<int>(cfg_.shutdown_margin_c)) + " °C");
}

void ThermalManager::update_stats() {
  if (!st_) return;
  *st_->severity_ns[static_cast<size_t>(severity_)] += static_cast<double>(now() - severity_since_ns_);
  severity_since_ns_ = now();
}

}  // namespace npu::drv
