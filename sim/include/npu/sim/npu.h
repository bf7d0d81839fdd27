// The simulated NPU, built whole from an NpuConfig before simulation starts: register file (TLM target
// `mmio`), device memory (TLM target of dram()), N execution channels, the power model, the thermal
// monitor (RC network + sensor with trip points), the DVFS controller and the interrupt controller
// driving the level-sensitive `irq` line (high while any unmasked source is pending).
//
// Interrupt sources (IRQ_STATUS): bit n < 16 channel n (its CH_IRQ_STATUS), bit 16 the thermal sensor
// (THERM_IRQ_STATUS: trip crossings up, re-arms down), bit 17 a DVFS transition completed (cleared by
// writing 1 to IRQ_STATUS bit 17; the other bits are cleared at their source).
// Register access follows the table's access kinds (npu_regs.h): a write to a read-only register has no
// effect and answers TLM_COMMAND_ERROR_RESPONSE, a write-only register reads 0.
// The thermal monitor samples every npu.thermal.sample_period_us while any channel works and pauses when
// all are idle and no trip is asserted (catching up exactly on wake), so a finished simulation runs out
// of events; with a trip asserted or fault power injected it keeps sampling: end such runs with a time
// limit or sc_stop().
// Faults: npu.faults.* arms one at construction; inject_fault() and CH_FAULT_INJECT arm more.
// Not modelled: an interrupt coalescing timer, per-channel clock domains, the power of the register file.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "npu/common/stats.h"
#include "npu/sim/channel.h"
#include "npu/sim/clock.h"
#include "npu/sim/core/compute_core_table.h"
#include "npu/sim/dram.h"
#include "npu/sim/npu_config.h"
#include "npu/sim/power/dvfs_controller.h"
#include "npu/sim/power/power_model.h"
#include "npu/sim/power/thermal_monitor.h"

namespace npu::sim {

// Builds a channel's compute core (module name `instance_name`, e.g. "ch0_core") for the configured
// model. Returns nullptr with `error` set when the model cannot be built (e.g. no RTL for that array size).
using ComputeCoreFactory =
    std::function<std::unique_ptr<ComputeCore>(const std::string& instance_name, const ChannelConfig& cfg,
                                               const ClockDomain& clock, std::string* error)>;

// The factory that builds the row of `cores` the channel config names (an error listing the names for
// any other); cores that trace write waveforms under `waves_prefix`.
ComputeCoreFactory compute_core_factory(ComputeCoreTable cores, std::string waves_prefix = {});

class Npu : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Npu> mmio;
  sc_core::sc_signal<bool> irq;

  // Throws std::invalid_argument naming the parameter when the config cannot be built.
  Npu(sc_core::sc_module_name name, const NpuConfig& cfg, stats::Registry& stats,
      const ComputeCoreFactory& core_factory = compute_core_factory(kSimComputeCores));
  ~Npu() override;

  Dram& dram() { return *dram_; }
  ClockDomain& clock() { return clock_; }
  PowerModel& power() { return *power_; }
  ThermalMonitor& thermal() { return *thermal_; }
  DvfsController& dvfs() { return *dvfs_; }
  const NpuConfig& config() const { return cfg_; }
  uint32_t channel_count() const { return static_cast<uint32_t>(channels_.size()); }
  // The free-running cycle counter (integrated over DVFS changes).
  uint64_t cycle() const;
  void set_tracer(trace::Tracer* tracer);

  // Fault injection for tests and the driver's property tests: `kind` strikes channel `channel` at
  // descriptor `at_descriptor` of its next command buffer (THERMAL_RUNAWAY: when that channel reaches it).
  // Returns false for a channel that does not exist or FaultKind::NONE.
  bool inject_fault(uint32_t channel, regs::FaultKind kind, uint32_t at_descriptor);
  // Injects `watts` of extra junction power from now on (0 removes it).
  void inject_thermal_runaway(double watts);

  // Brings derived stats up to the present (utilisation, idle cycles, DRAM bandwidth, DVFS residency).
  void update_stats();
  // For the end of a run (after sc_start returned): a last partial thermal sample so leakage energy and
  // temperatures cover the whole run, then update_stats(). The thermal monitor stops sampling.
  void finish();

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // The one place the table's access kinds are enforced: RO writes are refused (false), WO reads 0, W1C
  // writes go to clear_reg, RW and WO writes to write_reg. Unmapped offsets read 0 and drop writes.
  bool access(bool write, uint32_t offset, uint32_t& value);
  const regs::Register* mapped_register(uint32_t offset) const;
  // Per-register hooks, called by access() only for what the register's access kind allows.
  uint32_t read_reg(uint32_t offset);
  void write_reg(uint32_t offset, uint32_t value);
  void clear_reg(uint32_t offset, uint32_t bits);
  uint32_t read_thermal_reg(uint32_t offset);
  void write_thermal_reg(uint32_t offset, uint32_t value);
  uint32_t irq_status() const;
  void update_irq();
  void drive_irq();
  void on_thermal_sample(const sc_core::sc_time& at);
  void arm_configured_fault();
  bool any_channel_busy() const;
  void on_channel_run(bool running);

  NpuConfig cfg_;
  ClockDomain clock_;
  std::unique_ptr<PowerModel> power_;
  std::unique_ptr<Dram> dram_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::unique_ptr<ThermalMonitor> thermal_;
  std::unique_ptr<DvfsController> dvfs_;
  trace::Tracer* tracer_ = nullptr;
  // Fast mode: the annotated delay of the access in progress (how far ahead of the kernel the driver
  // is), so a doorbell or preemption request takes effect at the driver's local time. Zero in exact mode.
  sc_core::sc_time access_delay_;
  uint32_t irq_mask_ = 0;
  bool dvfs_pending_irq_ = false;
  bool irq_level_ = false;
  sc_core::sc_event irq_update_;
  sc_core::sc_event fault_time_;
  uint64_t& mmio_reads_;
  uint64_t& mmio_writes_;
  // The execution window: time with at least one command buffer in flight on any channel, so
  // utilisation and bandwidth can leave out prepare, uploads and idle time.
  uint32_t channels_running_ = 0;
  sc_core::sc_time window_since_;
  double window_since_cycles_ = 0;
  double window_closed_cycles_ = 0;
  double& window_ns_;
};

}  // namespace npu::sim
