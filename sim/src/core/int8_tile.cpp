#include <algorithm>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/sim/core/compute_core.h"

namespace npu::sim {

// Loops ordered k-outer, n-inner over contiguous weight rows so the compiler vectorises the widening
// int8 MACs (this file is built at -O3). Integer wrapping addition is associative, so the order does
// not change a bit of the result.
void int8_tile_reference(const Int8TileCommand& c) {
  std::vector<uint32_t> acc(c.n);
  for (uint32_t i = 0; i < c.m; ++i) {
    const int8_t* a_row = c.a + static_cast<size_t>(i) * c.lda;
    uint32_t row_sum = 0;
    std::fill(acc.begin(), acc.end(), 0u);
    for (uint32_t kk = 0; kk < c.k; ++kk) {
      const int32_t a = a_row[kk];
      row_sum += static_cast<uint32_t>(a);
      const int8_t* w_row = c.w + static_cast<size_t>(kk) * c.ldw;
      for (uint32_t j = 0; j < c.n; ++j) acc[j] += static_cast<uint32_t>(a * static_cast<int32_t>(w_row[j]));
    }
    for (uint32_t j = 0; j < c.n; ++j) {
      // 32-bit wrapping, as the RTL's adders (and TFLite's int32 arithmetic in practice); spelled in
      // uint32 so that C++ defines it.
      const auto scaled = fx::multiply_by_quantized_multiplier(
          static_cast<int32_t>(acc[j] + static_cast<uint32_t>(c.bias[j]) -
                               static_cast<uint32_t>(c.weight_offset) * row_sum),
          {c.out_multiplier[j], c.out_shift[j]});
      const int32_t v = std::clamp(
          static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(c.out_zero_point)), c.clamp_lo,
          c.clamp_hi);
      c.out[static_cast<size_t>(i) * c.ldo + j] =
          c.out_unsigned ? static_cast<uint8_t>(v) : static_cast<uint8_t>(static_cast<int8_t>(v));
    }
  }
}

}  // namespace npu::sim
