// LOG_SOFTMAX kernel (NNAPI 1.2): output = beta * x - log(sum over the axis of exp(beta * x)).
// NNAPI signature: input 0 a TENSOR_FLOAT16 or TENSOR_FLOAT32 tensor of rank >= 1, input 1 beta (FLOAT16
// for a TENSOR_FLOAT16 input, else FLOAT32), input 2 the axis (INT32 in [-n, n)); output of the input's
// type and shape. Computed in float32, stably: with y = beta * x and m the largest y along the axis,
// output = (y - m) - log(sum exp(y - m)), the sum in axis order; FLOAT16 outputs rounded to nearest even.
#include <algorithm>
#include <cmath>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class LogSoftmaxKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::LOG_SOFTMAX; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32}); !r)
      return make_error(r.error());
    if (in[0].rank_known() && in[0].dimensions.empty()) return input_error(0, "input", "expected rank >= 1");
    const OperandType st =
        in[0].type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "beta", {st}); !r) return make_error(r.error());
    if (const auto b = float_param(in[1]); b && !std::isfinite(*b))
      return input_error(1, "beta", "must be finite");
    auto axis = axis_param(in, 2, "axis", in[0]);
    if (!axis) return make_error(axis.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto axis = axis_param(in, 2, "axis", in[0]);
    const auto beta = float_param(in[1]);
    if (!axis || !*axis || !beta) return make_error("internal: unprepared LOG_SOFTMAX");
    const AxisSplit s = split_at(in[0].dimensions, **axis);
    std::vector<float> y = read_floats(in[0]);
    for (float& v : y) v *= *beta;
    for (uint64_t a = 0; a < s.outer; ++a) {
      for (uint64_t c = 0; c < s.inner; ++c) {
        const uint64_t base = a * s.n * s.inner + c;
        float m = y[base];
        for (uint64_t k = 1; k < s.n; ++k) m = std::max(m, y[base + k * s.inner]);
        float sum = 0.0f;
        for (uint64_t k = 0; k < s.n; ++k) sum += std::exp(y[base + k * s.inner] - m);
        const float log_sum = std::log(sum);
        for (uint64_t k = 0; k < s.n; ++k) y[base + k * s.inner] = (y[base + k * s.inner] - m) - log_sum;
      }
    }
    write_floats(*out[0], y);
    return {};
  }
};

}  // namespace

const OperationKernel& log_softmax_kernel() {
  static const LogSoftmaxKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
