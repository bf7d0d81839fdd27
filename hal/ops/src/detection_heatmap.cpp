// HEATMAP_MAX_KEYPOINT of NNAPI 1.2 (CPU only, like the other detection operations).
//   HEATMAP_MAX_KEYPOINT: 0 heatmaps [boxes, size, size, keypoints] (or NCHW, input 2), 1 boxes [boxes, 4].
//     Per box and keypoint: the first maximum (row-major), refined to sub-pixel by the quadratic fit of
//     its 3 × 3 neighbourhood (mirrored at the edges; offset clipped to 1.5); keypoint = ((index + offset
//     + 0.5) / size) · box extent + box start, score = the fitted value there. Outputs scores [boxes,
//     keypoints] and keypoints [boxes, keypoints, 2] (x, y). Quant8 heatmaps with quant16 boxes (scale
//     0.125) are computed on dequantised values.
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

}  // namespace

const OperationKernel& heatmap_max_keypoint_kernel() {
  static const HeatmapMaxKeypointKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
