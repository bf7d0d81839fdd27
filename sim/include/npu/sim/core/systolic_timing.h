// Cycle formula of the weight-stationary systolic array, derived from and calibrated against the RTL
// (tests/rtl/calibration_test.cpp prints the table). The TLM compute core charges exactly this.
#pragma once

#include <cstdint>

#include "npu/sim/core/compute_core.h"

namespace npu::sim {

// Cycles for one Int8TileCommand of shape M×K×N on the given array. `bank_wait_cycles`, when given,
// receives the cycles passes waited for a weight bank to be free (zero on a square array).
uint64_t systolic_int8_tile_cycles(ArrayGeometry g, uint32_t m, uint32_t k, uint32_t n,
                                   uint64_t* bank_wait_cycles = nullptr);

}  // namespace npu::sim
