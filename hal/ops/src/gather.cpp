// GATHER kernel (NNAPI 1.2): input 0 a tensor of rank n >= 1 (FLOAT32/FLOAT16/INT32/QUANT8_ASYMM;
// QUANT8_ASYMM_SIGNED since 1.3), input 1 the axis (INT32 in [-n, n)), input 2 the indices
// (TENSOR_INT32 of rank k, each in [0, extent of the axis)); output of rank n + k − 1 — the input's
// dimensions with the axis replaced by the indices' — and the input's type and quantisation.
// The ONNX importer uses it for reflect padding and reversals with constant indices.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class GatherKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::GATHER; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r =
            expect_type(in, 0, "input",
                        {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 1, "axis", {OperandType::INT32}); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "indices", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!in[0].rank_known() || !in[2].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const auto n = static_cast<int32_t>(in[0].dimensions.size());
    if (n < 1) return input_error(0, "input", "must have rank >= 1");
    auto axis = int_param_in_range(in, 1, "axis", -n, n - 1);
    if (!axis) return make_error(axis.error());
    if (!*axis) return std::vector<std::vector<uint32_t>>{{}};
    const auto a = static_cast<size_t>(**axis < 0 ? **axis + n : **axis);
    std::vector<uint32_t> shape(in[0].dimensions.begin(), in[0].dimensions.begin() + static_cast<long>(a));
    shape.insert(shape.end(), in[2].dimensions.begin(), in[2].dimensions.end());
    shape.insert(shape.end(), in[0].dimensions.begin() + static_cast<long>(a) + 1, in[0].dimensions.end());
    if (shape.size() > 4) return make_error("output rank " + std::to_string(shape.size()) + " exceeds 4");
    if (const auto idx = int_tensor_value(in[2]); idx && in[0].dimensions[a] != 0)
      for (int32_t i : *idx)
        if (i < 0 || static_cast<uint32_t>(i) >= in[0].dimensions[a])
          return input_error(2, "indices",
                             "index " + std::to_string(i) + " out of range for extent " +
                                 std::to_string(in[0].dimensions[a]));
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const auto& d = in[0].dimensions;
    const auto n = static_cast<int32_t>(d.size());
    const int32_t axis_raw = int_param(in[1]).value_or(0);
    const auto a = static_cast<size_t>(axis_raw < 0 ? axis_raw + n : axis_raw);
    const std::vector<int32_t> idx = read_ints(in[2]);
    uint64_t inner = 1;
    for (size_t k = a + 1; k < d.size(); ++k) inner *= d[k];
    const uint64_t extent = d[a];
    const uint64_t per_outer = idx.size() * inner;
    for (int32_t i : idx)
      if (i < 0 || static_cast<uint64_t>(i) >= extent)
        return input_error(2, "indices", "index " + std::to_string(i) + " out of range");
    return gather_elements(in[0], *out[0], [&](uint64_t o) {
      const uint64_t outer = o / per_outer, rest = o % per_outer;
      return (outer * extent + static_cast<uint64_t>(idx[rest / inner])) * inner + rest % inner;
    });
  }
};

}  // namespace

const OperationKernel& gather_kernel() {
  static const GatherKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
