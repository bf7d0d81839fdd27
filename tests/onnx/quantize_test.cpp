// Post-training quantisation on a seeded float network built here: parameter choices (per-channel
// filters, int32 biases at input·filter scale, shared parameters through pooling) and the accuracy of
// the int8 model on the CPU reference against the float model.
#include "npu/models/quantize.h"

#include <gtest/gtest.h>

#include "npu/hal/ops/reference_executor.h"
#include "npu/models/builder.h"
#include "npu/models/validate.h"

namespace {

using namespace npu::models;

Model small_net() {
  ModelBuilder b(7);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 12, 12, 3});
  uint32_t h = b.conv_2d(x, 8, 3, 3, 1, 1, npu::fx::FusedActivation::RELU);
  const uint32_t pooled = b.tensor(OperandType::TENSOR_FLOAT32, {1, 6, 6, 8});
  b.operation(OperationType::MAX_POOL_2D,
              {h, b.constant_i32(2), b.constant_i32(2), b.constant_i32(2), b.constant_i32(2),
               b.constant_i32(2), b.constant_i32(0)},
              {pooled});
  h = b.conv_2d(pooled, 16, 3, 3, 1, 2, npu::fx::FusedActivation::NONE);
  b.mark_output(b.fully_connected(h, 10, npu::fx::FusedActivation::NONE));
  return b.take();
}

// Float model on the CPU reference against the int8 one (inputs quantised with its graph inputs' parameters).
QuantError int8_vs_float(const Model& f, const Model& q, const TensorMap& eval) {
  TensorMap eval_q;
  for (const auto& [i, t] : eval) eval_q[i] = quantize_tensor(t, q.main.operands[i]);
  auto ref = npu::hal::ops::run_reference(f, eval);
  EXPECT_TRUE(ref.ok()) << ref.error();
  auto got = npu::hal::ops::run_reference(q, eval_q);
  EXPECT_TRUE(got.ok()) << got.error();
  if (!ref.ok() || !got.ok()) return {};
  auto err = compare_quantized(*ref, *got);
  EXPECT_TRUE(err.ok()) << err.error();
  return err.ok() ? *err : QuantError{};
}

TEST(Quantize, ChoosesNnapiParametersAndKeepsAccuracy) {
  const Model f = small_net();
  ASSERT_TRUE(validate_model(f).ok());
  const auto calib = synthetic_inputs(f, 4, 1, -1.0f, 1.0f);
  auto ranges = calibrate(f, calib, npu::hal::ops::run_reference);
  ASSERT_TRUE(ranges.ok()) << ranges.error();
  auto q = quantize_model(f, *ranges);
  ASSERT_TRUE(q.ok()) << q.error();
  ASSERT_TRUE(validate_model(*q).ok());
  auto ops = npu::hal::ops::validate_operations(*q);
  ASSERT_TRUE(ops.ok()) << ops.error();
  const auto& g = q->main;
  for (const auto& op : g.operations) {
    const Operand& in = g.operands[op.inputs[0]];
    EXPECT_EQ(in.type, OperandType::TENSOR_QUANT8_ASYMM);
    if (op.type == OperationType::CONV_2D) {
      const Operand& w = g.operands[op.inputs[1]];
      ASSERT_EQ(w.type, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
      EXPECT_EQ(w.per_channel->scales.size(), w.dimensions[0]);
      EXPECT_EQ(g.operands[op.inputs[2]].type, OperandType::TENSOR_INT32);
    }
    if (op.type == OperationType::FULLY_CONNECTED) {
      const Operand& w = g.operands[op.inputs[1]];
      EXPECT_EQ(w.type, OperandType::TENSOR_QUANT8_ASYMM);  // NNAPI FC has no per-channel form
      EXPECT_FLOAT_EQ(g.operands[op.inputs[2]].scale, in.scale * w.scale);
    }
    if (op.type == OperationType::MAX_POOL_2D) {
      EXPECT_EQ(in.scale, g.operands[op.outputs[0]].scale);
      EXPECT_EQ(in.zero_point, g.operands[op.outputs[0]].zero_point);
    }
  }
  // Accuracy on an input not used for calibration.
  const auto err = int8_vs_float(f, *q, synthetic_inputs(f, 1, 99, -1.0f, 1.0f)[0]);
  ASSERT_GT(err.elements, 0u);
  std::printf("int8 vs float: max |error| %.4g, MSE %.4g, cosine %.5f over %llu elements\n", err.max_abs,
              err.mse, err.cosine, static_cast<unsigned long long>(err.elements));
  EXPECT_GT(err.cosine, 0.99);
}

// Quantising an int8 model again used to succeed and requantise its values (cosine 0.78 on MobileNet v2).
TEST(Quantize, RefusesAnAlreadyQuantisedModel) {
  const Model f = small_net();
  auto ranges = calibrate(f, synthetic_inputs(f, 2, 1, -1.0f, 1.0f), npu::hal::ops::run_reference);
  ASSERT_TRUE(ranges.ok()) << ranges.error();
  auto q = quantize_model(f, *ranges);
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_TRUE(check_quantizable(f).ok());
  auto again = quantize_model(*q, *ranges);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(),
            "the model is already quantised: no TENSOR_FLOAT32 operand to quantise (graph inputs: "
            "TENSOR_QUANT8_ASYMM)");
}

TEST(Quantize, OperationWithoutQuant8FormIsAnError) {
  ModelBuilder b(1);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t y = b.input(OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t z = b.tensor(OperandType::TENSOR_FLOAT32, {1, 4});
  b.operation(OperationType::DIV, {x, y, b.constant_i32(0)}, {z});
  b.mark_output(z);
  const Model f = b.take();
  RangeMap r = {{0, {-1, 1}}, {1, {-1, 1}}, {2, {-1, 1}}};
  auto q = quantize_model(f, r);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(), "operations[0] (DIV) has no quant8 form in NNAPI");
}

// float_fallback: DIV (no quant8 form) stays float between DEQUANTIZE and QUANTIZE; the MUL before it and
// the ADD after it run in int8. z = (x · 2) / y + 1 with y in [1, 2] so the quotient stays bounded.
TEST(Quantize, FloatFallbackKeepsFloatIslands) {
  ModelBuilder b(1);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 8});
  const uint32_t y = b.input(OperandType::TENSOR_FLOAT32, {1, 8});
  const uint32_t m = b.tensor(OperandType::TENSOR_FLOAT32, {1, 8});
  const uint32_t d = b.tensor(OperandType::TENSOR_FLOAT32, {1, 8});
  const uint32_t z = b.tensor(OperandType::TENSOR_FLOAT32, {1, 8});
  b.operation(OperationType::MUL,
              {x, b.random_constant(OperandType::TENSOR_FLOAT32, {1}, {}, 2.0, 2.0), b.constant_i32(0)}, {m});
  b.operation(OperationType::DIV, {m, y, b.constant_i32(0)}, {d});
  b.operation(OperationType::ADD,
              {d, b.random_constant(OperandType::TENSOR_FLOAT32, {1}, {}, 1.0, 1.0), b.constant_i32(0)}, {z});
  b.mark_output(z);
  const Model f = b.take();
  std::vector<TensorMap> calib = synthetic_inputs(f, 4, 3, 1.0f, 2.0f);
  auto ranges = calibrate(f, calib, npu::hal::ops::run_reference);
  ASSERT_TRUE(ranges.ok()) << ranges.error();
  QuantizeOptions opt;
  opt.float_fallback = true;
  auto q = quantize_model(f, *ranges, opt);
  ASSERT_TRUE(q.ok()) << q.error();
  auto ops = npu::hal::ops::validate_operations(*q);
  ASSERT_TRUE(ops.ok()) << ops.error();
  std::vector<OperationType> types;
  for (const auto& op : q->main.operations) types.push_back(op.type);
  EXPECT_EQ(types, (std::vector<OperationType>{OperationType::MUL, OperationType::DEQUANTIZE,
                                               OperationType::DEQUANTIZE, OperationType::DIV,
                                               OperationType::QUANTIZE, OperationType::ADD}));
  const auto& div = q->main.operations[3];
  for (uint32_t i : {div.inputs[0], div.inputs[1], div.outputs[0]})
    EXPECT_EQ(q->main.operands[i].type, OperandType::TENSOR_FLOAT32);
  EXPECT_EQ(q->main.operands[z].type, OperandType::TENSOR_QUANT8_ASYMM);
  const auto err = int8_vs_float(f, *q, synthetic_inputs(f, 1, 9, 1.0f, 2.0f)[0]);
  ASSERT_EQ(err.elements, 8u);
  // z lies in [2, 5]: three uint8 quantisations of ranges ≤ 5 wide each add at most half a step (≤ 0.01).
  EXPECT_LT(err.max_abs, 0.05);
}

}  // namespace
