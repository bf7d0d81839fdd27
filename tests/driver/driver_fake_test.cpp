// The portable driver against fake hardware (no SystemC): probing, context isolation and command-buffer
// validation, checked through the register writes it makes.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "npu/drv/driver.h"
#include "npu/regmap/npu_regs.h"

namespace {

using namespace npu;

struct FakeHw : drv::RegisterBus, drv::DeviceMemoryBus, drv::InterruptLine {
  std::map<uint32_t, uint32_t> regs_read{
      {regs::NPU_ID, regs::kNpuIdValue},
      {regs::NPU_CONFIG,
       regs::CONFIG_CHANNELS.put(2) | regs::CONFIG_ARRAY_ROWS.put(16) | regs::CONFIG_ARRAY_COLS.put(16)}};
  std::vector<std::pair<uint32_t, uint32_t>> writes;
  std::vector<uint8_t> memory = std::vector<uint8_t>(64u << 20);
  std::function<void()> handler;

  uint32_t read32(uint32_t o) override { return regs_read.count(o) ? regs_read[o] : 0; }
  void write32(uint32_t o, uint32_t v) override { writes.emplace_back(o, v); }
  bool read(uint64_t a, void* d, uint64_t n) override {
    if (a + n > memory.size()) return false;
    std::memcpy(d, memory.data() + a, n);
    return true;
  }
  bool write(uint64_t a, const void* s, uint64_t n) override {
    if (a + n > memory.size()) return false;
    std::memcpy(memory.data() + a, s, n);
    return true;
  }
  uint64_t size() const override { return memory.size(); }
  void set_handler(std::function<void()> h) override { handler = std::move(h); }
  uint32_t last_write(uint32_t o) const {
    for (auto it = writes.rbegin(); it != writes.rend(); ++it)
      if (it->first == o) return it->second;
    throw std::runtime_error("register never written");
  }
};

struct FakeOs : drv::Os {
  struct Queue : drv::WaitQueue {
    void wait() override { throw std::logic_error("would sleep"); }
    bool wait_for(uint64_t) override { return false; }
    void wake_all() override {}
  };
  uint64_t now = 0;
  std::vector<std::string> spawned;
  uint64_t now_ns() const override { return now; }
  void delay_ns(uint64_t ns) override { now += ns; }
  std::unique_ptr<drv::WaitQueue> make_wait_queue() override { return std::make_unique<Queue>(); }
  void spawn(const std::string& name, std::function<void()>) override { spawned.push_back(name); }
};

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

TEST(QueueLevels, PriorityMapsToFourLevels) {
  EXPECT_EQ(drv::queue_level_for(0), drv::QueueLevel::REALTIME);
  EXPECT_EQ(drv::queue_level_for(250), drv::QueueLevel::HIGH);
  EXPECT_EQ(drv::queue_level_for(500), drv::QueueLevel::NORMAL);
  EXPECT_EQ(drv::queue_level_for(1000), drv::QueueLevel::LOW);
}

}  // namespace
