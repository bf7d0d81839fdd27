// The vendor extension com.npusim.llm on the HAL devices (docs/npu_ops.md, "Vendor extension
// com.npusim.llm"): RMS_NORM, ROPE and MATMUL on the NPU device in TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM and
// TENSOR_QUANT8_ASYMM_SIGNED against hand-worked values (no CPU reference exists to compare with); the
// CPU device and the minimal NPU device refuse them as NNAPI drivers refuse an extension they do not list;
// an extension operation the NPU cannot place fails preparation instead of falling back to the CPU; the
// compilation cache and graphDump carry them; the zoo's decoders run with no operation on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "../hal_ops/test_models.h"
#include "hal_test_util.h"
#include "npu/common/fixed_point.h"
#include "npu/hal/graph_dump.h"
#include "npu/models/builder.h"
#include "npu/models/extensions.h"
#include "npu/models/tensor.h"
#include "npu/models/zoo.h"

namespace npu::hal::test {
namespace {

using models::LlmOperation;
using models::Model;
using models::OperandType;
using models::Tensor;
using ops::test::float_tensor;
using ops::test::floats_of;
using ops::test::GraphBuilder;
using ops::test::int_tensor;
using ops::test::ints_of;

constexpr OperandType F32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

models::OperationType llm(LlmOperation o) {
  return models::extension_operation_type(1, static_cast<uint16_t>(o));
}
Model with_llm(const GraphBuilder& g) {
  Model m = g.build();
  m.extension_name_to_prefix = {{std::string(models::kLlmExtension), 1}};
  return m;
}
uint32_t f32_scalar(GraphBuilder& g, float v) { return g.floats({}, {v}, OperandType::FLOAT32); }

// Prepares `m` on the NPU device (which must place every operation there) and runs it once.
TensorMap run_npu(system::System& s, const Model& m, const TensorMap& in) {
  auto p = s.npu_device().prepare_model(m);
  EXPECT_TRUE(p.status.ok()) << p.status.message;
  if (!p.status.ok()) return {};
  EXPECT_EQ(p.model->placement(), "npu");
  auto r = p.model->execute_synchronously(in, true);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_GT(r.device_cycles, 0u);
  return r.outputs;
}

std::vector<int32_t> shifted(std::vector<int32_t> v, bool is_signed) {
  if (is_signed)
    for (auto& x : v) x -= 128;
  return v;
}

// Epsilons make mean(x²) + ε a square, so every value is exact in float:
// row 0, x = 1, 1, 1, 1: mean 1 + 3 = 4 → ×1/2: y = 0.5·g = 0.5, 1, 1.5, 2;
// row 1, x = 1, 5, 1, 5: (1 + 25 + 1 + 25)/4 = 13 + 3 = 16 → ×1/4: y = 0.25, 2.5, 0.75, 5.
TEST(LlmExtension, RmsNormFloatOnTheNpu) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 4});
  const uint32_t gamma = g.floats({4}, {1, 2, 3, 4});
  const uint32_t y = g.output(F32, {2, 4});
  g.op(llm(LlmOperation::RMS_NORM), {x, gamma, f32_scalar(g, 3.0f)}, {y});
  const Model m = with_llm(g);
  run_on_phone([&](system::System& s) {
    const auto out = run_npu(s, m, {{x, float_tensor({2, 4}, {1, 1, 1, 1, 1, 5, 1, 5})}});
    EXPECT_EQ(floats_of(out.at(y)), (std::vector<float>{0.5f, 1, 1.5f, 2, 0.25f, 2.5f, 0.75f, 5}));
  });
}

// x scale 0.5, zero point 128: 130, 126, 132, 124 are 1, −1, 2, −2; mean of squares 2.5, + ε 1.5 = 4, √ 2.
// gamma scale 0.25, zero point 0: 4, 4, 8, 8 are 1, 1, 2, 2. y = x/2·g = 0.5, −0.5, 2, −2, at scale 1/32 and
// zero point 128: 144, 112, 192, 64. Signed: every value, zero point and result − 128 (a gamma input this
// time, as a graph input rather than a constant).
TEST(LlmExtension, RmsNormQuantisedOnTheNpu) {
  run_on_phone([&](system::System& s) {
    for (const OperandType t : {Q8, S8}) {
      const bool sg = t == S8;
      const int32_t z = sg ? -128 : 0;
      GraphBuilder g;
      const uint32_t x = g.input(t, {1, 4}, 0.5f, 128 + z);
      const uint32_t gamma = sg ? g.input(t, {4}, 0.25f, z) : g.ints(t, {4}, {4, 4, 8, 8}, 0.25f, 0);
      const uint32_t y = g.output(t, {1, 4}, 1.0f / 32, 128 + z);
      g.op(llm(LlmOperation::RMS_NORM), {x, gamma, f32_scalar(g, 1.5f)}, {y});
      TensorMap in{{x, int_tensor(t, {1, 4}, shifted({130, 126, 132, 124}, sg), 0.5f, 128 + z)}};
      if (sg) in.emplace(gamma, int_tensor(t, {4}, shifted({4, 4, 8, 8}, true), 0.25f, z));
      const auto out = run_npu(s, with_llm(g), in);
      EXPECT_EQ(ints_of(out.at(y)), shifted({144, 112, 192, 64}, sg)) << models::to_string(t);
    }
  });
}

// One row of two heads of 4 (pairs (0, 2), (1, 3) within each head), base 100: the pairs turn by p·1 and
// p·0.1 rad at position p. The position is a graph input: 1 for token 0, 2 for token 1.
// Token 0, head 0 = 1, 0, 0, 1: (1, 0) → (cos 1, sin 1) = (0.540302306, 0.841470985), (0, 1) → (−sin 0.1,
//   cos 0.1) = (−0.099833417, 0.995004165); head 1 = 0, 1, 0, 0: (1, 0) → (cos 0.1, sin 0.1) in slots 1, 3.
// Token 1, head 0 = 2, 0, 0, 0: (2 cos 2, 2 sin 2) = (−0.832293673, 1.818594854) in slots 0, 2; head 1 =
//   0, 1, 0, 0: (cos 0.2, sin 0.2) = (0.980066578, 0.198669331) in slots 1, 3.
// With position 0 instead, token 0 does not turn (angles 0): the output is the input.
TEST(LlmExtension, RopeFloatOnTheNpuReadsItsPositionAtRunTime) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 8});
  const uint32_t pos = g.input(OperandType::INT32, {});
  const uint32_t y = g.output(F32, {2, 8});
  g.op(llm(LlmOperation::ROPE), {x, pos, g.i32(4), f32_scalar(g, 100.0f)}, {y});
  const Model m = with_llm(g);
  const Tensor input = float_tensor({2, 8}, {1, 0, 0, 1, 0, 1, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0});
  run_on_phone([&](system::System& s) {
    auto p = s.npu_device().prepare_model(m);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu");
    auto r =
        p.model->execute_synchronously({{x, input}, {pos, int_tensor(OperandType::INT32, {}, {1})}}, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    const std::vector<float> want{
        0.540302306f,  -0.099833417f, 0.841470985f, 0.995004165f, 0.0f, 0.995004165f, 0.0f, 0.099833417f,
        -0.832293673f, 0.0f,          1.818594854f, 0.0f,         0.0f, 0.980066578f, 0.0f, 0.198669331f};
    const auto got = floats_of(r.outputs.at(y));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
    auto zero =
        p.model->execute_synchronously({{x, input}, {pos, int_tensor(OperandType::INT32, {}, {0})}}, false);
    ASSERT_TRUE(zero.status.ok()) << zero.status.message;
    const auto first = floats_of(zero.outputs.at(y));
    for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(first[i], floats_of(input)[i], 1e-7) << i;
  });
}

// uint8, zero point 128, scale 1/16 in and out, position constant 1 (angles 1 and 0.1). cos, sin as Q15:
// 17705, 27574 (angle 1) and 32604, 3271 (angle 0.1). x = 228, 128, 128, 28 → pairs (100, 0), (0, −100):
// a0 = 100·17705/2^15 = 54.03 → 54, b0 = 100·27574/2^15 = 84.15 → 84, a1 = 100·3271/2^15 = 9.98 → 10,
// b1 = −100·32604/2^15 = −99.50 → −99: y = 182, 138, 212, 29. Signed: − 128 throughout.
TEST(LlmExtension, RopeQuantisedOnTheNpu) {
  run_on_phone([&](system::System& s) {
    for (const OperandType t : {Q8, S8}) {
      const bool sg = t == S8;
      const int32_t zp = sg ? 0 : 128;
      GraphBuilder g;
      const uint32_t x = g.input(t, {1, 4}, 1.0f / 16, zp);
      const uint32_t y = g.output(t, {1, 4}, 1.0f / 16, zp);
      g.op(llm(LlmOperation::ROPE), {x, g.i32(1), g.i32(4), f32_scalar(g, 100.0f)}, {y});
      const auto out = run_npu(s, with_llm(g),
                               {{x, int_tensor(t, {1, 4}, shifted({228, 128, 128, 28}, sg), 1.0f / 16, zp)}});
      EXPECT_EQ(ints_of(out.at(y)), shifted({182, 138, 212, 29}, sg)) << models::to_string(t);
    }
  });
}

// a = [[1, 2, 3], [4, 5, 6]]. Transposed b = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] (N = 4, K = 3):
// a·bᵀ = [[1, 2, 3, 6], [4, 5, 6, 15]]. Plain b = [[1, 2], [3, 4], [5, 6]]: a·b = [[22, 28], [49, 64]].
// Batched (rank 3): a = [[[1, 2]], [[3, 4]]], b = [[[1, 0], [0, 1]], [[2, 0], [0, 2]]] → [[[1, 2]], [[6,
// 8]]].
TEST(LlmExtension, MatmulFloatOnTheNpu) {
  GraphBuilder g;
  const uint32_t a = g.input(F32, {2, 3});
  const uint32_t bt = g.input(F32, {4, 3});
  const uint32_t b = g.input(F32, {3, 2});
  const uint32_t ba = g.input(F32, {2, 1, 2});
  const uint32_t bb = g.input(F32, {2, 2, 2});
  const uint32_t y1 = g.output(F32, {2, 4}), y2 = g.output(F32, {2, 2}), y3 = g.output(F32, {2, 1, 2});
  g.op(llm(LlmOperation::MATMUL), {a, bt, g.boolean(true)}, {y1});
  g.op(llm(LlmOperation::MATMUL), {a, b, g.boolean(false)}, {y2});
  g.op(llm(LlmOperation::MATMUL), {ba, bb, g.boolean(false)}, {y3});
  const Model m = with_llm(g);
  run_on_phone([&](system::System& s) {
    const auto out = run_npu(s, m,
                             {{a, float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                              {bt, float_tensor({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1})},
                              {b, float_tensor({3, 2}, {1, 2, 3, 4, 5, 6})},
                              {ba, float_tensor({2, 1, 2}, {1, 2, 3, 4})},
                              {bb, float_tensor({2, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2})}});
    EXPECT_EQ(floats_of(out.at(y1)), (std::vector<float>{1, 2, 3, 6, 4, 5, 6, 15}));
    EXPECT_EQ(floats_of(out.at(y2)), (std::vector<float>{22, 28, 49, 64}));
    EXPECT_EQ(floats_of(out.at(y3)), (std::vector<float>{1, 2, 6, 8}));
  });
}

// The same products quantised: a scale 0.5, zero point 128 (130, 132, 134, 136, 138, 140); transposed b
// scale 0.25, zero point 100 (each real r is 100 + 4r); output scale 0.5, zero point 10. The int32 sum
// Σ(a − 128)(b − 100) = Σ 2r·4r' = 8·(a·b)real, rescaled by 0.5·0.25/0.5 = 0.25: 2·(a·b) = (a·b)/0.5, so
// y = 10 + 2·[1, 2, 3, 6, 4, 5, 6, 15] = 12, 14, 16, 22, 18, 20, 22, 40. Plain b (zero point 100, scale
// 0.25: 104, 108, 112, 116, 120, 124) into scale 1, zero point 0: 22, 28, 49, 64. Signed: − 128 throughout.
TEST(LlmExtension, MatmulQuantisedOnTheNpu) {
  run_on_phone([&](system::System& s) {
    for (const OperandType t : {Q8, S8}) {
      const bool sg = t == S8;
      const int32_t z = sg ? -128 : 0;
      GraphBuilder g;
      const uint32_t a = g.input(t, {2, 3}, 0.5f, 128 + z);
      const uint32_t bt = g.input(t, {4, 3}, 0.25f, 100 + z);
      const uint32_t b = g.input(t, {3, 2}, 0.25f, 100 + z);
      const uint32_t y1 = g.output(t, {2, 4}, 0.5f, 10 + z), y2 = g.output(t, {2, 2}, 1.0f, sg ? -128 : 0);
      g.op(llm(LlmOperation::MATMUL), {a, bt, g.boolean(true)}, {y1});
      g.op(llm(LlmOperation::MATMUL), {a, b, g.boolean(false)}, {y2});
      const auto out =
          run_npu(s, with_llm(g),
                  {{a, int_tensor(t, {2, 3}, shifted({130, 132, 134, 136, 138, 140}, sg), 0.5f, 128 + z)},
                   {bt, int_tensor(t, {4, 3},
                                   shifted({104, 100, 100, 100, 104, 100, 100, 100, 104, 104, 104, 104}, sg),
                                   0.25f, 100 + z)},
                   {b, int_tensor(t, {3, 2}, shifted({104, 108, 112, 116, 120, 124}, sg), 0.25f, 100 + z)}});
      EXPECT_EQ(ints_of(out.at(y1)), shifted({12, 14, 16, 22, 18, 20, 22, 40}, sg)) << models::to_string(t);
      EXPECT_EQ(ints_of(out.at(y2)), shifted({22, 28, 49, 64}, sg)) << models::to_string(t);
    }
  });
}

// A product the compiler tiles (attention's shape: 8 query rows × K 64 against 1000 keys, and the values
// product of K 1000) on a 32 KiB SRAM and 4 channels, against the documented semantics: the int32 sum of
// the centred products, then NNAPI's requantisation (the multiplier of a_scale·b_scale/out_scale).
TEST(LlmExtension, TiledQuantisedMatmulFollowsItsDefinition) {
  constexpr uint32_t M = 8, K = 64, N = 1000;
  GraphBuilder g;
  const uint32_t q = g.input(Q8, {M, K}, 0.05f, 120);
  const uint32_t keys = g.input(Q8, {N, K}, 0.04f, 131);
  const uint32_t scores = g.output(Q8, {M, N}, 0.8f, 125);
  g.op(llm(LlmOperation::MATMUL), {q, keys, g.boolean(true)}, {scores});
  const uint32_t values = g.input(Q8, {N, K}, 0.02f, 127);
  const uint32_t probs = g.input(Q8, {M, N}, 1.0f / 256, 0);
  const uint32_t out = g.output(Q8, {M, K}, 0.03f, 129);
  g.op(llm(LlmOperation::MATMUL), {probs, values, g.boolean(false)}, {out});
  const Model m = with_llm(g);
  std::mt19937 rng(7);
  auto bytes = [&](size_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = static_cast<int32_t>(rng() % 256);
    return v;
  };
  const auto qv = bytes(M * K), kv = bytes(N * K), vv = bytes(N * K), pv = bytes(M * N);
  auto expected = [](const std::vector<int32_t>& a, int32_t za, float sa, const std::vector<int32_t>& b,
                     int32_t zb, float sb, bool transposed, uint32_t rows, uint32_t k, uint32_t n, float so,
                     int32_t zo) {
    const auto mult = fx::quantize_multiplier(static_cast<double>(sa * sb) / so);
    std::vector<int32_t> y(rows * n);
    for (uint32_t i = 0; i < rows; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        int32_t acc = 0;
        for (uint32_t kk = 0; kk < k; ++kk)
          acc += (a[i * k + kk] - za) * ((transposed ? b[j * k + kk] : b[kk * n + j]) - zb);
        y[i * n + j] = std::clamp(zo + fx::multiply_by_quantized_multiplier(acc, mult), 0, 255);
      }
    return y;
  };
  run_on_phone(
      [&](system::System& s) {
        const auto got = run_npu(s, m,
                                 {{q, int_tensor(Q8, {M, K}, qv, 0.05f, 120)},
                                  {keys, int_tensor(Q8, {N, K}, kv, 0.04f, 131)},
                                  {values, int_tensor(Q8, {N, K}, vv, 0.02f, 127)},
                                  {probs, int_tensor(Q8, {M, N}, pv, 1.0f / 256, 0)}});
        EXPECT_EQ(ints_of(got.at(scores)),
                  expected(qv, 120, 0.05f, kv, 131, 0.04f, true, M, K, N, 0.8f, 125));
        EXPECT_EQ(ints_of(got.at(out)),
                  expected(pv, 0, 1.0f / 256, vv, 127, 0.02f, false, M, N, K, 0.03f, 129));
      },
      {"npu.channel.sram.kib=32"});
}

Model rms_model() {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 4});
  const uint32_t h = g.temp(F32, {2, 4});
  const uint32_t y = g.output(F32, {2, 4});
  g.op(models::OperationType::RELU, {x}, {h});
  g.op(llm(LlmOperation::RMS_NORM), {h, g.floats({4}, {1, 2, 3, 4}), f32_scalar(g, 3.0f)}, {y});
  return with_llm(g);
}

// NNAPI: a device that does not list an extension in getSupportedExtensions reports its operations
// unsupported and does not prepare a model using it; the NPU device lists com.npusim.llm.
TEST(LlmExtension, OnlyTheNpuDeviceSupportsTheExtension) {
  const Model m = rms_model();
  run_on_phone([&](system::System& s) {
    const auto npu_ext = s.npu_device().supported_extensions();
    ASSERT_EQ(npu_ext.size(), 1u);
    EXPECT_EQ(npu_ext[0].name, "com.npusim.llm");
    EXPECT_TRUE(npu_ext[0].operand_types.empty());  // its operations take NNAPI's types
    EXPECT_TRUE(s.cpu_device().supported_extensions().empty());
    auto& minimal = s.npu_device(10001, 1001, NpuDevice::Variant::MINIMAL);
    EXPECT_TRUE(minimal.supported_extensions().empty());

    std::vector<bool> flags;
    ASSERT_TRUE(s.cpu_device().supported_operations(m, &flags).ok());
    EXPECT_EQ(flags, (std::vector<bool>{true, false}));
    ASSERT_TRUE(s.npu_device().supported_operations(m, &flags).ok());
    EXPECT_EQ(flags, (std::vector<bool>{true, true}));
    EXPECT_EQ(s.npu_device().unsupported_reason(m, 1), "");

    auto cpu = s.cpu_device().prepare_model(m);
    EXPECT_EQ(cpu.status.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_EQ(cpu.status.message,
              "operations[1] (com.npusim.llm:RMS_NORM): vendor extension com.npusim.llm is not supported by "
              "npusim-cpu (it supports no vendor extension)");
    auto min = minimal.prepare_model(m);
    EXPECT_EQ(min.status.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_NE(min.status.message.find("not supported by npusim-npu-minimal"), std::string::npos)
        << min.status.message;
    auto npu = s.npu_device().prepare_model(m);
    ASSERT_TRUE(npu.status.ok()) << npu.status.message;
    EXPECT_EQ(npu.model->placement(), "npu");
  });
}

// An extension operation the NPU cannot place (a weights block of one array width, 16 × 200000 bytes, is
// larger than the 512 KiB SRAM) fails preparation: a CPU stage or a CPU fallback would compute nothing.
TEST(LlmExtension, WhatTheNpuCannotPlaceFailsPreparation) {
  GraphBuilder g;
  const uint32_t a = g.input(Q8, {1, 200000}, 0.5f, 128);
  const uint32_t b = g.input(Q8, {16, 200000}, 0.5f, 128);
  const uint32_t y = g.output(Q8, {1, 16}, 0.5f, 128);
  g.op(llm(LlmOperation::MATMUL), {a, b, g.boolean(true)}, {y});
  const Model m = with_llm(g);
  run_on_phone([&](system::System& s) {
    std::vector<bool> flags;
    ASSERT_TRUE(s.npu_device().supported_operations(m, &flags).ok());
    EXPECT_EQ(flags, std::vector<bool>{false});
    EXPECT_FALSE(s.npu_device().unsupported_reason(m, 0).empty());
    auto p = s.npu_device().prepare_model(m);
    EXPECT_EQ(p.status.code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(p.model, nullptr);
    EXPECT_EQ(p.status.message.rfind("operations[0] (com.npusim.llm:MATMUL): the NPU cannot run it (", 0), 0u)
        << p.status.message;
    EXPECT_NE(p.status.message.find("and the CPU reference computes no vendor extension"), std::string::npos);
  });
}

// Validation through the HAL names the operation and the input at fault.
TEST(LlmExtension, InvalidFormsAreInvalidArgument) {
  auto status = [](const Model& m) { return validate_for_prepare(m); };  // what prepare_model returns first
  {
    GraphBuilder g;  // an odd head_dim
    const uint32_t x = g.input(F32, {1, 6});
    g.op(llm(LlmOperation::ROPE), {x, g.i32(0), g.i32(3), f32_scalar(g, 100.0f)}, {g.output(F32, {1, 6})});
    const Status st = status(with_llm(g));
    EXPECT_EQ(st.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_EQ(st.message,
              "operations[0] (com.npusim.llm:ROPE): input 2 (head_dim): must be even and at least 2, got 3");
  }
  {
    GraphBuilder g;  // K of a and b differ
    const uint32_t a = g.input(F32, {2, 3}), b = g.input(F32, {2, 4});
    g.op(llm(LlmOperation::MATMUL), {a, b, g.boolean(true)}, {g.output(F32, {2, 2})});
    const Status st = status(with_llm(g));
    EXPECT_EQ(st.message,
              "operations[0] (com.npusim.llm:MATMUL): input 1 (b): transposed, has K = 4, a has K = 3");
  }
  {
    GraphBuilder g;  // a runtime epsilon
    const uint32_t x = g.input(F32, {1, 4});
    const uint32_t eps = g.input(OperandType::FLOAT32, {});
    g.op(llm(LlmOperation::RMS_NORM), {x, g.floats({4}, {1, 1, 1, 1}), eps}, {g.output(F32, {1, 4})});
    const Status st = status(with_llm(g));
    EXPECT_EQ(st.message, "operations[0] (com.npusim.llm:RMS_NORM): input 2 (epsilon): must be a constant");
  }
  {
    GraphBuilder g;  // TENSOR_FLOAT16 is not one of its types
    const uint32_t x = g.input(OperandType::TENSOR_FLOAT16, {1, 4});
    g.op(llm(LlmOperation::RMS_NORM),
         {x, g.floats({4}, {1, 1, 1, 1}, OperandType::TENSOR_FLOAT16), f32_scalar(g, 1.0f)},
         {g.output(OperandType::TENSOR_FLOAT16, {1, 4})});
    const Status st = status(with_llm(g));
    EXPECT_EQ(st.message,
              "operations[0] (com.npusim.llm:RMS_NORM): input 0 (input): expected TENSOR_FLOAT32 or "
              "TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED, got TENSOR_FLOAT16");
  }
}

// The compilation cache keeps a model with extension operations (its model section is model JSON, with the
// extension table): loading it compiles nothing and computes the same.
TEST(LlmExtension, CompilationCacheRoundTrip) {
  const Model m = rms_model();
  const std::string dir = ::testing::TempDir() + "/llm_cache";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  setenv("NPUSIM_CACHE_KEY", (dir + "/key").c_str(), 1);
  run_on_phone([&](system::System& s) {
    PrepareOptions o;
    o.cache_dir = dir;
    o.token = CacheToken{};
    o.token->fill(7);
    auto first = s.npu_device().prepare_model(m, o);
    ASSERT_TRUE(first.status.ok()) << first.status.message;
    EXPECT_FALSE(first.from_cache);
    const uint64_t compiled = s.npu_device().compilations();
    auto again = s.npu_device().prepare_model_from_cache(o);
    ASSERT_TRUE(again.status.ok()) << again.status.message;
    EXPECT_EQ(s.npu_device().compilations(), compiled);
    EXPECT_EQ(again.model->placement(), "npu");
    const TensorMap in{{0, float_tensor({2, 4}, {1, 1, 1, 1, 1, 5, 1, 5})}};
    auto r = again.model->execute_synchronously(in, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(floats_of(r.outputs.begin()->second),
              (std::vector<float>{0.5f, 1, 1.5f, 2, 0.25f, 2.5f, 0.75f, 5}));
  });
}

TEST(LlmExtension, GraphDumpNamesExtensionOperations) {
  const std::string dot = graph_dump(rms_model());
  EXPECT_NE(dot.find("1: com.npusim.llm:RMS_NORM"), std::string::npos) << dot;
  EXPECT_NE(dot.find("0: RELU"), std::string::npos) << dot;
}

// EMBEDDING_LOOKUP is now the DMA engine's gather: rows 2, 0 of a [3, 2] table; a lookup of 5 stops the job
// with the gather's error (the CPU reference refuses it too).
TEST(LlmExtension, EmbeddingLookupGathersOnTheNpu) {
  GraphBuilder g;
  const uint32_t ids = g.input(OperandType::TENSOR_INT32, {2});
  const uint32_t table = g.ints(Q8, {3, 2}, {10, 11, 20, 21, 30, 31}, 0.5f, 3);
  const uint32_t y = g.output(Q8, {2, 2}, 0.5f, 3);
  g.op(models::OperationType::EMBEDDING_LOOKUP, {ids, table}, {y});
  const Model m = g.build();
  run_on_phone([&](system::System& s) {
    auto p = s.npu_device().prepare_model(m);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu");
    auto r =
        p.model->execute_synchronously({{ids, int_tensor(OperandType::TENSOR_INT32, {2}, {2, 0})}}, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(ints_of(r.outputs.at(y)), (std::vector<int32_t>{30, 31, 10, 11}));
    auto bad =
        p.model->execute_synchronously({{ids, int_tensor(OperandType::TENSOR_INT32, {2}, {1, 5})}}, false);
    EXPECT_EQ(bad.status.code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_NE(bad.status.message.find("gather index out of range"), std::string::npos) << bad.status.message;
  });
}

// The zoo's decoders run wholly on the NPU with the extension; the NNAPI form keeps its norms (33
// L2_NORMALIZATION) and attention products (2 FULLY_CONNECTED per layer and KV head: 2·16·8 = 256) on the
// CPU: 289 of its 1012 operations.
TEST(LlmExtension, ZooDecodersRunWithNoOperationOnTheCpu) {
  auto standard = models::zoo_model("decoder_1b_decode_nnapi@64");
  ASSERT_TRUE(standard.ok()) << standard.error();
  EXPECT_TRUE(standard->extension_name_to_prefix.empty());
  run_on_phone([&](system::System& s) {
    for (const char* name : {"decoder_1b_decode@64", "decoder_1b_prefill@16", "decoder_3b_decode@16"}) {
      auto m = models::zoo_model(name);
      ASSERT_TRUE(m.ok()) << m.error();
      auto p = s.npu_device().prepare_model(*m);
      ASSERT_TRUE(p.status.ok()) << name << ": " << p.status.message;
      EXPECT_EQ(p.model->placement(), "npu") << name;
      if (std::string(name) != "decoder_1b_decode@64") continue;
      // One step runs (timing-only: weights are sizes), as one job of NPU stages.
      auto r = p.model->execute_synchronously(models::random_inputs(*m, 1, 100), true);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_TRUE(r.timing_only);
      EXPECT_EQ(r.jobs, 1u);
      EXPECT_GT(r.device_cycles, 0u);
    }
    auto p = s.npu_device().prepare_model(*standard);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu + cpu (289 of 1012 operations on the CPU)");
  });
}

// A model wholly on the NPU is one run of NPU stages; the HAL cuts it into jobs whose command buffers fit
// half of the driver's command-buffer space (driver.kernel_reserved_bytes, here 4 MiB): the 1B decode step
// needs more than 2 MiB of descriptors, so it takes several jobs instead of one refused submit.
TEST(LlmExtension, LongNpuRunsAreCutToFitTheDriversCommandSpace) {
  auto m = models::zoo_model("decoder_1b_decode@64");
  ASSERT_TRUE(m.ok()) << m.error();
  run_on_phone(
      [&](system::System& s) {
        auto p = s.npu_device().prepare_model(*m);
        ASSERT_TRUE(p.status.ok()) << p.status.message;
        auto r = p.model->execute_synchronously(models::random_inputs(*m, 1, 100), true);
        ASSERT_TRUE(r.status.ok()) << r.status.message;
        EXPECT_GT(r.jobs, 1u);
        EXPECT_EQ(r.stages, 1139u);  // every operation, each a stage of some job
      },
      {"driver.kernel_reserved_bytes=4194304"});
}

}  // namespace
}  // namespace npu::hal::test
