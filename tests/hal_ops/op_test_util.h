// Shared helpers for the per-operation test files: run a model on the CPU reference and compare.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {

inline constexpr auto F32 = OperandType::TENSOR_FLOAT32;
inline constexpr auto F16 = OperandType::TENSOR_FLOAT16;
inline constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
inline constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
inline constexpr auto I32 = OperandType::TENSOR_INT32;

inline std::map<uint32_t, Tensor> run_ok(const Model& m, const std::map<uint32_t, Tensor>& inputs) {
  auto r = run_reference(m, inputs);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(r.value()) : std::map<uint32_t, Tensor>{};
}

// Runs a one-input model and returns its first output.
inline Tensor run_single(const Model& m, const Tensor& input) {
  auto r = run_ok(m, {{m.main.input_indexes[0], input}});
  return r.empty() ? Tensor{} : r.begin()->second;
}

inline void expect_floats_near(const std::vector<float>& expected, const Tensor& t) {
  const std::vector<float> got = floats_of(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(fp32_close(expected[i], got[i]))
        << "element " << i << ": expected " << expected[i] << ", got " << got[i];
}

// Quantised comparison within `tolerance` (0 = exact).
inline void expect_ints(const std::vector<int32_t>& expected, const Tensor& t, int tolerance = 0) {
  const std::vector<int32_t> got = ints_of(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_LE(std::abs(expected[i] - got[i]), tolerance)
        << "element " << i << ": expected " << expected[i] << ", got " << got[i];
}

// The validation error of a model (empty when it validates).
inline std::string validation_error(const Model& m) {
  auto v = validate_operations(m);
  return v.ok() ? std::string() : v.error();
}

}  // namespace npu::hal::ops::test
