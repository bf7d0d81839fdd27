// Relaxed fp32→fp16 on the CPU reference (reference_executor.cpp, round_to_half): a relaxed model's float
// operations read and write binary16 values, so precision and range are fp16's. Hand-checked vectors:
// fp16 has 11 significant bits, so in [1, 2) its step is 2^-10, in [2048, 4096) it is 2, in [0.25, 0.5)
// 2^-12, and it overflows past 65504 (values ≥ 65520 round to infinity).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto F32 = OperandType::TENSOR_FLOAT32;

std::vector<float> run_add(bool relaxed, const std::vector<float>& a, const std::vector<float>& b) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  GraphBuilder g;
  const uint32_t x = g.input(F32, {n});
  const uint32_t y = g.input(F32, {n});
  const uint32_t out = g.output(F32, {n});
  g.op(OperationType::ADD, {x, y, g.i32(0)}, {out});
  Model m = g.build();
  m.relax_computation_float32_to_float16 = relaxed;
  auto r = run_reference(m, {{x, float_tensor({n}, a)}, {y, float_tensor({n}, b)}});
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? floats_of(r->at(out)) : std::vector<float>{};
}

// 1 + 2^-12: a quarter step, rounds to 1. 2048 + 1: a tie between 2048 and 2050, to even 2048.
// 0.1 + 0.2: the inputs round first (0.0999755859375, 0.199951171875), their sum 0.2999267578125 is a
// tie between 0.2998046875 and 0.30004882812, to even 0.2998046875. 1 + 3·2^-12: 0.75 of a step, up
// to 1 + 2^-10. 60000 + 10000: out of fp16 range, +inf. Float32 keeps all of them.
TEST(Relaxed, AddRoundsInputsAndResultToFp16) {
  const std::vector<float> a = {1.0f, 2048.0f, 0.1f, 1.0f, 60000.0f};
  const std::vector<float> b = {0x1p-12f, 1.0f, 0.2f, 3 * 0x1p-12f, 10000.0f};
  const std::vector<float> relaxed = run_add(true, a, b);
  const std::vector<float> want = {1.0f, 2048.0f, 0.2998046875f, 1.0009765625f,
                                   std::numeric_limits<float>::infinity()};
  ASSERT_EQ(relaxed.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(relaxed[i], want[i]) << i;
  const std::vector<float> exact = run_add(false, a, b);
  ASSERT_EQ(exact.size(), want.size());
  EXPECT_EQ(exact[0], 1.000244140625f);
  EXPECT_EQ(exact[1], 2049.0f);
  EXPECT_EQ(exact[2], 0.1f + 0.2f);
  EXPECT_EQ(exact[3], 1.000732421875f);
  EXPECT_EQ(exact[4], 70000.0f);
}

// Quantised operations are not relaxed: a quant8 SOFTMAX with beta 6.1975 (binary16 would make it
// 6.19921875) gives the same bytes in a relaxed model. The inputs are chosen so that rounding beta would
// show: with 6.19921875 given outright the bytes differ.
TEST(Relaxed, QuantisedOperationsAreUnchanged) {
  auto run = [](bool relaxed, float beta_value) {
    GraphBuilder g;
    const uint32_t x = g.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 0.05f, 128);
    const uint32_t out = g.output(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 1.0f / 256, 0);
    g.op(OperationType::SOFTMAX, {x, g.floats({}, {beta_value}, OperandType::FLOAT32)}, {out});
    Model m = g.build();
    m.relax_computation_float32_to_float16 = relaxed;
    auto r = run_reference(
        m, {{x, int_tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, {250, 251, 253, 255}, 0.05f, 128)}});
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? r->at(out).data : std::vector<uint8_t>{};
  };
  const auto relaxed = run(true, 6.1975f);
  ASSERT_EQ(relaxed.size(), 4u);
  EXPECT_EQ(relaxed, run(false, 6.1975f));
  EXPECT_NE(relaxed, run(false, 6.19921875f));
}

}  // namespace
}  // namespace npu::hal::ops::test
