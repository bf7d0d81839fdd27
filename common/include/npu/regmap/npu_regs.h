// The NPU register map: the single source of truth. The simulated register file (sim/) is built from
// this table and the driver (driver/) programs the hardware through the same constants;
// docs/register_map.md is generated from it (`npusim regmap`). Offsets are bytes from the MMIO base.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace npu::regs {

enum class Access { RO, RW, W1C, WO };

struct Register {
  std::string_view name;
  uint32_t offset;
  Access access;
  uint32_t reset;
  std::string_view description;
};

inline constexpr uint32_t kNpuIdValue = 0x4E505531;  // "NPU1"

// Global block.
inline constexpr uint32_t NPU_ID = 0x000;
inline constexpr uint32_t NPU_VERSION = 0x004;
inline constexpr uint32_t NPU_CONFIG = 0x008;
inline constexpr uint32_t NPU_SRAM_KIB = 0x00C;
inline constexpr uint32_t IRQ_STATUS = 0x010;
inline constexpr uint32_t IRQ_MASK = 0x014;
inline constexpr uint32_t GLOBAL_CTRL = 0x018;
inline constexpr uint32_t CYCLE_LO = 0x020;
inline constexpr uint32_t CYCLE_HI = 0x024;

inline constexpr std::array<Register, 9> kGlobalRegisters{{
    {"NPU_ID", NPU_ID, Access::RO, kNpuIdValue, "Identification, reads 0x4E505531 (\"NPU1\")"},
    {"NPU_VERSION", NPU_VERSION, Access::RO, 0x00010000, "Hardware version: major[31:16] minor[15:0]"},
    {"NPU_CONFIG", NPU_CONFIG, Access::RO, 0, "channels[7:0] array_rows[15:8] array_cols[23:16]"},
    {"NPU_SRAM_KIB", NPU_SRAM_KIB, Access::RO, 0, "Scratchpad SRAM per channel, KiB"},
    {"IRQ_STATUS", IRQ_STATUS, Access::RO, 0, "bit n: channel n has a pending event in CH_IRQ_STATUS"},
    {"IRQ_MASK", IRQ_MASK, Access::RW, 0, "bit n: 1 enables channel n's interrupt"},
    {"GLOBAL_CTRL", GLOBAL_CTRL, Access::WO, 0, "bit0: soft reset of every channel"},
    {"CYCLE_LO", CYCLE_LO, Access::RO, 0, "Free-running NPU cycle counter, low word"},
    {"CYCLE_HI", CYCLE_HI, Access::RO, 0, "Free-running NPU cycle counter, high word"},
}};

// Channel block n starts at channel_base(n).
inline constexpr uint32_t kChannelBase = 0x1000;
inline constexpr uint32_t kChannelStride = 0x100;
inline constexpr uint32_t kMaxChannels = 16;
constexpr uint32_t channel_base(uint32_t ch) { return kChannelBase + ch * kChannelStride; }

inline constexpr uint32_t CH_CMD_BASE_LO = 0x00;
inline constexpr uint32_t CH_CMD_BASE_HI = 0x04;
inline constexpr uint32_t CH_CMD_COUNT = 0x08;
inline constexpr uint32_t CH_DOORBELL = 0x0C;
inline constexpr uint32_t CH_STATUS = 0x10;
inline constexpr uint32_t CH_PROGRESS = 0x14;
inline constexpr uint32_t CH_CTRL = 0x18;
inline constexpr uint32_t CH_CYCLES_LO = 0x1C;
inline constexpr uint32_t CH_CYCLES_HI = 0x20;
inline constexpr uint32_t CH_IRQ_STATUS = 0x24;

inline constexpr std::array<Register, 10> kChannelRegisters{{
    {"CH_CMD_BASE_LO", CH_CMD_BASE_LO, Access::RW, 0, "Device address of the command buffer, low word"},
    {"CH_CMD_BASE_HI", CH_CMD_BASE_HI, Access::RW, 0, "Device address of the command buffer, high word"},
    {"CH_CMD_COUNT", CH_CMD_COUNT, Access::RW, 0, "Number of 128-byte descriptors in the command buffer"},
    {"CH_DOORBELL", CH_DOORBELL, Access::WO, 0, "Write 1: start fetching descriptors from CH_CMD_BASE"},
    {"CH_STATUS", CH_STATUS, Access::RO, 0, "state[3:0] (ChannelState), error[15:8] (ChannelError)"},
    {"CH_PROGRESS", CH_PROGRESS, Access::RO, 0, "Descriptors completed in the current command buffer"},
    {"CH_CTRL", CH_CTRL, Access::WO, 0, "bit0: preempt at the next descriptor boundary; bit1: reset"},
    {"CH_CYCLES_LO", CH_CYCLES_LO, Access::RO, 0, "Busy cycles of the last command buffer, low word"},
    {"CH_CYCLES_HI", CH_CYCLES_HI, Access::RO, 0, "Busy cycles of the last command buffer, high word"},
    {"CH_IRQ_STATUS", CH_IRQ_STATUS, Access::W1C, 0, "bit0 DONE, bit1 ERROR, bit2 PREEMPTED; write 1 clears"},
}};

enum class ChannelState : uint32_t { IDLE = 0, BUSY = 1, DONE = 2, ERROR = 3, PREEMPTED = 4 };
enum class ChannelError : uint32_t {
  NONE = 0,
  BAD_DESCRIPTOR = 1,   // unknown opcode or fields out of range
  DMA_FAULT = 2,        // address outside device memory
  SRAM_OVERFLOW = 3,    // operand does not fit the scratchpad
};

inline constexpr uint32_t CH_IRQ_DONE = 1u << 0;
inline constexpr uint32_t CH_IRQ_ERROR = 1u << 1;
inline constexpr uint32_t CH_IRQ_PREEMPTED = 1u << 2;
inline constexpr uint32_t CH_CTRL_PREEMPT = 1u << 0;
inline constexpr uint32_t CH_CTRL_RESET = 1u << 1;

// Symbolic name of an MMIO offset ("CH2.CH_STATUS"), for register-access logs.
std::string register_name(uint32_t offset);

}  // namespace npu::regs
