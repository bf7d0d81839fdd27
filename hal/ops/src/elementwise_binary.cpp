// MAXIMUM, MINIMUM and POW kernels (NNAPI 1.2): two inputs of one type broadcast numpy-style from the
// trailing dimension (extents equal or 1), no fused activation; output of the broadcast shape.
// Types: MAXIMUM/MINIMUM TENSOR_FLOAT32/FLOAT16/INT32/QUANT8_ASYMM (QUANT8_ASYMM_SIGNED since 1.3);
// POW TENSOR_FLOAT32/FLOAT16 (std::pow in float32).
// Quant8 MAXIMUM/MINIMUM: the inputs may have their own scale and zero point; each value is first
// requantised to the output's, round((q − zp_in) · scale_in / scale_out) + zp_out (float arithmetic,
// half away from zero, clamped to the type), then compared — as NNAPI's reference does. With equal
// quantisation no requantisation happens and the result is exactly one of the inputs.
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Binary { kMaximum, kMinimum, kPow };

class ElementwiseBinaryKernel final : public OperationKernel {
 public:
  ElementwiseBinaryKernel(models::OperationType type, Binary f) : type_(type), f_(f) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    auto t = f_ == Binary::kPow
                 ? expect_type(in, 0, "base", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16})
                 : expect_type(
                       in, 0, "input0",
                       {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                        OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
    if (!t) return make_error(t.error());
    if (auto r = expect_type(in, 1, f_ == Binary::kPow ? "exponent" : "input1", {in[0].type}); !r)
      return make_error(r.error());
    for (size_t i = 0; i < 2; ++i)
      if (auto r = expect_rank_at_most(in[i], i, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast_shape(in[0].dimensions, in[1].dimensions);
    if (!shape)
      return make_error("inputs " + models::dims_to_string(in[0].dimensions) + " and " +
                        models::dims_to_string(in[1].dimensions) + " cannot be broadcast together");
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const uint64_t total = o.element_count();
    auto ia = [&](uint64_t i) { return broadcast_index(i, o.dimensions, in[0].dimensions); };
    auto ib = [&](uint64_t i) { return broadcast_index(i, o.dimensions, in[1].dimensions); };
    const bool is_max = f_ == Binary::kMaximum;
    if (in[0].type == OperandType::TENSOR_FLOAT32 || in[0].type == OperandType::TENSOR_FLOAT16) {
      const std::vector<float> a = read_floats(in[0]), b = read_floats(in[1]);
      std::vector<float> r(total);
      for (uint64_t i = 0; i < total; ++i) {
        const float x = a[ia(i)], y = b[ib(i)];
        r[i] = f_ == Binary::kPow ? std::pow(x, y) : is_max ? std::max(x, y) : std::min(x, y);
      }
      write_floats(o, r);
      return {};
    }
    std::vector<int32_t> a = read_ints(in[0]), b = read_ints(in[1]);
    if (is_quant8(in[0].type)) {
      int32_t qmin = 0, qmax = 0;
      quant8_range(o.type, &qmin, &qmax);
      auto requantize_to_output = [&](std::vector<int32_t>& v, const OperandInfo& info) {
        if (info.scale == o.scale && info.zero_point == o.zero_point) return;
        for (int32_t& q : v) {
          const float real = static_cast<float>(q - info.zero_point) * info.scale / o.scale;
          q = std::clamp(static_cast<int32_t>(std::round(real)) + o.zero_point, qmin, qmax);
        }
      };
      requantize_to_output(a, in[0]);
      requantize_to_output(b, in[1]);
    }
    std::vector<int32_t> r(total);
    for (uint64_t i = 0; i < total; ++i)
      r[i] = is_max ? std::max(a[ia(i)], b[ib(i)]) : std::min(a[ia(i)], b[ib(i)]);
    write_ints(o, r);
    return {};
  }

 private:
  models::OperationType type_;
  Binary f_;
};

}  // namespace

const OperationKernel& maximum_kernel() {
  static const ElementwiseBinaryKernel kernel(models::OperationType::MAXIMUM, Binary::kMaximum);
  return kernel;
}
const OperationKernel& minimum_kernel() {
  static const ElementwiseBinaryKernel kernel(models::OperationType::MINIMUM, Binary::kMinimum);
  return kernel;
}
const OperationKernel& pow_kernel() {
  static const ElementwiseBinaryKernel kernel(models::OperationType::POW, Binary::kPow);
  return kernel;
}

}  // namespace npu::hal::ops
