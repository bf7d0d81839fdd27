// INSTANCE_NORMALIZATION kernel (NNAPI 1.2): each (batch, channel) plane is normalised over height and
// width: output = (x - mean) * gamma / sqrt(variance + epsilon) + beta, the variance the mean of squared
// deviations (biased). NNAPI signature: input 0 a 4-D TENSOR_FLOAT16 or TENSOR_FLOAT32 tensor, inputs 1
// gamma, 2 beta, 3 epsilon (FLOAT16 scalars for a TENSOR_FLOAT16 input, else FLOAT32), 4 layout (BOOL,
// true for NCHW); output of the input's type and shape. Means are accumulated in float32 in plane order.
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class InstanceNormalizationKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::INSTANCE_NORMALIZATION; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 5) return make_error("expected 5 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32}); !r)
      return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    const OperandType st =
        in[0].type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    static constexpr const char* kRoles[] = {"gamma", "beta", "epsilon"};
    for (size_t k = 1; k <= 3; ++k) {
      if (auto r = expect_type(in, k, kRoles[k - 1], {st}); !r) return make_error(r.error());
      if (const auto v = float_param(in[k]); v && !std::isfinite(*v))
        return input_error(k, kRoles[k - 1], "must be finite");
    }
    if (const auto eps = float_param(in[3]); eps && *eps < 0.0f)
      return input_error(3, "epsilon", "must be >= 0, got " + std::to_string(*eps));
    if (auto r = expect_type(in, 4, "layout", {OperandType::BOOL}); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const auto gamma = float_param(in[1]);
    const auto beta = float_param(in[2]);
    const auto eps = float_param(in[3]);
    const auto nchw = bool_param(in[4]);
    if (!gamma || !beta || !eps || !nchw || in[0].dimensions.size() != 4)
      return make_error("internal: unprepared INSTANCE_NORMALIZATION");
    const Nhwc d = input_extents(in[0], *nchw);
    const Strides st = layout_strides(*nchw, d.h, d.w, d.c);
    const std::vector<float> x = read_floats(in[0]);
    std::vector<float> y(x.size());
    const auto count = static_cast<float>(static_cast<uint64_t>(d.h) * d.w);
    for (uint64_t b = 0; b < d.n; ++b) {
      for (uint64_t c = 0; c < d.c; ++c) {
        auto at = [&](uint64_t h, uint64_t w) { return b * st.b + h * st.y + w * st.x + c * st.c; };
        float sum = 0.0f;
        for (uint64_t h = 0; h < d.h; ++h)
          for (uint64_t w = 0; w < d.w; ++w) sum += x[at(h, w)];
        const float mean = sum / count;
        float sq = 0.0f;
        for (uint64_t h = 0; h < d.h; ++h)
          for (uint64_t w = 0; w < d.w; ++w) sq += (x[at(h, w)] - mean) * (x[at(h, w)] - mean);
        const float scale = *gamma / std::sqrt(sq / count + *eps);
        for (uint64_t h = 0; h < d.h; ++h)
          for (uint64_t w = 0; w < d.w; ++w) y[at(h, w)] = (x[at(h, w)] - mean) * scale + *beta;
      }
    }
    write_floats(*out[0], y);
    return {};
  }
};

}  // namespace

const OperationKernel& instance_normalization_kernel() {
  static const InstanceNormalizationKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
