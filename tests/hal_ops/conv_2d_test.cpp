// CONV_2D conformance: AOSP NNAPI CTS vectors (V1_0 conv_float, conv_float_2, conv_float_channels,
// conv_quant8, conv_quant8_2, conv_quant8_large; V1_2 conv2d_v1_2, conv2d_dilation) plus hand-worked
// cases for stride 2, SAME with stride, NCHW, per-channel and signed quant8. Float results are checked
// with the NNAPI's fp32 tolerance, quant8 exactly.
#include "npu/hal/ops/conv_2d.h"

#include <gtest/gtest.h>

#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto I32 = OperandType::TENSOR_INT32;

Tensor run_one(const Model& m, const Tensor& input) {
  auto r = run_reference(m, {{m.main.input_indexes[0], input}});
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok() || r->empty()) return {};
  return r->begin()->second;
}

void expect_floats(const std::vector<float>& expected, const Tensor& t) {
  const std::vector<float> got = floats_of(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(fp32_close(expected[i], got[i])) << i << ": " << got[i];
}

// conv_float (V1_0): 3x3 input of ones with 0.5 in the centre, 2x2 filter of 0.25, explicit padding 0.
// Every 2x2 window holds three 1s and the 0.5: (3 + 0.5) * 0.25 = 0.875.
TEST(Conv2D, CtsConvFloat) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 3, 3, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {.25f, .25f, .25f, .25f});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
  const uint32_t out = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
  const Tensor r = run_one(g.build(), float_tensor({1, 3, 3, 1}, {1, 1, 1, 1, 0.5f, 1, 1, 1, 1}));
  EXPECT_EQ(r.dimensions, (std::vector<uint32_t>{1, 2, 2, 1}));
  expect_floats({.875f, .875f, .875f, .875f}, r);
}

// conv_float_2 (V1_0): 3x4 input 1..12, 3x3 filter, bias -200, SAME padding, RELU.
// Centre output (1,1): [1 2 3; 5 6 7; 9 10 11] . [1 4 7; 2 5 8; 3 6 9] = 30 + 96 + 186 = 312; -200 = 112.
TEST(Conv2D, CtsConvFloat2SameRelu) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 3, 4, 1});
  const uint32_t f = g.floats({1, 3, 3, 1}, {1, 4, 7, 2, 5, 8, 3, 6, 9});
  const uint32_t b = g.floats({1}, {-200});
  const uint32_t out = g.output(F32, {1, 3, 4, 1});
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(1), g.i32(1), g.i32(1), g.i32(1)}, {out});
  const Tensor r = run_one(g.build(), float_tensor({1, 3, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  expect_floats({0, 0, 0, 0, 35, 112, 157, 0, 0, 34, 61, 0}, r);
}

// conv_float_channels (V1_0): one pixel of depth 3, three 1x1 filters: 99*3*{1,2,3}.
TEST(Conv2D, CtsConvFloatChannels) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 1, 3});
  const uint32_t f = g.floats({3, 1, 1, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3});
  const uint32_t b = g.floats({3}, {0, 0, 0});
  const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
  const uint32_t out = g.output(F32, {1, 1, 1, 3});
  g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
  expect_floats({297, 594, 891}, run_one(g.build(), float_tensor({1, 1, 1, 3}, {99, 99, 99})));
}

// conv2d_dilation (V1_2) nchw: the conv_float case with the 13-input signature, layout NCHW, dilation 1.
TEST(Conv2D, CtsDilationNchwDilationOne) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 3, 3});
  const uint32_t f = g.floats({1, 2, 2, 1}, {.25f, .25f, .25f, .25f});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t z = g.i32(0), one = g.i32(1);
  const uint32_t out = g.output(F32, {1, 1, 2, 2});
  g.op(OperationType::CONV_2D, {in, f, b, z, z, z, z, one, one, z, g.boolean(true), one, one}, {out});
  expect_floats({.875f, .875f, .875f, .875f},
                run_one(g.build(), float_tensor({1, 1, 3, 3}, {1, 1, 1, 1, .5f, 1, 1, 1, 1})));
}

// conv2d_dilation (V1_2) nhwc_2: 9x9 input with a 3x3 block of ones at rows/cols 3..5, 3x3 filter 1..9,
// dilation 3, VALID (explicit 0). Output is 3x3; output (y,x) taps input (y+3i, x+3j), and only the centre
// tap (i=j=1, weight 5) lands in the block for every y,x in 0..2, so every output is 5.
TEST(Conv2D, CtsDilation3) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 9, 9, 1});
  const uint32_t f = g.floats({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t z = g.i32(0), one = g.i32(1), three = g.i32(3);
  const uint32_t out = g.output(F32, {1, 0, 0, 1});  // let the kernel infer 3x3
  g.op(OperationType::CONV_2D, {in, f, b, z, z, z, z, one, one, z, g.boolean(false), three, three}, {out});
  std::vector<float> x(81, 0.0f);
  for (int y = 3; y <= 5; ++y)
    for (int c = 3; c <= 5; ++c) x[static_cast<size_t>(y * 9 + c)] = 1.0f;
  const Tensor r = run_one(g.build(), float_tensor({1, 9, 9, 1}, x));
  EXPECT_EQ(r.dimensions, (std::vector<uint32_t>{1, 3, 3, 1}));
  expect_floats(std::vector<float>(9, 5.0f), r);
}

// Hand-worked: 4x4 input 1..16, 2x2 ones filter, VALID, stride 2 -> window sums
// [1+2+5+6, 3+4+7+8, 9+10+13+14, 11+12+15+16] = [14, 22, 46, 54].
TEST(Conv2D, ValidStride2) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 4, 4, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {1, 1, 1, 1});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t out = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(2), g.i32(2), g.i32(0)}, {out});
  std::vector<float> x;
  for (int i = 1; i <= 16; ++i) x.push_back(static_cast<float>(i));
  expect_floats({14, 22, 46, 54}, run_one(g.build(), float_tensor({1, 4, 4, 1}, x)));
}

// Hand-worked SAME with stride 2 on 3x3 (1..9), 2x2 ones: out = ceil(3/2) = 2, total padding
// (2-1)*2 + 2 - 3 = 1 -> head 0, tail 1. Windows: [1+2+4+5, 3+6, 7+8, 9] = [12, 9, 15, 9].
TEST(Conv2D, SameStride2PadsAtTheTail) {
  uint32_t head = 9, tail = 9;
  implicit_padding(1, 3, 2, 2, 1, &head, &tail);
  EXPECT_EQ(head, 0u);
  EXPECT_EQ(tail, 1u);
  implicit_padding(1, 224, 2, 3, 1, &head, &tail);  // MobileNet's first layer: 112 outputs, pads 0/1
  EXPECT_EQ(head, 0u);
  EXPECT_EQ(tail, 1u);
  implicit_padding(2, 224, 2, 3, 1, &head, &tail);
  EXPECT_EQ(head + tail, 0u);
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 3, 3, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {1, 1, 1, 1});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t out = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(1), g.i32(2), g.i32(2), g.i32(0)}, {out});
  expect_floats({12, 9, 15, 9}, run_one(g.build(), float_tensor({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})));
}

// NCHW and NHWC give the same numbers (transposed): 2 input channels, 2 output channels.
TEST(Conv2D, NchwMatchesNhwc) {
  // Input NHWC [1,2,2,2]: pixel p has channels (p, 10p) for p = 1..4.
  const std::vector<float> nhwc = {1, 10, 2, 20, 3, 30, 4, 40};
  const std::vector<float> nchw = {1, 2, 3, 4, 10, 20, 30, 40};
  auto build = [](bool is_nchw) {
    GraphBuilder g;
    const uint32_t in =
        g.input(F32, is_nchw ? std::vector<uint32_t>{1, 2, 2, 2} : std::vector<uint32_t>{1, 2, 2, 2});
    // Filter [2,1,1,2]: oc0 = c0 + c1, oc1 = c0 - 0.5 c1.
    const uint32_t f = g.floats({2, 1, 1, 2}, {1, 1, 1, -0.5f});
    const uint32_t b = g.floats({2}, {0.5f, 0});
    const uint32_t out = g.output(F32, {1, 2, 2, 2});
    g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(0), g.boolean(is_nchw)},
         {out});
    return g.build();
  };
  // oc0 = 11p + 0.5, oc1 = p - 5p = -4p.
  expect_floats({11.5f, -4, 22.5f, -8, 33.5f, -12, 44.5f, -16},
                run_one(build(false), float_tensor({1, 2, 2, 2}, nhwc)));
  expect_floats({11.5f, 22.5f, 33.5f, 44.5f, -4, -8, -12, -16},
                run_one(build(true), float_tensor({1, 2, 2, 2}, nchw)));
}

// conv_quant8 (V1_0, weights as constants): real input 4 with a 2 in the centre, real filter 1, bias 1:
// acc = 8*2*3 + 4*2 + 4 = 60; multiplier 0.5*0.5/1 = 0.25 -> 15.
TEST(Conv2D, CtsConvQuant8) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 3, 3, 1}, 0.5f, 0);
  const uint32_t f = g.ints(Q8, {1, 2, 2, 1}, {2, 2, 2, 2}, 0.5f, 0);
  const uint32_t b = g.ints(I32, {1}, {4}, 0.25f);
  const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
  const uint32_t out = g.output(Q8, {1, 2, 2, 1}, 1.0f, 0);
  g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
  const Tensor r = run_one(g.build(), int_tensor(Q8, {1, 3, 3, 1}, {8, 8, 8, 8, 4, 8, 8, 8, 8}, 0.5f, 0));
  EXPECT_EQ(ints_of(r), (std::vector<int32_t>{15, 15, 15, 15}));
}

// conv2d_v1_2 nhwc_quant8: multiplier 0.5*0.125/0.125 = 0.5; acc = 2*2*3 + 1*2 = 14 -> 7.
TEST(Conv2D, CtsConv2dV12Quant8) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 3, 3, 1}, 0.5f, 0);
  const uint32_t f = g.ints(Q8, {1, 2, 2, 1}, {2, 2, 2, 2}, 0.125f, 0);
  const uint32_t b = g.ints(I32, {1}, {0}, 0.0625f);
  const uint32_t z = g.i32(0), one = g.i32(1);
  const uint32_t out = g.output(Q8, {1, 2, 2, 1}, 0.125f, 0);
  g.op(OperationType::CONV_2D, {in, f, b, z, z, z, z, one, one, z}, {out});
  const Tensor r = run_one(g.build(), int_tensor(Q8, {1, 3, 3, 1}, {2, 2, 2, 2, 1, 2, 2, 2, 2}, 0.5f, 0));
  EXPECT_EQ(ints_of(r), (std::vector<int32_t>{7, 7, 7, 7}));
}

Model conv_quant8_2(OperandType t, int32_t offset) {
  // conv_quant8_2 / conv2d_v1_2 nhwc_quant8_2: conv_float_2 quantised (input/filter scale 0.5 zp 127,
  // bias scale 0.25, output scale 1 zp 50). `offset` shifts every zero point (signed variant: -128).
  GraphBuilder g;
  const uint32_t in = g.input(t, {1, 3, 4, 1}, 0.5f, 127 + offset);
  std::vector<int32_t> fv = {129, 135, 141, 131, 137, 143, 133, 139, 145};
  for (auto& v : fv) v += offset;
  const uint32_t f = g.ints(t, {1, 3, 3, 1}, fv, 0.5f, 127 + offset);
  const uint32_t b = g.ints(I32, {1}, {-800}, 0.25f);
  const uint32_t out = g.output(t, {1, 3, 4, 1}, 1.0f, 50 + offset);
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(1), g.i32(1), g.i32(1), g.i32(1)}, {out});
  return g.build();
}

TEST(Conv2D, CtsConvQuant8SameRelu) {
  // Real results are conv_float_2's [0,0,0,0,35,112,157,0,0,34,61,0]; output zp 50 adds 50.
  std::vector<int32_t> x;
  for (int v = 129; v <= 151; v += 2) x.push_back(v);
  const Tensor r = run_one(conv_quant8_2(Q8, 0), int_tensor(Q8, {1, 3, 4, 1}, x, 0.5f, 127));
  EXPECT_EQ(ints_of(r), (std::vector<int32_t>{50, 50, 50, 50, 85, 162, 207, 50, 50, 84, 111, 50}));
}

// NNAPI 1.3: TENSOR_QUANT8_ASYMM_SIGNED gives the unsigned results shifted by -128.
TEST(Conv2D, SignedQuant8IsUnsignedMinus128) {
  std::vector<int32_t> x;
  for (int v = 129; v <= 151; v += 2) x.push_back(v - 128);
  const Tensor r = run_one(conv_quant8_2(S8, -128), int_tensor(S8, {1, 3, 4, 1}, x, 0.5f, -1));
  EXPECT_EQ(ints_of(r), (std::vector<int32_t>{-78, -78, -78, -78, -43, 34, 79, -78, -78, -44, -17, -78}));
}

// conv_quant8_large (V1_0): 1x2x3x3 input 1..18 (scale 0.5), three 1x1 filters [1,4,7],[2,5,8],[3,6,9]
// (scale 0.5), output scale 1: pixel (1,2,3): 30*0.25 = 7.5 -> 8, 36*0.25 = 9, 42*0.25 = 10.5 -> 11.
TEST(Conv2D, CtsConvQuant8Large) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 2, 3, 3}, 0.5f, 0);
  const uint32_t f = g.ints(Q8, {3, 1, 1, 3}, {1, 4, 7, 2, 5, 8, 3, 6, 9}, 0.5f, 0);
  const uint32_t b = g.ints(I32, {3}, {0, 0, 0}, 0.25f);
  const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
  const uint32_t out = g.output(Q8, {1, 2, 3, 3}, 1.0f, 0);
  g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
  std::vector<int32_t> x;
  for (int v = 1; v <= 18; ++v) x.push_back(v);
  const Tensor r = run_one(g.build(), int_tensor(Q8, {1, 2, 3, 3}, x, 0.5f, 0));
  EXPECT_EQ(ints_of(r),
            (std::vector<int32_t>{8, 9, 11, 17, 21, 24, 26, 32, 38, 35, 43, 51, 44, 54, 65, 53, 66, 78}));
}

// conv2d_v1_2 channel_nhwc_quant8: depth-3 pixel of 10 (real 5), filters 1..9 (scale 0.5), output
// scale 0.5: oc0 acc = 10*(1+2+3) = 60, multiplier 0.5*0.5/0.5 = 0.5 -> 30; oc1 150 -> 75; oc2 240 -> 120.
TEST(Conv2D, CtsChannelQuant8) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 1, 1, 3}, 0.5f, 0);
  const uint32_t f = g.ints(Q8, {3, 1, 1, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.5f, 0);
  const uint32_t b = g.ints(I32, {3}, {0, 0, 0}, 0.25f);
  const uint32_t z = g.i32(0), one = g.i32(1);
  const uint32_t out = g.output(Q8, {1, 1, 1, 3}, 0.5f, 0);
  g.op(OperationType::CONV_2D, {in, f, b, z, z, z, z, one, one, z}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(Q8, {1, 1, 1, 3}, {10, 10, 10}, 0.5f, 0))),
            (std::vector<int32_t>{30, 75, 120}));
}

// Hand-worked per-channel: input zp 128 scale 0.5, values [130, 124] = real [1, -2]; filter scales
// [0.5, 0.25], values oc0 [2, 4] (real [1, 2]), oc1 [-4, 8] (real [-1, 2]); bias [4, -8] at scales
// 0.25 / 0.125 (= real 1, -1); output scale 0.25 zp 100.
//   oc0: acc = 2*2 + (-4)*4 + 4 = -8, multiplier 0.5*0.5/0.25 = 1   -> -8 + 100 = 92  (real -2)
//   oc1: acc = 2*(-4) + (-4)*8 - 8 = -48, multiplier 0.5*0.25/0.25 = 0.5 -> -24 + 100 = 76 (real -6)
Model per_channel_model(OperandType t, int32_t offset) {
  GraphBuilder g;
  const uint32_t in = g.input(t, {1, 1, 1, 2}, 0.5f, 128 + offset);
  const uint32_t f = g.per_channel({2, 1, 1, 2}, {2, 4, -4, 8}, {0.5f, 0.25f});
  const uint32_t b = g.ints(I32, {2}, {4, -8}, 0.0f);
  const uint32_t out = g.output(t, {1, 1, 1, 2}, 0.25f, 100 + offset);
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(0)}, {out});
  return g.build();
}

TEST(Conv2D, PerChannelQuant8) {
  EXPECT_EQ(ints_of(run_one(per_channel_model(Q8, 0), int_tensor(Q8, {1, 1, 1, 2}, {130, 124}, 0.5f, 128))),
            (std::vector<int32_t>{92, 76}));
  EXPECT_EQ(ints_of(run_one(per_channel_model(S8, -128), int_tensor(S8, {1, 1, 1, 2}, {2, -4}, 0.5f, 0))),
            (std::vector<int32_t>{92 - 128, 76 - 128}));
}

// Activation clamps in the quantised domain: RELU6 with output scale 0.25 zp 100 caps at 100 + 6/0.25.
TEST(Conv2D, QuantRelu6Clamp) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 1, 1, 1}, 1.0f, 0);
  const uint32_t f = g.ints(Q8, {1, 1, 1, 1}, {1}, 1.0f, 0);
  const uint32_t b = g.ints(I32, {1}, {0}, 1.0f);
  const uint32_t out = g.output(Q8, {1, 1, 1, 1}, 0.25f, 100);
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(3)}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(Q8, {1, 1, 1, 1}, {200}, 1.0f, 0))),
            (std::vector<int32_t>{124}));
}

// Float16 runs through the float path (computed in fp32, stored as half).
TEST(Conv2D, Float16) {
  constexpr auto F16 = OperandType::TENSOR_FLOAT16;
  GraphBuilder g;
  const uint32_t in = g.input(F16, {1, 3, 3, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {.25f, .25f, .25f, .25f}, F16);
  const uint32_t b = g.floats({1}, {0}, F16);
  const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
  const uint32_t out = g.output(F16, {1, 2, 2, 1});
  g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
  const Tensor r = run_one(g.build(), float_tensor({1, 3, 3, 1}, {1, 1, 1, 1, 0.5f, 1, 1, 1, 1}, F16));
  EXPECT_EQ(floats_of(r), (std::vector<float>{.875f, .875f, .875f, .875f}));
}

// TENSOR_FLOAT16 result rounding, hand-checked: input row [2048, 1] (exact in fp16), 1×2 VALID filters
// [1, 1] and [1, 3] give 2049 and 2051, each a tie between fp16 neighbours 2 apart (the step in
// [2048, 4096)), so they round to the even significand: 2048 (down) and 2052 (up).
TEST(Conv2D, Float16RoundsTiesToEven) {
  constexpr auto F16 = OperandType::TENSOR_FLOAT16;
  GraphBuilder g;
  const uint32_t in = g.input(F16, {1, 1, 2, 1});
  const uint32_t f = g.floats({2, 1, 2, 1}, {1, 1, 1, 3}, F16);
  const uint32_t b = g.floats({2}, {0, 0}, F16);
  const uint32_t out = g.output(F16, {1, 1, 1, 2});
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(0)}, {out});
  const Tensor r = run_one(g.build(), float_tensor({1, 1, 2, 1}, {2048, 1}, F16));
  EXPECT_EQ(floats_of(r), (std::vector<float>{2048, 2052}));
}

// Shape inference with an unknown batch: declared [0,3,3,1] -> output [0,2,2,1]; a batch of 2 at run time.
TEST(Conv2D, UnknownBatchIsInferredAtRunTime) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {0, 3, 3, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {1, 1, 1, 1});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t out = g.output(F32, {});
  g.op(OperationType::CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(0)}, {out});
  const Model m = g.build();
  auto shapes = infer_shapes(m.main);
  ASSERT_TRUE(shapes.ok()) << shapes.error();
  EXPECT_EQ((*shapes)[out], (std::vector<uint32_t>{0, 2, 2, 1}));
  std::vector<float> x(18, 1.0f);
  const Tensor r = run_one(m, float_tensor({2, 3, 3, 1}, x));
  EXPECT_EQ(r.dimensions, (std::vector<uint32_t>{2, 2, 2, 1}));
  expect_floats(std::vector<float>(8, 4.0f), r);
}

TEST(Conv2D, ParamsForLowering) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 3, 4, 1});
  const uint32_t f = g.floats({1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const uint32_t b = g.floats({1}, {0});
  const uint32_t out = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::CONV_2D,
       {in, f, b, g.i32(1), g.i32(2), g.i32(2), g.i32(3), g.boolean(false), g.i32(1), g.i32(1)}, {out});
  const Model m = g.build();
  auto p = conv_2d_params(m.main, m.main.operations[0]);
  ASSERT_TRUE(p.ok()) << p.error();
  // SAME, stride 2 on 3x4 with a 3x3 filter: height needs (2-1)*2+3-3 = 2 -> 1/1; width (2-1)*2+3-4 = 1 ->
  // 0/1.
  EXPECT_EQ(p->padding_scheme, 1);
  EXPECT_EQ(p->pad_top, 1u);
  EXPECT_EQ(p->pad_bottom, 1u);
  EXPECT_EQ(p->pad_left, 0u);
  EXPECT_EQ(p->pad_right, 1u);
  EXPECT_EQ(p->stride_w, 2u);
  EXPECT_EQ(p->activation, fx::FusedActivation::RELU6);
  EXPECT_FALSE(p->nchw);
  EXPECT_TRUE(validate_operations(m).ok());
}

// Signature errors, each naming the input at fault.
TEST(Conv2D, ValidationErrors) {
  auto error_for = [](auto&& edit) {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {1, 3, 3, 1}, 0.5f, 0);
    const uint32_t f = g.ints(Q8, {1, 2, 2, 1}, {2, 2, 2, 2}, 0.5f, 0);
    const uint32_t b = g.ints(I32, {1}, {4}, 0.25f);
    const uint32_t pad = g.i32(0), stride = g.i32(1), act = g.i32(0);
    const uint32_t out = g.output(Q8, {1, 2, 2, 1}, 1.0f, 0);
    g.op(OperationType::CONV_2D, {in, f, b, pad, pad, pad, pad, stride, stride, act}, {out});
    Model m = g.build();
    edit(m);
    auto r = validate_operations(m);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string("<valid>") : r.error();
  };
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[2].scale = 0.3f; }),
            "operations[0] (CONV_2D): input 2 (bias): scale 0.300000 must equal input scale * filter scale = "
            "0.250000");
  EXPECT_EQ(error_for([](Model& m) { m.main.operations[0].inputs.pop_back(); }),
            "operations[0] (CONV_2D): expected 7, 8 or 10 inputs (implicit padding) or 10, 11 or 13 inputs "
            "(explicit "
            "padding), got 9");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[1].dimensions = {1, 4, 1};
            }),
            "operations[0] (CONV_2D): input 1 (filter): expected rank 4, got 3 [1,4,1]");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[1].dimensions = {1, 2, 1, 2};
            }),
            "operations[0] (CONV_2D): input 1 (filter): depth_in 2 does not match the input depth 1");
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[2].type = OperandType::TENSOR_FLOAT32; }),
            "operations[0] (CONV_2D): input 2 (bias): expected TENSOR_INT32, got TENSOR_FLOAT32");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[4].data = {0, 0, 0, 0};
            }),  // stride 0
            "operations[0] (CONV_2D): input 7 (stride width): expected a value >= 1, got 0");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[5].data = {4, 0, 0, 0};
            }),
            "operations[0] (CONV_2D): input 9 (fused activation): expected a value in [0, 3], got 4");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[3].data = {0xff, 0xff, 0xff, 0xff};
            }),
            "operations[0] (CONV_2D): input 3 (padding left): expected a value >= 0, got -1");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[6].dimensions = {1, 3, 3, 1};
            }),
            "operations[0] (CONV_2D): output 0 (operand 6): declared dimensions [1,3,3,1] but the operation "
            "produces "
            "[1,2,2,1]");
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[6].type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED; }),
            "operations[0] (CONV_2D): output 0: expected TENSOR_QUANT8_ASYMM (the input type), got "
            "TENSOR_QUANT8_ASYMM_SIGNED");
  EXPECT_EQ(
      error_for([](Model& m) {
        m.main.operands[1].dimensions = {1, 4, 4, 1};
        m.main.operands[1].data.resize(16);
      }),
      "operations[0] (CONV_2D): input 0 (input): padded height is smaller than the dilated filter height");
}

}  // namespace
}  // namespace npu::hal::ops::test
