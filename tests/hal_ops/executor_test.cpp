// The reference executor: multi-operation graphs, input checking, support queries and error paths.
#include <gtest/gtest.h>

#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

// An operation code no kernel claims (not an NNAPI operation: NN HAL 1.3's are all in the registry).
constexpr auto kNoKernel = static_cast<OperationType>(1000);

TEST(ReferenceExecutor, RegistryListsTheKernels) {
  EXPECT_NE(find_kernel(OperationType::CONV_2D), nullptr);
  EXPECT_NE(find_kernel(OperationType::FULLY_CONNECTED), nullptr);
  EXPECT_NE(find_kernel(OperationType::LSTM), nullptr);
  EXPECT_NE(find_kernel(OperationType::ABS), nullptr);
  EXPECT_NE(find_kernel(OperationType::SIN), nullptr);
  EXPECT_EQ(find_kernel(kNoKernel), nullptr);
  const auto ops = registered_operations();
  EXPECT_FALSE(ops.empty());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

// Float CONV_2D (NCHW, pad 1, stride 2, RELU) feeding FULLY_CONNECTED (RELU6). With an input of all
// ones, every conv output is a sum over in-bounds taps; checked here against a hand computation of
// two positions and the final clamp.
TEST(ReferenceExecutor, RunsAConvIntoFullyConnectedGraph) {
  const Model m = small_float_model();
  auto r = run_reference(m, {{0, float_tensor({1, 1, 5, 5}, std::vector<float>(25, 1.0f))}});
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->size(), 1u);
  const Tensor& out = r->begin()->second;
  EXPECT_EQ(out.dimensions, (std::vector<uint32_t>{1, 1}));
  // Output 3x3 per channel; output row oy reads input rows 2*oy-1 .. 2*oy+1, so filter row 0 falls in
  // the padding at oy=0 and row 2 at oy=2 (same for columns). On an all-ones input each conv output is
  // the sum of the in-bounds filter taps.
  // Channel 0, filter [1 0 -1; 2 0 -2; 1 0 -1], bias 0.5: the middle column is 0 and the outer columns
  // cancel unless one is in the padding: ox=0 loses the left (+) column -> -(in-bounds of [1,2,1]),
  // ox=2 loses the right (-) column -> +(same). In-bounds [1,2,1] sums per row: oy=0: 3, oy=1: 4, oy=2: 3.
  //   [-3 0 3; -4 0 4; -3 0 3] + 0.5, RELU -> [0 .5 3.5; 0 .5 4.5; 0 .5 3.5], sum 13.
  // Channel 1, filter [.5 .5 .5; 0 0 0; -1 -1 -1], bias -0.25, n = in-bounds columns (2, 3, 2):
  //   oy=0 (top row in padding): -n - .25 < 0 -> 0;  oy=1: -0.5n - .25 < 0 -> 0;
  //   oy=2 (bottom row in padding): 0.5n - .25 = [.75, 1.25, .75], sum 2.75.
  // FULLY_CONNECTED: (13 + 2.75) * 0.125 + 1 = 2.96875, inside RELU6.
  ASSERT_EQ(floats_of(out).size(), 1u);
  EXPECT_TRUE(fp32_close(2.96875f, floats_of(out)[0])) << floats_of(out)[0];
}

TEST(ReferenceExecutor, QuantGraphIsDeterministic) {
  const Model m = small_quant_model();
  const auto inputs = inputs_for(m, 7);
  auto a = run_reference(m, inputs);
  auto b = run_reference(m, inputs);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->begin()->second.data, b->begin()->second.data);
  EXPECT_EQ(a->begin()->second.dimensions, (std::vector<uint32_t>{1, 2}));
}

TEST(ReferenceExecutor, InputErrors) {
  const Model m = small_float_model();
  auto r = run_reference(m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "graph input operand 0: no value given");
  r = run_reference(
      m, {{0, float_tensor({1, 1, 5, 5}, std::vector<float>(25, 1.0f))}, {3, float_tensor({1}, {1.0f})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "input for operand 3, which is not a graph input");
  r = run_reference(m, {{0, float_tensor({1, 1, 5, 4}, std::vector<float>(20, 1.0f))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "graph input operand 0: value dimensions [1,1,5,4] do not fully specify the operand's [1,1,5,5]");
  Tensor t = float_tensor({1, 1, 5, 5}, std::vector<float>(25, 1.0f));
  t.data.pop_back();
  r = run_reference(m, {{0, t}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "graph input operand 0: value has 99 bytes, expected 100");
  t = int_tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 1, 5, 5}, std::vector<int32_t>(25, 1), 0.5f, 0);
  r = run_reference(m, {{0, t}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "graph input operand 0: value has type TENSOR_QUANT8_ASYMM, operand is TENSOR_FLOAT32");
}

TEST(ReferenceExecutor, UnsupportedOperationsAreReported) {
  Model m = small_float_model();
  // Append an operation with no kernel: validation names it; the support query flags it alone.
  models::Operand extra;
  extra.type = OperandType::TENSOR_FLOAT32;
  extra.dimensions = {1, 1};
  extra.lifetime = Lifetime::SUBGRAPH_OUTPUT;
  m.main.operands.push_back(extra);
  const uint32_t prev_out = m.main.output_indexes[0];
  m.main.operations.push_back({kNoKernel, {prev_out}, {static_cast<uint32_t>(m.main.operands.size() - 1)}});
  m.main.output_indexes.push_back(static_cast<uint32_t>(m.main.operands.size() - 1));
  auto v = validate_operations(m);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), "operations[2] (" + std::string(models::to_string(kNoKernel)) +
                           "): no kernel in the operation library (cannot validate or run)");
  EXPECT_EQ(cpu_supported_operations(m), (std::vector<bool>{true, true, false}));
  auto r = run_reference(m, {{0, float_tensor({1, 1, 5, 5}, std::vector<float>(25, 1.0f))}});
  ASSERT_FALSE(r.ok());
  // Running checks the model's structure first, where a code outside NNAPI is already an error.
  EXPECT_EQ(r.error(), "operations[2]: invalid operation type code 1000");
}

TEST(ReferenceExecutor, StructuralErrorsComeFirst) {
  Model m = small_float_model();
  m.main.operations[1].inputs[0] = 99;
  auto r = run_reference(m, {{0, float_tensor({1, 1, 5, 5}, std::vector<float>(25, 1.0f))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "operations[1].inputs[0]: operand 99 out of range (model has 18 operands)");
  EXPECT_FALSE(is_supported_by_cpu(m.main, m.main.operations[1]));
}

// Non-constant parameters are allowed by NNAPI: validation defers the value checks, execution does them.
TEST(ReferenceExecutor, RuntimeParametersAreCheckedAtExecution) {
  GraphBuilder g;
  const uint32_t in = g.input(OperandType::TENSOR_FLOAT32, {1, 2});
  const uint32_t act = g.input(OperandType::INT32, {});
  const uint32_t w = g.floats({1, 2}, {1, 1});
  const uint32_t b = g.floats({1}, {0});
  const uint32_t out = g.output(OperandType::TENSOR_FLOAT32, {1, 1});
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, act}, {out});
  const Model m = g.build();
  EXPECT_TRUE(validate_operations(m).ok());
  auto ok =
      run_reference(m, {{in, float_tensor({1, 2}, {-3, 1})}, {act, int_tensor(OperandType::INT32, {}, {1})}});
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(floats_of(ok->at(out)), (std::vector<float>{0}));  // RELU(-2)
  auto bad =
      run_reference(m, {{in, float_tensor({1, 2}, {-3, 1})}, {act, int_tensor(OperandType::INT32, {}, {9})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "operations[0] (FULLY_CONNECTED): input 3 (fused activation): expected a value in [0, 3], got 9");
}

}  // namespace
}  // namespace npu::hal::ops::test
