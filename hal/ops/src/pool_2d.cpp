// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D kernels (one file: the three share signature, validation
// and the window walk and differ only in the reduction). See window_ops.h for the signature.
// L2_POOL_2D is float only (FLOAT32, FLOAT16): sqrt(sum of squares / in-bounds taps).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"
#include "npu/hal/ops/window_ops.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

Result<SpatialLayout> pool_layout(std::span<const OperandInfo> in) {
  const size_t n = in.size();
  SpatialLayout l;
  if (n == 7 || n == 8) {
    l.implicit = true;
    l.scheme = 1;
    l.stride_w = 2;
    l.filter_w = 4;
    l.activation = 6;
    l.layout = n == 8 ? 7 : 0;
    return l;
  }
  if (n == 10 || n == 11) {
    l.pads = 1;
    l.stride_w = 5;
    l.filter_w = 7;
    l.activation = 9;
    l.layout = n == 11 ? 10 : 0;
    return l;
  }
  return make_error("expected 7 or 8 inputs (implicit padding) or 10 or 11 inputs (explicit padding), got " +
                    std::to_string(n));
}

enum class PoolKind { kAverage, kMax, kL2 };

class Pool2DKernel final : public OperationKernel {
 public:
  explicit Pool2DKernel(PoolKind kind) : kind_(kind), average_(kind == PoolKind::kAverage) {}

  models::OperationType type() const override {
    switch (kind_) {
      case PoolKind::kAverage:
        return models::OperationType::AVERAGE_POOL_2D;
      case PoolKind::kMax:
        return models::OperationType::MAX_POOL_2D;
      case PoolKind::kL2:
        break;
    }
    return models::OperationType::L2_POOL_2D;
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    auto layout = pool_layout(in);
    if (!layout) return make_error(layout.error());
    auto t = kind_ == PoolKind::kL2
                 ? expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16})
                 : expect_type(in, 0, "input",
                               {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
    if (!t) return make_error(t.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    auto params = read_spatial_params(in, *layout);
    if (!params) return make_error(params.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (is_quant8(in[0].type) && (out[0].scale != in[0].scale || out[0].zero_point != in[0].zero_point)) {
      return make_error("output 0: quantisation must equal the input's (scale " +
                        std::to_string(in[0].scale) + ", zeroPoint " + std::to_string(in[0].zero_point) +
                        ")");
    }
    const Nhwc x = input_extents(in[0], params->nchw);
    const auto fh = static_cast<uint32_t>(params->filter_h.value_or(0));
    const auto fw = static_cast<uint32_t>(params->filter_w.value_or(0));
    auto shape = spatial_output_shape(*params, x, fh, fw, x.c);
    if (!shape) return make_error(shape.error());
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto layout = pool_layout(in);
    if (!layout) return make_error(layout.error());
    auto partial = read_spatial_params(in, *layout);
    if (!partial) return make_error(partial.error());
    if (in[0].dimensions.size() != 4 || out.size() != 1 || !partial->filter_w || !partial->filter_h) {
      return make_error("internal: execute() called with unprepared shapes");
    }
    const Nhwc x = input_extents(in[0], partial->nchw);
    const auto fh = static_cast<uint32_t>(*partial->filter_h);
    const auto fw = static_cast<uint32_t>(*partial->filter_w);
    const std::optional<Conv2DParams> p = resolve_spatial(*partial, x, fh, fw);
    if (!p) return make_error("internal: parameters unknown at execution");
    const uint32_t oh = conv_output_size(x.h, fh, 1, p->stride_h, p->pad_top, p->pad_bottom);
    const uint32_t ow = conv_output_size(x.w, fw, 1, p->stride_w, p->pad_left, p->pad_right);
    const auto work = known_product(std::array<uint32_t, 6>{x.n, oh, ow, x.c, fh, fw});
    if (!work || *work > (uint64_t{1} << 40)) return make_error("too large for the CPU reference");
    const Strides is = layout_strides(p->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(p->nchw, oh, ow, x.c);
    const bool quant = is_quant8(in[0].type);
    const std::vector<float> fin = quant ? std::vector<float>{} : read_floats(in[0]);
    const std::vector<int32_t> qin = quant ? read_ints(in[0]) : std::vector<int32_t>{};
    models::Tensor& o = *out[0];
    float lo = 0.0f;
    float hi = 0.0f;
    fx::float_activation_range(p->activation, &lo, &hi);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    // Only a quantised output has a quantised clamp (a float one has scale 0).
    const fx::ClampRange range =
        quant ? fx::quantized_activation_range(p->activation, o.scale, o.zero_point, qmin, qmax)
              : fx::ClampRange{qmin, qmax};
    const uint64_t total = uint64_t{x.n} * os.b;
    std::vector<float> fres(quant ? 0 : total);
    std::vector<int32_t> qres(quant ? total : 0);
    for (uint32_t b = 0; b < x.n; ++b)
      for (uint32_t oy = 0; oy < oh; ++oy)
        for (uint32_t ox = 0; ox < ow; ++ox)
          for (uint32_t c = 0; c < x.c; ++c) {
            float fsum = 0.0f;
            float fmax = std::numeric_limits<float>::lowest();
            int64_t qsum = 0;
            int32_t qmx = std::numeric_limits<int32_t>::min();
            int64_t count = 0;
            for (uint32_t fy = 0; fy < fh; ++fy) {
              const int64_t iy = int64_t{oy} * p->stride_h - p->pad_top + fy;
              if (iy < 0 || iy >= static_cast<int64_t>(x.h)) continue;
              for (uint32_t fx = 0; fx < fw; ++fx) {
                const int64_t ix = int64_t{ox} * p->stride_w - p->pad_left + fx;
                if (ix < 0 || ix >= static_cast<int64_t>(x.w)) continue;
                const uint64_t i =
                    b * is.b + static_cast<uint64_t>(iy) * is.y + static_cast<uint64_t>(ix) * is.x + c * is.c;
                ++count;
                if (quant) {
                  qsum += qin[i];
                  qmx = std::max(qmx, qin[i]);
                } else if (kind_ == PoolKind::kL2) {
                  fsum += fin[i] * fin[i];
                } else {
                  fsum += fin[i];
                  fmax = std::max(fmax, fin[i]);
                }
              }
            }
            const uint64_t oi = b * os.b + oy * os.y + ox * os.x + c * os.c;
            if (quant) {
              // A window entirely in the padding has no taps: it yields the zero point (real 0).
              int64_t v = o.zero_point;
              if (count > 0 && average_) {
                // Averaged from the type's minimum (signed values + 128), rounding half up, so a
                // signed result is exactly the unsigned one shifted by 128 (NN HAL 1.3).
                const int64_t offset = o.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
                v = (qsum + offset * count + count / 2) / count - offset;
              } else if (count > 0) {
                v = qmx;
              }
              qres[oi] = static_cast<int32_t>(std::clamp<int64_t>(v, range.lo, range.hi));
            } else {
              float v = 0.0f;
              if (count > 0 && kind_ == PoolKind::kL2) {
                v = std::sqrt(fsum / static_cast<float>(count));
              } else if (count > 0) {
                v = average_ ? fsum / static_cast<float>(count) : fmax;
              }
              fres[oi] = v < lo ? lo : (v > hi ? hi : v);
            }
          }
    if (quant) {
      write_ints(o, qres);
    } else {
      write_floats(o, fres);
    }
    return {};
  }

 private:
  PoolKind kind_;
  bool average_;
};

}  // namespace

const OperationKernel& average_pool_2d_kernel() {
  static const Pool2DKernel kernel(PoolKind::kAverage);
  return kernel;
}

const OperationKernel& max_pool_2d_kernel() {
  static const Pool2DKernel kernel(PoolKind::kMax);
  return kernel;
}

const OperationKernel& l2_pool_2d_kernel() {
  static const Pool2DKernel kernel(PoolKind::kL2);
  return kernel;
}

Result<Pool2DParams> pool_2d_params(const models::Subgraph& sg, const models::Operation& op) {
  if (op.type != models::OperationType::AVERAGE_POOL_2D && op.type != models::OperationType::MAX_POOL_2D &&
      op.type != models::OperationType::L2_POOL_2D) {
    return make_error("not a pooling operation");
  }
  std::vector<OperandInfo> in;
  for (uint32_t idx : op.inputs) {
    if (idx >= sg.operands.size())
      return make_error("input operand " + std::to_string(idx) + " out of range");
    in.push_back(operand_info(sg.operands[idx]));
  }
  auto layout = pool_layout(in);
  if (!layout) return make_error(layout.error());
  auto partial = read_spatial_params(in, *layout);
  if (!partial) return make_error(partial.error());
  if (!partial->filter_w || !partial->filter_h) return make_error("pool parameters must be constants");
  const Nhwc x = input_extents(in[0], partial->nchw);
  const auto fh = static_cast<uint32_t>(*partial->filter_h);
  const auto fw = static_cast<uint32_t>(*partial->filter_w);
  auto p = resolve_spatial(*partial, x, fh, fw);
  if (!p) {
    return make_error(
        "pool parameters must be constants" +
        std::string(partial->scheme ? " and the input height/width known (implicit padding)" : ""));
  }
  return Pool2DParams{*p, fw, fh};
}

}  // namespace npu::hal::ops
