// TRANSPOSE kernel (NNAPI 1.1). NNAPI signature: exactly 2 inputs (NNAPI 1.1-1.3 all count them so):
// input 0 a tensor of rank <= 4 (FLOAT32/FLOAT16/QUANT8_ASYMM(_SIGNED)), input 1 the permutation, a 1-D
// TENSOR_INT32 of length rank holding each of 0..rank-1 once, which may be NO_VALUE (reverse the
// dimensions); output extent k is input extent perm[k], same type and quantisation.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// The permutation for rank `rank` from the inputs; nullopt while not known.
Result<std::optional<std::vector<size_t>>> permutation(std::span<const OperandInfo> in, size_t rank) {
  std::vector<size_t> perm(rank);
  if (in.size() < 2 || in[1].omitted()) {
    for (size_t k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
    return std::optional<std::vector<size_t>>(perm);
  }
  const auto p = int_tensor_value(in[1]);
  if (!p) return std::optional<std::vector<size_t>>();
  if (p->size() != rank)
    return input_error(1, "permutation",
                       "has " + std::to_string(p->size()) + " values, input rank is " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < rank; ++k) {
    const int32_t v = (*p)[k];
    if (v < 0 || static_cast<size_t>(v) >= rank || seen[static_cast<size_t>(v)])
      return input_error(1, "permutation", "is not a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<size_t>(v)] = true;
    perm[k] = static_cast<size_t>(v);
  }
  return std::optional<std::vector<size_t>>(perm);
}

class TransposeKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::TRANSPOSE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2)
      return make_error("expected 2 inputs (input 1 may be NO_VALUE), got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (!in[1].omitted()) {
      if (auto r = expect_type(in, 1, "permutation", {OperandType::TENSOR_INT32}); !r)
        return make_error(r.error());
      if (auto r = expect_rank(in[1], 1, "permutation", 1); !r) return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!in[0].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const size_t rank = in[0].dimensions.size();
    auto perm = permutation(in, rank);
    if (!perm) return make_error(perm.error());
    if (!*perm) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(rank, 0)};
    std::vector<uint32_t> shape(rank);
    for (size_t k = 0; k < rank; ++k) shape[k] = in[0].dimensions[(**perm)[k]];
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const size_t rank = in[0].dimensions.size();
    auto perm = permutation(in, rank);
    if (!perm || !*perm) return make_error("internal: permutation unknown at execution");
    const std::vector<uint64_t> is = row_major_strides(in[0].dimensions);
    const std::vector<uint32_t>& od = o.dimensions;
    return gather_elements(in[0], o, [&](uint64_t flat) {
      uint64_t src = 0;
      for (size_t k = rank; k-- > 0;) {
        src += (flat % od[k]) * is[(**perm)[k]];
        flat /= od[k];
      }
      return src;
    });
  }
};

}  // namespace

const OperationKernel& transpose_kernel() {
  static const TransposeKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
