// RESHAPE and SQUEEZE kernels (one file: both only relabel the shape; the bytes are copied unchanged
// and the output has the input's type and quantisation).
// RESHAPE: input 0 a tensor (rank <= 4, checked; FLOAT32/FLOAT16/QUANT8_ASYMM(_SIGNED)/INT32), input 1 the
// new shape as a 1-D TENSOR_INT32 (at most one -1, inferred from the element count). SQUEEZE (NNAPI 1.1):
// exactly 2 inputs (NNAPI 1.1-1.3 all count them so): input 0 a tensor of rank <= 4
// (FLOAT32/FLOAT16/QUANT8_ASYMM(_SIGNED)), input 1 a 1-D TENSOR_INT32 of dimensions to drop (each in
// [-rank, rank) and of extent 1), which may be NO_VALUE: then every extent-1 dimension is dropped.
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
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
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

class SqueezeKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SQUEEZE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2)
      return make_error("expected 2 inputs (input 1 may be NO_VALUE), got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    const bool has_dims = !in[1].omitted();
    if (has_dims) {
      if (auto r = expect_type(in, 1, "squeeze dimensions", {OperandType::TENSOR_INT32}); !r)
        return make_error(r.error());
      if (auto r = expect_rank(in[1], 1, "squeeze dimensions", 1); !r) return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!in[0].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const auto& dims = in[0].dimensions;
    const auto rank = static_cast<int32_t>(dims.size());
    std::vector<bool> drop(dims.size(), false);
    if (has_dims) {
      const auto axes = int_tensor_value(in[1]);
      if (!axes) return std::vector<std::vector<uint32_t>>{{}};
      for (int32_t a : *axes) {
        if (a < -rank || a >= rank)
          return input_error(1, "squeeze dimensions",
                             "axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
        const auto k = static_cast<size_t>(a < 0 ? a + rank : a);
        if (dims[k] != 1 && dims[k] != 0)
          return input_error(
              1, "squeeze dimensions",
              "dimension " + std::to_string(k) + " has extent " + std::to_string(dims[k]) + ", not 1");
        drop[k] = true;
      }
    } else {
      for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] == 0) return std::vector<std::vector<uint32_t>>{{}};  // unknown: cannot tell
        drop[k] = dims[k] == 1;
      }
    }
    std::vector<uint32_t> shape;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (!drop[k]) shape.push_back(dims[k]);
    }
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    if (o.data.size() != in[0].value->size()) return make_error("internal: squeeze size mismatch");
    o.data = *in[0].value;
    return {};
  }
};

}  // namespace

const OperationKernel& reshape_kernel() {
  static const ReshapeKernel kernel;
  return kernel;
}

const OperationKernel& squeeze_kernel() {
  static const SqueezeKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
