// NN HAL 1.2/1.3 operations added with the full 1.3 set on the CPU reference: CAST, SELECT, PRELU,
// HARD_SWISH, ELU, SIN, LOGICAL_AND/NOT/OR, FILL, RANK, SPLIT, SLICE, TILE, EXPAND_DIMS, PAD_V2,
// ARGMAX/ARGMIN, REDUCE_ALL/ANY/PROD, TOPK_V2, CHANNEL_SHUFFLE, LOG_SOFTMAX, RESIZE_NEAREST_NEIGHBOR and
// INSTANCE_NORMALIZATION. Expected values are worked by hand in the comments (fp16 values: the nearest
// binary16, step 2^(e-10) in [2^e, 2^(e+1))) or are NNAPI's documented examples; each op's validation
// test checks that a bad parameter is rejected with the input named. The last test checks, for every op
// here with both quant8 forms (not CAST or PAD_V2), that the signed result is the unsigned one - 128.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto B8 = OperandType::TENSOR_BOOL8;

// Runs `m` with `ins` (graph-input order); returns the outputs in graph-output order.
std::vector<Tensor> run(const Model& m, const std::vector<Tensor>& ins) {
  std::map<uint32_t, Tensor> map;
  for (size_t i = 0; i < ins.size(); ++i) map[m.main.input_indexes[i]] = ins[i];
  std::map<uint32_t, Tensor> r = run_ok(m, map);
  std::vector<Tensor> out;
  for (uint32_t idx : m.main.output_indexes) {
    auto it = r.find(idx);
    out.push_back(it == r.end() ? Tensor{} : it->second);
  }
  return out;
}

void expect_error_names(const Model& m, const std::string& what) {
  const std::string e = validation_error(m);
  EXPECT_NE(e.find(what), std::string::npos) << "error was: '" << e << "'";
}

// ---- CAST ----------------------------------------------------------------------------------------

Model cast_model(OperandType from, OperandType to, std::vector<uint32_t> dims, float s_in = 0,
                 int32_t z_in = 0, float s_out = 0, int32_t z_out = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(from, dims, s_in, z_in);
  const uint32_t y = g.output(to, dims, s_out, z_out);
  g.op(OperationType::CAST, {x}, {y});
  return g.build();
}

TEST(Hal13Cast, FloatToIntTruncatesAndSaturates) {
  // Truncation toward zero: -2.7 -> -2, -0.5 -> 0, 0.5 -> 0, 2.7 -> 2; 3e9 saturates to 2^31 - 1; NaN -> 0.
  const auto y =
      run(cast_model(F32, I32, {6}), {float_tensor({6}, {-2.7f, -0.5f, 0.5f, 2.7f, 3e9f, std::nanf("")})});
  EXPECT_EQ(ints_of(y[0]), (std::vector<int32_t>{-2, 0, 0, 2, std::numeric_limits<int32_t>::max(), 0}));
}

TEST(Hal13Cast, Quant8IgnoresQuantisation) {
  // NNAPI's example: quant8 (scale 4, zero point 100) raw values cast as plain numbers, both ways;
  // -1 and 256 clamp to 0 and 255; 3.7 truncates to 3.
  const auto q = run(cast_model(F32, Q8, {3}, 0, 0, 4.0f, 100), {float_tensor({3}, {-1, 256, 3.7f})});
  EXPECT_EQ(ints_of(q[0]), (std::vector<int32_t>{0, 255, 3}));
  const auto f = run(cast_model(Q8, F32, {2}, 4.0f, 100), {int_tensor(Q8, {2}, {1, 200}, 4.0f, 100)});
  expect_floats_near({1, 200}, f[0]);
  const auto i = run(cast_model(I32, Q8, {2}, 0, 0, 4.0f, 100), {int_tensor(I32, {2}, {-1, 256})});
  EXPECT_EQ(ints_of(i[0]), (std::vector<int32_t>{0, 255}));
}

TEST(Hal13Cast, Float16RoundsToNearestEven) {
  // 2049 lies halfway between the fp16 neighbours 2048 (even mantissa) and 2050: it rounds to 2048.
  // 0.1 in fp16 is 1638 * 2^-14 = 0.0999755859375.
  const auto h = run(cast_model(I32, F16, {2}), {int_tensor(I32, {2}, {2049, 1})});
  EXPECT_EQ(floats_of(h[0]), (std::vector<float>{2048.0f, 1.0f}));
  const auto h2 = run(cast_model(F32, F16, {1}), {float_tensor({1}, {0.1f})});
  EXPECT_EQ(floats_of(h2[0]), (std::vector<float>{0.0999755859375f}));
  // fp16 -> int32: 2.5 truncates to 2, -7.75 to -7.
  const auto i = run(cast_model(F16, I32, {2}), {float_tensor({2}, {2.5f, -7.75f}, F16)});
  EXPECT_EQ(ints_of(i[0]), (std::vector<int32_t>{2, -7}));
}

TEST(Hal13Cast, SameTypeCopies) {
  EXPECT_EQ(ints_of(run(cast_model(B8, B8, {3}), {int_tensor(B8, {3}, {1, 0, 1})})[0]),
            (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(ints_of(run(cast_model(S8, S8, {2}, 0.5f, -3, 0.5f, -3),
                        {int_tensor(S8, {2}, {-128, 127}, 0.5f, -3)})[0]),
            (std::vector<int32_t>{-128, 127}));
}

TEST(Hal13Cast, RejectsUnsupportedPairs) {
  expect_error_names(cast_model(B8, F32, {2}), "output 0: cannot cast TENSOR_BOOL8 to TENSOR_FLOAT32");
  expect_error_names(cast_model(S8, Q8, {2}, 0.5f, 0, 0.5f, 0), "output 0: cannot cast");
}

// ---- SELECT --------------------------------------------------------------------------------------

Model select_model(OperandType t, std::vector<uint32_t> dims, float sa = 0, int32_t za = 0, float sb = 0,
                   int32_t zb = 0, float so = 0, int32_t zo = 0, std::vector<uint32_t> b_dims = {}) {
  GraphBuilder g;
  const uint32_t c = g.input(B8, dims);
  const uint32_t a = g.input(t, dims, sa, za);
  const uint32_t b = g.input(t, b_dims.empty() ? dims : b_dims, sb, zb);
  const uint32_t y = g.output(t, dims, so, zo);
  g.op(OperationType::SELECT, {c, a, b}, {y});
  return g.build();
}

TEST(Hal13Select, FloatIntAndFloat16) {
  const Tensor c = int_tensor(B8, {4}, {1, 0, 1, 0});
  expect_floats_near({1, 20, 3, 40}, run(select_model(F32, {4}), {c, float_tensor({4}, {1, 2, 3, 4}),
                                                                  float_tensor({4}, {10, 20, 30, 40})})[0]);
  // 16777217 = 2^24 + 1 has no float32: INT32 values must be copied, not converted.
  EXPECT_EQ(ints_of(run(select_model(I32, {4}), {c, int_tensor(I32, {4}, {16777217, 0, -5, 0}),
                                                 int_tensor(I32, {4}, {0, -16777217, 0, 7})})[0]),
            (std::vector<int32_t>{16777217, -16777217, -5, 7}));
  // fp16 values pass through unchanged: 0.1 stays 0.0999755859375.
  EXPECT_EQ(
      floats_of(run(select_model(F16, {2}), {int_tensor(B8, {2}, {0, 1}), float_tensor({2}, {1, 0.1f}, F16),
                                             float_tensor({2}, {0.1f, 2}, F16)})[0]),
      (std::vector<float>{0.0999755859375f, 0.0999755859375f}));
}

TEST(Hal13Select, Quant8Requantises) {
  // a: scale 0.5 zp 10 -> q 14 = 2.0, q 6 = -2.0; b: scale 0.25 zp 0 -> q 12 = 3.0, q 3 = 0.75.
  // Output scale 1 zp 5: 2.0 -> 7, 3.0 -> 8, -2.0 -> 3, 0.75 -> round(0.75) = 1 -> 6.
  const auto y = run(select_model(Q8, {4}, 0.5f, 10, 0.25f, 0, 1.0f, 5),
                     {int_tensor(B8, {4}, {1, 0, 1, 0}), int_tensor(Q8, {4}, {14, 0, 6, 0}, 0.5f, 10),
                      int_tensor(Q8, {4}, {0, 12, 0, 3}, 0.25f, 0)});
  EXPECT_EQ(ints_of(y[0]), (std::vector<int32_t>{7, 8, 3, 6}));
}

TEST(Hal13Select, Validation) {
  expect_error_names(select_model(F32, {4}, 0, 0, 0, 0, 0, 0, {2}), "input 2 (input2)");
  GraphBuilder g;
  const uint32_t c = g.input(F32, {2});
  const uint32_t a = g.input(F32, {2});
  const uint32_t b = g.input(F32, {2});
  g.op(OperationType::SELECT, {c, a, b}, {g.output(F32, {2})});
  expect_error_names(g.build(), "input 0 (condition)");
}

// ---- PRELU ---------------------------------------------------------------------------------------

Model prelu_model(OperandType t, float si = 0, int32_t zi = 0, float sa = 0, int32_t za = 0, float so = 0,
                  int32_t zo = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 3}, si, zi);
  const uint32_t a = g.input(t, {1, 1, 3}, sa, za);
  g.op(OperationType::PRELU, {x, a}, {g.output(t, {1, 2, 2, 3}, so, zo)});
  return g.build();
}

// NNAPI's documented example: alpha [0, 1, 2] broadcast over the channels.
const std::vector<float> kPreluIn = {0, 0, 0, 1, 1, 1, -1, -1, -1, -2, -2, -2};
const std::vector<float> kPreluOut = {0, 0, 0, 1, 1, 1, 0, -1, -2, 0, -2, -4};

TEST(Hal13Prelu, FloatAndFloat16) {
  expect_floats_near(kPreluOut, run(prelu_model(F32), {float_tensor({1, 2, 2, 3}, kPreluIn),
                                                       float_tensor({1, 1, 3}, {0, 1, 2})})[0]);
  expect_floats_near(kPreluOut, run(prelu_model(F16), {float_tensor({1, 2, 2, 3}, kPreluIn, F16),
                                                       float_tensor({1, 1, 3}, {0, 1, 2}, F16)})[0]);
}

TEST(Hal13Prelu, Quant8) {
  // Input scale 0.25 zp 128: q = 4x + 128. Alpha scale 0.25 zp 50: [50, 54, 58]. Output scale 0.5 zp 120:
  // q = 2y + 120 -> [120 x3, 122 x3, 120, 118, 116, 120, 116, 112]. (Check of the integer path: x = -2,
  // alpha 2 -> (-8) * 8 = -64, times 0.25 * 0.25 / 0.5 = 0.125 -> -8 -> 112.)
  const Tensor x =
      int_tensor(Q8, {1, 2, 2, 3}, {128, 128, 128, 132, 132, 132, 124, 124, 124, 120, 120, 120}, 0.25f, 128);
  EXPECT_EQ(ints_of(run(prelu_model(Q8, 0.25f, 128, 0.25f, 50, 0.5f, 120),
                        {x, int_tensor(Q8, {1, 1, 3}, {50, 54, 58}, 0.25f, 50)})[0]),
            (std::vector<int32_t>{120, 120, 120, 122, 122, 122, 120, 118, 116, 120, 116, 112}));
  // Alpha scale 0.5 zp 50: [50, 52, 54]; output scale 0.1 zp 120: q = 10y + 120.
  EXPECT_EQ(ints_of(run(prelu_model(Q8, 0.25f, 128, 0.5f, 50, 0.1f, 120),
                        {x, int_tensor(Q8, {1, 1, 3}, {50, 52, 54}, 0.5f, 50)})[0]),
            (std::vector<int32_t>{120, 120, 120, 130, 130, 130, 120, 110, 100, 120, 100, 80}));
}

TEST(Hal13Prelu, AlphaMustBroadcast) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 3});
  const uint32_t a = g.input(F32, {2});
  g.op(OperationType::PRELU, {x, a}, {g.output(F32, {2, 3})});
  expect_error_names(g.build(), "input 1 (alpha)");
}

// ---- HARD_SWISH, ELU, SIN ---------------------------------------------------------------------------

Model unary(OperationType op, OperandType t, std::vector<uint32_t> dims, float si = 0, int32_t zi = 0,
            float so = 0, int32_t zo = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, si, zi);
  g.op(op, {x}, {g.output(t, dims, so, zo)});
  return g.build();
}

TEST(Hal13HardSwish, Float) {
  // x * relu6(x + 3) / 6: -4 -> 0, -3 -> 0, -1.5 -> -1.5 * 1.5 / 6 = -0.375, 0 -> 0, 1 -> 4/6,
  // 3 -> 3, 5 -> 5 * 6 / 6 = 5.
  expect_floats_near(
      {0, 0, -0.375f, 0, 0.6666667f, 3, 5},
      run(unary(OperationType::HARD_SWISH, F32, {7}), {float_tensor({7}, {-4, -3, -1.5f, 0, 1, 3, 5})})[0]);
  // fp16: 2/3 is 1365 * 2^-11 = 0.66650390625.
  EXPECT_EQ(
      floats_of(run(unary(OperationType::HARD_SWISH, F16, {2}), {float_tensor({2}, {1, -1.5f}, F16)})[0]),
      (std::vector<float>{0.66650390625f, -0.375f}));
}

TEST(Hal13HardSwish, Quant8) {
  // In scale 0.125 zp 128: q [96, 116, 136, 152] = x [-4, -1.5, 1, 3] -> y [0, -0.375, 2/3, 3]; out scale
  // 1/64 zp 64: 64 + round(64 y) = [64, 40, 64 + round(42.67) = 107, 64 + 192 = 256 -> clamp 255].
  EXPECT_EQ(ints_of(run(unary(OperationType::HARD_SWISH, Q8, {4}, 0.125f, 128, 1.0f / 64, 64),
                        {int_tensor(Q8, {4}, {96, 116, 136, 152}, 0.125f, 128)})[0]),
            (std::vector<int32_t>{64, 40, 107, 255}));
}

Model elu_model(OperandType t, float alpha, OperandType alpha_type) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {3});
  const uint32_t a = alpha_type == OperandType::INT32 ? g.i32(1) : g.floats({}, {alpha}, alpha_type);
  g.op(OperationType::ELU, {x, a}, {g.output(t, {3})});
  return g.build();
}

TEST(Hal13Elu, FloatAndFloat16) {
  // alpha 1: exp(-1) - 1 = -0.63212056; 0 and 2 unchanged. alpha 0.5, x = -2: 0.5 * (0.13533528 - 1) =
  // -0.43233236.
  expect_floats_near({-0.63212056f, 0, 2},
                     run(elu_model(F32, 1.0f, OperandType::FLOAT32), {float_tensor({3}, {-1, 0, 2})})[0]);
  expect_floats_near({-0.43233236f, 0, 2},
                     run(elu_model(F32, 0.5f, OperandType::FLOAT32), {float_tensor({3}, {-2, 0, 2})})[0]);
  // fp16: 0.63212056 / 2^-11 = 1294.58 -> 1295 * 2^-11 = 0.63232421875.
  EXPECT_EQ(
      floats_of(run(elu_model(F16, 1.0f, OperandType::FLOAT16), {float_tensor({3}, {-1, 0, 2}, F16)})[0]),
      (std::vector<float>{-0.63232421875f, 0, 2}));
}

TEST(Hal13Elu, AlphaTypeMustMatch) {
  expect_error_names(elu_model(F32, 1.0f, OperandType::INT32), "input 1 (alpha)");
  expect_error_names(elu_model(F16, 1.0f, OperandType::FLOAT32), "input 1 (alpha)");
}

TEST(Hal13Sin, FloatAndFloat16) {
  // sin 0 = 0, sin(pi/2) = 1, sin(float pi) = -8.74e-8 (~0), sin(-pi/6) = -0.5.
  expect_floats_near({0, 1, 0, -0.5f}, run(unary(OperationType::SIN, F32, {4}),
                                           {float_tensor({4}, {0, 1.5707964f, 3.1415927f, -0.5235988f})})[0]);
  // fp16: sin 1 = 0.84147098 -> 1723 * 2^-11 = 0.84130859375.
  EXPECT_EQ(floats_of(run(unary(OperationType::SIN, F16, {1}), {float_tensor({1}, {1}, F16)})[0]),
            (std::vector<float>{0.84130859375f}));
  expect_error_names(unary(OperationType::SIN, I32, {1}), "input 0 (input)");
}

// ---- LOGICAL_* -----------------------------------------------------------------------------------

Model logical(OperationType op, std::vector<uint32_t> a, std::vector<uint32_t> b, std::vector<uint32_t> o,
              OperandType t = B8) {
  GraphBuilder g;
  const uint32_t x = g.input(t, a);
  const uint32_t y = g.input(t, b);
  g.op(op, {x, y}, {g.output(B8, o)});
  return g.build();
}

TEST(Hal13Logical, AndOrNotBroadcast) {
  // [[1, 0], [1, 1]] against the row [1, 0]: AND [1, 0, 1, 0], OR [1, 0, 1, 1].
  const std::vector<Tensor> in = {int_tensor(B8, {2, 2}, {1, 0, 1, 1}), int_tensor(B8, {2}, {1, 0})};
  EXPECT_EQ(ints_of(run(logical(OperationType::LOGICAL_AND, {2, 2}, {2}, {2, 2}), in)[0]),
            (std::vector<int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(ints_of(run(logical(OperationType::LOGICAL_OR, {2, 2}, {2}, {2, 2}), in)[0]),
            (std::vector<int32_t>{1, 0, 1, 1}));
  EXPECT_EQ(ints_of(run(unary(OperationType::LOGICAL_NOT, B8, {4}), {int_tensor(B8, {4}, {1, 0, 0, 1})})[0]),
            (std::vector<int32_t>{0, 1, 1, 0}));
}

TEST(Hal13Logical, Validation) {
  expect_error_names(logical(OperationType::LOGICAL_AND, {2}, {2}, {2}, F32), "input 0 (input0)");
  expect_error_names(logical(OperationType::LOGICAL_OR, {2, 3}, {2}, {2, 3}), "input 1 (input1)");
}

// ---- FILL, RANK ----------------------------------------------------------------------------------

Model fill_model(OperandType t, std::vector<int32_t> dims, uint32_t value_operand_kind, float v) {
  GraphBuilder g;
  const uint32_t d = g.ints(I32, {static_cast<uint32_t>(dims.size())}, dims);
  uint32_t val = 0;
  if (value_operand_kind == 0) val = g.i32(static_cast<int32_t>(v));
  if (value_operand_kind == 1) val = g.floats({}, {v}, OperandType::FLOAT32);
  if (value_operand_kind == 2) val = g.floats({}, {v}, OperandType::FLOAT16);
  g.op(OperationType::FILL, {d, val}, {g.output(t, {})});
  return g.build();
}

TEST(Hal13Fill, EveryType) {
  const auto f = run(fill_model(F32, {2, 3}, 1, 1.5f), {});
  EXPECT_EQ(f[0].dimensions, (std::vector<uint32_t>{2, 3}));
  expect_floats_near({1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f}, f[0]);
  EXPECT_EQ(ints_of(run(fill_model(I32, {3}, 0, 7), {})[0]), (std::vector<int32_t>{7, 7, 7}));
  // The FLOAT16 scalar 0.1 is already fp16 0.0999755859375.
  EXPECT_EQ(floats_of(run(fill_model(F16, {2}, 2, 0.1f), {})[0]),
            (std::vector<float>{0.0999755859375f, 0.0999755859375f}));
}

TEST(Hal13Fill, Validation) {
  expect_error_names(fill_model(F32, {2, 0}, 1, 1), "input 0 (dims)");
  expect_error_names(fill_model(I32, {2}, 1, 1), "input 1 (value)");
  expect_error_names(fill_model(Q8, {2}, 0, 1), "output 0");
}

TEST(Hal13Rank, RankOfAnyTensor) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 3, 4});
  const uint32_t b = g.input(B8, {5});
  g.op(OperationType::RANK, {x}, {g.output(OperandType::INT32, {})});
  g.op(OperationType::RANK, {b}, {g.output(OperandType::INT32, {})});
  const auto r = run(
      g.build(), {float_tensor({2, 3, 4}, std::vector<float>(24, 0)), int_tensor(B8, {5}, {1, 0, 1, 0, 1})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(ints_of(r[0]), (std::vector<int32_t>{3}));
  EXPECT_EQ(ints_of(r[1]), (std::vector<int32_t>{1}));
  GraphBuilder bad;
  const uint32_t y = bad.input(F32, {2});
  bad.op(OperationType::RANK, {y}, {bad.output(I32, {1})});
  expect_error_names(bad.build(), "output 0");
}

// ---- SPLIT, SLICE, TILE, EXPAND_DIMS -----------------------------------------------------------------

Model split_model(OperandType t, std::vector<uint32_t> dims, int32_t axis, int32_t n,
                  std::vector<uint32_t> piece, float s = 0, int32_t z = 0, size_t outputs = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  std::vector<uint32_t> outs;
  for (size_t k = 0; k < (outputs ? outputs : static_cast<size_t>(n)); ++k)
    outs.push_back(g.output(t, piece, s, z));
  g.op(OperationType::SPLIT, {x, g.i32(axis), g.i32(n)}, outs);
  return g.build();
}

TEST(Hal13Split, IntAndFloat) {
  // The 2x2x2x2 values 1..16 split on axis 2: each output takes one row of every [2, 2] block
  // (NNAPI's split_4D_int32 example).
  std::vector<int32_t> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i + 1;
  const auto y = run(split_model(I32, {2, 2, 2, 2}, 2, 2, {2, 2, 1, 2}), {int_tensor(I32, {2, 2, 2, 2}, v)});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(ints_of(y[0]), (std::vector<int32_t>{1, 2, 5, 6, 9, 10, 13, 14}));
  EXPECT_EQ(ints_of(y[1]), (std::vector<int32_t>{3, 4, 7, 8, 11, 12, 15, 16}));
  // [[1, 2, 3], [4, 5, 6]] split into 3 along axis -1: columns [1, 4], [2, 5], [3, 6].
  const auto f =
      run(split_model(F16, {2, 3}, -1, 3, {2, 1}), {float_tensor({2, 3}, {1, 2, 3, 4, 5, 6}, F16)});
  ASSERT_EQ(f.size(), 3u);
  expect_floats_near({1, 4}, f[0]);
  expect_floats_near({2, 5}, f[1]);
  expect_floats_near({3, 6}, f[2]);
}

TEST(Hal13Split, Validation) {
  expect_error_names(split_model(F32, {6}, 0, 4, {0}), "input 2 (num_splits)");  // 4 does not divide 6
  expect_error_names(split_model(F32, {6}, 1, 2, {3}), "input 1 (axis)");        // rank 1: axis in [-1, 1)
  expect_error_names(split_model(F32, {6}, 0, 3, {2}, 0, 0, 2),
                     "input 2 (num_splits)");  // 3 splits, 2 outputs
  EXPECT_EQ(validation_error(split_model(Q8, {6}, 0, 2, {3}, 0.5f, 0)),
            "");  // the helper builds valid models
}

Model slice_model(OperandType t, std::vector<uint32_t> dims, std::vector<int32_t> begin,
                  std::vector<int32_t> size, std::vector<uint32_t> out, float s = 0, int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  const auto r = static_cast<uint32_t>(begin.size());
  g.op(OperationType::SLICE, {x, g.ints(I32, {r}, begin), g.ints(I32, {r}, size)}, {g.output(t, out, s, z)});
  return g.build();
}

TEST(Hal13Slice, WindowAndToEnd) {
  // 3x4 values 0..11; begin [1, 1], size [2, -1] (to the end): rows 1..2, columns 1..3.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  expect_floats_near({5, 6, 7, 9, 10, 11},
                     run(slice_model(F32, {3, 4}, {1, 1}, {2, -1}, {2, 3}), {float_tensor({3, 4}, v)})[0]);
  EXPECT_EQ(ints_of(run(slice_model(I32, {4}, {2}, {1}, {1}), {int_tensor(I32, {4}, {9, 8, 7, 6})})[0]),
            (std::vector<int32_t>{7}));
}

TEST(Hal13Slice, Validation) {
  expect_error_names(slice_model(F32, {3, 4}, {1, 1}, {3, 1}, {0, 0}), "input 2 (size)");  // 1 + 3 > 3
  expect_error_names(slice_model(F32, {3, 4}, {3, 0}, {1, 1}, {0, 0}), "input 1 (begin)");
  expect_error_names(slice_model(F32, {3, 4}, {1}, {1}, {0, 0}), "input 1 (begin)");  // one value for rank 2
}

Model tile_model(OperandType t, std::vector<uint32_t> dims, std::vector<int32_t> m, std::vector<uint32_t> out,
                 float s = 0, int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  g.op(OperationType::TILE, {x, g.ints(I32, {static_cast<uint32_t>(m.size())}, m)}, {g.output(t, out, s, z)});
  return g.build();
}

TEST(Hal13Tile, Repeats) {
  // [[1, 2], [3, 4]] tiled [1, 2]: each row twice side by side; [2, 1]: the whole block twice.
  const Tensor x = float_tensor({2, 2}, {1, 2, 3, 4});
  expect_floats_near({1, 2, 1, 2, 3, 4, 3, 4}, run(tile_model(F32, {2, 2}, {1, 2}, {2, 4}), {x})[0]);
  expect_floats_near({1, 2, 3, 4, 1, 2, 3, 4}, run(tile_model(F32, {2, 2}, {2, 1}, {4, 2}), {x})[0]);
  EXPECT_EQ(ints_of(run(tile_model(I32, {2}, {3}, {6}), {int_tensor(I32, {2}, {-1, 16777217})})[0]),
            (std::vector<int32_t>{-1, 16777217, -1, 16777217, -1, 16777217}));
  expect_error_names(tile_model(F32, {2, 2}, {1, 0}, {0, 0}), "input 1 (multiples)");
}

Model expand_model(OperandType t, std::vector<uint32_t> dims, int32_t axis, std::vector<uint32_t> out) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims);
  g.op(OperationType::EXPAND_DIMS, {x, g.i32(axis)}, {g.output(t, out)});
  return g.build();
}

TEST(Hal13ExpandDims, InsertsAxis) {
  const auto a = run(expand_model(F32, {2, 3}, -1, {}), {float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(a[0].dimensions, (std::vector<uint32_t>{2, 3, 1}));  // -1 is the new last axis
  expect_floats_near({1, 2, 3, 4, 5, 6}, a[0]);
  const auto b = run(expand_model(I32, {2, 3}, 1, {}), {int_tensor(I32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(b[0].dimensions, (std::vector<uint32_t>{2, 1, 3}));
  expect_error_names(expand_model(F32, {2, 3}, 3, {}), "input 1 (axis)");  // range [-3, 3)
}

// ---- PAD_V2 -------------------------------------------------------------------------------------

Model pad_v2_model(OperandType t, uint32_t value_operand, std::vector<uint32_t> out, float s = 0,
                   int32_t z = 0, GraphBuilder* gb = nullptr) {
  GraphBuilder local;
  GraphBuilder& g = gb ? *gb : local;
  const uint32_t x = g.input(t, {1, 2}, s, z);
  const uint32_t p = g.ints(I32, {2, 2}, {0, 1, 1, 1});
  g.op(OperationType::PAD_V2, {x, p, value_operand}, {g.output(t, out, s, z)});
  return g.build();
}

TEST(Hal13PadV2, PadsWithTheValue) {
  // [1, 2] padded by (0, 1) rows and (1, 1) columns: [[v, 1, 2, v], [v, v, v, v]].
  GraphBuilder g;
  const uint32_t v = g.floats({}, {9.5f}, OperandType::FLOAT32);
  expect_floats_near({9.5f, 1, 2, 9.5f, 9.5f, 9.5f, 9.5f, 9.5f},
                     run(pad_v2_model(F32, v, {2, 4}, 0, 0, &g), {float_tensor({1, 2}, {1, 2})})[0]);
  GraphBuilder h;
  const uint32_t hv = h.floats({}, {0.1f}, OperandType::FLOAT16);
  const float p = 0.0999755859375f;  // fp16 0.1
  EXPECT_EQ(floats_of(run(pad_v2_model(F16, hv, {2, 4}, 0, 0, &h), {float_tensor({1, 2}, {1, 2}, F16)})[0]),
            (std::vector<float>{p, 1, 2, p, p, p, p, p}));
  // Quant8: the INT32 pad value is the raw quantised value itself (3 unsigned, -5 signed), not shifted.
  GraphBuilder q;
  const uint32_t qv = q.i32(3);
  EXPECT_EQ(ints_of(run(pad_v2_model(Q8, qv, {2, 4}, 0.5f, 10, &q),
                        {int_tensor(Q8, {1, 2}, {200, 7}, 0.5f, 10)})[0]),
            (std::vector<int32_t>{3, 200, 7, 3, 3, 3, 3, 3}));
  GraphBuilder s;
  const uint32_t sv = s.i32(-5);
  EXPECT_EQ(ints_of(run(pad_v2_model(S8, sv, {2, 4}, 0.5f, 10, &s),
                        {int_tensor(S8, {1, 2}, {-100, 7}, 0.5f, 10)})[0]),
            (std::vector<int32_t>{-5, -100, 7, -5, -5, -5, -5, -5}));
}

TEST(Hal13PadV2, Validation) {
  GraphBuilder q;
  const uint32_t qv = q.i32(300);
  expect_error_names(pad_v2_model(Q8, qv, {2, 4}, 0.5f, 10, &q), "input 2 (pad_value)");
  GraphBuilder f;
  const uint32_t fv = f.i32(1);
  expect_error_names(pad_v2_model(F32, fv, {2, 4}, 0, 0, &f), "input 2 (pad_value)");
}

// ---- ARGMAX / ARGMIN ---------------------------------------------------------------------------------

Model arg_model(OperationType op, OperandType t, std::vector<uint32_t> dims, int32_t axis,
                std::vector<uint32_t> out, float s = 0, int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  g.op(op, {x, g.i32(axis)}, {g.output(I32, out)});
  return g.build();
}

TEST(Hal13ArgMinMax, AxesAndTies) {
  // [[1, 5, 5], [-1, -7, 0]]: along axis 1 the max is at 1 (the first of the two 5s) and 2, the min at 0
  // and 1; along axis 0 the max row is 0 in every column, the min row 1.
  const Tensor x = float_tensor({2, 3}, {1, 5, 5, -1, -7, 0});
  EXPECT_EQ(ints_of(run(arg_model(OperationType::ARGMAX, F32, {2, 3}, 1, {2}), {x})[0]),
            (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(ints_of(run(arg_model(OperationType::ARGMIN, F32, {2, 3}, -1, {2}), {x})[0]),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(ints_of(run(arg_model(OperationType::ARGMAX, F32, {2, 3}, 0, {3}), {x})[0]),
            (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(ints_of(run(arg_model(OperationType::ARGMIN, F32, {2, 3}, 0, {3}), {x})[0]),
            (std::vector<int32_t>{1, 1, 1}));
  // 1-D input: output shape [1]. INT32 and FLOAT16 inputs.
  const auto i = run(arg_model(OperationType::ARGMAX, I32, {3}, 0, {}), {int_tensor(I32, {3}, {4, 9, -2})});
  EXPECT_EQ(i[0].dimensions, (std::vector<uint32_t>{1}));
  EXPECT_EQ(ints_of(i[0]), (std::vector<int32_t>{1}));
  EXPECT_EQ(ints_of(run(arg_model(OperationType::ARGMIN, F16, {3}, 0, {1}),
                        {float_tensor({3}, {0.5f, -2, 3}, F16)})[0]),
            (std::vector<int32_t>{1}));
  expect_error_names(arg_model(OperationType::ARGMAX, F32, {2, 3}, 2, {}), "input 1 (axis)");
}

// ---- REDUCE_ALL / ANY / PROD -------------------------------------------------------------------------

Model reduce(OperationType op, OperandType t, std::vector<uint32_t> dims, std::vector<int32_t> axes,
             bool keep, std::vector<uint32_t> out) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims);
  g.op(op, {x, g.ints(I32, {static_cast<uint32_t>(axes.size())}, axes), g.boolean(keep)}, {g.output(t, out)});
  return g.build();
}

TEST(Hal13Reduce, AllAny) {
  // [[1, 1, 0], [1, 1, 1]]: ALL over axis 1 -> [0, 1], ANY -> [1, 1]; ALL over axis 0 -> [1, 1, 0].
  const Tensor x = int_tensor(B8, {2, 3}, {1, 1, 0, 1, 1, 1});
  EXPECT_EQ(ints_of(run(reduce(OperationType::REDUCE_ALL, B8, {2, 3}, {1}, false, {2}), {x})[0]),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(ints_of(run(reduce(OperationType::REDUCE_ANY, B8, {2, 3}, {1}, false, {2}), {x})[0]),
            (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(ints_of(run(reduce(OperationType::REDUCE_ALL, B8, {2, 3}, {0}, true, {1, 3}), {x})[0]),
            (std::vector<int32_t>{1, 1, 0}));
  expect_error_names(reduce(OperationType::REDUCE_ANY, F32, {2}, {0}, false, {1}), "input 0 (input)");
}

TEST(Hal13Reduce, Prod) {
  // Rows [1, 2, 3] and [4, 5, 6]: products 6 and 120 (keep_dims: shape [2, 1]).
  const auto p = run(reduce(OperationType::REDUCE_PROD, F32, {2, 3}, {1}, true, {2, 1}),
                     {float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(p[0].dimensions, (std::vector<uint32_t>{2, 1}));
  expect_floats_near({6, 120}, p[0]);
  // fp16: 100 * 700 = 70000 > 65504 overflows to +inf; fp16 0.1 squared = 0.0099951177... -> 1310 * 2^-17
  // = 0.0099945068359375.
  const auto h = run(reduce(OperationType::REDUCE_PROD, F16, {2, 2}, {1}, false, {2}),
                     {float_tensor({2, 2}, {100, 700, 0.1f, 0.1f}, F16)});
  const auto v = floats_of(h[0]);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(std::isinf(v[0]) && v[0] > 0);
  EXPECT_EQ(v[1], 0.0099945068359375f);
}

// ---- TOPK_V2 ------------------------------------------------------------------------------------------

Model topk_model(OperandType t, std::vector<uint32_t> dims, int32_t k, std::vector<uint32_t> out, float s = 0,
                 int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  g.op(OperationType::TOPK_V2, {x, g.i32(k)}, {g.output(t, out, s, z), g.output(I32, out)});
  return g.build();
}

TEST(Hal13TopK, ValuesAndIndices) {
  // Rows [1, 3, 3, 2] and [-1, -5, 8, 0], k = 2: [3, 3] at [1, 2] (equal values in row order), [8, 0] at
  // [2, 3].
  const auto y = run(topk_model(F32, {2, 4}, 2, {2, 2}), {float_tensor({2, 4}, {1, 3, 3, 2, -1, -5, 8, 0})});
  ASSERT_EQ(y.size(), 2u);
  expect_floats_near({3, 3, 8, 0}, y[0]);
  EXPECT_EQ(ints_of(y[1]), (std::vector<int32_t>{1, 2, 2, 3}));
  const auto i = run(topk_model(I32, {3}, 1, {1}), {int_tensor(I32, {3}, {-4, 16777217, 16777216})});
  EXPECT_EQ(ints_of(i[0]), (std::vector<int32_t>{16777217}));
  EXPECT_EQ(ints_of(i[1]), (std::vector<int32_t>{1}));
  expect_error_names(topk_model(F32, {2, 4}, 5, {2, 5}), "input 1 (k)");
  expect_error_names(topk_model(F32, {2, 4}, 0, {2, 0}), "input 1 (k)");
}

// ---- CHANNEL_SHUFFLE --------------------------------------------------------------------------------

Model shuffle_model(OperandType t, std::vector<uint32_t> dims, int32_t groups, int32_t axis, float s = 0,
                    int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  g.op(OperationType::CHANNEL_SHUFFLE, {x, g.i32(groups), g.i32(axis)}, {g.output(t, dims, s, z)});
  return g.build();
}

TEST(Hal13ChannelShuffle, Groups) {
  // 6 channels in 2 groups of 3, [0 1 2 | 3 4 5] -> transposed [3, 2] -> [0, 3, 1, 4, 2, 5].
  expect_floats_near({0, 3, 1, 4, 2, 5, 10, 13, 11, 14, 12, 15},
                     run(shuffle_model(F32, {2, 6}, 2, -1),
                         {float_tensor({2, 6}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15})})[0]);
  // Axis 0 of a [6, 1] tensor, 3 groups of 2: [0 1 | 2 3 | 4 5] -> [0, 2, 4, 1, 3, 5].
  expect_floats_near({0, 2, 4, 1, 3, 5}, run(shuffle_model(F16, {6, 1}, 3, 0),
                                             {float_tensor({6, 1}, {0, 1, 2, 3, 4, 5}, F16)})[0]);
  expect_error_names(shuffle_model(F32, {2, 6}, 4, -1), "input 1 (num_groups)");
  expect_error_names(shuffle_model(F32, {2, 6}, 2, 2), "input 2 (axis)");
}

// ---- LOG_SOFTMAX ---------------------------------------------------------------------------------

Model log_softmax_model(OperandType t, std::vector<uint32_t> dims, float beta, int32_t axis) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims);
  const uint32_t b = g.floats({}, {beta}, t == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32);
  g.op(OperationType::LOG_SOFTMAX, {x, b, g.i32(axis)}, {g.output(t, dims)});
  return g.build();
}

TEST(Hal13LogSoftmax, FloatAndBeta) {
  // [1, 2, 3]: log(e^-2 + e^-1 + 1) = log(1.50321472) = 0.40760596 -> [-2.40760596, -1.40760596,
  // -0.40760596]. beta 2 on [0, 0.5]: y = [0, 1], log(e^-1 + 1) = 0.31326169 -> [-1.31326169,
  // -0.31326169].
  expect_floats_near({-2.40760596f, -1.40760596f, -0.40760596f},
                     run(log_softmax_model(F32, {1, 3}, 1.0f, -1), {float_tensor({1, 3}, {1, 2, 3})})[0]);
  expect_floats_near({-1.31326169f, -0.31326169f},
                     run(log_softmax_model(F32, {2, 1}, 2.0f, 0), {float_tensor({2, 1}, {0, 0.5f})})[0]);
  // fp16: -0.31326169 in [0.25, 0.5), step 2^-12: 1283.12 -> 1283 * 2^-12 = 0.313232421875;
  // -1.31326169 in [1, 2), step 2^-10: 1344.78 -> 1345 * 2^-10 = 1.3134765625.
  EXPECT_EQ(floats_of(run(log_softmax_model(F16, {2}, 2.0f, 0), {float_tensor({2}, {0, 0.5f}, F16)})[0]),
            (std::vector<float>{-1.3134765625f, -0.313232421875f}));
  expect_error_names(log_softmax_model(F32, {1, 3}, 1.0f, 2), "input 2 (axis)");
}

// ---- RESIZE_NEAREST_NEIGHBOR ----------------------------------------------------------------------

Model nearest_model(OperandType t, std::vector<uint32_t> dims, int32_t w, int32_t h, bool nchw,
                    std::vector<bool> flags, std::vector<uint32_t> out, float s = 0, int32_t z = 0) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, s, z);
  std::vector<uint32_t> ins = {x, g.i32(w), g.i32(h), g.boolean(nchw)};
  for (bool f : flags) ins.push_back(g.boolean(f));
  g.op(OperationType::RESIZE_NEAREST_NEIGHBOR, ins, {g.output(t, out, s, z)});
  return g.build();
}

TEST(Hal13ResizeNearest, Upscale) {
  // 2x2 [1 2; 3 4] -> 3x3, scale 2/3: sources floor(0), floor(0.67), floor(1.33) = 0, 0, 1 per axis.
  const Tensor x = float_tensor({1, 2, 2, 1}, {1, 2, 3, 4});
  expect_floats_near({1, 1, 2, 1, 1, 2, 3, 3, 4},
                     run(nearest_model(F32, {1, 2, 2, 1}, 3, 3, false, {}, {1, 3, 3, 1}), {x})[0]);
  // align_corners: scale (2 - 1) / (3 - 1) = 0.5, sources round(0), round(0.5), round(1) = 0, 1, 1.
  expect_floats_near({1, 2, 2, 3, 4, 4, 3, 4, 4},
                     run(nearest_model(F32, {1, 2, 2, 1}, 3, 3, false, {true, false}, {1, 3, 3, 1}), {x})[0]);
  // By scale: FLOAT32 1.5 gives floor(2 * 1.5) = 3, the same as the first case.
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 2, 2, 1});
  const uint32_t sc = g.floats({}, {1.5f}, OperandType::FLOAT32);
  g.op(OperationType::RESIZE_NEAREST_NEIGHBOR, {in, sc, sc, g.boolean(false)}, {g.output(F32, {1, 3, 3, 1})});
  expect_floats_near({1, 1, 2, 1, 1, 2, 3, 3, 4}, run(g.build(), {x})[0]);
}

TEST(Hal13ResizeNearest, DownscaleModes) {
  // Width 4 -> 2: plain scale 2: sources 0, 2 -> [1, 3]; half pixel centres: floor(0.5 * 2) = 1,
  // floor(1.5 * 2) = 3 -> [2, 4]; align corners: scale 3, round(0), round(3) -> [1, 4].
  const Tensor x = int_tensor(Q8, {1, 1, 4, 1}, {1, 2, 3, 4}, 0.5f, 0);
  auto m = [&](std::vector<bool> f) {
    return nearest_model(Q8, {1, 1, 4, 1}, 2, 1, false, f, {1, 1, 2, 1}, 0.5f, 0);
  };
  EXPECT_EQ(ints_of(run(m({}), {x})[0]), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(ints_of(run(m({false, true}), {x})[0]), (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(ints_of(run(m({true}), {x})[0]), (std::vector<int32_t>{1, 4}));
}

TEST(Hal13ResizeNearest, NchwAndFloat16) {
  // NCHW [1, 2, 1, 2]: channel 0 [1, 2], channel 1 [10, 20]; width 2 -> 4, scale 0.5: sources 0, 0, 1, 1.
  expect_floats_near({1, 1, 2, 2, 10, 10, 20, 20},
                     run(nearest_model(F16, {1, 2, 1, 2}, 4, 1, true, {}, {1, 2, 1, 4}),
                         {float_tensor({1, 2, 1, 2}, {1, 2, 10, 20}, F16)})[0]);
}

TEST(Hal13ResizeNearest, Validation) {
  expect_error_names(nearest_model(F32, {1, 2, 2, 1}, 3, 3, false, {true, true}, {1, 3, 3, 1}),
                     "input 4 (align_corners)");
  expect_error_names(nearest_model(F32, {1, 2, 2, 1}, 0, 3, false, {}, {1, 3, 3, 1}),
                     "input 1 (output width)");
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 2, 2, 1});
  g.op(OperationType::RESIZE_NEAREST_NEIGHBOR, {in, g.i32(3), g.i32(3)}, {g.output(F32, {1, 3, 3, 1})});
  expect_error_names(g.build(), "expected 4 to 6 inputs, got 3");
}

// ---- INSTANCE_NORMALIZATION ------------------------------------------------------------------------

Model instance_norm_model(OperandType t, std::vector<uint32_t> dims, float gamma, float beta, float eps,
                          bool nchw) {
  GraphBuilder g;
  const uint32_t x = g.input(t, dims);
  const OperandType st = t == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  g.op(OperationType::INSTANCE_NORMALIZATION,
       {x, g.floats({}, {gamma}, st), g.floats({}, {beta}, st), g.floats({}, {eps}, st), g.boolean(nchw)},
       {g.output(t, dims)});
  return g.build();
}

TEST(Hal13InstanceNorm, NhwcNchwFloat16) {
  // Channel 0 [1, 2, 3, 4]: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25; with epsilon 1,
  // sqrt(2.25) = 1.5, gamma 2, beta 1: (x - 2.5) * 4/3 + 1 = [-1, 1/3, 5/3, 3]. Channel 1 constant 10:
  // (x - mean) = 0 -> beta = 1.
  const std::vector<float> c0 = {-1, 0.33333334f, 1.6666666f, 3};
  expect_floats_near({c0[0], 1, c0[1], 1, c0[2], 1, c0[3], 1},
                     run(instance_norm_model(F32, {1, 2, 2, 2}, 2, 1, 1, false),
                         {float_tensor({1, 2, 2, 2}, {1, 10, 2, 10, 3, 10, 4, 10})})[0]);
  expect_floats_near({c0[0], c0[1], c0[2], c0[3], 1, 1, 1, 1},
                     run(instance_norm_model(F32, {1, 2, 2, 2}, 2, 1, 1, true),
                         {float_tensor({1, 2, 2, 2}, {1, 2, 3, 4, 10, 10, 10, 10})})[0]);
  // fp16: 1/3 -> 1365 * 2^-12 = 0.333251953125; 5/3 -> 1707 * 2^-10 = 1.6669921875.
  EXPECT_EQ(floats_of(run(instance_norm_model(F16, {1, 2, 2, 1}, 2, 1, 1, false),
                          {float_tensor({1, 2, 2, 1}, {1, 2, 3, 4}, F16)})[0]),
            (std::vector<float>{-1, 0.333251953125f, 1.6669921875f, 3}));
}

TEST(Hal13InstanceNorm, Validation) {
  expect_error_names(instance_norm_model(F32, {1, 2, 2, 1}, 1, 0, -1, false), "input 3 (epsilon)");
  expect_error_names(instance_norm_model(F32, {2, 2, 1}, 1, 0, 1, false), "input 0 (input)");
}

// ---- Signed quant8 == unsigned quant8 - 128 --------------------------------------------------------

// One case: a model factory taking the quant8 type and the zero-point shift (0 unsigned, -128 signed),
// and the unsigned raw values of each graph input (the signed run gets them minus 128; non-quant8 inputs
// such as SELECT's condition are passed unchanged).
struct QuantCase {
  const char* name;
  std::function<Model(OperandType, int32_t)> model;
  std::vector<std::vector<int32_t>> inputs;
};

std::vector<int32_t> all_bytes() {
  std::vector<int32_t> v(256);
  for (int i = 0; i < 256; ++i) v[i] = i;
  return v;
}

TEST(Hal13Quant8, SignedEqualsUnsignedShifted) {
  const std::vector<int32_t> bytes = all_bytes();
  std::vector<int32_t> bytes_rev(bytes.rbegin(), bytes.rend());
  std::vector<int32_t> cond(256);
  for (int i = 0; i < 256; ++i) cond[i] = (i * 7 % 3) == 0 ? 1 : 0;
  const std::vector<QuantCase> cases = {
      {"SELECT",
       [](OperandType t, int32_t d) {
         return select_model(t, {256}, 0.5f, 100 + d, 0.25f, 30 + d, 0.7f, 128 + d);
       },
       {cond, bytes, bytes_rev}},
      {"PRELU",
       [](OperandType t, int32_t d) {
         GraphBuilder g;
         const uint32_t x = g.input(t, {64, 4}, 0.1f, 120 + d);
         const uint32_t a = g.input(t, {4}, 0.05f, 128 + d);
         g.op(OperationType::PRELU, {x, a}, {g.output(t, {64, 4}, 0.08f, 100 + d)});
         return g.build();
       },
       {bytes, {100, 128, 160, 255}}},
      {"HARD_SWISH",
       [](OperandType t, int32_t d) {
         return unary(OperationType::HARD_SWISH, t, {256}, 0.05f, 128 + d, 0.03f, 40 + d);
       },
       {bytes}},
      {"SPLIT",
       [](OperandType t, int32_t d) {
         return split_model(t, {4, 64}, 1, 4, {4, 16}, 0.5f, 3 + d);
       },
       {bytes}},
      {"SLICE",
       [](OperandType t, int32_t d) {
         return slice_model(t, {16, 16}, {3, 2}, {-1, 5}, {13, 5}, 0.5f, 3 + d);
       },
       {bytes}},
      {"TILE",
       [](OperandType t, int32_t d) {
         return tile_model(t, {16, 16}, {2, 1}, {32, 16}, 0.5f, 3 + d);
       },
       {bytes}},
      {"EXPAND_DIMS",
       [](OperandType t, int32_t d) {
         GraphBuilder g;
         const uint32_t x = g.input(t, {256}, 0.5f, 3 + d);
         g.op(OperationType::EXPAND_DIMS, {x, g.i32(0)}, {g.output(t, {1, 256}, 0.5f, 3 + d)});
         return g.build();
       },
       {bytes}},
      {"ARGMAX",
       [](OperandType t, int32_t d) {
         return arg_model(OperationType::ARGMAX, t, {16, 16}, 1, {16}, 0.5f, 3 + d);
       },
       {bytes_rev}},
      {"ARGMIN",
       [](OperandType t, int32_t d) {
         return arg_model(OperationType::ARGMIN, t, {16, 16}, 0, {16}, 0.5f, 3 + d);
       },
       {bytes_rev}},
      {"TOPK_V2",
       [](OperandType t, int32_t d) {
         return topk_model(t, {16, 16}, 5, {16, 5}, 0.5f, 3 + d);
       },
       {bytes_rev}},
      {"CHANNEL_SHUFFLE",
       [](OperandType t, int32_t d) {
         return shuffle_model(t, {4, 64}, 8, 1, 0.5f, 3 + d);
       },
       {bytes}},
      {"RESIZE_NEAREST_NEIGHBOR",
       [](OperandType t, int32_t d) {
         return nearest_model(t, {1, 16, 16, 1}, 7, 5, false, {false, true}, {1, 5, 7, 1}, 0.5f, 3 + d);
       },
       {bytes}},
  };
  for (const QuantCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Model mu = c.model(Q8, 0);
    const Model ms = c.model(S8, -128);
    std::vector<Tensor> iu;
    std::vector<Tensor> is;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      const models::Operand& op = mu.main.operands[mu.main.input_indexes[k]];
      iu.push_back(int_tensor(op.type, op.dimensions, c.inputs[k], op.scale, op.zero_point));
      if (op.type == Q8) {
        std::vector<int32_t> shifted;
        for (int32_t v : c.inputs[k]) shifted.push_back(v - 128);
        is.push_back(int_tensor(S8, op.dimensions, shifted, op.scale, op.zero_point - 128));
      } else {
        is.push_back(iu.back());
      }
    }
    const std::vector<Tensor> ou = run(mu, iu);
    const std::vector<Tensor> os = run(ms, is);
    ASSERT_EQ(ou.size(), os.size());
    for (size_t k = 0; k < ou.size(); ++k) {
      std::vector<int32_t> expect = ints_of(ou[k]);
      ASSERT_FALSE(expect.empty());
      if (ou[k].type == Q8)
        for (int32_t& v : expect) v -= 128;
      EXPECT_EQ(ints_of(os[k]), expect) << "output " << k;
    }
  }
}

}  // namespace
}  // namespace npu::hal::ops::test
