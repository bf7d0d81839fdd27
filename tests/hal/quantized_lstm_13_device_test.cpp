// QUANTIZED_LSTM (NN HAL 1.3) through both devices of the simulated phone: the CPU device runs the
// reference kernel, the NPU device places the operation on its CPU stage; both give the hand-worked
// results of tests/hal_ops/quantized_lstm_13_test.cpp (cases A and B, worked there).
#include <gtest/gtest.h>

#include "../hal_ops/quantized_lstm_13_model.h"
#include "npu/system/system.h"

namespace {

using namespace npu::hal::ops::test;
constexpr auto S8 = npu::models::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto Q16 = npu::models::OperandType::TENSOR_QUANT16_SYMM;

TEST(QuantizedLstmDevices, CpuAndNpuGiveTheHandWorkedResults) {
  struct Case {
    QlstmSpec spec;
    std::vector<int32_t> x, h_prev, c_prev, cell, output;
  };
  const std::vector<Case> cases{
      {qlstm_basic_spec(), {61}, {21}, {2048}, {1577}, {66}},
      {qlstm_cifg_projection_spec(0.25f), {61}, {5}, {2048, -4096}, {1024, -930}, {37}}};
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](npu::system::System& s) {
    for (const Case& c : cases) {
      const QlstmSpec& sp = c.spec;
      const Qlstm m = qlstm_model(sp);
      const npu::hal::TensorMap in{
          {m.x, int_tensor(S8, {sp.batches, sp.input_size}, c.x, sp.x_scale, sp.x_zp)},
          {m.h_prev, int_tensor(S8, {sp.batches, sp.output_size}, c.h_prev, sp.state_scale, sp.state_zp)},
          {m.c_prev, int_tensor(Q16, {sp.batches, sp.units}, c.c_prev, sp.cell_scale, 0)}};
      for (bool npu : {false, true}) {
        npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
        auto p = dev.prepare_model(m.model);
        ASSERT_TRUE(p.status.ok()) << p.status.message;
        if (npu) {
          EXPECT_EQ(p.model->placement(), "npu + cpu (1 of 1 operations on the CPU)");
        }
        auto r = p.model->execute_synchronously(in, false);
        ASSERT_TRUE(r.status.ok()) << r.status.message;
        EXPECT_EQ(ints_of(r.outputs.at(m.cell_out)), c.cell) << npu;
        EXPECT_EQ(ints_of(r.outputs.at(m.state_out)), c.output) << npu;
        EXPECT_EQ(ints_of(r.outputs.at(m.output)), c.output) << npu;
      }
    }
  });
  ASSERT_TRUE(end.ok()) << end.error();
}

}  // namespace
