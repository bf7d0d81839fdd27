// Device memory as the driver hands it out: a first-fit allocator over three ranges. At the bottom the
// kernel's (command buffers, checkpoint save areas), then the general pool (buffer objects), then the
// weight-memory region for resident model weights when the hardware has one (without it, weights share
// the general pool). A request larger than its whole range fails ENOSPC, one that only lacks room now
// ENOMEM. Not thread-safe: the driver calls it under its lock.
#pragma once

#include <cstdint>
#include <map>

#include "npu/common/result.h"

namespace npu::drv {

class DeviceMemory {
 public:
  enum class Pool { KERNEL, GENERAL, WEIGHTS };

  // [0, kernel_bytes) is the kernel's; the weight region is [weight_base, weight_base + weight_bytes)
  // (weight_bytes 0: none). EINVAL when the ranges do not fit in `size` bytes.
  Result<void> configure(uint64_t size, uint64_t kernel_bytes, uint64_t weight_base, uint64_t weight_bytes);
  Result<uint64_t> allocate(uint64_t bytes, Pool pool);
  void release(uint64_t address);

  bool has_weight_region() const { return weight_hi_ > weight_lo_; }
  // What Pool::WEIGHTS draws from: the weight region, or the general pool without one.
  uint64_t weight_pool_bytes() const;
  uint64_t allocated_bytes() const;

  // Fault injection for stress tests: every `every`-th buffer-object allocation fails as if memory were
  // full (0: off). take_injected_failure() is asked once per buffer-object allocation.
  void inject_failures(uint32_t every) {
    fail_every_ = every;
    since_failure_ = 0;
  }
  bool take_injected_failure();
  uint64_t injected_failures() const { return injected_; }

 private:
  uint64_t kernel_end_ = 0;
  uint64_t weight_lo_ = 0, weight_hi_ = 0;    // empty at the top of memory when there is no region
  std::map<uint64_t, uint64_t> allocations_;  // address → size
  uint32_t fail_every_ = 0, since_failure_ = 0;
  uint64_t injected_ = 0;
};

}  // namespace npu::drv
