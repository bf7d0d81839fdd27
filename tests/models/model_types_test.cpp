// Enum names, element sizes and counts, scalar reads and fp16 conversion of the model types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::models {
namespace {

TEST(ModelTypes, OperandTypeNamesRoundTrip) {
  for (int32_t code = 0; code <= 15; ++code) {
    const auto t = static_cast<OperandType>(code);
    ASSERT_TRUE(is_valid(t)) << code;
    EXPECT_EQ(operand_type_from_string(to_string(t)), t) << code;
  }
  EXPECT_EQ(to_string(OperandType::TENSOR_QUANT8_ASYMM_SIGNED), "TENSOR_QUANT8_ASYMM_SIGNED");
  EXPECT_FALSE(is_valid(static_cast<OperandType>(16)));
  EXPECT_FALSE(is_valid(static_cast<OperandType>(-1)));
  EXPECT_EQ(operand_type_from_string("TENSOR_FLOAT"), std::nullopt);
}

TEST(ModelTypes, OperationTypeNamesMatchCodes) {
  for (int32_t code = 0; code <= 101; ++code) {
    const auto t = static_cast<OperationType>(code);
    ASSERT_TRUE(is_valid(t)) << code;
    EXPECT_EQ(operation_type_from_string(to_string(t)), t) << code;
  }
  // Spot checks against the NNAPI code table.
  EXPECT_EQ(to_string(static_cast<OperationType>(3)), "CONV_2D");
  EXPECT_EQ(to_string(static_cast<OperationType>(9)), "FULLY_CONNECTED");
  EXPECT_EQ(to_string(static_cast<OperationType>(94)), "RESIZE_NEAREST_NEIGHBOR");
  EXPECT_EQ(to_string(static_cast<OperationType>(97)), "WHILE");
  EXPECT_EQ(to_string(static_cast<OperationType>(101)), "RANK");
  EXPECT_FALSE(is_valid(static_cast<OperationType>(102)));
}

TEST(ModelTypes, LifetimeNamesRoundTrip) {
  for (int code = 0; code <= 6; ++code) {
    const auto l = static_cast<Lifetime>(code);
    EXPECT_EQ(lifetime_from_string(to_string(l)), l);
  }
  EXPECT_EQ(lifetime_from_string("CONSTANT"), std::nullopt);
  EXPECT_FALSE(is_valid(static_cast<Lifetime>(7)));
}

TEST(ModelTypes, ElementSizesAndTensorness) {
  EXPECT_EQ(element_size(OperandType::TENSOR_FLOAT32), 4u);
  EXPECT_EQ(element_size(OperandType::TENSOR_FLOAT16), 2u);
  EXPECT_EQ(element_size(OperandType::TENSOR_QUANT8_ASYMM), 1u);
  EXPECT_EQ(element_size(OperandType::TENSOR_QUANT16_ASYMM), 2u);
  EXPECT_EQ(element_size(OperandType::BOOL), 1u);
  EXPECT_EQ(element_size(OperandType::SUBGRAPH), 0u);
  EXPECT_TRUE(is_tensor(OperandType::TENSOR_BOOL8));
  EXPECT_FALSE(is_tensor(OperandType::INT32));
  EXPECT_FALSE(is_tensor(OperandType::SUBGRAPH));
}

TEST(ModelTypes, ElementCountAndSpecification) {
  Operand op;
  op.type = OperandType::TENSOR_FLOAT32;
  op.dimensions = {1, 3, 3, 2};
  EXPECT_EQ(op.element_count(), 18u);
  EXPECT_EQ(op.byte_size(), 72u);
  EXPECT_TRUE(op.fully_specified());
  op.dimensions = {1, 0, 3, 2};  // unknown height
  EXPECT_EQ(op.element_count(), 0u);
  EXPECT_FALSE(op.fully_specified());
  op.dimensions = {};  // unknown rank
  EXPECT_EQ(op.element_count(), 0u);
  EXPECT_FALSE(op.fully_specified());
  op.dimensions = {0xffffffffu, 0xffffffffu, 0xffffffffu};  // overflows 64 bits: saturates
  EXPECT_EQ(op.element_count(), std::numeric_limits<uint64_t>::max());
  Operand scalar;
  scalar.type = OperandType::INT32;
  EXPECT_EQ(scalar.element_count(), 1u);
  EXPECT_TRUE(scalar.fully_specified());
  EXPECT_EQ(dims_to_string({1, 224, 224, 3}), "[1,224,224,3]");
  EXPECT_EQ(dims_to_string({}), "[]");
}

TEST(ModelTypes, ScalarReadsAreLittleEndianAndSafeOnShortData) {
  Operand op;
  op.type = OperandType::INT32;
  op.data = {0x01, 0x02, 0x00, 0x80};
  EXPECT_EQ(scalar_i32(op), static_cast<int32_t>(0x80000201u));
  float f = 2.5f;
  op.data.resize(4);
  std::memcpy(op.data.data(), &f, 4);
  EXPECT_EQ(scalar_f32(op), 2.5f);
  op.data = {1};
  EXPECT_TRUE(scalar_bool(op));
  EXPECT_EQ(scalar_i32(op), 0);  // too short: 0, never a read past the end
}

TEST(ModelTypes, HalfConversion) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);               // rounds past the largest half: inf
  EXPECT_EQ(float_to_half(5.9604645e-8f), 0x0001);          // smallest subnormal 2^-24
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048.0f), 0x3c00);  // exact tie rounds to even
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048.0f), 0x3c02);  // tie rounds to even (up)
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  // Every finite half converts to float and back unchanged.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;
    ASSERT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << h;
  }
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
}

TEST(ModelTypes, ElementReadWriteSaturates) {
  std::vector<uint8_t> bytes(4);
  write_element(OperandType::TENSOR_QUANT8_ASYMM, bytes, 0, 300.0);
  write_element(OperandType::TENSOR_QUANT8_ASYMM, bytes, 1, -3.0);
  write_element(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, bytes, 2, -128.0);
  write_element(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, bytes, 3, 2.5);  // nearest-even: 2
  EXPECT_EQ(read_element(OperandType::TENSOR_QUANT8_ASYMM, bytes, 0), 255.0);
  EXPECT_EQ(read_element(OperandType::TENSOR_QUANT8_ASYMM, bytes, 1), 0.0);
  EXPECT_EQ(read_element(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, bytes, 2), -128.0);
  EXPECT_EQ(read_element(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, bytes, 3), 2.0);
}

}  // namespace
}  // namespace npu::models
