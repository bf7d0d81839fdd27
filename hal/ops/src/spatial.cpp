#include "spatial.h"

#include <limits>

#include "kernel_util.h"

namespace npu::hal::ops::detail {

namespace {
constexpr int32_t kMaxI32 = std::numeric_limits<int32_t>::max();
}

Result<PartialSpatialParams> read_spatial_params(std::span<const OperandInfo> in, const SpatialLayout& l) {
  PartialSpatialParams p;
  auto get = [&](size_t index, const char* role, int32_t lo, int32_t hi,
                 std::optional<int32_t>* out) -> Result<void> {
    auto v = int_param_in_range(in, index, role, lo, hi);
    if (!v) return make_error(v.error());
    *out = *v;
    return {};
  };
  if (l.implicit) {
    if (auto r = get(l.scheme, "padding scheme", 1, 2, &p.scheme); !r) return make_error(r.error());
  } else {
    static constexpr std::array<const char*, 4> kPadNames{"padding left", "padding right", "padding top",
                                                          "padding bottom"};
    for (size_t i = 0; i < 4; ++i) {
      if (auto r = get(l.pads + i, kPadNames[i], 0, kMaxI32, &p.pads[i]); !r) return make_error(r.error());
    }
  }
  if (auto r = get(l.stride_w, "stride width", 1, kMaxI32, &p.stride_w); !r) return make_error(r.error());
  if (auto r = get(l.stride_w + 1, "stride height", 1, kMaxI32, &p.stride_h); !r)
    return make_error(r.error());
  if (l.filter_w) {
    if (auto r = get(l.filter_w, "filter width", 1, kMaxI32, &p.filter_w); !r) return make_error(r.error());
    if (auto r = get(l.filter_w + 1, "filter height", 1, kMaxI32, &p.filter_h); !r)
      return make_error(r.error());
  }
  if (l.multiplier) {
    if (auto r = get(l.multiplier, "depth multiplier", 1, kMaxI32, &p.multiplier); !r)
      return make_error(r.error());
  }
  if (l.groups) {
    if (auto r = get(l.groups, "number of groups", 1, kMaxI32, &p.groups); !r) return make_error(r.error());
  }
  if (auto r = get(l.activation, "fused activation", 0, 3, &p.activation); !r) return make_error(r.error());
  if (l.layout) {
    if (auto r = expect_type(in, l.layout, "NCHW layout", {models::OperandType::BOOL}); !r)
      return make_error(r.error());
    p.nchw = bool_param(in[l.layout]);
  }
  if (l.dilation) {
    if (auto r = get(l.dilation, "dilation width", 1, kMaxI32, &p.dilation_w); !r)
      return make_error(r.error());
    if (auto r = get(l.dilation + 1, "dilation height", 1, kMaxI32, &p.dilation_h); !r)
      return make_error(r.error());
  }
  return p;
}

Nhwc input_extents(const OperandInfo& input, std::optional<bool> nchw) {
  Nhwc e;
  if (input.dimensions.size() != 4) return e;
  const auto& d = input.dimensions;
  e.n = d[0];
  if (!nchw) return e;
  if (*nchw) {
    e.c = d[1];
    e.h = d[2];
    e.w = d[3];
  } else {
    e.h = d[1];
    e.w = d[2];
    e.c = d[3];
  }
  return e;
}

std::optional<Conv2DParams> resolve_spatial(const PartialSpatialParams& p, const Nhwc& in, uint32_t fh,
                                            uint32_t fw) {
  if (!p.stride_w || !p.stride_h || !p.dilation_w || !p.dilation_h || !p.activation || !p.nchw)
    return std::nullopt;
  Conv2DParams c;
  c.stride_w = static_cast<uint32_t>(*p.stride_w);
  c.stride_h = static_cast<uint32_t>(*p.stride_h);
  c.dilation_w = static_cast<uint32_t>(*p.dilation_w);
  c.dilation_h = static_cast<uint32_t>(*p.dilation_h);
  c.activation = static_cast<fx::FusedActivation>(*p.activation);
  c.nchw = *p.nchw;
  if (p.scheme) {
    if (in.h == 0 || in.w == 0 || fh == 0 || fw == 0) return std::nullopt;
    c.padding_scheme = *p.scheme;
    implicit_padding(*p.scheme, in.w, c.stride_w, fw, c.dilation_w, &c.pad_left, &c.pad_right);
    implicit_padding(*p.scheme, in.h, c.stride_h, fh, c.dilation_h, &c.pad_top, &c.pad_bottom);
    return c;
  }
  for (const auto& pad : p.pads) {
    if (!pad) return std::nullopt;
  }
  c.pad_left = static_cast<uint32_t>(*p.pads[0]);
  c.pad_right = static_cast<uint32_t>(*p.pads[1]);
  c.pad_top = static_cast<uint32_t>(*p.pads[2]);
  c.pad_bottom = static_cast<uint32_t>(*p.pads[3]);
  return c;
}

Result<std::vector<uint32_t>> spatial_output_shape(const PartialSpatialParams& p, const Nhwc& in, uint32_t fh,
                                                   uint32_t fw, uint32_t out_c) {
  if (!p.nchw) return std::vector<uint32_t>{in.n, 0, 0, 0};  // layout not known yet
  const std::optional<Conv2DParams> c = resolve_spatial(p, in, fh, fw);
  uint32_t oh = 0;
  uint32_t ow = 0;
  if (c && in.h != 0 && fh != 0) {
    oh = conv_output_size(in.h, fh, c->dilation_h, c->stride_h, c->pad_top, c->pad_bottom);
    if (oh == 0)
      return make_error("input 0 (input): padded height is smaller than the dilated filter height");
  }
  if (c && in.w != 0 && fw != 0) {
    ow = conv_output_size(in.w, fw, c->dilation_w, c->stride_w, c->pad_left, c->pad_right);
    if (ow == 0) return make_error("input 0 (input): padded width is smaller than the dilated filter width");
  }
  return *p.nchw ? std::vector<uint32_t>{in.n, out_c, oh, ow} : std::vector<uint32_t>{in.n, oh, ow, out_c};
}

Strides layout_strides(bool nchw, uint64_t h, uint64_t w, uint64_t c) {
  if (nchw) return {h * w * c, w, 1, h * w};
  return {h * w * c, w * c, c, 1};
}

Result<PartialSpatialParams> check_filtered_operands(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out,
                                                     const SpatialLayout& l) {
  using models::OperandType;
  if (auto r = expect_type(in, 0, "input",
                           {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                            OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
      !r) {
    return make_error(r.error());
  }
  const OperandType t = in[0].type;
  const bool quant = is_quant8(t);
  if (auto r = quant ? expect_type(in, 1, "filter", {t, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL})
                     : expect_type(in, 1, "filter", {t});
      !r) {
    return make_error(r.error());
  }
  if (auto r = expect_type(in, 2, "bias", {quant ? OperandType::TENSOR_INT32 : t}); !r)
    return make_error(r.error());
  if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
  if (auto r = expect_rank(in[1], 1, "filter", 4); !r) return make_error(r.error());
  if (auto r = expect_rank(in[2], 2, "bias", 1); !r) return make_error(r.error());
  auto params = read_spatial_params(in, l);
  if (!params) return make_error(params.error());
  if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
  if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
  return params;
}

}  // namespace npu::hal::ops::detail
