// ADD, SUB, MUL, DIV: AOSP NNAPI CTS vectors (mul, mul_quant8, sub, div, div broadcast, the float16 mul
// broadcast case run in float32) and hand-worked cases (broadcasting, quantised SUB rounding, signed =
// unsigned - 128, TENSOR_INT32).
#include <limits>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// A binary op on two graph inputs.
Model binary(OperationType op, OperandType t, std::vector<uint32_t> a, std::vector<uint32_t> b,
             std::vector<uint32_t> out, int32_t act = 0, float sa = 0, int32_t za = 0, float sb = 0,
             int32_t zb = 0, float so = 0, int32_t zo = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, std::move(a), sa, za);
  const uint32_t y = g.input(t, std::move(b), sb, zb);
  const uint32_t o = g.output(t, std::move(out), so, zo);
  g.op(op, {x, y, g.i32(act)}, {o});
  return g.build();
}

Tensor run2(const Model& m, const Tensor& a, const Tensor& b) {
  auto r = run_ok(m, {{0, a}, {1, b}});
  return r.empty() ? Tensor{} : r.begin()->second;
}

// mul.mod.py (V1_0).
TEST(Mul, CtsFloat) {
  const Model m = binary(OperationType::MUL, F32, {1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 1});
  expect_floats_near({64, 64, -64, -64}, run2(m, float_tensor({1, 2, 2, 1}, {2, -4, 8, -16}),
                                              float_tensor({1, 2, 2, 1}, {32, -16, -8, 4})));
}

// mul_quant8.mod.py (V1_0): scales 1, 1 -> 2: 1*2/2 = 1, 2*4/2 = 4.
TEST(Mul, CtsQuant8) {
  const Model m = binary(OperationType::MUL, Q8, {2}, {2}, {2}, 0, 1.0f, 0, 1.0f, 0, 2.0f, 0);
  expect_ints({1, 4}, run2(m, int_tensor(Q8, {2}, {1, 2}, 1.0f, 0), int_tensor(Q8, {2}, {2, 4}, 1.0f, 0)));
}

// MUL broadcast (CTS float16 test, run in float32 here): [1, 2] x [[1, 2], [3, 4]] = [[1, 4], [3, 8]].
TEST(Mul, BroadcastRows) {
  const Model m = binary(OperationType::MUL, F32, {1, 2}, {2, 2}, {2, 2});
  expect_floats_near({1, 4, 3, 8}, run2(m, float_tensor({1, 2}, {1, 2}), float_tensor({2, 2}, {1, 2, 3, 4})));
}

// Hand-worked: in1 (0.5, 128) q [130, 120] = [1, -4]; in2 (0.25, 128) q [136, 132] = [2, 1];
// out (1, 128): products of centred values 2*8 = 16, -8*4 = -32, times 0.5*0.25/1 -> 2, -4 -> [130, 124].
// Signed with every zero point 128 lower gives the same numbers minus 128.
TEST(Mul, Quant8AndSignedAgreeUpTo128) {
  const Model u = binary(OperationType::MUL, Q8, {2}, {2}, {2}, 0, 0.5f, 128, 0.25f, 128, 1.0f, 128);
  expect_ints({130, 124}, run2(u, int_tensor(Q8, {2}, {130, 120}, 0.5f, 128),
                               int_tensor(Q8, {2}, {136, 132}, 0.25f, 128)));
  const Model s = binary(OperationType::MUL, S8, {2}, {2}, {2}, 0, 0.5f, 0, 0.25f, 0, 1.0f, 0);
  expect_ints({2, -4}, run2(s, int_tensor(S8, {2}, {2, -8}, 0.5f, 0), int_tensor(S8, {2}, {8, 4}, 0.25f, 0)));
}

// Hand-worked RELU6 activation: [2, -4, 8] * [4, 1, 1] = [8, -4, 8] -> [6, 0, 6].
TEST(Mul, FusedRelu6) {
  const Model m = binary(OperationType::MUL, F32, {3}, {3}, {3}, 3);
  expect_floats_near({6, 0, 6}, run2(m, float_tensor({3}, {2, -4, 8}), float_tensor({3}, {4, 1, 1})));
}

// sub.mod.py (V1_1): [2, -4, 8, -16] - [2, -2, -4, 4] = [0, -2, 12, -20].
TEST(Sub, CtsFloat) {
  const Model m = binary(OperationType::SUB, F32, {1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 1});
  expect_floats_near({0, -2, 12, -20}, run2(m, float_tensor({1, 2, 2, 1}, {2, -4, 8, -16}),
                                            float_tensor({1, 2, 2, 1}, {2, -2, -4, 4})));
}

// Hand-worked quantised SUB (scales 1, zero points 0): with output (1, 100), [10, 3] - [4, 9] = [6, -6]
// -> [106, 94]. With output scale 2: 3 - 0 = 1.5 and 0 - 3 = -1.5 round half away from zero in the
// final rounding shift (x << 20 scaled by 1/2 is exact; 3 * 2^19 / 2^20) -> 2 and -2 -> [102, 98].
TEST(Sub, Quant8) {
  const Model m = binary(OperationType::SUB, Q8, {2}, {2}, {2}, 0, 1.0f, 0, 1.0f, 0, 1.0f, 100);
  expect_ints({106, 94},
              run2(m, int_tensor(Q8, {2}, {10, 3}, 1.0f, 0), int_tensor(Q8, {2}, {4, 9}, 1.0f, 0)));
  const Model h = binary(OperationType::SUB, Q8, {2}, {2}, {2}, 0, 1.0f, 0, 1.0f, 0, 2.0f, 100);
  expect_ints({102, 98}, run2(h, int_tensor(Q8, {2}, {3, 0}, 1.0f, 0), int_tensor(Q8, {2}, {0, 3}, 1.0f, 0)));
  const Model s = binary(OperationType::SUB, S8, {2}, {2}, {2}, 0, 1.0f, -128, 1.0f, -128, 1.0f, -28);
  expect_ints({-22, -34}, run2(s, int_tensor(S8, {2}, {-118, -125}, 1.0f, -128),
                               int_tensor(S8, {2}, {-124, -119}, 1.0f, -128)));
}

// div.mod.py (V1_1): [2, -4, 8, -16] / [2, -2, -4, 4] = [1, 2, -2, -4].
TEST(Div, CtsFloat) {
  const Model m = binary(OperationType::DIV, F32, {1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 1});
  expect_floats_near({1, 2, -2, -4}, run2(m, float_tensor({1, 2, 2, 1}, {2, -4, 8, -16}),
                                          float_tensor({1, 2, 2, 1}, {2, -2, -4, 4})));
}

// div broadcast (CTS): [1, 2] / [[1, 1], [2, 2]] = [[1, 2], [0.5, 1]]. Hand-worked the other way round:
// [[1, 2], [3, 4]] / [1, 2] = [[1, 1], [3, 2]].
TEST(Div, Broadcast) {
  expect_floats_near({1, 2, 0.5f, 1}, run2(binary(OperationType::DIV, F32, {1, 2}, {2, 2}, {2, 2}),
                                           float_tensor({1, 2}, {1, 2}), float_tensor({2, 2}, {1, 1, 2, 2})));
  const Model m = binary(OperationType::DIV, F32, {2, 2}, {1, 2}, {2, 2});
  expect_floats_near({1, 1, 3, 2}, run2(m, float_tensor({2, 2}, {1, 2, 3, 4}), float_tensor({1, 2}, {1, 2})));
}

// Hand-worked TENSOR_INT32 (NNAPI 1.3): wrap-around for ADD/SUB/MUL, floor division, 0 for x / 0.
TEST(Arithmetic, Int32) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  const int32_t min = std::numeric_limits<int32_t>::min();
  const Tensor a = int_tensor(I32, {4}, {7, -7, max, 5});
  const Tensor b = int_tensor(I32, {4}, {2, 2, 1, 0});
  struct Case {
    OperationType op;
    std::vector<int32_t> expected;
  };
  for (const Case& c :
       {Case{OperationType::ADD, {9, -5, min, 5}}, Case{OperationType::SUB, {5, -9, max - 1, 5}},
        Case{OperationType::MUL, {14, -14, max, 0}}, Case{OperationType::DIV, {3, -4, max, 0}}}) {
    expect_ints(c.expected, run2(binary(c.op, I32, {4}, {4}, {4}), a, b));
  }
}

TEST(Arithmetic, ValidationErrors) {
  EXPECT_EQ(
      validation_error(binary(OperationType::DIV, Q8, {2}, {2}, {2}, 0, 1, 0, 1, 0, 1, 0)),
      "operations[0] (DIV): input 0 (input1): expected TENSOR_FLOAT32 or TENSOR_FLOAT16 or TENSOR_INT32, "
      "got TENSOR_QUANT8_ASYMM");
  EXPECT_EQ(validation_error(binary(OperationType::ADD, I32, {2}, {2}, {2}, 1)),
            "operations[0] (ADD): input 2 (fused activation): must be NONE (0) for TENSOR_INT32");
  EXPECT_EQ(validation_error(binary(OperationType::SUB, F32, {2, 3}, {2}, {2, 3})),
            "operations[0] (SUB): inputs [2,3] and [2] cannot be broadcast together");
}

}  // namespace
}  // namespace npu::hal::ops::test
