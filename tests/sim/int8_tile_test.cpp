// The vectorised int8 tile kernels against the portable one, bit for bit: random shapes (odd K, N not a
// multiple of the vector width, single rows), random and extreme operands, and accumulators that wrap
// around 32 bits (as the RTL's adders do).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "npu/sim/core/compute_core.h"

namespace {

using namespace npu::sim;

struct Tile {
  uint32_t m, k, n;
  std::vector<int8_t> a, w;
  std::vector<int32_t> bias, mult, shift;
  int32_t weight_offset = 0, zero_point = 0;
  bool out_unsigned = false;

  Int8TileCommand command(uint8_t* out) const {
    Int8TileCommand c;
    c.m = m;
    c.k = k;
    c.n = n;
    c.a = a.data();
    c.lda = k + 3;  // padded rows: the kernels must honour the strides
    c.w = w.data();
    c.ldw = n + 5;
    c.bias = bias.data();
    c.weight_offset = weight_offset;
    c.out_multiplier = mult.data();
    c.out_shift = shift.data();
    c.out_zero_point = zero_point;
    c.clamp_lo = out_unsigned ? 0 : -128;
    c.clamp_hi = out_unsigned ? 255 : 127;
    c.out_unsigned = out_unsigned;
    c.out = out;
    c.ldo = n + 1;
    return c;
  }
};

Tile random_tile(std::mt19937& rng, uint32_t m, uint32_t k, uint32_t n, bool extreme) {
  Tile t{m, k, n, {}, {}, {}, {}, {}};
  std::uniform_int_distribution<int> byte(-128, 127), coin(0, 1);
  auto value = [&] { return static_cast<int8_t>(extreme ? (coin(rng) ? -128 : 127) : byte(rng)); };
  t.a.resize(static_cast<size_t>(m) * (k + 3));
  t.w.resize(static_cast<size_t>(std::max(k, 1u)) * (n + 5));
  for (auto& v : t.a) v = value();
  for (auto& v : t.w) v = value();
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), shift(-12, 4);
  for (uint32_t j = 0; j < n; ++j) {
    t.bias.push_back(any(rng));
    t.mult.push_back((1 << 30) + (any(rng) & 0x3FFFFFFF));
    t.shift.push_back(shift(rng));
  }
  t.weight_offset = byte(rng);
  t.zero_point = byte(rng);
  t.out_unsigned = coin(rng);
  return t;
}

void expect_kernels_agree(const Tile& t, const std::string& what) {
  const size_t out_bytes = static_cast<size_t>(t.m) * (t.n + 1);
  std::vector<uint8_t> want(out_bytes, 0xEE);
  int8_tile_portable(t.command(want.data()));
  for (auto kernel : {Int8Kernel::AVX2, Int8Kernel::AVX512_VNNI}) {
    std::vector<uint8_t> got(out_bytes, 0xEE);
    if (!int8_tile_with(kernel, t.command(got.data()))) continue;  // not on this CPU
    EXPECT_EQ(got, want) << what << " kernel " << static_cast<int>(kernel);
  }
  std::vector<uint8_t> dispatched(out_bytes, 0xEE);
  int8_tile_reference(t.command(dispatched.data()));
  EXPECT_EQ(dispatched, want) << what << " via " << int8_tile_kernel_name();
}

TEST(Int8Tile, VectorKernelsMatchThePortableKernelOnRandomShapes) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<uint32_t> dim(1, 70);
  for (int i = 0; i < 300; ++i) {
    const uint32_t m = dim(rng), k = dim(rng) * (i % 3 == 0 ? 9 : 1), n = dim(rng);
    expect_kernels_agree(random_tile(rng, m, k, n, i % 5 == 0), "tile " + std::to_string(i));
  }
  for (uint32_t k : {0u, 1u, 2u, 3u, 31u, 32u, 33u})
    expect_kernels_agree(random_tile(rng, 5, k, 17, false), "k " + std::to_string(k));
}

// K = 2^17 of (−128)·(−128) = 2^14 each sums to 2^31: the int32 accumulator wraps, in every kernel alike.
TEST(Int8Tile, AccumulatorWrapAroundIsBitExact) {
  std::mt19937 rng(7);
  Tile t = random_tile(rng, 3, 1u << 17, 20, false);
  std::fill(t.a.begin(), t.a.end(), static_cast<int8_t>(-128));
  std::fill(t.w.begin(), t.w.end(), static_cast<int8_t>(-128));
  t.mult.assign(20, 1 << 30);
  t.shift.assign(20, -20);
  expect_kernels_agree(t, "wrap");
  t = random_tile(rng, 4, (1u << 17) + 1, 33, true);
  expect_kernels_agree(t, "wrap, extreme");
}

// The channel's packed-weight cache: a tile whose weight bytes changed in place (same address, as a new
// DMA into the same SRAM) is computed with the new weights; unchanged bytes are packed once; more weight
// blocks than entries evict the least recently used. Every result equals the portable kernel's.
TEST(Int8Tile, WeightCacheFollowsTheBytesNotTheAddress) {
  std::mt19937 rng(3);
  std::vector<Tile> tiles;
  for (int i = 0; i < 6; ++i) tiles.push_back(random_tile(rng, 9, 40, 21, false));
  Int8WeightCache cache;
  auto check = [&](const Tile& t, const std::string& what) {
    const size_t out_bytes = static_cast<size_t>(t.m) * (t.n + 1);
    std::vector<uint8_t> want(out_bytes, 0xEE), got(out_bytes, 0xEE);
    int8_tile_portable(t.command(want.data()));
    int8_tile_reference(t.command(got.data()), cache);
    EXPECT_EQ(got, want) << what;
  };
  check(tiles[0], "first");
  check(tiles[0], "same bytes");
  tiles[0].w[5 * (tiles[0].n + 5) + 3] ^= 0x55;  // one weight of row 5, column 3
  check(tiles[0], "one weight changed in place");
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < tiles.size(); ++i) check(tiles[i], "block " + std::to_string(i));
  if (std::string(int8_tile_kernel_name()) == "avx512vnni") {
    // Tile 0: packed, a hit, packed again after the change (2 packs, 1 hit). Round 0: tile 0 hits, the
    // other five miss (5 packs). Rounds 1 and 2: six blocks cycling through four LRU entries miss every
    // time (12 packs). In all 19 packs and 2 hits.
    EXPECT_EQ(cache.packs(), 19u);
    EXPECT_EQ(cache.hits(), 2u);
  }
}

}  // namespace
