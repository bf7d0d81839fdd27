#include "interrupts.h"

#include <mutex>

#include "npu/regmap/npu_regs.h"

namespace npu::drv {

void Interrupts::probe(uint32_t channels) {
  pending_.assign(channels, 0);
  wake_ = os_.make_wait_queue();
}

void Interrupts::install() {
  hw_.irq.set_handler([this] { top_half(); });
}

void Interrupts::start() {
  os_.spawn("npu_bottom_half", [this] { bottom_half(); });
}

void Interrupts::top_half() {
  os_.delay_ns(cfg_.irq_top_half_ns);
  const uint32_t pending = hw_.regs.read32(regs::IRQ_STATUS);
  for (uint32_t ch = 0; ch < pending_.size(); ++ch) {
    if (!(pending & regs::IRQ_CHANNELS.bit(ch))) continue;
    const uint32_t base = regs::channel_base(ch);
    const uint32_t bits = hw_.regs.read32(base + regs::CH_IRQ_STATUS);
    hw_.regs.write32(base + regs::CH_IRQ_STATUS, bits);
    pending_[ch] |= bits;
  }
  if (pending & regs::IRQ_THERMAL) {
    const uint32_t bits = hw_.regs.read32(regs::THERM_IRQ_STATUS);
    hw_.regs.write32(regs::THERM_IRQ_STATUS, bits);
    pending_thermal_ |= bits;
  }
  wake_->wake_all();
}

void Interrupts::bottom_half() {
  for (;;) {
    bool any = false;
    {
      std::lock_guard guard(lock_);
      for (uint32_t ch = 0; ch < pending_.size(); ++ch) {
        const uint32_t bits = pending_[ch];
        if (!bits) continue;
        pending_[ch] = 0;
        any = true;
        os_.delay_ns(cfg_.bottom_half_ns);
        handlers_.channel(ch, bits);
      }
      if (pending_thermal_) {
        pending_thermal_ = 0;
        any = true;
        os_.delay_ns(cfg_.bottom_half_ns);
        handlers_.thermal();
      }
      if (any) handlers_.after_events();
    }
    // No yield between the last check and the wait, so a top half cannot slip in between.
    if (!any) wake_->wait();
  }
}

}  // namespace npu::drv
