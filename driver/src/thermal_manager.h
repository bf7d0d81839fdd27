// Thermal management, the driver's thermal object: trip interrupts and passive polling (its own kernel
// thread, while a trip is asserted) feed the governor, which sets the DVFS operating point; the severity
// (Android thermal status) derived from the asserted trips and the temperature goes to the
// ThermalObserver. At SHUTDOWN the NPU halts (the driver fails its work and refuses new work, through the
// `shutdown` hook) until the junction is back below the critical trip (`resume`).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "npu/drv/driver.h"
#include "npu/drv/thermal_governor.h"

namespace npu::drv {

class ThermalManager {
 public:
  struct Hooks {
    std::function<void(const std::string& why)> shutdown;  // fail every unfinished job with `why`
    std::function<void()> resume;                          // the NPU takes work again
  };
  ThermalManager(RegisterBus& regs, Os& os, KernelLock& lock, const ThermalGovernorConfig& cfg, Hooks hooks);
  ~ThermalManager();

  // Reads the DVFS table, the trips and their hysteresis (into `info`) and the operating point, and builds
  // the governor. Without a DVFS block (info.opps empty) there is nothing to govern.
  void probe(uint32_t dvfs_points, DeviceInfo& info);
  // Spawns the polling thread (only with a DVFS block).
  void start();
  // A thermal interrupt, from the driver's bottom half (under the lock).
  void event();

  ThermalSeverity severity() const { return severity_; }
  bool halted() const { return halted_; }
  uint32_t opp() const { return opp_; }
  const ThermalGovernor* governor() const { return governor_.get(); }
  void set_observer(ThermalObserver* observer) { observer_ = observer; }
  void set_stats(DriverStats* stats) { st_ = stats; }
  void set_tracer(trace::Tracer* tracer);
  // Brings the time at each severity up to now.
  void update_stats();

 private:
  uint64_t now() const { return os_.now_ns(); }
  ThermalSample sample();
  void loop();
  void set_severity(ThermalSeverity s, double temp_c);
  void shutdown(double temp_c);

  RegisterBus& regs_;
  Os& os_;
  KernelLock& lock_;
  const ThermalGovernorConfig& cfg_;
  Hooks hooks_;
  std::unique_ptr<ThermalGovernor> governor_;
  const DeviceInfo* info_ = nullptr;  // the driver's, filled at probe (trips, DVFS table)
  std::array<double, 4> hysteresis_c_{};
  uint32_t opp_ = 0;
  ThermalSeverity severity_ = ThermalSeverity::NONE;
  uint64_t severity_since_ns_ = 0;
  bool active_ = false;  // a trip asserted or not at the fastest point: polling
  bool halted_ = false;  // thermal shutdown in force
  std::unique_ptr<WaitQueue> wake_;
  ThermalObserver* observer_ = nullptr;
  DriverStats* st_ = nullptr;
  trace::Tracer* tracer_ = nullptr;
  uint32_t track_ = 0;
};

}  // namespace npu::drv
