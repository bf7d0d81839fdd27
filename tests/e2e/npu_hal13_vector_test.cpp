// e2e_npu_hal13_ops_test, vector-unit operations: activations, ARGMAX/ARGMIN, PRELU, SELECT, LOG_SOFTMAX,
// RESIZE_BILINEAR, and the strided TRANSPOSE_CONV_2D.
#include "npu_hal13_ops_util.h"

namespace {

using namespace npu_hal13_test;

// Quant8 HARD_SWISH as a 256-entry table built from the CPU reference. In scale 0.125 zp 128 (signed 0):
// q [96, 116, 136, 152] = x [-4, -1.5, 1, 3] -> x * relu6(x + 3) / 6 = [0, -0.375, 2/3, 3]; out scale 1/64
// zp 64 (signed -64): 64 + round(64 y) = [64, 40, 107, 256 -> 255] (signed: each - 128).
TEST(NpuHardSwish, Quant8Unsigned) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {4}, 0.125f, 128);
  const uint32_t y = g.output(t, {4}, 1.0f / 64, 64);
  g.op(OperationType::HARD_SWISH, {x}, {y});
  Tensor in = iota(t, {4});
  in.scale = 0.125f;
  in.zero_point = 128;
  in.data = {96, 116, 136, 152};
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {{64, 40, 107, 255}});
}

TEST(NpuHardSwish, Quant8Signed) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {4}, 0.125f, 0);
  const uint32_t y = g.output(t, {4}, 1.0f / 64, -64);
  g.op(OperationType::HARD_SWISH, {x}, {y});
  Tensor in = iota(t, {4});
  in.scale = 0.125f;
  in.data = {static_cast<uint8_t>(-32), static_cast<uint8_t>(-12), 8, 24};
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {{-64, -88, -21, 127}});
}

// Float functions of the vector unit with the reference's expressions: placement "npu", NPU == CPU byte
// for byte, and the hand values within NNAPI's fp32 tolerance.
void float_unary_case(OperationType op, const std::vector<float>& x, const std::vector<float>& want,
                      float alpha = 0.0f) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  const auto n = static_cast<uint32_t>(x.size());
  GraphBuilder g;
  const uint32_t in = g.input(t, {n});
  const uint32_t y = g.output(t, {n});
  std::vector<uint32_t> ins = {in};
  if (op == OperationType::ELU) ins.push_back(g.floats({}, {alpha}, OperandType::FLOAT32));
  g.op(op, ins, {y});
  Tensor v;
  v.type = t;
  v.dimensions = {n};
  v.data.resize(n * 4);
  for (uint32_t i = 0; i < n; ++i) npu::models::write_element(t, v.data, i, x[i]);
  const Outcome o = run_both(g.build(), {{in, v}});
  expect_on_npu(o, {y}, {});
  const Tensor& c = o.cpu.outputs.at(y);
  ASSERT_EQ(c.element_count(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = npu::models::read_element(t, c.data, i);
    EXPECT_LE(std::fabs(got - want[i]), 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(want[i]))
        << "element " << i;
  }
}

// x·relu6(x + 3)/6: -4 -> 0, -1.5 -> -0.375, 1 -> 2/3, 5 -> 5.
TEST(NpuHardSwish, Float) {
  float_unary_case(OperationType::HARD_SWISH, {-4, -1.5f, 1, 5}, {0, -0.375f, 0.6666667f, 5});
}
// sin 0 = 0, sin(pi/2) = 1, sin(-pi/6) = -0.5.
TEST(NpuSin, Float) { float_unary_case(OperationType::SIN, {0, 1.5707964f, -0.5235988f}, {0, 1, -0.5f}); }
// alpha 0.5: -2 -> 0.5 (e^-2 - 1) = -0.43233237, -1 -> 0.5 (e^-1 - 1) = -0.31606028, 0 and 3 unchanged.
TEST(NpuElu, Float) {
  float_unary_case(OperationType::ELU, {-2, -1, 0, 3}, {-0.43233237f, -0.31606028f, 0, 3}, 0.5f);
}

// FLOAT16 has no vector-unit datapath: it runs as a CPU stage, with the CPU's result.
TEST(NpuElu, Float16FallsBackToTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT16;
  GraphBuilder g;
  const uint32_t x = g.input(t, {3});
  const uint32_t y = g.output(t, {3});
  g.op(OperationType::ELU, {x, g.floats({}, {1.0f}, OperandType::FLOAT16)}, {y});
  const Outcome o = run_both(g.build(), {{x, iota(t, {3})}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// ARGMAX/ARGMIN on the vector unit. Rows [1, 5, 5] and [-1, -7, 0] (quant8 raw values: those + 10 unsigned,
// as is signed; the order is the same): along axis 1 the max is at 1 (first of the 5s) and 2, the min
// at 0 and 1; along axis 0 the max row is 0 and the min row 1 in every column.
class NpuArgMinMax : public ::testing::TestWithParam<OperandType> {};

void arg_case(OperandType t, OperationType op, int32_t axis, std::vector<uint32_t> out_dims,
              const std::vector<double>& want) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t y = g.output(I32, std::move(out_dims));
  g.op(op, {x, g.i32(axis)}, {y});
  Tensor in = iota(t, {2, 3});
  const std::vector<double> v = {1, 5, 5, -1, -7, 0};
  for (size_t i = 0; i < v.size(); ++i)
    npu::models::write_element(t, in.data, i, v[i] + (t == OperandType::TENSOR_QUANT8_ASYMM ? 10 : 0));
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {want});
}

TEST_P(NpuArgMinMax, ArgMaxRows) { arg_case(GetParam(), OperationType::ARGMAX, 1, {2}, {1, 2}); }
TEST_P(NpuArgMinMax, ArgMinRows) { arg_case(GetParam(), OperationType::ARGMIN, -1, {2}, {0, 1}); }
TEST_P(NpuArgMinMax, ArgMaxColumns) { arg_case(GetParam(), OperationType::ARGMAX, 0, {3}, {0, 0, 0}); }
TEST_P(NpuArgMinMax, ArgMinColumns) { arg_case(GetParam(), OperationType::ARGMIN, 0, {3}, {1, 1, 1}); }

INSTANTIATE_TEST_SUITE_P(Types, NpuArgMinMax,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// Many chunks on 16 KiB of SRAM, a middle axis: NPU == CPU.
TEST(NpuArgMinMaxTiled, MiddleAxisMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {40, 37, 30}, 0.5f);
  const uint32_t y = g.output(I32, {40, 30});
  g.op(OperationType::ARGMAX, {x, g.i32(1)}, {y});
  Tensor in = iota(t, {40, 37, 30});
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// PRELU as the vector unit's ELTWISE PRELU (hal/src/lower_eltwise.cpp). Alpha per channel (constant, a
// trailing-dimension broadcast): [0.25, -1]; x = [-2, 3, -0.5, 0, -4, 1, 5, -1] gives x >= 0 ? x : alpha·x
// = [-0.5, 3, -0.125, 0, -1, 1, 5, 1].
TEST(NpuPrelu, FloatChannelAlpha) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 2});
  const uint32_t y = g.output(t, {1, 2, 2, 2});
  g.op(OperationType::PRELU, {x, g.floats({2}, {0.25f, -1})}, {y});
  expect_on_npu(
      run_both(g.build(),
               {{x, npu::hal::ops::test::float_tensor({1, 2, 2, 2}, {-2, 3, -0.5f, 0, -4, 1, 5, -1})}}),
      {y}, {{-0.5, 3, -0.125, 0, -1, 1, 5, 1}});
}

// Alpha a runtime tensor of the input's shape: [-1, -2, 3, -4] with [0.5, 2, 7, -0.25] = [-0.5, -4, 3, 1].
TEST(NpuPrelu, FloatRuntimeFullAlpha) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2});
  const uint32_t a = g.input(t, {2, 2});
  const uint32_t y = g.output(t, {2, 2});
  g.op(OperationType::PRELU, {x, a}, {y});
  using npu::hal::ops::test::float_tensor;
  expect_on_npu(run_both(g.build(), {{x, float_tensor({2, 2}, {-1, -2, 3, -4})},
                                     {a, float_tensor({2, 2}, {0.5f, 2, 7, -0.25f})}}),
                {y}, {{-0.5, -4, 3, 1}});
}

// Quant8: input scale 0.5 zp 128, alpha [132, 120] scale 0.25 zp 128 (reals 1, -2), output scale 1 zp 100.
// x = q - 128: x >= 0 -> 100 + x·0.5, else 100 + x·(alpha - 128)·0.125:
// [138, 128, 118, 0, 255, 1] -> [105, 100, 95 (-10·4/8), 228 (-128·-8/8), 164 (63.5 half away), 227].
// Signed: every quantised value and zero point 128 lower, so the output bytes are those - 128.
void prelu_quant8_case(OperandType t) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 3, 2}, 0.5f, 128 - shift);
  const uint32_t y = g.output(t, {1, 1, 3, 2}, 1.0f, 100 - shift);
  g.op(OperationType::PRELU, {x, g.ints(t, {2}, {132 - shift, 120 - shift}, 0.25f, 128 - shift)}, {y});
  std::vector<int32_t> in = {138, 128, 118, 0, 255, 1};
  std::vector<double> want = {105, 100, 95, 228, 164, 227};
  for (auto& v : in) v -= shift;
  for (auto& v : want) v -= shift;
  expect_on_npu(run_both(g.build(), {{x, int_tensor(t, {1, 1, 3, 2}, in, 0.5f, 128 - shift)}}), {y}, {want});
}
TEST(NpuPrelu, Quant8) { prelu_quant8_case(OperandType::TENSOR_QUANT8_ASYMM); }
TEST(NpuPrelu, Quant8Signed) { prelu_quant8_case(OperandType::TENSOR_QUANT8_ASYMM_SIGNED); }

// Alpha [2, 1] against [2, 2] is a valid broadcast but not a trailing-dimension one: PRELU stays a CPU
// stage with the reason, and the NPU device still returns the CPU's values: [-1, 2, -3, -4] with alpha
// rows 0.5 and 3 = [-0.5, 2, -9, -12].
TEST(NpuPrelu, LeadingAxisAlphaStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2});
  const uint32_t y = g.output(t, {2, 2});
  g.op(OperationType::PRELU, {x, g.floats({2, 1}, {0.5f, 3})}, {y});
  const Model m = g.build();
  EXPECT_EQ(npu::hal::npu_unsupported_reason(m, 0, npu::hal::NpuTarget{}),
            "broadcast of [2,2] with [2,1] is not a trailing-dimension broadcast the NPU supports");
  const Outcome o = run_both(m, {{x, npu::hal::ops::test::float_tensor({2, 2}, {-1, 2, -3, -4})}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(npu::hal::ops::test::floats_of(o.npu.outputs.at(y)), (std::vector<float>{-0.5f, 2, -9, -12}));
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// Many chunks on 16 KiB of SRAM over every channel, per-channel alpha: NPU == CPU byte for byte.
TEST(NpuPreluTiled, Quant8ChannelAlphaMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 30, 30, 12}, 0.5f, 120);
  const uint32_t y = g.output(t, {2, 30, 30, 12}, 0.75f, 90);
  std::vector<int32_t> alpha(12);
  for (int32_t c = 0; c < 12; ++c) alpha[static_cast<size_t>(c)] = 20 * c + 5;
  g.op(OperationType::PRELU, {x, g.ints(t, {12}, alpha, 0.0625f, 100)}, {y});
  Tensor in = iota(t, {2, 30, 30, 12});
  in.zero_point = 120;
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- SELECT ----------------------------------------------------------------------------------------
// cond [1, 0, 1, 0, 0, 1] picks from a = 0..5 (iota) and b = 10..15: [0, 11, 2, 13, 14, 5]; every type
// the NPU copies (quant8 with one quantisation for all three operands).
class NpuSelectTypes : public ::testing::TestWithParam<OperandType> {};

TEST_P(NpuSelectTypes, PicksByCondition) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2, 3});
  const uint32_t a = g.input(t, {2, 3}, scale_of(t));
  const uint32_t b = g.input(t, {2, 3}, scale_of(t));
  const uint32_t y = g.output(t, {2, 3}, scale_of(t));
  g.op(OperationType::SELECT, {c, a, b}, {y});
  Tensor bt = iota(t, {2, 3});
  for (uint64_t i = 0; i < 6; ++i) npu::models::write_element(t, bt.data, i, static_cast<double>(10 + i));
  expect_on_npu(run_both(g.build(), {{c, int_tensor(OperandType::TENSOR_BOOL8, {2, 3}, {1, 0, 1, 0, 0, 1})},
                                     {a, iota(t, {2, 3})},
                                     {b, bt}}),
                {y}, {{0, 11, 2, 13, 14, 5}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuSelectTypes,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// INT32 values are copied, not passed through float: 2^24 + 1 and -(2^24 + 1) survive.
TEST(NpuSelect, Int32BitExact) {
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2});
  const uint32_t a = g.input(I32, {2});
  const uint32_t b = g.input(I32, {2});
  const uint32_t y = g.output(I32, {2});
  g.op(OperationType::SELECT, {c, a, b}, {y});
  expect_on_npu(run_both(g.build(), {{c, int_tensor(OperandType::TENSOR_BOOL8, {2}, {1, 0})},
                                     {a, int_tensor(I32, {2}, {16777217, 0})},
                                     {b, int_tensor(I32, {2}, {0, -16777217})}}),
                {y}, {{16777217, -16777217}});
}

// Inputs quantised unlike the output: the CPU requantises, so SELECT stays a CPU stage with the reason.
// a scale 0.5 zp 10: q 14 = 2.0; b scale 0.25 zp 0: q 12 = 3.0; output scale 1 zp 5: [7, 8].
TEST(NpuSelect, RequantisingStaysOnTheCpu) {
  const OperandType q = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2});
  const uint32_t a = g.input(q, {2}, 0.5f, 10);
  const uint32_t b = g.input(q, {2}, 0.25f, 0);
  const uint32_t y = g.output(q, {2}, 1.0f, 5);
  g.op(OperationType::SELECT, {c, a, b}, {y});
  const Model m = g.build();
  EXPECT_EQ(npu::hal::npu_unsupported_reason(m, 0, npu::hal::NpuTarget{}),
            "quantised inputs with another scale or zero point than the output's (the CPU requantises)");
  const Outcome o = run_both(m, {{c, int_tensor(OperandType::TENSOR_BOOL8, {2}, {1, 0})},
                                 {a, int_tensor(q, {2}, {14, 0}, 0.5f, 10)},
                                 {b, int_tensor(q, {2}, {0, 12}, 0.25f, 0)}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(o.npu.outputs.at(y).data, (std::vector<uint8_t>{7, 8}));
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// Many chunks on 16 KiB of SRAM over every channel: NPU == CPU byte for byte.
TEST(NpuSelectTiled, Float32MatchesCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {3, 50, 70});
  const uint32_t a = g.input(t, {3, 50, 70});
  const uint32_t b = g.input(t, {3, 50, 70});
  const uint32_t y = g.output(t, {3, 50, 70});
  g.op(OperationType::SELECT, {c, a, b}, {y});
  Tensor ct = iota(OperandType::TENSOR_BOOL8, {3, 50, 70});
  for (size_t i = 0; i < ct.data.size(); ++i) ct.data[i] = static_cast<uint8_t>(((i * 2654435761u) >> 7) & 1);
  Tensor bt = iota(t, {3, 50, 70});
  for (uint64_t i = 0; i < bt.element_count(); ++i)
    npu::models::write_element(t, bt.data, i, -static_cast<double>(i));
  expect_on_npu(
      run_both(g.build(), {{c, ct}, {a, iota(t, {3, 50, 70})}, {b, bt}}, {"npu.channel.sram.kib=16"}), {y},
      {});
}

// ---- LOG_SOFTMAX -----------------------------------------------------------------------------------
// [1, 2, 3] along the last axis: log(e^-2 + e^-1 + 1) = 0.40760596, so [-2.40760596, -1.40760596,
// -0.40760596]; the second row [0, 0.5] with beta 2 (y = [0, 1]): log(e^-1 + 1) = 0.31326169, so
// [-1.31326169, -0.31326169] (rows of two: the second input, shape [2, 2], holds [0, 0.5, 1, 1.5] -> y
// [0, 1, 2, 3], each row [-1.31326169, -0.31326169]). NPU == CPU byte for byte; the CPU near the hand
// values (they are transcendental, so to 1e-6).
void expect_log_softmax(const std::vector<uint32_t>& dims, float beta, const std::vector<float>& x,
                        const std::vector<float>& want) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, dims);
  const uint32_t y = g.output(t, dims);
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {beta}, OperandType::FLOAT32), g.i32(-1)}, {y});
  const Outcome o = run_both(g.build(), {{in, npu::hal::ops::test::float_tensor(dims, x)}});
  expect_on_npu(o, {y}, {});
  const auto got = npu::hal::ops::test::floats_of(o.cpu.outputs.at(y));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

// One simulation per test process (ctest runs each test alone), so one case per test.
TEST(NpuLogSoftmax, Float) {
  expect_log_softmax({1, 3}, 1.0f, {1, 2, 3}, {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST(NpuLogSoftmax, FloatBeta) {
  expect_log_softmax({2, 2}, 2.0f, {0, 0.5f, 1, 1.5f},
                     {-1.31326169f, -0.31326169f, -1.31326169f, -0.31326169f});
}

// Along a leading axis LOG_SOFTMAX stays on the CPU with its reason.
TEST(NpuLogSoftmax, LeadingAxisStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, {2, 3});
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {1.0f}, OperandType::FLOAT32), g.i32(0)},
       {g.output(t, {2, 3})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "softmax along a non-innermost axis is not supported by the NPU");
}

TEST(NpuLogSoftmaxTiled, ManyRowsMatchCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, {64, 300});
  const uint32_t y = g.output(t, {64, 300});
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {0.7f}, OperandType::FLOAT32), g.i32(1)}, {y});
  Tensor x = iota(t, {64, 300});
  for (uint64_t i = 0; i < x.element_count(); ++i)
    npu::models::write_element(t, x.data, i, static_cast<double>((i * 2654435761u) % 1000) / 37.0 - 13.0);
  expect_on_npu(run_both(g.build(), {{in, x}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- RESIZE_BILINEAR -------------------------------------------------------------------------------
// A [1, 2, 2, 1] image v(y, x) = 8y + 4x ([0, 4; 8, 12]) resized. Along an axis the source of output v
// is s = v·scale (half-pixel: (v + 0.5)·scale − 0.5), taps floor and ceil clamped to the image, weight
// s − floor tap; with taps clamped to one row the blend gives that row. Effective positions:
//   4×4, scale 2/4:                  s = 0, 0.5, 1, 1.5 → [0, 0.5, 1, 1]
//   3×3, align corners (2−1)/(3−1):  s = 0, 0.5, 1      → [0, 0.5, 1]
//   4×4, half-pixel, scale 0.5:      s = −0.25, 0.25, 0.75, 1.25 → [0 (weights 1.25 and −0.25 on one
//                                    tap), 0.25, 0.75, 1]
// and each output is 8·ey + 4·ex.
uint32_t resize_op(GraphBuilder& g, uint32_t x, uint32_t y, uint32_t out_w, uint32_t out_h, bool align,
                   bool half) {
  g.op(OperationType::RESIZE_BILINEAR,
       {x, g.i32(static_cast<int32_t>(out_w)), g.i32(static_cast<int32_t>(out_h)), g.boolean(false),
        g.boolean(align), g.boolean(half)},
       {y});
  return y;
}

std::vector<double> grid(const std::vector<double>& e) {
  std::vector<double> v;
  for (double ey : e)
    for (double ex : e) v.push_back(8 * ey + 4 * ex);
  return v;
}

class NpuResizeBilinearTypes : public ::testing::TestWithParam<OperandType> {};

void expect_resize(OperandType t, uint32_t size, bool align, bool half, const std::vector<double>& e) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;  // signed: 128 lower
  const Tensor in =
      t == OperandType::TENSOR_FLOAT32
          ? npu::hal::ops::test::float_tensor({1, 2, 2, 1}, {0, 4, 8, 12})
          : int_tensor(t, {1, 2, 2, 1}, {0 - shift, 4 - shift, 8 - shift, 12 - shift}, scale_of(t));
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, scale_of(t));
  const uint32_t y = resize_op(g, x, g.output(t, {1, size, size, 1}, scale_of(t)), size, size, align, half);
  std::vector<double> want = grid(e);
  for (double& v : want) v -= shift;
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {want});
}

TEST_P(NpuResizeBilinearTypes, Plain) { expect_resize(GetParam(), 4, false, false, {0, 0.5, 1, 1}); }
TEST_P(NpuResizeBilinearTypes, AlignCorners) { expect_resize(GetParam(), 3, true, false, {0, 0.5, 1}); }
TEST_P(NpuResizeBilinearTypes, HalfPixelCenters) {
  expect_resize(GetParam(), 4, false, true, {0, 0.25, 0.75, 1});
}

// Quantised blends truncate toward zero: [1, 4; 8, 13] to 4×4 gives 2.5 → 2, 4.5 → 4, 6.5 → 6, 8.5 → 8,
// 10.5 → 10 (signed: every value 128 lower).
void expect_quantised_truncation(OperandType t) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, 0.5f);
  const uint32_t y = resize_op(g, x, g.output(t, {1, 4, 4, 1}, 0.5f), 4, 4, false, false);
  std::vector<double> want = {1, 2, 4, 4, 4, 6, 8, 8, 8, 10, 13, 13, 8, 10, 13, 13};
  for (double& v : want) v -= shift;
  expect_on_npu(
      run_both(g.build(),
               {{x, int_tensor(t, {1, 2, 2, 1}, {1 - shift, 4 - shift, 8 - shift, 13 - shift}, 0.5f)}}),
      {y}, {want});
}
TEST(NpuResizeBilinear, Quant8Truncates) { expect_quantised_truncation(OperandType::TENSOR_QUANT8_ASYMM); }
TEST(NpuResizeBilinear, Quant8SignedTruncates) {
  expect_quantised_truncation(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
}

INSTANTIATE_TEST_SUITE_P(Types, NpuResizeBilinearTypes,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// NCHW stays on the CPU with its reason.
TEST(NpuResizeBilinear, NchwStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 2, 2});
  g.op(OperationType::RESIZE_BILINEAR, {x, g.i32(4), g.i32(4), g.boolean(true)}, {g.output(t, {1, 1, 4, 4})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "NCHW layout is not supported by the NPU's RESIZE_BILINEAR");
}

// Bands over many chunks and channels on 16 KiB of SRAM: upsampling with half-pixel centres (quant8,
// two images, a chunk crossing from one image to the next) and downsampling with aligned corners
// (float). NPU == CPU byte for byte.
TEST(NpuResizeBilinearTiled, UpsampleHalfPixelQuant8MatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 33, 47, 8}, 0.5f, 3);
  const uint32_t y = resize_op(g, x, g.output(t, {2, 70, 50, 8}, 0.5f, 3), 50, 70, false, true);
  Tensor in = iota(t, {2, 33, 47, 8});
  in.zero_point = 3;
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

TEST(NpuResizeBilinearTiled, DownsampleAlignCornersFloatMatchesCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 64, 64, 6});
  const uint32_t y = resize_op(g, x, g.output(t, {1, 21, 30, 6}), 30, 21, true, false);
  Tensor in = iota(t, {1, 64, 64, 6});
  for (uint64_t i = 0; i < in.element_count(); ++i)
    npu::models::write_element(t, in.data, i, static_cast<double>((i * 2654435761u) % 2000) / 7.0 - 100.0);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- TRANSPOSE_CONV_2D at stride 2 (lower_transpose_conv.cpp: one CONV_2D per output phase) ----------
// Input [1, 2; 3, 4], one 2 × 2 filter [1, 10; 100, 1000], no padding, stride 2: each input pixel
// spreads value·filter over its own 2 × 2 output block, so the 4 × 4 output is the blocks side by side.
TEST(NpuTransposeConvStrided, HandWorkedUpsampling) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1});
  const uint32_t y = g.output(t, {1, 4, 4, 1});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, g.floats({1, 2, 2, 1}, {1, 10, 100, 1000}), g.floats({1}, {0}), g.i32(0), g.i32(0), g.i32(0),
        g.i32(0), g.i32(2), g.i32(2), g.i32(0), g.boolean(false)},
       {y});
  expect_on_npu(run_both(g.build(), {{x, npu::hal::ops::test::float_tensor({1, 2, 2, 1}, {1, 2, 3, 4})}}),
                {y}, {{1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000}});
}

// A 1 × 1 filter at stride 2 reaches only every other output row and column (the rest are the bias): no
// phase convolution computes those, so the operation stays on the CPU with the reason.
TEST(NpuTransposeConvStrided, FilterSmallerThanStrideStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, g.floats({1, 1, 1, 1}, {2}), g.floats({1}, {0}), g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(2),
        g.i32(2), g.i32(0), g.boolean(false)},
       {g.output(t, {1, 3, 3, 1})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "no filter tap reaches an output phase (a filter smaller than the stride) (output phase 0,1)");
}

}  // namespace
