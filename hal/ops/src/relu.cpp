// RELU, RELU1 and RELU6 kernels (one file: the three differ only in the clamp range). NNAPI signature:
// input 0 a tensor of rank <= 4 (TENSOR_FLOAT32/FLOAT16/QUANT8_ASYMM/QUANT8_ASYMM_SIGNED); output of the
// same type and shape. Quant8 outputs may carry their own scale/zero point (NNAPI 1.3): the value is
// rescaled with multiply_by_quantized_multiplier(q - in_zp, in_scale / out_scale) + out_zp and clamped
// to the activation range of the output; equal parameters make this the identity before the clamp.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class ReluKernel final : public OperationKernel {
 public:
  ReluKernel(models::OperationType type, fx::FusedActivation act) : type_(type), act_(act) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    if (in[0].dimensions.size() > 4) {
      return input_error(0, "input", "expected rank <= 4, got " + std::to_string(in[0].dimensions.size()));
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    if (!is_quant8(in[0].type)) {
      std::vector<float> v = read_floats(in[0]);
      float lo = 0.0f;
      float hi = 0.0f;
      fx::float_activation_range(act_, &lo, &hi);
      for (float& x : v) x = x < lo ? lo : (x > hi ? hi : x);
      write_floats(o, v);
      return {};
    }
    std::vector<int32_t> v = read_ints(in[0]);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range = fx::quantized_activation_range(act_, o.scale, o.zero_point, qmin, qmax);
    const bool same = in[0].scale == o.scale && in[0].zero_point == o.zero_point;
    const fx::QuantizedMultiplier qm = safe_multiplier(static_cast<double>(in[0].scale) / o.scale);
    for (int32_t& q : v) {
      const int32_t r =
          same ? q : fx::multiply_by_quantized_multiplier(q - in[0].zero_point, qm) + o.zero_point;
      q = r < range.lo ? range.lo : (r > range.hi ? range.hi : r);
    }
    write_ints(o, v);
    return {};
  }

 private:
  models::OperationType type_;
  fx::FusedActivation act_;
};

}  // namespace

const OperationKernel& relu_kernel() {
  static const ReluKernel kernel(models::OperationType::RELU, fx::FusedActivation::RELU);
  return kernel;
}
const OperationKernel& relu1_kernel() {
  static const ReluKernel kernel(models::OperationType::RELU1, fx::FusedActivation::RELU1);
  return kernel;
}
const OperationKernel& relu6_kernel() {
  static const ReluKernel kernel(models::OperationType::RELU6, fx::FusedActivation::RELU6);
  return kernel;
}

}  // namespace npu::hal::ops
