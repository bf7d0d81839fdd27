#include "npu/sim/core/tlm_compute_core.h"

#include "npu/sim/core/systolic_timing.h"

namespace npu::sim {

uint64_t TlmComputeCore::run_int8_tile(const Int8TileCommand& cmd) {
  int8_tile_reference(cmd);
  const uint64_t cycles = systolic_int8_tile_cycles(geometry_, cmd.m, cmd.k, cmd.n);
  sc_core::wait(clock_.cycles(cycles));
  return cycles;
}

}  // namespace npu::sim
