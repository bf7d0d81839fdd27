// The whole simulated phone: one SystemC simulation holding the NPU (sim/), the driver bound to it
// through the sim port, and the HAL devices on top, built from a hardware config before simulation
// starts. Apps run as simulated host threads. A SystemC kernel cannot be reset, so a process builds at
// most one System.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "npu/common/config.h"
#include "npu/common/result.h"
#include "npu/common/stats.h"
#include "npu/common/trace.h"
#include "npu/drv/driver.h"
#include "npu/hal/device.h"
#include "npu/hal/scheduling_hal.h"
#include "npu/mgr/npu_service.h"
#include "npu/sim/npu_config.h"

namespace npu::sim {
class Npu;
}
namespace npu::drv {
class SimPort;
}

namespace npu::system {

struct SystemConfig {
  sim::NpuConfig npu;
  hal::HostCost host;
  drv::DriverConfig driver;
  mgr::ServiceConfig manager;
  std::string waves_path;  // RTL waveforms, empty = off
  bool trace = false;      // record a Perfetto timeline (System::tracer())
  // Multiplies the package and skin heat capacities: below 1, minutes of heating happen in seconds of
  // simulation (scaled scenario runs). The junction's (tens of ms, that of per-frame bursts) stays.
  double thermal_capacity_scale = 1;

  // Declares every parameter of the hardware config file (npu.*, host.*, manager.*).
  void declare(cfg::Schema& schema);
};

// Reads a hardware config file and applies `path=value` overrides; errors name the file or the
// override and the JSON path. A file may start from another: `"base": "default.json"` (relative to the
// file) applies that file first, so a preset or a user config states only what differs. Parameters a
// file does not set keep the declared defaults.
Result<SystemConfig> load_system_config(const std::string& path, const std::vector<std::string>& overrides);
// Every parameter's value after the file (and the presets it starts from) and the overrides, nested as a
// config file states it: loading the result as a file gives the same config.
Result<nlohmann::json> resolved_config(const std::string& path, const std::vector<std::string>& overrides);
// Every parameter with its default, unit and description.
std::string explain_system_config();
// The compute cores a channel can be built with ("tlm" and "rtl"): the schema's choices for
// npu.channel.compute_core.model and the constructors System::create uses.
sim::ComputeCoreTable compute_cores();

class System {
 public:
  static Result<std::unique_ptr<System>> create(const SystemConfig& cfg);
  ~System();

  // Runs `app` as a host thread from simulated time 0 until it returns (or `limit_s` of simulated
  // time pass: an error). Returns the simulated time at the end.
  Result<double> run(const std::function<void(System&)>& app, double limit_s = 3600.0);
  // For a harness feeding many inputs to one platform (the fuzz targets): runs `app` as a host thread
  // from the current simulated time for at most `limit_s`, then pauses the simulation instead of
  // stopping it, so the next call runs on the same platform. Threads spawned during the call and still
  // unfinished when it ends are unwound; the platform's own (the driver's) go on. Never mix with run().
  // `probe_driver` false leaves the driver unprobed (a harness driving the registers itself).
  Result<double> run_another(const std::function<void(System&)>& app, double limit_s,
                             bool probe_driver = true);

  drv::Driver& driver() { return *driver_; }
  // A new NPU device (its own driver context for uid/pid); MINIMAL lowers only CONV_2D.
  hal::NpuDevice& npu_device(int uid = 10000, int pid = 1000,
                             hal::NpuDevice::Variant variant = hal::NpuDevice::Variant::FULL);
  hal::CpuDevice& cpu_device() { return *cpu_; }
  // The scheduling HAL and the `npu` service, built on first use (the service from config().manager;
  // an error when that config is invalid).
  hal::SchedulingHal& scheduling_hal();
  Result<mgr::NpuService*> npu_service();
  stats::Registry& stats() { return stats_; }
  trace::Tracer* tracer() { return cfg_.trace ? &tracer_ : nullptr; }
  sim::Npu& npu() { return *npu_; }
  const SystemConfig& config() const { return cfg_; }
  drv::Os& os();
  // The NPU's registers as the host sees them, for debug tools and tests (fault injection, peeking at
  // state): every access takes simulated time like the driver's own.
  drv::RegisterBus& debug_registers();

 private:
  System() = default;
  // Unwinds `app` and every thread spawned during simulation (after a run stopped at its limit).
  void kill_spawned_threads(sc_core::sc_process_handle app);
  SystemConfig cfg_;
  bool probed_ = false;  // run_another() probes the driver once
  stats::Registry stats_;
  trace::Tracer tracer_;
  std::unique_ptr<sim::Npu> npu_;
  std::unique_ptr<drv::SimPort> port_;
  std::unique_ptr<drv::Driver> driver_;
  std::unique_ptr<hal::CpuDevice> cpu_;
  std::vector<std::unique_ptr<hal::NpuDevice>> npu_devices_;
  std::unique_ptr<hal::SchedulingHal> scheduling_hal_;  // after driver_: destroyed first
  std::unique_ptr<mgr::NpuService> npu_service_;
};

}  // namespace npu::system
