#include "shape_family.h"

#include <cmath>
#include <random>

#include "npu/models/builder.h"

namespace npu::anchor {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Log-uniform integer in [lo, hi].
uint32_t log_uniform(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi + 1.0));
  return std::clamp<uint32_t>(static_cast<uint32_t>(std::exp(u(rng))), lo, hi);
}

}  // namespace

std::string LayerShape::name() const {
  const auto d = [](uint64_t v) { return std::to_string(v); };
  switch (kind) {
    case ShapeKind::FC:
      return "fc b" + d(batch) + " " + d(channels) + "->" + d(filters);
    case ShapeKind::DEPTHWISE:
      return "dw" + d(kernel) + "x" + d(kernel) + "/" + d(stride) + " " + d(in_h) + "x" + d(in_w) + "x" +
             d(channels);
    case ShapeKind::CONV:
      break;
  }
  return "conv" + d(kernel) + "x" + d(kernel) + "/" + d(stride) + " " + d(in_h) + "x" + d(in_w) + "x" +
         d(channels) + "->" + d(filters);
}

std::vector<LayerShape> shape_family(uint64_t seed, size_t count, uint64_t max_activation,
                                     uint64_t max_weights) {
  std::mt19937_64 rng(seed);
  std::vector<LayerShape> out;
  while (out.size() < count) {
    LayerShape s;
    const auto kind = std::uniform_int_distribution<int>(0, 19)(rng);
    s.kind = kind < 14 ? ShapeKind::CONV : kind < 17 ? ShapeKind::FC : ShapeKind::DEPTHWISE;
    s.channels = log_uniform(rng, 3, 2048);
    s.filters = log_uniform(rng, 3, 2048);
    if (s.kind == ShapeKind::FC) {
      s.batch = log_uniform(rng, 1, 256);
    } else {
      constexpr uint32_t kKernels[] = {1, 3, 5, 7};
      s.kernel = kKernels[std::uniform_int_distribution<int>(0, 3)(rng)];
      s.stride = std::uniform_int_distribution<uint32_t>(1, 2)(rng);
      const uint32_t h = std::max(s.kernel, log_uniform(rng, 1, 224));
      s.out_h = s.out_w = (h - s.kernel) / s.stride + 1;
      s.in_h = s.in_w = (s.out_h - 1) * s.stride + s.kernel;
    }
    if (s.kind == ShapeKind::DEPTHWISE) s.filters = s.channels;
    const uint64_t activation = uint64_t{s.batch} * s.in_h * s.in_w * s.channels;
    const uint64_t weights =
        uint64_t{s.kernel} * s.kernel * s.channels * (s.kind == ShapeKind::DEPTHWISE ? 1 : s.filters);
    if (activation > max_activation || weights > max_weights) continue;
    out.push_back(s);
  }
  return out;
}

models::Model shape_model(const LayerShape& s, uint64_t seed, bool omit_weights) {
  using models::OperandType;
  models::ModelBuilder b(seed, {models::WeightInit::Legacy, omit_weights});
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, out_q{0.05f, 100};
  if (s.kind == ShapeKind::FC) {
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {s.batch, s.channels}, in_q);
    b.mark_output(b.fully_connected(x, s.filters, fx::FusedActivation::NONE, w_q, out_q));
    return b.take();
  }
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, s.in_h, s.in_w, s.channels}, in_q);
  if (s.kind == ShapeKind::DEPTHWISE)
    b.mark_output(b.depthwise_conv_2d(x, s.kernel, s.kernel, /*VALID*/ 2, s.stride, fx::FusedActivation::NONE,
                                      w_q, out_q));
  else
    b.mark_output(b.conv_2d(x, s.filters, s.kernel, s.kernel, /*VALID*/ 2, s.stride,
                            fx::FusedActivation::NONE, w_q, out_q));
  return b.take();
}

ShapeFigures shape_figures(const LayerShape& s, uint32_t rows, uint32_t cols) {
  ShapeFigures f;
  const uint64_t m = s.m(), k = s.k(), n = s.n();
  f.ideal = ceil_div(s.macs(), uint64_t{rows} * cols);
  if (s.kind == ShapeKind::DEPTHWISE) {
    // C independent GEMMs of M × R·S × 1.
    f.fold_floor = m * ceil_div(k, rows) * n;
    f.scalesim_ws = n * (2ull * rows + cols + m - 2) * ceil_div(k, rows) - 1;
    f.scalesim_os = n * (rows + cols + k - 2) * ceil_div(m, rows) - 1;
    return f;
  }
  f.fold_floor = m * ceil_div(k, rows) * ceil_div(n, cols);
  f.scalesim_ws = (2ull * rows + cols + m - 2) * ceil_div(k, rows) * ceil_div(n, cols) - 1;
  f.scalesim_os = (uint64_t{rows} + cols + k - 2) * ceil_div(m, rows) * ceil_div(n, cols) - 1;
  return f;
}

}  // namespace npu::anchor
