// FULLY_CONNECTED with a batch of rows on the MAC array: the rows are laid side by side as one output
// row, so a tile keeps all of them (M = batch) and the SRAM limit shrinks the channel block instead.
#include "hal_test_util.h"
#include "npu/hal/device.h"

namespace npu::hal::test {
namespace {

TEST(HalFullyConnected, BatchRowsShareTilePassesAndMatchTheReference) {
  run_on_phone([](system::System& s) {
    models::ModelBuilder b(5);
    const uint32_t x = b.input(models::OperandType::TENSOR_QUANT8_ASYMM, {64, 2048}, {0.02f, 128});
    b.mark_output(b.fully_connected(x, 512, fx::FusedActivation::RELU, {0.01f, 120}, {0.05f, 100}));
    TestModel t;
    t.inputs = b.random_inputs();
    t.model = b.take();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu");
    auto r = p.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    expect_outputs_match(reference_outputs(s, t.model, t.inputs), r.outputs);
    // 512 output channels = 32 column blocks of the 16x16 array, 8 per NPU channel; each block is 128
    // K-chunks of 64 activation rows: 128 x 64 + pipeline = 8,230 cycles (sim/src/core/
    // systolic_timing.cpp), so at least 4 x 8 x 8,230 = 263,360 cycles of compute in all. Measured
    // 511,704 with DMA; 4,413,584 when the rows were one per output row and the SRAM split them into
    // bands of a few rows.
    EXPECT_GE(r.device_cycles, 263'360u);
    EXPECT_LT(r.device_cycles, 1'000'000u) << "batch rows are not sharing tile passes";
    std::printf("FC 64x2048 -> 512: %llu NPU cycles over %u command buffers\n",
                static_cast<unsigned long long>(r.device_cycles), r.command_buffers);
  });
}

}  // namespace
}  // namespace npu::hal::test
