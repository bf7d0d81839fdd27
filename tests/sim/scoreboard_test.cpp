// The hazard scoreboard alone: which in-flight descriptors a new one must wait for.
#include "npu/sim/scoreboard.h"

#include <gtest/gtest.h>

#include "npu/sim/save_area.h"

namespace {

using namespace npu::sim;

Footprint sram(std::vector<SramRange> reads, std::vector<SramRange> writes) {
  Footprint f;
  f.sram.reads = std::move(reads);
  f.sram.writes = std::move(writes);
  return f;
}

TEST(Scoreboard, ReadAfterWriteWriteAfterReadAndWriteAfterWriteConflict) {
  Scoreboard sb;
  sb.issue(0, sram({}, {{0, 100}}));                                               // writes [0, 100)
  sb.issue(1, sram({{200, 50}}, {}));                                              // reads [200, 250)
  sb.issue(2, sram({}, {{400, 10}}));                                              // writes [400, 410)
  EXPECT_EQ(sb.dependencies(sram({{99, 1}}, {})), (std::vector<uint32_t>{0}));     // RAW on byte 99
  EXPECT_EQ(sb.dependencies(sram({}, {{249, 2}})), (std::vector<uint32_t>{1}));    // WAR on byte 249
  EXPECT_EQ(sb.dependencies(sram({}, {{405, 100}})), (std::vector<uint32_t>{2}));  // WAW
  EXPECT_TRUE(
      sb.dependencies(sram({{100, 100}, {250, 150}}, {{410, 5}})).empty());  // touching, not overlapping
  EXPECT_TRUE(sb.dependencies(sram({{200, 50}}, {})).empty());               // read after read
  EXPECT_EQ(sb.dependencies(sram({{0, 1000}}, {{0, 1000}})), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(Scoreboard, DeviceMemoryHazardsAreTrackedSeparately) {
  Scoreboard sb;
  Footprint out;  // a DMA_OUT: reads SRAM [0, 64), writes device [0x1000, 0x1040)
  out.sram.reads = {{0, 64}};
  out.dev_writes = {{0x1000, 64}};
  sb.issue(3, out);
  Footprint in;  // a DMA_IN of the same device bytes into another SRAM range
  in.dev_reads = {{0x1020, 16}};
  in.sram.writes = {{1024, 16}};
  EXPECT_EQ(sb.dependencies(in), (std::vector<uint32_t>{3}));
  in.dev_reads = {{0x0, 0x1000}};
  EXPECT_TRUE(sb.dependencies(in).empty());
  EXPECT_TRUE(sb.retire(3));
  EXPECT_FALSE(sb.in_flight(3));
  EXPECT_FALSE(sb.retire(3));
  EXPECT_TRUE(sb.empty());
}

TEST(SaveArea, HeaderRoundTripsAndRejectsCorruption) {
  SaveHeader h;
  h.resume_index = 17;
  h.flags = kSaveDeclared;
  h.sram_bytes = 65536;
  h.ranges = {{0, 128}, {4096, 1000}};
  auto bytes = encode_save_header(h);
  ASSERT_EQ(bytes.size(), npu::regs::kSaveAreaHeader);
  auto back = decode_save_header(bytes.data(), 65536);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->resume_index, 17u);
  EXPECT_EQ(back->saved_bytes(), 1128u);
  EXPECT_EQ(back->ranges.size(), 2u);
  EXPECT_FALSE(decode_save_header(bytes.data(), 32768));  // saved from another SRAM size
  bytes[0] ^= 1;
  EXPECT_FALSE(decode_save_header(bytes.data(), 65536));
}

TEST(SaveArea, CoalesceMergesOverlapsThenClosesSmallestGaps) {
  const auto merged = coalesce_ranges({{100, 50}, {0, 10}, {140, 20}, {10, 5}, {300, 0}}, 8);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].offset, 0u);
  EXPECT_EQ(merged[0].bytes, 15u);
  EXPECT_EQ(merged[1].offset, 100u);
  EXPECT_EQ(merged[1].bytes, 60u);
  // Three ranges into two: the 20-byte gap closes, the 100-byte one stays.
  const auto two = coalesce_ranges({{0, 10}, {30, 10}, {140, 10}}, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].bytes, 40u);
  EXPECT_EQ(two[1].offset, 140u);
}

}  // namespace
