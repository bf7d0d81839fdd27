// CHANNEL_SHUFFLE kernel (NNAPI 1.2): the axis extent C is seen as [groups, C / groups] and transposed
// to [C / groups, groups], so output channel j * groups + g is input channel g * (C / groups) + j.
// NNAPI signature: input 0 a tensor of rank 1..4 (TENSOR_FLOAT16, TENSOR_FLOAT32,
// TENSOR_QUANT8_ASYMM; TENSOR_QUANT8_ASYMM_SIGNED since 1.3), input 1 num_groups (INT32 >= 1 dividing
// the axis extent), input 2 axis (INT32 in [-n, n)); output of the input's type, quantisation and shape.
#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class ChannelShuffleKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::CHANNEL_SHUFFLE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (in[0].rank_known() && (in[0].dimensions.empty() || in[0].dimensions.size() > 4))
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(in[0].dimensions.size()));
    auto groups = int_param_in_range(in, 1, "num_groups", 1, 0x7fffffff);
    if (!groups) return make_error(groups.error());
    auto axis = axis_param(in, 2, "axis", in[0]);
    if (!axis) return make_error(axis.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (*groups && *axis) {
      const uint32_t c = in[0].dimensions[**axis];
      if (c != 0 && c % static_cast<uint32_t>(**groups) != 0)
        return input_error(
            1, "num_groups",
            std::to_string(**groups) + " does not divide the axis extent " + std::to_string(c));
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto axis = axis_param(in, 2, "axis", in[0]);
    const auto groups = int_param(in[1]);
    if (!axis || !*axis || !groups) return make_error("internal: unprepared CHANNEL_SHUFFLE");
    const AxisSplit s = split_at(in[0].dimensions, **axis);
    const auto g = static_cast<uint64_t>(*groups);
    const uint64_t per = s.n / g;
    return gather_elements(in[0], *out[0], [&](uint64_t i) {
      const uint64_t inner = i % s.inner;
      const uint64_t c = (i / s.inner) % s.n;
      const uint64_t outer = i / (s.inner * s.n);
      const uint64_t src_c = (c % g) * per + c / g;
      return (outer * s.n + src_c) * s.inner + inner;
    });
  }
};

}  // namespace

const OperationKernel& channel_shuffle_kernel() {
  static const ChannelShuffleKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
