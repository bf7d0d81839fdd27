// Parameter parsing shared by the 2-D windowed operations (CONV_2D, DEPTHWISE_CONV_2D, pools): the
// implicit/explicit padding signatures, strides, dilation, activation and layout (internal to
// npu_hal_ops). Each kernel describes where its parameters sit; values not known yet stay empty.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>

#include "npu/hal/ops/conv_2d.h"
#include "npu/hal/ops/operation.h"

namespace npu::hal::ops::detail {

// Input positions of the parameters (0 = absent).
struct SpatialLayout {
  bool implicit = false;
  size_t scheme = 0;      // implicit: padding scheme
  size_t pads = 0;        // explicit: left, right, top, bottom
  size_t stride_w = 0;    // stride_h follows
  size_t filter_w = 0;    // pools: filter width, height follows
  size_t multiplier = 0;  // DEPTHWISE_CONV_2D: depth multiplier
  size_t groups = 0;      // GROUPED_CONV_2D: number of groups
  size_t activation = 0;
  size_t layout = 0;
  size_t dilation = 0;  // dilation_h follows
};

struct PartialSpatialParams {
  std::optional<int32_t> scheme;
  std::array<std::optional<int32_t>, 4> pads;  // left, right, top, bottom
  std::optional<int32_t> stride_w, stride_h, filter_w, filter_h, multiplier, groups, activation;
  std::optional<int32_t> dilation_w = 1, dilation_h = 1;
  std::optional<bool> nchw = false;
};

Result<PartialSpatialParams> read_spatial_params(std::span<const OperandInfo> in, const SpatialLayout& l);

// The operand checks CONV_2D and DEPTHWISE_CONV_2D share: input type, filter type (per-channel allowed
// for quant8), bias type, ranks 4/4/1, the spatial parameters, one output of the input's type.
Result<PartialSpatialParams> check_filtered_operands(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out,
                                                     const SpatialLayout& l);

// Input extents in NHWC terms (0 = unknown; H/W/C unknown while the layout flag is).
struct Nhwc {
  uint32_t n = 0, h = 0, w = 0, c = 0;
};
Nhwc input_extents(const OperandInfo& input, std::optional<bool> nchw);

// Resolves the parameters (implicit padding from the input extents) once every value is known.
std::optional<Conv2DParams> resolve_spatial(const PartialSpatialParams& p, const Nhwc& in, uint32_t fh,
                                            uint32_t fw);

// Output dims [n, oh, ow, c] in the operation's layout (0 for unknown extents, all unknown while the
// layout is); errors when the padded input is smaller than the (dilated) window.
Result<std::vector<uint32_t>> spatial_output_shape(const PartialSpatialParams& p, const Nhwc& in, uint32_t fh,
                                                   uint32_t fw, uint32_t out_c);

// Element strides (batch, y, x, channel) of a [n, h, w, c] tensor stored NHWC or NCHW.
struct Strides {
  uint64_t b, y, x, c;
};
Strides layout_strides(bool nchw, uint64_t h, uint64_t w, uint64_t c);

}  // namespace npu::hal::ops::detail
