#include "npu/sim/core/tlm_compute_core.h"

#include "npu/sim/core/systolic_timing.h"

namespace npu::sim {

std::optional<uint64_t> ComputeCore::compute_int8_tile(const Int8TileCommand&) { return std::nullopt; }

uint64_t ComputeCore::int8_tile_cycles(uint32_t m, uint32_t k, uint32_t n) const {
  return systolic_int8_tile_cycles(geometry(), m, k, n);
}

std::optional<uint64_t> TlmComputeCore::compute_int8_tile(const Int8TileCommand& cmd) {
  int8_tile_reference(cmd);
  return int8_tile_cycles(cmd.m, cmd.k, cmd.n);
}

uint64_t TlmComputeCore::run_int8_tile(const Int8TileCommand& cmd) {
  const uint64_t cycles = *compute_int8_tile(cmd);
  sc_core::wait(clock_.cycles(cycles));
  return cycles;
}

}  // namespace npu::sim
