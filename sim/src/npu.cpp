#include "npu/sim/npu.h"

#include <cstring>
#include <stdexcept>

#include "npu/sim/core/tlm_compute_core.h"

namespace npu::sim {

std::unique_ptr<ComputeCore> make_tlm_compute_core(const std::string&, const ChannelConfig& cfg,
                                                   const ClockDomain& clock, std::string* error) {
  if (cfg.compute_core != "tlm") {
    *error = "npu.channel.compute_core.model: \"" + cfg.compute_core + "\" is not available in this build";
    return nullptr;
  }
  return std::make_unique<TlmComputeCore>(ArrayGeometry{cfg.array_rows, cfg.array_cols}, clock);
}

Npu::Npu(sc_core::sc_module_name name, const NpuConfig& cfg, stats::Registry& stats,
         const ComputeCoreFactory& core_factory)
    : sc_module(name),
      mmio("mmio"),
      irq("irq"),
      cfg_(cfg),
      clock_(cfg.clock_mhz),
      dram_("dram", cfg.dram, stats),
      mmio_reads_(stats.counter(std::string(this->name()) + ".mmio.reads", "", "Register reads")),
      mmio_writes_(stats.counter(std::string(this->name()) + ".mmio.writes", "", "Register writes")) {
  SC_HAS_PROCESS(Npu);
  mmio.register_b_transport(this, &Npu::b_transport);
  for (uint32_t i = 0; i < cfg.channels; ++i) {
    const std::string ch_name = "ch" + std::to_string(i);
    std::string error;
    // Created while this module is being built, so the core becomes the child npu.<ch>_core.
    auto core = core_factory(ch_name + "_core", cfg.channel, clock_, &error);
    if (!core) throw std::invalid_argument(error);
    channels_.push_back(std::make_unique<Channel>(ch_name.c_str(), i, cfg.channel, clock_, dram_, std::move(core), stats));
    channels_.back()->on_irq_change([this] { update_irq(); });
  }
  SC_METHOD(drive_irq);
  sensitive << irq_update_;
  dont_initialize();
}

void Npu::set_tracer(trace::Tracer* tracer) {
  for (auto& ch : channels_) ch->set_tracer(tracer);
}

uint64_t Npu::cycle() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / clock_.period()); }

uint32_t Npu::read_reg(uint32_t offset) const {
  switch (offset) {
    case regs::NPU_ID: return regs::kNpuIdValue;
    case regs::NPU_VERSION: return regs::kGlobalRegisters[1].reset;
    case regs::NPU_CONFIG:
      return cfg_.channels | ((cfg_.channel.array_rows & 0xFF) << 8) | ((cfg_.channel.array_cols & 0xFF) << 16);
    case regs::NPU_SRAM_KIB: return cfg_.channel.sram_kib;
    case regs::IRQ_STATUS: {
      uint32_t s = 0;
      for (uint32_t i = 0; i < channels_.size(); ++i) s |= (channels_[i]->irq_status() ? 1u : 0u) << i;
      return s;
    }
    case regs::IRQ_MASK: return irq_mask_;
    case regs::CYCLE_LO: return static_cast<uint32_t>(cycle());
    case regs::CYCLE_HI: return static_cast<uint32_t>(cycle() >> 32);
    default: break;
  }
  if (offset >= regs::kChannelBase) {
    const uint32_t ch = (offset - regs::kChannelBase) / regs::kChannelStride;
    if (ch < channels_.size()) return channels_[ch]->read_reg((offset - regs::kChannelBase) % regs::kChannelStride);
  }
  return 0;
}

void Npu::write_reg(uint32_t offset, uint32_t value) {
  if (offset == regs::IRQ_MASK) {
    irq_mask_ = value;
    update_irq();
    return;
  }
  if (offset == regs::GLOBAL_CTRL) {
    if (value & 1) {
      for (auto& ch : channels_) ch->write_reg(regs::CH_CTRL, regs::CH_CTRL_RESET);
    }
    return;
  }
  if (offset >= regs::kChannelBase) {
    const uint32_t ch = (offset - regs::kChannelBase) / regs::kChannelStride;
    if (ch < channels_.size()) channels_[ch]->write_reg((offset - regs::kChannelBase) % regs::kChannelStride, value);
  }
}

void Npu::update_irq() {
  bool level = false;
  for (uint32_t i = 0; i < channels_.size(); ++i) {
    if (((irq_mask_ >> i) & 1) && channels_[i]->irq_status()) level = true;
  }
  irq_level_ = level;
  irq_update_.notify(sc_core::SC_ZERO_TIME);
}

void Npu::drive_irq() { irq.write(irq_level_); }

void Npu::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_data_length() != 4 || (gp.get_address() & 3) || gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const auto offset = static_cast<uint32_t>(gp.get_address());
  uint32_t v = 0;
  if (gp.is_read()) {
    v = read_reg(offset);
    std::memcpy(gp.get_data_ptr(), &v, 4);
    ++mmio_reads_;
  } else if (gp.is_write()) {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    write_reg(offset, v);
    ++mmio_writes_;
  }
  delay += sc_core::sc_time(cfg_.mmio_access_ns, sc_core::SC_NS);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::sim
