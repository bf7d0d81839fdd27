// DEPTHWISE_CONV_2D kernel: NNAPI validation, shape inference and the CPU reference (see
// window_ops.h for the signature; arithmetic as CONV_2D with one input channel per output channel).
#include <algorithm>
#include <array>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"
#include "npu/hal/ops/window_ops.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

Result<SpatialLayout> depthwise_layout(std::span<const OperandInfo> in) {
  const size_t n = in.size();
  SpatialLayout l;
  if (n == 8 || n == 9 || (n == 11 && in[8].type == OperandType::BOOL)) {
    l.implicit = true;
    l.scheme = 3;
    l.stride_w = 4;
    l.multiplier = 6;
    l.activation = 7;
    l.layout = n >= 9 ? 8 : 0;
    l.dilation = n == 11 ? 9 : 0;
    return l;
  }
  if (n == 11 || n == 12 || n == 14) {
    l.pads = 3;
    l.stride_w = 7;
    l.multiplier = 9;
    l.activation = 10;
    l.layout = n >= 12 ? 11 : 0;
    l.dilation = n == 14 ? 12 : 0;
    return l;
  }
  return make_error(
      "expected 8, 9 or 11 inputs (implicit padding) or 11, 12 or 14 inputs (explicit padding), got " +
      std::to_string(n));
}

class DepthwiseConv2DKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::DEPTHWISE_CONV_2D; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    auto layout = depthwise_layout(in);
    if (!layout) return make_error(layout.error());
    auto params = check_filtered_operands(in, out, *layout);
    if (!params) return make_error(params.error());
    const bool quant = is_quant8(in[0].type);
    const Nhwc x = input_extents(in[0], params->nchw);
    const auto& f = in[1].dimensions;
    const uint32_t fh = f.size() == 4 ? f[1] : 0;
    const uint32_t fw = f.size() == 4 ? f[2] : 0;
    const uint32_t depth_out = f.size() == 4 ? f[3] : 0;
    if (f.size() == 4 && f[0] != 0 && f[0] != 1) {
      return input_error(1, "filter", "dimension 0 must be 1, got " + std::to_string(f[0]));
    }
    if (x.c != 0 && depth_out != 0 && params->multiplier &&
        uint64_t{x.c} * static_cast<uint64_t>(*params->multiplier) != depth_out) {
      return input_error(1, "filter",
                         "depth_out " + std::to_string(depth_out) + " must equal input depth " +
                             std::to_string(x.c) + " * depth multiplier " +
                             std::to_string(*params->multiplier));
    }
    const uint32_t bias_len = in[2].dimensions.size() == 1 ? in[2].dimensions[0] : 0;
    if (bias_len != 0 && depth_out != 0 && bias_len != depth_out) {
      return input_error(
          2, "bias",
          "has " + std::to_string(bias_len) + " elements, expected depth_out " + std::to_string(depth_out));
    }
    if (quant) {
      if (in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        if (in[1].per_channel == nullptr || in[1].per_channel->channel_dim != 3) {
          return input_error(1, "filter", "per-channel quantisation must be along dimension 3 (depth_out)");
        }
        if (depth_out != 0 && in[1].per_channel->scales.size() != depth_out) {
          return input_error(1, "filter",
                             "has " + std::to_string(in[1].per_channel->scales.size()) +
                                 " channel scales, expected depth_out " + std::to_string(depth_out));
        }
      } else if (!bias_scale_matches(in[0].scale, in[1].scale, in[2].scale)) {
        return input_error(
            2, "bias",
            "scale " + std::to_string(in[2].scale) +
                " must equal input scale * filter scale = " + std::to_string(in[0].scale * in[1].scale));
      }
    }
    auto shape = spatial_output_shape(*params, x, fh, fw, depth_out);
    if (!shape) return make_error(shape.error());
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto layout = depthwise_layout(in);
    if (!layout) return make_error(layout.error());
    auto partial = read_spatial_params(in, *layout);
    if (!partial) return make_error(partial.error());
    const Nhwc x = input_extents(in[0], partial->nchw);
    const auto& f = in[1].dimensions;
    if (f.size() != 4 || in[0].dimensions.size() != 4 || out.size() != 1 || !partial->multiplier) {
      return make_error("internal: execute() called with unprepared shapes");
    }
    const std::optional<Conv2DParams> p = resolve_spatial(*partial, x, f[1], f[2]);
    if (!p) return make_error("internal: parameters unknown at execution");
    const uint32_t fh = f[1], fw = f[2], oc_n = f[3];
    const auto m = static_cast<uint32_t>(*partial->multiplier);
    const uint32_t oh = conv_output_size(x.h, fh, p->dilation_h, p->stride_h, p->pad_top, p->pad_bottom);
    const uint32_t ow = conv_output_size(x.w, fw, p->dilation_w, p->stride_w, p->pad_left, p->pad_right);
    const auto macs = known_product(std::array<uint32_t, 5>{x.n, oh, ow, oc_n, fh});
    if (!macs || *macs * fw > (uint64_t{1} << 40)) return make_error("too large for the CPU reference");
    const Strides is = layout_strides(p->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(p->nchw, oh, ow, oc_n);
    // Taps of output channel oc (reading input channel oc / m) in the order fy, fx.
    auto for_each_tap = [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t oc, auto&& tap) {
      const uint64_t ic = oc / m;
      for (uint32_t fy = 0; fy < fh; ++fy) {
        const int64_t iy = int64_t{oy} * p->stride_h - p->pad_top + int64_t{fy} * p->dilation_h;
        if (iy < 0 || iy >= static_cast<int64_t>(x.h)) continue;
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const int64_t ix = int64_t{ox} * p->stride_w - p->pad_left + int64_t{fx} * p->dilation_w;
          if (ix < 0 || ix >= static_cast<int64_t>(x.w)) continue;
          tap(b * is.b + static_cast<uint64_t>(iy) * is.y + static_cast<uint64_t>(ix) * is.x + ic * is.c,
              (uint64_t{fy} * fw + fx) * oc_n + oc);
        }
      }
    };
    models::Tensor& o = *out[0];
    const uint64_t total = uint64_t{x.n} * os.b;
    if (!is_quant8(in[0].type)) {
      const std::vector<float> input = read_floats(in[0]);
      const std::vector<float> filter = read_floats(in[1]);
      const std::vector<float> bias = read_floats(in[2]);
      float lo = 0.0f;
      float hi = 0.0f;
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
    // Quantised: per output position, every in-bounds tap adds (x − x_zp)·(w − w_zp) for all channels at
    // once into wrapping 32-bit sums (a loop the compiler vectorises). Integer wrapping addition is
    // associative, so the result equals the per-element definition of conv_2d.h bit for bit.
    if (!in[0].has_value() || !in[1].has_value() || !in[2].has_value())
      return make_error("internal: execute() called without the input, filter or bias values");
    const std::vector<uint8_t>& xv = *in[0].value;
    const std::vector<uint8_t>& fv = *in[1].value;
    if (xv.size() < x.n * is.b) return input_error(0, "input", "holds fewer bytes than its shape");
    if (fv.size() < uint64_t{fh} * fw * oc_n)
      return input_error(1, "filter", "holds fewer bytes than its shape");
    if (o.data.size() < total) return make_error("internal: output buffer smaller than its shape");
    const std::vector<int32_t> bias = read_ints(in[2]);
    if (bias.size() < oc_n) return input_error(2, "bias", "holds fewer values than depth_out");
    const bool per_channel = in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    const bool x_signed = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    const bool w_unsigned = in[1].type == OperandType::TENSOR_QUANT8_ASYMM;
    const int32_t in_zp = in[0].zero_point;
    const int32_t f_zp = per_channel ? 0 : in[1].zero_point;
    // (w − w_zp) per tap and channel, and (x − x_zp) for every byte value: no conversion in the inner loop.
    const uint32_t taps = fh * fw;
    std::vector<int32_t> wz(uint64_t{taps} * oc_n);
    for (uint64_t i = 0; i < wz.size(); ++i)
      wz[i] = (w_unsigned ? int32_t{fv[i]} : int32_t{static_cast<int8_t>(fv[i])}) - f_zp;
    int32_t xz[256];
    for (int v = 0; v < 256; ++v) xz[v] = (x_signed ? int32_t{static_cast<int8_t>(v)} : v) - in_zp;
    std::vector<fx::QuantizedMultiplier> qm(oc_n);
    for (uint32_t oc = 0; oc < oc_n; ++oc) {
      qm[oc] =
          conv_multiplier(in[0].scale, per_channel ? in[1].per_channel->scales[oc] : in[1].scale, o.scale);
    }
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range =
        fx::quantized_activation_range(p->activation, o.scale, o.zero_point, qmin, qmax);
    std::vector<uint32_t> acc(oc_n);
    std::vector<int32_t> xs(oc_n);  // (x − x_zp) of each output channel's input channel at one tap
    for (uint32_t b = 0; b < x.n; ++b)
      for (uint32_t oy = 0; oy < oh; ++oy)
        for (uint32_t ox = 0; ox < ow; ++ox) {
          std::fill(acc.begin(), acc.end(), 0u);
          for (uint32_t fy = 0; fy < fh; ++fy) {
            const int64_t iy = int64_t{oy} * p->stride_h - p->pad_top + int64_t{fy} * p->dilation_h;
            if (iy < 0 || iy >= static_cast<int64_t>(x.h)) continue;
            for (uint32_t fx = 0; fx < fw; ++fx) {
              const int64_t ix = int64_t{ox} * p->stride_w - p->pad_left + int64_t{fx} * p->dilation_w;
              if (ix < 0 || ix >= static_cast<int64_t>(x.w)) continue;
              const uint8_t* src =
                  xv.data() + b * is.b + static_cast<uint64_t>(iy) * is.y + static_cast<uint64_t>(ix) * is.x;
              if (m == 1) {
                for (uint32_t oc = 0; oc < oc_n; ++oc) xs[oc] = xz[src[uint64_t{oc} * is.c]];
              } else {
                for (uint32_t oc = 0; oc < oc_n; ++oc) xs[oc] = xz[src[uint64_t{oc / m} * is.c]];
              }
              const int32_t* w = wz.data() + uint64_t{fy * fw + fx} * oc_n;
              for (uint32_t oc = 0; oc < oc_n; ++oc) acc[oc] += static_cast<uint32_t>(xs[oc] * w[oc]);
            }
          }
          uint8_t* dst = o.data.data() + b * os.b + oy * os.y + ox * os.x;
          for (uint32_t oc = 0; oc < oc_n; ++oc) {
            dst[oc * os.c] = static_cast<uint8_t>(  // two's complement for int8, as write_ints
                requantize(wrap_add(static_cast<int32_t>(acc[oc]), bias[oc]), qm[oc], o.zero_point, range));
          }
        }
    return {};
  }
};

}  // namespace

const OperationKernel& depthwise_conv_2d_kernel() {
  static const DepthwiseConv2DKernel kernel;
  return kernel;
}

Result<DepthwiseConv2DParams> depthwise_conv_2d_params(const models::Subgraph& sg,
                                                       const models::Operation& op) {
  if (op.type != models::OperationType::DEPTHWISE_CONV_2D)
    return make_error("not a DEPTHWISE_CONV_2D operation");
  std::vector<OperandInfo> in;
  for (uint32_t idx : op.inputs) {
    if (idx >= sg.operands.size())
      return make_error("input operand " + std::to_string(idx) + " out of range");
    in.push_back(operand_info(sg.operands[idx]));
  }
  auto layout = depthwise_layout(in);
  if (!layout) return make_error(layout.error());
  auto partial = read_spatial_params(in, *layout);
  if (!partial) return make_error(partial.error());
  if (in[1].dimensions.size() != 4) return make_error("input 1 (filter): expected rank 4");
  const Nhwc x = input_extents(in[0], partial->nchw);
  auto p = resolve_spatial(*partial, x, in[1].dimensions[1], in[1].dimensions[2]);
  if (!p || !partial->multiplier) {
    return make_error(
        "DEPTHWISE_CONV_2D parameters must be constants" +
        std::string(partial->scheme ? " and the input height/width known (implicit padding)" : ""));
  }
  return DepthwiseConv2DParams{*p, static_cast<uint32_t>(*partial->multiplier)};
}

}  // namespace npu::hal::ops
