// npu::Digest (common/digest.h): the same bytes give the same digest however they are streamed; any
// changed byte, a trailing zero byte or a different seed gives another.
#include "npu/common/digest.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(Digest, StreamingInAnyPiecesGivesTheOneShotDigest) {
  const std::vector<uint8_t> bytes = random_bytes(1000, 1);
  const uint64_t whole = npu::digest64(bytes.data(), bytes.size());
  std::mt19937 rng(2);
  for (int round = 0; round < 50; ++round) {
    npu::Digest d;
    for (size_t at = 0; at < bytes.size();) {
      const size_t n = std::min<size_t>(bytes.size() - at, std::uniform_int_distribution<size_t>(0, 70)(rng));
      d.add(bytes.data() + at, n);
      at += n;
    }
    EXPECT_EQ(d.value(), whole) << "round " << round;
  }
}

TEST(Digest, EveryChangedByteLengthAndSeedChangesIt) {
  const std::vector<uint8_t> bytes = random_bytes(203, 3);  // six blocks and a tail
  std::set<uint64_t> seen{npu::digest64(bytes.data(), bytes.size())};
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t flip : {uint8_t{1}, uint8_t{0x80}}) {
      std::vector<uint8_t> changed = bytes;
      changed[i] ^= flip;
      EXPECT_TRUE(seen.insert(npu::digest64(changed.data(), changed.size())).second) << "byte " << i;
    }
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_TRUE(seen.insert(npu::digest64(longer.data(), longer.size())).second) << "a trailing zero";
  EXPECT_TRUE(seen.insert(npu::digest64(bytes.data(), bytes.size(), 1)).second) << "seed 1";
  EXPECT_NE(npu::digest64(nullptr, 0), npu::digest64("", 0, 7));
}

}  // namespace
