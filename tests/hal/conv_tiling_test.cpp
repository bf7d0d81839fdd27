// The compiler's tiling of CONV_2D / FULLY_CONNECTED (hal/src/conv_tiling.h): its cost model uses the
// compute core's cycle formula, every plan fits the SRAM and covers each output exactly once, and a
// preemption point declares live exactly the slots a later tile reads without reloading.
#include "conv_tiling.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "npu/sim/core/systolic_timing.h"
#include "shape_family.h"

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

// The spec of a shape of the sweep's family (bench/anchor/shape_family.h): VALID, FC rows as image rows.
ConvSpec family_spec(const anchor::LayerShape& l) {
  ConvSpec s{};
  const bool fc = l.kind == anchor::ShapeKind::FC;
  s.batch = 1;
  s.in_h = fc ? l.batch : l.in_h;
  s.in_w = fc ? 1 : l.in_w;
  s.in_c = l.channels;
  s.out_h = fc ? l.batch : l.out_h;
  s.out_w = fc ? 1 : l.out_w;
  s.out_c = l.filters;
  s.kh = s.kw = fc ? 1 : l.kernel;
  s.stride_h = s.stride_w = fc ? 1 : l.stride;
  s.dil_h = s.dil_w = 1;
  return s;
}

// choose_plan stops once its candidates' lower bound reaches the best prediction, so a bound above the
// model's own cycles hides cheaper plans. Every plan of a grid (band heights, channel blocks, both
// orders, single, double or resident rings) that fits must predict no fewer cycles than the choice, over
// a seeded sample of the sweep's shapes on one 32×32 channel with near-ideal DRAM (within 2 %, below). On
// main the bound counted a row-skipping 1×1's whole input (a stride-2 1×1 reads half its rows): the search
// ended at its first candidate, one band, 19,703 cycles for 95×95×83 → 11 where 17 bands take 12,601.
TEST(ConvTiling, ChoiceIsTheCheapestOfAGridOfPlans) {
  NpuTarget t;
  t.array_rows = t.array_cols = 32;
  t.channels = 1;
  t.dram_gbps = 10000;
  t.dram_latency_ns = 0;
  std::vector<anchor::LayerShape> shapes;
  anchor::LayerShape strided;  // conv1x1/2 95x95x83->11
  strided.in_h = strided.in_w = 95;
  strided.out_h = strided.out_w = 48;
  strided.channels = 83;
  strided.filters = 11;
  strided.stride = 2;
  shapes.push_back(strided);
  for (const auto& l : anchor::shape_family(49, 40, 56ull * 56 * 64, 3ull * 3 * 256 * 256))
    if (l.kind != anchor::ShapeKind::DEPTHWISE) shapes.push_back(l);
  size_t checked = 0;
  for (const auto& l : shapes) {
    const ConvSpec s = family_spec(l);
    if (!fits_reason(s, 1, t).empty()) continue;
    auto chosen = choose_plan(s, 1, t);
    ASSERT_TRUE(chosen.ok()) << l.name() << ": " << chosen.error();
    ASSERT_EQ(predict_cycles(s, 1, t, *chosen), chosen->predicted_cycles) << l.name();
    std::vector<uint32_t> bands, blocks;
    for (uint32_t rb = 1; rb < s.out_h; rb *= 2) bands.push_back(rb);
    bands.push_back(s.out_h);
    for (uint32_t ob = 32; ob < s.out_c; ob *= 2) blocks.push_back(ob);
    blocks.push_back(s.out_c);
    for (uint32_t rb : bands)
      for (uint32_t ob : blocks)
        for (LoopOrder order : {LoopOrder::BLOCK_OUTER, LoopOrder::BAND_OUTER}) {
          const auto nb = static_cast<uint32_t>((s.out_c + ob - 1) / ob);
          const auto nr = static_cast<uint32_t>((s.out_h + rb - 1) / rb);
          for (auto [w, i] : {std::pair{1u, 1u}, {2u, 2u}, {nb, 2u}, {2u, nr}, {nb, nr}}) {
            ConvPlan p;
            p.row_band = rb;
            p.cout_block = ob;
            p.order = order;
            p.w_slots = std::min(w, nb);
            p.in_slots = std::min(i, nr);
            p.out_slots = nb * nr > 1 ? 2 : 1;
            p.sram_bytes = ring_layout(s, 1, p).total;
            p.tiles = plan_tiles(s, p).size();
            if (p.sram_bytes > t.sram_bytes) continue;
            // The grid's power-of-two bands leave an uneven last band, which the search's even splits
            // do not try: it may save a few cycles (0.15 % on conv7x7/1 24x24x10->50), hence the 2 %.
            EXPECT_LE(chosen->predicted_cycles * 100, predict_cycles(s, 1, t, p) * 102)
                << l.name() << ": chose " << describe(s, *chosen) << " over " << describe(s, p);
          }
        }
    ++checked;
  }
  EXPECT_GE(checked, 25u);
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
