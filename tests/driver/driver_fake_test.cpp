// The portable driver against fake hardware (no SystemC): probing, context isolation and command-buffer
// validation, checked through the register writes it makes.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "../support/fake_hw.h"
#include "npu/drv/driver.h"
#include "npu/regmap/npu_regs.h"

namespace {

using namespace npu;

using test::FakeHw;
using test::FakeOs;

// One job of one stage of one command buffer.
drv::JobRequest one_buffer(std::vector<desc::Raw> commands, const std::string& label) {
  drv::JobRequest r;
  r.stages = {{std::move(commands)}};
  r.label = label;
  return r;
}

struct DriverTest : ::testing::Test {
  FakeHw hw;
  FakeOs os;
  drv::Driver driver{drv::Hardware{hw, hw, hw}, os};
};

TEST_F(DriverTest, ProbeResetsEnablesInterruptsAndStartsBottomHalf) {
  ASSERT_TRUE(driver.probe().ok());
  EXPECT_EQ(driver.channel_count(), 2u);
  EXPECT_EQ(hw.last_write(regs::GLOBAL_CTRL), 1u);
  EXPECT_EQ(hw.last_write(regs::IRQ_MASK), 0x3u);
  EXPECT_EQ(os.spawned, (std::vector<std::string>{"npu_bottom_half", "npu_watchdog"}))
      << "no thermal thread without a DVFS block";
  EXPECT_TRUE(hw.handler != nullptr);
}

TEST_F(DriverTest, ProbeRejectsWrongId) {
  hw.regs_read[regs::NPU_ID] = 0x12345678;
  auto r = driver.probe();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not an npusim NPU"), std::string::npos);
}

TEST_F(DriverTest, BuffersAreConfinedToTheirContext) {
  ASSERT_TRUE(driver.probe().ok());
  auto a = driver.open_context(1000, 1);
  auto b = driver.open_context(2000, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  auto bo = driver.alloc_bo(*a, 4096);
  ASSERT_TRUE(bo.ok());
  uint32_t v = 0xAB;
  EXPECT_TRUE(driver.write_bo(*a, bo->handle, 0, &v, 4).ok());
  EXPECT_FALSE(driver.read_bo(*b, bo->handle, 0, &v, 4).ok());
  EXPECT_FALSE(driver.write_bo(*b, bo->handle, 0, &v, 4).ok());
  EXPECT_FALSE(driver.write_bo(*a, bo->handle, 4094, &v, 4).ok()) << "range past the end of the BO";
  EXPECT_FALSE(driver.free_bo(*b, bo->handle).ok());
}

TEST_F(DriverTest, SubmitRefusesDmaOutsideOwnBuffers) {
  ASSERT_TRUE(driver.probe().ok());
  auto a = driver.open_context(1000, 1);
  auto b = driver.open_context(2000, 2);
  auto theirs = driver.alloc_bo(*b, 4096);
  auto mine = driver.alloc_bo(*a, 4096);
  desc::Dma d{{desc::Opcode::DMA_IN, 0}, theirs->device_address, 0, 64, 1, 0, 0};
  auto r = driver.submit(*a, one_buffer({desc::encode(d)}, "steal"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("outside the context's buffers"), std::string::npos) << r.error();
  d.dev = mine->device_address + 4090;  // straddles the end of its own BO
  EXPECT_FALSE(driver.submit(*a, one_buffer({desc::encode(d)}, "straddle")).ok());
}

TEST_F(DriverTest, SubmitWritesCommandBufferAndRingsDoorbell) {
  ASSERT_TRUE(driver.probe().ok());
  auto ctx = driver.open_context(1000, 1);
  auto bo = driver.alloc_bo(*ctx, 4096);
  desc::Dma d{{desc::Opcode::DMA_IN, 7}, bo->device_address, 0, 64, 1, 0, 0};
  auto fence = driver.submit(
      *ctx, one_buffer({desc::encode(d), desc::encode(desc::Fence{{desc::Opcode::FENCE, 8}, 1})}, "job"));
  ASSERT_TRUE(fence.ok()) << fence.error();
  EXPECT_EQ((*fence)->status, drv::JobStatus::RUNNING);
  const uint32_t ch = regs::channel_base(0);  // the first free channel
  EXPECT_EQ(hw.last_write(ch + regs::CH_CMD_COUNT), 2u);
  EXPECT_EQ(hw.last_write(ch + regs::CH_DOORBELL), regs::CH_DOORBELL_START);
  EXPECT_EQ(hw.last_write(ch + regs::CH_CMD_START), 0u);
  const uint64_t cmd = hw.last_write(ch + regs::CH_CMD_BASE_LO);
  desc::Raw first;
  std::memcpy(first.bytes, hw.memory.data() + cmd, sizeof first.bytes);
  EXPECT_EQ(desc::decode<desc::Dma>(first).h.id, 7u);
}

TEST_F(DriverTest, UnknownOpcodeIsRefused) {
  ASSERT_TRUE(driver.probe().ok());
  auto ctx = driver.open_context(1000, 1);
  desc::Raw raw{};
  raw.bytes[0] = 0x77;
  auto r = driver.submit(*ctx, one_buffer({raw}, "junk"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("unknown opcode"), std::string::npos);
}

// A failed ioctl carries an errno code, so the HAL decides by it (a shortage that may pass, one that
// never will, no device) and not by the message's words. 64 MiB of fake memory, 16 MiB kept for command
// buffers: a 48 MiB general pool, no weight region.
TEST_F(DriverTest, FailedCallsCarryTheirErrnoCode) {
  auto early = driver.open_context(1000, 1);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error_code(), ENODEV) << early.error();
  ASSERT_TRUE(driver.probe().ok());
  auto ctx = driver.open_context(1000, 1);
  ASSERT_TRUE(ctx.ok());

  auto never = driver.alloc_bo(*ctx, 49ull << 20);
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.error_code(), ENOSPC) << never.error();
  EXPECT_NE(never.error().find(drv::kOutOfDeviceMemory), std::string::npos) << never.error();
  auto first = driver.alloc_bo(*ctx, 30ull << 20);
  ASSERT_TRUE(first.ok()) << first.error();
  auto not_now = driver.alloc_bo(*ctx, 30ull << 20);
  ASSERT_FALSE(not_now.ok());
  EXPECT_EQ(not_now.error_code(), ENOMEM) << not_now.error();
  ASSERT_TRUE(driver.free_bo(*ctx, first->handle).ok());
  EXPECT_TRUE(driver.alloc_bo(*ctx, 30ull << 20).ok()) << "the ENOMEM shortage passed once memory was freed";

  EXPECT_EQ(driver.alloc_bo(*ctx, 0).error_code(), EINVAL);
  EXPECT_EQ(driver.alloc_bo(*ctx + 99, 4096).error_code(), ENOENT);
  EXPECT_EQ(driver.free_bo(*ctx, 12345).error_code(), ENOENT);
  EXPECT_EQ(driver.cancel(*ctx, 777).error_code(), ENOENT);
  auto bad = one_buffer({desc::encode(desc::Fence{{desc::Opcode::FENCE, 1}, 1})}, "bad priority");
  bad.job_priority = 5000;
  auto refused = driver.submit(*ctx, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error_code(), EINVAL) << refused.error();
}

TEST(QueueLevels, PriorityMapsToFourLevels) {
  EXPECT_EQ(drv::queue_level_for(0), drv::QueueLevel::REALTIME);
  EXPECT_EQ(drv::queue_level_for(250), drv::QueueLevel::HIGH);
  EXPECT_EQ(drv::queue_level_for(500), drv::QueueLevel::NORMAL);
  EXPECT_EQ(drv::queue_level_for(1000), drv::QueueLevel::LOW);
}

}  // namespace
