#include "npu/sim/core/tlm_compute_core.h"

#include <algorithm>

#include "npu/sim/core/systolic_timing.h"

namespace npu::sim {

std::optional<uint64_t> ComputeCore::compute_int8_tile(const Int8TileCommand&) { return std::nullopt; }

uint64_t ComputeCore::int8_tile_cycles(uint32_t m, uint32_t k, uint32_t n) const {
  return systolic_int8_tile_cycles(geometry(), m, k, n);
}

std::optional<uint64_t> TlmComputeCore::compute_int8_tile(const Int8TileCommand& cmd) {
  int8_tile_reference(cmd, weights_);  // every column at once, the weights packed once per weight block
  uint64_t cycles = 0;
  for (uint32_t j0 = 0; j0 < cmd.n; j0 += geometry_.cols)
    cycles += int8_tile_cycles(cmd.m, cmd.k, std::min(geometry_.cols, cmd.n - j0));
  return cycles;
}

uint64_t TlmComputeCore::run_int8_tile(const Int8TileCommand& cmd) {
  const uint64_t cycles = *compute_int8_tile(cmd);
  sc_core::wait(clock_.cycles(cycles));
  return cycles;
}

}  // namespace npu::sim
