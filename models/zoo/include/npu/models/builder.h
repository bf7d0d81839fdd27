// Programmatic model construction: operands and operations in NNAPI conventions with seeded random
// constants, for the built-in examples and zoo and for tests. Everything it builds passes
// validate_model and the HAL's per-operation validation when used as documented below; it does not
// check operation signatures itself (the HAL does) and it does no shape inference beyond the layers
// it builds.
//
// Weight initialisation (BuilderOptions::init):
//  - Legacy (default, kept byte-for-byte for the examples and existing tests): float weights uniform in
//    [-0.5, 0.5], biases in [-0.2, 0.2]; quantised weights over the type's full range, biases in
//    [-2000, 2000] units of in_scale·filter_scale.
//  - HeUniform (the zoo): float weights uniform in ±sqrt(6 / fan_in) so activations keep their scale
//    through deep ReLU stacks; quantised weights still use the full range, the caller picks the
//    filter scale (sqrt(6 / fan_in) / 127 gives the same real distribution); biases near zero.
// With BuilderOptions::omit_weights every tensor constant made by random_constant has its values
// omitted (Operand::values_omitted: timing-only, LLM-sized); scalars keep their values.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::models {

struct QuantParams {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

enum class WeightInit { Legacy, HeUniform };

struct BuilderOptions {
  WeightInit init = WeightInit::Legacy;
  bool omit_weights = false;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(uint64_t seed, BuilderOptions options = {}) : rng_(seed), options_(options) {}

  uint32_t input(OperandType type, std::vector<uint32_t> dims, QuantParams q = {});
  uint32_t tensor(OperandType type, std::vector<uint32_t> dims, QuantParams q = {});  // temporary
  // A constant tensor of uniformly random values: floats in [lo, hi], integers in the type's range.
  uint32_t random_constant(OperandType type, std::vector<uint32_t> dims, QuantParams q, double lo, double hi);
  uint32_t constant_i32(int32_t v);
  uint32_t constant_f32(float v);
  uint32_t constant_bool(bool v);
  uint32_t constant_i32_tensor(const std::vector<int32_t>& values);
  // An omitted optional operation input (lifetime NO_VALUE).
  uint32_t no_value(OperandType type);
  void operation(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);
  void mark_output(uint32_t operand);

  // CONV_2D with implicit padding (1 = SAME, 2 = VALID); returns the output operand. Weights random.
  // For quantised inputs the output uses `out_q` and the bias scale is in_scale·filter_scale.
  uint32_t conv_2d(uint32_t input, uint32_t out_channels, uint32_t kh, uint32_t kw, int32_t padding,
                   uint32_t stride, fx::FusedActivation act, QuantParams filter_q = {},
                   QuantParams out_q = {});
  // DEPTHWISE_CONV_2D (implicit padding, depth multiplier 1): one kh×kw filter per channel.
  uint32_t depthwise_conv_2d(uint32_t input, uint32_t kh, uint32_t kw, int32_t padding, uint32_t stride,
                             fx::FusedActivation act, QuantParams filter_q = {}, QuantParams out_q = {});
  uint32_t fully_connected(uint32_t input, uint32_t units, fx::FusedActivation act, QuantParams weight_q = {},
                           QuantParams out_q = {});
  // FULLY_CONNECTED whose weights are an existing operand (e.g. a graph input such as an attention
  // key cache [units, input_size]); the bias is a zero constant.
  uint32_t fully_connected_with(uint32_t input, uint32_t weights, QuantParams out_q = {});

  // AVERAGE_POOL_2D / MAX_POOL_2D with implicit padding; the output keeps the input's quantisation.
  uint32_t pool_2d(OperationType type, uint32_t input, uint32_t kh, uint32_t kw, int32_t padding,
                   uint32_t stride);
  // ADD / MUL of two tensors of the same type (NNAPI broadcasting); `out_q` for quantised types.
  uint32_t elementwise(OperationType type, uint32_t a, uint32_t b, fx::FusedActivation act,
                       QuantParams out_q = {});
  // RESHAPE to `dims` (same element count); the output keeps the input's quantisation.
  uint32_t reshape(uint32_t input, const std::vector<uint32_t>& dims);
  // SOFTMAX over the last axis; quantised output 1/256, zero point 0 (NNAPI's rule).
  uint32_t softmax(uint32_t input, float beta);
  // LOGISTIC; quantised output 1/256, zero point 0 (NNAPI's rule).
  uint32_t logistic(uint32_t input);
  // L2_NORMALIZATION over the last axis; quantised output 1/128, zero point 128 (NNAPI's rule).
  uint32_t l2_normalization(uint32_t input);
  // CONCATENATION along `axis`; every input and the output share one quantisation (NNAPI 1.0).
  uint32_t concatenation(const std::vector<uint32_t>& inputs, uint32_t axis);
  // EMBEDDING_LOOKUP of `lookups` (TENSOR_INT32 [n]) rows of `values` [rows, ...].
  uint32_t embedding_lookup(uint32_t lookups, uint32_t values);
  // SLICE of rows [begin, end) along axis 0 of a rank-2 tensor (all columns).
  uint32_t slice_rows(uint32_t input, uint32_t begin, uint32_t end);

  // Vendor extension com.npusim.llm (models/extensions.h; the model's extension table gets it on first use).
  // RMS_NORM over the last axis with `gamma` [last extent] of the input's type; quantised output `out_q`.
  uint32_t rms_norm(uint32_t input, uint32_t gamma, float epsilon, QuantParams out_q = {});
  // ROPE of [tokens, heads·head_dim] rows; `position` an INT32 scalar operand (token 0's position).
  uint32_t rope(uint32_t input, uint32_t position, uint32_t head_dim, float base, QuantParams out_q = {});
  // MATMUL a [M, K] × b [K, N] (b [N, K] with transpose_b), rank 2 or 3 (a leading batch).
  uint32_t matmul(uint32_t a, uint32_t b, bool transpose_b, QuantParams out_q = {});

  // Random values for every graph input (floats in [-1, 1], quantised over the full range).
  std::map<uint32_t, Tensor> random_inputs();

  const Operand& operand(uint32_t index) const { return model_.main.operands[index]; }
  Model& model() { return model_; }
  Model take() { return std::move(model_); }

 private:
  uint32_t add(Operand op);
  uint32_t scalar_constant(OperandType type, const void* value, size_t bytes);
  // Filter and bias constants for a layer with `fan_in` inputs per output, per the weight init.
  uint32_t filter_constant(OperandType type, std::vector<uint32_t> dims, uint32_t fan_in, QuantParams q);
  uint32_t bias_constant(OperandType input_type, uint32_t units, float bias_scale);
  // Output operand of the input's type: `q` for quantised types, none for float.
  uint32_t like(uint32_t input, std::vector<uint32_t> dims, QuantParams q);

  Model model_;
  std::mt19937_64 rng_;
  BuilderOptions options_;
};

// True for TENSOR_QUANT8_ASYMM(_SIGNED).
bool is_quant8(OperandType t);

// Seeded random values for every graph input of `model` (floats in [-1, 1], quantised types over
// their full range; TENSOR_INT32 inputs in [0, int_hi], or their full range when int_hi < 0, e.g. token
// ids below the vocabulary size). Same seed, same bytes.
std::map<uint32_t, Tensor> random_inputs(const Model& model, uint64_t seed, int32_t int_hi = -1);

}  // namespace npu::models
