// The simulated NPU alone, driven through its TLM sockets as bare-metal firmware would: timing of each
// block against its formula, and the engines overlapping under the hazard scoreboard.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

// Defaults: 1 GHz (1 ns cycles), DMA 32 B/cycle with 16 setup cycles, 4 decode cycles per descriptor,
// DRAM 100 ns latency and 25.6 GB/s (0.0390625 ns/B) arbitrated in 4096-byte quanta.
//   descriptor fetch: 100 + max(128 B / 25.6, 128 B / 32 B/cycle) = 100 + 5 = 105 ns, + 4 decode = 109
//   DMA of 8192 B:    16 setup + 100 latency + 2 quanta × max(160 port, 128 engine) ns = 436
// The command processor fetches one descriptor after the other and queues each for its engine:
//   DMA_IN  fetched 0..109, runs from 109; its first quantum holds the port 225..385.
//   DMA_OUT fetched 109..218, waits for DMA_IN (read after write on the SRAM range).
//   FENCE   fetched 218..327: its 128 B book the port at 385..390, so DMA_IN's second quantum runs
//           390..550 and DMA_IN ends at 109 + 436 + 5 = 550.
//   DMA_OUT 550 + 436 = 986; FENCE waits for it: CH_CYCLES = 986.
// (One at a time, without the pipeline, this was 3 × 109 + 2 × 436 = 1199.)
TEST(ChannelTiming, DmaRoundTripMatchesFormula) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  constexpr uint64_t kCmd = 0x1000, kSrc = 0x100000, kDst = 0x200000;
  constexpr uint32_t kBytes = 8192;
  const auto data = test::pattern(kBytes, 1);
  std::vector<uint8_t> back;
  uint32_t irq = 0, status = 0;
  uint64_t cycles = 0;
  sc_core::sc_spawn([&] {
    fw.write_mem(kSrc, data.data(), kBytes);
    irq = fw.run(1, kCmd, {test::dma_in(kSrc, 0, kBytes), test::dma_out(kDst, 0, kBytes), test::fence()});
    status = fw.ch_reg(1, regs::CH_STATUS);
    cycles = fw.cycles(1);
    back = fw.read_mem(kDst, kBytes);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_FALSE(fw.irq.read());
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq, regs::CH_IRQ_DONE);
  EXPECT_EQ(status, static_cast<uint32_t>(regs::ChannelState::DONE));
  EXPECT_EQ(cycles, 986u);
  EXPECT_EQ(back, data);
  EXPECT_EQ(*stats.find_counter("npu.ch1.dma.bytes_in"), kBytes);
}

// A DMA outside device memory stops the channel with DMA_FAULT, raises ERROR and names the descriptor.
TEST(ChannelTiming, DmaOutsideMemoryRaisesError) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint32_t status = 0, irq = 0, index = 0;
  sc_core::sc_spawn([&] {
    irq = fw.run(0, 0, {test::fence(), test::dma_in(npu.dram().size() - 16, 0, 64)});
    status = fw.ch_reg(0, regs::CH_STATUS);
    index = fw.ch_reg(0, regs::CH_ERROR_INDEX);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq, regs::CH_IRQ_ERROR);
  EXPECT_EQ(regs::CH_STATUS_STATE.get(status), static_cast<uint32_t>(regs::ChannelState::ERROR));
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::DMA_FAULT));
  EXPECT_EQ(index, 1u);
}

// Two 1×1 conv tiles double-buffered: weights block W, bands A0/A1 → outputs O0/O1 in separate SRAM buffers.
// Config: DRAM latency 0 and 1000 GB/s (the port never limits: 4096 B take 4.1 ns), no decode cycles, so
// a fetch is 128 B / 32 B/cycle = 4 cycles and a DMA of B bytes 16 + B/32 cycles.
//   W 1216 B (1024 weights, 64 bias, 128 quant): 54    A (8×8×64 B): 144    O (8×8×16 B): 48
//   CONV M = 64, K = 64, N = 16 on 16×16: 4 chunks of 64 cycles starting 2, 66, 130, 194, so
//        194 + 64 + 16 + 16 + 6 = 296 cycles.
// Pipelined, fetches of D0..D7 at 0, 4, …, 28:
//   dma_in:  W 4..58, A0 58..202, A1 202..346 (A1 needs nothing: its buffer is free)
//   compute: C0 (needs W, A0) 202..498, C1 (needs A1; the engine is busy) 498..794
//   dma_out: O0 (needs C0) 498..546, O1 (needs C1) 794..842; FENCE completes at 842.
// One at a time (a BARRIER after each descriptor; each BARRIER's and the FENCE's fetch hide under the
// descriptor before them): Σ(4 fetch + run) = 7·4 + (54 + 144 + 296 + 48 + 144 + 296 + 48) = 1058.
TEST(ChannelTiming, DoubleBufferedTilesOverlapAndMatchSequentialBytes) {
  stats::Registry stats;
  sim::Npu npu("npu",
               test::npu_config({"npu.dram.latency_ns=0", "npu.dram.bandwidth_gbps=1000",
                                 "npu.channel.descriptor_fetch_cycles=0"}),
               stats);
  Firmware fw("fw", npu);
  constexpr uint64_t kWeights = 0x100000, kInput = 0x200000, kOut0 = 0x300000, kOut1 = 0x310000;
  constexpr uint32_t kW = 0, kBias = 1024, kQuant = 1088, kA0 = 4096, kA1 = 8192, kO0 = 12288, kO1 = 13312;
  auto program = [&](uint64_t out, bool sequential) {
    std::vector<desc::Raw> body{
        test::dma_in(kWeights, kW, 1216),
        test::dma_in(kInput, kA0, 4096),
        test::conv1x1(kA0, 8, 8, 64, kW, 16, kBias, kQuant, kO0),
        test::dma_out(out, kO0, 1024),
        test::dma_in(kInput + 4096, kA1, 4096),
        test::conv1x1(kA1, 8, 8, 64, kW, 16, kBias, kQuant, kO1),
        test::dma_out(out + 1024, kO1, 1024),
    };
    std::vector<desc::Raw> cmds;
    for (const auto& d : body) {
      cmds.push_back(d);
      if (sequential) cmds.push_back(test::barrier());
    }
    if (sequential) cmds.pop_back();
    cmds.push_back(test::fence());
    return cmds;
  };
  uint64_t pipelined = 0, sequential = 0;
  std::vector<uint8_t> out_pipelined, out_sequential;
  sc_core::sc_spawn([&] {
    const auto w = test::weights_block(64, 16, 7);
    const auto a = test::pattern(8192, 8);
    fw.write_mem(kWeights, w.data(), w.size());
    fw.write_mem(kInput, a.data(), a.size());
    EXPECT_EQ(fw.run(0, 0x1000, program(kOut0, false)), regs::CH_IRQ_DONE);
    pipelined = fw.cycles(0);
    EXPECT_EQ(fw.run(1, 0x2000, program(kOut1, true)), regs::CH_IRQ_DONE);
    sequential = fw.cycles(1);
    out_pipelined = fw.read_mem(kOut0, 2048);
    out_sequential = fw.read_mem(kOut1, 2048);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(pipelined, 842u);
  EXPECT_EQ(sequential, 1058u);
  EXPECT_EQ(out_pipelined, out_sequential);
  EXPECT_NE(out_pipelined, std::vector<uint8_t>(2048, 0));
  // The engines' busy cycles add up to more than the elapsed time: they ran side by side.
  const uint64_t busy = *stats.find_counter("npu.ch0.dma_in.busy_cycles") +
                        *stats.find_counter("npu.ch0.compute.busy_cycles") +
                        *stats.find_counter("npu.ch0.dma_out.busy_cycles");
  EXPECT_EQ(busy, 1030u);
  EXPECT_GT(busy, pipelined);
}

}  // namespace

// Two channels streaming from DRAM at once each get about half of its bandwidth. Defaults: DRAM
// 25.6 GB/s (a 4096-byte quantum holds the port 160 ns), a DMA engine alone could take 32 B/cycle at
// 1 GHz = 32 GB/s, so the port is the bottleneck. 256 KiB = 64 quanta:
//   alone:    fetch 109 + setup 16 + latency 100 + 64 × 160 = 10465 cycles; DMA rate 262144 B / 10240 ns
//             = 25.6 GB/s.
//   together: the port serves the channels' quanta in turn, so each waits for the other's quantum:
//             64 × 320 = 20480 ns of streaming per channel → 12.8 GB/s each (half), the two summing to the
//             port's 25.6 GB/s. The doorbells ring 20 ns apart (one register write). Channel 0's quanta
//             hold the port at 225 + 320k .. +160, channel 1's (ready at 245) right after each, 385 + 320k:
//             channel 0 ends at 225 + 63 × 320 + 160 = 20545, channel 1 at 225 + 64 × 320 = 20705, i.e.
//             20685 cycles after its own doorbell.
TEST(ChannelTiming, TwoChannelsStreamingFromDramShareItsBandwidth) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  constexpr uint32_t kBytes = 256 * 1024;
  constexpr uint64_t kFetchAndSetup = 109 + 16 + 100;  // cycles before the first quantum
  uint64_t alone = 0, together[2] = {};
  sc_core::sc_spawn([&] {
    EXPECT_EQ(fw.run(2, 0x1000, {test::dma_in(0x100000, 0, kBytes)}), regs::CH_IRQ_DONE);
    alone = fw.cycles(2);
    fw.load(0, 0x2000, {test::dma_in(0x100000, 0, kBytes)});
    fw.load(1, 0x3000, {test::dma_in(0x200000, 0, kBytes)});
    fw.ring(0);
    fw.ring(1);
    EXPECT_EQ(fw.wait_channel(0), regs::CH_IRQ_DONE);
    EXPECT_EQ(fw.wait_channel(1), regs::CH_IRQ_DONE);
    together[0] = fw.cycles(0);
    together[1] = fw.cycles(1);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(alone, kFetchAndSetup + 64 * 160);
  // Streaming bandwidth in GB/s = bytes per ns (1 cycle = 1 ns).
  const double bw_alone = kBytes / static_cast<double>(alone - kFetchAndSetup);
  EXPECT_NEAR(bw_alone, 25.6, 0.01);
  for (int ch = 0; ch < 2; ++ch) {
    const double bw = kBytes / static_cast<double>(together[ch] - kFetchAndSetup);
    std::printf("channel %d alone %.2f GB/s, sharing %.2f GB/s (%llu cycles)\n", ch, bw_alone, bw,
                static_cast<unsigned long long>(together[ch]));
    EXPECT_NEAR(bw, 12.8, 12.8 * 0.02) << "channel " << ch << " should get about half the bandwidth";
  }
  EXPECT_EQ(together[0], 20545u);
  EXPECT_EQ(together[1], 20685u);
  EXPECT_EQ(*stats.find_counter("npu.dram.dma_bytes"), 3ull * kBytes + 3 * desc::kDescriptorBytes);
}
