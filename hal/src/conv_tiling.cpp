// Tile choice for CONV_2D / FULLY_CONNECTED by a cost model of the channel (see conv_tiling.h).
#include "conv_tiling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "lowering.h"

namespace npu::hal::tiling {
namespace {

using lower::align;
using lower::kSramAlign;

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Depth of the array's int32 accumulator in activation rows (a pass covers at most this many).
constexpr uint64_t kAccumulatorRows = 256;

// Cycles of one array-wide column block: the compute core's formula (sim/src/core/systolic_timing.cpp,
// which derives it from the RTL); tests/hal/conv_tiling_test.cpp checks the two agree.
uint64_t systolic_cycles(uint64_t rows, uint64_t cols, uint64_t m, uint64_t k) {
  if (m == 0) return 2;
  const uint64_t chunks = std::max<uint64_t>(1, div_up(k, rows));
  const uint64_t last_kc = k - (chunks - 1) * rows;
  uint64_t earliest = 2, free_p2 = 0, free_p1 = 0, start = 0, mb = 0;
  for (uint64_t base = 0; base < m; base += kAccumulatorRows) {
    mb = std::min<uint64_t>(kAccumulatorRows, m - base);
    // A pass takes max(mb, kc) cycles unless the weight bank it reuses is still draining (short blocks).
    for (uint64_t j = 0; j < chunks; ++j) {
      const uint64_t kc = j + 1 < chunks ? rows : last_kc;
      start = std::max(earliest, free_p2);
      earliest = start + std::max(mb, kc);
      free_p2 = free_p1;
      free_p1 = start + mb + cols - 1;
    }
  }
  return start + mb + rows + cols + 6;
}

}  // namespace

uint64_t int8_array_cycles(uint32_t rows, uint32_t cols, uint64_t m, uint64_t k, uint64_t n) {
  return div_up(n, cols) * systolic_cycles(rows, cols, m, k);
}

bool skips_rows(const ConvSpec& s) {
  return !s.nchw && s.kh == 1 && s.stride_h > 1 && s.pad_top == 0 &&
         uint64_t{s.out_h - 1} * s.stride_h < s.in_h;
}

BandRows band_rows(const ConvSpec& s, uint32_t oy0, uint32_t rb) {
  if (skips_rows(s)) return {int64_t{oy0} * s.stride_h, rb, s.stride_h, 0};
  // Rows outside the image are padding the CONV skips.
  const int64_t first = int64_t{oy0} * s.stride_h - s.pad_top;
  const int64_t last = int64_t{oy0 + rb - 1} * s.stride_h - s.pad_top + int64_t{s.kh - 1} * s.dil_h;
  const int64_t a = std::clamp<int64_t>(first, 0, s.in_h - 1);
  const int64_t b = std::max(a, std::clamp<int64_t>(last, 0, s.in_h - 1));
  return {a, static_cast<uint64_t>(b - a + 1), 1, static_cast<int32_t>(first - a)};
}

uint32_t input_rows_for(const ConvSpec& s, uint32_t band) {
  if (skips_rows(s)) return band;
  return static_cast<uint32_t>(std::min<uint64_t>(
      s.in_h, static_cast<uint64_t>(band - 1) * s.stride_h + uint64_t{s.kh - 1} * s.dil_h + 1));
}

SlotSizes slot_sizes(const ConvSpec& s, uint32_t elem, uint32_t row_band, uint32_t cout_block) {
  SlotSizes z{};
  const uint64_t k = uint64_t{s.kh} * s.kw * s.in_c;
  z.bias_at = align(k * cout_block * elem, kSramAlign);
  z.quant_at = align(z.bias_at + 4ull * cout_block, kSramAlign);
  z.w_load = elem == 1 ? z.quant_at + 8ull * cout_block : z.bias_at + 4ull * cout_block;
  z.w = align(z.w_load, kSramAlign);
  z.in = align(uint64_t{input_rows_for(s, row_band)} * s.in_w * s.in_c * elem, kSramAlign);
  z.out = align(uint64_t{row_band} * s.out_w * cout_block * elem, kSramAlign);
  return z;
}

RingLayout ring_layout(const ConvSpec& s, uint32_t elem, const ConvPlan& p) {
  RingLayout l{};
  l.size = slot_sizes(s, elem, p.row_band, p.cout_block);
  l.w0 = 0;
  l.in0 = l.w0 + p.w_slots * l.size.w;
  l.out0 = l.in0 + p.in_slots * l.size.in;
  l.total = l.out0 + p.out_slots * l.size.out;
  return l;
}

std::vector<TileRef> plan_tiles(const ConvSpec& s, const ConvPlan& p) {
  const uint32_t blocks = static_cast<uint32_t>(div_up(s.out_c, p.cout_block));
  // Bands of one image: [first row, rows).
  std::vector<std::pair<uint32_t, uint32_t>> bands;
  uint32_t y = 0;
  if (p.head_band > 0 && p.head_band < s.out_h) {
    bands.emplace_back(0, p.head_band);
    y = p.head_band;
  }
  for (; y < s.out_h; y += p.row_band) bands.emplace_back(y, std::min(p.row_band, s.out_h - y));
  const auto per_image = static_cast<uint32_t>(bands.size());
  std::vector<TileRef> tiles;
  tiles.reserve(uint64_t{blocks} * per_image * s.batch);
  auto add = [&](uint32_t j, uint32_t n, uint32_t b) {
    const uint32_t o0 = j * p.cout_block;
    tiles.push_back(
        {o0, std::min(p.cout_block, s.out_c - o0), n, bands[b].first, bands[b].second, j, n * per_image + b});
  };
  if (p.order == LoopOrder::BLOCK_OUTER) {
    for (uint32_t j = 0; j < blocks; ++j)
      for (uint32_t n = 0; n < s.batch; ++n)
        for (uint32_t b = 0; b < per_image; ++b) add(j, n, b);
  } else {
    for (uint32_t n = 0; n < s.batch; ++n)
      for (uint32_t b = 0; b < per_image; ++b)
        for (uint32_t j = 0; j < blocks; ++j) add(j, n, b);
  }
  return tiles;
}

void job_range(size_t tiles, uint32_t jobs, uint32_t j, size_t* first, size_t* last) {
  *first = tiles * j / jobs;
  *last = tiles * (j + 1) / jobs;
}

std::vector<Step> job_steps(const ConvPlan& p, const std::vector<TileRef>& tiles, size_t first, size_t last) {
  // Rings fill round-robin; a block (band) already in a slot is not loaded again.
  struct Use {
    uint32_t w_slot, in_slot;
    bool load_w, load_in;
  };
  std::vector<Use> uses;
  std::vector<int64_t> w_of(p.w_slots, -1), in_of(p.in_slots, -1);
  uint32_t next_w = 0, next_in = 0;
  for (size_t i = first; i < last; ++i) {
    Use u{};
    auto place = [](std::vector<int64_t>& ring, uint32_t& next, int64_t key, uint32_t* slot, bool* load) {
      const auto it = std::find(ring.begin(), ring.end(), key);
      if (it != ring.end()) {
        *slot = static_cast<uint32_t>(it - ring.begin());
        *load = false;
        return;
      }
      *slot = next;
      next = (next + 1) % static_cast<uint32_t>(ring.size());
      ring[*slot] = key;
      *load = true;
    };
    place(w_of, next_w, tiles[i].block, &u.w_slot, &u.load_w);
    place(in_of, next_in, tiles[i].band, &u.in_slot, &u.load_in);
    uses.push_back(u);
  }
  // Live slots at the point before each tile, backwards: a slot is live there when a tile from here on
  // reads it before loading it anew.
  struct Live {
    int32_t w_first, w_last, in_first, in_last;
  };
  std::vector<Live> live(uses.size());
  std::vector<bool> lw(p.w_slots, false), li(p.in_slots, false);
  auto hull = [](const std::vector<bool>& v, int32_t* lo, int32_t* hi) {
    *lo = 0;
    *hi = -1;
    for (size_t s = 0; s < v.size(); ++s)
      if (v[s]) {
        if (*hi < 0) *lo = static_cast<int32_t>(s);
        *hi = static_cast<int32_t>(s);
      }
  };
  for (size_t u = uses.size(); u-- > 0;) {
    lw[uses[u].w_slot] = !uses[u].load_w;
    li[uses[u].in_slot] = !uses[u].load_in;
    hull(lw, &live[u].w_first, &live[u].w_last);
    hull(li, &live[u].in_first, &live[u].in_last);
  }
  std::vector<Step> steps;
  steps.reserve(uses.size() * 5);
  for (size_t u = 0; u < uses.size(); ++u) {
    const auto t = static_cast<uint32_t>(first + u);
    Step pt{StepKind::POINT, t, 0};
    pt.live_w_first = live[u].w_first;
    pt.live_w_last = live[u].w_last;
    pt.live_in_first = live[u].in_first;
    pt.live_in_last = live[u].in_last;
    steps.push_back(pt);
    if (uses[u].load_w) steps.push_back({StepKind::LOAD_W, t, uses[u].w_slot});
    if (uses[u].load_in) steps.push_back({StepKind::LOAD_IN, t, uses[u].in_slot});
    Step c{StepKind::CONV, t, 0};
    c.w_slot = uses[u].w_slot;
    c.in_slot = uses[u].in_slot;
    c.out_slot = static_cast<uint32_t>(u % p.out_slots);
    steps.push_back(c);
    steps.push_back({StepKind::STORE, t, c.out_slot});
  }
  return steps;
}

std::string fits_reason(const ConvSpec& s, uint32_t elem, const NpuTarget& target) {
  const uint32_t ob = std::min(s.out_c, std::max(1u, target.array_cols));
  const SlotSizes z = slot_sizes(s, elem, 1, ob);
  const uint64_t need = z.w + z.in + z.out;
  if (need <= target.sram_bytes) return "";
  return "one output row of " + std::to_string(ob) + " channels needs " + std::to_string(need) +
         " bytes of SRAM, the channel has " + std::to_string(target.sram_bytes);
}

namespace {

// The channel as the cost model sees it, in cycles of the core clock.
struct ChannelModel {
  double fetch;       // one descriptor: DRAM read of 128 bytes + decode
  double dma_fixed;   // setup + DRAM latency, per DMA descriptor
  double engine_bpc;  // a DMA engine's bytes per cycle
  double port_bpc;    // this job's share of the DRAM port, bytes per cycle
  uint32_t queue_depth;
  uint32_t rows, cols;
  double fp32_macs, vector_pipeline;
};

ChannelModel channel_model(const NpuTarget& t, uint32_t jobs) {
  ChannelModel c{};
  const double ghz = t.clock_mhz / 1000.0;
  const double latency = t.dram_latency_ns * ghz;
  const double dram_bpc = t.dram_gbps / ghz;
  c.engine_bpc = std::max(1u, t.dma_bytes_per_cycle);
  c.port_bpc = dram_bpc / std::max(1u, jobs);
  c.fetch = latency + 128.0 / std::min(dram_bpc, c.engine_bpc) + t.descriptor_fetch_cycles;
  c.dma_fixed = t.dma_setup_cycles + latency;
  c.queue_depth = std::max(1u, t.queue_depth);
  c.rows = std::max(1u, t.array_rows);
  c.cols = std::max(1u, t.array_cols);
  c.fp32_macs = std::max(1u, t.fp32_macs_per_cycle);
  c.vector_pipeline = t.vector_pipeline_cycles;
  return c;
}

// One column block's cycles per band height, remembered: the formula walks every pass, and a search
// asks for the same few band heights many times.
struct ColumnBlockCycles {
  std::map<uint64_t, uint64_t> by_rows;
};

double conv_cycles(const ConvSpec& s, uint32_t elem, const ChannelModel& c, uint64_t rb, uint64_t ob,
                   ColumnBlockCycles* memo = nullptr) {
  const uint64_t m = rb * s.out_w, k = uint64_t{s.kh} * s.kw * s.in_c;
  if (elem == 4) return std::ceil(static_cast<double>(m * k * ob) / c.fp32_macs) + c.vector_pipeline;
  if (!memo) return static_cast<double>(int8_array_cycles(c.rows, c.cols, m, k, ob));
  auto [it, fresh] = memo->by_rows.emplace(rb, 0);
  if (fresh) it->second = systolic_cycles(c.rows, c.cols, m, k);
  return static_cast<double>(div_up(ob, c.cols) * it->second);
}

// Replays one job's descriptors through the channel model; returns its cycles, doorbell to completion.
double simulate_job(const ConvSpec& s, uint32_t elem, const ConvPlan& p, const std::vector<TileRef>& tiles,
                    const std::vector<Step>& steps, const ChannelModel& c, ColumnBlockCycles* memo) {
  constexpr uint32_t kNone = UINT32_MAX;
  struct EngineClock {
    double free = 0;
    std::vector<double> starts;
  };
  std::array<EngineClock, 3> eng;  // dma_in, compute, dma_out
  // Per SRAM slot (weights, inputs, outputs in one index space): when its last writer ends, and when the
  // readers since then end.
  const uint32_t n_slots = p.w_slots + p.in_slots + p.out_slots;
  std::vector<double> written(n_slots, 0), read(n_slots, 0);
  double cp = 0, end = 0, port_free = 0;
  // The command processor fetches in order and waits for room in the engine's queue; the engine starts
  // the descriptor in order once what it reads was written and what it writes was read.
  auto start_of = [&](int engine, double descriptors, std::initializer_list<uint32_t> reads, uint32_t write) {
    cp += c.fetch * descriptors;
    EngineClock& e = eng[engine];
    if (e.starts.size() >= c.queue_depth) cp = std::max(cp, e.starts[e.starts.size() - c.queue_depth]);
    double start = std::max(cp, e.free);
    for (uint32_t r : reads) start = std::max(start, written[r]);
    if (write != kNone) start = std::max({start, written[write], read[write]});
    e.starts.push_back(start);
    return start;
  };
  auto finish = [&](int engine, double t, std::initializer_list<uint32_t> reads, uint32_t write) {
    eng[engine].free = t;
    for (uint32_t r : reads) read[r] = std::max(read[r], t);
    if (write != kNone) {
      written[write] = t;
      read[write] = 0;
    }
    end = std::max(end, t);
  };
  // A DMA goes at its engine's pace unless this job's share of the DRAM port is slower; the port is
  // booked first come, first served.
  auto dma = [&](int engine, uint64_t bytes, std::initializer_list<uint32_t> reads, uint32_t write,
                 double descriptors) {
    const double start = start_of(engine, descriptors, reads, write);
    const double xfer = start + c.dma_fixed * descriptors;
    port_free = std::max(xfer, port_free) + static_cast<double>(bytes) / c.port_bpc;
    finish(engine, std::max(xfer + std::ceil(static_cast<double>(bytes) / c.engine_bpc), port_free), reads,
           write);
  };
  const uint32_t in_base = p.w_slots, out_base = p.w_slots + p.in_slots;
  for (const Step& st : steps) {
    const TileRef& t = tiles[st.tile];
    switch (st.kind) {
      case StepKind::POINT:
        cp += c.fetch;
        break;
      case StepKind::LOAD_W:
        dma(0, slot_sizes(s, elem, 1, t.ob).w_load, {}, st.slot, 1);
        break;
      case StepKind::LOAD_IN:
        dma(0, band_rows(s, t.oy0, t.rb).rows * s.in_w * s.in_c * elem, {}, in_base + st.slot,
            s.nchw ? s.in_c : 1);
        break;
      case StepKind::CONV: {
        const uint32_t w = st.w_slot, in = in_base + st.in_slot, out = out_base + st.out_slot;
        const double start = start_of(1, 1, {w, in}, out);
        finish(1, start + conv_cycles(s, elem, c, t.rb, t.ob, memo), {w, in}, out);
        break;
      }
      case StepKind::STORE:
        dma(2, uint64_t{t.rb} * s.out_w * t.ob * elem, {out_base + st.slot}, kNone, s.nchw ? t.ob : 1);
        break;
    }
  }
  cp += c.fetch;  // the closing FENCE
  return std::max(end, cp);
}

struct Candidate {
  ConvPlan plan;
  double lower_bound;
};

}  // namespace

uint64_t predict_cycles(const ConvSpec& s, uint32_t elem, const NpuTarget& target, const ConvPlan& plan) {
  const auto tiles = plan_tiles(s, plan);
  const ChannelModel cm = channel_model(target, plan.jobs);
  ColumnBlockCycles memo;
  double worst = 0;
  for (uint32_t j = 0; j < plan.jobs; ++j) {
    size_t first, last;
    job_range(tiles.size(), plan.jobs, j, &first, &last);
    worst =
        std::max(worst, simulate_job(s, elem, plan, tiles, job_steps(plan, tiles, first, last), cm, &memo));
  }
  return static_cast<uint64_t>(std::llround(worst));
}

Result<ConvPlan> choose_plan(const ConvSpec& s, uint32_t elem, const NpuTarget& target) {
  if (auto r = fits_reason(s, elem, target); !r.empty()) return make_error(r);
  const uint32_t cols = std::max(1u, target.array_cols);
  const uint64_t k = uint64_t{s.kh} * s.kw * s.in_c;

  // Channel blocks: out_c split into nb blocks of whole array widths; band heights: out_h into nbands.
  // Past 24 splits only every ~25 % more is tried (huge layers need not every count).
  auto splits = [](uint64_t max_parts) {
    std::vector<uint64_t> parts;
    for (uint64_t n = 1; n <= max_parts; n = n < 24 ? n + 1 : n + std::max<uint64_t>(1, n / 4))
      parts.push_back(n);
    if (parts.back() != max_parts) parts.push_back(max_parts);
    return parts;
  };
  std::vector<uint32_t> obs, rbs;
  for (uint64_t nb : splits(div_up(s.out_c, std::min(s.out_c, cols)))) {
    const auto ob = static_cast<uint32_t>(std::min<uint64_t>(s.out_c, align(div_up(s.out_c, nb), cols)));
    if (std::find(obs.begin(), obs.end(), ob) == obs.end()) obs.push_back(ob);
  }
  for (uint64_t nbands : splits(s.out_h)) {
    const auto rb = static_cast<uint32_t>(div_up(s.out_h, nbands));
    if (std::find(rbs.begin(), rbs.end(), rb) == rbs.end()) rbs.push_back(rb);
  }

  ColumnBlockCycles memo;  // the array's rows and columns are the target's, k the spec's: fixed here
  std::vector<Candidate> candidates;
  for (uint32_t ob : obs) {
    for (uint32_t rb : rbs) {
      // A shorter first band per image: a few rows, a quarter or half of the band.
      std::vector<uint32_t> heads = {0};
      for (uint32_t h : {1u, 2u, 4u, rb / 4, rb / 2})
        if (h > 0 && h < rb && h < s.out_h && std::find(heads.begin(), heads.end(), h) == heads.end())
          heads.push_back(h);
      for (uint32_t head : heads) {
        const SlotSizes z = slot_sizes(s, elem, rb, ob);
        if (z.w + z.in + z.out > target.sram_bytes) continue;
        std::vector<uint64_t> band_heights;
        for (uint32_t y = 0; y < s.out_h;) {
          const uint32_t h = std::min(y == 0 && head ? head : rb, s.out_h - y);
          band_heights.push_back(h);
          y += h;
        }
        const uint64_t blocks = div_up(s.out_c, ob), bands = band_heights.size() * s.batch;
        const uint64_t tiles = blocks * bands;
        const auto jobs = static_cast<uint32_t>(std::min<uint64_t>(std::max(1u, target.channels), tiles));
        const ChannelModel cm = channel_model(target, jobs);
        // Lower bound of any order and buffering: the longest engine's work spread evenly over the jobs,
        // with every weight and input byte loaded once.
        double compute = 0;
        const uint64_t last_ob = s.out_c - (blocks - 1) * ob;
        for (uint64_t r : band_heights)
          compute += (conv_cycles(s, elem, cm, r, ob, &memo) * static_cast<double>(blocks - 1) +
                      conv_cycles(s, elem, cm, r, last_ob, &memo)) *
                     s.batch;
        // Every band loaded once: the rows the bands read (a row-skipping 1×1 reads every stride-th row
        // only, so the whole image would overstate it and cut the search short), and the weights.
        uint64_t band_bytes = 0;
        for (uint32_t y = 0, b = 0; b < band_heights.size(); y += static_cast<uint32_t>(band_heights[b++]))
          band_bytes += band_rows(s, y, static_cast<uint32_t>(band_heights[b])).rows;
        const double in_bytes =
            static_cast<double>(band_bytes * s.batch * s.in_w * s.in_c * elem + k * s.out_c * elem);
        const double out_bytes = static_cast<double>(uint64_t{s.batch} * s.out_h * s.out_w * s.out_c * elem);
        const double rate = std::min(cm.engine_bpc, cm.port_bpc);
        const double lb = std::max({compute, in_bytes / rate, out_bytes / rate}) / jobs;
        // Ring lengths: resident = every block (band) a job meets; keep the largest choices that fit.
        const uint64_t per_job = div_up(tiles, jobs);
        for (LoopOrder order : {LoopOrder::BLOCK_OUTER, LoopOrder::BAND_OUTER}) {
          if (order == LoopOrder::BAND_OUTER && (blocks == 1 || bands == 1)) continue;  // same as block-outer
          // The most blocks / bands one job's contiguous run of tiles can meet.
          const uint64_t job_blocks = order == LoopOrder::BLOCK_OUTER
                                          ? std::min(blocks, div_up(per_job, bands) + 1)
                                          : std::min(blocks, per_job);
          const uint64_t job_bands = order == LoopOrder::BLOCK_OUTER
                                         ? std::min(bands, per_job)
                                         : std::min(bands, div_up(per_job, blocks) + 1);
          std::vector<std::array<uint32_t, 3>> rings;
          for (uint32_t o : {2u, 1u}) {
            for (uint64_t w : {job_blocks, uint64_t{2}, uint64_t{1}}) {
              w = std::min(w, job_blocks);
              for (uint64_t i : {job_bands, uint64_t{2}, uint64_t{1}}) {
                i = std::min(i, job_bands);
                const uint64_t o_len = std::min<uint64_t>(o, per_job);
                if (w * z.w + i * z.in + o_len * z.out > target.sram_bytes) continue;
                const std::array<uint32_t, 3> r{static_cast<uint32_t>(w), static_cast<uint32_t>(i),
                                                static_cast<uint32_t>(o_len)};
                // Keep only rings no other kept one dominates.
                bool dominated = false;
                for (const auto& q : rings) dominated |= q[0] >= r[0] && q[1] >= r[1] && q[2] >= r[2];
                if (!dominated) rings.push_back(r);
                break;  // the largest input ring that fits for this weights ring
              }
            }
          }
          for (const auto& r : rings) {
            ConvPlan p;
            p.row_band = rb;
            p.head_band = head;
            p.cout_block = ob;
            p.order = order;
            p.w_slots = r[0];
            p.in_slots = r[1];
            p.out_slots = r[2];
            p.jobs = jobs;
            p.tiles = tiles;
            p.sram_bytes = r[0] * z.w + r[1] * z.in + r[2] * z.out;
            candidates.push_back({p, lb});
          }
        }
      }
    }
  }
  if (candidates.empty()) return make_error(fits_reason(s, elem, target));
  // Cheapest bound first; stop once no remaining candidate can beat the best prediction.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.lower_bound < b.lower_bound; });
  std::optional<ConvPlan> best;
  double best_cycles = 0;
  for (const Candidate& cand : candidates) {
    if (best && cand.lower_bound >= best_cycles) break;
    ConvPlan p = cand.plan;
    const auto tiles = plan_tiles(s, p);
    const ChannelModel cm = channel_model(target, p.jobs);
    double worst = 0;
    for (uint32_t j = 0; j < p.jobs; ++j) {
      size_t first, last;
      job_range(tiles.size(), p.jobs, j, &first, &last);
      worst = std::max(worst, simulate_job(s, elem, p, tiles, job_steps(p, tiles, first, last), cm, &memo));
      if (best && worst >= best_cycles) break;
    }
    p.predicted_cycles = static_cast<uint64_t>(std::llround(worst));
    // Ties: fewer tiles (fewer descriptors), then less SRAM.
    if (!best || worst < best_cycles ||
        (worst == best_cycles && std::tie(p.tiles, p.sram_bytes) < std::tie(best->tiles, best->sram_bytes))) {
      best = p;
      best_cycles = worst;
    }
  }
  return *best;
}

std::string describe(const ConvSpec& s, const ConvPlan& p) {
  const uint64_t blocks = div_up(s.out_c, p.cout_block);
  const uint64_t bands =
      (p.head_band ? 1 + div_up(s.out_h - p.head_band, p.row_band) : div_up(s.out_h, p.row_band)) * s.batch;
  auto ring = [](uint32_t slots, uint64_t items) -> std::string {
    if (items <= 1) return "one";
    if (slots >= items) return "resident (" + std::to_string(slots) + ")";
    return slots >= 2 ? "double-buffered" : "single-buffered";
  };
  const uint64_t per_job = div_up(p.tiles, p.jobs);
  const uint64_t k = uint64_t{s.kh} * s.kw * s.in_c;
  const std::string head = p.head_band ? " (first band " + std::to_string(p.head_band) + ")" : "";
  return "tile " + std::to_string(p.row_band) + " row(s)" + head + " x " + std::to_string(p.cout_block) +
         " ch (M " + std::to_string(uint64_t{p.row_band} * s.out_w) + ", K " + std::to_string(k) + ", N " +
         std::to_string(p.cout_block) + "), " + std::to_string(p.tiles) +
         " tile(s) = " + std::to_string(bands) + " band(s) x " + std::to_string(blocks) + " block(s) over " +
         std::to_string(p.jobs) + " command buffer(s), " + to_string(p.order) + ", weights " +
         ring(p.w_slots, std::min(blocks, per_job)) + ", inputs " +
         ring(p.in_slots, std::min(bands, per_job)) + ", outputs " +
         (p.out_slots >= 2 ? "double-buffered"
          : per_job > 1    ? "single-buffered"
                           : "one") +
         ", SRAM " + std::to_string(p.sram_bytes) + " B";
}

}  // namespace npu::hal::tiling
