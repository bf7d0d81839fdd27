// The simulated NPU, built whole from an NpuConfig before simulation starts: register file (TLM target
// `mmio`), device memory (TLM target `mem`), N execution channels and the interrupt controller driving
// the level-sensitive `irq` line (high while any unmasked channel event is pending).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "npu/common/stats.h"
#include "npu/sim/channel.h"
#include "npu/sim/clock.h"
#include "npu/sim/dram.h"
#include "npu/sim/npu_config.h"

namespace npu::sim {

// Builds a channel's compute core (module name `instance_name`, e.g. "ch0_core") for the configured
// model ("tlm" | "rtl"). Returns
// nullptr with `error` set when the model cannot be built (e.g. no RTL for that array size).
using ComputeCoreFactory = std::function<std::unique_ptr<ComputeCore>(
    const std::string& instance_name, const ChannelConfig& cfg, const ClockDomain& clock, std::string* error)>;

// The factory for the TLM core alone (sim/ cannot see rtl/; the system layer adds "rtl").
std::unique_ptr<ComputeCore> make_tlm_compute_core(const std::string& instance_name, const ChannelConfig& cfg,
                                                   const ClockDomain& clock, std::string* error);

class Npu : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Npu> mmio;
  sc_core::sc_signal<bool> irq;

  // Throws std::invalid_argument naming the parameter when the config cannot be built.
  Npu(sc_core::sc_module_name name, const NpuConfig& cfg, stats::Registry& stats,
      const ComputeCoreFactory& core_factory = make_tlm_compute_core);

  Dram& dram() { return dram_; }
  ClockDomain& clock() { return clock_; }
  const NpuConfig& config() const { return cfg_; }
  uint64_t cycle() const;
  void set_tracer(trace::Tracer* tracer);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  uint32_t read_reg(uint32_t offset) const;
  void write_reg(uint32_t offset, uint32_t value);
  void update_irq();
  void drive_irq();

  NpuConfig cfg_;
  ClockDomain clock_;
  Dram dram_;
  std::vector<std::unique_ptr<Channel>> channels_;
  uint32_t irq_mask_ = 0;
  bool irq_level_ = false;
  sc_core::sc_event irq_update_;
  uint64_t& mmio_reads_;
  uint64_t& mmio_writes_;
};

}  // namespace npu::sim
