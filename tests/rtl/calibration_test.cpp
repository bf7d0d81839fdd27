// Calibration of the TLM cycle formula (npu::sim::systolic_int8_tile_cycles) against the RTL, on the
// same tile shapes for every built geometry. Prints the table and asserts equality on every tile: the
// RTL is cycle-deterministic and the formula is derived from it, so any difference is a defect of one or
// the other (docs/rtl.md documents the formula as exact).
//
// Arithmetic, 16x16, M = 64, K = 40 (chunks 16, 16, 8), N = 16: three passes of max(64, kc) = 64
// cycles starting at cycles 2, 66, 130; last activation request visible in 130 + 63 = 193; captured
// 194; skew + array + row-sum column + deskew: aligned row in 194 + 16 + 16 = 226; totals registered
// 227; requant stages 228, 229, 230 (output write visible in 230); pipeline empty in 231; done at edge
// 232: 232 cycles = start_last + M + rows + cols + 6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "npu/rtl/tile_runner.h"
#include "npu/sim/core/systolic_timing.h"
#include "random_tile.h"

namespace npu::sim {
// Readable parameter names in the ctest test list (found by argument-dependent lookup).
void PrintTo(const ArrayGeometry& g, std::ostream* os) { *os << g.rows << "x" << g.cols; }
}  // namespace npu::sim

namespace npu::rtl {
namespace {

using testing::RandomTile;
using testing::TileShape;

// Shapes scaled to the array: edge tiles smaller than it (M, K, N below rows/cols), K around and not a
// multiple of rows, single rows (GEMV, where the weight-bank stall shows), large M spanning several
// 256-row accumulator blocks.
std::vector<TileShape> calibration_shapes(sim::ArrayGeometry g) {
  const uint32_t r = g.rows, c = g.cols;
  std::vector<TileShape> s = {
      {1, 1, 1},           {1, r, c},          {1, 3 * r + 1, c},
      {2, r - 1, c / 2},   {3, 2 * r, c},      {r / 2, r / 2, c / 2},
      {r - 1, r, c},       {r, r, c},          {r + 1, r + 1, c},
      {c - 2, r, c},       {c - 1, 2 * r, c},  {c, 3 * r, c},
      {7, 1, c},           {7, r + 3, 1},      {5, 4 * r - 1, c - 1},
      {16, 5 * r, c},      {31, 2 * r + 5, c}, {32, 2 * r, c},
      {33, 7 * r + 2, c},  {50, 100, c},       {64, 40, c},
      {64, 64, c},         {64, 64, c / 2},    {100, 3, c},
      {100, 333, c},       {128, r, c},        {128, 8 * r, c},
      {200, 200, 3},       {255, 2 * r, c},    {256, r, c},
      {256, 4 * r + 1, c}, {257, r, c},        {257, 3 * r, c},
      {300, 17, c},        {511, r - 1, c},    {512, 2 * r, c},
      {513, 5 * r, c},     {600, 96, c},       {700, 1, c},
      {777, 50, c / 2},    {1000, 64, c},      {1024, 3 * r, c},
      {1500, r + 1, c},    {2000, 10, c},      {2048, 2 * r, c},
      {3000, 1, 1},        {4096, r, c},       {12, 0, c},
      {1, 0, 1},           {9, 1000, c},       {1, 500, c},
      {2, 9 * r, c},       {4, 6 * r + 3, c},  {6, 2, c},
      {20, r / 2, c},
  };
  return s;
}

class Calibration : public ::testing::TestWithParam<sim::ArrayGeometry> {};

TEST_P(Calibration, FormulaMatchesRtlCycles) {
  const auto g = GetParam();
  auto runner = make_tile_runner(g);
  std::mt19937 rng(42);
  const auto shapes = calibration_shapes(g);
  ASSERT_GE(shapes.size(), 50u);

  std::printf("\ncalibration %ux%u: RTL cycles vs systolic_int8_tile_cycles\n", g.rows, g.cols);
  std::printf("%6s %6s %4s %10s %10s %8s\n", "M", "K", "N", "rtl", "tlm", "err%");
  double sum_err = 0, max_err = 0;
  uint64_t bank_wait_cycles = 0, bank_wait_shapes = 0;
  for (const auto& s : shapes) {
    const RandomTile tile(s, rng);
    auto out = tile.fresh_output();
    const uint64_t rtl = runner->run(tile.command(out.data()));
    uint64_t bank_wait = 0;
    const uint64_t tlm = sim::systolic_int8_tile_cycles(g, s.m, s.k, s.n, &bank_wait);
    bank_wait_cycles += bank_wait;
    bank_wait_shapes += bank_wait > 0;
    const double err =
        100.0 * std::fabs(static_cast<double>(tlm) - static_cast<double>(rtl)) / static_cast<double>(rtl);
    std::printf("%6u %6u %4u %10llu %10llu %8.3f\n", s.m, s.k, s.n, static_cast<unsigned long long>(rtl),
                static_cast<unsigned long long>(tlm), err);
    EXPECT_EQ(tlm, rtl) << "m=" << s.m << " k=" << s.k << " n=" << s.n;
    EXPECT_EQ(out, tile.reference_output()) << "m=" << s.m << " k=" << s.k << " n=" << s.n;
    sum_err += err;
    max_err = std::max(max_err, err);
  }
  const double mean_err = sum_err / static_cast<double>(shapes.size());
  std::printf(
      "%zu shapes: max error %.3f%%, mean error %.3f%%; the weight-bank term added %llu cycles on %llu\n",
      shapes.size(), max_err, mean_err, static_cast<unsigned long long>(bank_wait_cycles),
      static_cast<unsigned long long>(bank_wait_shapes));
  // A pass waits for its weight bank only when P_p + P_p-1 < Mb + cols - 1 (systolic_timing.cpp): never
  // on a square array, where a full K chunk makes a pass rows = cols long and only the last chunk is
  // short; on a wide array two full chunks of rows < cols - 1 can be, so those shapes check the term.
  if (g.rows == g.cols)
    EXPECT_EQ(bank_wait_cycles, 0u);
  else
    EXPECT_GT(bank_wait_shapes, 0u);
}

// The worked example above (and docs/rtl.md's): 16x16, M = 64, K = 40, N = 16 takes 232 cycles, on the
// RTL and by the formula. Pins the formula's constants independently of the RTL as well.
TEST(Calibration, WorkedExampleTakes232Cycles) {
  const sim::ArrayGeometry g{16, 16};
  auto runner = make_tile_runner(g);
  std::mt19937 rng(7);
  const RandomTile tile({64, 40, 16}, rng);
  auto out = tile.fresh_output();
  EXPECT_EQ(runner->run(tile.command(out.data())), 232u);
  EXPECT_EQ(sim::systolic_int8_tile_cycles(g, 64, 40, 16), 232u);
}

INSTANTIATE_TEST_SUITE_P(Geometries, Calibration, ::testing::ValuesIn(tile_runner_geometries()),
                         [](const auto& param_info) {
                           return "Array" + std::to_string(param_info.param.rows) + "x" +
                                  std::to_string(param_info.param.cols);
                         });

}  // namespace
}  // namespace npu::rtl
