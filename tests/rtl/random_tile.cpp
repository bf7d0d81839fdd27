#include "random_tile.h"

#include <algorithm>
#include <cmath>

#include "npu/common/fixed_point.h"

namespace npu::rtl::testing {
namespace {

int32_t uniform(std::mt19937& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

// A per-channel (multiplier, shift) pair; mostly realistic requantisation scales (right shifts), also
// scales >= 1 (left shifts, saturating for large accumulators), the extreme right shift 31, zero.
fx::QuantizedMultiplier random_multiplier(std::mt19937& rng) {
  const int kind = uniform(rng, 0, 19);
  if (kind == 0) return {0, 0};
  if (kind == 1) return {uniform(rng, 1 << 30, 0x7FFFFFFF), -31};
  if (kind == 2) return {uniform(rng, 1 << 30, 0x7FFFFFFF), uniform(rng, 8, 20)};
  const double log2_scale = kind < 5 ? std::uniform_real_distribution<double>(0.0, 4.0)(rng)
                                     : std::uniform_real_distribution<double>(-22.0, -4.0)(rng);
  return fx::quantize_multiplier(std::exp2(log2_scale));
}

}  // namespace

TileShape random_shape(sim::ArrayGeometry g, std::mt19937& rng, uint32_t max_m, uint32_t max_k) {
  TileShape s;
  const int m_kind = uniform(rng, 0, 9);
  s.m = m_kind == 0   ? static_cast<uint32_t>(uniform(rng, 1, 3))
        : m_kind == 1 ? static_cast<uint32_t>(uniform(rng, 257, static_cast<int32_t>(std::max(300u, max_m))))
                      : static_cast<uint32_t>(uniform(rng, 1, static_cast<int32_t>(max_m)));
  const int k_kind = uniform(rng, 0, 19);
  s.k = k_kind == 0  ? 0
        : k_kind < 4 ? static_cast<uint32_t>(uniform(rng, 1, static_cast<int32_t>(g.rows)))
                     : static_cast<uint32_t>(uniform(rng, 1, static_cast<int32_t>(max_k)));
  s.n =
      uniform(rng, 0, 2) == 0 ? g.cols : static_cast<uint32_t>(uniform(rng, 1, static_cast<int32_t>(g.cols)));
  return s;
}

RandomTile::RandomTile(TileShape shape, std::mt19937& rng) : shape_(shape) {
  lda_ = shape.k + static_cast<uint32_t>(uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 9) : 0);
  ldw_ = shape.n + static_cast<uint32_t>(uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 9) : 0);
  ldo_ = shape.n + static_cast<uint32_t>(uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 9) : 0);
  a_.resize(static_cast<size_t>(shape.m) * lda_);
  w_.resize(static_cast<size_t>(shape.k) * ldw_);
  // Activations sometimes saturated at the int8 extremes, to exercise the largest products.
  const bool extreme = uniform(rng, 0, 9) == 0;
  for (auto& v : a_)
    v = static_cast<int8_t>(extreme ? (uniform(rng, 0, 1) ? 127 : -128) : uniform(rng, -128, 127));
  for (auto& v : w_)
    v = static_cast<int8_t>(extreme ? (uniform(rng, 0, 1) ? 127 : -128) : uniform(rng, -128, 127));
  bias_.resize(shape.n);
  multiplier_.resize(shape.n);
  shift_.resize(shape.n);
  const bool per_tensor = uniform(rng, 0, 3) == 0;
  const auto tensor_qm = random_multiplier(rng);
  for (uint32_t j = 0; j < shape.n; ++j) {
    bias_[j] = uniform(rng, -(1 << 20), 1 << 20);
    const auto qm = per_tensor ? tensor_qm : random_multiplier(rng);
    multiplier_[j] = qm.multiplier;
    shift_[j] = qm.shift;
  }
  weight_offset_ = uniform(rng, 0, 3) == 0 ? 0 : uniform(rng, -255, 255);
  // A left shift of 8 or more can saturate the requantised value at INT32_MIN/MAX; adding a zero point
  // to that overflows int32, undefined in the C++ reference (the RTL wraps). Keep such tiles at zp = 0.
  const bool may_saturate = std::any_of(shift_.begin(), shift_.end(), [](int32_t sh) { return sh >= 8; });
  out_unsigned_ = uniform(rng, 0, 1) == 1;
  if (out_unsigned_) {
    zero_point_ = may_saturate ? 0 : uniform(rng, 0, 255);
    clamp_lo_ = uniform(rng, 0, 1) ? 0 : uniform(rng, 0, zero_point_);
    clamp_hi_ = uniform(rng, 0, 1) ? 255 : uniform(rng, std::max(clamp_lo_, zero_point_), 255);
  } else {
    zero_point_ = may_saturate ? 0 : uniform(rng, -128, 127);
    clamp_lo_ = uniform(rng, 0, 1) ? -128 : uniform(rng, -128, zero_point_);
    clamp_hi_ = uniform(rng, 0, 1) ? 127 : uniform(rng, std::max(clamp_lo_, zero_point_), 127);
  }
  out_size_ = shape.m == 0 ? 0 : static_cast<size_t>(shape.m - 1) * ldo_ + shape.n + 7;  // + tail guard
}

sim::Int8TileCommand RandomTile::command(uint8_t* out) const {
  sim::Int8TileCommand c;
  c.m = shape_.m;
  c.k = shape_.k;
  c.n = shape_.n;
  c.a = a_.data();
  c.lda = lda_;
  c.w = w_.data();
  c.ldw = ldw_;
  c.bias = bias_.data();
  c.weight_offset = weight_offset_;
  c.out_multiplier = multiplier_.data();
  c.out_shift = shift_.data();
  c.out_zero_point = zero_point_;
  c.clamp_lo = clamp_lo_;
  c.clamp_hi = clamp_hi_;
  c.out_unsigned = out_unsigned_;
  c.out = out;
  c.ldo = ldo_;
  return c;
}

std::vector<uint8_t> RandomTile::reference_output() const {
  auto out = fresh_output();
  sim::int8_tile_reference(command(out.data()));
  return out;
}

}  // namespace npu::rtl::testing
