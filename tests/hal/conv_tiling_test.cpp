// The compiler's tiling of CONV_2D / FULLY_CONNECTED (hal/src/conv_tiling.h): its cost model uses the
// compute core's cycle formula, every plan fits the SRAM and covers each output exactly once, and a
// preemption point declares live exactly the slots a later tile reads without reloading.
#include "conv_tiling.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "npu/sim/core/systolic_timing.h"

namespace npu::hal::tiling {
namespace {

TEST(ConvTiling, ArrayFormulaIsTheComputeCores) {
  for (uint32_t g : {8u, 16u, 32u})
    for (uint64_t m : {0, 1, 5, 25, 31, 32, 33, 100, 255, 256, 257, 600, 3136})
      for (uint64_t k : {0, 1, 7, 16, 32, 33, 64, 576, 4608})
        for (uint64_t n : {uint64_t{1}, uint64_t{g}, uint64_t{g} + 1, uint64_t{5} * g})
          ASSERT_EQ(int8_array_cycles(g, g, m, k, n),
                    (n + g - 1) / g *
                        sim::systolic_int8_tile_cycles({g, g}, static_cast<uint32_t>(m),
                                                       static_cast<uint32_t>(k), g))
              << g << "x" << g << " M " << m << " K " << k << " N " << n;
}

ConvSpec conv(uint32_t batch, uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t out_c, uint32_t kh,
              uint32_t stride, int32_t pad) {
  ConvSpec s{};
  s.batch = batch;
  s.in_h = in_h;
  s.in_w = in_w;
  s.in_c = in_c;
  s.kh = s.kw = kh;
  s.stride_h = s.stride_w = stride;
  s.dil_h = s.dil_w = 1;
  s.pad_top = s.pad_left = pad;
  s.out_h = (in_h + 2 * static_cast<uint32_t>(pad) - kh) / stride + 1;
  s.out_w = (in_w + 2 * static_cast<uint32_t>(pad) - kh) / stride + 1;
  s.out_c = out_c;
  return s;
}

TEST(ConvTiling, PlansFitTheSramAndCoverEveryOutputOnce) {
  NpuTarget phone;  // 4 channels of 16×16, 512 KiB
  phone.channels = 4;
  NpuTarget small = phone;
  small.sram_bytes = 64 * 1024;
  small.channels = 1;
  NpuTarget wide = phone;
  wide.array_rows = wide.array_cols = 32;
  wide.channels = 1;
  wide.dram_gbps = 10000;
  wide.dram_latency_ns = 0;
  const std::vector<std::pair<ConvSpec, NpuTarget>> cases = {
      {conv(1, 56, 56, 64, 64, 3, 1, 1), phone},   {conv(1, 40, 40, 32, 48, 3, 1, 1), small},
      {conv(2, 30, 30, 16, 40, 5, 2, 2), small},   {conv(1, 7, 7, 512, 512, 3, 1, 0), wide},
      {conv(1, 1, 1, 512, 1000, 1, 1, 0), phone},  {conv(1, 224, 224, 3, 64, 7, 2, 3), phone},
      {conv(1, 14, 14, 256, 512, 1, 1, 0), small},
  };
  for (const auto& [s, target] : cases) {
    const std::string what = std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + "x" +
                             std::to_string(s.in_c) + " -> " + std::to_string(s.out_c) + " on " +
                             std::to_string(target.sram_bytes) + " B";
    auto p = choose_plan(s, 1, target);
    ASSERT_TRUE(p.ok()) << what << ": " << p.error();
    EXPECT_LE(ring_layout(s, 1, *p).total, target.sram_bytes) << what;
    EXPECT_GT(p->predicted_cycles, 0u) << what;
    const auto tiles = plan_tiles(s, *p);
    EXPECT_EQ(tiles.size(), p->tiles) << what;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int> covered;  // (channel, image, row) → times
    for (const auto& t : tiles)
      for (uint32_t o = t.o0; o < t.o0 + t.ob; ++o)
        for (uint32_t y = t.oy0; y < t.oy0 + t.rb; ++y) ++covered[{o, t.n, y}];
    EXPECT_EQ(covered.size(), uint64_t{s.out_c} * s.batch * s.out_h) << what;
    for (const auto& [key, times] : covered) ASSERT_EQ(times, 1) << what;
    // Every job loads a weights block and an input band before its first CONV reads them, and a POINT's
    // live slots are exactly those read later without a reload in between.
    for (uint32_t j = 0; j < p->jobs; ++j) {
      size_t first, last;
      job_range(tiles.size(), p->jobs, j, &first, &last);
      const auto steps = job_steps(*p, tiles, first, last);
      std::vector<int64_t> w_holds(p->w_slots, -1), in_holds(p->in_slots, -1);
      for (size_t i = 0; i < steps.size(); ++i) {
        const Step& st = steps[i];
        const TileRef& t = tiles[st.tile];
        if (st.kind == StepKind::LOAD_W) w_holds[st.slot] = t.block;
        if (st.kind == StepKind::LOAD_IN) in_holds[st.slot] = t.band;
        if (st.kind == StepKind::CONV) {
          ASSERT_EQ(w_holds[st.w_slot], t.block) << what << " step " << i;
          ASSERT_EQ(in_holds[st.in_slot], t.band) << what << " step " << i;
        }
        if (st.kind != StepKind::POINT) continue;
        // Which slots does a later CONV read before the slot is loaded again?
        std::vector<bool> w_live(p->w_slots, false), in_live(p->in_slots, false), w_done(p->w_slots, false),
            in_done(p->in_slots, false);
        for (size_t k = i + 1; k < steps.size(); ++k) {
          const Step& later = steps[k];
          if (later.kind == StepKind::LOAD_W) w_done[later.slot] = true;
          if (later.kind == StepKind::LOAD_IN) in_done[later.slot] = true;
          if (later.kind != StepKind::CONV) continue;
          if (!w_done[later.w_slot]) w_live[later.w_slot] = true;
          if (!in_done[later.in_slot]) in_live[later.in_slot] = true;
        }
        for (uint32_t x = 0; x < p->w_slots; ++x)
          if (w_live[x]) {
            ASSERT_TRUE(int32_t(x) >= st.live_w_first && int32_t(x) <= st.live_w_last) << what;
          }
        for (uint32_t x = 0; x < p->in_slots; ++x)
          if (in_live[x]) {
            ASSERT_TRUE(int32_t(x) >= st.live_in_first && int32_t(x) <= st.live_in_last) << what;
          }
      }
    }
  }
}

TEST(ConvTiling, NothingFitsIsOneClearReason) {
  NpuTarget tiny;
  tiny.sram_bytes = 16 * 1024;
  const auto r = choose_plan(conv(1, 8, 8, 512, 64, 3, 1, 1), 1, tiny);  // one 16-channel block: 73 KiB
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("one output row of 16 channels needs"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("the channel has 16384"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace npu::hal::tiling
