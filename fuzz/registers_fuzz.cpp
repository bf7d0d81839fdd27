// Register writes from a buggy driver into the simulated NPU: the bytes are a program of register
// writes and reads anywhere in the register window, waits, and descriptor and data words placed in a
// device-memory scratch area that command-buffer base registers may point at (or not). The driver is
// not probed, so nothing but the input touches the registers. Property: the NPU model survives any
// sequence (no crash, no sanitizer report, no hang of the simulation itself); a soft reset before and
// after each input puts every channel back to idle.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"
#include "platform.h"

namespace {

using namespace npu;

constexpr uint64_t kScratch = 1ull << 20;  // device address of the 64 KiB area the input fills
constexpr uint64_t kScratchBytes = 64 * 1024;
constexpr size_t kMaxOps = 128;

void soft_reset(drv::RegisterBus& r) { r.write32(regs::GLOBAL_CTRL, regs::GLOBAL_CTRL_SOFT_RESET); }

void program(system::System& s, fuzz::Bytes& in) {
  drv::RegisterBus& r = s.debug_registers();
  sim::Dram& dram = s.npu().dram();
  soft_reset(r);
  const std::vector<uint8_t> zero(kScratchBytes, 0);
  dram.write(kScratch, zero.data(), zero.size());
  uint64_t waited_ns = 0;
  for (size_t op = 0; op < kMaxOps && !in.empty(); ++op) {
    const uint8_t code = in.u8();
    switch (code % 6) {
      case 0:    // write anywhere in the window (unaligned offsets included: the bus must refuse them)
      case 1: {  // ... or a channel register, which is where the state is
        uint32_t off = 0;
        if (code % 6 == 0) {
          off = in.u16() % 0x2000;
        } else {
          off = regs::channel_base(in.u8() % 8);
          off += (in.u8() % 0x50) * 4;
        }
        r.write32(off, in.u32());
        break;
      }
      case 2:
        (void)r.read32(in.u16() % 0x2000);
        break;
      case 3: {  // a command buffer base inside the scratch area
        const uint32_t ch = in.u8() % 8;
        const uint64_t base = kScratch + (in.u16() % 512) * desc::kDescriptorBytes;
        r.write32(regs::channel_base(ch) + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(base));
        r.write32(regs::channel_base(ch) + regs::CH_CMD_BASE_HI, static_cast<uint32_t>(base >> 32));
        r.write32(regs::channel_base(ch) + regs::CH_CMD_COUNT, in.u8() % 16);
        break;
      }
      case 4: {  // a descriptor (or any data) into the scratch area
        const uint64_t at = (in.u16() % 512) * desc::kDescriptorBytes;
        const auto bytes = in.take(desc::kDescriptorBytes);
        dram.write(kScratch + at, bytes.data(), bytes.size());
        break;
      }
      case 5: {  // time for the channels to run (2 ms at most over the input)
        const uint64_t ns = in.u16() * 20ull;
        if (waited_ns + ns > 2'000'000) break;
        waited_ns += ns;
        s.os().delay_ns(ns);
        break;
      }
    }
  }
  soft_reset(r);  // aborts whatever still runs: the next input starts from idle channels
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  if (!fuzz::run_input([&](system::System& s) { program(s, in); }, 0.1, /*probe_driver=*/false)) std::abort();
  return 0;
}
