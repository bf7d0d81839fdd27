#include <cstdio>
#include <string>

#include "npu/regmap/npu_regs.h"

namespace npu::regs {

std::string register_name(uint32_t offset) {
  for (const auto& r : kGlobalRegisters) {
    if (r.offset == offset) return std::string(r.name);
  }
  for (const auto& r : kThermalRegisters) {
    if (r.offset == offset) return std::string(r.name);
  }
  if (offset >= kChannelBase && offset < channel_base(kMaxChannels)) {
    const uint32_t ch = (offset - kChannelBase) / kChannelStride;
    const uint32_t local = (offset - kChannelBase) % kChannelStride;
    for (const auto& r : kChannelRegisters) {
      if (r.offset == local) return "CH" + std::to_string(ch) + "." + std::string(r.name);
    }
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", offset);
  return std::string("UNMAPPED@") + hex;
}

const Register* find_register(uint32_t offset) {
  for (const auto& r : kGlobalRegisters) {
    if (r.offset == offset) return &r;
  }
  for (const auto& r : kThermalRegisters) {
    if (r.offset == offset) return &r;
  }
  if (offset >= kChannelBase && offset < channel_base(kMaxChannels)) {
    const uint32_t local = (offset - kChannelBase) % kChannelStride;
    for (const auto& r : kChannelRegisters) {
      if (r.offset == local) return &r;
    }
  }
  return nullptr;
}

}  // namespace npu::regs
