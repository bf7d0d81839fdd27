// `npusim run --check`'s oracle (tools::compare_outputs and the CPU reference run_model makes): NaN and
// infinities are compared as values, not through |e − a| (NaN > tol is false), and a relaxed model
// (relaxComputationFloat32toFloat16) is checked as NNAPI's CTS checks it, against float32 results with
// the relaxed tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../hal_ops/test_models.h"
#include "../support/run_npusim.h"
#include "npu/models/model_json.h"
#include "npu/tools/run_model.h"

namespace {

using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

npu::hal::TensorMap floats(const std::vector<float>& v, OperandType type = OperandType::TENSOR_FLOAT32) {
  Tensor t;
  t.type = type;
  t.dimensions = {static_cast<uint32_t>(v.size())};
  if (type == OperandType::TENSOR_FLOAT16) {
    for (float f : v) {
      const uint16_t h = npu::models::float_to_half(f);
      t.data.push_back(static_cast<uint8_t>(h & 0xff));
      t.data.push_back(static_cast<uint8_t>(h >> 8));
    }
  } else {
    t.data.resize(v.size() * 4);
    std::memcpy(t.data.data(), v.data(), t.data.size());
  }
  return {{3, t}};
}

npu::tools::OutputComparison compare(const std::vector<float>& device, const std::vector<float>& reference,
                                     bool relaxed = false) {
  return npu::tools::compare_outputs(floats(device), floats(reference), relaxed);
}

TEST(CheckOracle, NanAgainstANumberIsAMismatch) {
  // The case: the reference [NaN, 0, NaN, 0], the device all zeros.
  const auto c = compare({0, 0, 0, 0}, {kNaN, 0, kNaN, 0});
  EXPECT_EQ(c.elements, 4u);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_TRUE(std::isinf(c.max_abs_error)) << c.max_abs_error;
  EXPECT_EQ(c.first_mismatch, "output operand 3 element 0: 0 on the device, nan by the CPU reference");
  // And the other way round: a NaN on the device where the reference has a number.
  EXPECT_EQ(compare({kNaN, 1}, {0, 1}).mismatches, 1u);
  EXPECT_EQ(compare({kNaN, 1}, {0, 1}, true).mismatches, 1u);
}

TEST(CheckOracle, NanAgainstNanAndEqualInfinitiesMatch) {
  const auto c = compare({kNaN, kInf, -kInf, 1}, {kNaN, kInf, -kInf, 1});
  EXPECT_EQ(c.mismatches, 0u) << c.first_mismatch;
  EXPECT_EQ(c.max_abs_error, 0.0);
}

TEST(CheckOracle, AnInfinityMatchesOnlyTheSameInfinity) {
  // |inf − 1| = inf is not above the tolerance 1e-5 + 5 ulp · inf = inf: a finite value would pass.
  EXPECT_EQ(compare({1}, {kInf}).mismatches, 1u);
  EXPECT_EQ(compare({kInf}, {1}).mismatches, 1u);
  EXPECT_EQ(compare({-kInf}, {kInf}).mismatches, 1u);
  EXPECT_EQ(compare({kNaN}, {kInf}).mismatches, 1u);
  EXPECT_EQ(compare({1e30f}, {kInf}, true).mismatches, 1u);
}

TEST(CheckOracle, RelaxedModelsUseNnapisRelaxedTolerance) {
  // 5 ulp of fp16 absolute and relative: at 1.9, 0.0049 + 0.0049 · 1.9 = 0.0142.
  EXPECT_EQ(compare({1.9005f}, {1.9f}).mismatches, 1u);  // float32: 1e-5 + 5 ulp(fp32)
  EXPECT_EQ(compare({1.9005f}, {1.9f}, true).mismatches, 0u);
  EXPECT_EQ(compare({1.913f}, {1.9f}, true).mismatches, 0u);
  EXPECT_EQ(compare({1.915f}, {1.9f}, true).mismatches, 1u);
  // Float16 outputs take the fp16 tolerance whatever the flag (CTS).
  const auto h = npu::tools::compare_outputs(floats({1.9f}, OperandType::TENSOR_FLOAT16),
                                             floats({1.9013f}, OperandType::TENSOR_FLOAT16));
  EXPECT_EQ(h.mismatches, 0u) << h.first_mismatch;
}

// out = (x + 2000) + (−2000): in float32 x again (1.9000244 for 1.9); with every value rounded to fp16 (the
// CPU device's relaxed arithmetic) x + 2000 lands on a whole number, so 1.9 comes back as 2. Both are
// within NNAPI's relaxed contract; before the fix --check compared the NPU's float32 result with the CPU's
// fp16 one under the float32 tolerance and reported a mismatch.
TEST(CheckOracle, RelaxedModelIsCheckedAgainstFloat32Results) {
  npu::hal::ops::test::GraphBuilder g;
  const uint32_t x = g.input(OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t t = g.temp(OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t out = g.output(OperandType::TENSOR_FLOAT32, {1, 4});
  g.op(OperationType::ADD, {x, g.floats({4}, {2000, 2000, 2000, 2000}), g.i32(0)}, {t});
  g.op(OperationType::ADD, {t, g.floats({4}, {-2000, -2000, -2000, -2000}), g.i32(0)}, {out});
  npu::models::Model m = g.build();
  m.relax_computation_float32_to_float16 = true;
  ASSERT_TRUE(npu::models::save_model_json(m, "relaxed.model.json"));
  {
    std::FILE* f = std::fopen("relaxed.inputs.json", "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "{\"%u\": [1.9, 0.3, -3.7, 7.77]}\n", x);
    std::fclose(f);
  }
  const auto r = npu::test::npusim("run --hw " NPUSIM_SOURCE_DIR
                                   "/configs/npu/default.json --model relaxed.model.json --inputs "
                                   "relaxed.inputs.json --outputs relaxed.outputs.json --check");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 of 4 elements within tolerance"), std::string::npos) << r.output;
  // The relaxed CPU device itself is what drifted: 2 where float32 gives 1.9000244, outside the relaxed
  // tolerance.
  const auto cpu = npu::test::npusim("run --device cpu --hw " NPUSIM_SOURCE_DIR
                                     "/configs/npu/default.json --model relaxed.model.json --inputs "
                                     "relaxed.inputs.json --outputs cpu.outputs.json --check");
  EXPECT_EQ(cpu.status, 3) << cpu.output;
  EXPECT_NE(cpu.output.find("first mismatch  output operand " + std::to_string(out) +
                            " element 0: 2 on the device, 1.9000244140625 by the CPU reference"),
            std::string::npos)
      << cpu.output;
}

}  // namespace
