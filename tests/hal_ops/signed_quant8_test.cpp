// Regression tests for signed/unsigned quant8 disagreements found by the random-graph equivalence test
// (tests/hal/random_graph_test.cpp, RandomGraph.SignedQuant8IsUnsignedShiftedBy128).
#include <gtest/gtest.h>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

Model average_pool_1x2(OperandType t, int32_t zero_point) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 2, 1}, 0.5f, zero_point);
  const uint32_t y = g.output(t, {1, 1, 1, 1}, 0.5f, zero_point);
  // VALID padding, stride 1, filter width 2, height 1, no activation.
  g.op(OperationType::AVERAGE_POOL_2D, {x, g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(1), g.i32(0)}, {y});
  return g.build();
}

TEST(SignedQuant8, AveragePoolTieRoundsLikeTheUnsignedForm) {
  // Unsigned 79 and 80 average to 79.5, rounded half up: 80. The signed form of the same values is -49
  // and -48 (each - 128): its average -48.5 must give 80 - 128 = -48, not -49 (rounding away from zero
  // on the signed values, which seed 1988 of the random graphs caught).
  expect_ints({80}, run_single(average_pool_1x2(Q8, 100), int_tensor(Q8, {1, 1, 2, 1}, {79, 80}, 0.5f, 100)));
  expect_ints({-48},
              run_single(average_pool_1x2(S8, -28), int_tensor(S8, {1, 1, 2, 1}, {-49, -48}, 0.5f, -28)));
  // Away from ties both forms agree as before: 10 and 14 -> 12; -118 and -114 -> -116.
  expect_ints({12}, run_single(average_pool_1x2(Q8, 100), int_tensor(Q8, {1, 1, 2, 1}, {10, 14}, 0.5f, 100)));
  expect_ints({-116},
              run_single(average_pool_1x2(S8, -28), int_tensor(S8, {1, 1, 2, 1}, {-118, -114}, 0.5f, -28)));
}

}  // namespace
}  // namespace npu::hal::ops::test
