// QUANTIZED_16BIT_LSTM through both devices of the simulated phone: the CPU device runs the reference
// kernel, the NPU device places the operation on its CPU stage; both give the hand-worked result of
// tests/hal_ops/quantized_lstm_test.cpp's GatesAtZeroAndSaturatedHandWorked (worked there).
#include <gtest/gtest.h>

#include <string>

#include "../hal_ops/test_models.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::hal::ops::test::int_tensor;
using npu::hal::ops::test::ints_of;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;

constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr float kAct = 1.0f / 128.0f;
constexpr float kState = 1.0f / 2048.0f;

struct Lstm {
  Model model;
  uint32_t x, c_prev, h_prev, c_out, h_out;
};

// Four units, one input; every weight at its zero point; biases (input, forget, cell, output gate per
// unit): (0, 0, B, 0), (0, 0, 0, 0), (0, 0, 0, 0), (B, B, B, B) with B saturating the gate.
Lstm lstm_model() {
  constexpr int32_t B = 1000000;
  GraphBuilder g;
  Lstm m{};
  m.x = g.input(Q8, {1, 1}, kAct, 128);
  std::vector<uint32_t> ins{m.x};
  for (int k = 0; k < 4; ++k) ins.push_back(g.ints(Q8, {4, 1}, {128, 128, 128, 128}, 1.0f / 32, 128));
  for (int k = 0; k < 4; ++k)
    ins.push_back(g.ints(Q8, {4, 4}, std::vector<int32_t>(16, 128), 1.0f / 32, 128));
  const std::vector<std::vector<int32_t>> bias{{0, 0, 0, B}, {0, 0, 0, B}, {B, 0, 0, B}, {0, 0, 0, B}};
  for (const auto& b : bias) ins.push_back(g.ints(OperandType::TENSOR_INT32, {4}, b, 1.0f / 4096, 0));
  m.c_prev = g.input(Q16, {1, 4}, kState, 0);
  m.h_prev = g.input(Q8, {1, 4}, kAct, 128);
  ins.push_back(m.c_prev);
  ins.push_back(m.h_prev);
  m.c_out = g.output(Q16, {1, 4}, kState, 0);
  m.h_out = g.output(Q8, {1, 4}, kAct, 128);
  g.op(OperationType::QUANTIZED_16BIT_LSTM, ins, {m.c_out, m.h_out});
  m.model = g.build();
  return m;
}

TEST(Quantized16BitLstmDevices, CpuAndNpuGiveTheHandWorkedResult) {
  const Lstm m = lstm_model();
  const npu::hal::TensorMap in{{m.x, int_tensor(Q8, {1, 1}, {200}, kAct, 128)},
                               {m.c_prev, int_tensor(Q16, {1, 4}, {2048, -1001, 1001, 32767}, kState, 0)},
                               {m.h_prev, int_tensor(Q8, {1, 4}, {10, 250, 128, 0}, kAct, 128)}};
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](npu::system::System& s) {
    for (bool npu : {false, true}) {
      npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
      auto p = dev.prepare_model(m.model);
      ASSERT_TRUE(p.status.ok()) << p.status.message;
      if (npu) {
        EXPECT_EQ(p.model->placement(), "npu + cpu (1 of 1 operations on the CPU)");
      }
      auto r = p.model->execute_synchronously(in, false);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(ints_of(r.outputs.at(m.c_out)), (std::vector<int32_t>{2048, -500, 501, 32767})) << npu;
      EXPECT_EQ(ints_of(r.outputs.at(m.h_out)), (std::vector<int32_t>{177, 113, 143, 255})) << npu;
    }
  });
  ASSERT_TRUE(end.ok()) << end.error();
}

}  // namespace
