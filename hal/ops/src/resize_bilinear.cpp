// RESIZE_BILINEAR kernel. NNAPI signature: 0 input [n, h, w, c] (FLOAT32; FLOAT16 and QUANT8_ASYMM since
// 1.2; QUANT8_ASYMM_SIGNED since 1.3), 1 output width and 2 output height (INT32 >= 1; or, since 1.2,
// FLOAT32 scales giving floor(extent * scale)), [3 NCHW BOOL], [4 align_corners, 5 half_pixel_centers
// BOOL, NNAPI 1.3]; output of the input's type and quantisation.
// Arithmetic as NNAPI's reference (TFLite reference_ops::ResizeBilinear): scale = in / out (align
// corners: (in - 1) / (out - 1)); source y = out_y * scale (half pixel: (out_y + 0.5) * scale - 0.5);
// y0 = max(floor, 0), y1 = min(ceil, in - 1); the four taps are blended in float with weights from
// (y - y0) and (x - x0). Quantised results are the float blend of the raw values, truncated toward
// zero as the reference's static_cast does.
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

struct ResizeParams {
  bool nchw = false, align_corners = false, half_pixel = false;
};

class ResizeBilinearKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RESIZE_BILINEAR; }

  Result<std::optional<ResizeParams>> params(std::span<const OperandInfo> in) const {
    ResizeParams p;
    bool known = true;
    static constexpr const char* kFlags[] = {"NCHW layout", "align corners", "half pixel centers"};
    bool* flags[] = {&p.nchw, &p.align_corners, &p.half_pixel};
    for (size_t i = 3; i < in.size(); ++i) {
      if (auto r = expect_type(in, i, kFlags[i - 3], {OperandType::BOOL}); !r) return make_error(r.error());
      const auto v = bool_param(in[i]);
      known = known && v.has_value();
      *flags[i - 3] = v.value_or(false);
    }
    if (p.align_corners && p.half_pixel)
      return input_error(4, "align corners", "cannot be combined with half pixel centers");
    if (!known) return std::optional<ResizeParams>();
    return std::optional<ResizeParams>(p);
  }

  // Output extent from input 1 (width) or 2 (height): 0 while unknown.
  Result<uint32_t> extent(std::span<const OperandInfo> in, size_t index, uint32_t input_extent) const {
    const char* role = index == 1 ? "output width" : "output height";
    if (in[index].type == OperandType::INT32) {
      auto v = int_param_in_range(in, index, role, 1, 0x7fffffff);
      if (!v) return make_error(v.error());
      return v->has_value() ? static_cast<uint32_t>(**v) : 0u;
    }
    const auto s = float_param(in[index]);
    if (!s) return 0u;
    if (!(*s > 0.0f) || !std::isfinite(*s)) return input_error(index, role, "scale must be > 0");
    if (input_extent == 0) return 0u;
    const double e = std::floor(static_cast<double>(input_extent) * *s);
    if (e < 1.0 || e > 0x7fffffff) return input_error(index, role, "scaled extent out of range");
    return static_cast<uint32_t>(e);
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() < 3 || in.size() > 6 || in.size() == 5)
      return make_error("expected 3, 4 or 6 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    const OperandType st =
        in[0].type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (auto r = expect_type(in, 1, "output width", {OperandType::INT32, st}); !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 2, "output height", {in[1].type}); !r) return make_error(r.error());
    auto p = params(in);
    if (!p) return make_error(p.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!*p) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(4, 0)};
    const Nhwc x = input_extents(in[0], (*p)->nchw);
    auto w = extent(in, 1, x.w);
    if (!w) return make_error(w.error());
    auto h = extent(in, 2, x.h);
    if (!h) return make_error(h.error());
    return std::vector<std::vector<uint32_t>>{(*p)->nchw ? std::vector<uint32_t>{x.n, x.c, *h, *w}
                                                         : std::vector<uint32_t>{x.n, *h, *w, x.c}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto p = params(in);
    if (!p || !*p || in[0].dimensions.size() != 4) return make_error("internal: unprepared RESIZE_BILINEAR");
    models::Tensor& o = *out[0];
    const Nhwc x = input_extents(in[0], (*p)->nchw);
    OperandInfo oi;
    oi.dimensions = o.dimensions;
    const Nhwc y = input_extents(oi, (*p)->nchw);
    const Strides is = layout_strides((*p)->nchw, x.h, x.w, x.c);
    const Strides os = layout_strides((*p)->nchw, y.h, y.w, y.c);
    auto scale_of = [&](uint32_t in_size, uint32_t out_size) {
      if ((*p)->align_corners && out_size > 1)
        return static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
      return static_cast<float>(in_size) / static_cast<float>(out_size);
    };
    const float hs = scale_of(x.h, y.h);
    const float ws = scale_of(x.w, y.w);
    const bool half = (*p)->half_pixel;
    auto source = [&](uint32_t v, float scale, uint32_t size, float* s, int64_t* lo, int64_t* hi) {
      *s = half ? (static_cast<float>(v) + 0.5f) * scale - 0.5f : static_cast<float>(v) * scale;
      *lo = std::max<int64_t>(static_cast<int64_t>(std::floor(*s)), 0);
      *hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(*s)), int64_t{size} - 1);
      *lo = std::min<int64_t>(*lo, int64_t{size} - 1);
      *hi = std::max<int64_t>(*hi, 0);
    };
    const bool quant = is_quant8(in[0].type);
    const std::vector<float> fin = quant ? std::vector<float>{} : read_floats(in[0]);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    std::vector<float> qin;  // raw values offset to [0, 255], so signed results equal unsigned - 128
    if (quant) {
      for (int32_t v : read_ints(in[0])) qin.push_back(static_cast<float>(v - qmin));
    }
    const std::vector<float>& src = quant ? qin : fin;
    std::vector<float> res(uint64_t{y.n} * os.b);
    for (uint32_t b = 0; b < y.n; ++b)
      for (uint32_t oy = 0; oy < y.h; ++oy) {
        float sy = 0.0f;
        int64_t y0 = 0, y1 = 0;
        source(oy, hs, x.h, &sy, &y0, &y1);
        for (uint32_t ox = 0; ox < y.w; ++ox) {
          float sx = 0.0f;
          int64_t x0 = 0, x1 = 0;
          source(ox, ws, x.w, &sx, &x0, &x1);
          const float dy = sy - static_cast<float>(y0);
          const float dx = sx - static_cast<float>(x0);
          for (uint32_t c = 0; c < y.c; ++c) {
            auto at = [&](int64_t yy, int64_t xx) {
              return src[b * is.b + static_cast<uint64_t>(yy) * is.y + static_cast<uint64_t>(xx) * is.x +
                         c * is.c];
            };
            res[b * os.b + oy * os.y + ox * os.x + c * os.c] =
                at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) + at(y0, x1) * (1 - dy) * dx +
                at(y1, x1) * dy * dx;
          }
        }
      }
    if (!quant) {
      write_floats(o, res);
      return {};
    }
    std::vector<int32_t> q(res.size());
    for (size_t i = 0; i < res.size(); ++i) q[i] = std::clamp(static_cast<int32_t>(res[i]), 0, 255) + qmin;
    write_ints(o, q);
    return {};
  }
};

}  // namespace

const OperationKernel& resize_bilinear_kernel() {
  static const ResizeBilinearKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
