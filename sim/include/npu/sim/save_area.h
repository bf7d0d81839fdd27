// Layout of a channel's context save area (CH_SAVE_BASE): a regs::kSaveAreaHeader-byte header, then the
// saved SRAM bytes of each range in order, packed. All fields little-endian uint32.
//   0: magic kSaveMagic ("NPUS")   4: version (1)           8: saved bytes     12: range count
//  16: resume descriptor index     20: flags (kSaveDeclared) 24: SRAM bytes of the channel  28: reserved
//  32: ranges[kMaxSaveRanges] of {offset, bytes}
// kSaveDeclared: the ranges came from a PREEMPT_POINT, so after a restore they stay the declared live set;
// without it they cover SRAM up to a high-water mark.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "npu/regmap/npu_regs.h"
#include "npu/sim/vector_unit.h"

namespace npu::sim {

inline constexpr uint32_t kSaveMagic = 0x5355504E;  // "NPUS"
inline constexpr uint32_t kSaveVersion = 1;
inline constexpr uint32_t kSaveDeclared = 1u << 0;
inline constexpr uint32_t kMaxSaveRanges = (regs::kSaveAreaHeader - 32) / 8;

struct SaveHeader {
  uint32_t resume_index = 0;
  uint32_t flags = 0;
  uint32_t sram_bytes = 0;
  std::vector<SramRange> ranges;  // at most kMaxSaveRanges, sorted, disjoint
  uint64_t saved_bytes() const;
};

// The kSaveAreaHeader bytes of `h`.
std::vector<uint8_t> encode_save_header(const SaveHeader& h);
// nullopt when the bytes are not a valid header for an SRAM of `sram_bytes` (magic, version, range count,
// ranges inside the SRAM, byte count consistent).
std::optional<SaveHeader> decode_save_header(const uint8_t* bytes, uint64_t sram_bytes);

// Sorts and merges overlapping or touching ranges, drops empty ones, then closes the smallest gaps until
// at most `max_ranges` remain (saving a few dead bytes rather than failing).
std::vector<SramRange> coalesce_ranges(std::vector<SramRange> ranges, size_t max_ranges);

}  // namespace npu::sim
