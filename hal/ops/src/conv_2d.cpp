// CONV_2D kernel: NNAPI validation, shape inference and the CPU reference (see conv_2d.h for the
// signature and the arithmetic contract).
#include "npu/hal/ops/conv_2d.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>

#include "kernel_util.h"
#include "kernels.h"
#include "npu/common/int8_gemm.h"
#include "npu/hal/ops/operation.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

void implicit_padding(int32_t scheme, uint32_t in, uint32_t stride, uint32_t filter, uint32_t dilation,
                      uint32_t* head, uint32_t* tail) {
  *head = 0;
  *tail = 0;
  if (scheme != 1 || stride == 0 || dilation == 0 || filter == 0) return;  // VALID, or nonsense
  const uint64_t effective = (static_cast<uint64_t>(filter) - 1) * dilation + 1;
  const uint64_t out = (static_cast<uint64_t>(in) + stride - 1) / stride;
  const uint64_t needed_span = (out == 0 ? 0 : (out - 1) * stride) + effective;
  const uint64_t total = needed_span > in ? needed_span - in : 0;
  const uint64_t cap = std::numeric_limits<uint32_t>::max();
  *head = static_cast<uint32_t>(std::min(total / 2, cap));
  *tail = static_cast<uint32_t>(std::min(total - total / 2, cap));
}

uint32_t conv_output_size(uint32_t in, uint32_t filter, uint32_t dilation, uint32_t stride, uint32_t pad_head,
                          uint32_t pad_tail) {
  if (stride == 0 || dilation == 0 || filter == 0) return 0;
  const uint64_t effective = (static_cast<uint64_t>(filter) - 1) * dilation + 1;
  const uint64_t padded = static_cast<uint64_t>(in) + pad_head + pad_tail;
  if (padded < effective) return 0;
  const uint64_t out = (padded - effective) / stride + 1;
  return out > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(out);
}

namespace {

// Where each parameter sits for the given input count (NNAPI has two signatures).
Result<SpatialLayout> conv_layout(std::span<const OperandInfo> in) {
  const size_t n = in.size();
  SpatialLayout l;
  if (n == 7 || n == 8 || (n == 10 && in[7].type == OperandType::BOOL)) {
    l.implicit = true;
    l.scheme = 3;
    l.stride_w = 4;
    l.activation = 6;
    l.layout = n >= 8 ? 7 : 0;
    l.dilation = n == 10 ? 8 : 0;
    return l;
  }
  if (n == 10 || n == 11 || n == 13) {
    l.pads = 3;
    l.stride_w = 7;
    l.activation = 9;
    l.layout = n >= 11 ? 10 : 0;
    l.dilation = n == 13 ? 11 : 0;
    return l;
  }
  return make_error(
      "expected 7, 8 or 10 inputs (implicit padding) or 10, 11 or 13 inputs (explicit padding), got " +
      std::to_string(n));
}

class Conv2DKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::CONV_2D; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    auto layout = conv_layout(in);
    if (!layout) return make_error(layout.error());
    auto params = check_filtered_operands(in, out, *layout);
    if (!params) return make_error(params.error());
    const bool quant = is_quant8(in[0].type);

    const Nhwc x = input_extents(in[0], params->nchw);
    const auto& f = in[1].dimensions;
    const uint32_t depth_out = f.size() == 4 ? f[0] : 0;
    const uint32_t fh = f.size() == 4 ? f[1] : 0;
    const uint32_t fw = f.size() == 4 ? f[2] : 0;
    const uint32_t filter_depth = f.size() == 4 ? f[3] : 0;
    if (x.c != 0 && filter_depth != 0 && x.c != filter_depth) {
      return input_error(1, "filter",
                         "depth_in " + std::to_string(filter_depth) + " does not match the input depth " +
                             std::to_string(x.c));
    }
    const uint32_t bias_len = in[2].dimensions.size() == 1 ? in[2].dimensions[0] : 0;
    if (bias_len != 0 && depth_out != 0 && bias_len != depth_out) {
      return input_error(
          2, "bias",
          "has " + std::to_string(bias_len) + " elements, expected depth_out " + std::to_string(depth_out));
    }
    if (quant) {
      if (in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        if (in[1].per_channel == nullptr || in[1].per_channel->channel_dim != 0) {
          return input_error(1, "filter", "per-channel quantisation must be along dimension 0 (depth_out)");
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
    auto layout = conv_layout(in);
    if (!layout) return make_error(layout.error());
    auto partial = read_spatial_params(in, *layout);
    if (!partial) return make_error(partial.error());
    const Nhwc x = input_extents(in[0], partial->nchw);
    const auto& f = in[1].dimensions;
    if (f.size() != 4 || in[0].dimensions.size() != 4 || out.size() != 1 || out[0]->dimensions.size() != 4) {
      return make_error("internal: execute() called with unprepared shapes");
    }
    const std::optional<Conv2DParams> p = resolve_spatial(*partial, x, f[1], f[2]);
    if (!p) return make_error("internal: parameters unknown at execution");
    const uint32_t oc_n = f[0], fh = f[1], fw = f[2], ic_n = f[3];
    const uint32_t oh = conv_output_size(x.h, fh, p->dilation_h, p->stride_h, p->pad_top, p->pad_bottom);
    const uint32_t ow = conv_output_size(x.w, fw, p->dilation_w, p->stride_w, p->pad_left, p->pad_right);
    const auto macs = known_product(std::array<uint32_t, 7>{x.n, oh, ow, oc_n, fh, fw, ic_n});
    if (!macs || *macs > (uint64_t{1} << 40)) return make_error("too large for the CPU reference");

    // Element strides of the input and output in their layout, so one loop nest serves NHWC and NCHW.
    const uint64_t H = x.h, W = x.w;
    const Strides is = layout_strides(p->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(p->nchw, oh, ow, oc_n);
    const uint64_t isy = is.y, isx = is.x, isc = is.c, isb = is.b;
    const uint64_t osb = os.b, osy = os.y, osx = os.x, osc = os.c;

    // Visits every in-bounds tap of one output element in the documented order (fy, fx, ic).
    auto for_each_tap = [&](uint32_t b, uint32_t oy, uint32_t ox, uint32_t oc, auto&& tap) {
      for (uint32_t fy = 0; fy < fh; ++fy) {
        const int64_t iy = int64_t{oy} * p->stride_h - p->pad_top + int64_t{fy} * p->dilation_h;
        if (iy < 0 || iy >= static_cast<int64_t>(H)) continue;
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const int64_t ix = int64_t{ox} * p->stride_w - p->pad_left + int64_t{fx} * p->dilation_w;
          if (ix < 0 || ix >= static_cast<int64_t>(W)) continue;
          const uint64_t ibase = b * isb + static_cast<uint64_t>(iy) * isy + static_cast<uint64_t>(ix) * isx;
          const uint64_t fbase = ((uint64_t{oc} * fh + fy) * fw + fx) * ic_n;
          for (uint32_t ic = 0; ic < ic_n; ++ic) tap(ibase + ic * isc, fbase + ic);
        }
      }
    };
    models::Tensor& o = *out[0];
    const uint64_t total = uint64_t{x.n} * osb;

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
              acc = acc < lo ? lo : (acc > hi ? hi : acc);
              result[b * osb + oy * osy + ox * osx + oc * osc] = acc;
            }
      write_floats(o, result);
      return {};
    }

    // Quantised: an exact integer GEMM (npu/common/int8_gemm.h) over im2col rows of a band of output
    // positions at a time. The accumulation wraps in 32 bits, so its order does not matter and the result
    // equals the per-element definition in conv_2d.h bit for bit. Taps in the padding are filled with the
    // input's zero point, so they contribute (zp − zp)·w = 0 exactly as a skipped tap does.
    if (!in[0].has_value() || !in[1].has_value() || !in[2].has_value())
      return make_error("internal: execute() called without the input, filter or bias values");
    const uint64_t k = uint64_t{fh} * fw * ic_n;
    if (k > std::numeric_limits<uint32_t>::max()) return make_error("too large for the CPU reference");
    const std::vector<uint8_t>& xv = *in[0].value;
    const std::vector<uint8_t>& fv = *in[1].value;
    if (xv.size() < x.n * isb) return input_error(0, "input", "holds fewer bytes than its shape");
    if (fv.size() < uint64_t{oc_n} * k) return input_error(1, "filter", "holds fewer bytes than its shape");
    if (o.data.size() < total) return make_error("internal: output buffer smaller than its shape");
    const std::vector<int32_t> bias = read_ints(in[2]);
    if (bias.size() < oc_n) return input_error(2, "bias", "holds fewer values than depth_out");
    const bool in_signed = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    // Activations enter the GEMM as uint8: int8 ones biased by 128 (x ^ 0x80), their zero point with them.
    const int32_t a_offset = in[0].zero_point + (in_signed ? 128 : 0);
    if (a_offset < 0 || a_offset > 255)
      return input_error(0, "input", "zero point " + std::to_string(in[0].zero_point) + " out of range");
    const bool per_channel = in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    gemm::PackedWeights pw;
    pw.pack(fv.data(), static_cast<uint32_t>(k), oc_n, 1, k, in[1].type == OperandType::TENSOR_QUANT8_ASYMM);
    const std::vector<int32_t> w_offsets(oc_n, per_channel ? 0 : pw.stored_offset(in[1].zero_point));
    std::vector<int32_t> multiplier(oc_n), shift(oc_n);
    for (uint32_t oc = 0; oc < oc_n; ++oc) {
      const float fs = per_channel ? in[1].per_channel->scales[oc] : in[1].scale;
      const fx::QuantizedMultiplier qm = conv_multiplier(in[0].scale, fs, o.scale);
      multiplier[oc] = qm.multiplier;
      shift[oc] = qm.shift;
    }
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range =
        fx::quantized_activation_range(p->activation, o.scale, o.zero_point, qmin, qmax);

    const uint64_t positions = uint64_t{x.n} * oh * ow;
    // Bands of about 1 MiB of im2col rows: cache-sized, and bounded whatever the layer.
    const auto band =
        static_cast<uint32_t>(std::min<uint64_t>(positions, std::max<uint64_t>(16, (1u << 20) / k)));
    std::vector<uint8_t> cols(uint64_t{band} * k);
    std::vector<int32_t> acc(uint64_t{band} * oc_n);
    const uint8_t flip = in_signed ? 0x80 : 0;
    const auto pad = static_cast<uint8_t>(a_offset);
    for (uint64_t p0 = 0; p0 < positions; p0 += band) {
      const auto rows = static_cast<uint32_t>(std::min<uint64_t>(band, positions - p0));
      for (uint32_t r = 0; r < rows; ++r) {
        const uint64_t pos = p0 + r, b = pos / (uint64_t{oh} * ow), oy = pos / ow % oh, ox = pos % ow;
        uint8_t* dst = cols.data() + uint64_t{r} * k;
        for (uint32_t fy = 0; fy < fh; ++fy) {
          const int64_t iy =
              static_cast<int64_t>(oy * p->stride_h) - p->pad_top + int64_t{fy} * p->dilation_h;
          for (uint32_t fx = 0; fx < fw; ++fx, dst += ic_n) {
            const int64_t ix =
                static_cast<int64_t>(ox * p->stride_w) - p->pad_left + int64_t{fx} * p->dilation_w;
            if (iy < 0 || iy >= static_cast<int64_t>(H) || ix < 0 || ix >= static_cast<int64_t>(W)) {
              std::memset(dst, pad, ic_n);
              continue;
            }
            const uint8_t* src =
                xv.data() + b * isb + static_cast<uint64_t>(iy) * isy + static_cast<uint64_t>(ix) * isx;
            if (isc == 1 && flip == 0) {
              std::memcpy(dst, src, ic_n);
            } else {
              for (uint32_t ic = 0; ic < ic_n; ++ic) dst[ic] = src[ic * isc] ^ flip;
            }
          }
        }
      }
      gemm::multiply_offsets(cols.data(), k, rows, a_offset, pw, w_offsets.data(), acc.data(), oc_n);
      // requantize(wrap_add(acc, bias), ...) of every output channel, stored as bytes (two's complement
      // for int8, as write_ints).
      for (uint32_t r = 0; r < rows; ++r) {
        const uint64_t pos = p0 + r, b = pos / (uint64_t{oh} * ow), oy = pos / ow % oh, ox = pos % ow;
        gemm::requantize_row(acc.data() + uint64_t{r} * oc_n, bias.data(), multiplier.data(), shift.data(),
                             o.zero_point, range.lo, range.hi, o.data.data() + b * osb + oy * osy + ox * osx,
                             osc, oc_n);
      }
    }
    return {};
  }
};

}  // namespace

const OperationKernel& conv_2d_kernel() {
  static const Conv2DKernel kernel;
  return kernel;
}

Result<Conv2DParams> conv_2d_params(const models::Subgraph& sg, const models::Operation& op) {
  if (op.type != models::OperationType::CONV_2D) return make_error("not a CONV_2D operation");
  std::vector<OperandInfo> in;
  for (uint32_t idx : op.inputs) {
    if (idx >= sg.operands.size())
      return make_error("input operand " + std::to_string(idx) + " out of range");
    in.push_back(operand_info(sg.operands[idx]));
  }
  auto layout = conv_layout(in);
  if (!layout) return make_error(layout.error());
  auto partial = read_spatial_params(in, *layout);
  if (!partial) return make_error(partial.error());
  if (in[1].dimensions.size() != 4) return make_error("input 1 (filter): expected rank 4");
  const Nhwc x = input_extents(in[0], partial->nchw);
  auto p = resolve_spatial(*partial, x, in[1].dimensions[1], in[1].dimensions[2]);
  if (!p) {
    return make_error(
        "CONV_2D parameters must be constants" +
        std::string(partial->scheme ? " and the input height/width known (implicit padding)" : ""));
  }
  return *p;
}

}  // namespace npu::hal::ops
