// ABS, EXP, LOG, NEG, RSQRT, SIN and SQRT kernels (NNAPI 1.2): element-wise float functions of one input,
// output of the same type and shape. NNAPI signature: input 0 a tensor of any rank from 1 (NNAPI gives
// no upper limit, so none is set here), TENSOR_FLOAT32 or
// TENSOR_FLOAT16; ABS and NEG also TENSOR_INT32 (NEG since 1.2, ABS since 1.3; two's-complement, so
// the most negative value maps to itself). Computed in float32 with the C library's functions, as
// NNAPI's reference does; LOG of a negative number is NaN and of 0 is -inf, RSQRT(0) is +inf.
// Not done: NNAPI 1.3's quant8 RSQRT.
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Unary { kAbs, kExp, kLog, kNeg, kRsqrt, kSin, kSqrt };

float apply(Unary f, float x) {
  switch (f) {
    case Unary::kAbs:
      return std::fabs(x);
    case Unary::kExp:
      return std::exp(x);
    case Unary::kLog:
      return std::log(x);
    case Unary::kNeg:
      return -x;
    case Unary::kRsqrt:
      return 1.0f / std::sqrt(x);
    case Unary::kSin:
      return std::sin(x);
    case Unary::kSqrt:
      return std::sqrt(x);
  }
  return x;
}

class ElementwiseUnaryKernel final : public OperationKernel {
 public:
  ElementwiseUnaryKernel(models::OperationType type, Unary f) : type_(type), f_(f) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    const bool int_too = f_ == Unary::kAbs || f_ == Unary::kNeg;
    auto t = int_too
                 ? expect_type(
                       in, 0, "input",
                       {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32})
                 : expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16});
    if (!t) return make_error(t.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    if (in[0].type == OperandType::TENSOR_INT32) {
      std::vector<int32_t> v = read_ints(in[0]);
      for (int32_t& x : v) {
        const auto u = static_cast<uint32_t>(x);
        if (f_ == Unary::kNeg || x < 0) x = static_cast<int32_t>(0u - u);  // wraps like hardware
      }
      write_ints(*out[0], v);
      return {};
    }
    std::vector<float> v = read_floats(in[0]);
    for (float& x : v) x = apply(f_, x);
    write_floats(*out[0], v);
    return {};
  }

 private:
  models::OperationType type_;
  Unary f_;
};

}  // namespace

const OperationKernel& abs_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::ABS, Unary::kAbs);
  return kernel;
}
const OperationKernel& exp_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::EXP, Unary::kExp);
  return kernel;
}
const OperationKernel& log_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::LOG, Unary::kLog);
  return kernel;
}
const OperationKernel& neg_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::NEG, Unary::kNeg);
  return kernel;
}
const OperationKernel& rsqrt_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::RSQRT, Unary::kRsqrt);
  return kernel;
}
const OperationKernel& sin_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::SIN, Unary::kSin);
  return kernel;
}
const OperationKernel& sqrt_kernel() {
  static const ElementwiseUnaryKernel kernel(models::OperationType::SQRT, Unary::kSqrt);
  return kernel;
}

}  // namespace npu::hal::ops
