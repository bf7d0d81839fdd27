#include "device_memory.h"

#include <algorithm>
#include <cerrno>
#include <string>

#include "npu/drv/driver.h"

namespace npu::drv {
namespace {

constexpr uint64_t kAlignment = 256;
uint64_t align_up(uint64_t v) { return (v + kAlignment - 1) & ~(kAlignment - 1); }

}  // namespace

Result<void> DeviceMemory::configure(uint64_t size, uint64_t kernel_bytes, uint64_t weight_base,
                                     uint64_t weight_bytes) {
  kernel_end_ = kernel_bytes;
  weight_lo_ = weight_base;
  weight_hi_ = weight_base + weight_bytes;
  if (weight_bytes == 0) {
    weight_lo_ = weight_hi_ = size;
  } else if (weight_lo_ < kernel_end_ || weight_hi_ > size) {
    return make_error("weight memory region lies outside usable device memory", EINVAL);
  }
  return {};
}

uint64_t DeviceMemory::weight_pool_bytes() const {
  return has_weight_region() ? weight_hi_ - weight_lo_ : weight_lo_ - kernel_end_;
}

bool DeviceMemory::take_injected_failure() {
  if (!fail_every_ || ++since_failure_ < fail_every_) return false;
  since_failure_ = 0;
  ++injected_;
  return true;
}

Result<uint64_t> DeviceMemory::allocate(uint64_t bytes, Pool pool) {
  uint64_t lo = 0, hi = kernel_end_;
  if (pool == Pool::WEIGHTS && has_weight_region()) {
    lo = weight_lo_, hi = weight_hi_;
  } else if (pool != Pool::KERNEL) {
    lo = kernel_end_, hi = weight_lo_;
  }
  const uint64_t size = align_up(std::max<uint64_t>(bytes, 1));
  uint64_t cursor = lo;
  for (const auto& [addr, len] : allocations_) {
    if (addr + len <= cursor) continue;
    if (addr >= hi || addr >= cursor + size) break;
    cursor = align_up(addr + len);
  }
  // More than the whole range can never fit (ENOSPC); less may once other buffers are freed (ENOMEM).
  if (cursor + size > hi || cursor + size < cursor)
    return make_error(std::string(kOutOfDeviceMemory) + " (" + std::to_string(size) + " bytes)",
                      size > hi - std::min(lo, hi) ? ENOSPC : ENOMEM);
  allocations_[cursor] = size;
  return cursor;
}

void DeviceMemory::release(uint64_t address) { allocations_.erase(address); }

uint64_t DeviceMemory::allocated_bytes() const {
  uint64_t total = 0;
  for (const auto& [addr, len] : allocations_) total += len;
  return total;
}

}  // namespace npu::drv
