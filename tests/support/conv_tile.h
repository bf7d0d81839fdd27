// A hot, fixed-size CONV_INT8 tile for timing-only load in tests: 32×32×256 input (256 KiB at SRAM 0),
// 3×3×256 → 64 weights (144 KiB), 32×32×64 output (64 KiB, ends below 512 KiB). Per tile 32·32 outputs
// × 64 channels × 3·3·256 taps = 151 M MACs = 590 k cycles on a 16×16 array. Run it with
// JobRequest.timing_only: the SRAM contents are never read.
#pragma once

#include <cstdint>

#include "npu/regmap/descriptors.h"

namespace npu::test {

inline desc::Raw timing_conv_tile(uint32_t index) {
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_INT8, index};
  c.in_sram = 0;
  c.in_h = c.in_w = 32;
  c.in_c = 256;
  c.w_sram = 256 << 10;
  c.kh = c.kw = 3;
  c.cout = 64;
  c.bias_sram = c.w_sram + 3 * 3 * 256 * 64;
  c.quant_sram = c.bias_sram + 64 * 4;
  c.out_sram = c.quant_sram + 2 * 64 * 4;
  c.out_h = c.out_w = 32;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.row_origin = c.col_origin = -1;
  c.clamp_lo = -128;
  c.clamp_hi = 127;
  return desc::encode(c);
}

}  // namespace npu::test
