// A channel's banked scratchpad SRAM: the bytes, and the bank-conflict cost of strided accesses.
// Banks are interleaved every `bank_bytes` bytes (bank of byte a = (a / bank_bytes) mod banks); a bank
// serves one access of up to bank_bytes per cycle. An engine moving `port_bytes` per cycle streams a row
// of at least that many bytes over consecutive banks, which never conflict; rows shorter than half the
// port are packed several per cycle, and rows of one cycle that fall in the same bank serialise: the
// cycle takes as many cycles as the busiest bank has accesses. conflict_cycles() counts the extra ones in
// closed form per descriptor (the row pattern repeats with the bank period), never per clock.
// Not modelled: conflicts between engines running at the same time (each engine is assumed to own its
// bank ports), conflicts of the vector unit's own accesses, ECC (faults are injected, not computed).
#pragma once

#include <cstdint>
#include <vector>

namespace npu::sim {

class Sram {
 public:
  Sram(uint64_t bytes, uint32_t banks, uint32_t bank_bytes);

  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }
  uint64_t size() const { return bytes_.size(); }
  bool range_ok(uint64_t offset, uint64_t len) const { return offset <= size() && len <= size() - offset; }
  uint32_t banks() const { return banks_; }
  uint32_t bank_bytes() const { return bank_bytes_; }

  // Extra cycles an engine moving `port_bytes` per cycle spends on bank conflicts when it accesses `rows`
  // rows of `row_bytes` bytes, row r at offset + r·stride.
  uint64_t conflict_cycles(uint64_t offset, uint32_t row_bytes, uint32_t rows, uint64_t stride,
                           uint32_t port_bytes) const;

 private:
  // Cycles one group of rows packed into one port cycle takes (≥ 1).
  uint32_t group_cycles(uint64_t first_row_offset, uint32_t row_bytes, uint32_t rows, uint64_t stride) const;

  std::vector<uint8_t> bytes_;
  uint32_t banks_;
  uint32_t bank_bytes_;
};

}  // namespace npu::sim
