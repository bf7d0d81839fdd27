// A fast 64-bit digest of bytes, for identities and checksums of megabytes of weights (model
// fingerprints, compilation-cache files). Four independent lanes take 8-byte words, so the multiply
// chains overlap and a megabyte costs tens of microseconds instead of the milliseconds of a byte-serial
// FNV-1a. Streamed input gives the same digest however it is split. Not cryptographic: it detects
// corruption and tells models apart, it does not resist a deliberate collision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace npu {

class Digest {
 public:
  explicit Digest(uint64_t seed = 0) {
    for (int i = 0; i < 4; ++i) lane_[i] = kOffset ^ (seed + static_cast<uint64_t>(i) * kPrime);
  }

  Digest& add(const void* data, size_t n) {
    if (n == 0) return *this;  // an empty view may be null, and memcpy from null is undefined even for 0
    const auto* p = static_cast<const uint8_t*>(data);
    total_ += n;
    if (held_) {  // complete the block started by an earlier add
      const size_t take = n < kBlock - held_ ? n : kBlock - held_;
      std::memcpy(block_ + held_, p, take);
      held_ += take;
      p += take;
      n -= take;
      if (held_ < kBlock) return *this;
      mix_block(block_);
      held_ = 0;
    }
    for (; n >= kBlock; p += kBlock, n -= kBlock) mix_block(p);
    std::memcpy(block_, p, n);
    held_ = n;
    return *this;
  }
  Digest& add(std::string_view s) { return add(s.data(), s.size()); }
  template <class T>
  Digest& pod(const T& v) {
    return add(&v, sizeof v);
  }

  uint64_t value() const {
    uint64_t h = total_ * kPrime;
    for (uint64_t l : lane_) h = finish(h ^ finish(l));
    for (size_t i = 0; i < held_; ++i) h = (h ^ block_[i]) * kPrime;  // the tail, byte by byte
    return finish(h);
  }

 private:
  static constexpr uint64_t kOffset = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis and prime
  static constexpr uint64_t kPrime = 0x100000001b3ull;
  static constexpr size_t kBlock = 32;  // four lanes of one 64-bit word

  static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  // Spreads every bit over the word: the lanes' multiply only carries upwards.
  static uint64_t finish(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= kPrime;
    return x ^ (x >> 32);
  }
  void mix_block(const uint8_t* p) {
    for (int i = 0; i < 4; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lane_[i] = rotl(lane_[i] ^ w, 27) * kPrime;  // bijective per step: any changed word changes the lane
    }
  }

  uint64_t lane_[4];
  uint64_t total_ = 0;
  uint8_t block_[kBlock];
  size_t held_ = 0;
};

// The digest of one buffer.
inline uint64_t digest64(const void* data, size_t n, uint64_t seed = 0) {
  return Digest(seed).add(data, n).value();
}

}  // namespace npu
