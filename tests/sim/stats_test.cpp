// The stats tree a run leaves behind: every statistic the issue lists is there, registered with a unit
// and a description, under the component's instance name, with values that follow from the work done.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

void leaves(const nlohmann::json& node, const std::string& path, std::vector<std::string>* out,
            std::vector<std::string>* undocumented) {
  if (node.contains("description") && node.contains("unit") && node.contains("value")) {
    out->push_back(path);
    if (node["description"].get<std::string>().empty()) undocumented->push_back(path);
    return;
  }
  for (const auto& [k, v] : node.items()) leaves(v, path.empty() ? k : path + "." + k, out, undocumented);
}

// The tile program of ChannelTiming on channel 0 (1216 + 4096 B in, a 64×64×16 1×1 conv = 65536 MACs,
// 1024 B out), then the end-of-run flush.
TEST(Stats, TreeHasEveryListedStatWithUnitAndDescription) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  sc_core::sc_spawn([&] {
    const auto w = test::weights_block(64, 16, 5);
    const auto a = test::pattern(4096, 6);
    fw.write_mem(0x100000, w.data(), w.size());
    fw.write_mem(0x200000, a.data(), a.size());
    EXPECT_EQ(fw.run(0, 0x1000,
                     {test::dma_in(0x100000, 0, 1216), test::dma_in(0x200000, 4096, 4096),
                      test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288),
                      test::dma_out(0x300000, 12288, 1024), test::fence()}),
              regs::CH_IRQ_DONE);
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));  // idle time after the work
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  npu.finish();

  std::vector<std::string> all, undocumented;
  leaves(stats.to_json(true), "", &all, &undocumented);
  EXPECT_EQ(undocumented, std::vector<std::string>{});
  auto has = [&](const std::string& p) { return std::find(all.begin(), all.end(), p) != all.end(); };
  for (const std::string ch : {"npu.ch0", "npu.ch3"}) {
    for (const std::string leaf : {"busy_cycles",
                                   "idle_cycles",
                                   "cmd.stall_cycles",
                                   "utilisation",
                                   "macs",
                                   "dma.bytes_in",
                                   "dma.bytes_out",
                                   "energy.dynamic",
                                   "energy.mac_int8",
                                   "energy.sram",
                                   "energy.dram",
                                   "compute.busy_cycles",
                                   "compute.stall_cycles",
                                   "compute.idle_cycles",
                                   "compute.utilisation",
                                   "dma_in.busy_cycles",
                                   "dma_in.stall_cycles",
                                   "dma_in.idle_cycles",
                                   "dma_out.busy_cycles",
                                   "dma_out.idle_cycles"})
      EXPECT_TRUE(has(ch + "." + leaf)) << ch << "." << leaf;
  }
  for (const std::string p :
       {"npu.dram.bandwidth_gbps", "npu.dram.dma_bytes", "npu.dram.utilisation", "npu.thermal.junction.min_c",
        "npu.thermal.junction.max_c", "npu.thermal.junction.mean_c", "npu.thermal.skin.mean_c",
        "npu.thermal.trips.light.time_above_s", "npu.thermal.trips.critical.time_above_s",
        "npu.power.energy.total", "npu.power.energy.leakage"})
    EXPECT_TRUE(has(p)) << p;

  // Values follow from the program (the cycle arithmetic is ChannelTiming's).
  EXPECT_EQ(*stats.find_counter("npu.ch0.macs"), 64u * 64u * 16u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.dma.bytes_in"), 1216u + 4096u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.dma.bytes_out"), 1024u);
  const double elapsed = static_cast<double>(npu.cycle());
  const uint64_t busy = *stats.find_counter("npu.ch0.busy_cycles");
  EXPECT_GT(busy, 0u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.idle_cycles") + busy, static_cast<uint64_t>(elapsed + 0.5));
  EXPECT_EQ(*stats.find_counter("npu.ch3.busy_cycles"), 0u);
  EXPECT_NEAR(*stats.find_value("npu.ch0.utilisation"),
              static_cast<double>(*stats.find_counter("npu.ch0.compute.busy_cycles")) / elapsed, 1e-12);
  EXPECT_GT(*stats.find_value("npu.ch0.energy.dynamic"), 0.0);
  EXPECT_EQ(*stats.find_value("npu.ch3.energy.dynamic"), 0.0);
  // DRAM bandwidth used: DMA + descriptor-fetch bytes over the elapsed time (B/ns = GB/s).
  const double dram_bytes = static_cast<double>(*stats.find_counter("npu.dram.dma_bytes"));
  EXPECT_EQ(dram_bytes, 1216 + 4096 + 1024 + 5 * 128);
  EXPECT_NEAR(*stats.find_value("npu.dram.bandwidth_gbps"), dram_bytes / (elapsed * 1.0), 1e-9);
  EXPECT_LE(*stats.find_value("npu.thermal.junction.min_c"),
            *stats.find_value("npu.thermal.junction.mean_c"));
  EXPECT_LE(*stats.find_value("npu.thermal.junction.mean_c"),
            *stats.find_value("npu.thermal.junction.max_c"));
  EXPECT_EQ(*stats.find_value("npu.thermal.trips.light.time_above_s"), 0.0) << "a short run stays cool";
}

}  // namespace
