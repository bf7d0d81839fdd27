// DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D parameters in lowered form for the compiler.
// Validation and execution live in the kernels (find_kernel()); padding, strides, dilation,
// activation and layout are resolved exactly as for CONV_2D (see conv_2d.h).
//
// DEPTHWISE_CONV_2D: inputs 0 input [b, h, w, depth_in], 1 filter [1, fh, fw, depth_out] with
// depth_out = depth_in * multiplier, 2 bias [depth_out]; implicit 3 scheme, 4 stride_w, 5 stride_h,
// 6 multiplier, 7 activation, [8 NCHW], [9 dilation_w, 10 dilation_h] (8, 9 or 11 inputs) or explicit
// 3-6 pads (l, r, t, b), 7 stride_w, 8 stride_h, 9 multiplier, 10 activation, [11 NCHW], [12, 13
// dilation] (11, 12 or 14 inputs; with 11, a BOOL at input 8 means implicit). Output channel
// oc = ic * multiplier + j reads input channel ic; accumulation over fy, fx as CONV_2D.
// Pools: inputs 0 input; implicit 1 scheme, 2 stride_w, 3 stride_h, 4 filter_w, 5 filter_h,
// 6 activation, [7 NCHW] (7 or 8 inputs) or explicit 1-4 pads, 5 stride_w, 6 stride_h, 7 filter_w,
// 8 filter_h, 9 activation, [10 NCHW] (10 or 11 inputs). Output quantisation equals the input's.
// AVERAGE_POOL_2D divides by the number of in-bounds taps (quant: rounded half away from zero).
#pragma once

#include <cstdint>

#include "npu/common/result.h"
#include "npu/hal/ops/conv_2d.h"
#include "npu/models/model.h"

namespace npu::hal::ops {

struct DepthwiseConv2DParams {
  Conv2DParams conv;
  uint32_t depth_multiplier = 1;
};

struct Pool2DParams {
  Conv2DParams window;  // paddings, strides, activation, layout (dilation is always 1)
  uint32_t filter_w = 1;
  uint32_t filter_h = 1;
};

Result<DepthwiseConv2DParams> depthwise_conv_2d_params(const models::Subgraph& sg,
                                                       const models::Operation& op);
// For AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D.
Result<Pool2DParams> pool_2d_params(const models::Subgraph& sg, const models::Operation& op);

}  // namespace npu::hal::ops
