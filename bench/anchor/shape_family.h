// A seeded family of convolution / fully-connected / depthwise layer shapes (kernels 1, 3, 5, 7; strides
// 1 and 2; channels and filters 3..2048; maps 1..224), each buildable as a one-operation quant8 model,
// with the figures the shape sweep compares npusim's cycles with on one 32×32 channel: the ideal, the
// fold floor and SCALE-Sim's analytical weight-stationary and output-stationary cycles. Shared by
// shape_sweep_bench and tests/hal/shape_bound_test.cpp. It does not run anything.
//
// Conventions are SCALE-Sim's (as anchor_layers.h): VALID, input (out − 1)·stride + R; GEMM M = output
// pixels (FC: batch rows), K = R·S·C, N = filters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/models/model.h"

namespace npu::anchor {

enum class ShapeKind : uint8_t { CONV, FC, DEPTHWISE };

struct LayerShape {
  ShapeKind kind = ShapeKind::CONV;
  uint32_t batch = 1;  // FC rows
  uint32_t in_h = 1, in_w = 1, channels = 1, filters = 1, kernel = 1, stride = 1;
  uint32_t out_h = 1, out_w = 1;
  uint64_t m() const { return kind == ShapeKind::FC ? batch : uint64_t{out_h} * out_w; }
  uint64_t k() const { return uint64_t{kernel} * kernel * (kind == ShapeKind::DEPTHWISE ? 1 : channels); }
  uint64_t n() const { return kind == ShapeKind::DEPTHWISE ? channels : filters; }
  uint64_t macs() const { return m() * k() * n(); }
  std::string name() const;  // e.g. "conv3x3/2 56x56x64->128", "fc b1 512->1000", "dw5x5/1 28x28x96"
};

// `count` shapes from `seed` (std::mt19937_64; the same seed gives the same family everywhere). Sizes are
// log-uniform; a shape is redrawn while its input map exceeds `max_activation` bytes or its weights
// `max_weights` bytes (both int8), which keeps the family to layers a network has.
std::vector<LayerShape> shape_family(uint64_t seed, size_t count, uint64_t max_activation = 224ull * 224 * 64,
                                     uint64_t max_weights = 3ull * 3 * 512 * 512);

// The layer as a quant8 model (CONV_2D / DEPTHWISE_CONV_2D VALID or FULLY_CONNECTED, no activation).
models::Model shape_model(const LayerShape& s, uint64_t seed, bool omit_weights);

// Figures on an rows × cols array (32 × 32 in the sweep).
struct ShapeFigures {
  uint64_t ideal = 0;  // ⌈M·K·N / (rows·cols)⌉: every PE busy every cycle
  // M·⌈K/rows⌉·⌈N/cols⌉: one activation row a cycle through every (K chunk, column block) fold, the
  // least any weight- or output-stationary mapping of this GEMM onto the array takes. Above the ideal
  // when K or N is not a multiple of the array (K = 3: 32/3 of it).
  uint64_t fold_floor = 0;
  // SCALE-Sim's analytical compute cycles (one fold at a time, no memory stalls), which reproduce its
  // v2 figures in scalesim_v2_layers.csv exactly:
  //   WS: (2·rows + cols + M − 2)·⌈K/rows⌉·⌈N/cols⌉ − 1   (weights held, M streams through)
  //   OS: (rows + cols + K − 2)·⌈M/rows⌉·⌈N/cols⌉ − 1     (outputs held, K streams through)
  // A depthwise layer is C GEMMs of M × R·S × 1.
  uint64_t scalesim_ws = 0, scalesim_os = 0;
};
ShapeFigures shape_figures(const LayerShape& s, uint32_t rows = 32, uint32_t cols = 32);

}  // namespace npu::anchor
