// RESHAPE kernel. NNAPI signature: input 0 a tensor (rank <= 4), input 1 the new shape as a 1-D
// TENSOR_INT32 (at most one -1, inferred from the element count); output of the same type and
// quantisation. The bytes are copied unchanged.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class ReshapeKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RESHAPE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(
            in, 0, "input",
            {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
             OperandType::TENSOR_QUANT8_ASYMM_SIGNED, OperandType::TENSOR_INT32});
        !r) {
      return make_error(r.error());
    }
    if (auto r = expect_type(in, 1, "shape", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[1], 1, "shape", 1); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (out[0].scale != in[0].scale || out[0].zero_point != in[0].zero_point) {
      return make_error("output 0: quantisation must equal the input's");
    }
    if (!in[1].has_value()) {
      const uint32_t rank = in[1].dimensions.size() == 1 ? in[1].dimensions[0] : 0;
      return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(rank, 0)};
    }
    const std::vector<int32_t> target = read_ints(in[1]);
    std::vector<uint32_t> shape(target.size());
    std::optional<size_t> stretch;
    uint64_t known = 1;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == -1) {
        if (stretch) return input_error(1, "shape", "has more than one -1");
        stretch = i;
        continue;
      }
      if (target[i] <= 0)
        return input_error(1, "shape", "extent " + std::to_string(target[i]) + " must be > 0 or -1");
      shape[i] = static_cast<uint32_t>(target[i]);
      known *= shape[i];
      if (known > (uint64_t{1} << 40)) return input_error(1, "shape", "too large");
    }
    const auto total = in[0].rank_known() ? known_product(in[0].dimensions) : std::nullopt;
    if (total) {
      if (stretch) {
        if (*total % known != 0)
          return input_error(1, "shape", "cannot hold " + std::to_string(*total) + " elements");
        shape[*stretch] = static_cast<uint32_t>(*total / known);
      } else if (*total != known) {
        return input_error(1, "shape",
                           "has " + std::to_string(known) + " elements, input has " + std::to_string(*total));
      }
    }
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    if (o.data.size() != in[0].value->size()) return make_error("internal: reshape size mismatch");
    o.data = *in[0].value;
    return {};
  }
};

}  // namespace

const OperationKernel& reshape_kernel() {
  static const ReshapeKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
