// NNAPI 1.2 operations the ONNX audio models need: ABS, EXP, LOG, NEG, RSQRT, SQRT, MAXIMUM, MINIMUM,
// POW, REDUCE_MAX/MIN/SUM, QUANTIZE and GATHER on the CPU reference, against values worked by hand
// (the arithmetic is in the comments), plus the signature errors that name the input at fault.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// One input → one output of the same shape.
Model unary_model(OperationType t, OperandType type, std::vector<uint32_t> dims) {
  GraphBuilder g;
  const uint32_t in = g.input(type, dims);
  const uint32_t out = g.output(type, dims);
  g.op(t, {in}, {out});
  return g.build();
}

TEST(Hal12Unary, FloatFunctions) {
  const std::vector<float> x = {1.0f, 4.0f, 0.25f, 100.0f};
  // sqrt: 1, 2, 0.5, 10; rsqrt: 1, 0.5, 2, 0.1; log: 0, ln 4 = 1.3862944, ln 0.25 = -1.3862944,
  // ln 100 = 4.6051702; exp: e = 2.7182817, e^4 = 54.59815, e^0.25 = 1.2840254, e^100 overflows → +inf.
  expect_floats_near({1, 2, 0.5f, 10},
                     run_single(unary_model(OperationType::SQRT, F32, {4}), float_tensor({4}, x)));
  expect_floats_near({1, 0.5f, 2, 0.1f},
                     run_single(unary_model(OperationType::RSQRT, F32, {4}), float_tensor({4}, x)));
  expect_floats_near({0, 1.3862944f, -1.3862944f, 4.6051702f},
                     run_single(unary_model(OperationType::LOG, F32, {4}), float_tensor({4}, x)));
  const auto e = floats_of(run_single(unary_model(OperationType::EXP, F32, {4}), float_tensor({4}, x)));
  ASSERT_EQ(e.size(), 4u);
  EXPECT_TRUE(fp32_close(2.7182817f, e[0]));
  EXPECT_TRUE(fp32_close(54.59815f, e[1]));
  EXPECT_TRUE(fp32_close(1.2840254f, e[2]));
  EXPECT_TRUE(std::isinf(e[3]) && e[3] > 0);
  const std::vector<float> s = {-2.5f, 0.0f, 3.0f, -0.0f};
  expect_floats_near({2.5f, 0, 3, 0},
                     run_single(unary_model(OperationType::ABS, F32, {2, 2}), float_tensor({2, 2}, s)));
  expect_floats_near({2.5f, 0, -3, 0},
                     run_single(unary_model(OperationType::NEG, F32, {2, 2}), float_tensor({2, 2}, s)));
}

TEST(Hal12Unary, EdgeValues) {
  // log(0) = -inf, log(-1) = NaN, rsqrt(0) = +inf.
  const auto l =
      floats_of(run_single(unary_model(OperationType::LOG, F32, {2}), float_tensor({2}, {0.0f, -1.0f})));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(std::isinf(l[0]) && l[0] < 0);
  EXPECT_TRUE(std::isnan(l[1]));
  const auto r =
      floats_of(run_single(unary_model(OperationType::RSQRT, F32, {1}), float_tensor({1}, {0.0f})));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(std::isinf(r[0]) && r[0] > 0);
}

TEST(Hal12Unary, IntegerNegAndAbsWrap) {
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  const Tensor x = int_tensor(I32, {3}, {5, -7, lowest});
  EXPECT_EQ(ints_of(run_single(unary_model(OperationType::NEG, I32, {3}), x)),
            (std::vector<int32_t>{-5, 7, lowest}));
  EXPECT_EQ(ints_of(run_single(unary_model(OperationType::ABS, I32, {3}), x)),
            (std::vector<int32_t>{5, 7, lowest}));
}

TEST(Hal12Unary, RejectsQuant8Log) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {2}, 0.5f, 0);
  const uint32_t out = g.output(Q8, {2}, 0.5f, 0);
  g.op(OperationType::LOG, {in}, {out});
  EXPECT_NE(validation_error(g.build()).find("input 0 (input)"), std::string::npos)
      << validation_error(g.build());
}

Model binary_model(OperationType t, OperandType type, std::vector<uint32_t> a, std::vector<uint32_t> b,
                   std::vector<uint32_t> out_dims, float sa = 0, int32_t za = 0, float sb = 0, int32_t zb = 0,
                   float so = 0, int32_t zo = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(type, a, sa, za);
  const uint32_t y = g.input(type, b, sb, zb);
  const uint32_t out = g.output(type, out_dims, so, zo);
  g.op(t, {x, y}, {out});
  return g.build();
}

TEST(Hal12Binary, MaximumMinimumFloatBroadcast) {
  // [2, 3] against a row [3]: max(-1, 0) = 0, max(5, 1) = 5, max(2, 2) = 2, max(0, 0) = 0, max(-3, 1) = 1,
  // max(7, 2) = 7; the minimum takes the other value.
  const Model mx = binary_model(OperationType::MAXIMUM, F32, {2, 3}, {3}, {2, 3});
  const Model mn = binary_model(OperationType::MINIMUM, F32, {2, 3}, {3}, {2, 3});
  const std::map<uint32_t, Tensor> in = {{0, float_tensor({2, 3}, {-1, 5, 2, 0, -3, 7})},
                                         {1, float_tensor({3}, {0, 1, 2})}};
  expect_floats_near({0, 5, 2, 0, 1, 7}, run_ok(mx, in).begin()->second);
  expect_floats_near({-1, 1, 2, 0, -3, 2}, run_ok(mn, in).begin()->second);
}

TEST(Hal12Binary, MaximumQuant8Requantises) {
  // a: scale 0.5 zp 10 → q 14 is 2.0, q 6 is -2.0; b: scale 0.25 zp 0 → q 4 is 1.0, q 12 is 3.0.
  // Output scale 1, zp 5: a → round(2.0) + 5 = 7, round(-2.0) + 5 = 3; b → 1 + 5 = 6, 3 + 5 = 8.
  // max: [7, 8]; min: [6, 3].
  const std::map<uint32_t, Tensor> in = {{0, int_tensor(Q8, {2}, {14, 6}, 0.5f, 10)},
                                         {1, int_tensor(Q8, {2}, {4, 12}, 0.25f, 0)}};
  EXPECT_EQ(
      ints_of(run_ok(binary_model(OperationType::MAXIMUM, Q8, {2}, {2}, {2}, 0.5f, 10, 0.25f, 0, 1.0f, 5), in)
                  .begin()
                  ->second),
      (std::vector<int32_t>{7, 8}));
  EXPECT_EQ(
      ints_of(run_ok(binary_model(OperationType::MINIMUM, Q8, {2}, {2}, {2}, 0.5f, 10, 0.25f, 0, 1.0f, 5), in)
                  .begin()
                  ->second),
      (std::vector<int32_t>{6, 3}));
  // Signed, equal quantisation: the raw values compare directly.
  const std::map<uint32_t, Tensor> s = {{0, int_tensor(S8, {3}, {-128, 5, 127}, 0.1f, -3)},
                                        {1, int_tensor(S8, {3}, {-127, 4, -1}, 0.1f, -3)}};
  EXPECT_EQ(
      ints_of(run_ok(binary_model(OperationType::MAXIMUM, S8, {3}, {3}, {3}, 0.1f, -3, 0.1f, -3, 0.1f, -3), s)
                  .begin()
                  ->second),
      (std::vector<int32_t>{-127, 5, 127}));
}

TEST(Hal12Binary, Pow) {
  // The exponent row [3, 0.5] repeats for both rows: 2^3 = 8, 9^0.5 = 3, 10^3 = 1000, 4^0.5 = 2.
  const Model m = binary_model(OperationType::POW, F32, {2, 2}, {2}, {2, 2});
  const std::map<uint32_t, Tensor> in = {{0, float_tensor({2, 2}, {2, 9, 10, 4})},
                                         {1, float_tensor({2}, {3, 0.5f})}};
  expect_floats_near({8, 3, 1000, 2}, run_ok(m, in).begin()->second);
}

TEST(Hal12Binary, RejectsMixedTypes) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2});
  const uint32_t y = g.input(I32, {2});
  const uint32_t out = g.output(F32, {2});
  g.op(OperationType::MAXIMUM, {x, y}, {out});
  EXPECT_NE(validation_error(g.build()).find("input 1 (input1)"), std::string::npos)
      << validation_error(g.build());
}

Model reduce_model(OperationType t, OperandType type, std::vector<uint32_t> in_dims,
                   std::vector<int32_t> axes, bool keep, std::vector<uint32_t> out_dims, float scale = 0,
                   int32_t zp = 0) {
  GraphBuilder g;
  const uint32_t in = g.input(type, in_dims, scale, zp);
  const uint32_t ax = g.ints(I32, {static_cast<uint32_t>(axes.size())}, axes);
  const uint32_t k = g.boolean(keep);
  const uint32_t out = g.output(type, out_dims, scale, zp);
  g.op(t, {in, ax, k}, {out});
  return g.build();
}

TEST(Hal12Reduce, FloatAxes) {
  // x = [[1, -2, 3], [4, 5, -6]]. Over axis 1: max [3, 5], min [-2, -6], sum [2, 3].
  // Over both (keep_dims): max 5, sum 5. Axis -2 = axis 0: sum [5, 3, -3].
  const Tensor x = float_tensor({2, 3}, {1, -2, 3, 4, 5, -6});
  expect_floats_near({3, 5},
                     run_single(reduce_model(OperationType::REDUCE_MAX, F32, {2, 3}, {1}, false, {2}), x));
  expect_floats_near({-2, -6},
                     run_single(reduce_model(OperationType::REDUCE_MIN, F32, {2, 3}, {1}, false, {2}), x));
  expect_floats_near({2, 3},
                     run_single(reduce_model(OperationType::REDUCE_SUM, F32, {2, 3}, {1}, false, {2}), x));
  const Tensor all =
      run_single(reduce_model(OperationType::REDUCE_MAX, F32, {2, 3}, {0, 1}, true, {1, 1}), x);
  EXPECT_EQ(all.dimensions, (std::vector<uint32_t>{1, 1}));
  expect_floats_near({5}, all);
  expect_floats_near({5, 3, -3},
                     run_single(reduce_model(OperationType::REDUCE_SUM, F32, {2, 3}, {-2}, false, {3}), x));
}

TEST(Hal12Reduce, Quant8MaxMinKeepQuantisation) {
  // Raw bytes compare in the same order as the values they stand for: max [200, 9], min [3, 0].
  const Tensor x = int_tensor(Q8, {2, 2}, {3, 200, 9, 0}, 0.5f, 128);
  EXPECT_EQ(
      ints_of(run_single(reduce_model(OperationType::REDUCE_MAX, Q8, {2, 2}, {1}, false, {2}, 0.5f, 128), x)),
      (std::vector<int32_t>{200, 9}));
  EXPECT_EQ(
      ints_of(run_single(reduce_model(OperationType::REDUCE_MIN, Q8, {2, 2}, {1}, false, {2}, 0.5f, 128), x)),
      (std::vector<int32_t>{3, 0}));
  // A different output scale is an error naming output 0; quant8 REDUCE_SUM is not NNAPI.
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {2}, 0.5f, 0);
  const uint32_t out = g.output(Q8, {1}, 1.0f, 0);
  g.op(OperationType::REDUCE_MAX, {in, g.ints(I32, {1}, {0}), g.boolean(false)}, {out});
  EXPECT_NE(validation_error(g.build()).find("output 0"), std::string::npos) << validation_error(g.build());
  EXPECT_NE(validation_error(reduce_model(OperationType::REDUCE_SUM, Q8, {2}, {0}, false, {1}, 0.5f, 0))
                .find("input 0"),
            std::string::npos);
}

TEST(Hal12Reduce, KeepDimsMustBeBool) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {2});
  const uint32_t out = g.output(F32, {1});
  g.op(OperationType::REDUCE_MAX, {in, g.ints(I32, {1}, {0}), g.i32(0)}, {out});
  EXPECT_NE(validation_error(g.build()).find("input 2 (keep_dims)"), std::string::npos)
      << validation_error(g.build());
}

TEST(Hal12Quantize, RoundsHalfAwayAndClamps) {
  // scale 0.5, zp 100: 1.0 → 2 + 100 = 102; -0.25 → round(-0.5) = -1 → 99; 0.75 → round(1.5) = 2 → 102;
  // 1000 → clamps to 255; -1000 → 0.
  GraphBuilder g;
  const uint32_t in = g.input(F32, {5});
  const uint32_t out = g.output(Q8, {5}, 0.5f, 100);
  g.op(OperationType::QUANTIZE, {in}, {out});
  EXPECT_EQ(ints_of(run_single(g.build(), float_tensor({5}, {1.0f, -0.25f, 0.75f, 1000.0f, -1000.0f}))),
            (std::vector<int32_t>{102, 99, 102, 255, 0}));
  // Signed, scale 0.1 zp -3: 0.26 → round(2.6) = 3 → 0; -12.8 → -128 - 3 clamps to -128.
  GraphBuilder s;
  const uint32_t sin = s.input(F32, {2});
  const uint32_t sout = s.output(S8, {2}, 0.1f, -3);
  s.op(OperationType::QUANTIZE, {sin}, {sout});
  EXPECT_EQ(ints_of(run_single(s.build(), float_tensor({2}, {0.26f, -12.8f}))),
            (std::vector<int32_t>{0, -128}));
}

TEST(Hal12Gather, AxisAndReflection) {
  // x [2, 3] = [[1, 2, 3], [4, 5, 6]]. Along axis 1 with [2, 1, 0, 1] (a reflection around column 0 … 2):
  // [[3, 2, 1, 2], [6, 5, 4, 5]]. Along axis 0 with [1]: [[4, 5, 6]] of shape [1, 3].
  GraphBuilder g;
  const uint32_t in = g.input(F32, {2, 3});
  const uint32_t out = g.output(F32, {2, 4});
  g.op(OperationType::GATHER, {in, g.i32(1), g.ints(I32, {4}, {2, 1, 0, 1})}, {out});
  const Tensor x = float_tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_floats_near({3, 2, 1, 2, 6, 5, 4, 5}, run_single(g.build(), x));
  GraphBuilder h;
  const uint32_t hin = h.input(F32, {2, 3});
  const uint32_t hout = h.output(F32, {1, 3});
  h.op(OperationType::GATHER, {hin, h.i32(-2), h.ints(I32, {1}, {1})}, {hout});
  expect_floats_near({4, 5, 6}, run_single(h.build(), x));
  // An index past the axis is an error naming the indices.
  GraphBuilder bad;
  const uint32_t bin = bad.input(F32, {2, 3});
  const uint32_t bout = bad.output(F32, {2, 1});
  bad.op(OperationType::GATHER, {bin, bad.i32(1), bad.ints(I32, {1}, {3})}, {bout});
  EXPECT_NE(validation_error(bad.build()).find("input 2 (indices)"), std::string::npos)
      << validation_error(bad.build());
}

}  // namespace
}  // namespace npu::hal::ops::test
