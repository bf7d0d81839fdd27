// NN HAL 1.2/1.3 operations on the NPU: SLICE, SPLIT, TILE, EXPAND_DIMS, CHANNEL_SHUFFLE,
// RESIZE_NEAREST_NEIGHBOR, same-type CAST and TRANSPOSE (NN HAL 1.1) lowered to DMA patterns
// (hal/src/lower_gather_rows.cpp, lower_copy.cpp), GATHER by the DMA engine's indexed gather
// (lower_gather.cpp), quant8 HARD_SWISH as a vector-unit lookup table and float SIN, ELU and HARD_SWISH as
// vector-unit functions (lower_activation.cpp), ARGMAX/ARGMIN as vector-unit REDUCE (lower_argminmax.cpp),
// PRELU as the vector unit's ELTWISE PRELU (lower_eltwise.cpp), SELECT as its SELECT (lower_select.cpp),
// LOG_SOFTMAX as its SOFTMAX with the log flag (lower_softmax.cpp) and RESIZE_BILINEAR as its
// RESIZE_BILINEAR (lower_resize_bilinear.cpp), through the whole stack (HAL NpuDevice ->
// driver -> simulated NPU) and on the CPU reference device, for every element type they take
// (TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32 where NNAPI allows it, TENSOR_QUANT8_ASYMM,
// TENSOR_QUANT8_ASYMM_SIGNED). For the data movements the element values are 0, 1, 2, ... (exact in every
// type), so the expected outputs are the hand-listed source positions; the arithmetic cases work their
// values in comments. Every case checks placement "npu" (no CPU stage), device cycles > 0, both devices
// against the hand values, and NPU == CPU byte for byte.
// Larger cases on a 16 KiB SRAM (many chunks over all channels) compare the NPU with the CPU device.
#include <gtest/gtest.h>

#include <cmath>

#include "../hal_ops/test_models.h"
#include "npu/hal/compiler.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::hal::ops::test::int_tensor;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr auto I32 = OperandType::TENSOR_INT32;

struct Outcome {
  npu::hal::ExecutionResult npu, cpu;
  std::string placement;
};

Outcome run_both(const Model& model, const npu::hal::TensorMap& inputs,
                 const std::vector<std::string>& overrides = {}) {
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  Outcome o;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto prepared = s.npu_device().prepare_model(model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    o.placement = prepared.model->placement();
    o.npu = prepared.model->execute_synchronously(inputs, true);
    auto ref = s.cpu_device().prepare_model(model);
    ASSERT_TRUE(ref.status.ok()) << ref.status.message;
    o.cpu = ref.model->execute_synchronously(inputs, false);
  });
  EXPECT_TRUE(end.ok()) << end.error();
  return o;
}

// Quantisation of the quant8 operands (any: the operations copy bytes).
float scale_of(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 0.5f : 0.0f;
}

// A tensor holding 0, 1, ..., n - 1.
Tensor iota(OperandType t, std::vector<uint32_t> dims) {
  Tensor x;
  x.type = t;
  x.dimensions = std::move(dims);
  x.scale = scale_of(t);
  const uint64_t n = x.element_count();
  x.data.resize(n * npu::models::element_size(t));
  for (uint64_t i = 0; i < n; ++i) npu::models::write_element(t, x.data, i, static_cast<double>(i % 100));
  return x;
}

// Placement, cycles, both devices against `expected` (element values), and NPU == CPU bytes.
void expect_on_npu(const Outcome& o, const std::vector<uint32_t>& outs,
                   const std::vector<std::vector<double>>& expected) {
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_GT(o.npu.device_cycles, 0u);
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& n = o.npu.outputs.at(outs[k]);
    const Tensor& c = o.cpu.outputs.at(outs[k]);
    EXPECT_EQ(n.data, c.data) << "output " << k;
    EXPECT_EQ(n.dimensions, c.dimensions) << "output " << k;
    if (k >= expected.size()) continue;
    ASSERT_EQ(c.element_count(), expected[k].size()) << "output " << k;
    for (size_t i = 0; i < expected[k].size(); ++i)
      EXPECT_EQ(npu::models::read_element(c.type, c.data, i), expected[k][i])
          << "output " << k << " element " << i;
  }
}

class NpuDataMovement : public ::testing::TestWithParam<OperandType> {};

std::string type_name(const ::testing::TestParamInfo<OperandType>& info) {
  return std::string(npu::models::to_string(info.param)).substr(7);  // drop "TENSOR_"
}

TEST_P(NpuDataMovement, Slice) {
  // [2, 3, 4] of 0..23, begin [0, 1, 1], size [2, 2, -1]: rows (b, 1..2) and columns 1..3 of each.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3, 4}, scale_of(t));
  const uint32_t out = g.output(t, {2, 2, 3}, scale_of(t));
  g.op(OperationType::SLICE, {x, g.ints(I32, {3}, {0, 1, 1}), g.ints(I32, {3}, {2, 2, -1})}, {out});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3, 4})}}), {out},
                {{5, 6, 7, 9, 10, 11, 17, 18, 19, 21, 22, 23}});
}

TEST_P(NpuDataMovement, Split) {
  // [2, 6] of 0..11 split in 3 along axis 1: columns {0, 1}, {2, 3}, {4, 5} of both rows.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 6}, scale_of(t));
  std::vector<uint32_t> outs;
  for (int k = 0; k < 3; ++k) outs.push_back(g.output(t, {2, 2}, scale_of(t)));
  g.op(OperationType::SPLIT, {x, g.i32(1), g.i32(3)}, outs);
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 6})}}), outs,
                {{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5, 10, 11}});
}

TEST_P(NpuDataMovement, Tile) {
  // [[0, 1, 2], [3, 4, 5]] tiled [2, 2]: each row twice side by side, the block twice.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t out = g.output(t, {4, 6}, scale_of(t));
  g.op(OperationType::TILE, {x, g.ints(I32, {2}, {2, 2})}, {out});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3})}}), {out},
                {{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}});
}

TEST_P(NpuDataMovement, ExpandDimsThenSplitOnTheNewAxis) {
  // [2, 3] -> EXPAND_DIMS axis 0 -> [1, 2, 3] -> SPLIT axis 1 in 2: rows [0, 1, 2] and [3, 4, 5];
  // both operations on the NPU.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t e = g.temp(t, {1, 2, 3}, scale_of(t));
  g.op(OperationType::EXPAND_DIMS, {x, g.i32(0)}, {e});
  const uint32_t a = g.output(t, {1, 1, 3}, scale_of(t));
  const uint32_t b = g.output(t, {1, 1, 3}, scale_of(t));
  g.op(OperationType::SPLIT, {e, g.i32(-2), g.i32(2)}, {a, b});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3})}}), {a, b}, {{0, 1, 2}, {3, 4, 5}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuDataMovement,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, I32,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// CHANNEL_SHUFFLE and RESIZE_NEAREST_NEIGHBOR take the float and quant8 types (not INT32).
class NpuShuffleResize : public ::testing::TestWithParam<OperandType> {};

TEST_P(NpuShuffleResize, ChannelShuffleLastAxis) {
  // Rows of 6 channels in 3 groups of 2: output channel c copies input channel (c % 3) * 2 + c / 3, so
  // [0..5] -> [0, 2, 4, 1, 3, 5].
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 6}, scale_of(t));
  const uint32_t out = g.output(t, {1, 2, 6}, scale_of(t));
  g.op(OperationType::CHANNEL_SHUFFLE, {x, g.i32(3), g.i32(-1)}, {out});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 2, 6})}}), {out},
                {{0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}});
}

TEST_P(NpuShuffleResize, ChannelShuffleMiddleAxis) {
  // [2, 4, 3]: 4 channels of 3 in 2 groups: channels 0, 2, 1, 3 in that order.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 4, 3}, scale_of(t));
  const uint32_t out = g.output(t, {2, 4, 3}, scale_of(t));
  g.op(OperationType::CHANNEL_SHUFFLE, {x, g.i32(2), g.i32(1)}, {out});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 4, 3})}}), {out},
                {{0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11, 12, 13, 14, 18, 19, 20, 15, 16, 17, 21, 22, 23}});
}

Model nearest(OperandType t, std::vector<uint32_t> in, std::vector<uint32_t> out, int32_t w, int32_t h,
              bool nchw, std::vector<bool> flags, uint32_t* x, uint32_t* y) {
  GraphBuilder g;
  *x = g.input(t, std::move(in), scale_of(t));
  *y = g.output(t, std::move(out), scale_of(t));
  std::vector<uint32_t> ins = {*x, g.i32(w), g.i32(h), g.boolean(nchw)};
  for (bool f : flags) ins.push_back(g.boolean(f));
  g.op(OperationType::RESIZE_NEAREST_NEIGHBOR, ins, {*y});
  return g.build();
}

TEST_P(NpuShuffleResize, ResizeNearestUpscale) {
  // 2x2 pixels of 2 channels (pixel p holds 2p, 2p + 1) to 3x3: source rows and columns 0, 0, 1.
  const OperandType t = GetParam();
  uint32_t x = 0, y = 0;
  const Model m = nearest(t, {1, 2, 2, 2}, {1, 3, 3, 2}, 3, 3, false, {}, &x, &y);
  expect_on_npu(run_both(m, {{x, iota(t, {1, 2, 2, 2})}}), {y},
                {{0, 1, 0, 1, 2, 3, 0, 1, 0, 1, 2, 3, 4, 5, 4, 5, 6, 7}});
}

TEST_P(NpuShuffleResize, ResizeNearestHalfPixelDownscale) {
  // Width 4 -> 2 with half-pixel centres: sources floor(0.5 * 2) = 1 and floor(1.5 * 2) = 3.
  const OperandType t = GetParam();
  uint32_t x = 0, y = 0;
  const Model m = nearest(t, {1, 1, 4, 2}, {1, 1, 2, 2}, 2, 1, false, {false, true}, &x, &y);
  expect_on_npu(run_both(m, {{x, iota(t, {1, 1, 4, 2})}}), {y}, {{2, 3, 6, 7}});
}

TEST_P(NpuShuffleResize, ResizeNearestNchw) {
  // NCHW [1, 2, 1, 2]: channel 0 [0, 1], channel 1 [2, 3]; width 2 -> 4: sources 0, 0, 1, 1.
  const OperandType t = GetParam();
  uint32_t x = 0, y = 0;
  const Model m = nearest(t, {1, 2, 1, 2}, {1, 2, 1, 4}, 4, 1, true, {}, &x, &y);
  expect_on_npu(run_both(m, {{x, iota(t, {1, 2, 1, 2})}}), {y}, {{0, 0, 1, 1, 2, 2, 3, 3}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuShuffleResize,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// Many chunks on 16 KiB of SRAM: NPU == CPU byte for byte.
TEST(NpuDataMovementTiled, ChannelShuffleAndAlignedResizeMatchCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 30, 30, 12}, 0.5f);
  const uint32_t s = g.output(t, {2, 30, 30, 12}, 0.5f);
  g.op(OperationType::CHANNEL_SHUFFLE, {x, g.i32(4), g.i32(3)}, {s});
  const uint32_t r = g.output(t, {2, 41, 53, 12}, 0.5f);
  g.op(OperationType::RESIZE_NEAREST_NEIGHBOR, {s, g.i32(53), g.i32(41), g.boolean(false), g.boolean(true)},
       {r});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 30, 30, 12})}}, {"npu.channel.sram.kib=16"}), {s, r},
                {});
}

// Large enough for many chunks on 16 KiB of SRAM across every channel; NPU == CPU byte for byte.
TEST(NpuDataMovementTiled, SliceSplitTileChainMatchesCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 40, 40, 6});
  const uint32_t s = g.temp(t, {2, 30, 33, 4});
  g.op(OperationType::SLICE, {x, g.ints(I32, {4}, {0, 5, 3, 1}), g.ints(I32, {4}, {-1, 30, 33, 4})}, {s});
  const uint32_t a = g.output(t, {2, 30, 33, 2});
  const uint32_t b = g.output(t, {2, 30, 33, 2});
  g.op(OperationType::SPLIT, {s, g.i32(3), g.i32(2)}, {a, b});
  const uint32_t r = g.output(t, {4, 30, 66, 2});
  g.op(OperationType::TILE, {b, g.ints(I32, {4}, {2, 1, 2, 1})}, {r});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 40, 40, 6})}}, {"npu.channel.sram.kib=16"}), {a, b, r},
                {});
}

// Quant8 HARD_SWISH as a 256-entry table built from the CPU reference. In scale 0.125 zp 128 (signed 0):
// q [96, 116, 136, 152] = x [-4, -1.5, 1, 3] -> x * relu6(x + 3) / 6 = [0, -0.375, 2/3, 3]; out scale 1/64
// zp 64 (signed -64): 64 + round(64 y) = [64, 40, 107, 256 -> 255] (signed: each - 128).
TEST(NpuHardSwish, Quant8Unsigned) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {4}, 0.125f, 128);
  const uint32_t y = g.output(t, {4}, 1.0f / 64, 64);
  g.op(OperationType::HARD_SWISH, {x}, {y});
  Tensor in = iota(t, {4});
  in.scale = 0.125f;
  in.zero_point = 128;
  in.data = {96, 116, 136, 152};
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {{64, 40, 107, 255}});
}

TEST(NpuHardSwish, Quant8Signed) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {4}, 0.125f, 0);
  const uint32_t y = g.output(t, {4}, 1.0f / 64, -64);
  g.op(OperationType::HARD_SWISH, {x}, {y});
  Tensor in = iota(t, {4});
  in.scale = 0.125f;
  in.data = {static_cast<uint8_t>(-32), static_cast<uint8_t>(-12), 8, 24};
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {{-64, -88, -21, 127}});
}

// Float functions of the vector unit with the reference's expressions: placement "npu", NPU == CPU byte
// for byte, and the hand values within NNAPI's fp32 tolerance.
void float_unary_case(OperationType op, const std::vector<float>& x, const std::vector<float>& want,
                      float alpha = 0.0f) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  const auto n = static_cast<uint32_t>(x.size());
  GraphBuilder g;
  const uint32_t in = g.input(t, {n});
  const uint32_t y = g.output(t, {n});
  std::vector<uint32_t> ins = {in};
  if (op == OperationType::ELU) ins.push_back(g.floats({}, {alpha}, OperandType::FLOAT32));
  g.op(op, ins, {y});
  Tensor v;
  v.type = t;
  v.dimensions = {n};
  v.data.resize(n * 4);
  for (uint32_t i = 0; i < n; ++i) npu::models::write_element(t, v.data, i, x[i]);
  const Outcome o = run_both(g.build(), {{in, v}});
  expect_on_npu(o, {y}, {});
  const Tensor& c = o.cpu.outputs.at(y);
  ASSERT_EQ(c.element_count(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = npu::models::read_element(t, c.data, i);
    EXPECT_LE(std::fabs(got - want[i]), 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(want[i]))
        << "element " << i;
  }
}

// x·relu6(x + 3)/6: -4 -> 0, -1.5 -> -0.375, 1 -> 2/3, 5 -> 5.
TEST(NpuHardSwish, Float) {
  float_unary_case(OperationType::HARD_SWISH, {-4, -1.5f, 1, 5}, {0, -0.375f, 0.6666667f, 5});
}
// sin 0 = 0, sin(pi/2) = 1, sin(-pi/6) = -0.5.
TEST(NpuSin, Float) { float_unary_case(OperationType::SIN, {0, 1.5707964f, -0.5235988f}, {0, 1, -0.5f}); }
// alpha 0.5: -2 -> 0.5 (e^-2 - 1) = -0.43233237, -1 -> 0.5 (e^-1 - 1) = -0.31606028, 0 and 3 unchanged.
TEST(NpuElu, Float) {
  float_unary_case(OperationType::ELU, {-2, -1, 0, 3}, {-0.43233237f, -0.31606028f, 0, 3}, 0.5f);
}

// FLOAT16 has no vector-unit datapath: it runs as a CPU stage, with the CPU's result.
TEST(NpuElu, Float16FallsBackToTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT16;
  GraphBuilder g;
  const uint32_t x = g.input(t, {3});
  const uint32_t y = g.output(t, {3});
  g.op(OperationType::ELU, {x, g.floats({}, {1.0f}, OperandType::FLOAT16)}, {y});
  const Outcome o = run_both(g.build(), {{x, iota(t, {3})}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// CAST to the input's own type is a byte copy on the NPU (NN HAL 1.3 allows it for every listed type).
TEST(NpuCast, SameTypeIsACopy) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, 0.5f, -3);
  const uint32_t y = g.output(t, {2, 3}, 0.5f, -3);
  g.op(OperationType::CAST, {x}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3})}}), {y}, {{0, 1, 2, 3, 4, 5}});
}

// PAD_V2: FILL with the pad value, input rows DMAed into place. [0, 1] padded by (0, 1) rows and (1, 1)
// columns: [[v, 0, 1, v], [v, v, v, v]]; the quant8 pad value is the raw byte (not shifted between the
// two forms).
void pad_v2_case(OperandType t, int32_t raw_pad, float float_pad, double expect_pad) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2}, scale_of(t));
  const uint32_t v =
      t == OperandType::TENSOR_FLOAT32 ? g.floats({}, {float_pad}, OperandType::FLOAT32) : g.i32(raw_pad);
  const uint32_t y = g.output(t, {2, 4}, scale_of(t));
  g.op(OperationType::PAD_V2, {x, g.ints(I32, {2, 2}, {0, 1, 1, 1}), v}, {y});
  const double p = expect_pad;
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 2})}}), {y}, {{p, 0, 1, p, p, p, p, p}});
}
TEST(NpuPadV2, Float) { pad_v2_case(OperandType::TENSOR_FLOAT32, 0, -2.5f, -2.5); }
TEST(NpuPadV2, Quant8) { pad_v2_case(OperandType::TENSOR_QUANT8_ASYMM, 200, 0, 200); }
TEST(NpuPadV2, Quant8Signed) { pad_v2_case(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, -5, 0, -5); }

// ARGMAX/ARGMIN on the vector unit. Rows [1, 5, 5] and [-1, -7, 0] (quant8 raw values: those + 10 unsigned,
// as is signed; the order is the same): along axis 1 the max is at 1 (first of the 5s) and 2, the min
// at 0 and 1; along axis 0 the max row is 0 and the min row 1 in every column.
class NpuArgMinMax : public ::testing::TestWithParam<OperandType> {};

void arg_case(OperandType t, OperationType op, int32_t axis, std::vector<uint32_t> out_dims,
              const std::vector<double>& want) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t y = g.output(I32, std::move(out_dims));
  g.op(op, {x, g.i32(axis)}, {y});
  Tensor in = iota(t, {2, 3});
  const std::vector<double> v = {1, 5, 5, -1, -7, 0};
  for (size_t i = 0; i < v.size(); ++i)
    npu::models::write_element(t, in.data, i, v[i] + (t == OperandType::TENSOR_QUANT8_ASYMM ? 10 : 0));
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {want});
}

TEST_P(NpuArgMinMax, ArgMaxRows) { arg_case(GetParam(), OperationType::ARGMAX, 1, {2}, {1, 2}); }
TEST_P(NpuArgMinMax, ArgMinRows) { arg_case(GetParam(), OperationType::ARGMIN, -1, {2}, {0, 1}); }
TEST_P(NpuArgMinMax, ArgMaxColumns) { arg_case(GetParam(), OperationType::ARGMAX, 0, {3}, {0, 0, 0}); }
TEST_P(NpuArgMinMax, ArgMinColumns) { arg_case(GetParam(), OperationType::ARGMIN, 0, {3}, {1, 1, 1}); }

INSTANTIATE_TEST_SUITE_P(Types, NpuArgMinMax,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// Many chunks on 16 KiB of SRAM, a middle axis: NPU == CPU.
TEST(NpuArgMinMaxTiled, MiddleAxisMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {40, 37, 30}, 0.5f);
  const uint32_t y = g.output(I32, {40, 30});
  g.op(OperationType::ARGMAX, {x, g.i32(1)}, {y});
  Tensor in = iota(t, {40, 37, 30});
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// GATHER by the DMA engine's gather (hal/src/lower_gather.cpp), every type GATHER takes; inputs iota.
class NpuGather : public ::testing::TestWithParam<OperandType> {};

TEST_P(NpuGather, AxisZeroConstantIndices) {
  // [3, 2] = [[0, 1], [2, 3], [4, 5]], rows 2, 0, 2: [4, 5, 0, 1, 4, 5].
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {3, 2}, scale_of(t));
  const uint32_t y = g.output(t, {3, 2}, scale_of(t));
  g.op(OperationType::GATHER, {x, g.i32(0), g.ints(I32, {3}, {2, 0, 2})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {3, 2})}}), {y}, {{4, 5, 0, 1, 4, 5}});
}

TEST_P(NpuGather, MiddleAxisTwoDimensionalIndices) {
  // [2, 3, 2] of 0..11 along axis 1 by [[2], [0]] (output [2, 2, 1, 2]): slice 0 rows 2, 0 = [4, 5], [0, 1];
  // slice 1 (6 + those) = [10, 11], [6, 7].
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3, 2}, scale_of(t));
  const uint32_t y = g.output(t, {2, 2, 1, 2}, scale_of(t));
  g.op(OperationType::GATHER, {x, g.i32(1), g.ints(I32, {2, 1}, {2, 0})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3, 2})}}), {y}, {{4, 5, 0, 1, 10, 11, 6, 7}});
}

TEST_P(NpuGather, LastAxisRuntimeIndices) {
  // [2, 3] = [[0, 1, 2], [3, 4, 5]] along axis -1 by the runtime indices [2, 2, 0]: [2, 2, 0, 5, 5, 3].
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t ids = g.input(I32, {3});
  const uint32_t y = g.output(t, {2, 3}, scale_of(t));
  g.op(OperationType::GATHER, {x, g.i32(-1), ids}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3})}, {ids, int_tensor(I32, {3}, {2, 2, 0})}}), {y},
                {{2, 2, 0, 5, 5, 3}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuGather,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, I32,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// A runtime index outside the axis (3 of extent 3, or -1) fails the execution on both devices alike
// (GENERAL_FAILURE); the NPU's message names the gather. The model itself is on the NPU. (One system per
// test process: SystemC elaborates once.)
void gather_bad_index_case(int32_t bad) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, 0.5f);
  const uint32_t ids = g.input(I32, {2});
  const uint32_t y = g.output(t, {2, 2}, 0.5f);
  g.op(OperationType::GATHER, {x, g.i32(1), ids}, {y});
  const Outcome o = run_both(g.build(), {{x, iota(t, {2, 3})}, {ids, int_tensor(I32, {2}, {0, bad})}});
  EXPECT_EQ(o.placement, "npu");
  EXPECT_EQ(o.cpu.status.code, npu::hal::ErrorStatus::GENERAL_FAILURE) << o.cpu.status.message;
  EXPECT_EQ(o.npu.status.code, npu::hal::ErrorStatus::GENERAL_FAILURE) << o.npu.status.message;
  EXPECT_NE(o.npu.status.message.find("gather index out of range"), std::string::npos)
      << o.npu.status.message;
}
TEST(NpuGatherErrors, RuntimeIndexPastTheAxisFailsOnBothDevices) { gather_bad_index_case(3); }
TEST(NpuGatherErrors, RuntimeNegativeIndexFailsOnBothDevices) { gather_bad_index_case(-1); }

// A constant index out of range is refused when the model is prepared, by both devices.
TEST(NpuGatherErrors, ConstantIndexOutOfRangeIsRefusedAtPreparation) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3});
  const uint32_t y = g.output(t, {2, 1});
  g.op(OperationType::GATHER, {x, g.i32(1), g.ints(I32, {1}, {3})}, {y});
  const Model m = g.build();
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](npu::system::System& s) {
    const auto npu_prepared = s.npu_device().prepare_model(m);
    const auto cpu_prepared = s.cpu_device().prepare_model(m);
    EXPECT_FALSE(npu_prepared.status.ok());
    EXPECT_EQ(npu_prepared.status.code, cpu_prepared.status.code) << npu_prepared.status.message;
    EXPECT_NE(npu_prepared.status.message.find("out of range"), std::string::npos)
        << npu_prepared.status.message;
  });
  EXPECT_TRUE(end.ok()) << end.error();
}

// An axis that is not a constant leaves GATHER on the CPU, with the reason.
TEST(NpuGatherErrors, RuntimeAxisStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3});
  const uint32_t axis = g.input(OperandType::INT32, {});
  const uint32_t y = g.output(t, {2, 1});
  g.op(OperationType::GATHER, {x, axis, g.ints(I32, {1}, {2})}, {y});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}), "axis must be a constant");
}

// Many chunks on 16 KiB of SRAM over every channel, NPU == CPU: indices kept in SRAM for the job (50 of
// them, 40 slices) or loaded per chunk (1500 of them, 6000 bytes: more than a quarter of the SRAM).
void gather_tiled_case(uint32_t count) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {40, 37, 6});
  const uint32_t ids = g.input(I32, {count});
  const uint32_t y = g.output(t, {40, count, 6});
  g.op(OperationType::GATHER, {x, g.i32(1), ids}, {y});
  std::vector<int32_t> picks(count);
  for (uint32_t i = 0; i < count; ++i) picks[i] = static_cast<int32_t>((i * 2654435761u >> 7) % 37);
  expect_on_npu(run_both(g.build(), {{x, iota(t, {40, 37, 6})}, {ids, int_tensor(I32, {count}, picks)}},
                         {"npu.channel.sram.kib=16"}),
                {y}, {});
}
TEST(NpuGatherTiled, ResidentIndicesMatchCpu) { gather_tiled_case(50); }
TEST(NpuGatherTiled, PerChunkIndicesMatchCpu) { gather_tiled_case(1500); }

// TRANSPOSE as strided DMA (hal/src/lower_gather_rows.cpp), the types it takes; inputs iota.
class NpuTranspose : public ::testing::TestWithParam<OperandType> {};

TEST_P(NpuTranspose, Matrix) {
  // [[0, 1, 2], [3, 4, 5]] transposed: [[0, 3], [1, 4], [2, 5]].
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3}, scale_of(t));
  const uint32_t y = g.output(t, {3, 2}, scale_of(t));
  g.op(OperationType::TRANSPOSE, {x, g.ints(I32, {2}, {1, 0})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3})}}), {y}, {{0, 3, 1, 4, 2, 5}});
}

TEST_P(NpuTranspose, NhwcToNchw) {
  // [1, 2, 2, 3], element (h, w, c) = 6h + 3w + c, perm [0, 3, 1, 2]: channel c's plane is c, 3 + c, 6 + c,
  // 9 + c.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 3}, scale_of(t));
  const uint32_t y = g.output(t, {1, 3, 2, 2}, scale_of(t));
  g.op(OperationType::TRANSPOSE, {x, g.ints(I32, {4}, {0, 3, 1, 2})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 2, 2, 3})}}), {y},
                {{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}});
}

TEST_P(NpuTranspose, LastAxisStaysInPlace) {
  // [2, 3, 2], element (i, j, k) = 6i + 2j + k, perm [1, 0, 2]: output (j, i) holds the pair 6i + 2j + {0,
  // 1}.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3, 2}, scale_of(t));
  const uint32_t y = g.output(t, {3, 2, 2}, scale_of(t));
  g.op(OperationType::TRANSPOSE, {x, g.ints(I32, {3}, {1, 0, 2})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3, 2})}}), {y},
                {{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}});
}

TEST_P(NpuTranspose, OmittedPermutationReverses) {
  // [2, 3, 2] reversed to [2, 3, 2]: output (a, b, c) = input (c, b, a) = 6c + 2b + a.
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3, 2}, scale_of(t));
  const uint32_t y = g.output(t, {2, 3, 2}, scale_of(t));
  g.op(OperationType::TRANSPOSE, {x, g.omitted(I32)}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {2, 3, 2})}}), {y},
                {{0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuTranspose,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// A permutation that is not a constant leaves TRANSPOSE on the CPU, with the reason.
TEST(NpuTransposeErrors, RuntimePermutationStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 3});
  const uint32_t perm = g.input(I32, {2});
  const uint32_t y = g.output(t, {3, 2});
  g.op(OperationType::TRANSPOSE, {x, perm}, {y});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "permutation must be a constant");
}

// NHWC -> NCHW -> NHWC over many chunks on 16 KiB of SRAM: NPU == CPU, and the round trip is the input.
TEST(NpuTransposeTiled, RoundTripMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 30, 33, 12}, 0.5f);
  const uint32_t a = g.output(t, {2, 12, 30, 33}, 0.5f);
  g.op(OperationType::TRANSPOSE, {x, g.ints(I32, {4}, {0, 3, 1, 2})}, {a});
  const uint32_t b = g.output(t, {2, 30, 33, 12}, 0.5f);
  g.op(OperationType::TRANSPOSE, {a, g.ints(I32, {4}, {0, 2, 3, 1})}, {b});
  const Tensor in = iota(t, {2, 30, 33, 12});
  const Outcome o = run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"});
  expect_on_npu(o, {a, b}, {});
  EXPECT_EQ(o.npu.outputs.at(b).data, in.data);
}

// PRELU as the vector unit's ELTWISE PRELU (hal/src/lower_eltwise.cpp). Alpha per channel (constant, a
// trailing-dimension broadcast): [0.25, -1]; x = [-2, 3, -0.5, 0, -4, 1, 5, -1] gives x >= 0 ? x : alpha·x
// = [-0.5, 3, -0.125, 0, -1, 1, 5, 1].
TEST(NpuPrelu, FloatChannelAlpha) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 2});
  const uint32_t y = g.output(t, {1, 2, 2, 2});
  g.op(OperationType::PRELU, {x, g.floats({2}, {0.25f, -1})}, {y});
  expect_on_npu(
      run_both(g.build(),
               {{x, npu::hal::ops::test::float_tensor({1, 2, 2, 2}, {-2, 3, -0.5f, 0, -4, 1, 5, -1})}}),
      {y}, {{-0.5, 3, -0.125, 0, -1, 1, 5, 1}});
}

// Alpha a runtime tensor of the input's shape: [-1, -2, 3, -4] with [0.5, 2, 7, -0.25] = [-0.5, -4, 3, 1].
TEST(NpuPrelu, FloatRuntimeFullAlpha) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2});
  const uint32_t a = g.input(t, {2, 2});
  const uint32_t y = g.output(t, {2, 2});
  g.op(OperationType::PRELU, {x, a}, {y});
  using npu::hal::ops::test::float_tensor;
  expect_on_npu(run_both(g.build(), {{x, float_tensor({2, 2}, {-1, -2, 3, -4})},
                                     {a, float_tensor({2, 2}, {0.5f, 2, 7, -0.25f})}}),
                {y}, {{-0.5, -4, 3, 1}});
}

// Quant8: input scale 0.5 zp 128, alpha [132, 120] scale 0.25 zp 128 (reals 1, -2), output scale 1 zp 100.
// x = q - 128: x >= 0 -> 100 + x·0.5, else 100 + x·(alpha - 128)·0.125:
// [138, 128, 118, 0, 255, 1] -> [105, 100, 95 (-10·4/8), 228 (-128·-8/8), 164 (63.5 half away), 227].
// Signed: every quantised value and zero point 128 lower, so the output bytes are those - 128.
void prelu_quant8_case(OperandType t) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 3, 2}, 0.5f, 128 - shift);
  const uint32_t y = g.output(t, {1, 1, 3, 2}, 1.0f, 100 - shift);
  g.op(OperationType::PRELU, {x, g.ints(t, {2}, {132 - shift, 120 - shift}, 0.25f, 128 - shift)}, {y});
  std::vector<int32_t> in = {138, 128, 118, 0, 255, 1};
  std::vector<double> want = {105, 100, 95, 228, 164, 227};
  for (auto& v : in) v -= shift;
  for (auto& v : want) v -= shift;
  expect_on_npu(run_both(g.build(), {{x, int_tensor(t, {1, 1, 3, 2}, in, 0.5f, 128 - shift)}}), {y}, {want});
}
TEST(NpuPrelu, Quant8) { prelu_quant8_case(OperandType::TENSOR_QUANT8_ASYMM); }
TEST(NpuPrelu, Quant8Signed) { prelu_quant8_case(OperandType::TENSOR_QUANT8_ASYMM_SIGNED); }

// Alpha [2, 1] against [2, 2] is a valid broadcast but not a trailing-dimension one: PRELU stays a CPU
// stage with the reason, and the NPU device still returns the CPU's values: [-1, 2, -3, -4] with alpha
// rows 0.5 and 3 = [-0.5, 2, -9, -12].
TEST(NpuPrelu, LeadingAxisAlphaStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 2});
  const uint32_t y = g.output(t, {2, 2});
  g.op(OperationType::PRELU, {x, g.floats({2, 1}, {0.5f, 3})}, {y});
  const Model m = g.build();
  EXPECT_EQ(npu::hal::npu_unsupported_reason(m, 0, npu::hal::NpuTarget{}),
            "broadcast of [2,2] with [2,1] is not a trailing-dimension broadcast the NPU supports");
  const Outcome o = run_both(m, {{x, npu::hal::ops::test::float_tensor({2, 2}, {-1, 2, -3, -4})}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(npu::hal::ops::test::floats_of(o.npu.outputs.at(y)), (std::vector<float>{-0.5f, 2, -9, -12}));
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// Many chunks on 16 KiB of SRAM over every channel, per-channel alpha: NPU == CPU byte for byte.
TEST(NpuPreluTiled, Quant8ChannelAlphaMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 30, 30, 12}, 0.5f, 120);
  const uint32_t y = g.output(t, {2, 30, 30, 12}, 0.75f, 90);
  std::vector<int32_t> alpha(12);
  for (int32_t c = 0; c < 12; ++c) alpha[static_cast<size_t>(c)] = 20 * c + 5;
  g.op(OperationType::PRELU, {x, g.ints(t, {12}, alpha, 0.0625f, 100)}, {y});
  Tensor in = iota(t, {2, 30, 30, 12});
  in.zero_point = 120;
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- SELECT ----------------------------------------------------------------------------------------
// cond [1, 0, 1, 0, 0, 1] picks from a = 0..5 (iota) and b = 10..15: [0, 11, 2, 13, 14, 5]; every type
// the NPU copies (quant8 with one quantisation for all three operands).
class NpuSelectTypes : public ::testing::TestWithParam<OperandType> {};

TEST_P(NpuSelectTypes, PicksByCondition) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2, 3});
  const uint32_t a = g.input(t, {2, 3}, scale_of(t));
  const uint32_t b = g.input(t, {2, 3}, scale_of(t));
  const uint32_t y = g.output(t, {2, 3}, scale_of(t));
  g.op(OperationType::SELECT, {c, a, b}, {y});
  Tensor bt = iota(t, {2, 3});
  for (uint64_t i = 0; i < 6; ++i) npu::models::write_element(t, bt.data, i, static_cast<double>(10 + i));
  expect_on_npu(run_both(g.build(), {{c, int_tensor(OperandType::TENSOR_BOOL8, {2, 3}, {1, 0, 1, 0, 0, 1})},
                                     {a, iota(t, {2, 3})},
                                     {b, bt}}),
                {y}, {{0, 11, 2, 13, 14, 5}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuSelectTypes,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// INT32 values are copied, not passed through float: 2^24 + 1 and -(2^24 + 1) survive.
TEST(NpuSelect, Int32BitExact) {
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2});
  const uint32_t a = g.input(I32, {2});
  const uint32_t b = g.input(I32, {2});
  const uint32_t y = g.output(I32, {2});
  g.op(OperationType::SELECT, {c, a, b}, {y});
  expect_on_npu(run_both(g.build(), {{c, int_tensor(OperandType::TENSOR_BOOL8, {2}, {1, 0})},
                                     {a, int_tensor(I32, {2}, {16777217, 0})},
                                     {b, int_tensor(I32, {2}, {0, -16777217})}}),
                {y}, {{16777217, -16777217}});
}

// Inputs quantised unlike the output: the CPU requantises, so SELECT stays a CPU stage with the reason.
// a scale 0.5 zp 10: q 14 = 2.0; b scale 0.25 zp 0: q 12 = 3.0; output scale 1 zp 5: [7, 8].
TEST(NpuSelect, RequantisingStaysOnTheCpu) {
  const OperandType q = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {2});
  const uint32_t a = g.input(q, {2}, 0.5f, 10);
  const uint32_t b = g.input(q, {2}, 0.25f, 0);
  const uint32_t y = g.output(q, {2}, 1.0f, 5);
  g.op(OperationType::SELECT, {c, a, b}, {y});
  const Model m = g.build();
  EXPECT_EQ(npu::hal::npu_unsupported_reason(m, 0, npu::hal::NpuTarget{}),
            "quantised inputs with another scale or zero point than the output's (the CPU requantises)");
  const Outcome o = run_both(m, {{c, int_tensor(OperandType::TENSOR_BOOL8, {2}, {1, 0})},
                                 {a, int_tensor(q, {2}, {14, 0}, 0.5f, 10)},
                                 {b, int_tensor(q, {2}, {0, 12}, 0.25f, 0)}});
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_NE(o.placement.find("cpu"), std::string::npos) << o.placement;
  EXPECT_EQ(o.npu.outputs.at(y).data, (std::vector<uint8_t>{7, 8}));
  EXPECT_EQ(o.npu.outputs.at(y).data, o.cpu.outputs.at(y).data);
}

// Many chunks on 16 KiB of SRAM over every channel: NPU == CPU byte for byte.
TEST(NpuSelectTiled, Float32MatchesCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t c = g.input(OperandType::TENSOR_BOOL8, {3, 50, 70});
  const uint32_t a = g.input(t, {3, 50, 70});
  const uint32_t b = g.input(t, {3, 50, 70});
  const uint32_t y = g.output(t, {3, 50, 70});
  g.op(OperationType::SELECT, {c, a, b}, {y});
  Tensor ct = iota(OperandType::TENSOR_BOOL8, {3, 50, 70});
  for (size_t i = 0; i < ct.data.size(); ++i) ct.data[i] = static_cast<uint8_t>(((i * 2654435761u) >> 7) & 1);
  Tensor bt = iota(t, {3, 50, 70});
  for (uint64_t i = 0; i < bt.element_count(); ++i)
    npu::models::write_element(t, bt.data, i, -static_cast<double>(i));
  expect_on_npu(
      run_both(g.build(), {{c, ct}, {a, iota(t, {3, 50, 70})}, {b, bt}}, {"npu.channel.sram.kib=16"}), {y},
      {});
}

// ---- LOG_SOFTMAX -----------------------------------------------------------------------------------
// [1, 2, 3] along the last axis: log(e^-2 + e^-1 + 1) = 0.40760596, so [-2.40760596, -1.40760596,
// -0.40760596]; the second row [0, 0.5] with beta 2 (y = [0, 1]): log(e^-1 + 1) = 0.31326169, so
// [-1.31326169, -0.31326169] (rows of two: the second input, shape [2, 2], holds [0, 0.5, 1, 1.5] -> y
// [0, 1, 2, 3], each row [-1.31326169, -0.31326169]). NPU == CPU byte for byte; the CPU near the hand
// values (they are transcendental, so to 1e-6).
void expect_log_softmax(const std::vector<uint32_t>& dims, float beta, const std::vector<float>& x,
                        const std::vector<float>& want) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, dims);
  const uint32_t y = g.output(t, dims);
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {beta}, OperandType::FLOAT32), g.i32(-1)}, {y});
  const Outcome o = run_both(g.build(), {{in, npu::hal::ops::test::float_tensor(dims, x)}});
  expect_on_npu(o, {y}, {});
  const auto got = npu::hal::ops::test::floats_of(o.cpu.outputs.at(y));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

// One simulation per test process (ctest runs each test alone), so one case per test.
TEST(NpuLogSoftmax, Float) {
  expect_log_softmax({1, 3}, 1.0f, {1, 2, 3}, {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST(NpuLogSoftmax, FloatBeta) {
  expect_log_softmax({2, 2}, 2.0f, {0, 0.5f, 1, 1.5f},
                     {-1.31326169f, -0.31326169f, -1.31326169f, -0.31326169f});
}

// Along a leading axis LOG_SOFTMAX stays on the CPU with its reason.
TEST(NpuLogSoftmax, LeadingAxisStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, {2, 3});
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {1.0f}, OperandType::FLOAT32), g.i32(0)},
       {g.output(t, {2, 3})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "softmax along a non-innermost axis is not supported by the NPU");
}

TEST(NpuLogSoftmaxTiled, ManyRowsMatchCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t in = g.input(t, {64, 300});
  const uint32_t y = g.output(t, {64, 300});
  g.op(OperationType::LOG_SOFTMAX, {in, g.floats({}, {0.7f}, OperandType::FLOAT32), g.i32(1)}, {y});
  Tensor x = iota(t, {64, 300});
  for (uint64_t i = 0; i < x.element_count(); ++i)
    npu::models::write_element(t, x.data, i, static_cast<double>((i * 2654435761u) % 1000) / 37.0 - 13.0);
  expect_on_npu(run_both(g.build(), {{in, x}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- RESIZE_BILINEAR -------------------------------------------------------------------------------
// A [1, 2, 2, 1] image v(y, x) = 8y + 4x ([0, 4; 8, 12]) resized. Along an axis the source of output v
// is s = v·scale (half-pixel: (v + 0.5)·scale − 0.5), taps floor and ceil clamped to the image, weight
// s − floor tap; with taps clamped to one row the blend gives that row. Effective positions:
//   4×4, scale 2/4:                  s = 0, 0.5, 1, 1.5 → [0, 0.5, 1, 1]
//   3×3, align corners (2−1)/(3−1):  s = 0, 0.5, 1      → [0, 0.5, 1]
//   4×4, half-pixel, scale 0.5:      s = −0.25, 0.25, 0.75, 1.25 → [0 (weights 1.25 and −0.25 on one
//                                    tap), 0.25, 0.75, 1]
// and each output is 8·ey + 4·ex.
uint32_t resize_op(GraphBuilder& g, uint32_t x, uint32_t y, uint32_t out_w, uint32_t out_h, bool align,
                   bool half) {
  g.op(OperationType::RESIZE_BILINEAR,
       {x, g.i32(static_cast<int32_t>(out_w)), g.i32(static_cast<int32_t>(out_h)), g.boolean(false),
        g.boolean(align), g.boolean(half)},
       {y});
  return y;
}

std::vector<double> grid(const std::vector<double>& e) {
  std::vector<double> v;
  for (double ey : e)
    for (double ex : e) v.push_back(8 * ey + 4 * ex);
  return v;
}

class NpuResizeBilinearTypes : public ::testing::TestWithParam<OperandType> {};

void expect_resize(OperandType t, uint32_t size, bool align, bool half, const std::vector<double>& e) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;  // signed: 128 lower
  const Tensor in =
      t == OperandType::TENSOR_FLOAT32
          ? npu::hal::ops::test::float_tensor({1, 2, 2, 1}, {0, 4, 8, 12})
          : int_tensor(t, {1, 2, 2, 1}, {0 - shift, 4 - shift, 8 - shift, 12 - shift}, scale_of(t));
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, scale_of(t));
  const uint32_t y = resize_op(g, x, g.output(t, {1, size, size, 1}, scale_of(t)), size, size, align, half);
  std::vector<double> want = grid(e);
  for (double& v : want) v -= shift;
  expect_on_npu(run_both(g.build(), {{x, in}}), {y}, {want});
}

TEST_P(NpuResizeBilinearTypes, Plain) { expect_resize(GetParam(), 4, false, false, {0, 0.5, 1, 1}); }
TEST_P(NpuResizeBilinearTypes, AlignCorners) { expect_resize(GetParam(), 3, true, false, {0, 0.5, 1}); }
TEST_P(NpuResizeBilinearTypes, HalfPixelCenters) {
  expect_resize(GetParam(), 4, false, true, {0, 0.25, 0.75, 1});
}

// Quantised blends truncate toward zero: [1, 4; 8, 13] to 4×4 gives 2.5 → 2, 4.5 → 4, 6.5 → 6, 8.5 → 8,
// 10.5 → 10 (signed: every value 128 lower).
void expect_quantised_truncation(OperandType t) {
  const int32_t shift = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, 0.5f);
  const uint32_t y = resize_op(g, x, g.output(t, {1, 4, 4, 1}, 0.5f), 4, 4, false, false);
  std::vector<double> want = {1, 2, 4, 4, 4, 6, 8, 8, 8, 10, 13, 13, 8, 10, 13, 13};
  for (double& v : want) v -= shift;
  expect_on_npu(
      run_both(g.build(),
               {{x, int_tensor(t, {1, 2, 2, 1}, {1 - shift, 4 - shift, 8 - shift, 13 - shift}, 0.5f)}}),
      {y}, {want});
}
TEST(NpuResizeBilinear, Quant8Truncates) { expect_quantised_truncation(OperandType::TENSOR_QUANT8_ASYMM); }
TEST(NpuResizeBilinear, Quant8SignedTruncates) {
  expect_quantised_truncation(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
}

INSTANTIATE_TEST_SUITE_P(Types, NpuResizeBilinearTypes,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// NCHW stays on the CPU with its reason.
TEST(NpuResizeBilinear, NchwStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 2, 2});
  g.op(OperationType::RESIZE_BILINEAR, {x, g.i32(4), g.i32(4), g.boolean(true)}, {g.output(t, {1, 1, 4, 4})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "NCHW layout is not supported by the NPU's RESIZE_BILINEAR");
}

// Bands over many chunks and channels on 16 KiB of SRAM: upsampling with half-pixel centres (quant8,
// two images, a chunk crossing from one image to the next) and downsampling with aligned corners
// (float). NPU == CPU byte for byte.
TEST(NpuResizeBilinearTiled, UpsampleHalfPixelQuant8MatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 33, 47, 8}, 0.5f, 3);
  const uint32_t y = resize_op(g, x, g.output(t, {2, 70, 50, 8}, 0.5f, 3), 50, 70, false, true);
  Tensor in = iota(t, {2, 33, 47, 8});
  in.zero_point = 3;
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

TEST(NpuResizeBilinearTiled, DownsampleAlignCornersFloatMatchesCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 64, 64, 6});
  const uint32_t y = resize_op(g, x, g.output(t, {1, 21, 30, 6}), 30, 21, true, false);
  Tensor in = iota(t, {1, 64, 64, 6});
  for (uint64_t i = 0; i < in.element_count(); ++i)
    npu::models::write_element(t, in.data, i, static_cast<double>((i * 2654435761u) % 2000) / 7.0 - 100.0);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- Element selections by index map (lower_gather_rows.cpp) and SQUEEZE (lower_copy.cpp) ---------
// Values 0, 1, 2, ... so the expected outputs are source positions, worked by hand from NNAPI's
// definitions; every type these operations take (no INT32 in NNAPI).
class NpuRearrange : public ::testing::TestWithParam<OperandType> {};

// DEPTH_TO_SPACE, block 2, [1, 1, 2, 8] → [1, 2, 4, 2]: out(y, x, c) = in(y/2, x/2, ((y%2)·2 + x%2)·2 + c),
// so row 0 reads pixel 0's depths 0-3 then pixel 1's (8-11), row 1 their depths 4-7 and 12-15.
TEST_P(NpuRearrange, DepthToSpace) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 1, 2, 8}, scale_of(t));
  const uint32_t y = g.output(t, {1, 2, 4, 2}, scale_of(t));
  g.op(OperationType::DEPTH_TO_SPACE, {x, g.i32(2)}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 1, 2, 8})}}), {y},
                {{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15}});
}

// SPACE_TO_DEPTH, block 2, [1, 2, 4, 2] → [1, 1, 2, 8]: out(0, x, (dy·2 + dx)·2 + c) = in(dy, 2x + dx, c).
TEST_P(NpuRearrange, SpaceToDepth) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 4, 2}, scale_of(t));
  const uint32_t y = g.output(t, {1, 1, 2, 8}, scale_of(t));
  g.op(OperationType::SPACE_TO_DEPTH, {x, g.i32(2)}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 2, 4, 2})}}), {y},
                {{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15}});
}

// BATCH_TO_SPACE_ND, block [2, 2], [4, 1, 2, 1] → [1, 2, 4, 1]: out(y, x) = in(batch (y%2)·2 + x%2, y/2,
// x/2).
TEST_P(NpuRearrange, BatchToSpace) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {4, 1, 2, 1}, scale_of(t));
  const uint32_t y = g.output(t, {1, 2, 4, 1}, scale_of(t));
  g.op(OperationType::BATCH_TO_SPACE_ND, {x, g.ints(I32, {2}, {2, 2})}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {4, 1, 2, 1})}}), {y}, {{0, 2, 1, 3, 4, 6, 5, 7}});
}

// STRIDED_SLICE of [3, 4] (0..11), begin [0, 3], end [3, 0], strides [2, -1]: rows 0 and 2, columns 3, 2, 1.
TEST_P(NpuRearrange, StridedSliceNegativeStride) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {3, 4}, scale_of(t));
  const uint32_t y = g.output(t, {2, 3}, scale_of(t));
  g.op(OperationType::STRIDED_SLICE,
       {x, g.ints(I32, {2}, {0, 3}), g.ints(I32, {2}, {3, 0}), g.ints(I32, {2}, {2, -1}), g.i32(0), g.i32(0),
        g.i32(0)},
       {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {3, 4})}}), {y}, {{3, 2, 1, 11, 10, 9}});
}

// SQUEEZE with the axes omitted drops every extent of 1: the bytes are unchanged.
TEST_P(NpuRearrange, Squeeze) {
  const OperandType t = GetParam();
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 3, 1, 2}, scale_of(t));
  const uint32_t y = g.output(t, {3, 2}, scale_of(t));
  g.op(OperationType::SQUEEZE, {x, g.omitted(I32)}, {y});
  expect_on_npu(run_both(g.build(), {{x, iota(t, {1, 3, 1, 2})}}), {y}, {{0, 1, 2, 3, 4, 5}});
}

INSTANTIATE_TEST_SUITE_P(Types, NpuRearrange,
                         ::testing::Values(OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                           OperandType::TENSOR_QUANT8_ASYMM,
                                           OperandType::TENSOR_QUANT8_ASYMM_SIGNED),
                         type_name);

// A runtime parameter keeps the index map from being built: the operation stays on the CPU, saying so.
TEST(NpuRearrangeCases, RuntimeBeginStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {3, 4});
  const uint32_t begin = g.input(I32, {2});
  g.op(OperationType::STRIDED_SLICE,
       {x, begin, g.ints(I32, {2}, {3, 4}), g.ints(I32, {2}, {1, 1}), g.i32(0), g.i32(0), g.i32(0)},
       {g.output(t, {3, 4})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "input 1 must be a constant");
}

// Over many chunks on 16 KiB of SRAM: DEPTH_TO_SPACE then SPACE_TO_DEPTH gives the input back, and a
// strided slice of a large tensor equals the CPU's.
TEST(NpuRearrangeTiled, DepthToSpaceRoundTripMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {2, 20, 24, 16}, 0.5f);
  const uint32_t mid = g.temp(t, {2, 80, 96, 1}, 0.5f);
  const uint32_t y = g.output(t, {2, 20, 24, 16}, 0.5f);
  g.op(OperationType::DEPTH_TO_SPACE, {x, g.i32(4)}, {mid});
  g.op(OperationType::SPACE_TO_DEPTH, {mid, g.i32(4)}, {y});
  Tensor in = iota(t, {2, 20, 24, 16});
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  const Outcome o = run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"});
  expect_on_npu(o, {y}, {});
  EXPECT_EQ(o.npu.outputs.at(y).data, in.data);
}

TEST(NpuRearrangeTiled, StridedSliceMatchesCpu) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 64, 64, 24}, 0.5f);
  const uint32_t y = g.output(t, {1, 32, 21, 8}, 0.5f);
  g.op(OperationType::STRIDED_SLICE,
       {x, g.ints(I32, {4}, {0, 0, 1, 4}), g.ints(I32, {4}, {1, 64, 64, 12}), g.ints(I32, {4}, {1, 2, 3, 1}),
        g.i32(0), g.i32(0), g.i32(0)},
       {y});
  Tensor in = iota(t, {1, 64, 64, 24});
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<uint8_t>((i * 2654435761u) >> 11);
  expect_on_npu(run_both(g.build(), {{x, in}}, {"npu.channel.sram.kib=16"}), {y}, {});
}

// ---- TRANSPOSE_CONV_2D at stride 2 (lower_transpose_conv.cpp: one CONV_2D per output phase) ----------
// Input [1, 2; 3, 4], one 2 × 2 filter [1, 10; 100, 1000], no padding, stride 2: each input pixel
// spreads value·filter over its own 2 × 2 output block, so the 4 × 4 output is the blocks side by side.
TEST(NpuTransposeConvStrided, HandWorkedUpsampling) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1});
  const uint32_t y = g.output(t, {1, 4, 4, 1});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, g.floats({1, 2, 2, 1}, {1, 10, 100, 1000}), g.floats({1}, {0}), g.i32(0), g.i32(0), g.i32(0),
        g.i32(0), g.i32(2), g.i32(2), g.i32(0), g.boolean(false)},
       {y});
  expect_on_npu(run_both(g.build(), {{x, npu::hal::ops::test::float_tensor({1, 2, 2, 1}, {1, 2, 3, 4})}}),
                {y}, {{1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000}});
}

// A 1 × 1 filter at stride 2 reaches only every other output row and column (the rest are the bias): no
// phase convolution computes those, so the operation stays on the CPU with the reason.
TEST(NpuTransposeConvStrided, FilterSmallerThanStrideStaysOnTheCpu) {
  const OperandType t = OperandType::TENSOR_FLOAT32;
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, g.floats({1, 1, 1, 1}, {2}), g.floats({1}, {0}), g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(2),
        g.i32(2), g.i32(0), g.boolean(false)},
       {g.output(t, {1, 3, 3, 1})});
  EXPECT_EQ(npu::hal::npu_unsupported_reason(g.build(), 0, npu::hal::NpuTarget{}),
            "no filter tap reaches an output phase (a filter smaller than the stride) (output phase 0,1)");
}

}  // namespace
