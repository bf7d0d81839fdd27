// Banked SRAM: rows a DMA packs into one cycle that fall in the same bank serialise, and the channel
// charges the extra cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "npu/sim/npu.h"
#include "npu/sim/sram.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

// Brute force: every group of rows one port cycle takes, the busiest bank's access count.
uint64_t brute_force(const sim::Sram& s, uint64_t offset, uint32_t row_bytes, uint32_t rows, uint64_t stride,
                     uint32_t port) {
  const uint32_t per_cycle = port / row_bytes;
  if (per_cycle < 2) return 0;
  uint64_t extra = 0;
  for (uint32_t g0 = 0; g0 < rows; g0 += per_cycle) {
    std::vector<uint32_t> hits(s.banks(), 0);
    for (uint32_t r = g0; r < std::min(rows, g0 + per_cycle); ++r) {
      const uint64_t a = offset + r * stride;
      for (uint64_t b = a / s.bank_bytes(); b <= (a + row_bytes - 1) / s.bank_bytes(); ++b)
        ++hits[b % s.banks()];
    }
    extra += *std::max_element(hits.begin(), hits.end()) - 1;
  }
  return extra;
}

TEST(SramBanks, ClosedFormConflictCountMatchesBruteForce) {
  const sim::Sram s(1 << 20, 16, 16);
  for (uint32_t row_bytes : {1u, 4u, 8u, 12u, 16u, 20u, 33u}) {
    for (uint64_t stride : {16ull, 32ull, 48ull, 64ull, 100ull, 256ull, 272ull, 4096ull}) {
      for (uint32_t rows : {1u, 2u, 7u, 64u, 999u}) {
        for (uint64_t offset : {0ull, 8ull, 200ull}) {
          if (stride < row_bytes) continue;
          EXPECT_EQ(s.conflict_cycles(offset, row_bytes, rows, stride, 32),
                    brute_force(s, offset, row_bytes, rows, stride, 32))
              << row_bytes << " B rows, stride " << stride << ", " << rows << " rows at " << offset;
        }
      }
    }
  }
  // Rows of at least the port width stream over consecutive banks: never a conflict.
  EXPECT_EQ(s.conflict_cycles(0, 64, 100, 256, 32), 0u);
}

// 64 rows of 16 B into SRAM, 32 B per cycle (two rows per cycle), 16 banks of 16 B. DRAM latency 0 at
// 1000 GB/s so the engine's pace is the whole cost; a fetch is 128 B / 32 = 4 cycles + 4 decode = 8.
//   stride 256 = 16 banks × 16 B: every row starts in bank 0, each pair serialises: 32 extra cycles;
//      DMA = 16 setup + 1024 / 32 + 32 = 80 cycles, CH_CYCLES = 8 + 80 = 88.
//   stride 272: row r in bank r mod 16, no conflict: 16 + 32 = 48, CH_CYCLES = 56.
TEST(SramBanks, DmaRowsInOneBankCostConflictCycles) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.dram.latency_ns=0", "npu.dram.bandwidth_gbps=1000"}), stats);
  Firmware fw("fw", npu);
  uint64_t conflicting = 0, spread = 0;
  sc_core::sc_spawn([&] {
    auto strided = [](uint32_t stride) {
      return desc::encode(desc::Dma{{desc::Opcode::DMA_IN, 0}, 0x100000, 0, 16, 64, 16, stride});
    };
    EXPECT_EQ(fw.run(0, 0x1000, {strided(256)}), regs::CH_IRQ_DONE);
    conflicting = fw.cycles(0);
    EXPECT_EQ(fw.run(1, 0x2000, {strided(272)}), regs::CH_IRQ_DONE);
    spread = fw.cycles(1);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(conflicting, 88u);
  EXPECT_EQ(spread, 56u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.sram.bank_conflict_cycles"), 32u);
  EXPECT_EQ(*stats.find_counter("npu.ch1.sram.bank_conflict_cycles"), 0u);
}

}  // namespace
