// HARD_SWISH (NNAPI 1.3) and ELU (NNAPI 1.3) kernels: element-wise activations, output of the input's
// type and shape.
//   HARD_SWISH: input 0 TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED;
//     y = x * min(max(x + 3, 0), 6) / 6. The quant8 output has its own scale and zero point; it is
//     computed through float (dequantise, the formula in float32, round half away from zero, clamp),
//     which is within one step of NNAPI's 16-bit fixed-point reference, not bit-exact with it. Signed
//     results are the unsigned ones shifted by 128.
//   ELU: input 0 TENSOR_FLOAT16 or TENSOR_FLOAT32, input 1 alpha (FLOAT16 for a TENSOR_FLOAT16 input,
//     else FLOAT32); y = x < 0 ? alpha * (exp(x) - 1) : x.
// Float arithmetic is float32; FLOAT16 outputs are rounded to nearest even.
#include <algorithm>
#include <cmath>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

float hard_swish_of(float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }

class HardSwishKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::HARD_SWISH; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (auto r = expect_quant_scale(in[0], input_name(0, "input")); !r) return make_error(r.error());
    if (auto r = expect_quant_scale(out[0], "output 0"); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    if (!is_quant8(o.type)) {
      std::vector<float> x = read_floats(in[0]);
      for (float& v : x) v = hard_swish_of(v);
      write_floats(o, x);
      return {};
    }
    std::vector<int32_t> q = read_ints(in[0]);
    for (int32_t& v : q) {
      const float real = static_cast<float>(v - in[0].zero_point) * in[0].scale;
      v = quantize_real(hard_swish_of(real), o.scale, o.zero_point, o.type);
    }
    write_ints(o, q);
    return {};
  }
};

class EluKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::ELU; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32}); !r)
      return make_error(r.error());
    const OperandType st =
        in[0].type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "alpha", {st}); !r) return make_error(r.error());
    if (const auto a = float_param(in[1]); a && !std::isfinite(*a))
      return input_error(1, "alpha", "must be finite");
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const auto alpha = float_param(in[1]);
    if (!alpha) return make_error("internal: ELU alpha unknown at execution");
    std::vector<float> x = read_floats(in[0]);
    for (float& v : x)
      if (v < 0.0f) v = *alpha * (std::exp(v) - 1.0f);
    write_floats(*out[0], x);
    return {};
  }
};

}  // namespace

const OperationKernel& hard_swish_kernel() {
  static const HardSwishKernel kernel;
  return kernel;
}
const OperationKernel& elu_kernel() {
  static const EluKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
