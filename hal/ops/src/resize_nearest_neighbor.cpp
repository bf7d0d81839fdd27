// RESIZE_NEAREST_NEIGHBOR kernel (NNAPI 1.2; align_corners and half_pixel_centers since 1.3). NNAPI
// signature: 0 input [n, h, w, c] (TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM;
// TENSOR_QUANT8_ASYMM_SIGNED since 1.3), 1 output width and 2 output height (INT32 >= 1, or FLOAT32 —
// FLOAT16 for a TENSOR_FLOAT16 input — scales giving floor(extent * scale)), 3 layout (BOOL, true for
// NCHW), optional 4 align_corners and 5 half_pixel_centers (BOOL, not both true); output of the input's
// type and quantisation. Each output pixel copies one input pixel; per axis, with
// scale = (align_corners and out > 1) ? (in - 1) / (out - 1) : in / out and offset = 0.5 with half pixel
// centres (else 0), the source is round((o + offset) * scale) with align_corners and
// floor((o + offset) * scale) otherwise, clamped to [0, in - 1] (float32 arithmetic).
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

struct NearestParams {
  bool nchw = false, align_corners = false, half_pixel = false;
};

class ResizeNearestNeighborKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RESIZE_NEAREST_NEIGHBOR; }

  static Result<std::optional<NearestParams>> params(std::span<const OperandInfo> in) {
    NearestParams p;
    bool known = true;
    static constexpr const char* kFlags[] = {"layout", "align_corners", "half_pixel_centers"};
    bool* flags[] = {&p.nchw, &p.align_corners, &p.half_pixel};
    for (size_t i = 3; i < in.size(); ++i) {
      if (auto r = expect_type(in, i, kFlags[i - 3], {OperandType::BOOL}); !r) return make_error(r.error());
      const auto v = bool_param(in[i]);
      known = known && v.has_value();
      *flags[i - 3] = v.value_or(false);
    }
    if (p.align_corners && p.half_pixel)
      return input_error(4, "align_corners", "cannot be true together with half_pixel_centers");
    if (!known) return std::optional<NearestParams>();
    return std::optional<NearestParams>(p);
  }

  static Result<uint32_t> extent(std::span<const OperandInfo> in, size_t index, uint32_t input_extent) {
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
    if (in.size() < 4 || in.size() > 6)
      return make_error("expected 4 to 6 inputs, got " + std::to_string(in.size()));
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
    if (!p || !*p || in[0].dimensions.size() != 4)
      return make_error("internal: unprepared RESIZE_NEAREST_NEIGHBOR");
    models::Tensor& o = *out[0];
    const NearestParams& q = **p;
    const Nhwc x = input_extents(in[0], q.nchw);
    OperandInfo oi;
    oi.dimensions = o.dimensions;
    const Nhwc y = input_extents(oi, q.nchw);
    auto sources = [&](uint32_t in_size, uint32_t out_size) {
      const float scale = q.align_corners && out_size > 1
                              ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
                              : static_cast<float>(in_size) / static_cast<float>(out_size);
      const float offset = q.half_pixel ? 0.5f : 0.0f;
      std::vector<uint64_t> s(out_size);
      for (uint32_t v = 0; v < out_size; ++v) {
        const float f = (static_cast<float>(v) + offset) * scale;
        const float r = q.align_corners ? std::round(f) : std::floor(f);
        s[v] = static_cast<uint64_t>(std::clamp<int64_t>(static_cast<int64_t>(r), 0, int64_t{in_size} - 1));
      }
      return s;
    };
    const std::vector<uint64_t> sy = sources(x.h, y.h);
    const std::vector<uint64_t> sx = sources(x.w, y.w);
    const Strides is = layout_strides(q.nchw, x.h, x.w, x.c);
    return gather_elements(in[0], o, [&](uint64_t flat) {
      // Output coordinates in the output's layout.
      uint64_t b = 0, oy = 0, ox = 0, c = 0;
      if (q.nchw) {
        ox = flat % y.w;
        oy = flat / y.w % y.h;
        c = flat / (uint64_t{y.w} * y.h) % y.c;
        b = flat / (uint64_t{y.w} * y.h * y.c);
      } else {
        c = flat % y.c;
        ox = flat / y.c % y.w;
        oy = flat / (uint64_t{y.c} * y.w) % y.h;
        b = flat / (uint64_t{y.c} * y.w * y.h);
      }
      return b * is.b + sy[oy] * is.y + sx[ox] * is.x + c * is.c;
    });
  }
};

}  // namespace

const OperationKernel& resize_nearest_neighbor_kernel() {
  static const ResizeNearestNeighborKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
