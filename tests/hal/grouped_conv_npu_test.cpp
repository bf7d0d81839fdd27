// GROUPED_CONV_2D on the NPU's MAC array (hal/src/lower_grouped_conv.cpp: a block-diagonal CONV_2D):
// the whole model runs on the NPU (placement "npu", NPU cycles), and its outputs equal the CPU
// reference's byte for byte in float32 (NHWC and NCHW), quant8 asymm with a per-tensor filter and quant8
// signed with a per-channel filter; the hand-worked 1×1 case gives 1, 3, −1, 8.5 on the NPU too.
// TRANSPOSE_CONV_2D the same way (hal/src/lower_transpose_conv.cpp), at stride 1 and, split into output
// phases, at strides 2 and 3.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "../hal_ops/test_models.h"
#include "npu/models/tensor.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::float_tensor;
using npu::hal::ops::test::floats_of;
using npu::hal::ops::test::GraphBuilder;
using npu::hal::ops::test::int_tensor;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

struct Case {
  Model model;
  uint32_t x = 0, y = 0;
  Tensor input;
};

std::vector<int32_t> seeded_ints(size_t n, uint32_t seed, int32_t lo, int32_t hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<float> seeded_floats(size_t n, uint32_t seed) {
  std::vector<float> v;
  for (int32_t i : seeded_ints(n, seed, -1000, 1000)) v.push_back(static_cast<float>(i) / 512.0f);
  return v;
}

// 1 × 6 × 7 × 8 input, 4 groups of 2 channels, 12 output channels (3 per group), 3 × 3 filter, stride 1,
// SAME padding, RELU; NCHW stores the same tensor as [1, 8, 6, 7].
Case grouped(OperandType t, bool per_channel, bool nchw) {
  GraphBuilder g;
  Case c;
  const bool q = t != OperandType::TENSOR_FLOAT32;
  const int32_t in_zp = t == OperandType::TENSOR_QUANT8_ASYMM ? 131 : -3;
  const std::vector<uint32_t> in_dims =
      nchw ? std::vector<uint32_t>{1, 8, 6, 7} : std::vector<uint32_t>{1, 6, 7, 8};
  const std::vector<uint32_t> out_dims =
      nchw ? std::vector<uint32_t>{1, 12, 6, 7} : std::vector<uint32_t>{1, 6, 7, 12};
  c.x = g.input(t, in_dims, q ? 0.05f : 0.0f, q ? in_zp : 0);
  c.y = g.output(t, out_dims, q ? 0.1f : 0.0f, q ? (t == OperandType::TENSOR_QUANT8_ASYMM ? 120 : -10) : 0);
  const size_t fn = 12 * 3 * 3 * 2;
  uint32_t filter = 0, bias = 0;
  if (!q) {
    filter = g.floats({12, 3, 3, 2}, seeded_floats(fn, 2));
    bias = g.floats({12}, seeded_floats(12, 3));
  } else if (per_channel) {
    std::vector<float> scales;
    for (int i = 0; i < 12; ++i) scales.push_back(0.01f + 0.002f * i);
    filter = g.per_channel({12, 3, 3, 2}, seeded_ints(fn, 2, -127, 127), scales);
    std::vector<int32_t> b = seeded_ints(12, 3, -2000, 2000);
    bias = g.ints(OperandType::TENSOR_INT32, {12}, b, 0.0f, 0);
  } else {
    const int32_t lo = t == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
    filter = g.ints(t, {12, 3, 3, 2}, seeded_ints(fn, 2, lo, lo + 255), 0.02f, lo + 117);
    bias = g.ints(OperandType::TENSOR_INT32, {12}, seeded_ints(12, 3, -2000, 2000), 0.05f * 0.02f, 0);
  }
  g.op(OperationType::GROUPED_CONV_2D,
       {c.x, filter, bias, g.i32(1), g.i32(1), g.i32(1), g.i32(4), g.i32(1), g.boolean(nchw)}, {c.y});
  c.model = g.build();
  const size_t n = 6 * 7 * 8;
  if (!q) {
    c.input = float_tensor(in_dims, seeded_floats(n, 1));
  } else {
    const int32_t lo = t == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
    c.input = int_tensor(t, in_dims, seeded_ints(n, 1, lo, lo + 255), 0.05f, in_zp);
  }
  return c;
}

TEST(HalGroupedConvNpu, WholeModelOnTheNpuEqualsCpuByteForByte) {
  std::vector<Case> cases;
  cases.push_back(grouped(OperandType::TENSOR_FLOAT32, false, false));
  cases.push_back(grouped(OperandType::TENSOR_FLOAT32, false, true));
  cases.push_back(grouped(OperandType::TENSOR_QUANT8_ASYMM, false, false));
  cases.push_back(grouped(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, true, false));
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](npu::system::System& s) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      auto npu = s.npu_device().prepare_model(c.model);
      auto cpu = s.cpu_device().prepare_model(c.model);
      ASSERT_TRUE(npu.status.ok()) << i << ": " << npu.status.message;
      ASSERT_TRUE(cpu.status.ok()) << i << ": " << cpu.status.message;
      EXPECT_EQ(npu.model->placement(), "npu") << i;
      auto a = npu.model->execute_synchronously({{c.x, c.input}}, false);
      auto b = cpu.model->execute_synchronously({{c.x, c.input}}, false);
      ASSERT_TRUE(a.status.ok()) << i << ": " << a.status.message;
      ASSERT_TRUE(b.status.ok()) << i << ": " << b.status.message;
      EXPECT_GT(a.device_cycles, 0u) << i;
      EXPECT_EQ(a.outputs.at(c.y).data, b.outputs.at(c.y).data) << i;
      // Not a trivial output: some values above the activation floor.
      size_t nonzero = 0;
      for (uint8_t v : b.outputs.at(c.y).data) nonzero += v != b.outputs.at(c.y).data[0];
      EXPECT_GT(nonzero, 100u) << i;
    }
    // The hand-worked case of tests/hal_ops/conv_family_test.cpp on the NPU: 1, 3, −1, 8.5.
    GraphBuilder g;
    const uint32_t x = g.input(OperandType::TENSOR_FLOAT32, {1, 1, 1, 4});
    const uint32_t y = g.output(OperandType::TENSOR_FLOAT32, {1, 1, 1, 4});
    g.op(OperationType::GROUPED_CONV_2D,
         {x, g.floats({4, 1, 1, 2}, {1, 0, 1, 1, 1, -1, 0, 2}), g.floats({4}, {0, 0, 0, 0.5f}), g.i32(2),
          g.i32(1), g.i32(1), g.i32(2), g.i32(0), g.boolean(false)},
         {y});
    auto p = s.npu_device().prepare_model(g.build());
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu");
    auto r = p.model->execute_synchronously({{x, float_tensor({1, 1, 1, 4}, {1, 2, 3, 4})}}, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(floats_of(r.outputs.at(y)), (std::vector<float>{1, 3, -1, 8.5f}));
  });
  ASSERT_TRUE(end.ok()) << end.error();
}

// TRANSPOSE_CONV_2D (hal/src/lower_transpose_conv.cpp: CONV_2Ds of the flipped filter, one per output
// phase when strided): 1 × 5 × 6 × 4 input, 3 × 3 filter, 6 output channels, RELU6. Explicit paddings
// (left 1, right 2, top 0, bottom 1) give (s·4 + 2) × (s·5) outputs at stride s; implicit SAME with the
// output shape [1, 5s, 6s, 6]. Float32 NHWC, NCHW and implicit, quant8 asymm per-tensor, quant8 signed
// per-channel, at stride 1, 2 and 3 (and 2 × 1), NCHW strided too: placement "npu" and the CPU
// reference's bytes. Paddings past the filter (top 4 of a 3-row filter: (4s + 3 − 4) × (5s) outputs) make
// phases that skip into the input. (A filter smaller than the stride stays on the CPU:
// NpuTransposeConvStrided in tests/e2e.)
using Pads = std::array<int32_t, 4>;  // left, right, top, bottom
Case transposed(OperandType t, bool per_channel, bool nchw, bool implicit, int32_t stride = 1,
                int32_t stride_w = 0, Pads pads = {1, 2, 0, 1}) {
  if (stride_w == 0) stride_w = stride;
  GraphBuilder g;
  Case c;
  const bool q = t != OperandType::TENSOR_FLOAT32;
  const int32_t lo = t == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
  const int32_t in_zp = lo + 125;
  const std::vector<uint32_t> in_dims =
      nchw ? std::vector<uint32_t>{1, 4, 5, 6} : std::vector<uint32_t>{1, 5, 6, 4};
  // Explicit: (in − 1)·stride + filter − head − tail.
  const auto oh = static_cast<uint32_t>(implicit ? 5 * stride : 4 * stride + 3 - pads[2] - pads[3]),
             ow = static_cast<uint32_t>(implicit ? 6 * stride_w : 5 * stride_w + 3 - pads[0] - pads[1]);
  const std::vector<uint32_t> out_dims =
      nchw ? std::vector<uint32_t>{1, 6, oh, ow} : std::vector<uint32_t>{1, oh, ow, 6};
  c.x = g.input(t, in_dims, q ? 0.05f : 0.0f, q ? in_zp : 0);
  c.y = g.output(t, out_dims, q ? 0.04f : 0.0f, q ? lo + 10 : 0);
  const size_t fn = 6 * 3 * 3 * 4;
  uint32_t filter = 0, bias = 0;
  if (!q) {
    filter = g.floats({6, 3, 3, 4}, seeded_floats(fn, 5));
    bias = g.floats({6}, seeded_floats(6, 6));
  } else if (per_channel) {
    std::vector<float> scales;
    for (int i = 0; i < 6; ++i) scales.push_back(0.01f + 0.003f * i);
    filter = g.per_channel({6, 3, 3, 4}, seeded_ints(fn, 5, -127, 127), scales);
    bias = g.ints(OperandType::TENSOR_INT32, {6}, seeded_ints(6, 6, -300, 300), 0.0f, 0);
  } else {
    filter = g.ints(t, {6, 3, 3, 4}, seeded_ints(fn, 5, lo, lo + 255), 0.01f, lo + 130);
    bias = g.ints(OperandType::TENSOR_INT32, {6}, seeded_ints(6, 6, -300, 300), 0.05f * 0.01f, 0);
  }
  std::vector<uint32_t> in{c.x, filter, bias};
  if (implicit) {
    const auto h = static_cast<int32_t>(oh), w = static_cast<int32_t>(ow);
    in.push_back(g.ints(OperandType::TENSOR_INT32, {4},
                        nchw ? std::vector<int32_t>{1, 6, h, w} : std::vector<int32_t>{1, h, w, 6}));
    in.push_back(g.i32(1));
  } else {
    for (int32_t p : pads) in.push_back(g.i32(p));
  }
  for (int32_t v : {stride_w, stride, 3}) in.push_back(g.i32(v));
  in.push_back(g.boolean(nchw));
  g.op(OperationType::TRANSPOSE_CONV_2D, in, {c.y});
  c.model = g.build();
  const size_t n = 5 * 6 * 4;
  c.input = q ? int_tensor(t, in_dims, seeded_ints(n, 4, lo, lo + 255), 0.05f, in_zp)
              : float_tensor(in_dims, seeded_floats(n, 4));
  return c;
}

TEST(HalTransposeConvNpu, OnTheNpuEqualsCpuByteForByte) {
  std::vector<Case> cases;
  cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, false, false));
  cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, true, false));
  cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, false, true));
  cases.push_back(transposed(OperandType::TENSOR_QUANT8_ASYMM, false, false, false));
  cases.push_back(transposed(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, true, false, true));
  for (int32_t stride : {2, 3}) {
    cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, false, false, stride));
    cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, false, true, stride));
    cases.push_back(transposed(OperandType::TENSOR_QUANT8_ASYMM, false, false, false, stride));
    cases.push_back(transposed(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, true, false, true, stride));
  }
  cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, false, true, 2, 1));
  for (int32_t stride : {2, 3}) {
    cases.push_back(transposed(OperandType::TENSOR_FLOAT32, false, true, false, stride));
    cases.push_back(transposed(OperandType::TENSOR_QUANT8_ASYMM, false, true, false, stride));
  }
  for (int32_t stride : {1, 2}) {
    cases.push_back(
        transposed(OperandType::TENSOR_FLOAT32, false, false, false, stride, stride, {3, 0, 4, 0}));
    cases.push_back(
        transposed(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, true, true, false, stride, stride, {3, 0, 4, 0}));
  }
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](npu::system::System& s) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      auto npu = s.npu_device().prepare_model(c.model);
      auto cpu = s.cpu_device().prepare_model(c.model);
      ASSERT_TRUE(npu.status.ok()) << i << ": " << npu.status.message;
      ASSERT_TRUE(cpu.status.ok()) << i << ": " << cpu.status.message;
      EXPECT_EQ(npu.model->placement(), "npu") << i;
      auto a = npu.model->execute_synchronously({{c.x, c.input}}, false);
      auto b = cpu.model->execute_synchronously({{c.x, c.input}}, false);
      ASSERT_TRUE(a.status.ok()) << i << ": " << a.status.message;
      ASSERT_TRUE(b.status.ok()) << i << ": " << b.status.message;
      EXPECT_GT(a.device_cycles, 0u) << i;
      EXPECT_EQ(a.outputs.at(c.y).data, b.outputs.at(c.y).data) << i;
      size_t varied = 0;
      for (uint8_t v : b.outputs.at(c.y).data) varied += v != b.outputs.at(c.y).data[0];
      EXPECT_GT(varied * 3, b.outputs.at(c.y).data.size()) << i;  // not mostly one clamped value
    }
  });
  ASSERT_TRUE(end.ok()) << end.error();
}

}  // namespace
