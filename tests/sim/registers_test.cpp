// The global registers a driver probes (configuration, capabilities, weight memory) and timing-only mode,
// globally (npu.functional = false) and per command buffer (the doorbell's TIMING_ONLY bit).
#include <gtest/gtest.h>

#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

TEST(Registers, ConfigurationCapabilitiesAndWeightMemory) {
  stats::Registry stats;
  sim::Npu npu("npu",
               test::npu_config({"npu.channels=3", "npu.channel.vector.lanes=128", "npu.channel.sram.banks=8",
                                 "npu.dram.size_mib=2048", "npu.weight_memory.mib=256"}),
               stats);
  Firmware fw("fw", npu);
  std::vector<uint32_t> v;
  sc_core::sc_spawn([&] {
    for (uint32_t r : {regs::NPU_CONFIG, regs::NPU_CONFIG2, regs::NPU_CAPS, regs::DRAM_MIB,
                       regs::WEIGHT_MEM_BASE_MIB, regs::WEIGHT_MEM_MIB, regs::DVFS_OPP_MHZ(0),
                       regs::DVFS_OPP_MV(3), regs::THERM_TRIP(2), regs::THERM_TEMP})
      v.push_back(fw.read32(r));
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[0], 3u | (16u << 8) | (16u << 16));
  EXPECT_EQ(v[1], 128u | (8u << 16) | (4u << 24));  // lanes, banks, DVFS points
  EXPECT_EQ(v[2], regs::CAPS_SAVE_RESTORE | regs::CAPS_FUNCTIONAL | regs::CAPS_FAULT_INJECT);
  EXPECT_EQ(v[3], 2048u);
  EXPECT_EQ(v[4], 2048u - 256u);  // the region sits at the top of device memory
  EXPECT_EQ(v[5], 256u);
  EXPECT_EQ(v[6], 1000u);
  EXPECT_EQ(v[7], 550u);
  EXPECT_EQ(v[8], 85000u);
  EXPECT_EQ(v[9], 25000u);  // ambient before the first sample
}

TEST(Registers, WeightMemoryMustLeaveRoomInDram) {
  stats::Registry stats;
  try {
    sim::Npu npu("npu", test::npu_config({"npu.dram.size_mib=512", "npu.weight_memory.mib=512"}), stats);
    ADD_FAILURE() << "built an NPU whose weight memory fills all of DRAM";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("npu.weight_memory.mib"), std::string::npos) << e.what();
  }
}

// The tile program of ChannelTiming (weights, band, 1×1 CONV, output) run functionally, then with the
// doorbell's TIMING_ONLY bit: same cycles, same energy, and the timing-only run writes no output byte.
TEST(TimingOnly, DoorbellBitTakesTheSameTimeAndEnergyButMovesNoData) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  const std::vector<desc::Raw> cmds{test::dma_in(0x100000, 0, 1216), test::dma_in(0x200000, 4096, 4096),
                                    test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288),
                                    test::dma_out(0x300000, 12288, 1024), test::fence()};
  uint64_t cyc[2] = {}, energy[2] = {};
  std::vector<uint8_t> out[2];
  sc_core::sc_spawn([&] {
    const auto w = test::weights_block(64, 16, 5);
    const auto a = test::pattern(4096, 6);
    fw.write_mem(0x100000, w.data(), w.size());
    fw.write_mem(0x200000, a.data(), a.size());
    for (int i = 0; i < 2; ++i) {
      const std::vector<uint8_t> zeros(1024, 0);
      fw.write_mem(0x300000, zeros.data(), zeros.size());
      const uint32_t bits = regs::CH_DOORBELL_START | (i ? regs::CH_DOORBELL_TIMING_ONLY : 0);
      EXPECT_EQ(fw.run(0, 0x1000, cmds, bits), regs::CH_IRQ_DONE);
      cyc[i] = fw.cycles(0);
      energy[i] = fw.read64(regs::channel_base(0) + regs::CH_ENERGY_LO);
      out[i] = fw.read_mem(0x300000, 1024);
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(cyc[0], cyc[1]);
  EXPECT_EQ(energy[0], energy[1]);
  EXPECT_NE(out[0], std::vector<uint8_t>(1024, 0));
  EXPECT_EQ(out[1], std::vector<uint8_t>(1024, 0));
}

// npu.functional = false: NPU_CAPS says so and no command buffer moves data.
TEST(TimingOnly, GlobalSwitchClearsTheCapabilityAndMovesNoData) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.functional=false"}), stats);
  Firmware fw("fw", npu);
  uint32_t caps = 0;
  std::vector<uint8_t> out;
  sc_core::sc_spawn([&] {
    caps = fw.read32(regs::NPU_CAPS);
    const auto a = test::pattern(4096, 6);
    fw.write_mem(0x200000, a.data(), a.size());
    EXPECT_EQ(fw.run(0, 0x1000, {test::dma_in(0x200000, 0, 4096), test::dma_out(0x300000, 0, 4096)}),
              regs::CH_IRQ_DONE);
    out = fw.read_mem(0x300000, 4096);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(caps & regs::CAPS_FUNCTIONAL, 0u);
  EXPECT_EQ(out, std::vector<uint8_t>(4096, 0));
  EXPECT_EQ(*stats.find_counter("npu.ch0.dma.bytes_out"), 4096u) << "the bytes are still counted as moved";
}

}  // namespace
