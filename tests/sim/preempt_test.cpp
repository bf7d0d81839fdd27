// Preemption and reset in hardware, through the registers: a channel stops at a descriptor boundary,
// saves its live SRAM by DMA, resumes from the save area byte-identically; a reset aborts at once.
#include <gtest/gtest.h>

#include <vector>

#include "npu/sim/npu.h"
#include "npu/sim/save_area.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

constexpr uint64_t kWeights = 0x100000, kInput = 0x200000, kOutput = 0x400000, kSave = 0x800000;
constexpr uint32_t kW = 0, kBias = 1024, kQuant = 1088, kBlock = 1216;  // 64×16 weights, bias, quant
constexpr uint32_t kBand = 4096, kOutBytes = 1024;                      // 8×8×64 in, 8×8×16 out
constexpr uint32_t kIn[2] = {4096, 8192}, kOut[2] = {12288, 13312};

desc::Raw preempt_point(uint32_t offset, uint32_t bytes) {
  desc::PreemptPoint p{};
  p.h = {desc::Opcode::PREEMPT_POINT, 0};
  p.offset[0] = offset;
  p.bytes[0] = bytes;
  return desc::encode(p);
}

// `tiles` 1×1 conv tiles as the compiler lowers them: a PREEMPT_POINT per tile (only the weights block
// live), the weights once, then per tile DMA_IN band → CONV → DMA_OUT, alternating two buffers when
// `double_buffer`.
std::vector<desc::Raw> conv_program(uint32_t tiles, bool double_buffer, bool points = true) {
  std::vector<desc::Raw> cmds;
  for (uint32_t t = 0; t < tiles; ++t) {
    if (points) cmds.push_back(preempt_point(kW, t == 0 ? 0 : kBlock));
    if (t == 0) cmds.push_back(test::dma_in(kWeights, kW, kBlock));
    const uint32_t b = double_buffer ? t % 2 : 0;
    cmds.push_back(test::dma_in(kInput + uint64_t{t} * kBand, kIn[b], kBand));
    cmds.push_back(test::conv1x1(kIn[b], 8, 8, 64, kW, 16, kBias, kQuant, kOut[b]));
    cmds.push_back(test::dma_out(kOutput + uint64_t{t} * kOutBytes, kOut[b], kOutBytes));
  }
  cmds.push_back(test::fence());
  return cmds;
}

void write_operands(Firmware& fw, uint32_t tiles) {
  const auto w = test::weights_block(64, 16, 3);
  const auto a = test::pattern(size_t{tiles} * kBand, 4);
  fw.write_mem(kWeights, w.data(), w.size());
  fw.write_mem(kInput, a.data(), a.size());
}

// Another context's work in between: fills the whole SRAM, so a resume that did not restore would fail.
void clobber_sram(Firmware& fw, uint32_t ch, uint32_t sram_bytes) {
  desc::Fill f{{desc::Opcode::FILL, 0}, 0, sram_bytes, 0xA5A55A5A};
  EXPECT_EQ(fw.run(ch, 0x7000, {desc::encode(f)}), regs::CH_IRQ_DONE);
}

// Runs the program on `ch` (already loaded), preempting `delay_ns` after every (re)start, restoring and
// resuming until DONE; returns the number of preemptions.
uint32_t run_preempting(Firmware& fw, uint32_t ch, uint64_t cmd, const std::vector<desc::Raw>& cmds,
                        uint64_t delay_ns, uint32_t sram_bytes) {
  fw.set_ch_reg(ch, regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(kSave));
  fw.set_ch_reg(ch, regs::CH_SAVE_BASE_HI, 0);
  fw.load(ch, cmd, cmds);
  fw.ring(ch);
  uint32_t preemptions = 0;
  for (;;) {
    if (preemptions > 200) {
      ADD_FAILURE() << "no forward progress after " << preemptions << " preemptions";
      return preemptions;
    }
    sc_core::wait(sc_core::sc_time(static_cast<double>(delay_ns), sc_core::SC_NS));
    fw.set_ch_reg(ch, regs::CH_CTRL, regs::CH_CTRL_PREEMPT);
    const uint32_t irq = fw.wait_channel(ch);
    if (irq == regs::CH_IRQ_DONE) return preemptions;
    EXPECT_EQ(irq, regs::CH_IRQ_PREEMPTED);
    if (irq != regs::CH_IRQ_PREEMPTED) return preemptions;
    ++preemptions;
    const uint32_t resume = fw.ch_reg(ch, regs::CH_PROGRESS);
    EXPECT_EQ(fw.ch_reg(ch, regs::CH_STATUS), static_cast<uint32_t>(regs::ChannelState::PREEMPTED));
    EXPECT_LE(fw.ch_reg(ch, regs::CH_SAVE_BYTES), sram_bytes);
    clobber_sram(fw, ch, sram_bytes);
    fw.load(ch, cmd, cmds);
    fw.set_ch_reg(ch, regs::CH_CMD_START, resume);
    fw.ring(ch, regs::CH_DOORBELL_START | regs::CH_DOORBELL_RESTORE);
  }
}

// Preempted at many different points (every 700 ns … 2.1 µs after each restart, while a 12-tile
// double-buffered program takes about 6 µs; a restart first spends up to ~500 ns restoring) and resumed
// from its save area after another context overwrote the SRAM, the program writes exactly the bytes of an
// uninterrupted run.
TEST(Preemption, ResumedCommandBuffersAreByteIdenticalToUninterruptedRuns) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.channels=2", "npu.channel.sram.kib=64"}), stats);
  Firmware fw("fw", npu);
  constexpr uint32_t kTiles = 12, kSram = 64 * 1024;
  const auto cmds = conv_program(kTiles, true);
  std::vector<uint8_t> reference;
  uint32_t total_preemptions = 0;
  uint64_t uninterrupted = 0;
  sc_core::sc_spawn([&] {
    write_operands(fw, kTiles);
    EXPECT_EQ(fw.run(0, 0x1000, cmds), regs::CH_IRQ_DONE);
    uninterrupted = fw.cycles(0);
    reference = fw.read_mem(kOutput, kTiles * kOutBytes);
    for (uint64_t delay = 700; delay <= 2100; delay += 175) {
      const std::vector<uint8_t> zeros(kTiles * kOutBytes, 0);
      fw.write_mem(kOutput, zeros.data(), zeros.size());
      total_preemptions += run_preempting(fw, 1, 0x3000, cmds, delay, kSram);
      EXPECT_EQ(fw.read_mem(kOutput, kTiles * kOutBytes), reference) << "preempting every " << delay << " ns";
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_GT(uninterrupted, 5000u);
  EXPECT_NE(reference, std::vector<uint8_t>(kTiles * kOutBytes, 0));
  EXPECT_GT(total_preemptions, 10u);
  EXPECT_EQ(*stats.find_counter("npu.ch1.preemptions"), total_preemptions);
  EXPECT_GT(*stats.find_counter("npu.ch1.restore.bytes"), 0u);
}

// Latency of a preempt request that lands during a CONV_INT8: the channel finishes the CONV (the only
// descriptor started: the next band's DMA_IN reuses the CONV's input buffer, so it waits), then saves.
// Defaults: 1 GHz, DMA 32 B/cycle + 16 setup, DRAM 100 ns + 25.6 GB/s.
//   CONV M = 64, K = 64, N = 16 on 16×16: 296 cycles (ChannelTiming shows the formula).
//   Live at the resume point (the tile's DMA_OUT): the PREEMPT_POINT's (empty) set plus what was written
//   since: weights block 1216 + band 4096 + output 1024 = 6336 B; save = 16 setup + 100 latency +
//   (256 + 6336) B / 25.6 B/ns (the port is slower than the engine's 32 B/ns) = 116 + 257.5 = 373.5 ns.
// So preempt → PREEMPTED ≤ one descriptor (296) + save (373.5) = 669.5 ns.
TEST(Preemption, LatencyIsAtMostOneDescriptorPlusTheSave) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  const auto cmds = conv_program(2, false);
  double latency_ns = 0;
  uint32_t resume = 0, saved = 0;
  sc_core::sc_spawn([&] {
    write_operands(fw, 2);
    fw.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(0));
    fw.set_ch_reg(0, regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(kSave));
    fw.load(0, 0x1000, cmds);
    fw.ring(0);
    // The CONV starts once its band is in: fetches of 109 ns each, weights at ~109..400, band ~400..700;
    // 800 ns is inside the CONV.
    sc_core::wait(800, sc_core::SC_NS);
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    fw.set_ch_reg(0, regs::CH_CTRL, regs::CH_CTRL_PREEMPT);
    while (!fw.irq.read()) sc_core::wait(fw.irq.posedge_event());
    latency_ns = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e9;
    EXPECT_EQ(fw.wait_channel(0), regs::CH_IRQ_PREEMPTED);
    resume = fw.ch_reg(0, regs::CH_PROGRESS);
    saved = fw.ch_reg(0, regs::CH_SAVE_BYTES);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  std::printf("preempt latency %.1f ns\n", latency_ns);
  EXPECT_EQ(resume, 4u) << "PREEMPT_POINT, weights, band and CONV done; resume at the DMA_OUT";
  EXPECT_EQ(saved, 6336u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.save.cycles"), 374u);  // 373.5 ns, rounded to whole cycles
  EXPECT_GT(latency_ns, 373.5);
  EXPECT_LE(latency_ns, 296 + 373.5);
}

// Without a PREEMPT_POINT the channel saves SRAM from 0 to the highest byte it wrote; the save area holds
// a valid header naming that range, then the bytes.
TEST(Preemption, WithoutPreemptPointTheHighWaterMarkIsSaved) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  std::vector<uint8_t> header;
  uint32_t saved = 0;
  sc_core::sc_spawn([&] {
    write_operands(fw, 2);
    fw.set_ch_reg(0, regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(kSave));
    fw.load(0, 0x1000, conv_program(2, false, false));
    fw.ring(0);
    sc_core::wait(700, sc_core::SC_NS);
    fw.set_ch_reg(0, regs::CH_CTRL, regs::CH_CTRL_PREEMPT);
    EXPECT_EQ(fw.wait_channel(0), regs::CH_IRQ_PREEMPTED);
    saved = fw.ch_reg(0, regs::CH_SAVE_BYTES);
    header = fw.read_mem(kSave, regs::kSaveAreaHeader);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  const auto h = sim::decode_save_header(header.data(), 512 * 1024);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->ranges.size(), 1u);
  EXPECT_EQ(h->ranges[0].offset, 0u);
  EXPECT_EQ(h->ranges[0].bytes, saved);
  EXPECT_EQ(h->flags & sim::kSaveDeclared, 0u);
  // Preempted after the band's DMA_IN at least: SRAM up to the end of the first input buffer was written.
  EXPECT_GE(saved, kIn[0] + kBand);
}

// A reset while busy aborts at once: IDLE, nothing pending, no interrupt ever raised for the aborted
// work, and the channel runs the next command buffer correctly.
TEST(Reset, ResetWhileBusyAbortsAndTheChannelAcceptsNewWork) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint32_t state_after_reset = 99, irq_after_wait = 99, irq2 = 0;
  bool line_after_wait = true;
  std::vector<uint8_t> out, reference;
  sc_core::sc_spawn([&] {
    write_operands(fw, 4);
    fw.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(0));
    fw.load(0, 0x1000, conv_program(4, true));
    fw.ring(0);
    sc_core::wait(900, sc_core::SC_NS);  // mid-CONV, with the next band loading
    fw.set_ch_reg(0, regs::CH_CTRL, regs::CH_CTRL_RESET);
    state_after_reset = fw.ch_reg(0, regs::CH_STATUS);
    // Well past when the aborted program would have finished (about 3 µs): nothing was raised.
    sc_core::wait(20, sc_core::SC_US);
    irq_after_wait = fw.ch_reg(0, regs::CH_IRQ_STATUS);
    line_after_wait = fw.irq.read();
    // The same program again, from scratch, completes with the right bytes.
    const std::vector<uint8_t> zeros(4 * kOutBytes, 0);
    fw.write_mem(kOutput, zeros.data(), zeros.size());
    irq2 = fw.run(0, 0x1000, conv_program(4, true));
    out = fw.read_mem(kOutput, 4 * kOutBytes);
    EXPECT_EQ(fw.run(1, 0x3000, conv_program(4, false)), regs::CH_IRQ_DONE);
    reference = fw.read_mem(kOutput, 4 * kOutBytes);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(state_after_reset, static_cast<uint32_t>(regs::ChannelState::IDLE));
  EXPECT_EQ(irq_after_wait, 0u);
  EXPECT_FALSE(line_after_wait);
  EXPECT_EQ(irq2, regs::CH_IRQ_DONE);
  EXPECT_EQ(out, reference);
  EXPECT_EQ(*stats.find_counter("npu.ch0.command_buffers"), 1u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.resets"), 1u);
}

// GLOBAL_CTRL resets every channel, busy or not.
TEST(Reset, GlobalResetAbortsEveryChannel) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.channels=2"}), stats);
  Firmware fw("fw", npu);
  uint32_t s0 = 99, s1 = 99, pending = 99;
  sc_core::sc_spawn([&] {
    write_operands(fw, 4);
    fw.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.put(0x3));
    fw.load(0, 0x1000, conv_program(4, true));
    fw.load(1, 0x3000, conv_program(4, true));
    fw.ring(0);
    fw.ring(1);
    sc_core::wait(600, sc_core::SC_NS);
    fw.write32(regs::GLOBAL_CTRL, regs::GLOBAL_CTRL_SOFT_RESET);
    s0 = fw.ch_reg(0, regs::CH_STATUS);
    s1 = fw.ch_reg(1, regs::CH_STATUS);
    sc_core::wait(20, sc_core::SC_US);
    pending = fw.read32(regs::IRQ_STATUS);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(s0, static_cast<uint32_t>(regs::ChannelState::IDLE));
  EXPECT_EQ(s1, static_cast<uint32_t>(regs::ChannelState::IDLE));
  EXPECT_EQ(pending, 0u);
}

// A doorbell with RESTORE whose save area holds no valid header fails cleanly with BAD_DESCRIPTOR.
TEST(Preemption, RestoreFromAnInvalidSaveAreaRaisesError) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint32_t irq = 0, status = 0;
  sc_core::sc_spawn([&] {
    fw.set_ch_reg(0, regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(kSave));
    fw.load(0, 0x1000, {test::fence()});
    fw.ring(0, regs::CH_DOORBELL_START | regs::CH_DOORBELL_RESTORE);
    irq = fw.wait_channel(0);
    status = fw.ch_reg(0, regs::CH_STATUS);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq, regs::CH_IRQ_ERROR);
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::BAD_DESCRIPTOR));
}

}  // namespace
