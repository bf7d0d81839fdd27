// SLICE, SPLIT, TILE and EXPAND_DIMS lowered to DMA patterns on the NPU (hal/src/lower_gather_rows.cpp,
// lower_copy.cpp), through the whole stack (HAL NpuDevice -> driver -> simulated NPU) and on the CPU
// reference device, for every element type they take (TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32,
// TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED). The element values are 0, 1, 2, ... (exact in every
// type), so the expected outputs are the hand-listed source positions. Every case checks placement "npu"
// (no CPU stage), device cycles > 0, both devices against the hand values, and NPU == CPU byte for byte.
// Larger cases on a 16 KiB SRAM (many chunks over all channels) compare the NPU with the CPU device.
#include <gtest/gtest.h>

#include "../hal_ops/test_models.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
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

}  // namespace
