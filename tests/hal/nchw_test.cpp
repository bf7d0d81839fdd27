// NCHW layout (NNAPI 1.2's layout flag) on the NPU: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE/MAX/L2_POOL_2D
// in float32, quant8 asymm and quant8 asymm signed (L2: float only, as NNAPI). Each case builds the same
// operation twice, NCHW and NHWC (same values, the input transposed), and in one simulation runs both
// on the NPU device and on the CPU reference device. Checks:
//   - the NCHW model runs wholly on the NPU (placement "npu", device cycles > 0);
//   - NPU NCHW output == CPU NCHW output, byte for byte (float too: same accumulation order);
//   - CPU NCHW == CPU NHWC transposed and NPU NCHW == NPU NHWC transposed, byte for byte (so the
//     reference's NCHW path is itself checked against its NHWC one);
//   - the NCHW run costs more device cycles than the NHWC one: the DMA gathers/scatters one channel
//     plane per descriptor (hal/src/lowering.h, dma_nchw_in) instead of one descriptor per band.
// Shapes are odd and unequal (H ≠ W, padding ≠ on each side, stride/dilation differ per axis) so a
// swapped axis shows; the "Tiled" cases shrink the SRAM so tiles split rows and channel blocks.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <iostream>
#include <random>

#include "../hal_ops/test_models.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

// Extents of a rank-4 activation, independent of the layout.
struct Shape {
  uint32_t n, c, h, w;
  std::vector<uint32_t> dims(bool nchw) const {
    return nchw ? std::vector<uint32_t>{n, c, h, w} : std::vector<uint32_t>{n, h, w, c};
  }
  uint64_t count() const { return uint64_t{n} * c * h * w; }
};

uint32_t elem(OperandType t) { return t == F32 ? 4 : 1; }

// NCHW bytes → NHWC bytes.
std::vector<uint8_t> to_nhwc(const std::vector<uint8_t>& nchw, const Shape& s, uint32_t e) {
  std::vector<uint8_t> out(nchw.size());
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t c = 0; c < s.c; ++c)
      for (uint32_t y = 0; y < s.h; ++y)
        for (uint32_t x = 0; x < s.w; ++x) {
          const uint64_t from = ((uint64_t{n} * s.c + c) * s.h + y) * s.w + x;
          const uint64_t to = ((uint64_t{n} * s.h + y) * s.w + x) * s.c + c;
          std::memcpy(&out[to * e], &nchw[from * e], e);
        }
  return out;
}

// Seeded values: floats in [-2, 2), quantised bytes over the whole range.
std::vector<uint8_t> random_bytes(OperandType t, uint64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(count * elem(t));
  if (t != F32) {
    for (auto& b : v) b = static_cast<uint8_t>(rng() & 0xFF);
    return v;
  }
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  for (uint64_t i = 0; i < count; ++i) {
    const float f = d(rng);
    std::memcpy(&v[i * 4], &f, 4);
  }
  return v;
}

struct Quant {
  float scale;
  int32_t zero_point;
};
Quant input_q(OperandType t) { return t == F32 ? Quant{0, 0} : Quant{0.05f, t == Q8 ? 120 : -7}; }
Quant weight_q(OperandType t) { return t == F32 ? Quant{0, 0} : Quant{0.02f, t == Q8 ? 131 : 3}; }
// Convolution outputs: a coarser grid so sums of a few dozen products mostly stay in range.
Quant conv_out_q(OperandType t) { return t == F32 ? Quant{0, 0} : Quant{0.1f, t == Q8 ? 127 : 2}; }

// A filter (or depthwise filter) constant of the activation type, seeded.
uint32_t filter(GraphBuilder& g, OperandType t, std::vector<uint32_t> dims, uint32_t seed) {
  uint64_t count = 1;
  for (uint32_t d : dims) count *= d;
  const auto bytes = random_bytes(t, count, seed);
  if (t == F32) {
    std::vector<float> f(count);
    std::memcpy(f.data(), bytes.data(), bytes.size());
    return g.floats(std::move(dims), f);
  }
  std::vector<int32_t> v(count);
  for (uint64_t i = 0; i < count; ++i)
    v[i] = t == Q8 ? bytes[i] : static_cast<int32_t>(static_cast<int8_t>(bytes[i]));
  const Quant q = weight_q(t);
  return g.ints(t, std::move(dims), v, q.scale, q.zero_point);
}

uint32_t bias(GraphBuilder& g, OperandType t, uint32_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  if (t == F32) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> b(count);
    for (auto& x : b) x = d(rng);
    return g.floats({count}, b);
  }
  std::uniform_int_distribution<int32_t> d(-400, 400);
  std::vector<int32_t> b(count);
  for (auto& x : b) x = d(rng);
  return g.ints(OperandType::TENSOR_INT32, {count}, b, input_q(t).scale * weight_q(t).scale, 0);
}

// One operation model in either layout; `in`/`out` are its graph input and output.
struct Built {
  Model model;
  uint32_t in, out;
};
struct Case {
  Shape in_shape, out_shape;
  std::function<Built(OperandType, bool nchw)> build;
  std::vector<std::string> overrides;
};

struct Runs {
  npu::hal::ExecutionResult npu_nchw, cpu_nchw, npu_nhwc, cpu_nhwc;
  std::string placement_nchw, placement_nhwc;
};

void run_layouts(const Case& c, OperandType t, Runs* runs) {
  const Built a = c.build(t, true), b = c.build(t, false);
  const Quant q = input_q(t);
  Tensor x_nchw;
  x_nchw.type = t;
  x_nchw.dimensions = c.in_shape.dims(true);
  x_nchw.scale = q.scale;
  x_nchw.zero_point = q.zero_point;
  x_nchw.data = random_bytes(t, c.in_shape.count(), 7);
  Tensor x_nhwc = x_nchw;
  x_nhwc.dimensions = c.in_shape.dims(false);
  x_nhwc.data = to_nhwc(x_nchw.data, c.in_shape, elem(t));

  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", c.overrides);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  Runs& r = *runs;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto run = [&](npu::hal::Device& dev, const Built& m, const Tensor& x, std::string* placement) {
      auto p = dev.prepare_model(m.model);
      EXPECT_TRUE(p.status.ok()) << p.status.message;
      if (!p.status.ok()) return npu::hal::ExecutionResult{};
      if (placement) *placement = p.model->placement();
      return p.model->execute_synchronously({{m.in, x}}, false);
    };
    r.npu_nchw = run(s.npu_device(), a, x_nchw, &r.placement_nchw);
    r.npu_nhwc = run(s.npu_device(), b, x_nhwc, &r.placement_nhwc);
    r.cpu_nchw = run(s.cpu_device(), a, x_nchw, nullptr);
    r.cpu_nhwc = run(s.cpu_device(), b, x_nhwc, nullptr);
  });
  ASSERT_TRUE(end.ok()) << end.error();
}

void expect_nchw_on_npu_matches(const Case& c, OperandType t) {
  Runs r;
  run_layouts(c, t, &r);
  if (::testing::Test::HasFatalFailure()) return;
  for (const auto* e : {&r.npu_nchw, &r.cpu_nchw, &r.npu_nhwc, &r.cpu_nhwc})
    ASSERT_TRUE(e->status.ok()) << e->status.message;
  EXPECT_EQ(r.placement_nchw, "npu");
  EXPECT_EQ(r.placement_nhwc, "npu");
  EXPECT_GT(r.npu_nchw.device_cycles, 0u);
  const uint32_t out = c.build(t, true).out;
  const auto& npu_nchw = r.npu_nchw.outputs.at(out).data;
  const auto& cpu_nchw = r.cpu_nchw.outputs.at(out).data;
  ASSERT_EQ(npu_nchw.size(), c.out_shape.count() * elem(t));
  EXPECT_TRUE(npu_nchw == cpu_nchw) << "NPU NCHW output differs from the CPU reference's";
  EXPECT_TRUE(to_nhwc(cpu_nchw, c.out_shape, elem(t)) == r.cpu_nhwc.outputs.at(out).data)
      << "CPU reference: NCHW result is not the NHWC result transposed";
  EXPECT_TRUE(to_nhwc(npu_nchw, c.out_shape, elem(t)) == r.npu_nhwc.outputs.at(out).data)
      << "NPU: NCHW result is not the NHWC result transposed";
  EXPECT_GT(r.npu_nchw.device_cycles, r.npu_nhwc.device_cycles);
  // Not a pass/fail figure beyond the ordering above; printed for the record.
  std::cout << "device cycles: NCHW " << r.npu_nchw.device_cycles << ", NHWC " << r.npu_nhwc.device_cycles
            << "\n";
}

// ---- the operations (output extents worked out in the comments) ----

// CONV_2D, explicit padding l1 r2 t2 b0, stride w2 h1, dilation w1 h2, RELU: input 2×3×9×11 (NCHW),
// filter 4×3×3×3. H: (9 + 2 + 0 − (2·2 + 1)) / 1 + 1 = 7; W: (11 + 1 + 2 − 3) / 2 + 1 = 6.
Case conv_case() {
  Case c{{2, 3, 9, 11}, {2, 4, 7, 6}, nullptr, {}};
  c.build = [c](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t), oq = conv_out_q(t);
    const uint32_t in = g.input(t, c.in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t f = filter(g, t, {4, 3, 3, 3}, 11);
    const uint32_t b = bias(g, t, 4, 12);
    const uint32_t out = g.output(t, c.out_shape.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::CONV_2D,
         {in, f, b, g.i32(1), g.i32(2), g.i32(2), g.i32(0), g.i32(2), g.i32(1), g.i32(1), g.boolean(nchw),
          g.i32(1), g.i32(2)},
         {out});
    return Built{g.build(), in, out};
  };
  return c;
}

// CONV_2D 3×3 SAME on 1×16×12×10 → 128 output channels on 16 KiB of SRAM: the weights alone exceed it,
// so the output channels split into blocks (and rows into bands).
Case conv_tiled_case() {
  Case c{{1, 16, 12, 10}, {1, 128, 12, 10}, nullptr, {"npu.channel.sram.kib=16"}};
  c.build = [c](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t), oq = conv_out_q(t);
    const uint32_t in = g.input(t, c.in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t f = filter(g, t, {128, 3, 3, 16}, 21);
    const uint32_t b = bias(g, t, 128, 22);
    const uint32_t out = g.output(t, c.out_shape.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::CONV_2D,
         {in, f, b, g.i32(1), g.i32(1), g.i32(1), g.i32(0), g.boolean(nchw), g.i32(1), g.i32(1)}, {out});
    return Built{g.build(), in, out};
  };
  return c;
}

// DEPTHWISE_CONV_2D, multiplier 2, SAME, stride w2 h1, dilation w1 h2, filter 1×3×2×6: input 1×3×8×7
// (NCHW) → H ceil(8 / 1) = 8, W ceil(7 / 2) = 4, 6 channels.
Case depthwise_case() {
  Case c{{1, 3, 8, 7}, {1, 6, 8, 4}, nullptr, {}};
  c.build = [c](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t), oq = conv_out_q(t);
    const uint32_t in = g.input(t, c.in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t f = filter(g, t, {1, 3, 2, 6}, 31);
    const uint32_t b = bias(g, t, 6, 32);
    const uint32_t out = g.output(t, c.out_shape.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::DEPTHWISE_CONV_2D,
         {in, f, b, g.i32(1), g.i32(2), g.i32(1), g.i32(2), g.i32(0), g.boolean(nchw), g.i32(1), g.i32(2)},
         {out});
    return Built{g.build(), in, out};
  };
  return c;
}

// DEPTHWISE_CONV_2D, multiplier 3, 3×3 dilation 2, SAME stride 2, RELU6, batch 2 of 64 channels on 16 KiB
// of SRAM: rows split into bands and channels into blocks. H ceil(23 / 2) = 12, W ceil(41 / 2) = 21.
Case depthwise_tiled_case() {
  Case c{{2, 64, 23, 41}, {2, 192, 12, 21}, nullptr, {"npu.channel.sram.kib=16"}};
  c.build = [c](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t), oq = conv_out_q(t);
    const uint32_t in = g.input(t, c.in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t f = filter(g, t, {1, 3, 3, 192}, 41);
    const uint32_t b = bias(g, t, 192, 42);
    const uint32_t out = g.output(t, c.out_shape.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::DEPTHWISE_CONV_2D,
         {in, f, b, g.i32(1), g.i32(2), g.i32(2), g.i32(3), g.i32(3), g.boolean(nchw), g.i32(2), g.i32(2)},
         {out});
    return Built{g.build(), in, out};
  };
  return c;
}

// Pools keep the input's quantisation. `explicit_pads` {l, r, t, b} or implicit `scheme`.
Case pool_case(OperationType op, Shape in_shape, Shape out_shape, std::vector<int32_t> explicit_pads,
               int32_t scheme, int32_t sw, int32_t sh, int32_t fw, int32_t fh, int32_t act,
               std::vector<std::string> overrides = {}) {
  Case c{in_shape, out_shape, nullptr, std::move(overrides)};
  c.build = [=](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t);
    const uint32_t in = g.input(t, in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t out = g.output(t, out_shape.dims(nchw), q.scale, q.zero_point);
    std::vector<uint32_t> args{in};
    if (explicit_pads.empty()) {
      args.push_back(g.i32(scheme));
    } else {
      for (int32_t p : explicit_pads) args.push_back(g.i32(p));
    }
    for (int32_t v : {sw, sh, fw, fh, act}) args.push_back(g.i32(v));
    args.push_back(g.boolean(nchw));
    g.op(op, args, {out});
    return Built{g.build(), in, out};
  };
  return c;
}

// AVERAGE_POOL_2D, explicit pads l0 r1 t1 b1, stride w2 h1, filter 2 wide × 3 high: 2×5×7×6 →
// H (7 + 2 − 3) / 1 + 1 = 7, W (6 + 1 − 2) / 2 + 1 = 3.
Case avg_pool_case() {
  return pool_case(OperationType::AVERAGE_POOL_2D, {2, 5, 7, 6}, {2, 5, 7, 3}, {0, 1, 1, 1}, 0, 2, 1, 2, 3,
                   0);
}
// AVERAGE_POOL_2D 3×3 SAME stride 1 over 1×32×30×30 on 16 KiB of SRAM (bands and channel blocks).
Case avg_pool_tiled_case() {
  return pool_case(OperationType::AVERAGE_POOL_2D, {1, 32, 30, 30}, {1, 32, 30, 30}, {}, 1, 1, 1, 3, 3, 0,
                   {"npu.channel.sram.kib=16"});
}
// MAX_POOL_2D 3×3 SAME stride 2, RELU: 1×4×9×8 → H ceil(9 / 2) = 5, W ceil(8 / 2) = 4.
Case max_pool_case() {
  return pool_case(OperationType::MAX_POOL_2D, {1, 4, 9, 8}, {1, 4, 5, 4}, {}, 1, 2, 2, 3, 3, 1);
}
// L2_POOL_2D 2×2 VALID stride w1 h2: 1×3×7×6 → H (7 − 2) / 2 + 1 = 3, W (6 − 2) / 1 + 1 = 5.
Case l2_pool_case() {
  return pool_case(OperationType::L2_POOL_2D, {1, 3, 7, 6}, {1, 3, 3, 5}, {}, 2, 1, 2, 2, 2, 0);
}

// Two NCHW operations in a row, CONV_2D 3×3 VALID (1×3×10×9 → 1×8×8×7) then MAX_POOL_2D 2×2 stride 2
// VALID (→ 1×8×4×3): the intermediate stays NCHW in the arena, no conversion between them.
Case conv_then_pool_case() {
  Case c{{1, 3, 10, 9}, {1, 8, 4, 3}, nullptr, {}};
  c.build = [c](OperandType t, bool nchw) {
    GraphBuilder g;
    const Quant q = input_q(t), oq = conv_out_q(t);
    const Shape mid{1, 8, 8, 7};
    const uint32_t in = g.input(t, c.in_shape.dims(nchw), q.scale, q.zero_point);
    const uint32_t m = g.temp(t, mid.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::CONV_2D,
         {in, filter(g, t, {8, 3, 3, 3}, 51), bias(g, t, 8, 52), g.i32(2), g.i32(1), g.i32(1), g.i32(0),
          g.boolean(nchw)},
         {m});
    const uint32_t out = g.output(t, c.out_shape.dims(nchw), oq.scale, oq.zero_point);
    g.op(OperationType::MAX_POOL_2D,
         {m, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(0), g.boolean(nchw)}, {out});
    return Built{g.build(), in, out};
  };
  return c;
}

class Nchw : public ::testing::TestWithParam<OperandType> {};

std::string type_name(const ::testing::TestParamInfo<OperandType>& info) {
  return info.param == F32 ? "Float32" : info.param == Q8 ? "Quant8Asymm" : "Quant8AsymmSigned";
}

TEST_P(Nchw, Conv2DPaddedStridedDilated) { expect_nchw_on_npu_matches(conv_case(), GetParam()); }
TEST_P(Nchw, Conv2DTiledChannelBlocks) { expect_nchw_on_npu_matches(conv_tiled_case(), GetParam()); }
TEST_P(Nchw, DepthwiseMultiplier2Dilated) { expect_nchw_on_npu_matches(depthwise_case(), GetParam()); }
TEST_P(Nchw, DepthwiseMultiplier3Tiled) { expect_nchw_on_npu_matches(depthwise_tiled_case(), GetParam()); }
TEST_P(Nchw, AveragePoolExplicitPadding) { expect_nchw_on_npu_matches(avg_pool_case(), GetParam()); }
TEST_P(Nchw, AveragePoolTiled) { expect_nchw_on_npu_matches(avg_pool_tiled_case(), GetParam()); }
TEST_P(Nchw, MaxPoolSame) { expect_nchw_on_npu_matches(max_pool_case(), GetParam()); }
TEST_P(Nchw, ConvThenPoolStaysNchw) { expect_nchw_on_npu_matches(conv_then_pool_case(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(Types, Nchw, ::testing::Values(F32, Q8, S8), type_name);

// NNAPI defines L2_POOL_2D for float only.
TEST(NchwFloat, L2PoolValid) { expect_nchw_on_npu_matches(l2_pool_case(), F32); }

}  // namespace
