// Programmatic model construction: operands and operations in NNAPI conventions with seeded random
// constants, for the built-in examples and zoo and for tests. Everything it builds passes
// validate_model; it does not check operation signatures (the HAL does).
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

class ModelBuilder {
 public:
  explicit ModelBuilder(uint64_t seed) : rng_(seed) {}

  uint32_t input(OperandType type, std::vector<uint32_t> dims, QuantParams q = {});
  uint32_t tensor(OperandType type, std::vector<uint32_t> dims, QuantParams q = {});  // temporary
  // A constant tensor of uniformly random values: floats in [lo, hi], integers in the type's range.
  uint32_t random_constant(OperandType type, std::vector<uint32_t> dims, QuantParams q, double lo, double hi);
  uint32_t constant_i32(int32_t v);
  uint32_t constant_bool(bool v);
  void operation(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);
  void mark_output(uint32_t operand);

  // CONV_2D with implicit padding (1 = SAME, 2 = VALID); returns the output operand. Weights random.
  // For quantised inputs the output uses `out_q` and the bias scale is in_scale·filter_scale.
  uint32_t conv_2d(uint32_t input, uint32_t out_channels, uint32_t kh, uint32_t kw, int32_t padding,
                   uint32_t stride, fx::FusedActivation act, QuantParams filter_q = {}, QuantParams out_q = {});
  uint32_t fully_connected(uint32_t input, uint32_t units, fx::FusedActivation act, QuantParams weight_q = {},
                           QuantParams out_q = {});

  // Random values for every graph input (floats in [-1, 1], quantised over the full range).
  std::map<uint32_t, Tensor> random_inputs();

  Model& model() { return model_; }
  Model take() { return std::move(model_); }

 private:
  uint32_t add(Operand op);
  Model model_;
  std::mt19937_64 rng_;
};

}  // namespace npu::models
