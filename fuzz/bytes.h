// Reading a fuzz input as a little-endian byte stream, for targets that decode a program from it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::fuzz {

// Reads the input as a little-endian byte stream; past its end every read gives 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return i_ >= n_; }
  size_t left() const { return i_ < n_ ? n_ - i_ : 0; }
  uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  // Each part read in its own statement: the order of operands of | is unspecified, and gcc (replay)
  // and clang (fuzzing) must decode a saved input alike.
  uint16_t u16() {
    const uint16_t lo = u8();
    return static_cast<uint16_t>(lo | (u8() << 8));
  }
  uint32_t u32() {
    const uint32_t lo = u16();
    return lo | (static_cast<uint32_t>(u16()) << 16);
  }
  uint64_t u64() {
    const uint64_t lo = u32();
    return lo | (static_cast<uint64_t>(u32()) << 32);
  }
  // Up to `n` bytes (fewer at the end).
  std::vector<uint8_t> take(size_t n) {
    n = std::min(n, left());
    std::vector<uint8_t> v(p_ + i_, p_ + i_ + n);
    i_ += n;
    return v;
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

}  // namespace npu::fuzz
