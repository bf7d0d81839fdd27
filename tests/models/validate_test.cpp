// validate_model: one failing case per structural rule, each naming the offending index.
#include "npu/models/validate.h"

#include <gtest/gtest.h>

#include <cstring>

namespace npu::models {
namespace {

Operand tensor(OperandType t, std::vector<uint32_t> dims, Lifetime l) {
  Operand o;
  o.type = t;
  o.dimensions = std::move(dims);
  o.lifetime = l;
  return o;
}

Operand int_const(int32_t v) {
  Operand o;
  o.type = OperandType::INT32;
  o.lifetime = Lifetime::CONSTANT_COPY;
  o.data.resize(4);
  std::memcpy(o.data.data(), &v, 4);
  return o;
}

Operand float_const(std::vector<uint32_t> dims, float v) {
  Operand o = tensor(OperandType::TENSOR_FLOAT32, std::move(dims), Lifetime::CONSTANT_COPY);
  o.data.resize(o.byte_size());
  for (size_t i = 0; i < o.data.size(); i += 4) std::memcpy(o.data.data() + i, &v, 4);
  return o;
}

// input(0) -> CONV_2D -> t(6) -> CONV_2D -> output(7); 1x1 filters so shapes are trivial.
Model two_convs() {
  Model m;
  auto& g = m.main;
  g.operands = {
      tensor(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1}, Lifetime::SUBGRAPH_INPUT),      // 0
      float_const({1, 1, 1, 1}, 2.0f),                                                  // 1 filter
      float_const({1}, 0.0f),                                                           // 2 bias
      int_const(2),                                                                     // 3 VALID
      int_const(1),                                                                     // 4 stride
      int_const(0),                                                                     // 5 activation
      tensor(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1}, Lifetime::TEMPORARY_VARIABLE),  // 6
      tensor(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1}, Lifetime::SUBGRAPH_OUTPUT),     // 7
  };
  g.operations = {
      {OperationType::CONV_2D, {0, 1, 2, 3, 4, 4, 5}, {6}},
      {OperationType::CONV_2D, {6, 1, 2, 3, 4, 4, 5}, {7}},
  };
  g.input_indexes = {0};
  g.output_indexes = {7};
  return m;
}

std::string error_of(const Model& m) {
  auto r = validate_model(m);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string("<valid>") : r.error();
}

TEST(ValidateModel, AcceptsAValidModel) {
  auto r = validate_model(two_convs());
  EXPECT_TRUE(r.ok()) << r.error();
}

TEST(ValidateModel, OperationIndicesInRange) {
  Model m = two_convs();
  m.main.operations[1].inputs[1] = 17;
  EXPECT_EQ(error_of(m), "operations[1].inputs[1]: operand 17 out of range (model has 8 operands)");
  m = two_convs();
  m.main.operations[0].outputs[0] = 8;
  EXPECT_EQ(error_of(m), "operations[0].outputs[0]: operand 8 out of range (model has 8 operands)");
}

TEST(ValidateModel, GraphInputsAndOutputsAgreeWithLifetimes) {
  Model m = two_convs();
  m.main.input_indexes = {9};
  EXPECT_EQ(error_of(m), "inputIndexes[0]: operand 9 out of range (model has 8 operands)");
  m = two_convs();
  m.main.input_indexes = {0, 1};
  EXPECT_EQ(error_of(m), "inputIndexes[1]: operand 1 has lifetime CONSTANT_COPY, expected SUBGRAPH_INPUT");
  m = two_convs();
  m.main.input_indexes = {0, 0};
  EXPECT_EQ(error_of(m), "inputIndexes[1]: operand 0 listed twice");
  m = two_convs();
  m.main.input_indexes = {};
  EXPECT_EQ(error_of(m), "operands[0]: lifetime SUBGRAPH_INPUT but not listed in inputIndexes");
  m = two_convs();
  m.main.output_indexes = {6};
  EXPECT_EQ(error_of(m),
            "outputIndexes[0]: operand 6 has lifetime TEMPORARY_VARIABLE, expected SUBGRAPH_OUTPUT");
  m = two_convs();
  m.main.operands.push_back(tensor(OperandType::TENSOR_FLOAT32, {1}, Lifetime::SUBGRAPH_OUTPUT));
  EXPECT_EQ(error_of(m), "operands[8]: lifetime SUBGRAPH_OUTPUT but not listed in outputIndexes");
}

TEST(ValidateModel, ConstantDataSizes) {
  Model m = two_convs();
  m.main.operands[1].data.pop_back();
  EXPECT_EQ(error_of(m), "operands[1]: constant data has 3 bytes, expected 4 (TENSOR_FLOAT32 [1,1,1,1])");
  m = two_convs();
  m.main.operands[1].dimensions = {1, 0, 1, 1};
  EXPECT_EQ(error_of(m), "operands[1]: constant operand needs fully specified dimensions, got [1,0,1,1]");
  m = two_convs();
  m.main.operands[3].data.clear();
  EXPECT_EQ(error_of(m), "operands[3]: constant data has 0 bytes, expected 4 (INT32 [])");
  m = two_convs();
  m.main.operands[6].data = {1, 2, 3, 4};
  EXPECT_EQ(error_of(m), "operands[6]: operand with lifetime TEMPORARY_VARIABLE must not have data");
  m = two_convs();
  m.main.operands[3].dimensions = {1};
  EXPECT_EQ(error_of(m), "operands[3]: scalar INT32 must have no dimensions, got [1]");
}

// A timing-only constant has its values omitted: no bytes is valid, bytes alongside the flag are not,
// and only constants may be flagged.
TEST(ValidateModel, OmittedConstantValues) {
  Model m = two_convs();
  m.main.operands[1].data.clear();
  m.main.operands[1].values_omitted = true;
  EXPECT_TRUE(validate_model(m).ok());
  m.main.operands[1].data = {0, 0, 0, 0};
  EXPECT_EQ(error_of(m), "operands[1]: constant with omitted values must carry no data");
  m = two_convs();
  m.main.operands[6].values_omitted = true;
  EXPECT_EQ(error_of(m), "operands[6]: operand with lifetime TEMPORARY_VARIABLE must not have data");
}

TEST(ValidateModel, SingleWriterAndTopologicalOrder) {
  Model m = two_convs();
  m.main.operations[1].outputs = {6};  // 6 written twice, 7 never
  EXPECT_EQ(error_of(m), "operations[1].outputs[0]: operand 6 is already written by operations[0]");
  m = two_convs();
  std::swap(m.main.operations[0], m.main.operations[1]);
  EXPECT_EQ(error_of(m),
            "operations[0].inputs[0]: operand 6 is read before it is written (by operations[1]); "
            "operations must be in topological order");
  m = two_convs();
  m.main.operations[1].outputs = {0};
  EXPECT_EQ(error_of(m),
            "operations[1].outputs[0]: operand 0 has lifetime SUBGRAPH_INPUT; operation outputs must be "
            "TEMPORARY_VARIABLE or SUBGRAPH_OUTPUT");
  m = two_convs();
  m.main.operations.pop_back();
  EXPECT_EQ(error_of(m), "operands[7]: SUBGRAPH_OUTPUT is never written by any operation");
  m = two_convs();
  m.main.operations[0].inputs[0] = 6;  // reads its own output
  EXPECT_EQ(error_of(m),
            "operations[0].inputs[0]: operand 6 is read before it is written (by operations[0]); "
            "operations must be in topological order");
}

TEST(ValidateModel, QuantisationParameters) {
  Model m = two_convs();
  m.main.operands[0].type = OperandType::TENSOR_QUANT8_ASYMM;
  EXPECT_EQ(error_of(m), "operands[0]: TENSOR_QUANT8_ASYMM needs scale > 0, got 0.000000");
  m.main.operands[0].scale = 0.5f;
  m.main.operands[0].zero_point = 300;
  EXPECT_EQ(error_of(m), "operands[0]: TENSOR_QUANT8_ASYMM zeroPoint 300 out of range [0, 255]");
  m.main.operands[0].type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  m.main.operands[0].zero_point = -129;
  EXPECT_EQ(error_of(m), "operands[0]: TENSOR_QUANT8_ASYMM_SIGNED zeroPoint -129 out of range [-128, 127]");
  m = two_convs();
  m.main.operands[0].scale = 0.5f;
  EXPECT_EQ(error_of(m), "operands[0]: TENSOR_FLOAT32 must have scale 0 and zeroPoint 0 (got 0.500000, 0)");
}

TEST(ValidateModel, PerChannelParameters) {
  Model m = two_convs();
  Operand& f = m.main.operands[1];
  f.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  f.dimensions = {2, 1, 1, 1};
  f.data = {1, 2};
  EXPECT_EQ(error_of(m), "operands[1]: TENSOR_QUANT8_SYMM_PER_CHANNEL needs channelQuant parameters");
  f.per_channel = PerChannelQuant{{0.5f}, 0};
  EXPECT_EQ(error_of(m), "operands[1]: channelQuant has 1 scales, expected 2 (dimension 0)");
  f.per_channel = PerChannelQuant{{0.5f, 0.25f}, 4};
  EXPECT_EQ(error_of(m), "operands[1]: channelDim 4 out of range for rank 4");
  f.per_channel = PerChannelQuant{{0.5f, -1.0f}, 0};
  EXPECT_EQ(error_of(m), "operands[1]: channelQuant scales[1] must be > 0, got -1.000000");
  m = two_convs();
  m.main.operands[2].per_channel = PerChannelQuant{{1.0f}, 0};
  EXPECT_EQ(error_of(m),
            "operands[2]: channelQuant is only valid on TENSOR_QUANT8_SYMM_PER_CHANNEL, not TENSOR_FLOAT32");
}

TEST(ValidateModel, SubgraphReferences) {
  Model m = two_convs();
  Operand sub;
  sub.type = OperandType::SUBGRAPH;
  sub.lifetime = Lifetime::SUBGRAPH;
  sub.subgraph = 0;
  m.main.operands.push_back(sub);
  EXPECT_EQ(error_of(m), "operands[8]: SUBGRAPH reference 0 out of range (model has 0 referenced subgraphs)");
  m.main.operands.back().lifetime = Lifetime::CONSTANT_COPY;
  EXPECT_EQ(error_of(m),
            "operands[8]: type SUBGRAPH with lifetime CONSTANT_COPY (type SUBGRAPH and lifetime SUBGRAPH "
            "go together)");
  // A referenced subgraph that references itself.
  Model c = two_convs();
  c.referenced.push_back(two_convs().main);
  c.referenced[0].operands.push_back(sub);
  EXPECT_EQ(error_of(c), "referenced[0]: references referenced[0], which leads back to it (cycle)");
  // Errors inside referenced subgraphs carry their prefix.
  Model r = two_convs();
  r.referenced.push_back(two_convs().main);
  r.referenced[0].operations[0].inputs[2] = 99;
  EXPECT_EQ(error_of(r),
            "referenced[0].operations[0].inputs[2]: operand 99 out of range (model has 8 operands)");
}

TEST(ValidateModel, EmptyGraphsAndInvalidCodes) {
  Model m = two_convs();
  m.main.operations.clear();
  EXPECT_EQ(error_of(m), "model: graph has no operations");
  m = two_convs();
  m.main.output_indexes.clear();
  m.main.operands[7].lifetime = Lifetime::TEMPORARY_VARIABLE;
  EXPECT_EQ(error_of(m), "model: graph has no outputs");
  m = two_convs();
  m.main.operands[2].type = static_cast<OperandType>(77);
  EXPECT_EQ(error_of(m), "operands[2]: invalid operand type code 77");
  m = two_convs();
  m.main.operations[1].type = static_cast<OperationType>(777);
  EXPECT_EQ(error_of(m), "operations[1]: invalid operation type code 777");  // above RANK, below 0x10000
  // Above 0xFFFF a value is an extension type (NNAPI): -4 is 0xfffffffc, prefix 65535, which this model
  // does not declare.
  m.main.operations[1].type = static_cast<OperationType>(-4);
  EXPECT_EQ(error_of(m),
            "operations[1]: type 0xfffffffc: prefix 65535 is not declared in extensionNameToPrefix");
  m = two_convs();
  m.main.operands[0].dimensions = {0xffffffffu, 0xffffffffu, 0xffffffffu, 1};
  EXPECT_EQ(error_of(m),
            "operands[0]: operand too large (TENSOR_FLOAT32 [4294967295,4294967295,4294967295,1])");
}

}  // namespace
}  // namespace npu::models
