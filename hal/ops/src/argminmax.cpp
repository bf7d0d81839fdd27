// ARGMAX and ARGMIN kernels (NNAPI 1.2): the index of the largest (smallest) element along an axis.
// NNAPI signature: input 0 a tensor of rank >= 1 (TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32,
// TENSOR_QUANT8_ASYMM; TENSOR_QUANT8_ASYMM_SIGNED since 1.3), input 1 the axis (INT32 in [-n, n));
// output TENSOR_INT32 of the input's shape without the axis ([1] for a 1-D input). Ties give the
// smallest index. Quant8 compares raw values (the order of the real values, scale > 0).
#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class ArgMinMaxKernel final : public OperationKernel {
 public:
  explicit ArgMinMaxKernel(bool is_max) : max_(is_max) {}
  models::OperationType type() const override {
    return max_ ? models::OperationType::ARGMAX : models::OperationType::ARGMIN;
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r =
            expect_type(in, 0, "input",
                        {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r)
      return make_error(r.error());
    if (in[0].rank_known() && in[0].dimensions.empty()) return input_error(0, "input", "expected rank >= 1");
    auto axis = axis_param(in, 1, "axis", in[0]);
    if (!axis) return make_error(axis.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (out[0].type != OperandType::TENSOR_INT32)
      return make_error("output 0: expected TENSOR_INT32, got " +
                        std::string(models::to_string(out[0].type)));
    if (!*axis) return std::vector<std::vector<uint32_t>>{{}};
    std::vector<uint32_t> shape = in[0].dimensions;
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(**axis));
    if (shape.empty()) shape.push_back(1);
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto axis = axis_param(in, 1, "axis", in[0]);
    if (!axis || !*axis) return make_error("internal: unprepared ARGMAX/ARGMIN");
    const AxisSplit s = split_at(in[0].dimensions, **axis);
    // Floats and integers alike compare exactly as doubles (int32 and quant8 values are exact).
    const uint64_t total = s.outer * s.n * s.inner;
    std::vector<double> x(total);
    for (uint64_t i = 0; i < total; ++i) x[i] = models::read_element(in[0].type, *in[0].value, i);
    std::vector<int32_t> idx(s.outer * s.inner, 0);
    for (uint64_t a = 0; a < s.outer; ++a) {
      for (uint64_t c = 0; c < s.inner; ++c) {
        const uint64_t base = a * s.n * s.inner + c;
        uint64_t best = 0;
        for (uint64_t k = 1; k < s.n; ++k) {
          const double v = x[base + k * s.inner];
          const double b = x[base + best * s.inner];
          if (max_ ? v > b : v < b) best = k;  // strict: the first of equal values wins
        }
        idx[a * s.inner + c] = static_cast<int32_t>(best);
      }
    }
    write_ints(*out[0], idx);
    return {};
  }

 private:
  bool max_;
};

}  // namespace

const OperationKernel& argmax_kernel() {
  static const ArgMinMaxKernel kernel(true);
  return kernel;
}
const OperationKernel& argmin_kernel() {
  static const ArgMinMaxKernel kernel(false);
  return kernel;
}

}  // namespace npu::hal::ops
