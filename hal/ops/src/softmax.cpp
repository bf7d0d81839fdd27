// SOFTMAX kernel. NNAPI signature: input 0 a tensor of rank 1..4, input 1 beta (FLOAT32; FLOAT16 for
// TENSOR_FLOAT16 inputs), optional input 2 the axis (INT32, default -1 = last); output of the same type
// and shape. Quant8 outputs must have scale 1/256 and zero point 0 (unsigned) or -128 (signed).
// Float: exp((x - max) * beta) / sum over the axis, accumulated in axis order.
// Quant8 is computed through float (dequantise, softmax, round to nearest): within the CTS's +-1 of
// NNAPI's fixed-point exp, not bit-exact — the NPU compares against this with that tolerance.
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

bool axis_out_of_range(const std::vector<uint32_t>& dims, std::span<const OperandInfo> in) {
  const int32_t rank = static_cast<int32_t>(dims.size());
  const int32_t axis = in.size() == 3 ? int_param(in[2]).value_or(-1) : -1;
  return rank == 0 || axis >= rank || axis < -rank;
}

class SoftmaxKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SOFTMAX; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2 && in.size() != 3)
      return make_error("expected 2 or 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    const OperandType t = in[0].type;
    if (auto r = expect_type(
            in, 1, "beta", {t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32});
        !r) {
      return make_error(r.error());
    }
    const std::vector<float> beta = read_floats(in[1]);
    if (in[1].has_value() && (beta.empty() || !(beta[0] > 0.0f)))
      return input_error(1, "beta", "must be > 0");
    const size_t rank = in[0].dimensions.size();
    if (in[0].rank_known() && (rank < 1 || rank > 4)) {
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(rank));
    }
    if (in.size() == 3) {
      auto axis = int_param_in_range(in, 2, "axis", -4, 3);
      if (!axis) return make_error(axis.error());
      if (*axis && in[0].rank_known() &&
          (**axis >= static_cast<int32_t>(rank) || **axis < -static_cast<int32_t>(rank))) {
        return input_error(2, "axis", "out of range for rank " + std::to_string(rank));
      }
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    if (is_quant8(t)) {
      const int32_t zp = t == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
      if (out[0].scale != 1.0f / 256.0f || out[0].zero_point != zp) {
        return make_error("output 0: quant8 SOFTMAX needs scale 1/256 and zeroPoint " + std::to_string(zp));
      }
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const auto& dims = in[0].dimensions;
    const std::vector<float> betas = read_floats(in[1]);
    if (betas.empty() || axis_out_of_range(dims, in))
      return make_error("internal: execute() called with unprepared inputs");
    const float beta = betas[0];
    int32_t axis = in.size() == 3 ? int_param(in[2]).value_or(-1) : -1;
    if (axis < 0) axis += static_cast<int32_t>(dims.size());
    uint64_t outer = 1;
    uint64_t inner = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int32_t>(i) < axis) outer *= dims[i];
      if (static_cast<int32_t>(i) > axis) inner *= dims[i];
    }
    const uint64_t n = dims[static_cast<size_t>(axis)];
    const bool quant = is_quant8(in[0].type);
    std::vector<float> x;
    if (quant) {
      for (int32_t q : read_ints(in[0])) x.push_back(static_cast<float>(q - in[0].zero_point) * in[0].scale);
    } else {
      x = read_floats(in[0]);
    }
    std::vector<float> y(x.size());
    for (uint64_t a = 0; a < outer; ++a) {
      for (uint64_t c = 0; c < inner; ++c) {
        const uint64_t base = a * n * inner + c;
        float mx = x[base];
        for (uint64_t k = 1; k < n; ++k) mx = std::max(mx, x[base + k * inner]);
        float sum = 0.0f;
        for (uint64_t k = 0; k < n; ++k) {
          y[base + k * inner] = std::exp((x[base + k * inner] - mx) * beta);
          sum += y[base + k * inner];
        }
        for (uint64_t k = 0; k < n; ++k) y[base + k * inner] /= sum;
      }
    }
    if (!quant) {
      write_floats(o, y);
      return {};
    }
    std::vector<int32_t> q(y.size());
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    for (size_t i = 0; i < y.size(); ++i) {
      const auto v = static_cast<int32_t>(std::lround(y[i] * 256.0f)) + o.zero_point;
      q[i] = std::clamp(v, qmin, qmax);
    }
    write_ints(o, q);
    return {};
  }
};

}  // namespace

const OperationKernel& softmax_kernel() {
  static const SoftmaxKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
