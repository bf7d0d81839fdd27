// Internal to the compiler: how a CONV_2D / FULLY_CONNECTED is cut into tiles for the MAC array, chosen
// by a cost model of the channel rather than a fixed order.
//
// A tile is (output-row band × output-channel block) of one image: one CONV descriptor reading an input
// band and a weights block (weights, bias and requantisation of the block's channels, one DMA) and
// writing an output tile, stored by one DMA. The SRAM holds three rings of slots: weights blocks, input
// bands and output tiles; a ring of one slot serialises loads with compute, two slots double-buffer (the
// channel loads the next while computing the current, and stores the previous), and a ring as long as
// the job's blocks (or bands) keeps every one resident, so it is loaded once. The loop order says which
// stays put: BLOCK_OUTER runs every band through one weights block before the next (weight-stationary:
// each block loaded once per job, bands reloaded per block unless resident); BAND_OUTER runs every block
// over one band (bands loaded once, blocks reloaded per band unless resident). A job (one channel) takes
// a contiguous run of the tile sequence.
//
// choose_plan enumerates band heights, channel blocks, loop orders and ring sizes that fit the SRAM, and
// predicts each one's cycles by replaying its descriptors through a model of the channel (command
// processor fetching in order with per-engine queues, dma_in / compute / dma_out engines in order,
// dependencies through the SRAM slots, DMA setup + DRAM latency + bytes at the slower of the engine and
// its share of the DRAM port, the array's cycle formula); the cheapest wins. Candidates are tried in the
// order of a lower bound of their cycles and the search stops once the bound reaches the best prediction,
// so the bound must never exceed what the model predicts (tests/hal/conv_tiling_test.cpp checks the
// choice against plans it did not try first). Not modelled there: SRAM
// bank conflicts, DRAM arbitration between channels beyond an even share, K split into chunks (the CONV
// descriptor requantises its outputs, so a tile needs the whole K).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"
#include "npu/common/fixed_point.h"
#include "npu/common/result.h"
#include "npu/hal/compiler.h"

namespace npu::hal::tiling {

// A convolution in NHWC terms; FULLY_CONNECTED is batch rows of a 1×1 convolution.
struct ConvSpec {
  uint32_t input, filter, bias, output;  // operand indices
  uint32_t batch, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw;
  uint32_t stride_h, stride_w, dil_h, dil_w;
  int32_t pad_top, pad_left;
  fx::FusedActivation activation;
  bool nchw = false;  // input and output are NCHW in the arena (lower::dma_nchw_in / dma_nchw_out)
};

enum class LoopOrder : uint8_t { BLOCK_OUTER, BAND_OUTER };
inline constexpr enums::Entry<LoopOrder> kLoopOrderNames[] = {{LoopOrder::BLOCK_OUTER, "block-outer"},
                                                              {LoopOrder::BAND_OUTER, "band-outer"}};
constexpr const auto& enum_table(LoopOrder) { return kLoopOrderNames; }
inline const char* to_string(LoopOrder o) { return enums::to_string(o); }

struct ConvPlan {
  uint32_t row_band = 1, cout_block = 1;
  // Rows of each image's first band when it is shorter than row_band (0: every band row_band rows,
  // the last one what remains): a short first band lets the array start after a short first load.
  uint32_t head_band = 0;
  LoopOrder order = LoopOrder::BLOCK_OUTER;
  uint32_t w_slots = 1, in_slots = 1, out_slots = 1;  // ring lengths
  uint32_t jobs = 1;
  uint64_t tiles = 0;
  uint64_t sram_bytes = 0;
  uint64_t predicted_cycles = 0;  // of the longest job, doorbell to completion
};

// Bytes of one slot of each ring (64-byte aligned) and where bias and requantisation sit in a weights
// slot; a weights block is packed in the weights image with the same relative offsets, so one DMA of
// `w_load` bytes loads all three.
struct SlotSizes {
  uint64_t w, bias_at, quant_at, w_load, in, out;
};
SlotSizes slot_sizes(const ConvSpec& s, uint32_t elem, uint32_t row_band, uint32_t cout_block);

// A 1×1 filter with a row stride and no top padding reads only every stride-th input row: its bands are
// loaded as those rows alone (a strided DMA) and the CONV runs them with stride 1.
bool skips_rows(const ConvSpec& s);
// Input rows at most a band of `band` output rows reads (within the image).
uint32_t input_rows_for(const ConvSpec& s, uint32_t band);
// The input rows a band [oy0, oy0 + rb) of one image loads: `rows` image rows from `first`, every
// `step`-th; output row 0 of the band reads loaded row `row_origin` (negative: padding above).
struct BandRows {
  int64_t first;
  uint64_t rows;
  uint32_t step;
  int32_t row_origin;
};
BandRows band_rows(const ConvSpec& s, uint32_t oy0, uint32_t rb);

struct TileRef {
  uint32_t o0, ob, n, oy0, rb;
  uint32_t block, band;  // indices of its channel block and (image, band) pair
};
std::vector<TileRef> plan_tiles(const ConvSpec& s, const ConvPlan& p);
// Tiles [first, last) of job j.
void job_range(size_t tiles, uint32_t jobs, uint32_t j, size_t* first, size_t* last);

// One job's work in program order (the descriptors lower_conv emits, one step each).
enum class StepKind : uint8_t { POINT, LOAD_W, LOAD_IN, CONV, STORE };
struct Step {
  StepKind kind;
  uint32_t tile;  // index into the plan's tiles
  uint32_t slot;  // in its ring (LOAD_W: weights; LOAD_IN: inputs; STORE: outputs)
  uint32_t w_slot = 0, in_slot = 0, out_slot = 0;  // CONV
  // POINT: the weights and input slots whose contents a later tile reads without reloading them,
  // as [first, last] slot indices (first > last: none).
  int32_t live_w_first = 0, live_w_last = -1, live_in_first = 0, live_in_last = -1;
};
std::vector<Step> job_steps(const ConvPlan& p, const std::vector<TileRef>& tiles, size_t first, size_t last);

// SRAM offsets of the rings.
struct RingLayout {
  uint64_t w0, in0, out0, total;
  SlotSizes size;
  uint64_t w(uint32_t slot) const { return w0 + slot * size.w; }
  uint64_t in(uint32_t slot) const { return in0 + slot * size.in; }
  uint64_t out(uint32_t slot) const { return out0 + slot * size.out; }
};
RingLayout ring_layout(const ConvSpec& s, uint32_t elem, const ConvPlan& p);

// Empty when the smallest tile (one output row, one array-wide channel block, single-buffered) fits
// the SRAM, else the reason.
std::string fits_reason(const ConvSpec& s, uint32_t elem, const NpuTarget& target);

// The cheapest plan by the cost model (fails when nothing fits).
Result<ConvPlan> choose_plan(const ConvSpec& s, uint32_t elem, const NpuTarget& target);
// The cost model's cycles of a given plan (its longest job), as choose_plan predicts them.
uint64_t predict_cycles(const ConvSpec& s, uint32_t elem, const NpuTarget& target, const ConvPlan& plan);

// Cycles of one CONV_INT8 tile of M×K×N on the array (the compute core's formula: passes of up to 256
// activation rows × K chunks of `rows`, per array-wide column block, plus fill and drain).
uint64_t int8_array_cycles(uint32_t rows, uint32_t cols, uint64_t m, uint64_t k, uint64_t n);

// One line for --explain-tiling: tile shape, loop order, buffering, number of tiles and jobs.
std::string describe(const ConvSpec& s, const ConvPlan& p);

}  // namespace npu::hal::tiling
