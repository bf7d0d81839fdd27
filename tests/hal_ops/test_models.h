// Model-building helpers for the HAL operation tests: a small graph builder and tensor conversions.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::hal::ops::test {

using models::Lifetime;
using models::Model;
using models::OperandType;
using models::OperationType;
using models::Tensor;

// Appends operands and operations to the main graph; graph inputs/outputs are listed in the order
// they were added.
class GraphBuilder {
 public:
  uint32_t input(OperandType t, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zp = 0);
  uint32_t output(OperandType t, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zp = 0);
  uint32_t temp(OperandType t, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zp = 0);
  uint32_t floats(std::vector<uint32_t> dims, const std::vector<float>& values,
                  OperandType t = OperandType::TENSOR_FLOAT32);
  uint32_t ints(OperandType t, std::vector<uint32_t> dims, const std::vector<int32_t>& values,
                float scale = 0.0f, int32_t zp = 0);
  uint32_t per_channel(std::vector<uint32_t> dims, const std::vector<int32_t>& values,
                       std::vector<float> scales);
  uint32_t i32(int32_t v);
  uint32_t boolean(bool v);
  // An optional input left out (lifetime NO_VALUE).
  uint32_t omitted(OperandType t);
  // A SUBGRAPH operand naming Model::referenced[index] (IF/WHILE arguments).
  uint32_t subgraph(uint32_t index);
  void op(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);
  Model build() const { return model_; }

 private:
  uint32_t add(models::Operand o);
  Model model_;
};

Tensor float_tensor(std::vector<uint32_t> dims, const std::vector<float>& values,
                    OperandType t = OperandType::TENSOR_FLOAT32);
Tensor int_tensor(OperandType t, std::vector<uint32_t> dims, const std::vector<int32_t>& values,
                  float scale = 0.0f, int32_t zp = 0);
std::vector<float> floats_of(const Tensor& t);
std::vector<int32_t> ints_of(const Tensor& t);

// NNAPI's fp32 tolerance: |e - a| <= 1e-5 + 5 * 2^-23 * |e|.
bool fp32_close(float expected, float actual);

// A valid small quantised CONV_2D -> FULLY_CONNECTED model (used by the fuzz test) and its inputs.
Model small_quant_model();
Model small_float_model();
// Quantised DEPTHWISE_CONV_2D -> AVERAGE_POOL_2D -> ADD -> RELU -> RESHAPE -> SOFTMAX.
Model small_mixed_model();
// Float MUL (broadcast) -> CONCATENATION -> PAD -> TRANSPOSE -> STRIDED_SLICE -> MEAN, and
// SPACE_TO_DEPTH -> DEPTH_TO_SPACE -> L2_POOL_2D -> LRN -> RESIZE_BILINEAR alongside.
Model small_shape_model();
// Quantised SUB -> LOGISTIC -> SPACE_TO_BATCH_ND -> BATCH_TO_SPACE_ND -> SQUEEZE -> TANH ->
// L2_NORMALIZATION -> DEQUANTIZE -> FLOOR -> DIV, plus EMBEDDING_LOOKUP / HASHTABLE_LOOKUP / LSH_PROJECTION
// on constants.
Model small_quant_ops_model();
// Float RNN -> SVDF and an LSTM with CIFG, peephole and projection.
Model small_recurrent_model();
std::map<uint32_t, Tensor> inputs_for(const Model& m, uint32_t seed);

}  // namespace npu::hal::ops::test
