// Byte-lane packing for verilated port types. Verilator maps a port of <= 8/16/32/64 bits to an
// integer, a wider one to VlWide<N> (C++) or sc_bv<N> (SystemC); lane i is bits [8i+7:8i] everywhere.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tile_memory.h"

namespace npu::rtl::detail {

template <class T>
requires std::is_integral_v<T>
void put_lanes(T& port, const Lanes& lanes, uint32_t count) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < count; ++i) v |= static_cast<uint64_t>(lanes[i]) << (8 * i);
  port = static_cast<T>(v);
}

template <class T>
requires std::is_integral_v<T>
void get_lanes(const T& port, Lanes& lanes, uint32_t count) {
  const auto v = static_cast<uint64_t>(port);
  for (uint32_t i = 0; i < count; ++i) lanes[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Wide ports: anything indexable by 32-bit word (VlWide) or with set_word/get_word (sc_bv).
template <class W>
requires requires(W w) { w.set_word(0, 0u); }
void put_lanes(W& port, const Lanes& lanes, uint32_t count) {
  for (uint32_t w = 0; w < count / 4; ++w) {
    port.set_word(static_cast<int>(w), static_cast<uint32_t>(lanes[4 * w]) | lanes[4 * w + 1] << 8 |
                                           lanes[4 * w + 2] << 16 |
                                           static_cast<uint32_t>(lanes[4 * w + 3]) << 24);
  }
}

template <class W>
requires requires(const W w) { w.get_word(0); }
void get_lanes(const W& port, Lanes& lanes, uint32_t count) {
  for (uint32_t w = 0; w < count / 4; ++w) {
    const auto word = static_cast<uint32_t>(port.get_word(static_cast<int>(w)));
    for (uint32_t b = 0; b < 4; ++b) lanes[4 * w + b] = static_cast<uint8_t>(word >> (8 * b));
  }
}

template <class W>
requires requires(W w) {
  w[0] = 0u;
  w.data();
}
void put_lanes(W& port, const Lanes& lanes, uint32_t count) {
  for (uint32_t w = 0; w < count / 4; ++w) {
    port[w] = static_cast<uint32_t>(lanes[4 * w]) | lanes[4 * w + 1] << 8 | lanes[4 * w + 2] << 16 |
              static_cast<uint32_t>(lanes[4 * w + 3]) << 24;
  }
}

template <class W>
requires requires(const W w) {
  w[0];
  w.data();
}
void get_lanes(const W& port, Lanes& lanes, uint32_t count) {
  for (uint32_t w = 0; w < count / 4; ++w) {
    const uint32_t word = port[w];
    for (uint32_t b = 0; b < 4; ++b) lanes[4 * w + b] = static_cast<uint8_t>(word >> (8 * b));
  }
}

}  // namespace npu::rtl::detail
