// e2e_npu_hal13_ops_test, data movements: DMA patterns, gathers, transposes, pads and rearrangements.
#include "npu_hal13_ops_util.h"

namespace {

using namespace npu_hal13_test;

class NpuDataMovement : public ::testing::TestWithParam<OperandType> {};

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

}  // namespace
