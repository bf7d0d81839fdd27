// ADD kernel. NNAPI signature: inputs 0 and 1 tensors of the same type (rank <= 4, broadcast from the
// trailing dimension: extents equal or 1), 2 fused activation; output of the broadcast shape.
// Quant8 follows TFLite's reference: both inputs are shifted left by 20 bits, rescaled by
// in_scale / (2 * max(in1_scale, in2_scale)), summed, and rescaled by 2 * max / (2^20 * out_scale),
// each step multiply_by_quantized_multiplier; then + out_zp and the activation clamp.
#include <algorithm>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// Broadcast shape of a and b (0 = unknown); nullopt when incompatible.
std::optional<std::vector<uint32_t>> broadcast(const std::vector<uint32_t>& a,
                                               const std::vector<uint32_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<uint32_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 0 || y == 0) {
      out[i] = (x == 1 || y == 1) ? 0 : std::max(x, y);  // unknown unless the other side fixes it
      continue;
    }
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

// Flat index into `dims` (right-aligned against `shape`) for the multi-index of output element `flat`.
uint64_t broadcast_index(uint64_t flat, const std::vector<uint32_t>& shape,
                         const std::vector<uint32_t>& dims) {
  uint64_t index = 0;
  uint64_t stride = 1;
  const size_t offset = shape.size() - dims.size();
  for (size_t i = shape.size(); i-- > 0;) {
    const uint64_t coord = flat % shape[i];
    flat /= shape[i];
    if (i >= offset) {
      const uint32_t d = dims[i - offset];
      if (d != 1) index += coord * stride;
      stride *= d;
    }
  }
  return index;
}

class AddKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::ADD; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input1",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    if (auto r = expect_type(in, 1, "input2", {in[0].type}); !r) return make_error(r.error());
    auto act = int_param_in_range(in, 2, "fused activation", 0, 3);
    if (!act) return make_error(act.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    for (size_t i = 0; i < 2; ++i) {
      if (in[i].dimensions.size() > 4) {
        return input_error(i, i == 0 ? "input1" : "input2",
                           "expected rank <= 4, got " + std::to_string(in[i].dimensions.size()));
      }
    }
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast(in[0].dimensions, in[1].dimensions);
    if (!shape) {
      return make_error("inputs " + models::dims_to_string(in[0].dimensions) + " and " +
                        models::dims_to_string(in[1].dimensions) + " cannot be broadcast together");
    }
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const auto act = static_cast<fx::FusedActivation>(int_param(in[2]).value_or(0));
    const std::vector<uint32_t>& shape = o.dimensions;
    const uint64_t total = o.element_count();
    if (!is_quant8(in[0].type)) {
      const std::vector<float> a = read_floats(in[0]);
      const std::vector<float> b = read_floats(in[1]);
      float lo = 0.0f;
      float hi = 0.0f;
      fx::float_activation_range(act, &lo, &hi);
      std::vector<float> r(total);
      for (uint64_t i = 0; i < total; ++i) {
        const float v =
            a[broadcast_index(i, shape, in[0].dimensions)] + b[broadcast_index(i, shape, in[1].dimensions)];
        r[i] = v < lo ? lo : (v > hi ? hi : v);
      }
      write_floats(o, r);
      return {};
    }
    const std::vector<int32_t> a = read_ints(in[0]);
    const std::vector<int32_t> b = read_ints(in[1]);
    constexpr int kLeftShift = 20;
    const double twice_max = 2.0 * std::max(in[0].scale, in[1].scale);
    const fx::QuantizedMultiplier m1 = safe_multiplier(in[0].scale / twice_max);
    const fx::QuantizedMultiplier m2 = safe_multiplier(in[1].scale / twice_max);
    const fx::QuantizedMultiplier mo =
        safe_multiplier(twice_max / ((1 << kLeftShift) * static_cast<double>(o.scale)));
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range = fx::quantized_activation_range(act, o.scale, o.zero_point, qmin, qmax);
    std::vector<int32_t> r(total);
    for (uint64_t i = 0; i < total; ++i) {
      const int32_t x =
          (a[broadcast_index(i, shape, in[0].dimensions)] - in[0].zero_point) * (1 << kLeftShift);
      const int32_t y =
          (b[broadcast_index(i, shape, in[1].dimensions)] - in[1].zero_point) * (1 << kLeftShift);
      const int32_t sum =
          fx::multiply_by_quantized_multiplier(x, m1) + fx::multiply_by_quantized_multiplier(y, m2);
      const int32_t v = fx::multiply_by_quantized_multiplier(sum, mo) + o.zero_point;
      r[i] = v < range.lo ? range.lo : (v > range.hi ? range.hi : v);
    }
    write_ints(o, r);
    return {};
  }
};

}  // namespace

const OperationKernel& add_kernel() {
  static const AddKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
