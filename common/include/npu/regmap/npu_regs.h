// The NPU register map: the single source of truth. The simulated register file (sim/) is built from
// this table and the driver (driver/) programs the hardware through the same constants;
// docs/register_map.md is generated from it (`npusim regmap`). Offsets are bytes from the MMIO base.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "npu/common/enum_table.h"

namespace npu::regs {

enum class Access { RO, RW, W1C, WO };

struct Register {
  std::string_view name;
  uint32_t offset;
  Access access;
  uint32_t reset;
  std::string_view description;
};

// A bit-field of a register: bits [shift, shift + width). The sim encodes and the driver decodes through
// the same fields, so a layout is written once.
struct Field {
  uint32_t shift;
  uint32_t width;
  constexpr uint32_t mask() const { return (width >= 32 ? ~0u : (1u << width) - 1u) << shift; }
  constexpr uint32_t get(uint32_t reg) const { return (reg & mask()) >> shift; }
  // `value` placed in the field (bits beyond its width dropped).
  constexpr uint32_t put(uint32_t value) const { return (value << shift) & mask(); }
  // Bit i of the field alone, for fields of per-index flags (channel n, trip i).
  constexpr uint32_t bit(uint32_t i) const { return i < width ? 1u << (shift + i) : 0u; }
  // The field a contiguous mask covers, so a one-bit flag defined as a mask is described once.
  static constexpr Field of_mask(uint32_t m) {
    uint32_t s = 0, w = 0;
    while (s < 32 && !((m >> s) & 1u)) ++s;
    while (s + w < 32 && ((m >> (s + w)) & 1u)) ++w;
    return Field{s, w};
  }
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
inline constexpr uint32_t NPU_CONFIG2 = 0x01C;
inline constexpr uint32_t CYCLE_LO = 0x020;
inline constexpr uint32_t CYCLE_HI = 0x024;
inline constexpr uint32_t WEIGHT_MEM_BASE_MIB = 0x028;
inline constexpr uint32_t WEIGHT_MEM_MIB = 0x02C;
inline constexpr uint32_t DRAM_MIB = 0x030;
inline constexpr uint32_t NPU_CAPS = 0x034;

inline constexpr std::array<Register, 14> kGlobalRegisters{{
    {"NPU_ID", NPU_ID, Access::RO, kNpuIdValue, "Identification, reads 0x4E505531 (\"NPU1\")"},
    {"NPU_VERSION", NPU_VERSION, Access::RO, 0x00020000, "Hardware version: major[31:16] minor[15:0]"},
    {"NPU_CONFIG", NPU_CONFIG, Access::RO, 0, "channels[7:0] array_rows[15:8] array_cols[23:16]"},
    {"NPU_SRAM_KIB", NPU_SRAM_KIB, Access::RO, 0, "Scratchpad SRAM per channel, KiB"},
    {"IRQ_STATUS", IRQ_STATUS, Access::W1C, 0,
     "channels[15:0]: bit n, channel n has a pending event in CH_IRQ_STATUS; thermal[16]: THERM_IRQ_STATUS "
     "pending; dvfs[17]: DVFS transition done, write 1 clears (the others clear at their source)"},
    {"IRQ_MASK", IRQ_MASK, Access::RW, 0, "Same bits as IRQ_STATUS; 1 enables the source"},
    {"GLOBAL_CTRL", GLOBAL_CTRL, Access::WO, 0, "soft_reset[0]: reset every channel (aborts running work)"},
    {"NPU_CONFIG2", NPU_CONFIG2, Access::RO, 0, "vector_lanes[15:0] sram_banks[23:16] dvfs_points[27:24]"},
    {"CYCLE_LO", CYCLE_LO, Access::RO, 0, "Free-running NPU cycle counter, low word"},
    {"CYCLE_HI", CYCLE_HI, Access::RO, 0, "Free-running NPU cycle counter, high word"},
    {"WEIGHT_MEM_BASE_MIB", WEIGHT_MEM_BASE_MIB, Access::RO, 0,
     "Start of the weight-memory region in device memory, MiB (resident model weights)"},
    {"WEIGHT_MEM_MIB", WEIGHT_MEM_MIB, Access::RO, 0, "Size of the weight-memory region, MiB"},
    {"DRAM_MIB", DRAM_MIB, Access::RO, 0, "Device memory size, MiB"},
    {"NPU_CAPS", NPU_CAPS, Access::RO, 0,
     "save_restore[0]: context save/restore; functional[1]: 0 = timing-only, no data moved; fault_inject[2]: "
     "fault injection"},
}};

// NPU_CONFIG and NPU_CONFIG2 fields.
inline constexpr Field CONFIG_CHANNELS{0, 8};
inline constexpr Field CONFIG_ARRAY_ROWS{8, 8};
inline constexpr Field CONFIG_ARRAY_COLS{16, 8};
inline constexpr Field CONFIG2_VECTOR_LANES{0, 16};
inline constexpr Field CONFIG2_SRAM_BANKS{16, 8};
inline constexpr Field CONFIG2_DVFS_POINTS{24, 4};

// NPU_VERSION fields.
inline constexpr Field VERSION_MAJOR{16, 16};
inline constexpr Field VERSION_MINOR{0, 16};

// IRQ_STATUS and IRQ_MASK: IRQ_CHANNELS.bit(n) is channel n.
inline constexpr Field IRQ_CHANNELS{0, 16};
inline constexpr uint32_t IRQ_THERMAL = 1u << 16;
inline constexpr uint32_t IRQ_DVFS = 1u << 17;
inline constexpr uint32_t GLOBAL_CTRL_SOFT_RESET = 1u << 0;
inline constexpr uint32_t CAPS_SAVE_RESTORE = 1u << 0;
inline constexpr uint32_t CAPS_FUNCTIONAL = 1u << 1;
inline constexpr uint32_t CAPS_FAULT_INJECT = 1u << 2;

// Thermal sensor, power meter and DVFS controller block. Temperatures are signed milli-degrees Celsius.
inline constexpr uint32_t kThermalTrips = 4;  // light, moderate, severe, critical
inline constexpr uint32_t kDvfsPoints = 4;    // opp0 is the fastest
inline constexpr uint32_t THERM_TEMP = 0x200;
inline constexpr uint32_t THERM_SKIN_TEMP = 0x204;
inline constexpr uint32_t THERM_TRIP_STATUS = 0x208;
inline constexpr uint32_t THERM_IRQ_STATUS = 0x20C;
constexpr uint32_t THERM_TRIP(uint32_t i) { return 0x210 + 4 * i; }
constexpr uint32_t THERM_HYST(uint32_t i) { return 0x220 + 4 * i; }
inline constexpr uint32_t PWR_POWER_MW = 0x230;
inline constexpr uint32_t PWR_ENERGY_UJ_LO = 0x234;
inline constexpr uint32_t PWR_ENERGY_UJ_HI = 0x238;
inline constexpr uint32_t DVFS_OPP = 0x240;
inline constexpr uint32_t DVFS_STATUS = 0x244;
constexpr uint32_t DVFS_OPP_MHZ(uint32_t i) { return 0x250 + 4 * i; }
constexpr uint32_t DVFS_OPP_MV(uint32_t i) { return 0x260 + 4 * i; }

// THERM_TRIP_STATUS, THERM_IRQ_STATUS and DVFS_STATUS fields; .bit(i) is trip i.
inline constexpr Field THERM_TRIP_ASSERTED{0, kThermalTrips};
inline constexpr Field THERM_IRQ_UP{0, kThermalTrips};
inline constexpr Field THERM_IRQ_REARM{4, kThermalTrips};
inline constexpr Field DVFS_STATUS_POINT{0, 4};
inline constexpr Field DVFS_STATUS_PENDING{8, 1};

inline constexpr std::array<Register, 25> kThermalRegisters{{
    {"THERM_TEMP", THERM_TEMP, Access::RO, 0, "Junction temperature at the last sensor sample, m°C (signed)"},
    {"THERM_SKIN_TEMP", THERM_SKIN_TEMP, Access::RO, 0, "Skin temperature at the last sample, m°C (signed)"},
    {"THERM_TRIP_STATUS", THERM_TRIP_STATUS, Access::RO, 0,
     "asserted[3:0]: bit i, trip i is reached and not yet re-armed below its hysteresis"},
    {"THERM_IRQ_STATUS", THERM_IRQ_STATUS, Access::W1C, 0,
     "up[3:0]: bit i, trip i crossed upward; rearm[7:4]: bit i, trip i re-armed (crossed down past its "
     "hysteresis); write 1 clears"},
    {"THERM_TRIP0", THERM_TRIP(0), Access::RW, 0, "Trip 0 (light) threshold, m°C"},
    {"THERM_TRIP1", THERM_TRIP(1), Access::RW, 0, "Trip 1 (moderate) threshold, m°C"},
    {"THERM_TRIP2", THERM_TRIP(2), Access::RW, 0, "Trip 2 (severe) threshold, m°C"},
    {"THERM_TRIP3", THERM_TRIP(3), Access::RW, 0, "Trip 3 (critical) threshold, m°C"},
    {"THERM_HYST0", THERM_HYST(0), Access::RW, 0, "Trip 0 hysteresis, m°C"},
    {"THERM_HYST1", THERM_HYST(1), Access::RW, 0, "Trip 1 hysteresis, m°C"},
    {"THERM_HYST2", THERM_HYST(2), Access::RW, 0, "Trip 2 hysteresis, m°C"},
    {"THERM_HYST3", THERM_HYST(3), Access::RW, 0, "Trip 3 hysteresis, m°C"},
    {"PWR_POWER_MW", PWR_POWER_MW, Access::RO, 0, "Average NPU power over the last sensor sample period, mW"},
    {"PWR_ENERGY_UJ_LO", PWR_ENERGY_UJ_LO, Access::RO, 0, "Energy since reset, µJ, low word"},
    {"PWR_ENERGY_UJ_HI", PWR_ENERGY_UJ_HI, Access::RO, 0, "Energy since reset, µJ, high word"},
    {"DVFS_OPP", DVFS_OPP, Access::RW, 0,
     "Requested operating point (0 = fastest); applies after the transition latency"},
    {"DVFS_STATUS", DVFS_STATUS, Access::RO, 0,
     "point[3:0]: current operating point; pending[8]: transition pending"},
    {"DVFS_OPP0_MHZ", DVFS_OPP_MHZ(0), Access::RO, 0, "Operating point 0 frequency, MHz"},
    {"DVFS_OPP1_MHZ", DVFS_OPP_MHZ(1), Access::RO, 0, "Operating point 1 frequency, MHz"},
    {"DVFS_OPP2_MHZ", DVFS_OPP_MHZ(2), Access::RO, 0, "Operating point 2 frequency, MHz"},
    {"DVFS_OPP3_MHZ", DVFS_OPP_MHZ(3), Access::RO, 0, "Operating point 3 frequency, MHz"},
    {"DVFS_OPP0_MV", DVFS_OPP_MV(0), Access::RO, 0, "Operating point 0 voltage, mV"},
    {"DVFS_OPP1_MV", DVFS_OPP_MV(1), Access::RO, 0, "Operating point 1 voltage, mV"},
    {"DVFS_OPP2_MV", DVFS_OPP_MV(2), Access::RO, 0, "Operating point 2 voltage, mV"},
    {"DVFS_OPP3_MV", DVFS_OPP_MV(3), Access::RO, 0, "Operating point 3 voltage, mV"},
}};

// Channel block n starts at channel_base(n).
inline constexpr uint32_t kChannelBase = 0x1000;
inline constexpr uint32_t kChannelStride = 0x100;
inline constexpr uint32_t kMaxChannels = 16;
constexpr uint32_t channel_base(uint32_t ch) { return kChannelBase + ch * kChannelStride; }
static_assert(IRQ_CHANNELS.width == kMaxChannels, "IRQ_STATUS has a bit per channel");

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
inline constexpr uint32_t CH_CMD_START = 0x28;
inline constexpr uint32_t CH_SAVE_BASE_LO = 0x2C;
inline constexpr uint32_t CH_SAVE_BASE_HI = 0x30;
inline constexpr uint32_t CH_SAVE_BYTES = 0x34;
inline constexpr uint32_t CH_ENERGY_LO = 0x38;
inline constexpr uint32_t CH_ENERGY_HI = 0x3C;
inline constexpr uint32_t CH_ERROR_INDEX = 0x40;
inline constexpr uint32_t CH_FAULT_INJECT = 0x44;

inline constexpr std::array<Register, 18> kChannelRegisters{{
    {"CH_CMD_BASE_LO", CH_CMD_BASE_LO, Access::RW, 0, "Device address of the command buffer, low word"},
    {"CH_CMD_BASE_HI", CH_CMD_BASE_HI, Access::RW, 0, "Device address of the command buffer, high word"},
    {"CH_CMD_COUNT", CH_CMD_COUNT, Access::RW, 0, "Number of 128-byte descriptors in the command buffer"},
    {"CH_DOORBELL", CH_DOORBELL, Access::WO, 0,
     "start[0]: start at descriptor CH_CMD_START; restore[1]: first restore CH_SAVE_BYTES of SRAM from "
     "CH_SAVE_BASE; timing_only[2]: this command buffer moves and computes no data"},
    {"CH_STATUS", CH_STATUS, Access::RO, 0, "state[3:0] (ChannelState), error[15:8] (ChannelError)"},
    {"CH_PROGRESS", CH_PROGRESS, Access::RO, 0,
     "Index of the first descriptor not completed (after PREEMPTED: where to resume)"},
    {"CH_CTRL", CH_CTRL, Access::WO, 0,
     "preempt[0]: stop at the next descriptor boundary, saving live SRAM to CH_SAVE_BASE; reset[1]: abort"},
    {"CH_CYCLES_LO", CH_CYCLES_LO, Access::RO, 0, "Busy cycles of the last command buffer, low word"},
    {"CH_CYCLES_HI", CH_CYCLES_HI, Access::RO, 0, "Busy cycles of the last command buffer, high word"},
    {"CH_IRQ_STATUS", CH_IRQ_STATUS, Access::W1C, 0, "done[0], error[1], preempted[2]; write 1 clears"},
    {"CH_CMD_START", CH_CMD_START, Access::RW, 0,
     "First descriptor index the doorbell starts at (resume point)"},
    {"CH_SAVE_BASE_LO", CH_SAVE_BASE_LO, Access::RW, 0,
     "Device address of the context save area (kSaveAreaHeader + SRAM size bytes), low word"},
    {"CH_SAVE_BASE_HI", CH_SAVE_BASE_HI, Access::RW, 0, "Device address of the context save area, high word"},
    {"CH_SAVE_BYTES", CH_SAVE_BYTES, Access::RO, 0, "SRAM bytes saved by the last preemption"},
    {"CH_ENERGY_LO", CH_ENERGY_LO, Access::RO, 0, "Dynamic energy of the last command buffer, pJ, low word"},
    {"CH_ENERGY_HI", CH_ENERGY_HI, Access::RO, 0, "Dynamic energy of the last command buffer, pJ, high word"},
    {"CH_ERROR_INDEX", CH_ERROR_INDEX, Access::RO, 0, "Index of the descriptor that raised the last error"},
    {"CH_FAULT_INJECT", CH_FAULT_INJECT, Access::WO, 0,
     "Debug: kind[3:0] (FaultKind) armed to strike at descriptor index[31:8] of the next command buffer; "
     "sram_bit[6:4]: the bit an SRAM_ECC upset flips when the SRAM has no ECC"},
}};

enum class ChannelState : uint32_t { IDLE = 0, BUSY = 1, DONE = 2, ERROR = 3, PREEMPTED = 4 };
enum class ChannelError : uint32_t {
  NONE = 0,
  BAD_DESCRIPTOR = 1,      // unknown opcode or fields out of range
  DMA_FAULT = 2,           // address outside device memory, or an injected DMA error
  SRAM_OVERFLOW = 3,       // operand does not fit the scratchpad
  SRAM_ECC = 4,            // uncorrectable SRAM error (an injected upset, SRAM with ECC)
  INDEX_OUT_OF_RANGE = 5,  // a DMA_GATHER index outside its table
};
// Faults the hardware can be told to inject (CH_FAULT_INJECT, config npu.faults.*, or the Npu API).
// HANG: the channel stops making progress and never raises an interrupt until reset.
enum class FaultKind : uint32_t { NONE = 0, HANG = 1, DMA_ERROR = 2, SRAM_ECC = 3, THERMAL_RUNAWAY = 4 };
// The names npu.faults.kind and the fault soak's report use.
inline constexpr enums::Entry<FaultKind> kFaultKindNames[] = {
    {FaultKind::NONE, "none"},
    {FaultKind::HANG, "hang"},
    {FaultKind::DMA_ERROR, "dma_error"},
    {FaultKind::SRAM_ECC, "sram_ecc"},
    {FaultKind::THERMAL_RUNAWAY, "thermal_runaway"}};
constexpr const auto& enum_table(FaultKind) { return kFaultKindNames; }

// CH_STATUS and CH_FAULT_INJECT fields.
inline constexpr Field CH_STATUS_STATE{0, 4};
inline constexpr Field CH_STATUS_ERROR{8, 8};
inline constexpr Field CH_FAULT_INJECT_KIND{0, 4};
inline constexpr Field CH_FAULT_INJECT_SRAM_BIT{4, 3};
inline constexpr Field CH_FAULT_INJECT_INDEX{8, 24};

inline constexpr uint32_t CH_IRQ_DONE = 1u << 0;
inline constexpr uint32_t CH_IRQ_ERROR = 1u << 1;
inline constexpr uint32_t CH_IRQ_PREEMPTED = 1u << 2;
inline constexpr uint32_t CH_CTRL_PREEMPT = 1u << 0;
inline constexpr uint32_t CH_CTRL_RESET = 1u << 1;
inline constexpr uint32_t CH_DOORBELL_START = 1u << 0;
inline constexpr uint32_t CH_DOORBELL_RESTORE = 1u << 1;
inline constexpr uint32_t CH_DOORBELL_TIMING_ONLY = 1u << 2;
// The save area starts with a header (magic, saved byte count, SRAM ranges), then the saved bytes.
inline constexpr uint32_t kSaveAreaHeader = 256;

// Every named field by register, as the descriptions name them ("state[3:0]"): the tests check each is
// in its register's description and that the fields of a register do not overlap.
struct NamedField {
  std::string_view reg;
  std::string_view name;
  Field field;
};
inline constexpr std::array<NamedField, 33> kFields{{
    {"NPU_VERSION", "major", VERSION_MAJOR},
    {"NPU_VERSION", "minor", VERSION_MINOR},
    {"NPU_CONFIG", "channels", CONFIG_CHANNELS},
    {"NPU_CONFIG", "array_rows", CONFIG_ARRAY_ROWS},
    {"NPU_CONFIG", "array_cols", CONFIG_ARRAY_COLS},
    {"IRQ_STATUS", "channels", IRQ_CHANNELS},
    {"IRQ_STATUS", "thermal", Field::of_mask(IRQ_THERMAL)},
    {"IRQ_STATUS", "dvfs", Field::of_mask(IRQ_DVFS)},
    {"GLOBAL_CTRL", "soft_reset", Field::of_mask(GLOBAL_CTRL_SOFT_RESET)},
    {"NPU_CONFIG2", "vector_lanes", CONFIG2_VECTOR_LANES},
    {"NPU_CONFIG2", "sram_banks", CONFIG2_SRAM_BANKS},
    {"NPU_CONFIG2", "dvfs_points", CONFIG2_DVFS_POINTS},
    {"NPU_CAPS", "save_restore", Field::of_mask(CAPS_SAVE_RESTORE)},
    {"NPU_CAPS", "functional", Field::of_mask(CAPS_FUNCTIONAL)},
    {"NPU_CAPS", "fault_inject", Field::of_mask(CAPS_FAULT_INJECT)},
    {"THERM_TRIP_STATUS", "asserted", THERM_TRIP_ASSERTED},
    {"THERM_IRQ_STATUS", "up", THERM_IRQ_UP},
    {"THERM_IRQ_STATUS", "rearm", THERM_IRQ_REARM},
    {"DVFS_STATUS", "point", DVFS_STATUS_POINT},
    {"DVFS_STATUS", "pending", DVFS_STATUS_PENDING},
    {"CH_DOORBELL", "start", Field::of_mask(CH_DOORBELL_START)},
    {"CH_DOORBELL", "restore", Field::of_mask(CH_DOORBELL_RESTORE)},
    {"CH_DOORBELL", "timing_only", Field::of_mask(CH_DOORBELL_TIMING_ONLY)},
    {"CH_STATUS", "state", CH_STATUS_STATE},
    {"CH_STATUS", "error", CH_STATUS_ERROR},
    {"CH_CTRL", "preempt", Field::of_mask(CH_CTRL_PREEMPT)},
    {"CH_CTRL", "reset", Field::of_mask(CH_CTRL_RESET)},
    {"CH_IRQ_STATUS", "done", Field::of_mask(CH_IRQ_DONE)},
    {"CH_IRQ_STATUS", "error", Field::of_mask(CH_IRQ_ERROR)},
    {"CH_IRQ_STATUS", "preempted", Field::of_mask(CH_IRQ_PREEMPTED)},
    {"CH_FAULT_INJECT", "kind", CH_FAULT_INJECT_KIND},
    {"CH_FAULT_INJECT", "sram_bit", CH_FAULT_INJECT_SRAM_BIT},
    {"CH_FAULT_INJECT", "index", CH_FAULT_INJECT_INDEX},
}};

// Symbolic name of an MMIO offset ("CH2.CH_STATUS"), for register-access logs.
std::string register_name(uint32_t offset);
// The table entry of an MMIO offset (a channel register of channel n < kMaxChannels), or nullptr.
const Register* find_register(uint32_t offset);

}  // namespace npu::regs
