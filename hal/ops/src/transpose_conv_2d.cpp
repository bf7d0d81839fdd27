// TRANSPOSE_CONV_2D (NNAPI 1.2): the transposed ("deconvolution") 2-D convolution. Each input pixel
// (iy, ix) spreads filter·value over the output window starting at (iy·stride_h − pad_top,
// ix·stride_w − pad_left); taps falling outside the output are dropped.
//   inputs 0 input [batches, h, w, depth_in] (NHWC, or NCHW with the layout flag), 1 filter
//   [depth_out, fh, fw, depth_in], 2 bias [depth_out]; then explicit padding 3-6 (left, right, top,
//   bottom), 7 stride_w, 8 stride_h, 9 activation, 10 NCHW (11 inputs), output
//   [batches, stride_h·(h − 1) + fh − top − bottom, stride_w·(w − 1) + fw − left − right, depth_out];
//   or implicit padding 3 output shape (TENSOR_INT32 [4], in the operation's layout), 4 scheme
//   (SAME 1 / VALID 2), 5 stride_w, 6 stride_h, 7 activation, 8 NCHW (9 inputs). With implicit
//   padding the head padding comes from the output extent O: SAME pads
//   ((⌈O / stride⌉ − 1)·stride + f − O) / 2 when positive, VALID none (the tail only bounds the output).
// Types: float32, float16 (computed in float, rounded on the write), quant8 asymm / asymm signed with a
// filter of the same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (channel dimension 0), int32 bias of scale
// input·filter.
// Reference arithmetic, written in gather form so a lowering to a convolution can follow it: output
// element (b, oy, ox, oc) = Σ over fy descending, then fx descending, then ic (innermost) of
// in[b, iy, ix, ic]·filter[oc, fy, fx, ic] where oy + pad_top − fy = iy·stride_h (and likewise x) with
// the input pixel in bounds; then + bias, then the activation. (Descending filter taps are the ascending
// taps of the spatially flipped filter: with stride 1 this is exactly CONV_2D's order, which the NPU's
// lowering relies on.) Quant8: the sum of (in − in_zp)·(filter − filter_zp) in int32 plus the
// bias, requantised with input·filter/output scale as CONV_2D.
#include <array>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

constexpr size_t kOutputShape = 3;

Result<SpatialLayout> transpose_layout(std::span<const OperandInfo> in) {
  SpatialLayout l;
  if (in.size() == 9) {
    l.implicit = true;
    l.scheme = 4;
    l.stride_w = 5;
    l.activation = 7;
    l.layout = 8;
    return l;
  }
  if (in.size() == 11) {
    l.pads = 3;
    l.stride_w = 7;
    l.activation = 9;
    l.layout = 10;
    return l;
  }
  return make_error(
      "expected 9 inputs (implicit padding, output shape tensor) or 11 inputs (explicit "
      "padding), got " +
      std::to_string(in.size()));
}

// Head padding of one spatial dimension for implicit padding, from the output extent.
uint32_t implicit_head(int32_t scheme, uint32_t out, uint32_t stride, uint32_t filter) {
  if (scheme != 1 || stride == 0) return 0;
  const int64_t n = (int64_t{out} + stride - 1) / stride;
  const int64_t span = (n - 1) * stride + filter;
  return span > out ? static_cast<uint32_t>((span - out) / 2) : 0;
}

struct Resolved {
  uint32_t oh = 0, ow = 0, pad_top = 0, pad_left = 0, stride_h = 1, stride_w = 1;
  fx::FusedActivation activation = fx::FusedActivation::NONE;
  bool nchw = false;
};

// Output extents (0 = unknown) and paddings; errors name the parameter at fault.
Result<Resolved> resolve(std::span<const OperandInfo> in, const PartialSpatialParams& p, const Nhwc& x,
                         uint32_t fh, uint32_t fw, uint32_t depth_out, bool* known) {
  Resolved r;
  *known = p.stride_w && p.stride_h && p.activation && p.nchw;
  if (p.stride_w) r.stride_w = static_cast<uint32_t>(*p.stride_w);
  if (p.stride_h) r.stride_h = static_cast<uint32_t>(*p.stride_h);
  if (p.activation) r.activation = static_cast<fx::FusedActivation>(*p.activation);
  if (p.nchw) r.nchw = *p.nchw;
  if (p.scheme) {
    const auto shape = int_tensor_value(in[kOutputShape]);
    if (!shape || !p.nchw) {
      *known = false;
      return r;
    }
    if (shape->size() != 4)
      return input_error(kOutputShape, "output shape",
                         "expected 4 values, got " + std::to_string(shape->size()));
    for (int32_t v : *shape)
      if (v <= 0) return input_error(kOutputShape, "output shape", "extents must be positive");
    const auto at = [&](size_t i) { return static_cast<uint32_t>((*shape)[i]); };
    const uint32_t n = at(0), c = r.nchw ? at(1) : at(3);
    r.oh = r.nchw ? at(2) : at(1);
    r.ow = r.nchw ? at(3) : at(2);
    if ((x.n != 0 && n != x.n) || (depth_out != 0 && c != depth_out))
      return input_error(kOutputShape, "output shape",
                         "batches " + std::to_string(n) + " and depth " + std::to_string(c) +
                             " must be the input's batches " + std::to_string(x.n) + " and depth_out " +
                             std::to_string(depth_out));
    if (fh != 0 && fw != 0) {
      r.pad_top = implicit_head(*p.scheme, r.oh, r.stride_h, fh);
      r.pad_left = implicit_head(*p.scheme, r.ow, r.stride_w, fw);
    } else {
      *known = false;
    }
    return r;
  }
  for (const auto& pad : p.pads) *known = *known && pad.has_value();
  if (!p.pads[0] || !p.pads[1] || !p.pads[2] || !p.pads[3] || !p.stride_w || !p.stride_h) return r;
  r.pad_left = static_cast<uint32_t>(*p.pads[0]);
  r.pad_top = static_cast<uint32_t>(*p.pads[2]);
  auto extent = [](uint32_t size, uint32_t stride, uint32_t f, int64_t head, int64_t tail) -> int64_t {
    if (size == 0 || f == 0) return 0;
    return int64_t{stride} * (size - 1) + f - head - tail;
  };
  const int64_t oh = extent(x.h, r.stride_h, fh, *p.pads[2], *p.pads[3]);
  const int64_t ow = extent(x.w, r.stride_w, fw, *p.pads[0], *p.pads[1]);
  if ((x.h != 0 && fh != 0 && oh <= 0) || (x.w != 0 && fw != 0 && ow <= 0))
    return make_error("input 3 (padding left): the paddings leave no output (height " + std::to_string(oh) +
                      ", width " + std::to_string(ow) + ")");
  if (oh > std::numeric_limits<int32_t>::max() || ow > std::numeric_limits<int32_t>::max())
    return make_error("input 7 (stride width): the output is too large");
  r.oh = static_cast<uint32_t>(oh);
  r.ow = static_cast<uint32_t>(ow);
  return r;
}

class TransposeConv2DKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::TRANSPOSE_CONV_2D; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    auto layout = transpose_layout(in);
    if (!layout) return make_error(layout.error());
    auto params = check_filtered_operands(in, out, *layout);
    if (!params) return make_error(params.error());
    if (layout->implicit) {
      if (auto r = expect_type(in, kOutputShape, "output shape", {OperandType::TENSOR_INT32}); !r)
        return make_error(r.error());
      if (auto r = expect_rank(in[kOutputShape], kOutputShape, "output shape", 1); !r)
        return make_error(r.error());
    }
    const Nhwc x = input_extents(in[0], params->nchw);
    const auto& f = in[1].dimensions;
    const uint32_t depth_out = f.size() == 4 ? f[0] : 0, fh = f.size() == 4 ? f[1] : 0;
    const uint32_t fw = f.size() == 4 ? f[2] : 0, depth_in = f.size() == 4 ? f[3] : 0;
    if (x.c != 0 && depth_in != 0 && x.c != depth_in)
      return input_error(
          1, "filter",
          "depth_in " + std::to_string(depth_in) + " does not match the input depth " + std::to_string(x.c));
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
    bool known = false;
    auto r = resolve(in, *params, x, fh, fw, depth_out, &known);
    if (!r) return make_error(r.error());
    if (!params->nchw) return std::vector<std::vector<uint32_t>>{{x.n, 0, 0, 0}};
    return std::vector<std::vector<uint32_t>>{r->nchw ? std::vector<uint32_t>{x.n, depth_out, r->oh, r->ow}
                                                      : std::vector<uint32_t>{x.n, r->oh, r->ow, depth_out}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto layout = transpose_layout(in);
    if (!layout) return make_error(layout.error());
    auto partial = read_spatial_params(in, *layout);
    if (!partial) return make_error(partial.error());
    const Nhwc x = input_extents(in[0], partial->nchw);
    const auto& f = in[1].dimensions;
    if (f.size() != 4 || in[0].dimensions.size() != 4 || out.size() != 1)
      return make_error("internal: execute() called with unprepared shapes");
    const uint32_t oc_n = f[0], fh = f[1], fw = f[2], ic_n = f[3];
    bool known = false;
    auto p = resolve(in, *partial, x, fh, fw, oc_n, &known);
    if (!p) return make_error(p.error());
    if (!known) return make_error("internal: parameters unknown at execution");
    const uint32_t oh = p->oh, ow = p->ow;
    const auto macs = known_product(std::array<uint32_t, 7>{x.n, oh, ow, oc_n, fh, fw, ic_n});
    if (!macs || *macs > (uint64_t{1} << 40)) return make_error("too large for the CPU reference");
    const Strides is = layout_strides(p->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(p->nchw, oh, ow, oc_n);
    // The input pixel feeding output row oy through filter row fy, or -1.
    auto source = [](uint32_t o, uint32_t pad, uint32_t fi, uint32_t stride, uint32_t extent) -> int64_t {
      const int64_t t = int64_t{o} + pad - fi;
      if (t < 0 || t % stride != 0 || t / stride >= extent) return -1;
      return t / stride;
    };
    auto for_each_tap = [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t oc, auto&& tap) {
      for (uint32_t fy = fh; fy-- > 0;) {
        const int64_t iy = source(oy, p->pad_top, fy, p->stride_h, x.h);
        if (iy < 0) continue;
        for (uint32_t fx = fw; fx-- > 0;) {
          const int64_t ix = source(ox, p->pad_left, fx, p->stride_w, x.w);
          if (ix < 0) continue;
          const uint64_t ibase =
              b * is.b + static_cast<uint64_t>(iy) * is.y + static_cast<uint64_t>(ix) * is.x;
          const uint64_t fbase = ((uint64_t{oc} * fh + fy) * fw + fx) * ic_n;
          for (uint32_t ic = 0; ic < ic_n; ++ic) tap(ibase + ic * is.c, fbase + ic);
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

const OperationKernel& transpose_conv_2d_kernel() {
  static const TransposeConv2DKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
