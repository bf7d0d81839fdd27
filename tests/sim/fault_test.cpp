// Injected faults, as a driver must handle them: a hang (no progress, no interrupt until reset), a DMA
// error and an SRAM ECC error (ERROR with the code and CH_ERROR_INDEX; without ECC a silent bit flip),
// thermal runaway (the junction heats through the trips). Armed through CH_FAULT_INJECT, the Npu API or
// the config (npu.faults.*).
#include <gtest/gtest.h>

#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

// DMA_IN weights block, DMA_IN band, CONV, DMA_OUT, FENCE (indices 0..4).
std::vector<desc::Raw> tile_program() {
  return {test::dma_in(0x100000, 0, 1216), test::dma_in(0x200000, 4096, 4096),
          test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288), test::dma_out(0x300000, 12288, 1024),
          test::fence()};
}

uint32_t fault_word(regs::FaultKind kind, uint32_t index) {
  return regs::CH_FAULT_INJECT_KIND.put(static_cast<uint32_t>(kind)) | regs::CH_FAULT_INJECT_INDEX.put(index);
}

TEST(Faults, HangStopsTheChannelWithoutAnInterruptUntilReset) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint32_t status_hung = 0, progress_hung = 0, irq_hung = 99, after_reset = 99, next = 0;
  sc_core::sc_spawn([&] {
    fw.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(0));
    fw.set_ch_reg(0, regs::CH_FAULT_INJECT, fault_word(regs::FaultKind::HANG, 2));
    fw.load(0, 0x1000, tile_program());
    fw.ring(0);
    sc_core::wait(1, sc_core::SC_MS);  // the program takes about 1.5 µs
    status_hung = fw.ch_reg(0, regs::CH_STATUS);
    progress_hung = fw.ch_reg(0, regs::CH_PROGRESS);
    irq_hung = fw.read32(regs::IRQ_STATUS);
    fw.set_ch_reg(0, regs::CH_CTRL, regs::CH_CTRL_RESET);
    after_reset = fw.ch_reg(0, regs::CH_STATUS);
    next = fw.run(0, 0x1000, tile_program());  // the fault struck once: this run is clean
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(status_hung, static_cast<uint32_t>(regs::ChannelState::BUSY));
  EXPECT_EQ(progress_hung, 2u);
  EXPECT_EQ(irq_hung, 0u);
  EXPECT_EQ(after_reset, static_cast<uint32_t>(regs::ChannelState::IDLE));
  EXPECT_EQ(next, regs::CH_IRQ_DONE);
  EXPECT_EQ(*stats.find_counter("npu.ch0.faults_injected"), 1u);
}

// Armed at descriptor 2 through the API: the first DMA from there on is the DMA_OUT (index 3).
TEST(Faults, DmaErrorRaisesErrorWithTheDescriptorIndex) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
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
  EXPECT_EQ(regs::CH_STATUS_STATE.get(status), static_cast<uint32_t>(regs::ChannelState::ERROR));
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::DMA_FAULT));
  EXPECT_EQ(index, 3u);
  EXPECT_EQ(next, regs::CH_IRQ_DONE);
  EXPECT_FALSE(npu.inject_fault(7, regs::FaultKind::HANG, 0)) << "no channel 7";
}

// From the config at descriptor 1: the DMA_INs only write SRAM, the CONV (index 2) is the first reader.
TEST(Faults, SramEccFromTheConfigStrikesTheFirstSramReader) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.faults.kind=sram_ecc", "npu.faults.at_descriptor=1"}), stats);
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

// Without ECC (npu.channel.sram.ecc=false) the same upset goes unnoticed: armed through CH_FAULT_INJECT at
// descriptor 3 with bit[6:4] = 3, it strikes the DMA_OUT (the first SRAM reader from there), which
// copies the output tile with bit 3 of its first byte flipped and completes with DONE. The runs before
// and after (the fault strikes once) write the clean tile.
TEST(Faults, SramUpsetWithoutEccCorruptsOneBitSilently) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.channel.sram.ecc=false"}), stats);
  Firmware fw("fw", npu);
  uint32_t irq_clean = 0, irq_upset = 0, irq_after = 0, status_upset = 0;
  std::vector<uint8_t> clean, upset, after;
  sc_core::sc_spawn([&] {
    const std::vector<uint8_t> weights(1216, 3), band(4096, 5);
    fw.write_mem(0x100000, weights.data(), weights.size());
    fw.write_mem(0x200000, band.data(), band.size());
    irq_clean = fw.run(0, 0x1000, tile_program());
    clean = fw.read_mem(0x300000, 1024);
    fw.set_ch_reg(0, regs::CH_FAULT_INJECT,
                  fault_word(regs::FaultKind::SRAM_ECC, 3) | regs::CH_FAULT_INJECT_SRAM_BIT.put(3));
    irq_upset = fw.run(0, 0x1000, tile_program());
    status_upset = fw.ch_reg(0, regs::CH_STATUS);
    upset = fw.read_mem(0x300000, 1024);
    irq_after = fw.run(0, 0x1000, tile_program());
    after = fw.read_mem(0x300000, 1024);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(irq_clean, regs::CH_IRQ_DONE);
  EXPECT_EQ(irq_upset, regs::CH_IRQ_DONE);
  EXPECT_EQ(regs::CH_STATUS_STATE.get(status_upset), static_cast<uint32_t>(regs::ChannelState::DONE));
  ASSERT_EQ(upset.size(), clean.size());
  std::vector<uint8_t> expected = clean;
  expected[0] ^= 1u << 3;
  EXPECT_EQ(upset, expected);
  EXPECT_EQ(irq_after, regs::CH_IRQ_DONE);
  EXPECT_EQ(after, clean);
  EXPECT_EQ(*stats.find_counter("npu.ch0.faults_injected"), 1u);
}

// CH_FAULT_INJECT arms for the next command buffer only: one too short to reach the index disarms it.
TEST(Faults, RegisterArmedFaultLastsOneCommandBuffer) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint32_t first = 0, second = 0;
  sc_core::sc_spawn([&] {
    fw.set_ch_reg(0, regs::CH_FAULT_INJECT, fault_word(regs::FaultKind::DMA_ERROR, 10));
    first = fw.run(0, 0x1000, tile_program());
    second = fw.run(0, 0x1000, tile_program());
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(first, regs::CH_IRQ_DONE);
  EXPECT_EQ(second, regs::CH_IRQ_DONE);
  EXPECT_EQ(*stats.find_counter("npu.ch0.faults_injected"), 0u);
}

// npu.faults.kind = thermal_runaway at 1 ms with 30 W: the junction (4 K/W to the package) climbs through
// every trip point (65, 75, 85, 95 °C) within a second; THERM_TRIP_STATUS shows all four.
TEST(Faults, ThermalRunawayFromTheConfigHeatsThroughTheTrips) {
  stats::Registry stats;
  sim::Npu npu("npu",
               test::npu_config({"npu.faults.kind=thermal_runaway", "npu.faults.trigger=time",
                                 "npu.faults.at_time_us=1000", "npu.faults.thermal_runaway_w=30"}),
               stats);
  Firmware fw("fw", npu);
  uint32_t before = 99, after = 0, power_mw = 0;
  sc_core::sc_spawn([&] {
    sc_core::wait(999, sc_core::SC_US);
    before = fw.read32(regs::THERM_TRIP_STATUS);
    sc_core::wait(1, sc_core::SC_SEC);
    after = fw.read32(regs::THERM_TRIP_STATUS);
    power_mw = fw.read32(regs::PWR_POWER_MW);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(after, regs::THERM_TRIP_ASSERTED.mask());
  EXPECT_GE(power_mw, 30000u);
  EXPECT_DOUBLE_EQ(*stats.find_value("npu.thermal.injected_w"), 30.0);
}

}  // namespace
