// Command-buffer descriptors: the ABI between the HAL's compiler, the driver (which validates the
// addresses they carry) and the simulated command processor (which fetches and executes them).
// Every descriptor is 128 bytes, little-endian; the channel executes them in order.
//
// Address spaces: `dev` fields are device-memory (DRAM) addresses; `sram` fields are byte offsets in the
// channel's scratchpad.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace npu::desc {

inline constexpr uint32_t kDescriptorBytes = 128;

enum class Opcode : uint32_t {
  NOP = 0,
  DMA_IN = 1,     // device memory → SRAM, 2-D strided
  DMA_OUT = 2,    // SRAM → device memory, 2-D strided
  CONV_INT8 = 3,  // quantised convolution / GEMM tile on the MAC array
  CONV_FP32 = 4,  // float convolution / GEMM tile on the vector unit
  FENCE = 5,      // completion marker: raises DONE if it is the last descriptor
};

struct Header {
  Opcode opcode;
  uint32_t id;  // compiler-assigned, for traces
};

// rows × row_bytes bytes; row r starts at src + r·src_stride and lands at dst + r·dst_stride.
struct Dma {
  Header h;
  uint64_t dev;    // device address (source for DMA_IN, destination for DMA_OUT)
  uint32_t sram;   // scratchpad offset
  uint32_t row_bytes;
  uint32_t rows;
  uint32_t dev_stride;
  uint32_t sram_stride;
};

// A convolution tile over an input band already in SRAM (NHWC band of in_h × in_w × in_c elements),
// producing out_h × out_w × cout outputs (NHWC, row stride out_w·cout). Filter in SRAM as K × cout with
// K = kh·kw·in_c in (kh, kw, in_c) order. Input row/column of output (0,0) tap (0,0) is
// (row_origin, col_origin), possibly negative: taps outside the band read the padding value.
// FULLY_CONNECTED is the 1×1 case with in_h = 1, in_w = batch.
struct Conv {
  Header h;
  uint32_t in_sram, in_h, in_w, in_c;
  uint32_t w_sram, kh, kw, cout;
  uint32_t bias_sram;   // int32[cout] (INT8: zero-point corrections folded in) or float[cout]
  uint32_t quant_sram;  // INT8 only: int32 multiplier[cout] then int32 shift[cout]
  uint32_t out_sram, out_h, out_w;
  uint32_t stride_h, stride_w, dilation_h, dilation_w;
  int32_t row_origin, col_origin;
  int32_t pad_value;      // INT8: padding value in the int8 (x − 128 for uint8) domain
  int32_t weight_offset;  // INT8: acc −= weight_offset · Σ a
  int32_t out_zero_point;
  int32_t clamp_lo, clamp_hi;  // INT8: integer clamp; FP32: float bit patterns
  uint32_t flags;              // kConvInputUnsigned, kConvOutputUnsigned
};
inline constexpr uint32_t kConvInputUnsigned = 1u << 0;   // input bytes are uint8: convert x − 128
inline constexpr uint32_t kConvOutputUnsigned = 1u << 1;  // store uint8

struct Fence {
  Header h;
  uint64_t value;
};

static_assert(sizeof(Dma) <= kDescriptorBytes && sizeof(Conv) <= kDescriptorBytes);
static_assert(std::is_trivially_copyable_v<Conv> && std::is_trivially_copyable_v<Dma>);

// One raw descriptor slot.
struct Raw {
  uint8_t bytes[kDescriptorBytes];
};

template <class T>
Raw encode(const T& d) {
  Raw r{};
  std::memcpy(r.bytes, &d, sizeof(T));
  return r;
}

template <class T>
T decode(const Raw& r) {
  T d;
  std::memcpy(&d, r.bytes, sizeof(T));
  return d;
}

inline Opcode opcode_of(const Raw& r) { return decode<Header>(r).opcode; }

}  // namespace npu::desc
