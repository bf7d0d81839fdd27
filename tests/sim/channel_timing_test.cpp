// The simulated NPU alone, driven through its TLM sockets as bare-metal firmware would: write a command
// buffer into device memory, program the channel registers, ring the doorbell, wait for the interrupt.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"

namespace {

using namespace npu;

struct Bench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Bench> mmio{"mmio"};
  tlm_utils::simple_initiator_socket<Bench> mem{"mem"};
  sc_core::sc_in<bool> irq{"irq"};
  explicit Bench(sc_core::sc_module_name n) : sc_module(n) {}

  void access(tlm_utils::simple_initiator_socket<Bench>& s, tlm::tlm_command cmd, uint64_t addr, void* data,
              unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    sc_core::sc_time delay;
    s->b_transport(gp, delay);
    ASSERT_TRUE(gp.is_response_ok());
    sc_core::wait(delay);
  }
  uint32_t read32(uint32_t off) {
    uint32_t v = 0;
    access(mmio, tlm::TLM_READ_COMMAND, off, &v, 4);
    return v;
  }
  void write32(uint32_t off, uint32_t v) { access(mmio, tlm::TLM_WRITE_COMMAND, off, &v, 4); }
};

sim::NpuConfig default_config() {
  sim::NpuConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  return cfg;
}

// Defaults: 1 GHz (1 ns cycles), DMA 32 B/cycle with 16 setup cycles, 4 decode cycles per descriptor,
// DRAM 100 ns latency and 25.6 GB/s (0.0390625 ns/B) arbitrated in 4096-byte quanta.
//   descriptor fetch: 100 + max(128 B / 25.6, 128 B / 32 B/cycle) = 100 + 5 = 105 ns, + 4 decode = 109
//   DMA of 8192 B:    16 setup + 100 latency + 2 quanta × max(160, 128) ns = 436
//   [DMA_IN, DMA_OUT, FENCE] = 3 × 109 + 2 × 436 = 1199 cycles
TEST(ChannelTiming, DmaRoundTripMatchesFormula) {
  stats::Registry stats;
  sim::Npu npu("npu", default_config(), stats);
  Bench bench("bench");
  bench.mmio.bind(npu.mmio);
  bench.mem.bind(npu.dram().host);
  bench.irq.bind(npu.irq);

  constexpr uint64_t kCmd = 0x1000, kSrc = 0x100000, kDst = 0x200000;
  constexpr uint32_t kBytes = 8192;
  uint32_t cycles = 0, status = 0;
  std::vector<uint8_t> pattern(kBytes), back(kBytes);
  for (uint32_t i = 0; i < kBytes; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);

  sc_core::sc_spawn([&] {
    bench.access(bench.mem, tlm::TLM_WRITE_COMMAND, kSrc, pattern.data(), kBytes);
    desc::Dma in{{desc::Opcode::DMA_IN, 0}, kSrc, 0, kBytes, 1, 0, 0};
    desc::Dma out{{desc::Opcode::DMA_OUT, 1}, kDst, 0, kBytes, 1, 0, 0};
    desc::Fence fence{{desc::Opcode::FENCE, 2}, 1};
    std::vector<desc::Raw> cmds{desc::encode(in), desc::encode(out), desc::encode(fence)};
    bench.access(bench.mem, tlm::TLM_WRITE_COMMAND, kCmd, cmds.data(), cmds.size() * desc::kDescriptorBytes);
    const uint32_t ch = regs::channel_base(1);
    bench.write32(regs::IRQ_MASK, 0xF);
    bench.write32(ch + regs::CH_CMD_BASE_LO, kCmd);
    bench.write32(ch + regs::CH_CMD_COUNT, 3);
    bench.write32(ch + regs::CH_DOORBELL, 1);
    sc_core::wait(bench.irq.posedge_event());
    EXPECT_EQ(bench.read32(regs::IRQ_STATUS), 1u << 1);
    EXPECT_EQ(bench.read32(ch + regs::CH_IRQ_STATUS), regs::CH_IRQ_DONE);
    bench.write32(ch + regs::CH_IRQ_STATUS, regs::CH_IRQ_DONE);
    status = bench.read32(ch + regs::CH_STATUS);
    cycles = bench.read32(ch + regs::CH_CYCLES_LO);
    bench.access(bench.mem, tlm::TLM_READ_COMMAND, kDst, back.data(), kBytes);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_FALSE(bench.irq.read());
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(status, static_cast<uint32_t>(regs::ChannelState::DONE));
  EXPECT_EQ(cycles, 1199u);
  EXPECT_EQ(back, pattern);
  EXPECT_EQ(*stats.find_counter("npu.ch1.dma.bytes_in"), kBytes);
}

// A DMA outside device memory stops the channel with DMA_FAULT and raises ERROR.
TEST(ChannelTiming, DmaOutsideMemoryRaisesError) {
  stats::Registry stats;
  sim::Npu npu("npu", default_config(), stats);
  Bench bench("bench");
  bench.mmio.bind(npu.mmio);
  bench.mem.bind(npu.dram().host);
  bench.irq.bind(npu.irq);
  uint32_t status = 0, irq_bits = 0;
  sc_core::sc_spawn([&] {
    desc::Dma bad{{desc::Opcode::DMA_IN, 0}, npu.dram().size() - 16, 0, 64, 1, 0, 0};
    auto raw = desc::encode(bad);
    bench.access(bench.mem, tlm::TLM_WRITE_COMMAND, 0, raw.bytes, sizeof raw.bytes);
    bench.write32(regs::IRQ_MASK, 1);
    bench.write32(regs::channel_base(0) + regs::CH_CMD_COUNT, 1);
    bench.write32(regs::channel_base(0) + regs::CH_DOORBELL, 1);
    sc_core::wait(bench.irq.posedge_event());
    irq_bits = bench.read32(regs::channel_base(0) + regs::CH_IRQ_STATUS);
    status = bench.read32(regs::channel_base(0) + regs::CH_STATUS);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq_bits, regs::CH_IRQ_ERROR);
  EXPECT_EQ(status & 0xF, static_cast<uint32_t>(regs::ChannelState::ERROR));
  EXPECT_EQ(status >> 8, static_cast<uint32_t>(regs::ChannelError::DMA_FAULT));
}

}  // namespace
