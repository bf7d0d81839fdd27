// One execution channel: command processor (fetches 128-byte descriptors from device memory and runs
// them in order), DMA engine, scratchpad SRAM, MAC-array compute core (TLM or RTL, see ComputeCore) and
// an fp32 vector unit. Its registers are the CH_* block of the register map. At a descriptor boundary it
// honours a preempt request (stops, reports PREEMPTED with CH_PROGRESS = descriptors done).
// Not yet modelled: DMA/compute overlap, SRAM banking, context save by DMA.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "npu/common/stats.h"
#include "npu/common/trace.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/clock.h"
#include "npu/sim/core/compute_core.h"
#include "npu/sim/dram.h"
#include "npu/sim/npu_config.h"
#include "npu/sim/vector_unit.h"

namespace npu::sim {

class Channel : public sc_core::sc_module {
 public:
  Channel(sc_core::sc_module_name name, uint32_t index, const ChannelConfig& cfg, const ClockDomain& clock,
          Dram& dram, std::unique_ptr<ComputeCore> core, stats::Registry& stats);

  // Register block access (offset relative to channel_base); called by the register file.
  uint32_t read_reg(uint32_t offset) const;
  void write_reg(uint32_t offset, uint32_t value);

  uint32_t irq_status() const { return irq_status_; }
  // Called whenever irq_status changes, so the interrupt controller can update the line.
  void on_irq_change(std::function<void()> cb) { irq_changed_ = std::move(cb); }
  const ComputeCore& core() const { return *core_; }
  // Records one span per descriptor on this channel's track (nullptr = off).
  void set_tracer(trace::Tracer* tracer);

 private:
  void command_processor();
  regs::ChannelError execute(const desc::Raw& raw);
  regs::ChannelError dma(const desc::Dma& d, bool to_sram);
  regs::ChannelError conv_int8(const desc::Conv& d);
  regs::ChannelError conv_fp32(const desc::Conv& d);
  regs::ChannelError vector(const desc::Raw& raw);
  bool sram_range_ok(uint64_t offset, uint64_t bytes) const;
  double dma_ns_per_byte() const;
  void raise(uint32_t bits);

  uint32_t index_;
  ChannelConfig cfg_;
  const ClockDomain& clock_;
  Dram& dram_;
  std::unique_ptr<ComputeCore> core_;
  std::vector<uint8_t> sram_;
  VectorUnit vector_unit_;
  std::function<void()> irq_changed_;
  sc_core::sc_event doorbell_;
  trace::Tracer* tracer_ = nullptr;
  uint32_t track_ = 0;

  uint64_t cmd_base_ = 0;
  uint32_t cmd_count_ = 0;
  regs::ChannelState state_ = regs::ChannelState::IDLE;
  regs::ChannelError error_ = regs::ChannelError::NONE;
  uint32_t progress_ = 0;
  uint64_t last_cycles_ = 0;
  uint32_t irq_status_ = 0;
  bool preempt_requested_ = false;

  uint64_t& busy_cycles_;
  uint64_t& compute_cycles_;
  uint64_t& dma_cycles_;
  uint64_t& macs_;
  uint64_t& dma_bytes_in_;
  uint64_t& dma_bytes_out_;
  uint64_t& descriptors_;
  uint64_t& jobs_;
  uint64_t& preemptions_;
};

}  // namespace npu::sim
