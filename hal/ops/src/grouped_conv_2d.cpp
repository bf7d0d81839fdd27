// GROUPED_CONV_2D (NNAPI 1.2): a convolution whose input and output channels are split into
// num_groups groups, output channel oc of group g = oc / (depth_out / num_groups) reading only input
// channels [g·depth_group, (g + 1)·depth_group).
//   inputs 0 input [batches, h, w, depth_in] (NHWC, or NCHW with the layout flag), 1 filter
//   [depth_out, fh, fw, depth_group] with depth_in = num_groups · depth_group and depth_out a multiple of
//   num_groups, 2 bias [depth_out]; then explicit padding 3-6 (left, right, top, bottom), 7 stride_w,
//   8 stride_h, 9 num_groups, 10 activation, 11 NCHW (12 inputs) or implicit 3 scheme, 4 stride_w,
//   5 stride_h, 6 num_groups, 7 activation, 8 NCHW (9 inputs). No dilation.
// Types: float32, float16 (computed in float, rounded to fp16 on the write as every fp16 kernel here),
// quant8 asymm / asymm signed with a filter of the same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (channel
// dimension 0) and an int32 bias of scale input·filter.
// Arithmetic per output element as CONV_2D (conv_2d.h): taps in (fy, fx, ic) order, then the bias;
// quant8 accumulates (in − in_zp)·(filter − filter_zp) in int32 and requantises.
#include <array>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

Result<SpatialLayout> grouped_layout(std::span<const OperandInfo> in) {
  SpatialLayout l;
  if (in.size() == 9) {
    l.implicit = true;
    l.scheme = 3;
    l.stride_w = 4;
    l.groups = 6;
    l.activation = 7;
    l.layout = 8;
    return l;
  }
  if (in.size() == 12) {
    l.pads = 3;
    l.stride_w = 7;
    l.groups = 9;
    l.activation = 10;
    l.layout = 11;
    return l;
  }
  return make_error("expected 9 inputs (implicit padding) or 12 inputs (explicit padding), got " +
                    std::to_string(in.size()));
}

class GroupedConv2DKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::GROUPED_CONV_2D; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    auto layout = grouped_layout(in);
    if (!layout) return make_error(layout.error());
    auto params = check_filtered_operands(in, out, *layout);
    if (!params) return make_error(params.error());
    const Nhwc x = input_extents(in[0], params->nchw);
    const auto& f = in[1].dimensions;
    const uint32_t depth_out = f.size() == 4 ? f[0] : 0;
    const uint32_t depth_group = f.size() == 4 ? f[3] : 0;
    if (params->groups) {
      const auto g = static_cast<uint32_t>(*params->groups);
      if (depth_out != 0 && depth_out % g != 0)
        return input_error(1, "filter",
                           "depth_out " + std::to_string(depth_out) + " is not a multiple of the " +
                               std::to_string(g) + " groups");
      if (x.c != 0 && depth_group != 0 && uint64_t{depth_group} * g != x.c)
        return input_error(1, "filter",
                           "depth_group " + std::to_string(depth_group) + " times " + std::to_string(g) +
                               " groups does not give the input depth " + std::to_string(x.c));
    }
    const uint32_t bias_len = in[2].dimensions.size() == 1 ? in[2].dimensions[0] : 0;
    if (bias_len != 0 && depth_out != 0 && bias_len != depth_out)
      return input_error(
          2, "bias",
          "has " + std::to_string(bias_len) + " elements, expected depth_out " + std::to_string(depth_out));
    if (is_quant8(in[0].type)) {
      if (in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        if (in[1].per_channel == nullptr || in[1].per_channel->channel_dim != 0)
          return input_error(1, "filter", "per-channel quantisation must be along dimension 0 (depth_out)");
        if (depth_out != 0 && in[1].per_channel->scales.size() != depth_out)
          return input_error(1, "filter",
                             "has " + std::to_string(in[1].per_channel->scales.size()) +
                                 " channel scales, expected depth_out " + std::to_string(depth_out));
      } else if (!bias_scale_matches(in[0].scale, in[1].scale, in[2].scale)) {
        return input_error(
            2, "bias",
            "scale " + std::to_string(in[2].scale) +
                " must equal input scale * filter scale = " + std::to_string(in[0].scale * in[1].scale));
      }
    }
    auto shape =
        spatial_output_shape(*params, x, f.size() == 4 ? f[1] : 0, f.size() == 4 ? f[2] : 0, depth_out);
    if (!shape) return make_error(shape.error());
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto layout = grouped_layout(in);
    if (!layout) return make_error(layout.error());
    auto partial = read_spatial_params(in, *layout);
    if (!partial) return make_error(partial.error());
    const Nhwc x = input_extents(in[0], partial->nchw);
    const auto& f = in[1].dimensions;
    if (f.size() != 4 || in[0].dimensions.size() != 4 || out.size() != 1 || !partial->groups)
      return make_error("internal: execute() called with unprepared shapes");
    const std::optional<Conv2DParams> p = resolve_spatial(*partial, x, f[1], f[2]);
    if (!p) return make_error("internal: parameters unknown at execution");
    const uint32_t oc_n = f[0], fh = f[1], fw = f[2], icg = f[3];
    const auto groups = static_cast<uint32_t>(*partial->groups);
    const uint32_t ocg = oc_n / groups;
    const uint32_t oh = conv_output_size(x.h, fh, 1, p->stride_h, p->pad_top, p->pad_bottom);
    const uint32_t ow = conv_output_size(x.w, fw, 1, p->stride_w, p->pad_left, p->pad_right);
    const auto macs = known_product(std::array<uint32_t, 7>{x.n, oh, ow, oc_n, fh, fw, icg});
    if (!macs || *macs > (uint64_t{1} << 40)) return make_error("too large for the CPU reference");
    const Strides is = layout_strides(p->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(p->nchw, oh, ow, oc_n);
    auto for_each_tap = [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t oc, auto&& tap) {
      const uint64_t first_ic = uint64_t{oc / ocg} * icg;
      for (uint32_t fy = 0; fy < fh; ++fy) {
        const int64_t iy = int64_t{oy} * p->stride_h - p->pad_top + fy;
        if (iy < 0 || iy >= static_cast<int64_t>(x.h)) continue;
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const int64_t ix = int64_t{ox} * p->stride_w - p->pad_left + fx;
          if (ix < 0 || ix >= static_cast<int64_t>(x.w)) continue;
          const uint64_t ibase =
              b * is.b + static_cast<uint64_t>(iy) * is.y + static_cast<uint64_t>(ix) * is.x;
          const uint64_t fbase = ((uint64_t{oc} * fh + fy) * fw + fx) * icg;
          for (uint32_t ic = 0; ic < icg; ++ic) tap(ibase + (first_ic + ic) * is.c, fbase + ic);
        }
      }
    };
    models::Tensor& o = *out[0];
    const uint64_t total = uint64_t{x.n} * os.b;
    if (!is_quant8(in[0].type)) {
      const std::vector<float> input = read_floats(in[0]), filter = read_floats(in[1]),
                               bias = read_floats(in[2]);
      float lo = 0.0f, hi = 0.0f;
      fx::float_activation_range(p->activation, &lo, &hi);
      std::vector<float> result(total);
      for (uint32_t b = 0; b < x.n; ++b)
        for (uint32_t oy = 0; oy < oh; ++oy)
          for (uint32_t ox = 0; ox < ow; ++ox)
            for (uint32_t oc = 0; oc < oc_n; ++oc) {
              float acc = 0.0f;
              for_each_tap(b, oy, ox, oc, [&](uint64_t ii, uint64_t fi) { acc += input[ii] * filter[fi]; });
              acc += bias[oc];
              result[b * os.b + oy * os.y + ox * os.x + oc * os.c] = acc < lo ? lo : (acc > hi ? hi : acc);
            }
      write_floats(o, result);
      return {};
    }
    const std::vector<int32_t> input = read_ints(in[0]), filter = read_ints(in[1]), bias = read_ints(in[2]);
    const bool per_channel = in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    const int32_t in_zp = in[0].zero_point, f_zp = per_channel ? 0 : in[1].zero_point;
    std::vector<fx::QuantizedMultiplier> qm(oc_n);
    for (uint32_t oc = 0; oc < oc_n; ++oc)
      qm[oc] =
          conv_multiplier(in[0].scale, per_channel ? in[1].per_channel->scales[oc] : in[1].scale, o.scale);
    int32_t qmin = 0, qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range =
        fx::quantized_activation_range(p->activation, o.scale, o.zero_point, qmin, qmax);
    std::vector<int32_t> result(total);
    for (uint32_t b = 0; b < x.n; ++b)
      for (uint32_t oy = 0; oy < oh; ++oy)
        for (uint32_t ox = 0; ox < ow; ++ox)
          for (uint32_t oc = 0; oc < oc_n; ++oc) {
            int32_t acc = 0;
            for_each_tap(b, oy, ox, oc, [&](uint64_t ii, uint64_t fi) {
              acc = wrap_add(acc, int64_t{input[ii] - in_zp} * (filter[fi] - f_zp));
            });
            acc = wrap_add(acc, bias[oc]);
            result[b * os.b + oy * os.y + ox * os.x + oc * os.c] =
                requantize(acc, qm[oc], o.zero_point, range);
          }
    write_ints(o, result);
    return {};
  }
};

}  // namespace

const OperationKernel& grouped_conv_2d_kernel() {
  static const GroupedConv2DKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
