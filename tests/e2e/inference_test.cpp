// End to end through every layer in one simulation: model → HAL NpuDevice (compile, tile, pack) →
// driver (BOs, command buffer, doorbell, interrupt) → simulated NPU, compared with the HAL's CPU
// reference on the same inputs. Quantised results must match exactly; float within NNAPI's fp32
// tolerance |e − a| ≤ 1e-5 + 5·1.1920928955078125e-7·|e|.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/run_both.h"
#include "npu/models/builder.h"
#include "npu/system/system.h"

namespace {

using npu::fx::FusedActivation;
using npu::models::ModelBuilder;
using npu::models::OperandType;
using npu::models::QuantParams;

using npu::testing::Outcome;

Outcome run_both(ModelBuilder& b, const std::vector<std::string>& overrides = {}) {
  auto inputs = b.random_inputs();
  return npu::testing::run_both(b.take(), inputs, overrides);
}

void expect_match(const Outcome& o, bool exact) {
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_GT(o.npu.device_cycles, 0u);
  ASSERT_EQ(o.npu.outputs.size(), o.cpu.outputs.size());
  for (const auto& [idx, want] : o.cpu.outputs) {
    const auto& got = o.npu.outputs.at(idx);
    ASSERT_EQ(got.dimensions, want.dimensions);
    ASSERT_EQ(got.data.size(), want.data.size());
    if (exact) {
      EXPECT_EQ(got.data, want.data) << "operand " << idx;
      continue;
    }
    uint64_t bad = 0;
    for (uint64_t i = 0; i < want.element_count(); ++i) {
      const double e = npu::models::read_element(want.type, want.data, i);
      const double a = npu::models::read_element(got.type, got.data, i);
      if (std::fabs(e - a) > 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e)) ++bad;
    }
    EXPECT_EQ(bad, 0u) << "operand " << idx << ": elements outside fp32 tolerance";
  }
}

const QuantParams kIn{0.02f, 128}, kW{0.01f, 120}, kOut{0.1f, 128};

TEST(Inference, FullyConnectedQuant8MatchesReferenceExactly) {
  ModelBuilder b(11);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {3, 200}, kIn);
  b.mark_output(b.fully_connected(x, 70, FusedActivation::RELU, kW, kOut));
  expect_match(run_both(b), true);
}

TEST(Inference, FullyConnectedFloatWithinTolerance) {
  ModelBuilder b(12);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {5, 300});
  b.mark_output(b.fully_connected(x, 33, FusedActivation::NONE));
  expect_match(run_both(b), false);
}

TEST(Inference, ConvQuant8SameStride2MatchesExactly) {
  ModelBuilder b(13);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 17, 19, 8}, kIn);
  b.mark_output(b.conv_2d(x, 20, 3, 3, /*SAME*/ 1, 2, FusedActivation::RELU6, kW, kOut));
  expect_match(run_both(b), true);
}

TEST(Inference, ConvQuant8ValidStride1MatchesExactly) {
  ModelBuilder b(14);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {2, 12, 12, 5}, kIn);
  b.mark_output(b.conv_2d(x, 18, 5, 5, /*VALID*/ 2, 1, FusedActivation::NONE, kW, kOut));
  expect_match(run_both(b), true);
}

TEST(Inference, ConvFloatSameStride2WithinTolerance) {
  ModelBuilder b(15);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 16, 15, 6});
  b.mark_output(b.conv_2d(x, 10, 3, 3, 1, 2, FusedActivation::RELU));
  expect_match(run_both(b), false);
}

TEST(Inference, ConvFloatValidWithinTolerance) {
  ModelBuilder b(16);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 13, 13, 4});
  b.mark_output(b.conv_2d(x, 7, 3, 3, 2, 1, FusedActivation::NONE));
  expect_match(run_both(b), false);
}

// A layer too big for one SRAM load is tiled into row bands and channel blocks; results stay exact.
TEST(Inference, TiledConvQuant8MatchesExactlyWithSmallSram) {
  ModelBuilder b(17);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 40, 40, 32}, kIn);
  const uint32_t h = b.conv_2d(x, 48, 3, 3, 1, 1, FusedActivation::RELU, kW, {0.05f, 100});
  b.mark_output(b.conv_2d(h, 40, 3, 3, 1, 2, FusedActivation::NONE, kW, kOut));
  expect_match(run_both(b, {"npu.channel.sram.kib=16"}), true);
}

TEST(Inference, MultiLayerNetworkQuant8MatchesExactly) {
  ModelBuilder b(18);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 32, 32, 3}, kIn);
  uint32_t h = b.conv_2d(x, 16, 3, 3, 1, 2, FusedActivation::RELU, kW, {0.05f, 100});
  h = b.conv_2d(h, 32, 3, 3, 1, 2, FusedActivation::RELU, kW, {0.05f, 100});
  b.mark_output(b.fully_connected(h, 10, FusedActivation::NONE, kW, kOut));
  expect_match(run_both(b), true);
}

// Simulated time is the product's clock of truth: two identical runs give identical cycles.
TEST(Inference, DeterministicCycles) {
  ModelBuilder b1(19), b2(19);
  for (auto* b : {&b1, &b2}) {
    const uint32_t x = b->input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, kIn);
    b->mark_output(b->conv_2d(x, 16, 3, 3, 1, 1, FusedActivation::RELU, kW, kOut));
  }
  // One System per process: run the second model in the same simulation on a second prepared model.
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok());
  auto in1 = b1.random_inputs();
  auto in2 = b2.random_inputs();
  const auto m1 = b1.take(), m2 = b2.take();
  uint64_t c1 = 0, c2 = 0;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto& dev = s.npu_device();
    auto p1 = dev.prepare_model(m1);
    auto p2 = dev.prepare_model(m2);
    c1 = p1.model->execute_synchronously(in1, true).device_cycles;
    c2 = p2.model->execute_synchronously(in2, true).device_cycles;
  });
  ASSERT_TRUE(end.ok());
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(c1, c2);
}

}  // namespace

namespace {

// An operation the NPU has no lowering for (L2_NORMALIZATION; its quant8 output is scale 1/128, zero
// point 128 by NNAPI's rule) runs on the CPU between two NPU stages; the result still equals the
// reference bit for bit.
TEST(Inference, UnsupportedOperationRunsOnCpuBetweenNpuStages) {
  ModelBuilder b(21);
  const QuantParams mid{0.05f, 100};
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, kIn);
  const uint32_t h = b.conv_2d(x, 16, 3, 3, 1, 2, FusedActivation::NONE, kW, mid);
  const uint32_t r = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 8, 8, 16}, QuantParams{1.0f / 128, 128});
  b.operation(npu::models::OperationType::L2_NORMALIZATION, {h}, {r});
  b.mark_output(b.fully_connected(r, 10, FusedActivation::NONE, kW, kOut));
  const Outcome o = run_both(b);
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  EXPECT_EQ(o.placement, "npu + cpu (1 of 3 operations on the CPU)");
  // The 8×8×16 conv as 2 bands of 4 rows on 2 channels (the compiler's cost model: 4 bands of 2 rows
  // on 4 channels would pay the fixed per-tile costs twice for 16-row passes), the FC (one row, one
  // block) on 1.
  EXPECT_EQ(o.npu.command_buffers, 3u);
  for (const auto& [idx, want] : o.cpu.outputs) EXPECT_EQ(o.npu.outputs.at(idx).data, want.data);
}

}  // namespace
