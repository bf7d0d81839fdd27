// Helpers shared by the NN HAL 1.2/1.3 shape and activation kernels (internal to npu_hal_ops): an axis
// parameter checked against a rank, the outer/axis/inner split of a row-major tensor, and the
// float-through requantisation some quantised kernels use. Header-only; no state.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace npu::hal::ops::detail {

// Input `index` is an INT32 scalar axis in [-rank, rank) (rank + extra for EXPAND_DIMS-style
// parameters). Returns the non-negative axis, or nullopt while the value or the rank is unknown.
inline Result<std::optional<size_t>> axis_param(std::span<const OperandInfo> in, size_t index,
                                                const char* role, const OperandInfo& tensor,
                                                int32_t extra = 0) {
  if (auto r = expect_type(in, index, role, {models::OperandType::INT32}); !r) return make_error(r.error());
  const auto v = int_param(in[index]);
  if (!v || !tensor.rank_known()) return std::optional<size_t>();
  const auto rank = static_cast<int32_t>(tensor.dimensions.size()) + extra;
  if (*v < -rank || *v >= rank)
    return input_error(index, role,
                       "expected a value in [" + std::to_string(-rank) + ", " + std::to_string(rank) +
                           "), got " + std::to_string(*v));
  return std::optional<size_t>(static_cast<size_t>(*v < 0 ? *v + rank : *v));
}

// A row-major tensor seen as [outer, n, inner] around `axis`.
struct AxisSplit {
  uint64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const std::vector<uint32_t>& dims, size_t axis) {
  AxisSplit s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < axis) s.outer *= dims[i];
    if (i == axis) s.n = dims[i];
    if (i > axis) s.inner *= dims[i];
  }
  return s;
}

// A real value to the quantised output: round half away from zero, add the zero point, clamp to the
// type. Used where NNAPI's reference requantises through float.
inline int32_t quantize_real(double real, float scale, int32_t zero_point, models::OperandType t) {
  int32_t qmin = 0;
  int32_t qmax = 0;
  quant8_range(t, &qmin, &qmax);
  const double q = std::round(real / static_cast<double>(scale)) + zero_point;
  if (!(q >= qmin)) return qmin;  // NaN lands on qmin too
  if (q > qmax) return qmax;
  return static_cast<int32_t>(q);
}

// Quant8 scale must be > 0 (an operand without usable quantisation cannot be computed on).
inline Result<void> expect_quant_scale(const OperandInfo& o, const std::string& what) {
  if (is_quant8(o.type) && !(o.scale > 0.0f))
    return make_error(what + ": quant8 scale must be > 0, got " + std::to_string(o.scale));
  return {};
}

}  // namespace npu::hal::ops::detail
