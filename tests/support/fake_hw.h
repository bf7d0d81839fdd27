// Fake hardware and kernel services for driver-level tests without SystemC: registers that read from a
// map and log every write, flat device memory, an interrupt line that keeps its handler, and an Os whose
// threads never run and whose time moves only by delay_ns.
#pragma once

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "npu/drv/hw.h"
#include "npu/regmap/npu_regs.h"

namespace npu::test {

// Defaults: an NPU of 2 channels of 16x16 arrays, nothing else set.
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

struct FakeOs : Os {
  struct Queue : WaitQueue {
    void wait() override { throw std::logic_error("would sleep"); }
    bool wait_for(uint64_t) override { return false; }
    void wake_all() override {}
  };
  uint64_t now = 0;
  std::vector<std::string> spawned;
  uint64_t now_ns() const override { return now; }
  void delay_ns(uint64_t ns) override { now += ns; }
  std::unique_ptr<WaitQueue> make_wait_queue() override { return std::make_unique<Queue>(); }
  void spawn(const std::string& name, std::function<void()>) override { spawned.push_back(name); }
};

}  // namespace npu::test
