// AXIS_ALIGNED_BBOX_TRANSFORM, ROI_ALIGN and RANDOM_MULTINOMIAL on the CPU reference: hand-worked boxes
// and bins (arithmetic in the comments), the quantised forms (quant16 boxes, quant8 asymm and signed
// features; signed = unsigned − 128), validation and data errors naming the input, and the seeded
// sampler's determinism and distribution.
#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto Q16 = OperandType::TENSOR_QUANT16_ASYMM;

// Roi 0 [0, 0, 10, 10] (centre 5, 5, size 10 × 10) in a 20 × 20 image:
//   deltas (0, 0, 0, 0) → [0, 0, 10, 10]; (0.1, −0.2, 0, 0) → centre (6, 3) → [1, −2 → 0, 11, 8];
//   (0, 0, ln 2, −ln 2) → size 20 × 5 → [−5 → 0, 2.5, 15, 7.5].
// Roi 1 [4, 4, 8, 6] (centre 6, 5, size 4 × 2) in batch 1, image height 5, width 100:
//   (0, 0, 0, 0) → [4, 4, 8, 6 → 5]; (0.5, 0, 0, 0) → centre x 8 → [6, 4, 10, 5]; zeros again.
TEST(AxisAlignedBboxTransform, FloatHandWorked) {
  for (OperandType t : {F32, F16}) {
    GraphBuilder g;
    const uint32_t rois = g.input(t, {2, 4});
    const uint32_t deltas = g.input(t, {2, 12});
    const uint32_t out = g.output(t, {});
    g.op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
         {rois, deltas, g.ints(I32, {2}, {0, 1}), g.floats({2, 2}, {20, 20, 5, 100}, t)}, {out});
    const float ln2 = std::log(2.0f);
    auto r =
        run_ok(g.build(), {{rois, float_tensor({2, 4}, {0, 0, 10, 10, 4, 4, 8, 6}, t)},
                           {deltas, float_tensor({2, 12}, {0, 0, 0, 0, 0.1f, -0.2f, 0, 0, 0, 0, ln2, -ln2,  //
                                                           0, 0, 0, 0, 0.5f, 0,     0, 0, 0, 0, 0,   0},
                                                 t)}});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r.at(out).dimensions, (std::vector<uint32_t>{2, 12}));
    const std::vector<float> want{0, 0, 10, 10, 1, 0, 11, 8, 0, 2.5f, 15, 7.5f,
                                  4, 4, 8,  5,  6, 4, 10, 5, 4, 4,    8,  5};
    const std::vector<float> got = floats_of(r.at(out));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], t == F16 ? 0.01 : 1e-5) << i;  // fp16 deltas: ln 2 rounds to 0.6929
  }
}

// Quant16 boxes (scale 0.125: q = 8·v) with quant8 deltas of scale 0.1 (zero point 128, or 0 signed):
// the first two classes above, outputs 8·v.
TEST(AxisAlignedBboxTransform, Quant16BoxesQuant8Deltas) {
  for (OperandType dt : {Q8, S8}) {
    const int32_t zp = dt == Q8 ? 128 : 0;
    GraphBuilder g;
    const uint32_t out = g.output(Q16, {2, 8}, 0.125f, 0);
    g.op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
         {g.ints(Q16, {2, 4}, {0, 0, 80, 80, 32, 32, 64, 48}, 0.125f, 0),
          g.ints(dt, {2, 8}, {zp, zp, zp, zp, zp + 1, zp - 2, zp, zp, zp, zp, zp, zp, zp + 5, zp, zp, zp},
                 0.1f, zp),
          g.ints(I32, {2}, {0, 1}), g.ints(Q16, {2, 2}, {160, 160, 40, 800}, 0.125f, 0)},
         {out});
    Model m = g.build();
    m.main.input_indexes.clear();  // everything constant: no graph inputs
    auto r = run_ok(m, {});
    expect_ints({0, 0, 80, 80, 8, 0, 88, 64, 32, 32, 64, 40, 48, 32, 80, 40}, r.at(out));
  }
}

TEST(AxisAlignedBboxTransform, ErrorsNameTheInput) {
  GraphBuilder g;
  const uint32_t out = g.output(F32, {});
  g.op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
       {g.floats({1, 4}, {0, 0, 1, 1}), g.floats({1, 6}, {0, 0, 0, 0, 0, 0}), g.ints(I32, {1}, {0}),
        g.floats({1, 2}, {5, 5})},
       {out});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (AXIS_ALIGNED_BBOX_TRANSFORM): input 1 (bbox deltas): has 6 columns, not a "
            "multiple of 4");
  GraphBuilder h;
  const uint32_t o2 = h.output(F32, {});
  h.op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
       {h.floats({1, 4}, {0, 0, 1, 1}), h.floats({1, 4}, {0, 0, 0, 0}), h.ints(I32, {1}, {3}),
        h.floats({1, 2}, {5, 5})},
       {o2});
  Model m = h.build();
  m.main.input_indexes.clear();
  auto r = run_reference(m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error(),
      "operations[0] (AXIS_ALIGNED_BBOX_TRANSFORM): input 2 (batch indices): roi 0 names batch 3, the image "
      "info has 1");
}

// Feature map 4 × 4, one channel, v(y, x) = 4y + x; roi [0, 0, 4, 4], output 2 × 2 (bins 2 × 2).
// Sampling 1: each bin's centre (1, 1), (1, 3), (3, 1), (3, 3) — x or y = 3 is the last column/row:
// 5, 7, 13, 15. Sampling 2 (sub-bin centres at 0.5 and 1.5 from the bin start; 3.5 is past the last
// column and reads column 3): bin (0,0) = mean(2.5, 3.5, 6.5, 7.5) = 5; bin (0,1) = mean(4.5, 5, 8.5, 9)
// = 6.75; bin (1,0) = mean(10.5, 11.5, 12.5, 13.5) = 12; bin (1,1) = mean(12.5, 13, 14.5, 15) = 13.75.
// Stride 2 with roi [0, 0, 8, 8] is the same region.
Model roi_align(OperandType t, int32_t ratio, float stride, float roi_scale, bool nchw = false) {
  GraphBuilder g;
  const bool q = t == Q8 || t == S8;
  const int32_t zp = t == S8 ? -128 : 0;
  const uint32_t x = g.input(t, nchw ? std::vector<uint32_t>{1, 1, 4, 4} : std::vector<uint32_t>{1, 4, 4, 1},
                             q ? 1.0f : 0.0f, zp);
  const uint32_t out = g.output(t, {}, q ? 0.25f : 0.0f, zp);
  const float e = 4 * roi_scale;
  const uint32_t rois =
      q ? g.ints(Q16, {1, 4}, {0, 0, static_cast<int32_t>(e * 8), static_cast<int32_t>(e * 8)}, 0.125f, 0)
        : g.floats({1, 4}, {0, 0, e, e}, t);
  const OperandType st = t == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  g.op(OperationType::ROI_ALIGN,
       {x, rois, g.ints(I32, {1}, {0}), g.i32(2), g.i32(2), g.floats({}, {stride}, st),
        g.floats({}, {stride}, st), g.i32(ratio), g.i32(ratio), g.boolean(nchw)},
       {out});
  return g.build();
}

std::vector<float> ramp() {
  std::vector<float> v;
  for (int i = 0; i < 16; ++i) v.push_back(static_cast<float>(i));
  return v;
}

TEST(RoiAlign, FloatHandWorked) {
  for (OperandType t : {F32, F16}) {
    const Tensor x = float_tensor({1, 4, 4, 1}, ramp(), t);
    expect_floats_near({5, 7, 13, 15}, run_single(roi_align(t, 1, 1.0f, 1.0f), x));
    expect_floats_near({5, 6.75f, 12, 13.75f}, run_single(roi_align(t, 2, 1.0f, 1.0f), x));
    expect_floats_near({5, 6.75f, 12, 13.75f}, run_single(roi_align(t, 2, 2.0f, 2.0f), x));
    // Adaptive sampling: ⌈bin size 2⌉ = 2 samples per side, as ratio 2.
    expect_floats_near({5, 6.75f, 12, 13.75f}, run_single(roi_align(t, 0, 1.0f, 1.0f), x));
  }
  const Tensor x = float_tensor({1, 1, 4, 4}, ramp());
  const Tensor o = run_single(roi_align(F32, 2, 1.0f, 1.0f, true), x);
  EXPECT_EQ(o.dimensions, (std::vector<uint32_t>{1, 1, 2, 2}));
  expect_floats_near({5, 6.75f, 12, 13.75f}, o);
}

// Quant8: input scale 1 (q = v), output scale 0.25 (q = 4v). Bilinear weights become multiples of 1/255:
// 0.25 → 64/255, 0.5 → 128/255, 1 → 255/255. Bin (0,0): 64·(0+1+4+5) + 64·(1+2+5+6) + 64·(4+5+8+9) +
// 64·(5+6+9+10) = 5120, ×1/(255·0.25·4) → 20.08 → 20. Bin (0,1): 64·18 + 128·(3+7) + 64·34 + 128·(7+11)
// = 6912 → 27.11 → 27. Bin (1,0): 64·42 + 64·46 + 128·(12+13) + 128·(13+14) = 12288 → 48.19 → 48.
// Bin (1,1): 64·50 + 128·(11+15) + 128·(14+15) + 255·15 = 14065 → 55.16 → 55. Signed: zero points −128.
TEST(RoiAlign, Quant8AsymmAndSigned) {
  std::vector<int32_t> q;
  for (float v : ramp()) q.push_back(static_cast<int32_t>(v));
  expect_ints({20, 27, 48, 55},
              run_single(roi_align(Q8, 2, 1.0f, 1.0f), int_tensor(Q8, {1, 4, 4, 1}, q, 1.0f, 0)));
  std::vector<int32_t> s;
  for (int32_t v : q) s.push_back(v - 128);
  expect_ints({20 - 128, 27 - 128, 48 - 128, 55 - 128},
              run_single(roi_align(S8, 2, 1.0f, 1.0f), int_tensor(S8, {1, 4, 4, 1}, s, 1.0f, -128)));
}

TEST(RoiAlign, ErrorsNameTheInput) {
  Model m = roi_align(F32, 2, 1.0f, 1.0f);
  m.main.operands[m.main.operations[0].inputs[7]].data = {0xff, 0xff, 0xff, 0xff};  // −1
  EXPECT_EQ(validation_error(m),
            "operations[0] (ROI_ALIGN): input 7 (height sampling ratio): expected a value >= 0, got -1");
  // A roi past the 4 × 4 map (x2 = 8 at stride 1).
  auto r = run_reference(roi_align(F32, 2, 1.0f, 2.0f), {{0, float_tensor({1, 4, 4, 1}, ramp())}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "operations[0] (ROI_ALIGN): input 1 (rois): roi 0 lies outside the feature map or has x2 < x1 or "
            "y2 < y1");
}

// ROI_POOLING on the same 4 × 4 ramp, output 2 × 2. Roi [0, 0, 3, 3]: pixels 0..3 (4 wide), bins of 2:
// maxima v(1,1) = 5, v(1,3) = 7, v(3,1) = 13, v(3,3) = 15. Roi [0, 0, 2, 2]: 3 wide, bins of 1.5 →
// [0, 2) and [1, 3): 5, 6, 9, 10. Quant8 (zero point 100, q = v + 100) keeps the input's quantisation.
Model roi_pool(OperandType t, float x2, int32_t zp) {
  GraphBuilder g;
  const bool q = t == Q8 || t == S8;
  const uint32_t x = g.input(t, {1, 4, 4, 1}, q ? 0.5f : 0.0f, zp);
  const uint32_t out = g.output(t, {}, q ? 0.5f : 0.0f, zp);
  const uint32_t rois =
      q ? g.ints(Q16, {1, 4}, {0, 0, static_cast<int32_t>(x2 * 8), static_cast<int32_t>(x2 * 8)}, 0.125f, 0)
        : g.floats({1, 4}, {0, 0, x2, x2}, t);
  const OperandType st = t == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  g.op(OperationType::ROI_POOLING,
       {x, rois, g.ints(I32, {1}, {0}), g.i32(2), g.i32(2), g.floats({}, {1.0f}, st),
        g.floats({}, {1.0f}, st), g.boolean(false)},
       {out});
  return g.build();
}

TEST(RoiPooling, HandWorkedAllTypes) {
  for (OperandType t : {F32, F16}) {
    const Tensor x = float_tensor({1, 4, 4, 1}, ramp(), t);
    expect_floats_near({5, 7, 13, 15}, run_single(roi_pool(t, 3, 0), x));
    expect_floats_near({5, 6, 9, 10}, run_single(roi_pool(t, 2, 0), x));
  }
  for (OperandType t : {Q8, S8}) {
    const int32_t zp = t == Q8 ? 100 : -28;
    std::vector<int32_t> q;
    for (float v : ramp()) q.push_back(static_cast<int32_t>(v) + zp);
    expect_ints({5 + zp, 7 + zp, 13 + zp, 15 + zp},
                run_single(roi_pool(t, 3, zp), int_tensor(t, {1, 4, 4, 1}, q, 0.5f, zp)));
    expect_ints({5 + zp, 6 + zp, 9 + zp, 10 + zp},
                run_single(roi_pool(t, 2, zp), int_tensor(t, {1, 4, 4, 1}, q, 0.5f, zp)));
  }
  Model m = roi_pool(Q8, 3, 100);
  m.main.operands[m.main.output_indexes[0]].zero_point = 99;
  EXPECT_EQ(validation_error(m),
            "operations[0] (ROI_POOLING): output 0: quantisation must equal the input's (scale 0.500000, "
            "zeroPoint 100)");
}

// BOX_WITH_NMS_LIMIT, two classes (0 = background). Batch 0: class-1 boxes A [0,0,10,10] 0.9,
// B [1,1,11,11] 0.8, C [20,20,30,30] 0.7; batch 1: D [0,0,5,5] 0.6. IoU(A, B) = 81 / (100 + 100 − 81) =
// 0.680672; C and D overlap nothing in their batch. Hard NMS (IoU threshold 0.5, NMS score threshold
// 0.1): B's score × 0 → dropped: A 0.9, C 0.7 | D 0.6. Linear: B × (1 − 0.680672) = 0.255462, kept
// and sorted last. Gaussian (sigma 0.5): B × exp(−0.680672² / 0.5) = 0.316709. Max detections 1: A | D.
struct Nms {
  Model model;
  uint32_t scores, boxes, classes, batches;
};

Nms nms_model(OperandType t, int32_t kernel, int32_t max_detections) {
  GraphBuilder g;
  const bool q = t == Q8 || t == S8;
  const int32_t zp = t == S8 ? -128 : 0;
  Nms m;
  const std::vector<float> score_values{0.1f, 0.9f, 0.2f, 0.8f, 0.3f, 0.7f, 0.4f, 0.6f};
  std::vector<float> box_values;
  for (const std::vector<float>& b : std::vector<std::vector<float>>{{0, 0, 1, 1},
                                                                     {0, 0, 10, 10},
                                                                     {0, 0, 1, 1},
                                                                     {1, 1, 11, 11},
                                                                     {0, 0, 1, 1},
                                                                     {20, 20, 30, 30},
                                                                     {0, 0, 1, 1},
                                                                     {0, 0, 5, 5}})
    box_values.insert(box_values.end(), b.begin(), b.end());
  uint32_t scores = 0, boxes = 0;
  if (q) {
    std::vector<int32_t> sq, bq;
    for (float v : score_values) sq.push_back(static_cast<int32_t>(std::lround(v * 100)) + zp);
    for (float v : box_values) bq.push_back(static_cast<int32_t>(v * 8));
    scores = g.ints(t, {4, 2}, sq, 0.01f, zp);
    boxes = g.ints(Q16, {4, 8}, bq, 0.125f, 0);
  } else {
    scores = g.floats({4, 2}, score_values, t);
    boxes = g.floats({4, 8}, box_values, t);
  }
  const OperandType st = t == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  m.scores = g.output(t, {}, q ? 0.01f : 0.0f, zp);
  m.boxes = g.output(q ? Q16 : t, {}, q ? 0.125f : 0.0f, 0);
  m.classes = g.output(I32, {});
  m.batches = g.output(I32, {});
  g.op(OperationType::BOX_WITH_NMS_LIMIT,
       {scores, boxes, g.ints(I32, {4}, {0, 0, 0, 1}), g.floats({}, {0.05f}, st), g.i32(max_detections),
        g.i32(kernel), g.floats({}, {0.5f}, st), g.floats({}, {0.5f}, st), g.floats({}, {0.1f}, st)},
       {m.scores, m.boxes, m.classes, m.batches});
  m.model = g.build();
  m.model.main.input_indexes.clear();
  return m;
}

TEST(BoxWithNmsLimit, HardLinearGaussianAndLimit) {
  struct Case {
    int32_t kernel, max;
    std::vector<float> scores, boxes;
    std::vector<int32_t> batches;
  };
  const std::vector<Case> cases{
      {0, -1, {0.9f, 0.7f, 0.6f}, {0, 0, 10, 10, 20, 20, 30, 30, 0, 0, 5, 5}, {0, 0, 1}},
      {1,
       -1,
       {0.9f, 0.7f, 0.255462f, 0.6f},
       {0, 0, 10, 10, 20, 20, 30, 30, 1, 1, 11, 11, 0, 0, 5, 5},
       {0, 0, 0, 1}},
      {2,
       -1,
       {0.9f, 0.7f, 0.316709f, 0.6f},
       {0, 0, 10, 10, 20, 20, 30, 30, 1, 1, 11, 11, 0, 0, 5, 5},
       {0, 0, 0, 1}},
      {0, 1, {0.9f, 0.6f}, {0, 0, 10, 10, 0, 0, 5, 5}, {0, 1}}};
  for (const Case& c : cases) {
    const Nms m = nms_model(F32, c.kernel, c.max);
    auto r = run_ok(m.model, {});
    ASSERT_EQ(r.size(), 4u);
    expect_floats_near(c.scores, r.at(m.scores));
    expect_floats_near(c.boxes, r.at(m.boxes));
    EXPECT_EQ(ints_of(r.at(m.classes)), std::vector<int32_t>(c.batches.size(), 1));
    EXPECT_EQ(ints_of(r.at(m.batches)), c.batches);
  }
}

// Quant8 scores (scale 0.01) and quant16 boxes (q = 8·v), hard NMS: A 90, C 70 | D 60; signed scores
// (zero point −128) give the same boxes and scores − 128.
TEST(BoxWithNmsLimit, QuantisedAsymmAndSigned) {
  for (OperandType t : {Q8, S8}) {
    const int32_t zp = t == S8 ? -128 : 0;
    const Nms m = nms_model(t, 0, -1);
    auto r = run_ok(m.model, {});
    ASSERT_EQ(r.size(), 4u);
    expect_ints({90 + zp, 70 + zp, 60 + zp}, r.at(m.scores));
    expect_ints({0, 0, 80, 80, 160, 160, 240, 240, 0, 0, 40, 40}, r.at(m.boxes));
    EXPECT_EQ(ints_of(r.at(m.batches)), (std::vector<int32_t>{0, 0, 1}));
  }
  Nms m = nms_model(F32, 3, -1);
  EXPECT_EQ(validation_error(m.model),
            "operations[0] (BOX_WITH_NMS_LIMIT): input 5 (NMS kernel): expected a value in [0, 2], got 3");
}

// HEATMAP_MAX_KEYPOINT, one 3 × 3 heatmap pair in box [10, 20, 16, 26] (6 × 6).
// Keypoint 0: f(x, y) = 10 − (x − 1.2)² − (y − 0.9)² at the integer points; maximum at (1, 1) = 9.95;
// gradient b = (−(9.35 − 8.55)/2, −(8.75 − 9.15)/2) = (−0.4, 0.2), Hessian diag(−2, −2) → offset
// (0.2, −0.1), score 9.95 + 0.08 + 0.02 − 0.05 = 10; keypoint ((1.2 + 0.5)/3·6 + 10, (0.9 + 0.5)/3·6 + 20)
// = (13.4, 22.8). Keypoint 1: f = 5 − x − y, maximum at the corner (0, 0); the mirrored grid is symmetric
// ([3 4 3; 4 5 4; 3 4 3]): no offset, score 5, keypoint (0.5/3·6 + 10, 0.5/3·6 + 20) = (11, 21).
TEST(HeatmapMaxKeypoint, QuadraticRefinementAndMirroredEdge) {
  std::vector<float> heat;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) {
      heat.push_back(10.0f - (x - 1.2f) * (x - 1.2f) - (y - 0.9f) * (y - 0.9f));
      heat.push_back(5.0f - static_cast<float>(x) - static_cast<float>(y));
    }
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 3, 3, 2});
  const uint32_t scores = g.output(F32, {});
  const uint32_t points = g.output(F32, {});
  g.op(OperationType::HEATMAP_MAX_KEYPOINT, {x, g.floats({1, 4}, {10, 20, 16, 26}), g.boolean(false)},
       {scores, points});
  auto r = run_ok(g.build(), {{x, float_tensor({1, 3, 3, 2}, heat)}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at(points).dimensions, (std::vector<uint32_t>{1, 2, 2}));
  const auto sc = floats_of(r.at(scores)), pt = floats_of(r.at(points));
  ASSERT_EQ(sc.size(), 2u);
  ASSERT_EQ(pt.size(), 4u);
  EXPECT_NEAR(sc[0], 10.0f, 1e-4);
  EXPECT_NEAR(sc[1], 5.0f, 1e-5);
  EXPECT_NEAR(pt[0], 13.4f, 1e-4);
  EXPECT_NEAR(pt[1], 22.8f, 1e-4);
  EXPECT_NEAR(pt[2], 11.0f, 1e-5);
  EXPECT_NEAR(pt[3], 21.0f, 1e-5);
}

// GENERATE_PROPOSALS, one batch, a 1 × 2 grid (stride 8), anchors a0 [0,0,4,4] and a1 [1,0,5,4], zero
// deltas, image 10 high, 12 wide. Boxes: cell 0 a0 [0,0,4,4] 0.9, a1 [1,0,5,4] 0.7; cell 1 a0 [8,0,12,4]
// 0.8, a1 [9,0,13,4] clipped to [9,0,12,4] 0.95. IoU(a0, a1) in cell 0 = 12/20 = 0.6, in cell 1 =
// 12/16 = 0.75, both ≥ 0.5. Min size 1: 0.95 [9,0,12,4] suppresses 0.8, then 0.9 [0,0,4,4] suppresses 0.7.
// Min size 3.5: the clipped box (3 wide) is dropped first, so 0.9 [0,0,4,4] and 0.8 [8,0,12,4] remain.
TEST(GenerateProposals, TransformFilterAndNms) {
  for (float min_size : {1.0f, 3.5f}) {
    GraphBuilder g;
    const uint32_t scores = g.output(F32, {});
    const uint32_t boxes = g.output(F32, {});
    const uint32_t batches = g.output(I32, {});
    g.op(OperationType::GENERATE_PROPOSALS,
         {g.floats({1, 1, 2, 2}, {0.9f, 0.7f, 0.8f, 0.95f}),
          g.floats({1, 1, 2, 8}, std::vector<float>(16, 0.0f)), g.floats({2, 4}, {0, 0, 4, 4, 1, 0, 5, 4}),
          g.floats({1, 2}, {10, 12}), g.floats({}, {8.0f}, OperandType::FLOAT32),
          g.floats({}, {8.0f}, OperandType::FLOAT32), g.i32(-1), g.i32(-1),
          g.floats({}, {0.5f}, OperandType::FLOAT32), g.floats({}, {min_size}, OperandType::FLOAT32),
          g.boolean(false)},
         {scores, boxes, batches});
    Model m = g.build();
    m.main.input_indexes.clear();
    auto r = run_ok(m, {});
    ASSERT_EQ(r.size(), 3u);
    if (min_size < 2) {
      expect_floats_near({0.95f, 0.9f}, r.at(scores));
      expect_floats_near({9, 0, 12, 4, 0, 0, 4, 4}, r.at(boxes));
    } else {
      expect_floats_near({0.9f, 0.8f}, r.at(scores));
      expect_floats_near({0, 0, 4, 4, 8, 0, 12, 4}, r.at(boxes));
    }
    EXPECT_EQ(ints_of(r.at(batches)), (std::vector<int32_t>{0, 0}));
  }
}

Model multinomial(const std::vector<uint32_t>& dims, int32_t samples, int32_t seed0, int32_t seed1) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, dims);
  const uint32_t out = g.output(I32, {});
  g.op(OperationType::RANDOM_MULTINOMIAL, {x, g.i32(samples), g.ints(I32, {2}, {seed0, seed1})}, {out});
  return g.build();
}

// A class of logit −inf has probability 0: rows with one finite logit always draw that class.
TEST(RandomMultinomial, CertainClassesAndDeterminism) {
  const float ninf = -std::numeric_limits<float>::infinity();
  const Tensor x = float_tensor({2, 3}, {0, ninf, ninf, ninf, 5, ninf});
  const Tensor o = run_single(multinomial({2, 3}, 4, 1, 2), x);
  EXPECT_EQ(o.dimensions, (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(ints_of(o), (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  const Tensor y = float_tensor({1, 4}, {0, 0, 0, 0});
  const auto a = ints_of(run_single(multinomial({1, 4}, 64, 7, 9), y));
  EXPECT_EQ(a, ints_of(run_single(multinomial({1, 4}, 64, 7, 9), y)));  // same seeds, same draws
  EXPECT_NE(a, ints_of(run_single(multinomial({1, 4}, 64, 8, 9), y)));  // 4^-64 chance of equality
}

// logits [0, ln 3]: p = 0.25, 0.75. Over 20000 draws the share of class 1 is within 5 standard
// deviations (sqrt(0.75·0.25/20000) = 0.0031) of 0.75.
TEST(RandomMultinomial, FollowsTheSoftmax) {
  const auto draws =
      ints_of(run_single(multinomial({1, 2}, 20000, 3, 4), float_tensor({1, 2}, {0, std::log(3.0f)})));
  ASSERT_EQ(draws.size(), 20000u);
  double ones = 0;
  for (int32_t d : draws) ones += d;
  EXPECT_NEAR(ones / 20000, 0.75, 5 * 0.0031);
}

}  // namespace
}  // namespace npu::hal::ops::test

namespace npu::hal::ops::test {
namespace {

TEST(DetectionValidation, NamesTheParameter) {
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 2});
    g.op(OperationType::RANDOM_MULTINOMIAL, {x, g.i32(3), g.ints(I32, {3}, {1, 2, 3})}, {g.output(I32, {})});
    EXPECT_EQ(validation_error(g.build()),
              "operations[0] (RANDOM_MULTINOMIAL): input 2 (seeds): expected 2 values, got 3");
  }
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 3, 4, 1});
    g.op(OperationType::HEATMAP_MAX_KEYPOINT, {x, g.floats({1, 4}, {0, 0, 1, 1}), g.boolean(false)},
         {g.output(F32, {}), g.output(F32, {})});
    EXPECT_EQ(validation_error(g.build()),
              "operations[0] (HEATMAP_MAX_KEYPOINT): input 0 (heatmaps): must be square, got 3 × 4");
  }
  {
    GraphBuilder g;
    const uint32_t s = g.input(F32, {1, 1, 2, 1});
    const uint32_t d = g.input(F32, {1, 1, 3, 4});
    g.op(OperationType::GENERATE_PROPOSALS,
         {s, d, g.floats({1, 4}, {0, 0, 4, 4}), g.floats({1, 2}, {10, 12}),
          g.floats({}, {8.0f}, OperandType::FLOAT32), g.floats({}, {8.0f}, OperandType::FLOAT32), g.i32(-1),
          g.i32(-1), g.floats({}, {0.5f}, OperandType::FLOAT32), g.floats({}, {1.0f}, OperandType::FLOAT32),
          g.boolean(false)},
         {g.output(F32, {}), g.output(F32, {}), g.output(I32, {})});
    EXPECT_EQ(
        validation_error(g.build()),
        "operations[0] (GENERATE_PROPOSALS): input 1 (bbox deltas): must cover the scores' batches and grid, "
        "got [1,1,3,4]");
  }
}

}  // namespace
}  // namespace npu::hal::ops::test

namespace npu::hal::ops::test {
namespace {

// DETECTION_POSTPROCESSING, one batch, anchors (cy, cx, h, w) a0 (5,5,10,10), a1 (6,6,10,10),
// a2 (25,25,10,10); encodings 0 except a2's (10, 0, 5·ln 2, 0) with scales (10, 10, 5, 5): a2's centre
// y 25 + 10·10/10 = 35, height 10·e^(ln 2) = 20 → boxes (y1,x1,y2,x2) a0 [0,0,10,10], a1 [1,1,11,11],
// a2 [25,20,45,30]; IoU(a0, a1) = 81/119 = 0.68. Scores (background, c1, c2): a0 (0, 0.9, 0.1),
// a1 (0, 0.8, 0.85), a2 (0, 0.2, 0.7); thresholds score 0.5, IoU 0.5; labels are class − 1.
// Regular NMS (2 per class): c1 keeps a0 (a1 suppressed), c2 keeps a1 and a2 → 0.9 a0 label 0, 0.85 a1
// label 1, 0.7 a2 label 1. Fast NMS (1 class per detection): anchor maxima 0.9, 0.85, 0.7; a0 suppresses
// a1 → 0.9 a0 label 0, 0.7 a2 label 1, the third slot empty (count 2). Fast with 2 classes per detection:
// a0 gives (0.9, 0), (0.1, 1); a2 gives (0.7, 1), (0.2, 0): count 4 of 6 slots.
struct Dpp {
  Model model;
  uint32_t scores, boxes, classes, count;
};

Dpp dpp(bool regular, int32_t max_det, int32_t per_det) {
  GraphBuilder g;
  Dpp m;
  m.scores = g.output(F32, {});
  m.boxes = g.output(F32, {});
  m.classes = g.output(I32, {});
  m.count = g.output(I32, {});
  auto f = [&](float v) { return g.floats({}, {v}, OperandType::FLOAT32); };
  g.op(OperationType::DETECTION_POSTPROCESSING,
       {g.floats({1, 3, 3}, {0, 0.9f, 0.1f, 0, 0.8f, 0.85f, 0, 0.2f, 0.7f}),
        g.floats({1, 3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 5 * std::log(2.0f), 0}),
        g.floats({3, 4}, {5, 5, 10, 10, 6, 6, 10, 10, 25, 25, 10, 10}), f(10), f(10), f(5), f(5),
        g.boolean(regular), g.i32(max_det), g.i32(per_det), g.i32(2), f(0.5f), f(0.5f), g.boolean(false)},
       {m.scores, m.boxes, m.classes, m.count});
  m.model = g.build();
  m.model.main.input_indexes.clear();
  return m;
}

TEST(DetectionPostprocessing, RegularAndFastNms) {
  {
    const Dpp m = dpp(true, 3, 1);
    auto r = run_ok(m.model, {});
    ASSERT_EQ(r.size(), 4u);
    expect_floats_near({0.9f, 0.85f, 0.7f}, r.at(m.scores));
    expect_floats_near({0, 0, 10, 10, 1, 1, 11, 11, 25, 20, 45, 30}, r.at(m.boxes));
    EXPECT_EQ(ints_of(r.at(m.classes)), (std::vector<int32_t>{0, 1, 1}));
    EXPECT_EQ(ints_of(r.at(m.count)), (std::vector<int32_t>{3}));
  }
  {
    const Dpp m = dpp(false, 3, 1);
    auto r = run_ok(m.model, {});
    expect_floats_near({0.9f, 0.7f, 0}, r.at(m.scores));
    expect_floats_near({0, 0, 10, 10, 25, 20, 45, 30, 0, 0, 0, 0}, r.at(m.boxes));
    EXPECT_EQ(ints_of(r.at(m.classes)), (std::vector<int32_t>{0, 1, 0}));
    EXPECT_EQ(ints_of(r.at(m.count)), (std::vector<int32_t>{2}));
  }
  {
    const Dpp m = dpp(false, 3, 2);
    auto r = run_ok(m.model, {});
    EXPECT_EQ(r.at(m.scores).dimensions, (std::vector<uint32_t>{1, 6}));
    expect_floats_near({0.9f, 0.1f, 0.7f, 0.2f, 0, 0}, r.at(m.scores));
    EXPECT_EQ(ints_of(r.at(m.classes)), (std::vector<int32_t>{0, 1, 1, 0, 0, 0}));
    EXPECT_EQ(ints_of(r.at(m.count)), (std::vector<int32_t>{4}));
  }
  EXPECT_EQ(
      validation_error(dpp(true, 0, 1).model),
      "operations[0] (DETECTION_POSTPROCESSING): input 8 (max detections): expected a value >= 1, got 0");
}

}  // namespace
}  // namespace npu::hal::ops::test
