// NMS-based detection operations of NNAPI 1.2 (CPU only: data-dependent box work the NPU does not run).
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
#include <algorithm>
#include <cmath>
#include <limits>

#include "detection_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

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

}  // namespace

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

}  // namespace npu::hal::ops
