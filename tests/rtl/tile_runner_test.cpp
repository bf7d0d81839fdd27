// Bit-exactness of the verilated compute core (plain C++ build) against npu::sim::int8_tile_reference,
// on seeded random tiles for every built geometry, plus the corner cases and the runner's errors.
#include "npu/rtl/tile_runner.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "npu/sim/core/systolic_timing.h"
#include "random_tile.h"

namespace npu::rtl {
namespace {

using testing::RandomTile;
using testing::TileShape;

std::string describe(const RandomTile& t) {
  const auto s = t.shape();
  return "m=" + std::to_string(s.m) + " k=" + std::to_string(s.k) + " n=" + std::to_string(s.n);
}

// Output bytes of a tile that are not one of its clamp bounds: a bit-exactness test is only as
// strong as the share of outputs that are not simply clamped.
struct Interior {
  uint64_t interior = 0, total = 0;
};

// Runs `tile` on the RTL and compares every byte of the output buffer (padding included) with the
// reference; returns the cycles.
uint64_t expect_bit_exact(TileRunner& runner, const RandomTile& tile, Interior* interior = nullptr) {
  auto out = tile.fresh_output();
  const auto cmd = tile.command(out.data());
  const uint64_t cycles = runner.run(cmd);
  const auto expected = tile.reference_output();
  if (interior != nullptr) {
    for (uint32_t i = 0; i < cmd.m; ++i) {
      for (uint32_t j = 0; j < cmd.n; ++j) {
        const uint8_t b = out[static_cast<size_t>(i) * cmd.ldo + j];
        interior->interior +=
            b != static_cast<uint8_t>(cmd.clamp_lo) && b != static_cast<uint8_t>(cmd.clamp_hi);
        ++interior->total;
      }
    }
  }
  size_t mismatches = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] != expected[i] && ++mismatches <= 5) {
      ADD_FAILURE() << describe(tile) << ": byte " << i << " rtl=" << int(out[i])
                    << " ref=" << int(expected[i]);
    }
  }
  EXPECT_EQ(mismatches, 0u) << describe(tile);
  return cycles;
}

struct BitExactCase {
  sim::ArrayGeometry geometry;
  int tiles;
  uint32_t max_m, max_k;
};

// Readable parameter names in the ctest test list.
void PrintTo(const BitExactCase& c, std::ostream* os) {
  *os << c.geometry.rows << "x" << c.geometry.cols << ", " << c.tiles << " tiles";
}

class TileRunnerBitExact : public ::testing::TestWithParam<BitExactCase> {};

TEST_P(TileRunnerBitExact, RandomTilesMatchReference) {
  const auto p = GetParam();
  auto runner = make_tile_runner(p.geometry);
  std::mt19937 rng(1234 + p.geometry.rows);
  uint64_t cycles = 0;
  Interior interior;
  for (int i = 0; i < p.tiles && !HasFailure(); ++i) {
    const RandomTile tile(testing::random_shape(p.geometry, rng, p.max_m, p.max_k), rng);
    cycles += expect_bit_exact(*runner, tile, &interior);
  }
  const double share = static_cast<double>(interior.interior) / static_cast<double>(interior.total);
  std::printf(
      "%ux%u: %d random tiles bit-exact, %llu outputs (%.0f%% not at a clamp bound), %llu RTL cycles\n",
      p.geometry.rows, p.geometry.cols, p.tiles, static_cast<unsigned long long>(interior.total),
      100.0 * share, static_cast<unsigned long long>(cycles));
  EXPECT_GT(share, 0.3);
}

INSTANTIATE_TEST_SUITE_P(Geometries, TileRunnerBitExact,
                         ::testing::Values(BitExactCase{{4, 4}, 400, 300, 40},
                                           BitExactCase{{8, 8}, 300, 300, 80},
                                           BitExactCase{{16, 16}, 200, 300, 160},
                                           BitExactCase{{32, 32}, 100, 300, 320},
                                           BitExactCase{{4, 16}, 300, 300, 40}),
                         [](const auto& param_info) {
                           return "Array" + std::to_string(param_info.param.geometry.rows) + "x" +
                                  std::to_string(param_info.param.geometry.cols);
                         });

TEST(TileRunner, CornerShapesMatchReference) {
  const sim::ArrayGeometry g{16, 16};
  auto runner = make_tile_runner(g);
  std::mt19937 rng(7);
  // Single row, K = 0 (output = requant(bias)), K one short and one over a chunk, N = 1, exactly one
  // accumulator block, one row beyond it, several blocks.
  for (const TileShape s : {TileShape{1, 1, 1}, TileShape{1, 0, 16}, TileShape{5, 0, 3}, TileShape{3, 15, 16},
                            TileShape{3, 17, 16}, TileShape{40, 33, 1}, TileShape{256, 16, 16},
                            TileShape{257, 20, 9}, TileShape{700, 48, 16}, TileShape{2, 300, 16}}) {
    const RandomTile tile(s, rng);
    const uint64_t cycles = expect_bit_exact(*runner, tile);
    EXPECT_EQ(cycles, sim::systolic_int8_tile_cycles(g, s.m, s.k, s.n)) << describe(tile);
  }
}

// Requantisation corner cases, one per channel: saturating left shifts (including >= 32), the
// SaturatingRoundingDoublingHighMul overflow (INT32_MIN x INT32_MIN), right shifts up to 31, zero and
// extreme multipliers, accumulators at the int32 limits. acc = bias_j + a_i with a_i = i - 128 over
// 256 rows covers every rounding tie of the small shifts. Clamps are the whole int32 range, so every
// byte shows the low 8 bits of the requantised value.
TEST(TileRunner, RequantisationCornersMatchReference) {
  constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
  struct Channel {
    int32_t multiplier, shift, bias;
  };
  const std::vector<Channel> channels = {
      {kMin, 31, kMin + 128},
      {kMax, -31, kMax - 127},
      {1 << 30, 0, 0},
      {1 << 30, -1, 0},
      {0x40000001, -5, 1000},
      {0, 3, 12345},
      {kMax, 40, 0},
      {kMax, 32, 0},
      {kMax, 31, 0},
      {0x55555555, -30, kMin + 128},
      {0x60000000, -2, -7},
      {1 << 30, -31, kMax - 127},
      {kMin, 0, -1000},
      {kMax, 1, 1 << 30},
      {1 << 30, 3, -(1 << 28)},
      {0x4CCCCCCD, -7, 77},
  };
  std::vector<int8_t> a(256), w(16, 1);
  for (int i = 0; i < 256; ++i) a[i] = static_cast<int8_t>(i - 128);
  for (const auto g : tile_runner_geometries()) {
    auto runner = make_tile_runner(g);
    for (size_t first = 0; first < channels.size(); first += g.cols) {
      std::vector<int32_t> bias, mult, shift;
      for (size_t j = first; j < first + g.cols; ++j) {
        bias.push_back(channels[j].bias);
        mult.push_back(channels[j].multiplier);
        shift.push_back(channels[j].shift);
      }
      sim::Int8TileCommand c;
      c.m = 256;
      c.k = 1;
      c.n = g.cols;
      c.a = a.data();
      c.lda = 1;
      c.w = w.data();
      c.ldw = g.cols;
      c.bias = bias.data();
      c.out_multiplier = mult.data();
      c.out_shift = shift.data();
      c.clamp_lo = kMin;
      c.clamp_hi = kMax;
      std::vector<uint8_t> rtl(256 * g.cols), ref(256 * g.cols);
      c.ldo = g.cols;
      c.out = rtl.data();
      runner->run(c);
      c.out = ref.data();
      sim::int8_tile_reference(c);
      for (size_t i = 0; i < rtl.size(); ++i) {
        ASSERT_EQ(int(rtl[i]), int(ref[i]))
            << g.rows << "x" << g.cols << " channel " << first + i % g.cols << " row " << i / g.cols;
      }
    }
  }
}

TEST(TileRunner, EmptyTilesWriteNothing) {
  auto runner = make_tile_runner({4, 4});
  std::mt19937 rng(3);
  for (const TileShape s : {TileShape{0, 8, 4}, TileShape{6, 8, 0}}) {
    const RandomTile tile(s, rng);
    auto out = tile.fresh_output();
    const uint64_t cycles = runner->run(tile.command(out.data()));
    for (const uint8_t b : out) EXPECT_EQ(b, RandomTile::kSentinel) << describe(tile);
    EXPECT_EQ(cycles, sim::systolic_int8_tile_cycles({4, 4}, s.m, s.k, s.n)) << describe(tile);
  }
}

TEST(TileRunner, StateDoesNotLeakBetweenTiles) {
  // The same tile before and after very different ones gives the same bytes and cycles.
  auto runner = make_tile_runner({8, 8});
  std::mt19937 rng(11);
  const RandomTile probe({37, 29, 5}, rng);
  auto first = probe.fresh_output();
  const uint64_t c1 = runner->run(probe.command(first.data()));
  for (int i = 0; i < 5; ++i)
    expect_bit_exact(*runner, RandomTile(testing::random_shape({8, 8}, rng, 400, 90), rng));
  auto second = probe.fresh_output();
  const uint64_t c2 = runner->run(probe.command(second.data()));
  EXPECT_EQ(first, second);
  EXPECT_EQ(c1, c2);
}

TEST(TileRunner, RejectsUnsupportedGeometry) {
  try {
    make_tile_runner({64, 64});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("64x64"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("4x16"), std::string::npos) << e.what();  // lists what is built
  }
  EXPECT_THROW(make_tile_runner({16, 4}), std::invalid_argument);  // 4x16 is built, its transpose is not
}

TEST(TileRunner, RejectsCommandsTheHardwareCannotTake) {
  auto runner = make_tile_runner({4, 4});
  std::mt19937 rng(5);
  const RandomTile tile({4, 4, 4}, rng);
  auto out = tile.fresh_output();
  auto too_wide = tile.command(out.data());
  too_wide.n = 5;
  EXPECT_THROW(runner->run(too_wide), std::invalid_argument);
  auto short_stride = tile.command(out.data());
  short_stride.lda = 3;
  EXPECT_THROW(runner->run(short_stride), std::invalid_argument);
  auto no_bias = tile.command(out.data());
  no_bias.bias = nullptr;
  EXPECT_THROW(runner->run(no_bias), std::invalid_argument);
  // The runner is still usable afterwards.
  expect_bit_exact(*runner, tile);
}

TEST(TileRunner, WritesWaveformOnRequest) {
  const std::string path = ::testing::TempDir() + "npu_rtl_tile_runner.vcd";
  {
    auto runner = make_tile_runner({4, 4}, path);
    std::mt19937 rng(9);
    expect_bit_exact(*runner, RandomTile({6, 9, 4}, rng));
  }
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string head(4096, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  EXPECT_NE(head.find("$timescale"), std::string::npos);
  EXPECT_NE(head.find("a_rd_addr"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace npu::rtl
