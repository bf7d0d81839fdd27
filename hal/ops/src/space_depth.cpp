// SPACE_TO_DEPTH, DEPTH_TO_SPACE (NNAPI 1.0), SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (NNAPI 1.1): the
// block rearrangements of a rank-4 tensor (one file: shared signature checks and an element walk in
// NHWC terms; an optional trailing BOOL selects NCHW, NNAPI 1.2). Types FLOAT32/FLOAT16/
// QUANT8_ASYMM(_SIGNED); the output has the input's type and quantisation. Orders follow TFLite:
//   SPACE_TO_DEPTH(block b): out[n, y, x, (dy*b + dx)*C + c] = in[n, y*b + dy, x*b + dx, c]
//     (H and W divisible by b); DEPTH_TO_SPACE is its inverse (C divisible by b*b).
//   SPACE_TO_BATCH_ND(block [bh, bw], paddings [[t, b], [l, r]]): out batch (sh*bw + sw)*N + n holds
//     in[n, y*bh + sh - t, x*bw + sw - l, c], padding positions reading 0 (the zero point when
//     quantised); padded H and W divisible by the block. BATCH_TO_SPACE_ND is its inverse without
//     crops (N divisible by bh*bw).
#include <array>

#include "kernel_util.h"
#include "kernels.h"
#include "spatial.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Rearrange { kSpaceToDepth, kDepthToSpace, kSpaceToBatch, kBatchToSpace };

struct Params {
  uint32_t bh = 0, bw = 0;                  // block
  std::array<int64_t, 4> pads{0, 0, 0, 0};  // top, bottom, left, right (SPACE_TO_BATCH_ND)
  bool nchw = false;
};

class RearrangeKernel final : public OperationKernel {
 public:
  RearrangeKernel(models::OperationType type, Rearrange kind) : type_(type), kind_(kind) {}

  models::OperationType type() const override { return type_; }

  // Number of inputs before the optional layout flag.
  size_t base_inputs() const { return kind_ == Rearrange::kSpaceToBatch ? 3 : 2; }

  // Parameters, or nullopt while some are unknown.
  Result<std::optional<Params>> params(std::span<const OperandInfo> in) const {
    Params p;
    bool known = true;
    const size_t n = base_inputs();
    if (in.size() == n + 1) {
      if (auto r = expect_type(in, n, "NCHW layout", {OperandType::BOOL}); !r) return make_error(r.error());
      const auto v = bool_param(in[n]);
      known = known && v.has_value();
      p.nchw = v.value_or(false);
    }
    if (kind_ == Rearrange::kSpaceToDepth || kind_ == Rearrange::kDepthToSpace) {
      auto b = int_param_in_range(in, 1, "block size", 1, 0xffff);
      if (!b) return make_error(b.error());
      if (!*b) return std::optional<Params>();
      p.bh = p.bw = static_cast<uint32_t>(**b);
    } else {
      if (auto r = expect_type(in, 1, "block shape", {OperandType::TENSOR_INT32}); !r)
        return make_error(r.error());
      if (auto r = expect_rank(in[1], 1, "block shape", 1); !r) return make_error(r.error());
      const auto b = int_tensor_value(in[1]);
      if (b) {
        if (b->size() != 2) return input_error(1, "block shape", "expected 2 values");
        for (int32_t v : *b) {
          if (v < 1 || v > 0xffff) return input_error(1, "block shape", "values must be in [1, 65535]");
        }
        p.bh = static_cast<uint32_t>((*b)[0]);
        p.bw = static_cast<uint32_t>((*b)[1]);
      }
      known = known && b.has_value();
      if (kind_ == Rearrange::kSpaceToBatch) {
        if (auto r = expect_type(in, 2, "paddings", {OperandType::TENSOR_INT32}); !r)
          return make_error(r.error());
        if (auto r = expect_rank(in[2], 2, "paddings", 2); !r) return make_error(r.error());
        const auto pads = int_tensor_value(in[2]);
        if (pads) {
          if (pads->size() != 4) return input_error(2, "paddings", "expected shape [2, 2]");
          for (size_t i = 0; i < 4; ++i) {
            if ((*pads)[i] < 0 || (*pads)[i] > 0xffff)
              return input_error(2, "paddings", "values must be in [0, 65535]");
            p.pads[i] = (*pads)[i];
          }
        }
        known = known && pads.has_value();
      }
    }
    if (!known) return std::optional<Params>();
    return std::optional<Params>(p);
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    const size_t n = base_inputs();
    if (in.size() != n && in.size() != n + 1)
      return make_error("expected " + std::to_string(n) + " or " + std::to_string(n + 1) + " inputs, got " +
                        std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "input", 4); !r) return make_error(r.error());
    auto p = params(in);
    if (!p) return make_error(p.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!*p || !in[0].rank_known()) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(4, 0)};
    const Params& q = **p;
    const Nhwc x = input_extents(in[0], q.nchw);
    uint64_t on = x.n, oh = x.h, ow = x.w, oc = x.c;
    auto divisible = [&](uint64_t v, uint64_t d, const char* what) -> Result<void> {
      if (v != 0 && v % d != 0)
        return input_error(
            0, "input",
            std::string(what) + " " + std::to_string(v) + " is not divisible by " + std::to_string(d));
      return {};
    };
    switch (kind_) {
      case Rearrange::kSpaceToDepth:
        if (auto r = divisible(x.h, q.bh, "height"); !r) return make_error(r.error());
        if (auto r = divisible(x.w, q.bw, "width"); !r) return make_error(r.error());
        oh = x.h / q.bh;
        ow = x.w / q.bw;
        oc = uint64_t{x.c} * q.bh * q.bw;
        break;
      case Rearrange::kDepthToSpace:
        if (auto r = divisible(x.c, uint64_t{q.bh} * q.bw, "depth"); !r) return make_error(r.error());
        oh = uint64_t{x.h} * q.bh;
        ow = uint64_t{x.w} * q.bw;
        oc = x.c / (uint64_t{q.bh} * q.bw);
        break;
      case Rearrange::kSpaceToBatch: {
        const uint64_t ph = x.h == 0 ? 0 : x.h + q.pads[0] + q.pads[1];
        const uint64_t pw = x.w == 0 ? 0 : x.w + q.pads[2] + q.pads[3];
        if (auto r = divisible(ph, q.bh, "padded height"); !r) return make_error(r.error());
        if (auto r = divisible(pw, q.bw, "padded width"); !r) return make_error(r.error());
        on = uint64_t{x.n} * q.bh * q.bw;
        oh = ph / q.bh;
        ow = pw / q.bw;
        break;
      }
      case Rearrange::kBatchToSpace:
        if (auto r = divisible(x.n, uint64_t{q.bh} * q.bw, "batch"); !r) return make_error(r.error());
        on = x.n / (uint64_t{q.bh} * q.bw);
        oh = uint64_t{x.h} * q.bh;
        ow = uint64_t{x.w} * q.bw;
        break;
    }
    for (uint64_t v : {on, oh, ow, oc}) {
      if (v > 0xffffffffu) return make_error("output 0: extent overflows");
    }
    const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
    return std::vector<std::vector<uint32_t>>{q.nchw ? std::vector<uint32_t>{u(on), u(oc), u(oh), u(ow)}
                                                     : std::vector<uint32_t>{u(on), u(oh), u(ow), u(oc)}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto p = params(in);
    if (!p || !*p || in[0].dimensions.size() != 4 || out[0]->dimensions.size() != 4)
      return make_error("internal: unprepared rearrangement");
    const Params& q = **p;
    models::Tensor& o = *out[0];
    const Nhwc x = input_extents(in[0], q.nchw);
    OperandInfo out_info;
    out_info.dimensions = o.dimensions;
    const Nhwc y = input_extents(out_info, q.nchw);
    if (x.n == 0 || x.h == 0 || x.w == 0 || x.c == 0 || y.n == 0 || y.h == 0 || y.w == 0 || y.c == 0)
      return make_error("internal: empty rearrangement");
    const Strides is = layout_strides(q.nchw, x.h, x.w, x.c);
    const Strides os = layout_strides(q.nchw, y.h, y.w, y.c);
    const int32_t fill = is_quant8(o.type) ? o.zero_point : 0;
    return gather_elements(
        in[0], o,
        [&](uint64_t flat) {
          // Output coordinates from the flat index in the output's layout.
          const uint64_t b = flat / os.b;
          const uint64_t yy = (flat / os.y) % y.h;
          const uint64_t xx = (flat / os.x) % y.w;
          const uint64_t c = (flat / os.c) % y.c;
          int64_t ib = static_cast<int64_t>(b), iy = static_cast<int64_t>(yy), ix = static_cast<int64_t>(xx);
          uint64_t ic = c;
          switch (kind_) {
            case Rearrange::kSpaceToDepth: {
              const uint64_t blk = c / x.c;
              ic = c % x.c;
              iy = static_cast<int64_t>(yy * q.bh + blk / q.bw);
              ix = static_cast<int64_t>(xx * q.bw + blk % q.bw);
              break;
            }
            case Rearrange::kDepthToSpace:
              iy = static_cast<int64_t>(yy / q.bh);
              ix = static_cast<int64_t>(xx / q.bw);
              ic = ((yy % q.bh) * q.bw + xx % q.bw) * y.c + c;
              break;
            case Rearrange::kSpaceToBatch: {
              const uint64_t off = b / x.n;
              ib = static_cast<int64_t>(b % x.n);
              iy = static_cast<int64_t>(yy * q.bh + off / q.bw) - q.pads[0];
              ix = static_cast<int64_t>(xx * q.bw + off % q.bw) - q.pads[2];
              break;
            }
            case Rearrange::kBatchToSpace:
              ib = static_cast<int64_t>(((yy % q.bh) * q.bw + xx % q.bw) * y.n + b);
              iy = static_cast<int64_t>(yy / q.bh);
              ix = static_cast<int64_t>(xx / q.bw);
              break;
          }
          if (iy < 0 || ix < 0 || iy >= static_cast<int64_t>(x.h) || ix >= static_cast<int64_t>(x.w) ||
              ib >= static_cast<int64_t>(x.n) || ic >= x.c)
            return kFill;
          return static_cast<uint64_t>(ib) * is.b + static_cast<uint64_t>(iy) * is.y +
                 static_cast<uint64_t>(ix) * is.x + ic * is.c;
        },
        fill);
  }

 private:
  models::OperationType type_;
  Rearrange kind_;
};

}  // namespace

const OperationKernel& space_to_depth_kernel() {
  static const RearrangeKernel kernel(models::OperationType::SPACE_TO_DEPTH, Rearrange::kSpaceToDepth);
  return kernel;
}
const OperationKernel& depth_to_space_kernel() {
  static const RearrangeKernel kernel(models::OperationType::DEPTH_TO_SPACE, Rearrange::kDepthToSpace);
  return kernel;
}
const OperationKernel& space_to_batch_nd_kernel() {
  static const RearrangeKernel kernel(models::OperationType::SPACE_TO_BATCH_ND, Rearrange::kSpaceToBatch);
  return kernel;
}
const OperationKernel& batch_to_space_nd_kernel() {
  static const RearrangeKernel kernel(models::OperationType::BATCH_TO_SPACE_ND, Rearrange::kBatchToSpace);
  return kernel;
}

}  // namespace npu::hal::ops
