// Fast mode (npu.timing.mode=fast) in the NPU model: a channel takes each descriptor fetch and each DMA in
// one wait and books whole transfers on the DRAM port. What must not change: injected faults strike the
// same descriptor with the same error, a hang waits for its reset, preemption saves and restores so the
// resumed program writes the bytes of an uninterrupted run. What may change, within bounds: the cycles.
#include <gtest/gtest.h>

#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

constexpr uint64_t kWeights = 0x100000, kInput = 0x200000, kOutput = 0x300000, kSave = 0x800000;

// DMA_IN weights block, DMA_IN band, CONV, DMA_OUT, FENCE (indices 0..4).
std::vector<desc::Raw> tile_program() {
  return {test::dma_in(kWeights, 0, 1216), test::dma_in(kInput, 4096, 4096),
          test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288), test::dma_out(kOutput, 12288, 1024),
          test::fence()};
}

// `tiles` copies of the tile's band → conv → out, each on its own input and output (a longer program to
// preempt).
std::vector<desc::Raw> long_program(uint32_t tiles) {
  std::vector<desc::Raw> cmds{test::dma_in(kWeights, 0, 1216)};
  for (uint32_t t = 0; t < tiles; ++t) {
    cmds.push_back(test::dma_in(kInput + uint64_t{t} * 4096, 4096, 4096));
    cmds.push_back(test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288));
    cmds.push_back(test::dma_out(kOutput + uint64_t{t} * 1024, 12288, 1024));
  }
  cmds.push_back(test::fence());
  return cmds;
}

void write_operands(Firmware& fw, uint32_t tiles) {
  const auto w = test::weights_block(64, 16, 3);
  const auto a = test::pattern(size_t{tiles} * 4096, 4);
  fw.write_mem(kWeights, w.data(), w.size());
  fw.write_mem(kInput, a.data(), a.size());
}

uint32_t fault_word(regs::FaultKind kind, uint32_t index) {
  return regs::CH_FAULT_INJECT_KIND.put(static_cast<uint32_t>(kind)) | regs::CH_FAULT_INJECT_INDEX.put(index);
}

const std::vector<std::string> kFast{"npu.timing.mode=fast"};

TEST(FastMode, DmaErrorStrikesTheSameDescriptor) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(kFast), stats);
  Firmware fw("fw", npu);
  uint32_t irq = 0, status = 0, index = 0, next = 0;
  sc_core::sc_spawn([&] {
    EXPECT_TRUE(npu.inject_fault(0, regs::FaultKind::DMA_ERROR, 2));
    irq = fw.run(0, 0x1000, tile_program());
    status = fw.ch_reg(0, regs::CH_STATUS);
    index = fw.ch_reg(0, regs::CH_ERROR_INDEX);
    next = fw.run(0, 0x1000, tile_program());
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq, regs::CH_IRQ_ERROR);
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::DMA_FAULT));
  EXPECT_EQ(index, 3u);  // the first DMA from descriptor 2 on: the DMA_OUT
  EXPECT_EQ(next, regs::CH_IRQ_DONE);
}

TEST(FastMode, SramEccFromTheConfigStrikesTheFirstSramReader) {
  stats::Registry stats;
  auto sets = kFast;
  sets.insert(sets.end(), {"npu.faults.kind=sram_ecc", "npu.faults.at_descriptor=1"});
  sim::Npu npu("npu", test::npu_config(sets), stats);
  Firmware fw("fw", npu);
  uint32_t irq = 0, status = 0, index = 0;
  sc_core::sc_spawn([&] {
    irq = fw.run(0, 0x1000, tile_program());
    status = fw.ch_reg(0, regs::CH_STATUS);
    index = fw.ch_reg(0, regs::CH_ERROR_INDEX);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq, regs::CH_IRQ_ERROR);
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::SRAM_ECC));
  EXPECT_EQ(index, 2u);
}

TEST(FastMode, HangWaitsForItsResetAndTheChannelRunsAgain) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(kFast), stats);
  Firmware fw("fw", npu);
  uint32_t status_hung = 0, progress_hung = 0, after_reset = 99, next = 0;
  sc_core::sc_spawn([&] {
    fw.set_ch_reg(0, regs::CH_FAULT_INJECT, fault_word(regs::FaultKind::HANG, 2));
    fw.load(0, 0x1000, tile_program());
    fw.ring(0);
    sc_core::wait(1, sc_core::SC_MS);
    status_hung = fw.ch_reg(0, regs::CH_STATUS);
    progress_hung = fw.ch_reg(0, regs::CH_PROGRESS);
    fw.set_ch_reg(0, regs::CH_CTRL, regs::CH_CTRL_RESET);
    after_reset = fw.ch_reg(0, regs::CH_STATUS);
    next = fw.run(0, 0x1000, tile_program());
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(status_hung, static_cast<uint32_t>(regs::ChannelState::BUSY));
  EXPECT_EQ(progress_hung, 2u);
  EXPECT_EQ(after_reset, static_cast<uint32_t>(regs::ChannelState::IDLE));
  EXPECT_EQ(next, regs::CH_IRQ_DONE);
}

// Preempted 900 ns after each (re)start (a restart first spends up to ~500 ns restoring), the SRAM
// overwritten in between, the program resumes from its save area until done and writes exactly the bytes of
// an uninterrupted run.
TEST(FastMode, PreemptedAndRestoredProgramWritesTheBytesOfAnUninterruptedRun) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(kFast), stats);
  Firmware fw("fw", npu);
  constexpr uint32_t kTiles = 8;
  const auto cmds = long_program(kTiles);
  std::vector<uint8_t> reference, resumed;
  uint32_t preemptions = 0;
  sc_core::sc_spawn([&] {
    write_operands(fw, kTiles);
    EXPECT_EQ(fw.run(0, 0x1000, cmds), regs::CH_IRQ_DONE);
    reference = fw.read_mem(kOutput, kTiles * 1024);
    const std::vector<uint8_t> zeros(kTiles * 1024, 0);
    fw.write_mem(kOutput, zeros.data(), zeros.size());
    fw.set_ch_reg(1, regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(kSave));
    fw.load(1, 0x3000, cmds);
    fw.ring(1);
    for (;;) {
      sc_core::wait(900, sc_core::SC_NS);
      fw.set_ch_reg(1, regs::CH_CTRL, regs::CH_CTRL_PREEMPT);
      const uint32_t irq = fw.wait_channel(1);
      if (irq == regs::CH_IRQ_DONE) break;
      ASSERT_EQ(irq, regs::CH_IRQ_PREEMPTED);
      ASSERT_LT(++preemptions, 200u) << "no forward progress";
      const uint32_t resume = fw.ch_reg(1, regs::CH_PROGRESS);
      desc::Fill f{{desc::Opcode::FILL, 0}, 0, 64 * 1024, 0xA5A55A5A};
      EXPECT_EQ(fw.run(1, 0x7000, {desc::encode(f)}), regs::CH_IRQ_DONE);
      fw.load(1, 0x3000, cmds);
      fw.set_ch_reg(1, regs::CH_CMD_START, resume);
      fw.ring(1, regs::CH_DOORBELL_START | regs::CH_DOORBELL_RESTORE);
    }
    resumed = fw.read_mem(kOutput, kTiles * 1024);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_GT(preemptions, 2u);
  EXPECT_NE(reference, std::vector<uint8_t>(kTiles * 1024, 0));
  EXPECT_EQ(resumed, reference);
  EXPECT_EQ(*stats.find_counter("npu.ch1.preemptions"), preemptions);
  EXPECT_GT(*stats.find_counter("npu.ch1.restore.bytes"), 0u);
}

// One channel alone: every transfer finds the port free, so booking a whole transfer costs what its
// arbitration quanta cost one by one; only the descriptor fetches, which exact mode slips in between a
// DMA's quanta and fast mode queues behind the whole transfer, move. The cycles stay within 2 %, and the
// work done (bytes, MACs, energy of the data) is the same.
TEST(FastMode, OneChannelAloneTakesTheCyclesOfExactModeWithinTwoPercent) {
  // Two NPUs side by side, one per mode (independent: each has its own DRAM port).
  stats::Registry exact_stats, fast_stats;
  sim::Npu exact("exact", test::npu_config(), exact_stats);
  sim::Npu fast("fast", test::npu_config(kFast), fast_stats);
  Firmware exact_fw("exact_fw", exact), fast_fw("fast_fw", fast);
  uint64_t cycles[2] = {0, 0};
  int done = 0;
  for (Firmware* fw : {&exact_fw, &fast_fw}) {
    sc_core::sc_spawn([&, fw] {
      write_operands(*fw, 16);
      EXPECT_EQ(fw->run(0, 0x1000, long_program(16)), regs::CH_IRQ_DONE);
      cycles[fw == &fast_fw] = fw->cycles(0);
      if (++done == 2) sc_core::sc_stop();
    });
  }
  sc_core::sc_start();
  EXPECT_GT(cycles[0], 5000u);
  EXPECT_NE(cycles[1], 0u);
  EXPECT_NEAR(static_cast<double>(cycles[1]), static_cast<double>(cycles[0]),
              0.02 * static_cast<double>(cycles[0]));
  EXPECT_EQ(*fast_stats.find_counter("fast.dram.dma_bytes"),
            *exact_stats.find_counter("exact.dram.dma_bytes"));
  EXPECT_EQ(*fast_stats.find_counter("fast.ch0.macs"), *exact_stats.find_counter("exact.ch0.macs"));
}

}  // namespace
