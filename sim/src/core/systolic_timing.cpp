#include "npu/sim/core/systolic_timing.h"

namespace npu::sim {

// Initial estimate per K chunk of `rows`: load weights (rows cycles), stream M activation rows with
// skew fill and drain (M + rows + cols). Replaced by the RTL-derived formula once calibrated.
uint64_t systolic_int8_tile_cycles(ArrayGeometry g, uint32_t m, uint32_t k, uint32_t n) {
  (void)n;
  const uint64_t chunks = (k + g.rows - 1) / g.rows;
  return chunks * (static_cast<uint64_t>(m) + 2ULL * g.rows + g.cols);
}

}  // namespace npu::sim
