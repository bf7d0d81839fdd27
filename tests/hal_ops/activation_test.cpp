// LOGISTIC, TANH, FLOOR, DEQUANTIZE: AOSP NNAPI CTS vectors (logistic float, logistic quant8 and its
// V1_3 signed version) and hand-worked/derived checks (TANH, FLOOR, DEQUANTIZE values by hand): every quant8
// input of LOGISTIC and TANH against the float function (within the CTS's +-1), signed = unsigned - 128 for
// all 256 inputs, saturation at the input radius.
#include <cmath>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

Model unary(OperationType op, OperandType t, std::vector<uint32_t> dims, float si = 0, int32_t zi = 0,
            float so = 0, int32_t zo = 0, OperandType out_type = OperandType::SUBGRAPH) {
  GraphBuilder g;
  const uint32_t in = g.input(t, dims, si, zi);
  const uint32_t o = g.output(out_type == OperandType::SUBGRAPH ? t : out_type, dims, so, zo);
  g.op(op, {in}, {o});
  return g.build();
}

// logistic_float_1 (V1_0).
TEST(Logistic, CtsFloat) {
  expect_floats_near({0.73105859756469727f, 0.88079702854156494f, 0.9820137619972229f, 0.99966466426849365f},
                     run_single(unary(OperationType::LOGISTIC, F32, {1, 2, 2, 1}),
                                float_tensor({1, 2, 2, 1}, {1, 2, 4, 8})));
}

// logistic_quant8_1 (V1_0) and logistic_quant8_signed (V1_3): bit-exact.
TEST(Logistic, CtsQuant8) {
  expect_ints({128, 159, 187, 255},
              run_single(unary(OperationType::LOGISTIC, Q8, {1, 2, 2, 1}, 0.5f, 0, 1.0f / 256, 0),
                         int_tensor(Q8, {1, 2, 2, 1}, {0, 1, 2, 127}, 0.5f, 0)));
  expect_ints({0, 31, 59, 127},
              run_single(unary(OperationType::LOGISTIC, S8, {1, 2, 2, 1}, 0.5f, -128, 1.0f / 256, -128),
                         int_tensor(S8, {1, 2, 2, 1}, {-128, -127, -126, -1}, 0.5f, -128)));
}

// All 256 inputs at a few input scales: within 1 of round(f(x) / out_scale) + zp, and signed equals
// unsigned - 128.
TEST(LogisticTanh, Quant8SweepAgainstFloat) {
  for (OperationType op : {OperationType::LOGISTIC, OperationType::TANH}) {
    const bool logistic = op == OperationType::LOGISTIC;
    const float out_scale = logistic ? 1.0f / 256 : 1.0f / 128;
    const int32_t out_zp = logistic ? 0 : 128;
    for (float scale : {0.5f, 0.0625f, 0.02f, 1.0f / 256}) {
      std::vector<int32_t> all;
      std::vector<int32_t> all_signed;
      for (int32_t i = 0; i < 256; ++i) {
        all.push_back(i);
        all_signed.push_back(i - 128);
      }
      const Tensor u = run_single(unary(op, Q8, {256}, scale, 128, out_scale, out_zp),
                                  int_tensor(Q8, {256}, all, scale, 128));
      const Tensor s = run_single(unary(op, S8, {256}, scale, 0, out_scale, out_zp - 128),
                                  int_tensor(S8, {256}, all_signed, scale, 0));
      const std::vector<int32_t> uq = ints_of(u);
      const std::vector<int32_t> sq = ints_of(s);
      ASSERT_EQ(uq.size(), 256u);
      ASSERT_EQ(sq.size(), 256u);
      for (int32_t i = 0; i < 256; ++i) {
        const double x = (i - 128) * static_cast<double>(scale);
        const double f = logistic ? 1.0 / (1.0 + std::exp(-x)) : std::tanh(x);
        const double ideal = std::min(255.0, std::max(0.0, std::round(f / out_scale) + out_zp));
        EXPECT_LE(std::abs(uq[i] - ideal), 1.0) << models::to_string(op) << " scale " << scale << " q " << i;
        EXPECT_EQ(sq[i], uq[i] - 128) << models::to_string(op) << " scale " << scale << " q " << i;
      }
      // The centre maps exactly to 1/2 (logistic) or 0 (tanh).
      EXPECT_EQ(uq[128], 128);
    }
  }
}

// Hand-checked: tanh of [-1, 0, 1, 10].
TEST(Tanh, Float) {
  expect_floats_near({-0.761594156f, 0.0f, 0.761594156f, 0.999999996f},
                     run_single(unary(OperationType::TANH, F32, {4}), float_tensor({4}, {-1, 0, 1, 10})));
}

TEST(Tanh, Quant8OutputParametersAreChecked) {
  EXPECT_EQ(validation_error(unary(OperationType::TANH, Q8, {4}, 0.5f, 128, 1.0f / 256, 0)),
            "operations[0] (TANH): output 0: quant8 TANH needs scale 1/128 and zeroPoint 128");
}

// Hand-worked: floor rounds toward negative infinity.
TEST(Floor, Values) {
  expect_floats_near({-2, -1, -1, 0, 0, 1, 1, 10},
                     run_single(unary(OperationType::FLOOR, F32, {8}),
                                float_tensor({8}, {-1.5f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f, 10.2f})));
}

// Hand-worked: scale 1, zero point 0 gives the raw values; (0.5, 128) maps
// [0, 128, 255] to [-64, 0, 63.5]; the signed tensor [-128, 0, 127] with zero point 0 gives the same.
TEST(Dequantize, HandWorked) {
  expect_floats_near({0, 32, 128, 255},
                     run_single(unary(OperationType::DEQUANTIZE, Q8, {1, 2, 2, 1}, 1.0f, 0, 0, 0, F32),
                                int_tensor(Q8, {1, 2, 2, 1}, {0, 32, 128, 255}, 1.0f, 0)));
  expect_floats_near({-64, 0, 63.5f},
                     run_single(unary(OperationType::DEQUANTIZE, Q8, {3}, 0.5f, 128, 0, 0, F32),
                                int_tensor(Q8, {3}, {0, 128, 255}, 0.5f, 128)));
  expect_floats_near({-64, 0, 63.5f},
                     run_single(unary(OperationType::DEQUANTIZE, S8, {3}, 0.5f, 0, 0, 0, F32),
                                int_tensor(S8, {3}, {-128, 0, 127}, 0.5f, 0)));
}

}  // namespace
}  // namespace npu::hal::ops::test
