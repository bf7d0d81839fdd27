// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL (NN HAL 1.2): element-wise comparisons
// whose TENSOR_BOOL8 output is what IF and WHILE conditions are made of. NNAPI signature: inputs 0 and 1
// tensors of the same type (TENSOR_BOOL8, TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32,
// TENSOR_QUANT8_ASYMM, and TENSOR_QUANT8_ASYMM_SIGNED since 1.3), broadcast numpy-style; output 0
// TENSOR_BOOL8 of the broadcast shape. Quantised inputs compare their real values (q − zero point) ·
// scale, so two inputs of different quantisation compare correctly. Not on the NPU (CPU reference only).
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Compare { kEqual, kNotEqual, kGreater, kGreaterEqual, kLess, kLessEqual };

bool holds(Compare c, double a, double b) {
  switch (c) {
    case Compare::kEqual:
      return a == b;
    case Compare::kNotEqual:
      return a != b;
    case Compare::kGreater:
      return a > b;
    case Compare::kGreaterEqual:
      return a >= b;
    case Compare::kLess:
      return a < b;
    case Compare::kLessEqual:
      return a <= b;
  }
  return false;
}

class ComparisonKernel final : public OperationKernel {
 public:
  ComparisonKernel(models::OperationType type, Compare c) : type_(type), c_(c) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input1",
                             {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 1, "input2", {in[0].type}); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_BOOL8); !r) return make_error(r.error());
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast_shape(in[0].dimensions, in[1].dimensions);
    if (!shape) {
      return make_error("inputs " + models::dims_to_string(in[0].dimensions) + " and " +
                        models::dims_to_string(in[1].dimensions) + " cannot be broadcast together");
    }
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const bool quant = is_quant8(in[0].type);
    auto real = [&](const OperandInfo& x, uint64_t i) {
      const double v = models::read_element(x.type, *x.value, i);
      return quant ? (v - x.zero_point) * static_cast<double>(x.scale) : v;
    };
    const uint64_t total = o.element_count();
    for (uint64_t i = 0; i < total; ++i) {
      const double a = real(in[0], broadcast_index(i, o.dimensions, in[0].dimensions));
      const double b = real(in[1], broadcast_index(i, o.dimensions, in[1].dimensions));
      o.data[i] = holds(c_, a, b) ? 1 : 0;
    }
    return {};
  }

 private:
  models::OperationType type_;
  Compare c_;
};

}  // namespace

const OperationKernel& equal_kernel() {
  static const ComparisonKernel kernel(models::OperationType::EQUAL, Compare::kEqual);
  return kernel;
}
const OperationKernel& not_equal_kernel() {
  static const ComparisonKernel kernel(models::OperationType::NOT_EQUAL, Compare::kNotEqual);
  return kernel;
}
const OperationKernel& greater_kernel() {
  static const ComparisonKernel kernel(models::OperationType::GREATER, Compare::kGreater);
  return kernel;
}
const OperationKernel& greater_equal_kernel() {
  static const ComparisonKernel kernel(models::OperationType::GREATER_EQUAL, Compare::kGreaterEqual);
  return kernel;
}
const OperationKernel& less_kernel() {
  static const ComparisonKernel kernel(models::OperationType::LESS, Compare::kLess);
  return kernel;
}
const OperationKernel& less_equal_kernel() {
  static const ComparisonKernel kernel(models::OperationType::LESS_EQUAL, Compare::kLessEqual);
  return kernel;
}

}  // namespace npu::hal::ops
