// TileMemory: the SRAM side of the compute core's ports for one Int8TileCommand, shared by the plain
// C++ runner and the SystemC wrapper. Reads and writes are bounds-checked against the command's
// operand extents, so an RTL addressing bug fails loudly instead of corrupting the caller's memory.
// Also serve_cycle(): the per-cycle port protocol, written once over a "pins" adapter.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "npu/sim/core/compute_core.h"

namespace npu::rtl::detail {

inline constexpr uint32_t kMaxLanes = 16;  // widest port of any build: 16 bytes
using Lanes = std::array<uint8_t, kMaxLanes>;

// Throws std::invalid_argument naming the field if the hardware cannot execute `cmd` on `g`.
void validate_tile_command(const sim::Int8TileCommand& cmd, sim::ArrayGeometry g);

// An upper bound on the cycles any correct RTL run of the tile takes; beyond it the RTL is hung.
uint64_t hang_limit_cycles(const sim::Int8TileCommand& cmd, sim::ArrayGeometry g);

class TileMemory {
 public:
  TileMemory(const sim::Int8TileCommand& cmd, sim::ArrayGeometry g);  // validates cmd

  // Fill all lanes of the port: `bytes` from A (W) at byte offset `addr`, zero beyond.
  void read_a(uint32_t addr, uint32_t bytes, Lanes& lanes) const;
  void read_w(uint32_t addr, uint32_t bytes, Lanes& lanes) const;
  void read_params(uint32_t channel, uint32_t& bias, uint32_t& multiplier, uint32_t& shift) const;
  void write_out(uint32_t addr, uint32_t bytes, const Lanes& lanes) const;
  uint64_t rows_written() const { return rows_written_; }

 private:
  const sim::Int8TileCommand& cmd_;
  sim::ArrayGeometry geometry_;
  size_t a_extent_, w_extent_, out_extent_;
  mutable uint64_t rows_written_ = 0;
};

// One cycle of the port protocol, called after a rising clock edge has been evaluated: the RTL's
// registered requests are visible, so the write is committed and every read answered (the answer is
// sampled at the next rising edge). Returns the done output. `Pins` adapts a model's ports.
template <class Pins>
bool serve_cycle(Pins& pins, const TileMemory& mem, Lanes& lanes) {
  if (pins.o_wr_en()) {
    pins.o_wr_data(lanes);
    mem.write_out(pins.o_wr_addr(), pins.o_wr_bytes(), lanes);
  }
  if (pins.a_rd_en()) {
    mem.read_a(pins.a_rd_addr(), pins.a_rd_bytes(), lanes);
    pins.set_a_rd_data(lanes);
  }
  if (pins.w_rd_en()) {
    mem.read_w(pins.w_rd_addr(), pins.w_rd_bytes(), lanes);
    pins.set_w_rd_data(lanes);
  }
  if (pins.p_rd_en()) {
    uint32_t bias = 0, multiplier = 0, shift = 0;
    mem.read_params(pins.p_rd_idx(), bias, multiplier, shift);
    pins.set_params(bias, multiplier, shift);
  }
  return pins.done();
}

// Writes the command registers through the same adapter.
template <class Pins>
void apply_command(Pins& pins, const sim::Int8TileCommand& c) {
  pins.set_command(c.m, c.k, c.n, c.lda, c.ldw, c.ldo, static_cast<uint32_t>(c.weight_offset),
                   static_cast<uint32_t>(c.out_zero_point), static_cast<uint32_t>(c.clamp_lo),
                   static_cast<uint32_t>(c.clamp_hi));
}

}  // namespace npu::rtl::detail
