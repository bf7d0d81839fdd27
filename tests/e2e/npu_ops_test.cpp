// Conformance of the vector-unit operations through the whole stack (HAL NpuDevice → driver → simulated
// NPU) and on the CPU reference device, for float32, TENSOR_QUANT8_ASYMM and TENSOR_QUANT8_ASYMM_SIGNED.
// Each case has hand-checked real-valued vectors; quantised tensors use scale 0.5 (zero point 128 for
// uint8, 0 for int8), chosen so every expected value lies on the output grid. Checks, per NNAPI's precision
// rules: fp32 |e − a| ≤ 1e-5 + 5·2^-23·|e|; quant8 within ±tolerance of the hand value (0 where the value is
// exact, 1 for LOGISTIC/TANH whose vectors are rounded by hand); and the NPU bit-identical to the CPU
// device for quant8 (same fixed-point arithmetic), within the fp32 rule for float. Every case also
// proves it ran on the NPU: placement "npu" (no CPU stage) and device cycles > 0.
#include <gtest/gtest.h>

#include <cmath>

#include "../hal_ops/test_models.h"
#include "../support/run_both.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

struct Quant {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// The activation quantisation of a type in these tests.
Quant act_q(OperandType t) { return t == F32 ? Quant{} : Quant{0.5f, t == Q8 ? 128 : 0}; }

int32_t quantize(float v, Quant q) { return static_cast<int32_t>(std::lround(v / q.scale)) + q.zero_point; }

std::vector<uint8_t> encode(OperandType t, const std::vector<float>& real, Quant q) {
  std::vector<uint8_t> bytes;
  for (float v : real) {
    if (t == F32) {
      const auto* b = reinterpret_cast<const uint8_t*>(&v);
      bytes.insert(bytes.end(), b, b + 4);
    } else {
      bytes.push_back(static_cast<uint8_t>(quantize(v, q)));
    }
  }
  return bytes;
}

Tensor tensor(OperandType t, std::vector<uint32_t> dims, const std::vector<float>& real, Quant q) {
  Tensor x;
  x.type = t;
  x.dimensions = std::move(dims);
  x.scale = q.scale;
  x.zero_point = q.zero_point;
  x.data = encode(t, real, q);
  return x;
}

// A constant operand holding `real` in type t.
uint32_t constant(GraphBuilder& b, OperandType t, std::vector<uint32_t> dims, const std::vector<float>& real,
                  Quant q) {
  if (t == F32) return b.floats(std::move(dims), real);
  std::vector<int32_t> v;
  for (float r : real) v.push_back(quantize(r, q));
  return b.ints(t, std::move(dims), v, q.scale, q.zero_point);
}

using npu::testing::Outcome;
using npu::testing::run_both;

bool fp32_close(double e, double a) {
  return std::fabs(e - a) <= 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e);
}

// NPU placement, then both devices against the hand values and against each other.
void expect_conformant(const Outcome& o, uint32_t out, const std::vector<float>& expected, OperandType t,
                       Quant q, int tolerance = 0) {
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_GT(o.npu.device_cycles, 0u);
  EXPECT_GE(o.npu.command_buffers, 1u);
  const Tensor& got_npu = o.npu.outputs.at(out);
  const Tensor& got_cpu = o.cpu.outputs.at(out);
  for (const auto* dev : {&got_npu, &got_cpu}) {
    const char* name = dev == &got_npu ? "NPU" : "CPU";
    ASSERT_EQ(dev->element_count(), expected.size()) << name;
    for (size_t i = 0; i < expected.size(); ++i) {
      const double a = npu::models::read_element(t, dev->data, i);
      if (t == F32) {
        EXPECT_TRUE(fp32_close(expected[i], a))
            << name << " element " << i << ": expected " << expected[i] << ", got " << a;
      } else {
        EXPECT_LE(std::abs(quantize(expected[i], q) - static_cast<int32_t>(a)), tolerance)
            << name << " element " << i << ": expected " << quantize(expected[i], q) << ", got " << a;
      }
    }
  }
  if (t != F32) {
    EXPECT_EQ(got_npu.data, got_cpu.data) << "quant8 NPU and CPU results differ";
  } else {
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(fp32_close(npu::models::read_element(t, got_cpu.data, i),
                             npu::models::read_element(t, got_npu.data, i)));
  }
}

class NpuOps : public ::testing::TestWithParam<OperandType> {};

std::string type_name(const ::testing::TestParamInfo<OperandType>& info) {
  return info.param == F32 ? "Float32" : info.param == Q8 ? "Quant8Asymm" : "Quant8AsymmSigned";
}

// ---- elementwise binary ----

void binary_case(OperationType op, OperandType t, std::vector<uint32_t> a_dims, std::vector<float> a,
                 std::vector<uint32_t> b_dims, std::vector<float> b, int32_t act,
                 std::vector<uint32_t> out_dims, const std::vector<float>& expected) {
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, a_dims, q.scale, q.zero_point);
  const uint32_t y = g.input(t, b_dims, q.scale, q.zero_point);
  const uint32_t out = g.output(t, out_dims, q.scale, q.zero_point);
  g.op(op, {x, y, g.i32(act)}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, a_dims, a, q)}, {y, tensor(t, b_dims, b, q)}}), out,
                    expected, t, q);
}

const std::vector<float> kA = {1, 2, -3, 4.5f, 0, -1.5f, 10, 6};

TEST_P(NpuOps, AddBroadcastsAPerChannelOperand) {
  binary_case(OperationType::ADD, GetParam(), {1, 2, 2, 2}, kA, {2}, {0.5f, -2}, 0, {1, 2, 2, 2},
              {1.5f, 0, -2.5f, 2.5f, 0.5f, -3.5f, 10.5f, 4});
}

TEST_P(NpuOps, AddWithRelu6) {
  binary_case(OperationType::ADD, GetParam(), {8}, kA, {8}, {1, 1, 1, 1, 1, 1, 1, 1}, 3, {8},
              {2, 3, 0, 5.5f, 1, 0, 6, 6});
}

TEST_P(NpuOps, Sub) {
  binary_case(OperationType::SUB, GetParam(), {4}, {1, 2, -3, 4.5f}, {4}, {2, 0.5f, -1, 5}, 0, {4},
              {-1, 1.5f, -2, -0.5f});
}

TEST_P(NpuOps, SubWithRelu1) {
  binary_case(OperationType::SUB, GetParam(), {2, 2}, {1, 2, -3, 0.5f}, {2}, {2, 0.5f}, 2, {2, 2},
              {-1, 1, -1, 0});
}

TEST_P(NpuOps, Mul) {
  binary_case(OperationType::MUL, GetParam(), {4}, {1, 2, -3, 4.5f}, {4}, {2, 0.5f, -1, -3}, 0, {4},
              {2, 1, 3, -13.5f});
}

// The broadcast operand first: the NPU swaps the operands (MUL commutes).
TEST_P(NpuOps, MulScalarFirstWithRelu) {
  binary_case(OperationType::MUL, GetParam(), {1}, {2}, {2, 2}, {1, 2, -3, 4.5f}, 1, {2, 2}, {2, 4, 0, 9});
}

// ---- activations ----

void unary_case(OperationType op, OperandType t, const std::vector<float>& in,
                const std::vector<float>& expected, Quant out_q, int tolerance = 0) {
  const Quant q = act_q(t);
  const std::vector<uint32_t> dims = {1, static_cast<uint32_t>(in.size())};
  GraphBuilder g;
  const uint32_t x = g.input(t, dims, q.scale, q.zero_point);
  const uint32_t out = g.output(t, dims, out_q.scale, out_q.zero_point);
  g.op(op, {x}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, dims, in, q)}}), out, expected, t, out_q, tolerance);
}

const std::vector<float> kAct = {-3, -0.5f, 0, 0.5f, 2, 7};

TEST_P(NpuOps, Relu) {
  unary_case(OperationType::RELU, GetParam(), kAct, {0, 0, 0, 0.5f, 2, 7}, act_q(GetParam()));
}
TEST_P(NpuOps, Relu1) {
  unary_case(OperationType::RELU1, GetParam(), kAct, {-1, -0.5f, 0, 0.5f, 1, 1}, act_q(GetParam()));
}
TEST_P(NpuOps, Relu6) {
  unary_case(OperationType::RELU6, GetParam(), kAct, {0, 0, 0, 0.5f, 2, 6}, act_q(GetParam()));
}

// σ(−2, 0, 0.5, 3) = 0.11920292, 0.5, 0.62245933, 0.95257413; quant8 output scale 1/256 (NNAPI).
TEST_P(NpuOps, Logistic) {
  const OperandType t = GetParam();
  const Quant q = t == F32 ? Quant{} : Quant{1.0f / 256, t == Q8 ? 0 : -128};
  unary_case(OperationType::LOGISTIC, t, {-2, 0, 0.5f, 3}, {0.11920292f, 0.5f, 0.62245933f, 0.95257413f}, q,
             1);
}

// tanh(−2, 0, 0.5, 3) = −0.96402758, 0, 0.46211716, 0.99505475; quant8 output scale 1/128 (NNAPI), so the
// last saturates at 127/128.
TEST_P(NpuOps, Tanh) {
  const OperandType t = GetParam();
  const Quant q = t == F32 ? Quant{} : Quant{1.0f / 128, t == Q8 ? 128 : 0};
  const float last = t == F32 ? 0.99505475f : 127.0f / 128;
  unary_case(OperationType::TANH, t, {-2, 0, 0.5f, 3}, {-0.96402758f, 0, 0.46211716f, last}, q, 1);
}

// ---- pooling ----

// 3×3 image, two channels (v and −v for v = 1..9), 2×2 window, stride 2, explicit padding right 1 and
// bottom 1: windows {1,2,4,5}, {3,6}, {7,8}, {9} (padding taps are not counted).
const std::vector<float> kImage = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8, -8, 9, -9};

void pool_case(OperationType op, OperandType t, int32_t act, const std::vector<float>& expected) {
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 3, 3, 2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 2, 2, 2}, q.scale, q.zero_point);
  g.op(op, {x, g.i32(0), g.i32(1), g.i32(0), g.i32(1), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(act)},
       {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 3, 3, 2}, kImage, q)}}), out, expected, t, q);
}

TEST_P(NpuOps, AveragePool) {
  pool_case(OperationType::AVERAGE_POOL_2D, GetParam(), 0, {3, -3, 4.5f, -4.5f, 7.5f, -7.5f, 9, -9});
}

TEST_P(NpuOps, MaxPoolWithRelu) {
  pool_case(OperationType::MAX_POOL_2D, GetParam(), 1, {5, 0, 6, 0, 8, 0, 9, 0});
}

// L2_POOL_2D is float only in NNAPI: sqrt(11.5), sqrt(22.5), sqrt(56.5), 9 in both channels.
TEST(NpuOpsFloat, L2Pool) {
  pool_case(OperationType::L2_POOL_2D, F32, 0,
            {3.3911650f, 3.3911650f, 4.7434165f, 4.7434165f, 7.5166483f, 7.5166483f, 9, 9});
}

// ---- depthwise convolution ----

// The 3×3×2 image, 2×2 filter, depth multiplier 2, VALID, stride 1. Output channels: 0 (from channel 0)
// taps 1,0,0,1 bias 0.5; 1 (channel 0) all 0.5, bias −1; 2 (channel 1) taps 1,−1,0,0; 3 (channel 1)
// tap (1,1) = 2, bias 1. Window of out (0,0) = {1,2,4,5}: 6.5, 5, −1 + 2 = 1, −10 + 1 = −9; the others
// shift by 1, 3, 4 in v.
TEST_P(NpuOps, DepthwiseConvWithMultiplier) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 3, 3, 2}, q.scale, q.zero_point);
  const uint32_t f =
      constant(g, t, {1, 2, 2, 4}, {1, 0.5f, 1, 0, 0, 0.5f, -1, 0, 0, 0.5f, 0, 0, 1, 0.5f, 0, 2}, q);
  const uint32_t bias = t == F32 ? g.floats({4}, {0.5f, -1, 0, 1})
                                 : g.ints(OperandType::TENSOR_INT32, {4}, {2, -4, 0, 4}, 0.25f, 0);
  const uint32_t out = g.output(t, {1, 2, 2, 4}, q.scale, q.zero_point);
  g.op(OperationType::DEPTHWISE_CONV_2D, {x, f, bias, g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(0)},
       {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 3, 3, 2}, kImage, q)}}), out,
                    {6.5f, 5, 1, -9, 8.5f, 7, 1, -11, 12.5f, 11, 1, -15, 14.5f, 13, 1, -17}, t, q);
}

// ---- softmax, mean, reshape, concatenation ----

// beta = ln 3 on rows {0, 1} and {2, 2}: e^(−ln 3) = 1/3 against 1 → 0.25, 0.75; equal inputs → 0.5.
// Quant8 output scale 1/256 (NNAPI).
TEST_P(NpuOps, Softmax) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  const Quant oq = t == F32 ? Quant{} : Quant{1.0f / 256, t == Q8 ? 0 : -128};
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {2, 2}, oq.scale, oq.zero_point);
  g.op(OperationType::SOFTMAX, {x, g.floats({}, {1.0986123f}, OperandType::FLOAT32)}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {2, 2}, {0, 1, 2, 2}, q)}}), out,
                    {0.25f, 0.75f, 0.5f, 0.5f}, t, oq, 1);
}

// Mean over H and W of a 1×2×2×2 tensor: channel 0 (1 − 3 + 0 + 10)/4 = 2, channel 1 (2 + 4.5 − 1.5 + 7)/4
// = 3.
TEST_P(NpuOps, MeanOverHeightAndWidth) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 1, 1, 2}, q.scale, q.zero_point);
  g.op(OperationType::MEAN, {x, g.ints(OperandType::TENSOR_INT32, {2}, {1, 2}), g.i32(1)}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 2, 2, 2}, {1, 2, -3, 4.5f, 0, -1.5f, 10, 7}, q)}}),
                    out, {2, 3}, t, q);
}

TEST_P(NpuOps, Reshape) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {2, 4}, q.scale, q.zero_point);
  g.op(OperationType::RESHAPE, {x, g.ints(OperandType::TENSOR_INT32, {2}, {2, 4})}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 2, 2, 2}, kA, q)}}), out, kA, t, q);
}

// [[1, 2], [3, 4]] ++ [[5], [6]] along axis 1, the second input a constant.
TEST_P(NpuOps, ConcatenationAlongAxis1) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t a = g.input(t, {2, 2}, q.scale, q.zero_point);
  const uint32_t b = constant(g, t, {2, 1}, {5, 6}, q);
  const uint32_t out = g.output(t, {2, 3}, q.scale, q.zero_point);
  g.op(OperationType::CONCATENATION, {a, b, g.i32(1)}, {out});
  expect_conformant(run_both(g.build(), {{a, tensor(t, {2, 2}, {1, 2, 3, 4}, q)}}), out, {1, 2, 5, 3, 4, 6},
                    t, q);
}

// ---- NNAPI 1.2: MAXIMUM / MINIMUM (no activation input), REDUCE_MAX / REDUCE_SUM ----

void extreme_case(OperationType op, OperandType t, const std::vector<float>& expected) {
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2}, q.scale, q.zero_point);
  const uint32_t y = g.input(t, {2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {2, 2}, q.scale, q.zero_point);
  g.op(op, {x, y}, {out});
  expect_conformant(
      run_both(g.build(), {{x, tensor(t, {2, 2}, {1, -3, 4.5f, 0}, q)}, {y, tensor(t, {2}, {2, -1}, q)}}),
      out, expected, t, q);
}

// [[1, −3], [4.5, 0]] against the row [2, −1]: max [[2, −1], [4.5, 0]], min [[1, −3], [2, −1]].
TEST_P(NpuOps, MaximumBroadcastsARow) { extreme_case(OperationType::MAXIMUM, GetParam(), {2, -1, 4.5f, 0}); }
TEST_P(NpuOps, MinimumBroadcastsARow) { extreme_case(OperationType::MINIMUM, GetParam(), {1, -3, 2, -1}); }

// Max over H and W of the MEAN case's tensor: channel 0 max(1, −3, 0, 10) = 10, channel 1 max(2, 4.5, −1.5,
// 7) = 7 (quantised: the raw maximum, same scale and zero point).
TEST_P(NpuOps, ReduceMaxOverHeightAndWidth) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 2}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 2}, q.scale, q.zero_point);
  g.op(OperationType::REDUCE_MAX, {x, g.ints(OperandType::TENSOR_INT32, {2}, {1, 2}), g.boolean(false)},
       {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 2, 2, 2}, {1, 2, -3, 4.5f, 0, -1.5f, 10, 7}, q)}}),
                    out, {10, 7}, t, q);
}

INSTANTIATE_TEST_SUITE_P(Types, NpuOps, ::testing::Values(F32, Q8, S8), type_name);

// Float-only NNAPI 1.2 functions on the vector unit (one simulation per test): x = (0.25, 1, 4, 9) gives
// sqrt (0.5, 1, 2, 3), rsqrt (2, 1, 0.5, 1/3), log (−1.3862944, 0, 1.3862944, 2.1972246), exp (1.2840254,
// 2.7182817, 54.59815, 8103.0839); on (−2, 0, 1.5, −0.25) abs (2, 0, 1.5, 0.25) and neg (2, −0, −1.5, 0.25).
const std::vector<float> kPositive = {0.25f, 1, 4, 9}, kMixed = {-2, 0, 1.5f, -0.25f};
TEST(NpuOpsFloat, Sqrt) { unary_case(OperationType::SQRT, F32, kPositive, {0.5f, 1, 2, 3}, {}); }
TEST(NpuOpsFloat, Rsqrt) { unary_case(OperationType::RSQRT, F32, kPositive, {2, 1, 0.5f, 0.33333334f}, {}); }
TEST(NpuOpsFloat, Log) {
  unary_case(OperationType::LOG, F32, kPositive, {-1.3862944f, 0, 1.3862944f, 2.1972246f}, {});
}
TEST(NpuOpsFloat, Exp) {
  unary_case(OperationType::EXP, F32, kPositive, {1.2840254f, 2.7182817f, 54.59815f, 8103.0839f}, {});
}
TEST(NpuOpsFloat, Abs) { unary_case(OperationType::ABS, F32, kMixed, {2, 0, 1.5f, 0.25f}, {}); }
TEST(NpuOpsFloat, Neg) { unary_case(OperationType::NEG, F32, kMixed, {2, 0, -1.5f, 0.25f}, {}); }

// A 1×1 CONV_2D whose exact result lies a hair below a rounding tie: x = 100, w = 228 − 128 = 100, bias
// 147000 → acc 157000; scales 0.023529412 · 0.00080363837 / 0.0625 make it 47.49976, + zero point 128.
// NNAPI multiplies the two scales in float (multiplier 1330612352 · 2^-42 → 48 + 128 = 176); the product
// in double gives 1330612316 and 175. The NPU must use the reference's multiplier (it did not: bench
// iteration 9's softmax was off by 1/256 through one such element of MobileNet v2).
TEST(NpuOpsQuant, ConvRequantisationTieMatchesTheReference) {
  const float sx = 0.023529412f, sw = 0.00080363837f;
  GraphBuilder g;
  const uint32_t x = g.input(Q8, {1, 1, 1, 1}, sx, 0);
  const uint32_t w = g.ints(Q8, {1, 1, 1, 1}, {228}, sw, 128);
  const uint32_t bias = g.ints(OperandType::TENSOR_INT32, {1}, {147000}, sx * sw);
  const uint32_t out = g.output(Q8, {1, 1, 1, 1}, 0.0625f, 128);
  const uint32_t one = g.i32(1), zero = g.i32(0);
  g.op(OperationType::CONV_2D, {x, w, bias, zero, zero, zero, zero, one, one, zero}, {out});
  const Outcome o = run_both(g.build(), {{x, tensor(Q8, {1, 1, 1, 1}, {100 * sx}, {sx, 0})}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_EQ(o.cpu.outputs.at(out).data, std::vector<uint8_t>{176});
  EXPECT_EQ(o.npu.outputs.at(out).data, std::vector<uint8_t>{176});
}

// REDUCE_SUM is float-only: rows of [[1, 2, −3], [4.5, 0, −1.5]] sum to 0 and 3.
TEST(NpuOpsFloat, ReduceSumOverRows) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 3});
  const uint32_t out = g.output(F32, {2});
  g.op(OperationType::REDUCE_SUM, {x, g.ints(OperandType::TENSOR_INT32, {1}, {-1}), g.boolean(false)}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(F32, {2, 3}, {1, 2, -3, 4.5f, 0, -1.5f}, {})}}), out,
                    {0, 3}, F32, {});
}

// ---- larger shapes: padding, dilation, strides and tiling, NPU against the CPU device ----

std::vector<float> ramp(size_t n, float step, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + std::fmod(static_cast<float>(i) * step, hi - lo);
  return v;
}

// NPU ≡ CPU (bit-exact for quant8, fp32 rule for float) on a model, and it ran entirely on the NPU.
void expect_same_as_cpu(const Model& m, uint32_t in, const Tensor& x, uint32_t out,
                        const std::vector<std::string>& overrides = {}) {
  const Outcome o = run_both(m, {{in, x}}, overrides);
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_GT(o.npu.device_cycles, 0u);
  const Tensor& a = o.npu.outputs.at(out);
  const Tensor& e = o.cpu.outputs.at(out);
  ASSERT_EQ(a.data.size(), e.data.size());
  if (a.type != F32) {
    EXPECT_EQ(a.data, e.data);
    return;
  }
  uint64_t bad = 0;
  for (uint64_t i = 0; i < e.element_count(); ++i)
    bad += !fp32_close(npu::models::read_element(F32, e.data, i), npu::models::read_element(F32, a.data, i));
  EXPECT_EQ(bad, 0u);
}

// Dilation 2, SAME padding, stride 2, RELU6, 16 KiB of SRAM: several row bands and channel blocks.
TEST_P(NpuOps, DepthwiseDilatedSameStride2TiledMatchesCpu) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 23, 21, 24}, q.scale, q.zero_point);
  const uint32_t f = constant(g, t, {1, 3, 3, 24}, ramp(3 * 3 * 24, 0.5f, -2, 2), q);
  const uint32_t bias = t == F32
                            ? g.floats({24}, ramp(24, 0.25f, -1, 1))
                            : g.ints(OperandType::TENSOR_INT32, {24}, std::vector<int32_t>(24, 3), 0.25f, 0);
  const uint32_t out = g.output(t, {2, 12, 11, 24}, q.scale, q.zero_point);
  g.op(OperationType::DEPTHWISE_CONV_2D,
       {x, f, bias, g.i32(1), g.i32(2), g.i32(2), g.i32(1), g.i32(3), g.boolean(false), g.i32(2), g.i32(2)},
       {out});
  const Tensor in = tensor(t, {2, 23, 21, 24}, ramp(2 * 23 * 21 * 24, 1.5f, -8, 8), q);
  expect_same_as_cpu(g.build(), x, in, out, {"npu.channel.sram.kib=16"});
}

// Average pooling 3×3 stride 1 SAME over a band-tiled image (16 KiB SRAM), and ADD/activations over more
// elements than one SRAM chunk.
TEST_P(NpuOps, AveragePoolSameTiledMatchesCpu) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 30, 30, 32}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 30, 30, 32}, q.scale, q.zero_point);
  g.op(OperationType::AVERAGE_POOL_2D, {x, g.i32(1), g.i32(1), g.i32(1), g.i32(3), g.i32(3), g.i32(0)},
       {out});
  expect_same_as_cpu(g.build(), x, tensor(t, {1, 30, 30, 32}, ramp(30 * 30 * 32, 0.5f, -20, 20), q), out,
                     {"npu.channel.sram.kib=16"});
}

TEST_P(NpuOps, LogisticOverManyChunksMatchesCpu) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  const Quant oq = t == F32 ? Quant{} : Quant{1.0f / 256, t == Q8 ? 0 : -128};
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 100, 100, 8}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 100, 100, 8}, oq.scale, oq.zero_point);
  g.op(OperationType::LOGISTIC, {x}, {out});
  expect_same_as_cpu(g.build(), x, tensor(t, {1, 100, 100, 8}, ramp(80000, 0.5f, -10, 10), q), out,
                     {"npu.channel.sram.kib=16"});
}

// [[1, 2], [3, 4]] padded by one row on top and one column on each side: the padding is real 0.
TEST_P(NpuOps, Pad) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {1, 3, 4, 1}, q.scale, q.zero_point);
  g.op(OperationType::PAD, {x, g.ints(OperandType::TENSOR_INT32, {4, 2}, {0, 0, 1, 0, 1, 1, 0, 0})}, {out});
  expect_conformant(run_both(g.build(), {{x, tensor(t, {1, 2, 2, 1}, {1, 2, 3, 4}, q)}}), out,
                    {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0}, t, q);
}

// Channel padding (pixel-strided DMA) on a larger image, NPU against the CPU device.
TEST_P(NpuOps, PadChannelsAndBordersMatchesCpu) {
  const OperandType t = GetParam();
  const Quant q = act_q(t);
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 9, 7, 3}, q.scale, q.zero_point);
  const uint32_t out = g.output(t, {2, 12, 9, 5}, q.scale, q.zero_point);
  g.op(OperationType::PAD, {x, g.ints(OperandType::TENSOR_INT32, {4, 2}, {0, 0, 2, 1, 1, 1, 0, 2})}, {out});
  expect_same_as_cpu(g.build(), x, tensor(t, {2, 9, 7, 3}, ramp(2 * 9 * 7 * 3, 0.5f, -20, 20), q), out);
}

}  // namespace
