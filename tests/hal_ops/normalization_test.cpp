// L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION and L2_POOL_2D: AOSP NNAPI CTS vectors (three
// local_response_norm_float cases; the V1_2 L2_NORMALIZATION quant8 case and its V1_3 signed twin,
// compared within the CTS's +-1 because the CTS quantises its float expectations) and hand-worked cases.
#include <cmath>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// Hand-worked: the squares sum to 4, so every value halves.
TEST(L2Normalization, Float) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 1, 6});
  const uint32_t o = g.output(F32, {1, 1, 1, 6});
  g.op(OperationType::L2_NORMALIZATION, {in}, {o});
  expect_floats_near(
      {-0.55f, 0.3f, 0.35f, 0.6f, -0.35f, 0.05f},
      run_single(g.build(), float_tensor({1, 1, 1, 6}, {-1.1f, 0.6f, 0.7f, 1.2f, -0.7f, 0.1f})));
}

// l2_normalization_v1_2 (rank 4, last axis): input (0.1, 32), output (1/128, 128); signed variant
// input (0.1, -96), output (1/128, 0).
TEST(L2Normalization, CtsQuant8AndSigned) {
  const std::vector<float> x{0, 3,  4,  3,  0,  4,  8,  6, 0,  12, 0,  9,
                             9, 12, 20, 12, 15, 16, 20, 9, 12, 16, 15, 12};
  const std::vector<float> y{0.00f, 0.60f, 0.80f, 0.60f, 0.00f, 0.80f, 0.80f, 0.60f,
                             0.00f, 0.80f, 0.00f, 0.60f, 0.36f, 0.48f, 0.80f, 0.48f,
                             0.60f, 0.64f, 0.80f, 0.36f, 0.48f, 0.64f, 0.60f, 0.48f};
  for (OperandType t : {Q8, S8}) {
    const int32_t in_zp = t == Q8 ? 32 : -96;
    const int32_t out_zp = t == Q8 ? 128 : 0;
    std::vector<int32_t> q;
    std::vector<int32_t> expected;
    for (float v : x) q.push_back(static_cast<int32_t>(std::lround(v * 10)) + in_zp);
    for (float v : y) expected.push_back(static_cast<int32_t>(std::lround(v * 128)) + out_zp);
    GraphBuilder g;
    const uint32_t in = g.input(t, {2, 2, 2, 3}, 0.1f, in_zp);
    const uint32_t o = g.output(t, {2, 2, 2, 3}, 1.0f / 128, out_zp);
    g.op(OperationType::L2_NORMALIZATION, {in, g.i32(-1)}, {o});
    expect_ints(expected, run_single(g.build(), int_tensor(t, {2, 2, 2, 3}, q, 0.1f, in_zp)), 1);
  }
}

// Hand-worked bit-exact quant8 case: centred inputs [3, 4] (sum of squares 25); the fixed-point
// 1/sqrt(25) times 128*3 and 128*4 gives 76.8 -> 77 and 102.4 -> 102, so [205, 230]; an all-zero-point
// row gives the output zero point.
TEST(L2Normalization, Quant8HandWorked) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {2, 2}, 0.5f, 100);
  const uint32_t o = g.output(Q8, {2, 2}, 1.0f / 128, 128);
  g.op(OperationType::L2_NORMALIZATION, {in, g.i32(1)}, {o});
  expect_ints({205, 230, 128, 128},
              run_single(g.build(), int_tensor(Q8, {2, 2}, {103, 104, 100, 100}, 0.5f, 100)));
}

Model lrn(int32_t radius, float bias, float alpha, float beta, uint32_t depth) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 1, depth});
  const uint32_t o = g.output(F32, {1, 1, 1, depth});
  g.op(OperationType::LOCAL_RESPONSE_NORMALIZATION,
       {in, g.i32(radius), g.floats({}, {bias}, OperandType::FLOAT32),
        g.floats({}, {alpha}, OperandType::FLOAT32), g.floats({}, {beta}, OperandType::FLOAT32)},
       {o});
  return g.build();
}

// CTS local_response_norm_float vectors: radius 20 covers the whole depth (sum of squares 4).
TEST(LocalResponseNormalization, Cts) {
  const Tensor x = float_tensor({1, 1, 1, 6}, {-1.1f, 0.6f, 0.7f, 1.2f, -0.7f, 0.1f});
  expect_floats_near({-0.55f, 0.3f, 0.35f, 0.6f, -0.35f, 0.05f}, run_single(lrn(20, 0, 1, 0.5f, 6), x));
  expect_floats_near({-0.275f, 0.15f, 0.175f, 0.3f, -0.175f, 0.025f}, run_single(lrn(20, 0, 4, 0.5f, 6), x));
  expect_floats_near({-0.22f, 0.12f, 0.14f, 0.24f, -0.14f, 0.02f}, run_single(lrn(20, 9, 4, 0.5f, 6), x));
}

// Hand-worked radius 1, bias 1, alpha 1, beta 1 on [1, 2, 3]: windows {1,2}, {1,2,3}, {2,3} give
// squares 5, 14, 13, so [1/6, 2/15, 3/14].
TEST(LocalResponseNormalization, SmallRadius) {
  expect_floats_near({1.0f / 6, 2.0f / 15, 3.0f / 14},
                     run_single(lrn(1, 1, 1, 1, 3), float_tensor({1, 1, 1, 3}, {1, 2, 3})));
}

// Hand-worked: 1x1 windows are the identity; 2x2 windows, stride 2, VALID over
// [[0, 6, 2, 4], [3, 2, 10, 7]]: sqrt((0+36+9+4)/4) = 3.5, sqrt((4+16+100+49)/4) = 6.5.
TEST(L2Pool2D, HandWorked) {
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 2, 2, 1});
    const uint32_t o = g.output(F32, {1, 2, 2, 1});
    const uint32_t z = g.i32(0), one = g.i32(1);
    g.op(OperationType::L2_POOL_2D, {in, z, z, z, z, one, one, one, one, z}, {o});
    expect_floats_near({1, 2, 3, 4}, run_single(g.build(), float_tensor({1, 2, 2, 1}, {1, 2, 3, 4})));
  }
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 2, 4, 1});
  const uint32_t o = g.output(F32, {1, 1, 2, 1});
  g.op(OperationType::L2_POOL_2D, {in, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(0)}, {o});
  expect_floats_near({3.5f, 6.5f},
                     run_single(g.build(), float_tensor({1, 2, 4, 1}, {0, 6, 2, 4, 3, 2, 10, 7})));
}

TEST(L2Pool2D, QuantIsRejected) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 2, 2, 1}, 1.0f, 0);
  const uint32_t o = g.output(Q8, {1, 1, 1, 1}, 1.0f, 0);
  g.op(OperationType::L2_POOL_2D, {in, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(0)}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (L2_POOL_2D): input 0 (input): expected TENSOR_FLOAT32 or TENSOR_FLOAT16, got "
            "TENSOR_QUANT8_ASYMM");
}

}  // namespace
}  // namespace npu::hal::ops::test
