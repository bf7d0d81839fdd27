// CONV_2D (NNAPI 1.0–1.3): parameters in lowered form for the compiler, and the CPU reference's
// accumulation contract that the NPU mirrors. Validation and execution live in the kernel
// (find_kernel(CONV_2D)); this header only exposes what other layers need to lower the operation.
//
// NNAPI signature: inputs 0 input [batches, h, w, depth_in] (NHWC, or NCHW with the layout flag),
// 1 filter [depth_out, fh, fw, depth_in], 2 bias [depth_out]; then either implicit padding
// (3 padding scheme SAME=1 / VALID=2, 4 stride_w, 5 stride_h, 6 activation, [7 NCHW bool],
// [8 dilation_w, 9 dilation_h]: 7, 8 or 10 inputs) or explicit padding (3 left, 4 right, 5 top,
// 6 bottom, 7 stride_w, 8 stride_h, 9 activation, [10 NCHW], [11 dilation_w, 12 dilation_h]:
// 10, 11 or 13 inputs). With 10 inputs, a BOOL at input 7 means implicit padding.
//
// Reference arithmetic, per output element (b, y, x, oc):
//   float: acc = 0; for fy, for fx, for ic (innermost): acc += in * filter (taps falling in the
//          padding are skipped); acc += bias[oc]; clamp to the activation range.
//   quant8: acc = sum (in - in_zp) * (filter - filter_zp) + bias[oc] in 32-bit two's complement,
//          then multiply_by_quantized_multiplier(acc, quantize_multiplier(in_scale*filter_scale/out_scale))
//          + out_zp, clamped to quantized_activation_range (per-channel filters use filter_scale[oc]).
#pragma once

#include <cstdint>

#include "npu/common/fixed_point.h"
#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::hal::ops {

struct Conv2DParams {
  // Explicit paddings; for implicit SAME/VALID they are resolved from the input height/width.
  uint32_t pad_left = 0;
  uint32_t pad_right = 0;
  uint32_t pad_top = 0;
  uint32_t pad_bottom = 0;
  uint32_t stride_w = 1;
  uint32_t stride_h = 1;
  uint32_t dilation_w = 1;
  uint32_t dilation_h = 1;
  fx::FusedActivation activation = fx::FusedActivation::NONE;
  bool nchw = false;
  // 0 = explicit padding given; 1 = SAME, 2 = VALID (NNAPI PaddingCode).
  int32_t padding_scheme = 0;
};

// NNAPI implicit padding for one spatial dimension: total padding so the output has
// ceil(in / stride) (SAME) or the valid extent (VALID), split with the extra pixel at the tail.
void implicit_padding(int32_t scheme, uint32_t in, uint32_t stride, uint32_t filter, uint32_t dilation,
                      uint32_t* head, uint32_t* tail);

// Output extent for one spatial dimension, or 0 when the padded input is smaller than the dilated
// filter (or the numbers overflow).
uint32_t conv_output_size(uint32_t in, uint32_t filter, uint32_t dilation, uint32_t stride, uint32_t pad_head,
                          uint32_t pad_tail);

// Reads the parameters of a CONV_2D operation of `sg`. Requires the parameter operands to be
// constants and, for implicit padding, the input height and width to be known. Does not check the
// tensors (see validate_operations()).
Result<Conv2DParams> conv_2d_params(const models::Subgraph& sg, const models::Operation& op);

}  // namespace npu::hal::ops
