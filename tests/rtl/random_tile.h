// RandomTile: a seeded random Int8TileCommand with its own buffers, for the RTL tests and benchmark.
// Shapes, strides, bias, weight_offset, per-channel multipliers and shifts (both signs, including
// saturating ones), zero points, clamps and the output type are all drawn from the seed. The output
// buffer is pre-filled with a sentinel so writes outside the N x M window are caught.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "npu/sim/core/compute_core.h"

namespace npu::rtl::testing {

struct TileShape {
  uint32_t m = 0, k = 0, n = 0;
};

class RandomTile {
 public:
  static constexpr uint8_t kSentinel = 0xA5;

  RandomTile(TileShape shape, std::mt19937& rng);

  // The command writing into `out` (size out_size()), pre-filled with kSentinel by fresh_output().
  sim::Int8TileCommand command(uint8_t* out) const;
  std::vector<uint8_t> fresh_output() const { return std::vector<uint8_t>(out_size_, kSentinel); }
  std::vector<uint8_t> reference_output() const;  // npu::sim::int8_tile_reference on a fresh output
  TileShape shape() const { return shape_; }

 private:
  TileShape shape_;
  uint32_t lda_, ldw_, ldo_;
  std::vector<int8_t> a_, w_;
  std::vector<int32_t> bias_, multiplier_, shift_;
  int32_t weight_offset_, zero_point_, clamp_lo_, clamp_hi_;
  bool out_unsigned_;
  size_t out_size_;
};

// A random shape for an array of `g`: M up to max_m (sometimes beyond the 256-row accumulator), K up to
// max_k (often not a multiple of rows, sometimes 0), N in [1, cols] (often smaller than the array).
TileShape random_shape(sim::ArrayGeometry g, std::mt19937& rng, uint32_t max_m, uint32_t max_k);

}  // namespace npu::rtl::testing
