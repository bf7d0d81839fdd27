// DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D, ADD, RELU/RELU1/RELU6, RESHAPE and SOFTMAX:
// AOSP NNAPI CTS V1_0 vectors (depthwise_conv2d_quant8, avg_pool_quant8_1, max_pool_float_1,
// add_quant8, softmax_quant8_1) and hand-worked cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "npu/hal/ops/reference_executor.h"
#include "npu/hal/ops/window_ops.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto I32 = OperandType::TENSOR_INT32;

std::map<uint32_t, Tensor> run(const Model& m, std::map<uint32_t, Tensor> inputs) {
  auto r = run_reference(m, inputs);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(r.value()) : std::map<uint32_t, Tensor>{};
}

Tensor run_one(const Model& m, const Tensor& input) {
  auto r = run(m, {{m.main.input_indexes[0], input}});
  return r.empty() ? Tensor{} : r.begin()->second;
}

void expect_floats(const std::vector<float>& expected, const Tensor& t) {
  const std::vector<float> got = floats_of(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(fp32_close(expected[i], got[i])) << i << ": " << got[i];
}

// depthwise_conv2d_quant8 (V1_0): 2x2 depth-2 input, 2x2 filter, multiplier 1, VALID, output scale 1.
//   c0: 4 * 2 * 4 taps = 32, * 0.25 = 8;  c1: 16*4 + 32*0 + 64*2 + 128*0 = 192, * 0.25 = 48.
TEST(DepthwiseConv2D, CtsQuant8) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 2, 2, 2}, 0.5f, 0);
  const uint32_t f = g.ints(Q8, {1, 2, 2, 2}, {2, 4, 2, 0, 2, 2, 2, 0}, 0.5f, 0);
  const uint32_t b = g.ints(I32, {2}, {0, 0}, 0.25f);
  const uint32_t z = g.i32(0), one = g.i32(1);
  const uint32_t out = g.output(Q8, {1, 1, 1, 2}, 1.0f, 0);
  g.op(OperationType::DEPTHWISE_CONV_2D, {in, f, b, z, z, z, z, one, one, one, z}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(Q8, {1, 2, 2, 2}, {4, 16, 4, 32, 4, 64, 4, 128}, 0.5f, 0))),
            (std::vector<int32_t>{8, 48}));
}

// Hand-worked multiplier 2: input channels [1, 2], 1x1 filter [1, 2, 3, 4]: oc = ic*2 + j reads ic,
// so outputs are [1*1, 1*2, 2*3, 2*4] + bias [0, 0, 0, 1] = [1, 2, 6, 9]; NCHW gives the same numbers.
TEST(DepthwiseConv2D, MultiplierAndNchw) {
  for (bool nchw : {false, true}) {
    GraphBuilder g;
    const uint32_t in =
        g.input(F32, nchw ? std::vector<uint32_t>{1, 2, 1, 1} : std::vector<uint32_t>{1, 1, 1, 2});
    const uint32_t f = g.floats({1, 1, 1, 4}, {1, 2, 3, 4});
    const uint32_t b = g.floats({4}, {0, 0, 0, 1});
    const uint32_t out = g.output(F32, {});
    g.op(OperationType::DEPTHWISE_CONV_2D,
         {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(0), g.boolean(nchw)}, {out});
    const Tensor r = run_one(
        g.build(),
        float_tensor(nchw ? std::vector<uint32_t>{1, 2, 1, 1} : std::vector<uint32_t>{1, 1, 1, 2}, {1, 2}));
    EXPECT_EQ(r.dimensions, nchw ? (std::vector<uint32_t>{1, 4, 1, 1}) : (std::vector<uint32_t>{1, 1, 1, 4}));
    expect_floats({1, 2, 6, 9}, r);
  }
}

// TENSOR_FLOAT16, multiplier 2, hand-checked: input [300, 0.1] (0.1 is stored as 0.0999755859375 =
// 1638·2^-14), 1×1 filter [300, −300, 1, 3], bias 0. Channel 0: ±90000 is past fp16's 65504, so ±inf.
// Channel 1: 0.0999755859375 and 3 × that = 4914·2^-14, a tie between 0.2998046875 and 0.30004882812
// (the step in [0.25, 0.5) is 4·2^-14), to the even 0.2998046875.
TEST(DepthwiseConv2D, Float16RangeAndRounding) {
  constexpr auto F16 = OperandType::TENSOR_FLOAT16;
  GraphBuilder g;
  const uint32_t in = g.input(F16, {1, 1, 1, 2});
  const uint32_t f = g.floats({1, 1, 1, 4}, {300, -300, 1, 3}, F16);
  const uint32_t b = g.floats({4}, {0, 0, 0, 0}, F16);
  const uint32_t out = g.output(F16, {1, 1, 1, 4});
  g.op(OperationType::DEPTHWISE_CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(0)}, {out});
  const Tensor r = run_one(g.build(), float_tensor({1, 1, 1, 2}, {300, 0.1f}, F16));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floats_of(r), (std::vector<float>{inf, -inf, 0.0999755859375f, 0.2998046875f}));
}

// Per-channel along dimension 3, signed: input zp 0 scale 1 [3, -2]; filter scales [0.5, 1] values
// [4, 5] (real 2, 5); bias [0, 0]; output scale 1 zp -10: c0 = 3*4 = 12 * 0.5 = 6 -> -4; c1 = -10 -> -20.
TEST(DepthwiseConv2D, PerChannelSigned) {
  GraphBuilder g;
  const uint32_t in = g.input(S8, {1, 1, 1, 2}, 1.0f, 0);
  const uint32_t f = g.per_channel({1, 1, 1, 2}, {4, 5}, {0.5f, 1.0f});
  Model m;
  {
    const uint32_t b = g.ints(I32, {2}, {0, 0}, 0.0f);
    const uint32_t out = g.output(S8, {1, 1, 1, 2}, 1.0f, -10);
    g.op(OperationType::DEPTHWISE_CONV_2D, {in, f, b, g.i32(2), g.i32(1), g.i32(1), g.i32(1), g.i32(0)},
         {out});
    m = g.build();
  }
  m.main.operands[f].per_channel->channel_dim = 3;
  EXPECT_EQ(ints_of(run_one(m, int_tensor(S8, {1, 1, 1, 2}, {3, -2}, 1.0f, 0))),
            (std::vector<int32_t>{-4, -20}));
  auto p = depthwise_conv_2d_params(m.main, m.main.operations[0]);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->depth_multiplier, 1u);
  m.main.operands[f].per_channel->channel_dim = 0;
  auto v = validate_operations(m);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(),
            "operations[0] (DEPTHWISE_CONV_2D): input 1 (filter): per-channel quantisation must be along "
            "dimension 3 (depth_out)");
}

// avg_pool_quant8_1 and max_pool_float_1 (V1_0): 1x1 windows, stride 1: the identity.
TEST(Pool2D, CtsIdentityWindows) {
  for (bool average : {true, false}) {
    GraphBuilder g;
    const OperandType t = average ? Q8 : F32;
    const float scale = average ? 0.5f : 0.0f;
    const uint32_t in = g.input(t, {1, 2, 2, 1}, scale, 0);
    const uint32_t one = g.i32(1), z = g.i32(0);
    const uint32_t out = g.output(t, {1, 2, 2, 1}, scale, 0);
    g.op(average ? OperationType::AVERAGE_POOL_2D : OperationType::MAX_POOL_2D,
         {in, z, z, z, z, one, one, one, one, z}, {out});
    const Tensor r = average ? run_one(g.build(), int_tensor(Q8, {1, 2, 2, 1}, {1, 2, 3, 4}, 0.5f, 0))
                             : run_one(g.build(), float_tensor({1, 2, 2, 1}, {1, 2, 3, 4}));
    EXPECT_EQ(ints_of(r), (std::vector<int32_t>{1, 2, 3, 4})) << average;
  }
}

// Hand-worked: 3x3 input 1..9, 2x2 window, stride 1, SAME (tail padding 1): averages count only the
// in-bounds taps: (1+2+4+5)/4 = 3, (2+3+5+6)/4 = 4, (3+6)/2 = 4.5, ..., 9/1 = 9. Quantised (scale 1)
// averages round half away from zero: 4.5 -> 5, 7.5 -> 8.
TEST(Pool2D, AverageSameCountsInBoundsTaps) {
  auto build = [](OperandType t) {
    GraphBuilder g;
    const float s = t == F32 ? 0.0f : 1.0f;
    const uint32_t in = g.input(t, {1, 3, 3, 1}, s, 0);
    const uint32_t out = g.output(t, {1, 3, 3, 1}, s, 0);
    g.op(OperationType::AVERAGE_POOL_2D, {in, g.i32(1), g.i32(1), g.i32(1), g.i32(2), g.i32(2), g.i32(0)},
         {out});
    return g.build();
  };
  expect_floats({3, 4, 4.5f, 6, 7, 7.5f, 7.5f, 8.5f, 9},
                run_one(build(F32), float_tensor({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})));
  EXPECT_EQ(ints_of(run_one(build(Q8), int_tensor(Q8, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1.0f, 0))),
            (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 8, 9, 9}));
}

// Hand-worked: 4x4 input 1..16, 2x2 max pool, stride 2, VALID -> [6, 8, 14, 16]; RELU6 clamps to 6.
TEST(Pool2D, MaxStride2AndActivation) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 4, 4, 1});
  const uint32_t out = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::MAX_POOL_2D, {in, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(3)}, {out});
  std::vector<float> x;
  for (int i = 1; i <= 16; ++i) x.push_back(static_cast<float>(i));
  const Model m = g.build();
  expect_floats({6, 6, 6, 6}, run_one(m, float_tensor({1, 4, 4, 1}, x)));
  auto p = pool_2d_params(m.main, m.main.operations[0]);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->filter_w, 2u);
  EXPECT_EQ(p->window.stride_h, 2u);
  EXPECT_EQ(p->window.activation, fx::FusedActivation::RELU6);
}

// add_quant8 (V1_0): [1, 2] at scale 2 plus [3, 4] at scale 1, output scale 1 -> [5, 8].
TEST(Add, CtsQuant8) {
  GraphBuilder g;
  const uint32_t a = g.input(Q8, {2}, 2.0f, 0);
  const uint32_t b = g.input(Q8, {2}, 1.0f, 0);
  const uint32_t out = g.output(Q8, {2}, 1.0f, 0);
  g.op(OperationType::ADD, {a, b, g.i32(0)}, {out});
  auto r =
      run(g.build(), {{a, int_tensor(Q8, {2}, {1, 2}, 2.0f, 0)}, {b, int_tensor(Q8, {2}, {3, 4}, 1.0f, 0)}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(ints_of(r.at(out)), (std::vector<int32_t>{5, 8}));
}

// Broadcast [2,2] + [2] with RELU: [[1,-5],[3,4]] + [1,2] = [[2,-3],[4,6]] -> [2,0,4,6].
TEST(Add, BroadcastFloatRelu) {
  GraphBuilder g;
  const uint32_t a = g.input(F32, {2, 2});
  const uint32_t b = g.floats({2}, {1, 2});
  const uint32_t out = g.output(F32, {2, 2});
  g.op(OperationType::ADD, {a, b, g.i32(1)}, {out});
  expect_floats({2, 0, 4, 6}, run_one(g.build(), float_tensor({2, 2}, {1, -5, 3, 4})));
  GraphBuilder bad;
  const uint32_t x = bad.input(F32, {2, 3});
  const uint32_t y = bad.floats({2}, {1, 2});
  bad.op(OperationType::ADD, {x, y, bad.i32(0)}, {bad.output(F32, {})});
  auto v = validate_operations(bad.build());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), "operations[0] (ADD): inputs [2,3] and [2] cannot be broadcast together");
}

// RELU / RELU1 / RELU6 on floats, and quantised RELU clamping at the zero point.
TEST(Relu, FloatAndQuant) {
  const std::vector<float> x = {-2, -0.5f, 0.5f, 3, 7};
  const std::pair<OperationType, std::vector<float>> cases[] = {
      {OperationType::RELU, {0, 0, 0.5f, 3, 7}},
      {OperationType::RELU1, {-1, -0.5f, 0.5f, 1, 1}},
      {OperationType::RELU6, {0, 0, 0.5f, 3, 6}},
  };
  for (const auto& [type, expected] : cases) {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {5});
    g.op(type, {in}, {g.output(F32, {5})});
    expect_floats(expected, run_one(g.build(), float_tensor({5}, x)));
  }
  GraphBuilder q;
  const uint32_t in = q.input(Q8, {4}, 0.5f, 100);
  q.op(OperationType::RELU6, {in}, {q.output(Q8, {4}, 0.5f, 100)});
  // zp 100 is real 0; 6.0 is 100 + 12 = 112.
  EXPECT_EQ(ints_of(run_one(q.build(), int_tensor(Q8, {4}, {0, 99, 105, 200}, 0.5f, 100))),
            (std::vector<int32_t>{100, 100, 105, 112}));
}

TEST(Reshape, InfersTheMinusOneExtent) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 2, 2, 1}, 0.5f, 3);
  const uint32_t shape = g.ints(I32, {2}, {-1, 2});
  const uint32_t out = g.output(Q8, {}, 0.5f, 3);
  g.op(OperationType::RESHAPE, {in, shape}, {out});
  const Tensor r = run_one(g.build(), int_tensor(Q8, {1, 2, 2, 1}, {9, 8, 7, 6}, 0.5f, 3));
  EXPECT_EQ(r.dimensions, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(ints_of(r), (std::vector<int32_t>{9, 8, 7, 6}));
}

// Float: softmax([1, 2]) = [1/(1+e), e/(1+e)] = [0.26894142, 0.73105858].
// softmax_quant8_1: beta ~ 0 makes all four outputs 1/4 = 64/256.
TEST(Softmax, FloatAndCtsQuant8) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 2});
  const uint32_t beta = g.ints(OperandType::FLOAT32, {}, {0});
  Model m;
  g.op(OperationType::SOFTMAX, {in, beta}, {g.output(F32, {1, 2})});
  m = g.build();
  models::write_element(OperandType::FLOAT32, m.main.operands[beta].data, 0, 1.0);
  expect_floats({0.26894142f, 0.73105858f}, run_one(m, float_tensor({1, 2}, {1, 2})));

  GraphBuilder q;
  const uint32_t qin = q.input(Q8, {1, 4}, 0.5f, 0);
  const uint32_t qbeta = q.ints(OperandType::FLOAT32, {}, {0});
  q.op(OperationType::SOFTMAX, {qin, qbeta}, {q.output(Q8, {1, 4}, 1.0f / 256.0f, 0)});
  Model qm = q.build();
  models::write_element(OperandType::FLOAT32, qm.main.operands[qbeta].data, 0, 0.00001);
  EXPECT_EQ(ints_of(run_one(qm, int_tensor(Q8, {1, 4}, {1, 2, 10, 20}, 0.5f, 0))),
            (std::vector<int32_t>{64, 64, 64, 64}));
}

}  // namespace
}  // namespace npu::hal::ops::test
