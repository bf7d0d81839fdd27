// LOGICAL_AND, LOGICAL_OR and LOGICAL_NOT kernels (NNAPI 1.2) on TENSOR_BOOL8 (any non-zero byte is
// true; results are 0 or 1). AND/OR: inputs 0 and 1 of rank <= 4, broadcast against each other
// (right-aligned, extents equal or 1); output TENSOR_BOOL8 of the broadcast shape. NOT: input 0 of any
// rank from 1 (NNAPI sets no upper limit); output TENSOR_BOOL8 of its shape.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Logical { kAnd, kOr, kNot };

class LogicalKernel final : public OperationKernel {
 public:
  LogicalKernel(models::OperationType type, Logical f) : type_(type), f_(f) {}
  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    const size_t n = f_ == Logical::kNot ? 1 : 2;
    if (in.size() != n)
      return make_error("expected " + std::to_string(n) + " input" + (n == 1 ? "" : "s") + ", got " +
                        std::to_string(in.size()));
    for (size_t k = 0; k < n; ++k) {
      const char* role = n == 1 ? "input" : k == 0 ? "input0" : "input1";
      if (auto r = expect_type(in, k, role, {OperandType::TENSOR_BOOL8}); !r) return make_error(r.error());
      if (n == 2)
        if (auto r = expect_rank_at_most(in[k], k, role, 4); !r) return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_BOOL8); !r) return make_error(r.error());
    if (n == 1) return std::vector<std::vector<uint32_t>>{in[0].dimensions};
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast_shape(in[0].dimensions, in[1].dimensions);
    if (!shape)
      return input_error(1, "input1",
                         "shape " + models::dims_to_string(in[1].dimensions) +
                             " does not broadcast against " + models::dims_to_string(in[0].dimensions));
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const uint64_t count = o.data.size();  // one byte per element
    const std::vector<uint8_t>& a = *in[0].value;
    for (uint64_t i = 0; i < count; ++i) {
      const bool x = a[f_ == Logical::kNot ? i : broadcast_index(i, o.dimensions, in[0].dimensions)] != 0;
      bool y = !x;
      if (f_ != Logical::kNot) {
        const bool b = (*in[1].value)[broadcast_index(i, o.dimensions, in[1].dimensions)] != 0;
        y = f_ == Logical::kAnd ? (x && b) : (x || b);
      }
      o.data[i] = y ? 1 : 0;
    }
    return {};
  }

 private:
  models::OperationType type_;
  Logical f_;
};

}  // namespace

const OperationKernel& logical_and_kernel() {
  static const LogicalKernel kernel(models::OperationType::LOGICAL_AND, Logical::kAnd);
  return kernel;
}
const OperationKernel& logical_not_kernel() {
  static const LogicalKernel kernel(models::OperationType::LOGICAL_NOT, Logical::kNot);
  return kernel;
}
const OperationKernel& logical_or_kernel() {
  static const LogicalKernel kernel(models::OperationType::LOGICAL_OR, Logical::kOr);
  return kernel;
}

}  // namespace npu::hal::ops
