// CAST kernel (NNAPI 1.2; same-type casts of more types since 1.3). NNAPI signature: input 0 a tensor,
// output 0 a tensor of the same shape. Between TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32 and
// TENSOR_QUANT8_ASYMM any pair is allowed; TENSOR_BOOL8, TENSOR_QUANT16_ASYMM, TENSOR_QUANT16_SYMM,
// TENSOR_QUANT8_ASYMM_SIGNED and TENSOR_QUANT8_SYMM cast only to their own type (a copy).
// Values convert as numbers and quantisation is ignored: a quant8 element's raw value 7 casts to 7.0,
// whatever its scale and zero point. Towards an integer type the value is truncated toward zero after
// clamping to the type's range ([0, 255] for quant8, as NNAPI's reference clamps; int32 saturates where
// the reference's static_cast would be undefined); NaN casts to 0. Towards FLOAT16 the value is rounded
// to nearest even.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

bool convertible(OperandType t) {
  return t == OperandType::TENSOR_FLOAT16 || t == OperandType::TENSOR_FLOAT32 ||
         t == OperandType::TENSOR_INT32 || t == OperandType::TENSOR_QUANT8_ASYMM;
}

bool same_type_only(OperandType t) {
  return t == OperandType::TENSOR_BOOL8 || t == OperandType::TENSOR_QUANT16_ASYMM ||
         t == OperandType::TENSOR_QUANT16_SYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         t == OperandType::TENSOR_QUANT8_SYMM;
}

class CastKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::CAST; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r =
            expect_type(in, 0, "input",
                        {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_BOOL8,
                         OperandType::TENSOR_QUANT16_ASYMM, OperandType::TENSOR_QUANT16_SYMM,
                         OperandType::TENSOR_QUANT8_ASYMM_SIGNED, OperandType::TENSOR_QUANT8_SYMM});
        !r)
      return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    const OperandType from = in[0].type;
    const OperandType to = out[0].type;
    const bool ok = from == to || (convertible(from) && convertible(to));
    if (!ok) {
      return make_error("output 0: cannot cast " + std::string(models::to_string(from)) + " to " +
                        std::string(models::to_string(to)) +
                        (same_type_only(from) ? " (this type casts only to itself)"
                                              : " (expected TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32 or "
                                                "TENSOR_QUANT8_ASYMM)"));
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const OperandType from = in[0].type;
    if (from == o.type) {  // same type: the element bytes are copied
      const size_t n = std::min(o.data.size(), in[0].value->size());
      std::copy_n(in[0].value->begin(), n, o.data.begin());
      return {};
    }
    const uint64_t count = o.data.size() / models::element_size(o.type);
    // Every value of the four convertible types is exact in a double.
    std::vector<double> v(count);
    for (uint64_t i = 0; i < count; ++i) v[i] = models::read_element(from, *in[0].value, i);
    if (models::is_float_type(o.type)) {
      for (uint64_t i = 0; i < count; ++i) models::write_element(o.type, o.data, i, v[i]);
      return {};
    }
    const double lo = o.type == OperandType::TENSOR_INT32 ? std::numeric_limits<int32_t>::min() : 0.0;
    const double hi = o.type == OperandType::TENSOR_INT32 ? std::numeric_limits<int32_t>::max() : 255.0;
    for (uint64_t i = 0; i < count; ++i) {
      double x = v[i];
      if (std::isnan(x)) x = 0.0;
      x = std::trunc(std::clamp(x, lo, hi));
      models::write_element(o.type, o.data, i, x);  // already an integer in range: stored exactly
    }
    return {};
  }
};

}  // namespace

const OperationKernel& cast_kernel() {
  static const CastKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
