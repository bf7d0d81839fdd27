// The HAL learns the NPU only from the driver's device-info query (the GET_PARAM of accel drivers): a
// driver that probes fake registers reporting another NPU — 2 channels of 8×8 arrays with 64 KiB of SRAM —
// gives an NpuDevice that compiles for that NPU; and on the simulated phone, --set
// npu.channel.sram.kib=64 reaches the compiler through the SRAM register the driver reads at probe.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>

#include "../support/fake_hw.h"
#include "hal_test_util.h"
#include "npu/drv/driver.h"
#include "npu/hal/compiler.h"
#include "npu/hal/device.h"
#include "npu/regmap/npu_regs.h"

namespace npu::hal {
namespace {

// Registers of an NPU other than any preset; no thread ever runs (nothing is prepared or executed).
npu::test::FakeHw other_npu() {
  npu::test::FakeHw hw;
  hw.regs_read = {{regs::NPU_ID, regs::kNpuIdValue},
                  {regs::NPU_CONFIG, regs::CONFIG_CHANNELS.put(2) | regs::CONFIG_ARRAY_ROWS.put(8) |
                                         regs::CONFIG_ARRAY_COLS.put(8)},
                  {regs::NPU_SRAM_KIB, 64},
                  {regs::NPU_CONFIG2, regs::CONFIG2_VECTOR_LANES.put(8) | regs::CONFIG2_SRAM_BANKS.put(4)},
                  {regs::NPU_CAPS, regs::CAPS_FUNCTIONAL}};
  return hw;
}

// The largest SRAM offset any DMA of `program` touches, and the most jobs (channels) of one operation.
struct Footprint {
  uint64_t sram_end = 0;
  size_t jobs = 0;
};
Footprint footprint(const Program& program) {
  Footprint f;
  for (const auto& stage : program.stages) {
    f.jobs = std::max(f.jobs, stage.jobs.size());
    for (const auto& job : stage.jobs)
      for (const desc::Raw& raw : job.commands) {
        const auto op = desc::opcode_of(raw);
        if (op != desc::Opcode::DMA_IN && op != desc::Opcode::DMA_OUT) continue;
        const auto d = desc::decode<desc::Dma>(raw);
        if (d.rows == 0) continue;
        f.sram_end = std::max<uint64_t>(
            f.sram_end, uint64_t{d.sram} + uint64_t{d.rows - 1} * d.sram_stride + d.row_bytes);
      }
  }
  return f;
}

TEST(DeviceInfo, NpuDeviceCompilesForTheNpuTheDriverProbed) {
  npu::test::FakeHw hw = other_npu();
  npu::test::FakeOs os;
  drv::PlatformData board;
  board.dram_gbps = 12.8;
  board.dma_bytes_per_cycle = 16;
  drv::Driver driver(drv::Hardware{hw, hw, hw}, os, {}, board);
  ASSERT_TRUE(driver.probe().ok());
  const drv::DeviceInfo& info = driver.device_info();
  EXPECT_EQ(info.channels, 2u);
  EXPECT_EQ(info.array_rows, 8u);
  EXPECT_EQ(info.array_cols, 8u);
  EXPECT_EQ(info.sram_bytes, 64u * 1024);
  EXPECT_EQ(info.vector_lanes, 8u);
  EXPECT_EQ(info.sram_banks, 4u);
  EXPECT_EQ(info.dram_bytes, 64u << 20);
  EXPECT_TRUE(info.functional);
  EXPECT_FALSE(info.save_restore);
  EXPECT_TRUE(info.opps.empty()) << "the fake has no DVFS block";

  NpuDevice device(driver, HostCost{}, 10100, 1);
  const NpuTarget& t = device.target();
  EXPECT_EQ(t.channels, 2u);
  EXPECT_EQ(t.array_rows, 8u);
  EXPECT_EQ(t.array_cols, 8u);
  EXPECT_EQ(t.sram_bytes, 64u * 1024);
  EXPECT_EQ(t.dram_gbps, 12.8);
  EXPECT_EQ(t.dma_bytes_per_cycle, 16u);
  EXPECT_EQ(t.clock_mhz, 1000.0) << "no DVFS block: the nominal clock";

  // Three 3×3 convolutions of 56×56×32: too big for one 64 KiB tile, so the plan must split them.
  const auto model = test::big_conv_quant8().model;
  auto here = compile_for_npu(model, t);
  ASSERT_TRUE(here.ok()) << here.error();
  NpuTarget preset;  // the phone-class preset: 4 channels of 16×16, 512 KiB
  preset.channels = 4;
  auto phone = compile_for_npu(model, preset);
  ASSERT_TRUE(phone.ok()) << phone.error();
  const Footprint f = footprint(*here), p = footprint(*phone);
  EXPECT_LE(f.sram_end, 64u * 1024) << "every DMA stays within this NPU's SRAM";
  EXPECT_GT(p.sram_end, 64u * 1024) << "the preset's plan would not fit it (the check can fail)";
  EXPECT_LE(f.jobs, 2u) << "an operation spreads over this NPU's 2 channels at most";
  EXPECT_EQ(p.jobs, 4u);
}

TEST(DeviceInfo, IsEmptyBeforeProbe) {
  npu::test::FakeHw hw = other_npu();
  npu::test::FakeOs os;
  drv::Driver driver(drv::Hardware{hw, hw, hw}, os);
  EXPECT_EQ(driver.device_info().channels, 0u);
  EXPECT_EQ(driver.device_info().sram_bytes, 0u);
}

// On the simulated phone, the SRAM size in the hardware config reaches the compiler only through the
// register the driver reads at probe.
TEST(DeviceInfo, SramSizeReachesTheCompilerThroughTheProbe) {
  uint64_t sram = 0, sram_end = 0;
  test::run_on_phone(
      [&](system::System& s) {
        NpuDevice& device = s.npu_device();
        EXPECT_EQ(device.target().sram_bytes, s.driver().device_info().sram_bytes);
        sram = device.target().sram_bytes;
        auto program = compile_for_npu(test::big_conv_quant8().model, device.target());
        ASSERT_TRUE(program.ok()) << program.error();
        sram_end = footprint(*program).sram_end;
      },
      {"npu.channel.sram.kib=64"});
  EXPECT_EQ(sram, 64u * 1024);
  EXPECT_GT(sram_end, 0u);
  EXPECT_LE(sram_end, 64u * 1024);
}

}  // namespace
}  // namespace npu::hal
