// Box and ROI operations of NNAPI 1.2 (CPU only: data-dependent box work the NPU does not run).
//   AXIS_ALIGNED_BBOX_TRANSFORM: 0 rois [n, 4] (x1, y1, x2, y2), 1 deltas [n, 4·classes] (dx, dy, dw, dh),
//     2 batch index of each roi [n] (INT32), 3 image info [batches, 2] (height, width). Per roi and class:
//     centre (x, y) = ((x1 + x2)/2, (y1 + y2)/2), size (w, h) = (x2 − x1, y2 − y1); the new box has centre
//     (x + dx·w, y + dy·h) and size (e^dw·w, e^dh·h), its corners clipped to [0, width] × [0, height].
//     Output [n, 4·classes] of the rois' type. Types: float32, float16, or quant16 asymm rois / image info
//     (scale 0.125, zero point 0) with quant8 asymm (or signed) deltas: computed on the dequantised values,
//     the output rounded to the nearest 0.125 step.
//   ROI_ALIGN: 0 input [batches, h, w, depth] (NHWC, or NCHW with input 9), 1 rois [n, 4] in the original
//     image's coordinates, 2 batch index [n], 3 out_h, 4 out_w, 5 height stride, 6 width stride (image /
//     feature-map ratio), 7 height and 8 width sampling ratio (0 = adaptive ⌈bin size⌉), 9 layout.
//     Each output bin averages sampling_h × sampling_w bilinear samples at the sub-bin centres of the roi
//     (scaled by 1/stride, at least 1 × 1); samples past the last row/column use that row/column.
//     Float: samples summed in order, divided by their count. Quant8 (rois quant16 asymm, scale 0.125):
//     each bilinear weight is rounded to a multiple of 1/255, Σ round(255·w)·(q − zp) in int32, then
//     requantised by input_scale / (255 · output_scale · samples) and clamped; signed = unsigned − 128.
//     Rois must lie inside the feature map, x1 ≤ x2, y1 ≤ y2; a bad roi or batch index is an error
//     naming it.
//   ROI_POOLING: inputs as ROI_ALIGN's without the sampling ratios (0-6, 7 layout). The roi's corners
//     scaled by 1/stride and rounded to whole pixels (x1..x2 inclusive, at least 1 × 1), each bin
//     [floor(start), ceil(end)) clipped to the map, the maximum of its raw values (quant8 keeps the input's
//     quantisation; an empty bin gives the zero point).
#include <algorithm>
#include <cmath>
#include <limits>

#include "detection_util.h"
#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class AxisAlignedBboxTransformKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::AXIS_ALIGNED_BBOX_TRANSFORM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 4) return make_error("expected 4 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(
            in, 0, "rois",
            {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT16_ASYMM});
        !r)
      return make_error(r.error());
    const OperandType t = in[0].type;
    const bool quant = t == OperandType::TENSOR_QUANT16_ASYMM;
    if (auto r =
            quant ? expect_type(in, 1, "bbox deltas",
                                {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED})
                  : expect_type(in, 1, "bbox deltas", {t});
        !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 2, "batch indices", {OperandType::TENSOR_INT32}); !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 3, "image info", {t}); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[0], 0, "rois"); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[3], 3, "image info"); !r) return make_error(r.error());
    if (auto r = expect_2d(in[0], 0, "rois", 0, 4); !r) return make_error(r.error());
    const uint32_t n = dim(in[0], 0);
    if (auto r = expect_2d(in[1], 1, "bbox deltas", n, 0); !r) return make_error(r.error());
    const uint32_t cols = dim(in[1], 1);
    if (in[1].rank_known() && cols != 0 && cols % 4 != 0)
      return input_error(1, "bbox deltas", "has " + std::to_string(cols) + " columns, not a multiple of 4");
    if (auto r = expect_rank(in[2], 2, "batch indices", 1); !r) return make_error(r.error());
    if (n && dim(in[2], 0) && dim(in[2], 0) != n)
      return input_error(2, "batch indices", "must have one entry per roi (" + std::to_string(n) + ")");
    if (auto r = expect_2d(in[3], 3, "image info", 0, 2); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    if (quant && (out[0].scale != 0.125f || out[0].zero_point != 0))
      return make_error("output 0: quant16 asymm boxes need scale 0.125 and zero point 0");
    return std::vector<std::vector<uint32_t>>{{n, cols}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<float> rois = real_values(in[0]), deltas = real_values(in[1]),
                             info = real_values(in[3]);
    const std::vector<int32_t> batch = read_ints(in[2]);
    const uint64_t n = in[0].dimensions[0], cols = in[1].dimensions[1], batches = in[3].dimensions[0];
    std::vector<float> result(n * cols);
    for (uint64_t i = 0; i < n; ++i) {
      const float* r = &rois[i * 4];
      if (batch[i] < 0 || static_cast<uint64_t>(batch[i]) >= batches)
        return input_error(2, "batch indices",
                           "roi " + std::to_string(i) + " names batch " + std::to_string(batch[i]) +
                               ", the image info has " + std::to_string(batches));
      if (r[2] < r[0] || r[3] < r[1])
        return input_error(0, "rois", "roi " + std::to_string(i) + " has x2 < x1 or y2 < y1");
      const float height = info[batch[i] * 2], width = info[batch[i] * 2 + 1];
      const float w = r[2] - r[0], h = r[3] - r[1], cx = (r[0] + r[2]) / 2, cy = (r[1] + r[3]) / 2;
      for (uint64_t c = 0; c < cols / 4; ++c) {
        const float* d = &deltas[i * cols + c * 4];
        const float nx = cx + d[0] * w, ny = cy + d[1] * h;
        const float nw = std::exp(d[2]) * w, nh = std::exp(d[3]) * h;
        float* o = &result[i * cols + c * 4];
        o[0] = std::min(std::max(nx - nw / 2, 0.0f), width);
        o[1] = std::min(std::max(ny - nh / 2, 0.0f), height);
        o[2] = std::min(std::max(nx + nw / 2, 0.0f), width);
        o[3] = std::min(std::max(ny + nh / 2, 0.0f), height);
      }
    }
    write_reals(*out[0], result);
    return {};
  }
};

class RoiAlignKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::ROI_ALIGN; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 10) return make_error("expected 10 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    const bool quant = is_quant8(t);
    const OperandType box = quant ? OperandType::TENSOR_QUANT16_ASYMM : t;
    const OperandType scalar = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "rois", {box}); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[1], 1, "rois"); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "batch indices", {OperandType::TENSOR_INT32}); !r)
      return make_error(r.error());
    auto oh = int_param_in_range(in, 3, "output height", 1, std::numeric_limits<int32_t>::max());
    if (!oh) return make_error(oh.error());
    auto ow = int_param_in_range(in, 4, "output width", 1, std::numeric_limits<int32_t>::max());
    if (!ow) return make_error(ow.error());
    for (size_t i : {size_t{5}, size_t{6}}) {
      const char* role = i == 5 ? "height stride" : "width stride";
      if (auto r = expect_type(in, i, role, {scalar}); !r) return make_error(r.error());
      const auto v = float_param(in[i]);
      if (v && !(*v > 0.0f)) return input_error(i, role, "must be > 0");
    }
    for (size_t i : {size_t{7}, size_t{8}}) {
      auto v = int_param_in_range(in, i, i == 7 ? "height sampling ratio" : "width sampling ratio", 0,
                                  std::numeric_limits<int32_t>::max());
      if (!v) return make_error(v.error());
    }
    if (auto r = expect_type(in, 9, "NCHW layout", {OperandType::BOOL}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_2d(in[1], 1, "rois", 0, 4); !r) return make_error(r.error());
    const uint32_t n = dim(in[1], 0);
    if (auto r = expect_rank(in[2], 2, "batch indices", 1); !r) return make_error(r.error());
    if (n && dim(in[2], 0) && dim(in[2], 0) != n)
      return input_error(2, "batch indices", "must have one entry per roi (" + std::to_string(n) + ")");
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    const std::optional<bool> nchw = bool_param(in[9]);
    if (!nchw) return std::vector<std::vector<uint32_t>>{{n, 0, 0, 0}};
    const Nhwc x = input_extents(in[0], nchw);
    const uint32_t h = *oh ? static_cast<uint32_t>(**oh) : 0, w = *ow ? static_cast<uint32_t>(**ow) : 0;
    return std::vector<std::vector<uint32_t>>{*nchw ? std::vector<uint32_t>{n, x.c, h, w}
                                                    : std::vector<uint32_t>{n, h, w, x.c}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool nchw = bool_param(in[9]).value_or(false);
    const Nhwc x = input_extents(in[0], nchw);
    const uint32_t oh = static_cast<uint32_t>(int_param(in[3]).value_or(1));
    const uint32_t ow = static_cast<uint32_t>(int_param(in[4]).value_or(1));
    const float h_scale = 1.0f / float_param(in[5]).value_or(1.0f),
                w_scale = 1.0f / float_param(in[6]).value_or(1.0f);
    const int32_t h_ratio = int_param(in[7]).value_or(0), w_ratio = int_param(in[8]).value_or(0);
    const uint64_t n = in[1].dimensions[0];
    const std::vector<float> rois = real_values(in[1]);
    const std::vector<int32_t> batch = read_ints(in[2]);
    const bool quant = is_quant8(in[0].type);
    const std::vector<float> fin = quant ? std::vector<float>{} : read_floats(in[0]);
    const std::vector<int32_t> qin = quant ? read_ints(in[0]) : std::vector<int32_t>{};
    const Strides is = layout_strides(nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(nchw, oh, ow, x.c);
    models::Tensor& o = *out[0];
    std::vector<float> fout(quant ? 0 : n * os.b);
    std::vector<int32_t> qout(quant ? n * os.b : 0);
    int32_t qmin = 0, qmax = 0;
    if (quant) quant8_range(o.type, &qmin, &qmax);
    for (uint64_t i = 0; i < n; ++i) {
      const std::string roi = "roi " + std::to_string(i);
      if (batch[i] < 0 || static_cast<uint32_t>(batch[i]) >= x.n)
        return input_error(
            2, "batch indices",
            roi + " names batch " + std::to_string(batch[i]) + ", the input has " + std::to_string(x.n));
      const float* r = &rois[i * 4];
      const float x1 = r[0] * w_scale, y1 = r[1] * h_scale, x2 = r[2] * w_scale, y2 = r[3] * h_scale;
      if (!(r[0] >= 0 && r[1] >= 0 && x2 <= static_cast<float>(x.w) && y2 <= static_cast<float>(x.h) &&
            x1 <= x2 && y1 <= y2))
        return input_error(1, "rois", roi + " lies outside the feature map or has x2 < x1 or y2 < y1");
      const float roi_w = std::max(x2 - x1, 1.0f), roi_h = std::max(y2 - y1, 1.0f);
      const float step_w = roi_w / static_cast<float>(ow), step_h = roi_h / static_cast<float>(oh);
      const auto sw = static_cast<uint32_t>(w_ratio > 0 ? w_ratio : std::ceil(step_w));
      const auto sh = static_cast<uint32_t>(h_ratio > 0 ? h_ratio : std::ceil(step_h));
      const uint32_t samples = sw * sh;
      const float bin_w = step_w / static_cast<float>(sw), bin_h = step_h / static_cast<float>(sh);
      fx::QuantizedMultiplier qm{};
      if (quant) qm = safe_multiplier(static_cast<double>(in[0].scale) / 255.0 / o.scale / samples);
      const uint64_t base = static_cast<uint64_t>(batch[i]) * is.b;
      for (uint32_t py = 0; py < oh; ++py)
        for (uint32_t px = 0; px < ow; ++px) {
          std::vector<float> facc(x.c, 0.0f);
          std::vector<int32_t> qacc(x.c, 0);
          for (uint32_t sy = 0; sy < sh; ++sy)
            for (uint32_t sx = 0; sx < sw; ++sx) {
              const float yy = step_h * py + y1 + bin_h / 2 + bin_h * sy;
              const float xx = step_w * px + x1 + bin_w / 2 + bin_w * sx;
              auto lx = static_cast<uint32_t>(std::floor(xx)), ly = static_cast<uint32_t>(std::floor(yy));
              uint32_t hx = lx + 1, hy = ly + 1;
              float dx = xx - static_cast<float>(lx), dy = yy - static_cast<float>(ly);
              if (lx >= x.w - 1) {
                lx = hx = x.w - 1;
                dx = 0;
              }
              if (ly >= x.h - 1) {
                ly = hy = x.h - 1;
                dy = 0;
              }
              const float wts[4] = {(1 - dx) * (1 - dy), dx * (1 - dy), (1 - dx) * dy, dx * dy};
              const uint64_t at[4] = {base + ly * is.y + lx * is.x, base + ly * is.y + hx * is.x,
                                      base + hy * is.y + lx * is.x, base + hy * is.y + hx * is.x};
              for (uint32_t c = 0; c < x.c; ++c) {
                if (quant) {
                  int32_t v = 0;
                  for (int k = 0; k < 4; ++k)
                    v += static_cast<int32_t>(std::round(wts[k] * 255.0f)) *
                         (qin[at[k] + c * is.c] - in[0].zero_point);
                  qacc[c] += v;
                } else {
                  float v = 0.0f;
                  for (int k = 0; k < 4; ++k) v += wts[k] * fin[at[k] + c * is.c];
                  facc[c] += v;
                }
              }
            }
          for (uint32_t c = 0; c < x.c; ++c) {
            const uint64_t oi = i * os.b + py * os.y + px * os.x + c * os.c;
            if (quant) {
              qout[oi] =
                  std::clamp(fx::multiply_by_quantized_multiplier(qacc[c], qm) + o.zero_point, qmin, qmax);
            } else {
              fout[oi] = facc[c] / static_cast<float>(samples);
            }
          }
        }
    }
    if (quant) {
      write_ints(o, qout);
    } else {
      write_floats(o, fout);
    }
    return {};
  }
};

class RoiPoolingKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::ROI_POOLING; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 8) return make_error("expected 8 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    const OperandType box = is_quant8(t) ? OperandType::TENSOR_QUANT16_ASYMM : t;
    const OperandType scalar = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "rois", {box}); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[1], 1, "rois"); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "batch indices", {OperandType::TENSOR_INT32}); !r)
      return make_error(r.error());
    auto oh = int_param_in_range(in, 3, "output height", 1, std::numeric_limits<int32_t>::max());
    if (!oh) return make_error(oh.error());
    auto ow = int_param_in_range(in, 4, "output width", 1, std::numeric_limits<int32_t>::max());
    if (!ow) return make_error(ow.error());
    for (size_t i : {size_t{5}, size_t{6}}) {
      const char* role = i == 5 ? "height stride" : "width stride";
      if (auto r = expect_type(in, i, role, {scalar}); !r) return make_error(r.error());
      const auto v = float_param(in[i]);
      if (v && !(*v > 0.0f)) return input_error(i, role, "must be > 0");
    }
    if (auto r = expect_type(in, 7, "NCHW layout", {OperandType::BOOL}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_2d(in[1], 1, "rois", 0, 4); !r) return make_error(r.error());
    const uint32_t n = dim(in[1], 0);
    if (auto r = expect_rank(in[2], 2, "batch indices", 1); !r) return make_error(r.error());
    if (n && dim(in[2], 0) && dim(in[2], 0) != n)
      return input_error(2, "batch indices", "must have one entry per roi (" + std::to_string(n) + ")");
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    const std::optional<bool> nchw = bool_param(in[7]);
    if (!nchw) return std::vector<std::vector<uint32_t>>{{n, 0, 0, 0}};
    const Nhwc x = input_extents(in[0], nchw);
    const uint32_t h = *oh ? static_cast<uint32_t>(**oh) : 0, w = *ow ? static_cast<uint32_t>(**ow) : 0;
    return std::vector<std::vector<uint32_t>>{*nchw ? std::vector<uint32_t>{n, x.c, h, w}
                                                    : std::vector<uint32_t>{n, h, w, x.c}};
  }

  // Max over each bin, on the raw element values (quant8 keeps the input's quantisation); an empty bin
  // gives the zero point (real 0).
  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool nchw = bool_param(in[7]).value_or(false);
    const Nhwc x = input_extents(in[0], nchw);
    const uint32_t oh = static_cast<uint32_t>(int_param(in[3]).value_or(1));
    const uint32_t ow = static_cast<uint32_t>(int_param(in[4]).value_or(1));
    const float h_scale = 1.0f / float_param(in[5]).value_or(1.0f),
                w_scale = 1.0f / float_param(in[6]).value_or(1.0f);
    const uint64_t n = in[1].dimensions[0];
    const std::vector<float> rois = real_values(in[1]);
    const std::vector<int32_t> batch = read_ints(in[2]);
    const bool quant = is_quant8(in[0].type);
    const std::vector<float> v = quant ? std::vector<float>{} : read_floats(in[0]);
    const std::vector<int32_t> q = quant ? read_ints(in[0]) : std::vector<int32_t>{};
    const Strides is = layout_strides(nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(nchw, oh, ow, x.c);
    std::vector<float> fout(quant ? 0 : n * os.b);
    std::vector<int32_t> qout(quant ? n * os.b : 0);
    for (uint64_t i = 0; i < n; ++i) {
      const std::string roi = "roi " + std::to_string(i);
      if (batch[i] < 0 || static_cast<uint32_t>(batch[i]) >= x.n)
        return input_error(
            2, "batch indices",
            roi + " names batch " + std::to_string(batch[i]) + ", the input has " + std::to_string(x.n));
      const float* r = &rois[i * 4];
      if (!(r[0] >= 0 && r[1] >= 0 && r[2] * w_scale <= static_cast<float>(x.w) &&
            r[3] * h_scale <= static_cast<float>(x.h) && r[0] <= r[2] && r[1] <= r[3]))
        return input_error(1, "rois", roi + " lies outside the feature map or has x2 < x1 or y2 < y1");
      const auto x1 = static_cast<int32_t>(std::round(r[0] * w_scale)),
                 y1 = static_cast<int32_t>(std::round(r[1] * h_scale));
      const auto x2 = static_cast<int32_t>(std::round(r[2] * w_scale)),
                 y2 = static_cast<int32_t>(std::round(r[3] * h_scale));
      const float step_w = static_cast<float>(std::max(x2 - x1 + 1, 1)) / static_cast<float>(ow);
      const float step_h = static_cast<float>(std::max(y2 - y1 + 1, 1)) / static_cast<float>(oh);
      const uint64_t base = static_cast<uint64_t>(batch[i]) * is.b;
      for (uint32_t py = 0; py < oh; ++py)
        for (uint32_t px = 0; px < ow; ++px) {
          const auto ys = std::min(static_cast<uint32_t>(std::floor(step_h * py + y1)), x.h);
          const auto ye = std::min(static_cast<uint32_t>(std::ceil(step_h * (py + 1) + y1)), x.h);
          const auto xs = std::min(static_cast<uint32_t>(std::floor(step_w * px + x1)), x.w);
          const auto xe = std::min(static_cast<uint32_t>(std::ceil(step_w * (px + 1) + x1)), x.w);
          for (uint32_t c = 0; c < x.c; ++c) {
            const uint64_t oi = i * os.b + py * os.y + px * os.x + c * os.c;
            bool first = true;
            float fm = 0.0f;
            int32_t qm = in[0].zero_point;
            for (uint32_t yy = ys; yy < ye; ++yy)
              for (uint32_t xx = xs; xx < xe; ++xx) {
                const uint64_t ii = base + yy * is.y + xx * is.x + c * is.c;
                if (quant) {
                  if (first || q[ii] > qm) qm = q[ii];
                } else if (first || v[ii] > fm) {
                  fm = v[ii];
                }
                first = false;
              }
            if (quant) {
              qout[oi] = qm;
            } else {
              fout[oi] = fm;
            }
          }
        }
    }
    if (quant) {
      write_ints(*out[0], qout);
    } else {
      write_floats(*out[0], fout);
    }
    return {};
  }
};

}  // namespace

const OperationKernel& axis_aligned_bbox_transform_kernel() {
  static const AxisAlignedBboxTransformKernel kernel;
  return kernel;
}
const OperationKernel& roi_align_kernel() {
  static const RoiAlignKernel kernel;
  return kernel;
}
const OperationKernel& roi_pooling_kernel() {
  static const RoiPoolingKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
