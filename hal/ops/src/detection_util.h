// Helpers shared by the detection operations' kernels (detection_*.cpp), internal to npu_hal_ops.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace npu::hal::ops::detail {

// Values as reals: floats as they are, quantised types dequantised with their scale and zero point.
inline std::vector<float> real_values(const OperandInfo& in) {
  if (models::is_float_type(in.type)) return read_floats(in);
  std::vector<int32_t> q = read_ints(in);
  std::vector<float> v(q.size());
  for (size_t i = 0; i < q.size(); ++i) v[i] = static_cast<float>(q[i] - in.zero_point) * in.scale;
  return v;
}

// Writes reals into a float tensor, or quantises them (round half away from zero, clamped to the type).
inline void write_reals(models::Tensor& out, const std::vector<float>& v) {
  if (models::is_float_type(out.type)) {
    write_floats(out, v);
    return;
  }
  int64_t lo = 0, hi = 0;
  models::integer_range(out.type, &lo, &hi);
  std::vector<int32_t> q(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double r = std::round(static_cast<double>(v[i]) / out.scale) + out.zero_point;
    q[i] = static_cast<int32_t>(std::clamp<double>(r, static_cast<double>(lo), static_cast<double>(hi)));
  }
  write_ints(out, q);
}

inline Result<void> expect_box_quant(const OperandInfo& in, size_t index, const char* role) {
  if (in.type == OperandType::TENSOR_QUANT16_ASYMM && (in.scale != 0.125f || in.zero_point != 0))
    return input_error(index, role, "quant16 asymm boxes need scale 0.125 and zero point 0");
  return {};
}

// Shape [rows, cols] when known (0 = any).
inline Result<void> expect_2d(const OperandInfo& in, size_t index, const char* role, uint32_t rows,
                              uint32_t cols) {
  if (auto r = expect_rank(in, index, role, 2); !r) return r;
  if (!in.rank_known()) return {};
  const auto& d = in.dimensions;
  if ((rows && d[0] && d[0] != rows) || (cols && d[1] && d[1] != cols))
    return input_error(index, role,
                       "expected [" + std::to_string(rows) + ", " + std::to_string(cols) +
                           "] (0 = any), got " + models::dims_to_string(d));
  return {};
}

inline uint32_t dim(const OperandInfo& in, size_t i) {
  return in.dimensions.size() > i ? in.dimensions[i] : 0;
}

}  // namespace npu::hal::ops::detail
