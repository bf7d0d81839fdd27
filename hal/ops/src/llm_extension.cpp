// The com.npusim.llm vendor extension's operations (docs/npu_ops.md, "Vendor extension com.npusim.llm"):
// their signatures and shapes, for validation. They have no CPU reference: only a device that supports
// the extension runs them (the NPU, which computes them on its vector unit and MAC array), so execute()
// refuses.
//   RMS_NORM: 0 input (TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM or _SIGNED, rank 1-4, normalised over the last
//     axis), 1 gamma (the input's type, [last extent]), 2 epsilon (FLOAT32 constant, finite, > 0).
//     Output: the input's type and shape (its own scale and zero point when quantised).
//   ROPE: 0 input ([tokens, heads·head_dim], same types), 1 position of token 0 (INT32 scalar, constant or
//     not), 2 head_dim (INT32 constant, even, >= 2, dividing the row), 3 base (FLOAT32 constant, finite,
//     > 0). Output: the input's type and shape.
//   MATMUL: 0 a ([batch,] M, K), 1 b ([batch,] K, N, or [batch,] N, K when transposed; a's type, a's
//     rank, equal batch), 2 transpose_b (BOOL constant). Output [batch,] M, N of a's type. Ranks 2 and 3.
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
#include "npu/models/extensions.h"

namespace npu::hal::ops {

using models::LlmOperation;
using models::OperandType;
using namespace detail;

namespace {

constexpr std::initializer_list<OperandType> kTypes = {
    OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED};

bool is_constant(const OperandInfo& in) {
  return in.lifetime == models::Lifetime::CONSTANT_COPY ||
         in.lifetime == models::Lifetime::CONSTANT_REFERENCE;
}

// A constant scalar parameter of `type`, with its value known.
Result<void> expect_constant(std::span<const OperandInfo> inputs, size_t index, const char* role,
                             OperandType type) {
  if (auto r = expect_type(inputs, index, role, {type}); !r) return r;
  if (!is_constant(inputs[index]) || !inputs[index].has_value())
    return input_error(index, role, "must be a constant");
  return {};
}

Result<void> expect_inputs(std::span<const OperandInfo> inputs, size_t n) {
  if (inputs.size() != n)
    return make_error("expected " + std::to_string(n) + " inputs, got " + std::to_string(inputs.size()));
  return {};
}

class LlmKernel : public OperationKernel {
 public:
  std::string_view extension() const override { return models::kLlmExtension; }
  Result<void> execute(std::span<const OperandInfo>, std::span<models::Tensor* const>) const override {
    return make_error("a vendor extension operation (" + std::string(models::kLlmExtension) +
                      "): the CPU reference computes no vendor extension");
  }
};

class RmsNormKernel final : public LlmKernel {
 public:
  models::OperationType type() const override {
    return static_cast<models::OperationType>(LlmOperation::RMS_NORM);
  }
  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (auto r = expect_inputs(in, 3); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_type(in, 0, "input", kTypes); !r) return make_error(r.error());
    const OperandInfo& x = in[0];
    if (x.rank_known() && (x.dimensions.empty() || x.dimensions.size() > 4))
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(x.dimensions.size()));
    if (auto r = expect_type(in, 1, "gamma", {x.type}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[1], 1, "gamma", 1); !r) return make_error(r.error());
    const uint32_t n = x.dimensions.empty() ? 0 : x.dimensions.back();
    const uint32_t gn = in[1].dimensions.empty() ? 0 : in[1].dimensions[0];
    if (n && gn && n != gn)
      return input_error(
          1, "gamma", "has " + std::to_string(gn) + " elements, the input's last axis " + std::to_string(n));
    if (auto r = expect_constant(in, 2, "epsilon", OperandType::FLOAT32); !r) return make_error(r.error());
    const float eps = *float_param(in[2]);
    if (!std::isfinite(eps) || !(eps > 0.0f))
      return input_error(2, "epsilon", "must be finite and above 0, got " + std::to_string(eps));
    if (auto r = expect_output_type(out, 0, x.type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{x.dimensions};
  }
};

class RopeKernel final : public LlmKernel {
 public:
  models::OperationType type() const override {
    return static_cast<models::OperationType>(LlmOperation::ROPE);
  }
  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (auto r = expect_inputs(in, 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_type(in, 0, "input", kTypes); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 2); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "position", {OperandType::INT32}); !r) return make_error(r.error());
    if (auto r = expect_constant(in, 2, "head_dim", OperandType::INT32); !r) return make_error(r.error());
    const int32_t d = *int_param(in[2]);
    if (d < 2 || d % 2)
      return input_error(2, "head_dim", "must be even and at least 2, got " + std::to_string(d));
    const uint32_t width = in[0].dimensions.size() == 2 ? in[0].dimensions[1] : 0;
    if (width && width % static_cast<uint32_t>(d))
      return input_error(2, "head_dim",
                         std::to_string(d) + " does not divide the row of " + std::to_string(width));
    if (auto r = expect_constant(in, 3, "base", OperandType::FLOAT32); !r) return make_error(r.error());
    const float base = *float_param(in[3]);
    if (!std::isfinite(base) || !(base > 0.0f))
      return input_error(3, "base", "must be finite and above 0, got " + std::to_string(base));
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }
};

class MatmulKernel final : public LlmKernel {
 public:
  models::OperationType type() const override {
    return static_cast<models::OperationType>(LlmOperation::MATMUL);
  }
  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (auto r = expect_inputs(in, 3); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_type(in, 0, "a", kTypes); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "b", {in[0].type}); !r) return make_error(r.error());
    if (auto r = expect_constant(in, 2, "transpose_b", OperandType::BOOL); !r) return make_error(r.error());
    const bool transpose = *bool_param(in[2]);
    const auto& a = in[0].dimensions;
    const auto& b = in[1].dimensions;
    if (in[0].rank_known() && a.size() != 2 && a.size() != 3)
      return input_error(0, "a", "expected rank 2 or 3, got " + std::to_string(a.size()));
    if (in[0].rank_known() && in[1].rank_known() && a.size() != b.size())
      return input_error(
          1, "b", "expected a's rank " + std::to_string(a.size()) + ", got " + std::to_string(b.size()));
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const size_t r = a.size();
    const uint32_t k_b = transpose ? b[r - 1] : b[r - 2];
    const uint32_t n = transpose ? b[r - 2] : b[r - 1];
    if (a[r - 1] && k_b && a[r - 1] != k_b)
      return input_error(1, "b",
                         std::string(transpose ? "transposed, " : "") + "has K = " + std::to_string(k_b) +
                             ", a has K = " + std::to_string(a[r - 1]));
    if (r == 3 && a[0] && b[0] && a[0] != b[0])
      return input_error(1, "b", "has batch " + std::to_string(b[0]) + ", a has " + std::to_string(a[0]));
    if (auto res = expect_output_type(out, 0, in[0].type); !res) return make_error(res.error());
    std::vector<uint32_t> shape(a.begin(), a.end() - 1);
    shape.push_back(n);
    if (r == 3 && !shape[0]) shape[0] = b[0];
    return std::vector<std::vector<uint32_t>>{shape};
  }
};

}  // namespace

const OperationKernel* find_extension_kernel(std::string_view extension, uint16_t type) {
  static const RmsNormKernel rms_norm;
  static const RopeKernel rope;
  static const MatmulKernel matmul;
  if (extension != models::kLlmExtension) return nullptr;
  for (const OperationKernel* k : std::initializer_list<const OperationKernel*>{&rms_norm, &rope, &matmul})
    if (static_cast<uint16_t>(k->type()) == type) return k;
  return nullptr;
}

const OperationKernel* find_kernel(const std::vector<models::ExtensionNameAndPrefix>& table,
                                   models::OperationType type) {
  if (!models::is_extension_type(type)) return find_kernel(type);
  const auto r = models::resolve_extension_operation(table, type);
  return r.operation ? find_extension_kernel(r.extension->name, r.operation->type) : nullptr;
}

}  // namespace npu::hal::ops
