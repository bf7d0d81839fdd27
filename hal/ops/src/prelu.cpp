// PRELU kernel (NNAPI 1.2): output = input >= 0 ? input : alpha * input, alpha broadcast against the
// input (right-aligned, extents equal or 1). NNAPI signature: input 0 and input 1 (alpha) tensors of one
// type, TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM or (since 1.3) TENSOR_QUANT8_ASYMM_SIGNED,
// rank <= 4; output of that type with the broadcast shape. Quant8 operands each have their own scale and
// zero point. Quantised arithmetic is integer, as NNAPI's reference: x = q_in - zp_in; x >= 0 gives
// zp_out + x * (s_in / s_out), otherwise zp_out + x * (q_alpha - zp_alpha) * (s_in * s_alpha / s_out),
// each rescale a fixed-point multiplier (rounding as multiply_by_quantized_multiplier), then clamped.
// Only differences from zero points enter, so signed results are the unsigned ones shifted by 128.
#include <algorithm>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class PreluKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::PRELU; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "alpha", {in[0].type}); !r) return make_error(r.error());
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_rank_at_most(in[1], 1, "alpha", 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (auto r = expect_quant_scale(in[0], input_name(0, "input")); !r) return make_error(r.error());
    if (auto r = expect_quant_scale(in[1], input_name(1, "alpha")); !r) return make_error(r.error());
    if (auto r = expect_quant_scale(out[0], "output 0"); !r) return make_error(r.error());
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast_shape(in[0].dimensions, in[1].dimensions);
    if (!shape)
      return input_error(1, "alpha",
                         "shape " + models::dims_to_string(in[1].dimensions) +
                             " does not broadcast against " + models::dims_to_string(in[0].dimensions));
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const uint64_t n = o.element_count();
    if (!is_quant8(o.type)) {
      const std::vector<float> x = read_floats(in[0]);
      const std::vector<float> a = read_floats(in[1]);
      std::vector<float> y(n);
      for (uint64_t i = 0; i < n; ++i) {
        const float xv = x[broadcast_index(i, o.dimensions, in[0].dimensions)];
        y[i] = xv >= 0.0f ? xv : a[broadcast_index(i, o.dimensions, in[1].dimensions)] * xv;
      }
      write_floats(o, y);
      return {};
    }
    const std::vector<int32_t> x = read_ints(in[0]);
    const std::vector<int32_t> a = read_ints(in[1]);
    const fx::QuantizedMultiplier pos =
        safe_multiplier(static_cast<double>(in[0].scale) / static_cast<double>(o.scale));
    const fx::QuantizedMultiplier neg = conv_multiplier(in[0].scale, in[1].scale, o.scale);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    std::vector<int32_t> q(n);
    for (uint64_t i = 0; i < n; ++i) {
      const int32_t xv = x[broadcast_index(i, o.dimensions, in[0].dimensions)] - in[0].zero_point;
      int32_t v = 0;
      if (xv >= 0) {
        v = fx::multiply_by_quantized_multiplier(xv, pos);
      } else {
        const int32_t av = a[broadcast_index(i, o.dimensions, in[1].dimensions)] - in[1].zero_point;
        v = fx::multiply_by_quantized_multiplier(xv * av, neg);  // |xv * av| <= 255 * 255: no overflow
      }
      q[i] = std::clamp(v + o.zero_point, qmin, qmax);
    }
    write_ints(o, q);
    return {};
  }
};

}  // namespace

const OperationKernel& prelu_kernel() {
  static const PreluKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
