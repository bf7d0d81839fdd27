// Helpers the recurrent kernels share (internal to npu_hal_ops): the float types they take, 2-D and 1-D
// shape checks with uniform messages, the activation codes of RNN/LSTM and the float matrix-vector
// product. Float arithmetic only; the quantised LSTMs have their own.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include "kernel_util.h"

namespace npu::hal::ops::detail {

inline constexpr std::initializer_list<OperandType> kFloatTypes = {OperandType::TENSOR_FLOAT32,
                                                                   OperandType::TENSOR_FLOAT16};

// Shape [rows, cols] check of a float tensor when known; `rows`/`cols` 0 = any. Returns the extents.
inline Result<std::pair<uint32_t, uint32_t>> matrix(std::span<const OperandInfo> in, size_t i,
                                                    const char* role, uint32_t rows, uint32_t cols,
                                                    OperandType type) {
  if (auto r = expect_type(in, i, role, {type}); !r) return make_error(r.error());
  if (auto r = expect_rank(in[i], i, role, 2); !r) return make_error(r.error());
  if (!in[i].rank_known()) return std::pair<uint32_t, uint32_t>{rows, cols};
  const auto& d = in[i].dimensions;
  if ((rows != 0 && d[0] != 0 && d[0] != rows) || (cols != 0 && d[1] != 0 && d[1] != cols)) {
    return input_error(i, role,
                       "expected shape [" + std::to_string(rows) + ", " + std::to_string(cols) + "], got " +
                           models::dims_to_string(d));
  }
  return std::pair<uint32_t, uint32_t>{d[0] != 0 ? d[0] : rows, d[1] != 0 ? d[1] : cols};
}

inline Result<uint32_t> vector(std::span<const OperandInfo> in, size_t i, const char* role, uint32_t n,
                               OperandType type) {
  if (auto r = expect_type(in, i, role, {type}); !r) return make_error(r.error());
  if (auto r = expect_rank(in[i], i, role, 1); !r) return make_error(r.error());
  if (!in[i].rank_known()) return n;
  const uint32_t d = in[i].dimensions[0];
  if (n != 0 && d != 0 && d != n)
    return input_error(i, role, "expected " + std::to_string(n) + " elements, got " + std::to_string(d));
  return d != 0 ? d : n;
}

inline float activate(int32_t act, float x) {
  switch (act) {
    case 1:
      return std::max(0.0f, x);
    case 2:
      return std::clamp(x, -1.0f, 1.0f);
    case 3:
      return std::clamp(x, 0.0f, 6.0f);
    case 4:
      return std::tanh(x);
    case 6:
      return 1.0f / (1.0f + std::exp(-x));
    default:
      return x;
  }
}

// out[b * rows + r] += sum_c m[r * cols + c] * v[b * cols + c]
inline void matvec_acc(const std::vector<float>& m, uint64_t rows, uint64_t cols, const std::vector<float>& v,
                       uint64_t batch, std::vector<float>* out) {
  for (uint64_t b = 0; b < batch; ++b)
    for (uint64_t r = 0; r < rows; ++r) {
      float acc = 0.0f;
      for (uint64_t c = 0; c < cols; ++c) acc += m[r * cols + c] * v[b * cols + c];
      (*out)[b * rows + r] += acc;
    }
}

inline bool sizes_ok(const std::vector<float>& v, uint64_t n) { return v.size() >= n; }

}  // namespace npu::hal::ops::detail
