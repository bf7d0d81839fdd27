// The NPU's interrupt line, split as Linux drivers split it: the top half (interrupt context) only reads
// and acknowledges the pending sources and records them; the bottom half, a kernel thread, takes the big
// lock and hands each recorded event to the driver's handlers, each event charged its CPU time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "npu/drv/driver.h"

namespace npu::drv {

class Interrupts {
 public:
  struct Handlers {
    std::function<void(uint32_t channel, uint32_t bits)> channel;  // CH_IRQ_STATUS bits of one channel
    std::function<void()> thermal;                                 // THERM_IRQ_STATUS had bits set
    std::function<void()> after_events;                            // once per batch that had any
  };
  Interrupts(Hardware& hw, Os& os, KernelLock& lock, const DriverConfig& cfg, Handlers handlers)
      : hw_(hw), os_(os), lock_(lock), cfg_(cfg), handlers_(std::move(handlers)) {}

  // Per-channel state for `channels`; call at probe.
  void probe(uint32_t channels);
  // Installs the top half on the line (before the sources are unmasked).
  void install();
  // Spawns the bottom half.
  void start();
  // Forgets events recorded for `channel` (its buffer was aborted: a reset raises nothing afterwards).
  void drop(uint32_t channel) { pending_[channel] = 0; }

 private:
  void top_half();
  void bottom_half();

  Hardware& hw_;
  Os& os_;
  KernelLock& lock_;
  const DriverConfig& cfg_;
  Handlers handlers_;
  std::vector<uint32_t> pending_;  // per channel, recorded by the top half
  uint32_t pending_thermal_ = 0;   // THERM_IRQ_STATUS bits recorded by the top half
  std::unique_ptr<WaitQueue> wake_;
};

}  // namespace npu::drv
