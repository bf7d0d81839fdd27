// Detection operations of NNAPI 1.2 (CPU only: data-dependent box work the NPU does not run).
//   AXIS_ALIGNED_BBOX_TRANSFORM: 0 rois [n, 4] (x1, y1, x2, y2), 1 deltas [n, 4·classes] (dx, dy, dw, dh),
//     2 batch index of each roi [n] (INT32), 3 image info [batches, 2] (height, width). Per roi and class:
//     centre (x, y) = ((x1 + x2)/2, (y1 + y2)/2), size (w, h) = (x2 − x1, y2 − y1); the new box has centre
//     (x + dx·w, y + dy·h) and size (e^dw·w, e^dh·h), its corners clipped to [0, width] × [0, height].
//     Output [n, 4·classes] of the rois' type. Types: float32, float16, or quant16 asymm rois / image info
//     (scale 0.125, zero point 0) with quant8 asymm (or signed) deltas: computed on the dequantised values,
//     the output rounded to the nearest 0.125 step.
//   BOX_WITH_NMS_LIMIT: 0 scores [n, classes], 1 boxes [n, 4·classes], 2 batch index [n] (boxes of one
//     batch consecutive), 3 score threshold, 4 max detections per batch (< 0: no limit), 5 NMS kernel
//     (0 hard, 1 linear, 2 Gaussian), 6 IoU threshold, 7 sigma, 8 NMS score threshold. Per batch and
//     class ≥ 1 (class 0 is the background): boxes scoring above the threshold; repeatedly the best
//     (first of equals) is kept and every other box's score multiplied by the kernel of its IoU with it
//     (hard: 0 at IoU ≥ threshold; linear: 1 − IoU there; Gaussian: exp(−IoU²/sigma)), dropping those
//     below the NMS score threshold, up to max detections per class. The batch's boxes are then sorted by
//     score, cut to max detections, and ordered by class then score. Outputs: scores [k] (updated), boxes
//     [k, 4] (as given), classes [k], batch indices [k]; k depends on the values, so the outputs are
//     sized at execution (k = 0 is an error: zero-sized tensors are not represented here). Quant8
//     scores are dequantised, the kept scores requantised with the output's parameters.
//   DETECTION_POSTPROCESSING: 0 class scores [batches, anchors, classes], 1 box encodings [batches,
//     anchors, ≥ 4] (ty, tx, th, tw), 2 anchors [anchors, 4] (centre y, centre x, h, w), 3-6 scales y, x,
//     h, w, 7 regular NMS (BOOL), 8 max detections, 9 max classes per detection, 10 max detections per
//     class, 11 score threshold, 12 IoU threshold, 13 background in label (BOOL). Boxes decode to centre
//     (a_y + a_h·ty/s_y, a_x + a_w·tx/s_x), size (a_h·e^(th/s_h), a_w·e^(tw/s_w)), written (y1, x1, y2, x2).
//     Regular: per class ≥ 1, hard NMS of the boxes above the score threshold (up to max per class), all
//     sorted by score (stable), the first max detections. Fast: each anchor's best class score, hard NMS
//     of the anchors above the threshold up to max detections, each kept anchor giving its best
//     min(classes − 1, max classes per detection) classes (stable order among equal scores). Class labels
//     are the class index − 1 unless the background is in the label. Outputs scores [batches, k], boxes
//     [batches, k, 4], classes [batches, k] (k = max detections, × max classes per detection when fast;
//     unused slots 0) and the count per batch. Float32/16.
//   GENERATE_PROPOSALS: 0 scores [batches, h, w, anchors], 1 deltas [batches, h, w, 4·anchors] (or NCHW,
//     input 10), 2 anchors [anchors, 4], 3 image info [batches, 2], 4 height and 5 width stride, 6 pre-NMS
//     top N and 7 post-NMS top N (≤ 0: all), 8 IoU threshold, 9 min size. Per batch: each anchor moved
//     to every cell (x·w_stride, y·h_stride) and transformed by its deltas as AXIS_ALIGNED_BBOX_TRANSFORM
//     does (clipped to the image), the pre-NMS best (stable order among equals), boxes with a side not
//     above min size or centred outside the image dropped, hard NMS up to post-NMS top N. Outputs scores
//     [k], boxes [k, 4], batch indices [k] (sized at execution; k = 0 is an error). Quant8 scores and
//     deltas with quant16 symm anchors and quant16 asymm image info (scale 0.125) run on dequantised values.
//   HEATMAP_MAX_KEYPOINT: 0 heatmaps [boxes, size, size, keypoints] (or NCHW, input 2), 1 boxes [boxes, 4].
//     Per box and keypoint: the first maximum (row-major), refined to sub-pixel by the quadratic fit of
//     its 3 × 3 neighbourhood (mirrored at the edges; offset clipped to 1.5); keypoint = ((index + offset
//     + 0.5) / size) · box extent + box start, score = the fitted value there. Outputs scores [boxes,
//     keypoints] and keypoints [boxes, keypoints, 2] (x, y). Quant8 heatmaps with quant16 boxes (scale
//     0.125) are computed on dequantised values.
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
//   RANDOM_MULTINOMIAL: 0 logits [batches, classes] (float32/16), 1 samples (INT32 > 0), 2 seeds
//     TENSOR_INT32 [2]. Output TENSOR_INT32 [batches, samples]: class indices drawn from softmax(logits)
//     per row by inverse CDF on a splitmix64 stream seeded from both seeds (and the row), so the same
//     seeds give the same samples on every run and device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// Values as reals: floats as they are, quantised types dequantised with their scale and zero point.
std::vector<float> real_values(const OperandInfo& in) {
  if (models::is_float_type(in.type)) return read_floats(in);
  std::vector<int32_t> q = read_ints(in);
  std::vector<float> v(q.size());
  for (size_t i = 0; i < q.size(); ++i) v[i] = static_cast<float>(q[i] - in.zero_point) * in.scale;
  return v;
}

// Writes reals into a float tensor, or quantises them (round half away from zero, clamped to the type).
void write_reals(models::Tensor& out, const std::vector<float>& v) {
  if (models::is_float_type(out.type)) {
    write_floats(out, v);
    return;
  }
  int64_t lo = 0, hi = 0;
  models::integer_range(out.type, &lo, &hi);
  std::vector<int32_t> q(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double r = std::round(static_cast<double>(v[i]) / out.scale) + out.zero_point;
    q[i] = static_cast<int32_t>(std::clamp<double>(r, static_cast<double>(lo), static_cast<double>(hi)));
  }
  write_ints(out, q);
}

Result<void> expect_box_quant(const OperandInfo& in, size_t index, const char* role) {
  if (in.type == OperandType::TENSOR_QUANT16_ASYMM && (in.scale != 0.125f || in.zero_point != 0))
    return input_error(index, role, "quant16 asymm boxes need scale 0.125 and zero point 0");
  return {};
}

// Shape [rows, cols] when known (0 = any).
Result<void> expect_2d(const OperandInfo& in, size_t index, const char* role, uint32_t rows, uint32_t cols) {
  if (auto r = expect_rank(in, index, role, 2); !r) return r;
  if (!in.rank_known()) return {};
  const auto& d = in.dimensions;
  if ((rows && d[0] && d[0] != rows) || (cols && d[1] && d[1] != cols))
    return input_error(index, role,
                       "expected [" + std::to_string(rows) + ", " + std::to_string(cols) +
                           "] (0 = any), got " + models::dims_to_string(d));
  return {};
}

uint32_t dim(const OperandInfo& in, size_t i) { return in.dimensions.size() > i ? in.dimensions[i] : 0; }

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

// BOX_WITH_NMS_LIMIT's selection: boxes kept per batch group, as indices roi · classes + class.
struct NmsResult {
  std::vector<uint32_t> selected;  // in output order
  std::vector<uint32_t> group_start, group_size_out;
  std::vector<float> scores;  // updated scores (soft NMS), indexed like the input
};

float iou(const float* a, const float* b) {
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const float w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f);
  const float h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  const float inter = w * h;
  return inter / (area_a + area_b - inter);
}

Result<NmsResult> box_nms(std::span<const OperandInfo> in) {
  NmsResult r;
  r.scores = real_values(in[0]);
  const std::vector<float> rois = real_values(in[1]);
  const std::vector<int32_t> batch = read_ints(in[2]);
  const float score_threshold = float_param(in[3]).value_or(0.0f);
  const int32_t max_detections = int_param(in[4]).value_or(-1);
  const int32_t kernel_kind = int_param(in[5]).value_or(0);
  const float iou_threshold = float_param(in[6]).value_or(0.0f), sigma = float_param(in[7]).value_or(1.0f);
  const float nms_threshold = float_param(in[8]).value_or(0.0f);
  const uint32_t num_rois = in[0].dimensions[0], classes = in[0].dimensions[1];
  auto decay = [&](float v) {
    if (kernel_kind == 0) return v < iou_threshold ? 1.0f : 0.0f;
    if (kernel_kind == 1) return v < iou_threshold ? 1.0f : 1.0f - v;
    return std::exp(-v * v / sigma);
  };
  for (uint32_t i = 0; i < num_rois; ++i)
    if (rois.size() >= (uint64_t{i} + 1) * classes * 4)
      for (uint32_t c = 0; c < classes; ++c) {
        const float* b = &rois[(uint64_t{i} * classes + c) * 4];
        if (b[2] < b[0] || b[3] < b[1])
          return input_error(
              1, "rois",
              "box " + std::to_string(i) + " class " + std::to_string(c) + " has x2 < x1 or y2 < y1");
      }
  for (uint32_t start = 0; start < num_rois;) {
    uint32_t end = start + 1;
    while (end < num_rois && batch[end] == batch[start]) ++end;
    std::vector<uint32_t> keep;
    // Class 0 is the background: never selected.
    for (uint32_t c = 1; c < classes; ++c) {
      const size_t first = keep.size();
      for (uint32_t i = start; i < end; ++i)
        if (r.scores[i * classes + c] > score_threshold) keep.push_back(i * classes + c);
      size_t lo = first, hi = keep.size();
      uint32_t found = 0;
      while (lo < hi && (max_detections < 0 || found < static_cast<uint32_t>(max_detections))) {
        // The best remaining box (the first of equal scores) moves to the front of what is left.
        size_t best = lo;
        for (size_t k = lo + 1; k < hi; ++k)
          if (r.scores[keep[k]] > r.scores[keep[best]]) best = k;
        std::swap(keep[best], keep[lo]);
        const float* top = &rois[uint64_t{keep[lo]} * 4];
        for (size_t k = lo + 1; k < hi; ++k) {
          r.scores[keep[k]] *= decay(iou(&rois[uint64_t{keep[k]} * 4], top));
          if (r.scores[keep[k]] < nms_threshold) std::swap(keep[k--], keep[--hi]);
        }
        ++lo;
        ++found;
      }
      keep.resize(lo);
    }
    std::sort(keep.begin(), keep.end(), [&](uint32_t a, uint32_t b) { return r.scores[a] > r.scores[b]; });
    if (max_detections >= 0 && keep.size() > static_cast<size_t>(max_detections)) keep.resize(max_detections);
    std::sort(keep.begin(), keep.end(), [&](uint32_t a, uint32_t b) {
      return a % classes == b % classes ? r.scores[a] > r.scores[b] : a % classes < b % classes;
    });
    r.selected.insert(r.selected.end(), keep.begin(), keep.end());
    r.group_start.push_back(start);
    r.group_size_out.push_back(static_cast<uint32_t>(keep.size()));
    start = end;
  }
  return r;
}

class BoxWithNmsLimitKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::BOX_WITH_NMS_LIMIT; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 9) return make_error("expected 9 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "scores", kFloatAndQuant8); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    const OperandType box = is_quant8(t) ? OperandType::TENSOR_QUANT16_ASYMM : t;
    const OperandType scalar = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "rois", {box}); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[1], 1, "rois"); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "batch indices", {OperandType::TENSOR_INT32}); !r)
      return make_error(r.error());
    static constexpr const char* kScalars[] = {"score threshold", "",      "",
                                               "IoU threshold",   "sigma", "NMS score threshold"};
    for (size_t i : {size_t{3}, size_t{6}, size_t{7}, size_t{8}})
      if (auto r = expect_type(in, i, kScalars[i - 3], {scalar}); !r) return make_error(r.error());
    if (auto r = expect_type(in, 4, "max detections", {OperandType::INT32}); !r) return make_error(r.error());
    auto kernel = int_param_in_range(in, 5, "NMS kernel", 0, 2);
    if (!kernel) return make_error(kernel.error());
    if (const auto sigma = float_param(in[7]); sigma && *kernel && **kernel == 2 && !(*sigma > 0.0f))
      return input_error(7, "sigma", "must be > 0 for the Gaussian kernel");
    if (auto r = expect_2d(in[0], 0, "scores", 0, 0); !r) return make_error(r.error());
    const uint32_t n = dim(in[0], 0), classes = dim(in[0], 1);
    if (auto r = expect_2d(in[1], 1, "rois", n, classes ? classes * 4 : 0); !r) return make_error(r.error());
    if (auto r = expect_rank(in[2], 2, "batch indices", 1); !r) return make_error(r.error());
    if (n && dim(in[2], 0) && dim(in[2], 0) != n)
      return input_error(2, "batch indices", "must have one entry per roi (" + std::to_string(n) + ")");
    if (auto r = expect_output_count(out, 4); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 1, box); !r) return make_error(r.error());
    for (size_t i : {size_t{2}, size_t{3}})
      if (auto r = expect_output_type(out, i, OperandType::TENSOR_INT32); !r) return make_error(r.error());
    if (box == OperandType::TENSOR_QUANT16_ASYMM && (out[1].scale != 0.125f || out[1].zero_point != 0))
      return make_error("output 1: quant16 asymm boxes need scale 0.125 and zero point 0");
    // The number of boxes kept depends on the values: known only once every input is.
    uint32_t kept = 0;
    bool known = n != 0 && classes != 0;
    for (const OperandInfo& i : in) known = known && i.has_value();
    if (known) {
      auto r = box_nms(in);
      if (!r) return make_error(r.error());
      if (r->selected.empty())
        return make_error("no box passed the thresholds (zero-sized outputs are not supported)");
      kept = static_cast<uint32_t>(r->selected.size());
    }
    return std::vector<std::vector<uint32_t>>{{kept}, {kept, 4}, {kept}, {kept}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto r = box_nms(in);
    if (!r) return make_error(r.error());
    const uint32_t classes = in[0].dimensions[1];
    const std::vector<int32_t> batch = read_ints(in[2]);
    const uint32_t es = models::element_size(in[1].type);
    std::vector<float> scores;
    std::vector<int32_t> cls, batches;
    uint64_t k = 0;
    for (size_t g = 0; g < r->group_start.size(); ++g)
      for (uint32_t j = 0; j < r->group_size_out[g]; ++j, ++k) {
        const uint32_t index = r->selected[k];
        scores.push_back(r->scores[index]);
        // The box as given (raw bytes, so quant16 boxes are copied exactly).
        std::copy_n(in[1].value->begin() + uint64_t{index} * 4 * es, 4 * es,
                    out[1]->data.begin() + k * 4 * es);
        cls.push_back(static_cast<int32_t>(index % classes));
        batches.push_back(batch[r->group_start[g]]);
      }
    write_reals(*out[0], scores);
    write_ints(*out[2], cls);
    write_ints(*out[3], batches);
    return {};
  }
};

// HEATMAP_MAX_KEYPOINT's refinement: the quadratic (second-order Taylor) fit of the 3 × 3 grid around the
// maximum gives the sub-pixel offset `delta` (clipped to 1.5 pixels) and the score there. A Hessian with
// |det| < atol + rtol·A00·A11 leaves the maximum as it is.
void refine_keypoint(const float g[3][3], float tol, float* delta, float* score) {
  const float b0 = -(g[1][2] - g[1][0]) / 2.0f, b1 = -(g[2][1] - g[0][1]) / 2.0f;
  const float a00 = g[1][0] - 2.0f * g[1][1] + g[1][2], a11 = g[0][1] - 2.0f * g[1][1] + g[2][1];
  const float a01 = (g[2][2] - g[2][0] - g[0][2] + g[0][0]) / 4.0f;
  const float diag = a00 * a11, det = diag - a01 * a01;
  if (std::fabs(det) < tol + tol * diag) return;
  delta[0] = (a11 * b0 - a01 * b1) / det;
  delta[1] = (a00 * b1 - a01 * b0) / det;
  if (std::fabs(delta[0]) > 1.5f || std::fabs(delta[1]) > 1.5f) {
    const float k = 1.5f / std::max(std::fabs(delta[0]), std::fabs(delta[1]));
    delta[0] *= k;
    delta[1] *= k;
  }
  *score =
      g[1][1] - b0 * delta[0] - b1 * delta[1] +
      ((a00 * delta[0] + a01 * delta[1]) * delta[0] + (a01 * delta[0] + a11 * delta[1]) * delta[1]) / 2.0f;
}

class HeatmapMaxKeypointKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::HEATMAP_MAX_KEYPOINT; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "heatmaps", kFloatAndQuant8); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    const OperandType box = is_quant8(t) ? OperandType::TENSOR_QUANT16_ASYMM : t;
    if (auto r = expect_type(in, 1, "boxes", {box}); !r) return make_error(r.error());
    if (auto r = expect_box_quant(in[1], 1, "boxes"); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "NCHW layout", {OperandType::BOOL}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "heatmaps", 4); !r) return make_error(r.error());
    const uint32_t n = dim(in[0], 0);
    if (auto r = expect_2d(in[1], 1, "boxes", n, 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 1, box); !r) return make_error(r.error());
    if (box == OperandType::TENSOR_QUANT16_ASYMM && (out[1].scale != 0.125f || out[1].zero_point != 0))
      return make_error("output 1: quant16 asymm keypoints need scale 0.125 and zero point 0");
    const std::optional<bool> nchw = bool_param(in[2]);
    if (!nchw) return std::vector<std::vector<uint32_t>>{{n, 0}, {n, 0, 2}};
    const Nhwc x = input_extents(in[0], nchw);
    if (x.h && x.w && x.h != x.w)
      return input_error(0, "heatmaps",
                         "must be square, got " + std::to_string(x.h) + " × " + std::to_string(x.w));
    if (x.h == 1) return input_error(0, "heatmaps", "must be at least 2 × 2");
    return std::vector<std::vector<uint32_t>>{{n, x.c}, {n, x.c, 2}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool nchw = bool_param(in[2]).value_or(false);
    const Nhwc x = input_extents(in[0], nchw);
    const std::vector<float> heat = real_values(in[0]), boxes = real_values(in[1]);
    const Strides is = layout_strides(nchw, x.h, x.w, x.c);
    const int32_t size = static_cast<int32_t>(x.h);
    // fp16 heatmaps are refined with a looser singularity tolerance, as NNAPI's reference does.
    const float tol = in[0].type == OperandType::TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
    std::vector<float> scores(uint64_t{x.n} * x.c), points(uint64_t{x.n} * x.c * 2);
    for (uint32_t i = 0; i < x.n; ++i) {
      const float* b = &boxes[i * 4];
      if (b[2] < b[0] || b[3] < b[1])
        return input_error(1, "boxes", "box " + std::to_string(i) + " has x2 < x1 or y2 < y1");
      for (uint32_t k = 0; k < x.c; ++k) {
        auto at = [&](int32_t yy, int32_t xx) { return heat[i * is.b + yy * is.y + xx * is.x + k * is.c]; };
        float best = -std::numeric_limits<float>::max();
        int32_t by = 0, bx = 0;
        for (int32_t yy = 0; yy < size; ++yy)
          for (int32_t xx = 0; xx < size; ++xx)
            if (best < at(yy, xx)) {
              best = at(yy, xx);
              by = yy;
              bx = xx;
            }
        // The 3 × 3 grid around the maximum, mirrored at the edges (−1 → 1, size → size − 2).
        float g[3][3];
        for (int32_t dy = -1; dy <= 1; ++dy)
          for (int32_t dx = -1; dx <= 1; ++dx) {
            int32_t yy = by + dy, xx = bx + dx;
            yy = yy < 0 ? 1 : (yy >= size ? size - 2 : yy);
            xx = xx < 0 ? 1 : (xx >= size ? size - 2 : xx);
            g[dy + 1][dx + 1] = at(yy, xx);
          }
        float delta[2] = {0.0f, 0.0f}, score = best;
        refine_keypoint(g, tol, delta, &score);
        const float fs = static_cast<float>(size);
        scores[i * x.c + k] = score;
        points[(i * x.c + k) * 2] = (static_cast<float>(bx) + delta[0] + 0.5f) / fs * (b[2] - b[0]) + b[0];
        points[(i * x.c + k) * 2 + 1] =
            (static_cast<float>(by) + delta[1] + 0.5f) / fs * (b[3] - b[1]) + b[1];
      }
    }
    write_reals(*out[0], scores);
    write_reals(*out[1], points);
    return {};
  }
};

// Hard NMS over `select` (indices into `scores`; box_of(index) gives its 4 floats): repeatedly the best
// remaining (first of equals) is kept and every box with IoU ≥ threshold against it dropped, at most
// `max_keep` (< 0: all).
template <class BoxOf>
void hard_nms(const std::vector<float>& scores, BoxOf box_of, float threshold, int32_t max_keep,
              std::vector<uint32_t>* select) {
  std::vector<uint32_t>& v = *select;
  size_t lo = 0, hi = v.size();
  while (lo < hi && (max_keep < 0 || lo < static_cast<size_t>(max_keep))) {
    size_t best = lo;
    for (size_t k = lo + 1; k < hi; ++k)
      if (scores[v[k]] > scores[v[best]]) best = k;
    std::swap(v[best], v[lo]);
    for (size_t k = lo + 1; k < hi; ++k)
      if (iou(box_of(v[k]), box_of(v[lo])) >= threshold) std::swap(v[k--], v[--hi]);
    ++lo;
  }
  v.resize(lo);
}

struct Proposals {
  std::vector<float> scores, boxes;
  std::vector<int32_t> batches;
};

Result<Proposals> generate_proposals(std::span<const OperandInfo> in) {
  const bool nchw = bool_param(in[10]).value_or(false);
  const auto& d = in[0].dimensions;
  const uint32_t batches = d[0], h = nchw ? d[2] : d[1], w = nchw ? d[3] : d[2], anchors = nchw ? d[1] : d[3];
  const std::vector<float> scores = real_values(in[0]), deltas = real_values(in[1]),
                           anchor = real_values(in[2]), info = real_values(in[3]);
  const float h_stride = float_param(in[4]).value_or(1.0f), w_stride = float_param(in[5]).value_or(1.0f);
  const int32_t pre = int_param(in[6]).value_or(-1);
  int32_t post = int_param(in[7]).value_or(-1);
  if (post <= 0) post = -1;  // not positive: no limit
  const float threshold = float_param(in[8]).value_or(1.0f), min_size = float_param(in[9]).value_or(0.0f);
  const uint64_t per_batch = uint64_t{h} * w * anchors;
  Proposals p;
  for (uint32_t b = 0; b < batches; ++b) {
    const float height = info[b * 2], width = info[b * 2 + 1];
    std::vector<float> s(per_batch), boxes(per_batch * 4);
    // Index (y, x, a) in NHWC order whatever the layout.
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t a = 0; a < anchors; ++a) {
          const uint64_t i = (uint64_t{y} * w + x) * anchors + a;
          auto delta = [&](uint32_t k) {
            return nchw ? deltas[((uint64_t{b} * anchors * 4 + a * 4 + k) * h + y) * w + x]
                        : deltas[(uint64_t{b} * per_batch + i) * 4 + k];
          };
          s[i] = nchw ? scores[((uint64_t{b} * anchors + a) * h + y) * w + x] : scores[b * per_batch + i];
          const float* an = &anchor[a * 4];
          const float x1 = an[0] + x * w_stride, y1 = an[1] + y * h_stride, x2 = an[2] + x * w_stride,
                      y2 = an[3] + y * h_stride;
          const float bw = x2 - x1, bh = y2 - y1, cx = (x1 + x2) / 2, cy = (y1 + y2) / 2;
          const float nx = cx + delta(0) * bw, ny = cy + delta(1) * bh;
          const float nw = std::exp(delta(2)) * bw, nh = std::exp(delta(3)) * bh;
          float* o = &boxes[i * 4];
          o[0] = std::min(std::max(nx - nw / 2, 0.0f), width);
          o[1] = std::min(std::max(ny - nh / 2, 0.0f), height);
          o[2] = std::min(std::max(nx + nw / 2, 0.0f), width);
          o[3] = std::min(std::max(ny + nh / 2, 0.0f), height);
        }
    std::vector<uint32_t> select(per_batch);
    for (uint32_t i = 0; i < per_batch; ++i) select[i] = i;
    if (pre > 0 && static_cast<uint64_t>(pre) < per_batch) {
      std::stable_sort(select.begin(), select.end(), [&](uint32_t l, uint32_t r) { return s[l] > s[r]; });
      select.resize(pre);
    }
    // Boxes no larger than min_size on a side, or centred outside the image, are dropped.
    std::vector<uint32_t> kept;
    for (uint32_t i : select) {
      const float* o = &boxes[uint64_t{i} * 4];
      const float bw = o[2] - o[0], bh = o[3] - o[1];
      if (bw > min_size && bh > min_size && o[0] + bw / 2 < width && o[1] + bh / 2 < height)
        kept.push_back(i);
    }
    hard_nms(
        s, [&](uint32_t i) { return &boxes[uint64_t{i} * 4]; }, threshold, post, &kept);
    for (uint32_t i : kept) {
      p.scores.push_back(s[i]);
      p.boxes.insert(p.boxes.end(), boxes.begin() + uint64_t{i} * 4, boxes.begin() + uint64_t{i} * 4 + 4);
      p.batches.push_back(static_cast<int32_t>(b));
    }
  }
  return p;
}

class GenerateProposalsKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::GENERATE_PROPOSALS; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 11) return make_error("expected 11 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "scores", kFloatAndQuant8); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    const bool quant = is_quant8(t);
    const OperandType scalar = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "bbox deltas", {t}); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "anchors", {quant ? OperandType::TENSOR_QUANT16_SYMM : t}); !r)
      return make_error(r.error());
    if (quant && in[2].scale != 0.125f)
      return input_error(2, "anchors", "quant16 symm anchors need scale 0.125");
    if (auto r = expect_type(in, 3, "image info", {quant ? OperandType::TENSOR_QUANT16_ASYMM : t}); !r)
      return make_error(r.error());
    if (auto r = expect_box_quant(in[3], 3, "image info"); !r) return make_error(r.error());
    static constexpr const char* kNames[] = {"height stride",  "width stride",  "pre-NMS top N",
                                             "post-NMS top N", "IoU threshold", "min size"};
    for (size_t i = 4; i <= 9; ++i) {
      const bool integer = i == 6 || i == 7;
      if (auto r = expect_type(in, i, kNames[i - 4], {integer ? OperandType::INT32 : scalar}); !r)
        return make_error(r.error());
      if (!integer && i != 9)
        if (const auto v = float_param(in[i]); v && !(*v > 0.0f))
          return input_error(i, kNames[i - 4], "must be > 0");
    }
    if (auto r = expect_type(in, 10, "NCHW layout", {OperandType::BOOL}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "scores", 4); !r) return make_error(r.error());
    if (auto r = expect_rank(in[1], 1, "bbox deltas", 4); !r) return make_error(r.error());
    if (auto r = expect_2d(in[2], 2, "anchors", 0, 4); !r) return make_error(r.error());
    if (auto r = expect_2d(in[3], 3, "image info", dim(in[0], 0), 2); !r) return make_error(r.error());
    if (const auto nchw = bool_param(in[10]); nchw && in[0].rank_known() && in[1].rank_known()) {
      const uint32_t a = dim(in[0], *nchw ? 1 : 3);
      const uint32_t a4 = dim(in[1], *nchw ? 1 : 3);
      if (a && a4 && a4 != 4 * a)
        return input_error(1, "bbox deltas", "must have 4 values per anchor (" + std::to_string(4 * a) + ")");
      for (size_t d : {size_t{0}, size_t{*nchw ? 2u : 1u}, size_t{*nchw ? 3u : 2u}})
        if (dim(in[0], d) && dim(in[1], d) && dim(in[0], d) != dim(in[1], d))
          return input_error(
              1, "bbox deltas",
              "must cover the scores' batches and grid, got " + models::dims_to_string(in[1].dimensions));
      if (a && dim(in[2], 0) && dim(in[2], 0) != a)
        return input_error(2, "anchors", "must have one box per anchor (" + std::to_string(a) + ")");
    }
    if (auto r = expect_output_count(out, 3); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 1, quant ? OperandType::TENSOR_QUANT16_ASYMM : t); !r)
      return make_error(r.error());
    if (auto r = expect_output_type(out, 2, OperandType::TENSOR_INT32); !r) return make_error(r.error());
    if (quant && (out[1].scale != 0.125f || out[1].zero_point != 0))
      return make_error("output 1: quant16 asymm boxes need scale 0.125 and zero point 0");
    uint32_t kept = 0;
    bool known = true;
    for (const OperandInfo& i : in) known = known && i.has_value();
    if (known) {
      auto p = generate_proposals(in);
      if (!p) return make_error(p.error());
      if (p->scores.empty()) return make_error("no proposal survived (zero-sized outputs are not supported)");
      kept = static_cast<uint32_t>(p->scores.size());
    }
    return std::vector<std::vector<uint32_t>>{{kept}, {kept, 4}, {kept}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto p = generate_proposals(in);
    if (!p) return make_error(p.error());
    write_reals(*out[0], p->scores);
    write_reals(*out[1], p->boxes);
    write_ints(*out[2], p->batches);
    return {};
  }
};

class DetectionPostprocessingKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::DETECTION_POSTPROCESSING; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 14) return make_error("expected 14 inputs, got " + std::to_string(in.size()));
    if (auto r =
            expect_type(in, 0, "class scores", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16});
        !r)
      return make_error(r.error());
    const OperandType t = in[0].type;
    const OperandType scalar = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "box encodings", {t}); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "anchors", {t}); !r) return make_error(r.error());
    static constexpr const char* kScale[] = {"y scale", "x scale", "h scale", "w scale"};
    for (size_t i = 3; i <= 6; ++i) {
      if (auto r = expect_type(in, i, kScale[i - 3], {scalar}); !r) return make_error(r.error());
      if (const auto v = float_param(in[i]); v && !(*v > 0.0f))
        return input_error(i, kScale[i - 3], "must be > 0");
    }
    if (auto r = expect_type(in, 7, "use regular NMS", {OperandType::BOOL}); !r) return make_error(r.error());
    auto max_det = int_param_in_range(in, 8, "max detections", 1, std::numeric_limits<int32_t>::max());
    if (!max_det) return make_error(max_det.error());
    if (auto r = expect_type(in, 9, "max classes per detection", {OperandType::INT32}); !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 10, "max detections per class", {OperandType::INT32}); !r)
      return make_error(r.error());
    for (size_t i : {size_t{11}, size_t{12}}) {
      const char* role = i == 11 ? "score threshold" : "IoU threshold";
      if (auto r = expect_type(in, i, role, {scalar}); !r) return make_error(r.error());
      if (const auto v = float_param(in[i]); v && !(*v >= 0.0f)) return input_error(i, role, "must be >= 0");
    }
    if (auto r = expect_type(in, 13, "background in label", {OperandType::BOOL}); !r)
      return make_error(r.error());
    const auto regular = bool_param(in[7]);
    const auto per_det = int_param(in[9]), per_class = int_param(in[10]);
    if (regular && *regular && per_class && *per_class <= 0)
      return input_error(10, "max detections per class", "must be > 0 with regular NMS");
    if (regular && !*regular && per_det && *per_det <= 0)
      return input_error(9, "max classes per detection", "must be > 0 with fast NMS");
    for (size_t i : {size_t{0}, size_t{1}})
      if (auto r = expect_rank(in[i], i, i ? "box encodings" : "class scores", 3); !r)
        return make_error(r.error());
    const uint32_t batches = dim(in[0], 0), anchors = dim(in[0], 1), classes = dim(in[0], 2);
    if (in[0].rank_known() && classes == 1)
      return input_error(0, "class scores", "needs more than one class");
    if (in[1].rank_known()) {
      if ((batches && dim(in[1], 0) && dim(in[1], 0) != batches) ||
          (anchors && dim(in[1], 1) && dim(in[1], 1) != anchors))
        return input_error(1, "box encodings", "must match the scores' batches and anchors");
      if (dim(in[1], 2) && dim(in[1], 2) < 4)
        return input_error(1, "box encodings", "needs at least 4 values per box");
    }
    if (auto r = expect_2d(in[2], 2, "anchors", anchors, 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 4); !r) return make_error(r.error());
    for (size_t i = 0; i < 4; ++i)
      if (auto r = expect_output_type(out, i, i < 2 ? t : OperandType::TENSOR_INT32); !r)
        return make_error(r.error());
    uint32_t n = 0;
    if (regular && *max_det) n = static_cast<uint32_t>(**max_det);
    if (regular && !*regular) n = per_det && n ? n * static_cast<uint32_t>(*per_det) : 0;
    return std::vector<std::vector<uint32_t>>{{batches, n}, {batches, n, 4}, {batches, n}, {batches}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<float> scores = read_floats(in[0]), enc = read_floats(in[1]),
                             anchor = read_floats(in[2]);
    const uint32_t batches = in[0].dimensions[0], anchors = in[0].dimensions[1],
                   classes = in[0].dimensions[2];
    const uint32_t enc_len = in[1].dimensions[2];
    const float sy = *float_param(in[3]), sx = *float_param(in[4]), sh = *float_param(in[5]),
                sw = *float_param(in[6]);
    const bool regular = *bool_param(in[7]), bg_in_label = *bool_param(in[13]);
    const int32_t max_det = *int_param(in[8]), per_det = *int_param(in[9]), per_class = *int_param(in[10]);
    const float score_threshold = *float_param(in[11]), iou_threshold = *float_param(in[12]);
    const uint32_t n = out[0]->dimensions[1];
    std::vector<float> out_scores(uint64_t{batches} * n, 0.0f), out_boxes(uint64_t{batches} * n * 4, 0.0f);
    std::vector<int32_t> out_classes(uint64_t{batches} * n, 0), counts(batches, 0);
    const int32_t label_shift = bg_in_label ? 0 : 1;
    for (uint32_t b = 0; b < batches; ++b) {
      // Decode: anchors and encodings are (y, x, h, w) centre-size; boxes come out (y1, x1, y2, x2).
      std::vector<float> boxes(uint64_t{anchors} * 4);
      for (uint32_t a = 0; a < anchors; ++a) {
        const float* an = &anchor[a * 4];
        const float* e = &enc[(uint64_t{b} * anchors + a) * enc_len];
        const float yc = an[0] + an[2] * e[0] / sy, xc = an[1] + an[3] * e[1] / sx;
        const float hh = an[2] * std::exp(e[2] / sh) * 0.5f, hw = an[3] * std::exp(e[3] / sw) * 0.5f;
        float* o = &boxes[a * 4];
        o[0] = yc - hh;
        o[1] = xc - hw;
        o[2] = yc + hh;
        o[3] = xc + hw;
      }
      const std::vector<float> s(scores.begin() + uint64_t{b} * anchors * classes,
                                 scores.begin() + uint64_t{b + 1} * anchors * classes);
      // IoU is symmetric in the axes, so (y, x) boxes go through the same function.
      uint32_t written = 0;
      auto emit = [&](float score, uint32_t a, int32_t cls) {
        const uint64_t o = uint64_t{b} * n + written++;
        out_scores[o] = score;
        std::copy_n(&boxes[a * 4], 4, &out_boxes[o * 4]);
        out_classes[o] = cls;
      };
      if (regular) {
        std::vector<uint32_t> select;
        for (uint32_t c = 1; c < classes; ++c) {
          std::vector<uint32_t> cls;
          for (uint32_t a = 0; a < anchors; ++a)
            if (s[a * classes + c] > score_threshold) cls.push_back(a * classes + c);
          hard_nms(
              s, [&](uint32_t i) { return &boxes[uint64_t{i / classes} * 4]; }, iou_threshold, per_class,
              &cls);
          select.insert(select.end(), cls.begin(), cls.end());
        }
        std::stable_sort(select.begin(), select.end(), [&](uint32_t l, uint32_t r) { return s[l] > s[r]; });
        if (select.size() > static_cast<size_t>(max_det)) select.resize(max_det);
        for (uint32_t i : select) emit(s[i], i / classes, static_cast<int32_t>(i % classes) - label_shift);
      } else {
        const uint32_t out_classes_per = std::min<uint32_t>(classes - 1, static_cast<uint32_t>(per_det));
        std::vector<float> best(anchors);
        std::vector<uint32_t> select;
        for (uint32_t a = 0; a < anchors; ++a) {
          best[a] = *std::max_element(s.begin() + a * classes + 1, s.begin() + (a + 1) * classes);
          if (best[a] > score_threshold) select.push_back(a);
        }
        hard_nms(
            best, [&](uint32_t a) { return &boxes[a * 4]; }, iou_threshold, max_det, &select);
        for (uint32_t a : select) {
          std::vector<uint32_t> order(classes - 1);
          for (uint32_t c = 1; c < classes; ++c) order[c - 1] = c;
          std::stable_sort(order.begin(), order.end(),
                           [&](uint32_t l, uint32_t r) { return s[a * classes + l] > s[a * classes + r]; });
          for (uint32_t k = 0; k < out_classes_per; ++k)
            emit(s[a * classes + order[k]], a, static_cast<int32_t>(order[k]) - label_shift);
        }
      }
      counts[b] = static_cast<int32_t>(written);
    }
    write_floats(*out[0], out_scores);
    write_floats(*out[1], out_boxes);
    write_ints(*out[2], out_classes);
    write_ints(*out[3], counts);
    return {};
  }
};

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class RandomMultinomialKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RANDOM_MULTINOMIAL; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "logits", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}); !r)
      return make_error(r.error());
    if (auto r = expect_2d(in[0], 0, "logits", 0, 0); !r) return make_error(r.error());
    auto samples = int_param_in_range(in, 1, "samples", 1, std::numeric_limits<int32_t>::max());
    if (!samples) return make_error(samples.error());
    if (auto r = expect_type(in, 2, "seeds", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[2], 2, "seeds", 1); !r) return make_error(r.error());
    if (in[2].rank_known() && dim(in[2], 0) && dim(in[2], 0) != 2)
      return input_error(2, "seeds", "expected 2 values, got " + std::to_string(dim(in[2], 0)));
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_INT32); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{
        {dim(in[0], 0), *samples ? static_cast<uint32_t>(**samples) : 0}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<float> logits = read_floats(in[0]);
    const std::vector<int32_t> seeds = read_ints(in[2]);
    const uint64_t batches = in[0].dimensions[0], classes = in[0].dimensions[1];
    const auto samples = static_cast<uint64_t>(int_param(in[1]).value_or(1));
    std::vector<int32_t> result(batches * samples);
    for (uint64_t b = 0; b < batches; ++b) {
      const float* row = &logits[b * classes];
      float mx = -std::numeric_limits<float>::infinity();
      for (uint64_t c = 0; c < classes; ++c) mx = std::max(mx, row[c]);
      if (!(mx > -std::numeric_limits<float>::infinity()))
        return input_error(0, "logits", "row " + std::to_string(b) + " gives every class probability 0");
      std::vector<double> cdf(classes);
      double total = 0.0;
      for (uint64_t c = 0; c < classes; ++c) cdf[c] = total += std::exp(static_cast<double>(row[c] - mx));
      uint64_t state = (static_cast<uint64_t>(static_cast<uint32_t>(seeds[0])) << 32) ^
                       static_cast<uint32_t>(seeds[1]) ^ (b * 0x632be59bd9b4e019ull);
      for (uint64_t s = 0; s < samples; ++s) {
        const double u = static_cast<double>(splitmix64(&state) >> 11) * 0x1.0p-53 * total;  // [0, total)
        const uint64_t c = static_cast<uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        result[b * samples + s] = static_cast<int32_t>(std::min(c, classes - 1));
      }
    }
    write_ints(*out[0], result);
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
const OperationKernel& box_with_nms_limit_kernel() {
  static const BoxWithNmsLimitKernel kernel;
  return kernel;
}
const OperationKernel& detection_postprocessing_kernel() {
  static const DetectionPostprocessingKernel kernel;
  return kernel;
}
const OperationKernel& generate_proposals_kernel() {
  static const GenerateProposalsKernel kernel;
  return kernel;
}
const OperationKernel& heatmap_max_keypoint_kernel() {
  static const HeatmapMaxKeypointKernel kernel;
  return kernel;
}
const OperationKernel& roi_pooling_kernel() {
  static const RoiPoolingKernel kernel;
  return kernel;
}
const OperationKernel& random_multinomial_kernel() {
  static const RandomMultinomialKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
