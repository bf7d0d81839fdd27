#include "npu/sim/core/systolic_timing.h"

#include <algorithm>

namespace npu::sim {
namespace {

// Depth of the RTL's int32 accumulator in activation rows (rtl/npu_compute_core.sv ACC_DEPTH,
// npu::rtl::kAccumulatorRows); the calibration test fails if the two disagree.
constexpr uint64_t kAccumulatorRows = 256;

}  // namespace

// Derived from rtl/npu_compute_core.sv and rtl/npu_tile_controller.sv (docs/rtl.md); exact, which
// tests/rtl/calibration_test.cpp checks on every built geometry. Cycles are counted from the clock edge
// that samples start (edge 1) to the edge after which done is visible.
//
// The controller runs the tile as passes: blocks of Mb <= 256 activation rows (outer) times K chunks
// of kc <= rows (inner; a K of 0 still makes one chunk, of kc = 0). In each cycle of a pass it requests
// one weight row (first kc cycles) and one activation row (first Mb cycles), so a pass lasts
//     P = max(Mb, kc).
// Edge 1 latches the command; pass 0's first requests are registered at edge 2: start_0 = 2. Weights
// are double-buffered (two banks, alternating per pass), so pass p + 1 follows pass p immediately,
//     start_{p+1} = start_p + P_p,
// unless it would overwrite the bank of pass p - 1 before that pass's last activation row has left the
// last column. That row is requested in cycle start_{p-1} + Mb_{p-1} - 1 and reaches PE[r][cols - 1]
// in cycle start_{p-1} + Mb_{p-1} + r + cols - 1, while pass p + 1 writes PE row r in cycle
// start_{p+1} + r + 1, hence
//     start_{p+1} = max(start_p + P_p, start_{p-1} + Mb_{p-1} + cols - 1).
// (The second term only wins for short blocks with short chunks: Mb < cols - 1 and P_p + P_{p-1} <
// Mb + cols - 1.)
// After the last pass's last activation request (cycle start_last + Mb_last - 1): 1 cycle capture,
// rows + cols cycles through the skewed array, the row-sum column and the deskew, 1 cycle
// accumulate, 3 requantisation stages, and the output write is visible in cycle
// start_last + Mb_last + rows + cols + 4; the controller sees the pipeline empty the cycle after and
// raises done at the next edge:
//     cycles = start_last + Mb_last + rows + cols + 6.
// M = 0 issues nothing: the command is latched at edge 1 and done is raised at edge 2.
//
// Example, 16x16, M = 64, K = 40, N = 16: chunks kc = 16, 16, 8, P = 64 each, start = 2, 66, 130;
// cycles = 130 + 64 + 16 + 16 + 6 = 232. N does not matter: the array always runs all its columns.
uint64_t systolic_int8_tile_cycles(ArrayGeometry g, uint32_t m, uint32_t k, uint32_t n,
                                   uint64_t* bank_wait_cycles) {
  (void)n;
  if (bank_wait_cycles) *bank_wait_cycles = 0;
  if (m == 0) return 2;
  const uint64_t rows = g.rows, cols = g.cols;
  const uint64_t chunks = std::max<uint64_t>(1, (static_cast<uint64_t>(k) + rows - 1) / rows);
  const uint64_t last_kc = static_cast<uint64_t>(k) - (chunks - 1) * rows;

  uint64_t earliest = 2;  // start_{p-1} + P_{p-1}: when pass p may start at the soonest
  uint64_t free_p2 = 0;   // start_{p-2} + Mb_{p-2} + cols - 1: when pass p's bank is free
  uint64_t free_p1 = 0;   // the same for pass p - 1, i.e. the bound of pass p + 1
  uint64_t start = 0, mb = 0;
  for (uint64_t base = 0; base < m; base += kAccumulatorRows) {
    mb = std::min<uint64_t>(kAccumulatorRows, m - base);
    for (uint64_t j = 0; j < chunks; ++j) {
      const uint64_t kc = j + 1 < chunks ? rows : last_kc;
      start = std::max(earliest, free_p2);
      if (bank_wait_cycles) *bank_wait_cycles += start - earliest;
      earliest = start + std::max(mb, kc);
      free_p2 = free_p1;
      free_p1 = start + mb + cols - 1;
    }
  }
  return start + mb + rows + cols + 6;
}

}  // namespace npu::sim
