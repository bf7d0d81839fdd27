#include "npu/hal/compiler.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

#include "conv_tiling.h"
#include "lowering.h"
#include "npu/common/fixed_point.h"
#include "npu/common/log.h"
#include "npu/hal/ops/control_flow.h"
#include "npu/hal/ops/conv_2d.h"
#include "npu/hal/ops/fully_connected.h"
#include "npu/hal/ops/quant_math.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/extensions.h"

namespace npu::hal {
namespace {

using models::Lifetime;
using models::OperandType;
using models::OperationType;

using lower::align;
using lower::elem_bytes;
using lower::Emitter;
using lower::is_quant8;
using lower::kArenaAlign;
using lower::kSramAlign;

using tiling::ConvSpec;

Result<ConvSpec> conv_spec(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  ConvSpec s{};
  if (op.type == OperationType::CONV_2D) {
    auto p = ops::conv_2d_params(g, op);
    if (!p) return make_error(p.error());
    const auto& f = g.operands[op.inputs[1]].dimensions;
    if (g.operands[op.inputs[0]].dimensions.size() != 4 || f.size() != 4 ||
        g.operands[op.outputs[0]].dimensions.size() != 4)
      return make_error("shapes must be rank 4");
    const auto in = lower::nhwc_extents(g.operands[op.inputs[0]], p->nchw);
    const auto out = lower::nhwc_extents(g.operands[op.outputs[0]], p->nchw);
    s = {op.inputs[0],
         op.inputs[1],
         op.inputs[2],
         op.outputs[0],
         in.n,
         in.h,
         in.w,
         in.c,
         out.h,
         out.w,
         out.c,
         f[1],
         f[2],
         p->stride_h,
         p->stride_w,
         p->dilation_h,
         p->dilation_w,
         static_cast<int32_t>(p->pad_top),
         static_cast<int32_t>(p->pad_left),
         p->activation,
         p->nchw};
  } else if (op.type == OperationType::FULLY_CONNECTED) {
    auto p = ops::fully_connected_params(g, op);
    if (!p) return make_error(p.error());
    s = {op.inputs[0],
         op.inputs[1],
         op.inputs[2],
         op.outputs[0],
         1,
         p->batch_size,
         1,
         p->input_size,
         p->batch_size,
         1,
         p->num_units,
         1,
         1,
         1,
         1,
         1,
         1,
         0,
         0,
         p->activation,
         false};
  } else {
    return make_error(std::string(models::to_string(op.type)) + " has no NPU lowering");
  }
  for (uint32_t i : {s.input, s.output}) {
    if (!g.operands[i].fully_specified())
      return make_error("operand " + std::to_string(i) + " has unknown dimensions");
  }
  if (!g.operands[s.filter].is_constant() || !g.operands[s.bias].is_constant())
    return make_error("filter and bias must be constants for the NPU");
  return s;
}

// The spec the array runs. FULLY_CONNECTED's [batch, input] rows are contiguous, so any h×w arrangement
// of them is the same memory. As one row per batch row (w = 1) a tiler that halved the row band before
// the channel block cut a 64×2048 by 8192 layer into 8-row tiles: 8 activation rows per pass, 15 MACs
// per cycle of the 256. Laid out as one row of w pixels (the widest w dividing the batch that still
// fits) a tile keeps every row and only the channel block shrinks.
ConvSpec widen_rows(const models::Model& m, const ConvSpec& s, const NpuTarget& target) {
  const uint32_t batch = s.out_h, elem = elem_bytes(m.main.operands[s.input].type);
  for (uint32_t w = batch; w > 1; --w) {
    if (batch % w) continue;
    ConvSpec wide = s;
    wide.in_h = wide.out_h = batch / w;
    wide.in_w = wide.out_w = w;
    if (tiling::fits_reason(wide, elem, target).empty()) return wide;
  }
  return s;
}

Result<ConvSpec> array_spec(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto s = conv_spec(m, index);
  if (!s || m.main.operations[index].type != OperationType::FULLY_CONNECTED) return s;
  return widen_rows(m, *s, target);
}

// com.npusim.llm:MATMUL as FULLY_CONNECTED's GEMM of one batch: A's M rows against B (K × N, or N × K
// transposed), whose values the compiler does not know: the array's weight loader adapts them at run time
// (descriptors.h, kConvWeights*).
struct MatmulShape {
  uint32_t batch, m, k, n;
  bool transposed;
};

Result<MatmulShape> matmul_shape(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() != 3 || op.outputs.size() != 1) return make_error("expected 3 inputs and 1 output");
  if (auto r = lower::unknown_dims_reason(m, {op.inputs[0], op.inputs[1], op.outputs[0]}); !r.empty())
    return make_error(r);
  const auto& a = g.operands[op.inputs[0]].dimensions;
  const auto& b = g.operands[op.inputs[1]].dimensions;
  const auto& t = g.operands[op.inputs[2]];
  if (!t.is_constant() || t.data.size() != 1) return make_error("transpose_b must be a BOOL constant");
  MatmulShape sh{};
  const size_t r = a.size();
  sh.batch = r == 3 ? a[0] : 1;
  sh.m = a[r - 2];
  sh.k = a[r - 1];
  sh.transposed = t.data[0] != 0;
  sh.n = sh.transposed ? b[r - 2] : b[r - 1];
  return sh;
}

Result<ConvSpec> matmul_spec(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto sh = matmul_shape(m, index);
  if (!sh) return make_error(sh.error());
  const auto& op = m.main.operations[index];
  const ConvSpec s{op.inputs[0],
                   op.inputs[1],
                   UINT32_MAX,
                   op.outputs[0],
                   1,
                   sh->m,
                   1,
                   sh->k,
                   sh->m,
                   1,
                   sh->n,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   0,
                   0,
                   fx::FusedActivation::NONE,
                   false};
  return widen_rows(m, s, target);
}

template <class T>
void append(WeightsImage& image, const T* values, size_t count) {
  image.append(values, count * sizeof(T));
}

// Packs weights, bias and requantisation for output channels [o0, o0 + ob) into the weights image;
// returns the offsets of the three parts.
struct PackedBlock {
  uint64_t w, bias, quant;
};

PackedBlock pack_block(const models::Model& m, const ConvSpec& s, uint32_t o0, uint32_t ob,
                       WeightsImage& image) {
  const auto& g = m.main;
  const auto& in = g.operands[s.input];
  const auto& f = g.operands[s.filter];
  const auto& b = g.operands[s.bias];
  const auto& out = g.operands[s.output];
  const uint64_t k = static_cast<uint64_t>(s.kh) * s.kw * s.in_c;
  PackedBlock p{};
  auto filter_at = [&](uint32_t o, uint64_t kk) { return static_cast<uint64_t>(o) * k + kk; };  // OHWI
  // Omitted values (a timing-only model) pack as zeros; only the layout matters then.
  const bool have_filter = !f.values_omitted, have_bias = !b.values_omitted;
  image.align_to(kArenaAlign);
  p.w = image.size();
  if (in.type == OperandType::TENSOR_FLOAT32) {
    std::vector<float> w(k * ob), bias(ob);
    const auto* fv = reinterpret_cast<const float*>(f.data.data());
    if (have_filter)
      for (uint64_t kk = 0; kk < k; ++kk)
        for (uint32_t j = 0; j < ob; ++j) std::memcpy(&w[kk * ob + j], &fv[filter_at(o0 + j, kk)], 4);
    if (have_bias) std::memcpy(bias.data(), b.data.data() + 4ull * o0, 4ull * ob);
    append(image, w.data(), w.size());
    image.align_to(kSramAlign);
    p.bias = image.size();
    append(image, bias.data(), bias.size());
    p.quant = p.bias;
    return p;
  }
  // Quantised: operands are int8 (x − 128 for uint8), so
  //   Σ(a − za)(w − zw) = Σ a'w' − zw'·Σ a' − za'·Σ w' + K·za'·zw'   (primes: int8 domain)
  // and the two constant terms fold into the bias; zw' becomes the descriptor's weight_offset.
  const bool in_unsigned = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  const bool per_channel = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  const bool w_unsigned = f.type == OperandType::TENSOR_QUANT8_ASYMM;
  const int32_t za = in.zero_point - (in_unsigned ? 128 : 0);
  const int32_t zw = per_channel ? 0 : f.zero_point - (w_unsigned ? 128 : 0);
  std::vector<int8_t> w(k * ob);
  std::vector<int32_t> bias(ob), mult(ob), shift(ob);
  for (uint32_t j = 0; j < ob; ++j) {
    int64_t wsum = 0;
    for (uint64_t kk = 0; have_filter && kk < k; ++kk) {
      const uint8_t raw = f.data[filter_at(o0 + j, kk)];
      const auto v = static_cast<int8_t>(w_unsigned ? (raw ^ 0x80u) : raw);
      w[kk * ob + j] = v;
      wsum += v;
    }
    int32_t b32 = 0;
    if (have_bias) std::memcpy(&b32, b.data.data() + 4ull * (o0 + j), 4);
    bias[j] = static_cast<int32_t>(b32 - za * wsum + static_cast<int64_t>(k) * za * zw);
    const float w_scale = per_channel ? f.per_channel->scales[o0 + j] : f.scale;
    // The CPU reference's multiplier (scales multiplied in float, as NNAPI): a double product differs in
    // the last bits and flipped a rounding tie (MobileNet v2 quant8, npusim bench iteration 9).
    const auto qm = ops::conv_multiplier(in.scale, w_scale, out.scale);
    mult[j] = qm.multiplier;
    shift[j] = qm.shift;
  }
  append(image, w.data(), w.size());
  image.align_to(kSramAlign);
  p.bias = image.size();
  append(image, bias.data(), bias.size());
  image.align_to(kSramAlign);
  p.quant = image.size();
  append(image, mult.data(), mult.size());
  append(image, shift.data(), shift.size());
  return p;
}

// MATMUL's weights block holds no values at compile time: only its bias and requantisation are packed
// (laid out as pack_block lays them relative to each other). Σ(a − za)(w − zw) = Σ a'w' − zw'·Σ a' −
// za'·Σ w' + K·za'·zw': the array subtracts zw'·Σ a' (weight_offset) and za'·Σ w' (the loader's column
// sums, kConvWeightColumnSums); the bias carries K·za'·zw'. Every channel is alike.
PackedBlock pack_runtime_block(const models::Model& m, const ConvSpec& s, uint32_t ob, WeightsImage& image) {
  const auto& g = m.main;
  const auto& in = g.operands[s.input];
  const auto& f = g.operands[s.filter];
  const auto& out = g.operands[s.output];
  PackedBlock p{};
  image.align_to(kArenaAlign);
  p.bias = image.size();
  p.w = p.bias;  // unused: the weights come from the arena
  if (in.type == OperandType::TENSOR_FLOAT32) {
    const std::vector<float> zeros(ob, 0.0f);
    append(image, zeros.data(), zeros.size());
    p.quant = p.bias;
    return p;
  }
  const int32_t za = in.zero_point - (in.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0);
  const int32_t zw = f.zero_point - (f.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0);
  const uint64_t k = s.in_c;
  const auto qm = ops::conv_multiplier(in.scale, f.scale, out.scale);
  const std::vector<int32_t> bias(ob, static_cast<int32_t>(static_cast<int64_t>(k) * za * zw));
  const std::vector<int32_t> mult(ob, qm.multiplier), shift(ob, qm.shift);
  append(image, bias.data(), bias.size());
  image.align_to(kSramAlign);
  p.quant = image.size();
  append(image, mult.data(), mult.size());
  append(image, shift.data(), shift.size());
  return p;
}

// Where a MATMUL batch's operands are: B (any region; [K, N] rows `n` apart, or [N, K] transposed) and the
// batch's offsets into A and the output.
struct RuntimeWeights {
  lower::Source b;
  uint32_t n;
  bool transposed;
  lower::Source a;
  uint64_t out_offset;
};

Result<void> lower_conv(const models::Model& m, const ConvSpec& s, const NpuTarget& target, Program& prog,
                        Stage& stage, const RuntimeWeights* rw = nullptr,
                        const lower::OutputView* view = nullptr) {
  const auto& g = m.main;
  const auto& in = g.operands[s.input];
  const auto& out = g.operands[s.output];
  const uint32_t elem = elem_bytes(in.type);
  auto plan = tiling::choose_plan(s, elem, target);
  if (!plan) return make_error(plan.error());
  stage.tiling = tiling::describe(s, *plan);
  stage.predicted_cycles = plan->predicted_cycles;
  std::vector<NpuStep>& jobs = stage.jobs;
  const Region in_region = rw ? rw->a.region : Region::ARENA;
  const uint64_t in_base = rw ? rw->a.offset : prog.arena.at(s.input).offset;
  const uint64_t out_base = prog.arena.at(s.output).offset + (rw ? rw->out_offset : 0);
  const uint64_t in_row_bytes = static_cast<uint64_t>(s.in_w) * s.in_c * elem;

  desc::Conv c{};
  c.h.opcode = elem == 4 ? desc::Opcode::CONV_FP32 : desc::Opcode::CONV_INT8;
  c.in_w = s.in_w;
  c.in_c = s.in_c;
  c.kh = s.kh;
  c.kw = s.kw;
  c.out_w = s.out_w;
  c.stride_h = s.stride_h;
  c.stride_w = s.stride_w;
  c.dilation_h = s.dil_h;
  c.dilation_w = s.dil_w;
  c.col_origin = -s.pad_left;
  if (elem == 4) {
    float lo, hi;
    fx::float_activation_range(s.activation, &lo, &hi);
    c.clamp_lo = std::bit_cast<int32_t>(lo);
    c.clamp_hi = std::bit_cast<int32_t>(hi);
  } else {
    const bool in_unsigned = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    const bool out_unsigned = out.type == OperandType::TENSOR_QUANT8_ASYMM;
    const auto& f = g.operands[s.filter];
    c.pad_value = in.zero_point - (in_unsigned ? 128 : 0);
    c.weight_offset = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL
                          ? 0
                          : f.zero_point - (f.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0);
    c.out_zero_point = out.zero_point;
    const auto range = fx::quantized_activation_range(s.activation, out.scale, out.zero_point,
                                                      out_unsigned ? 0 : -128, out_unsigned ? 255 : 127);
    c.clamp_lo = range.lo;
    c.clamp_hi = range.hi;
    c.flags = (in_unsigned ? desc::kConvInputUnsigned : 0) | (out_unsigned ? desc::kConvOutputUnsigned : 0);
    if (rw)
      c.flags |= desc::kConvWeightColumnSums |
                 (f.type == OperandType::TENSOR_QUANT8_ASYMM ? desc::kConvWeightsUnsigned : 0);
  }
  if (rw && rw->transposed) c.flags |= desc::kConvWeightsTransposed;

  // The plan's tiles; job j takes a contiguous run of them (tiling::job_steps says what each loads).
  const std::vector<tiling::TileRef> tiles = tiling::plan_tiles(s, *plan);
  const tiling::RingLayout l = tiling::ring_layout(s, elem, *plan);
  jobs.assign(plan->jobs, NpuStep{});
  std::map<uint32_t, PackedBlock> packed;
  std::map<uint32_t, PackedBlock> runtime_packed;  // by block width: every runtime block is alike
  for (const auto& t : tiles) {
    if (rw) {
      if (!runtime_packed.count(t.ob)) runtime_packed[t.ob] = pack_runtime_block(m, s, t.ob, prog.weights);
    } else if (!packed.count(t.o0)) {
      packed[t.o0] = pack_block(m, s, t.o0, t.ob, prog.weights);
    }
  }

  const uint64_t k = static_cast<uint64_t>(s.kh) * s.kw * s.in_c;
  for (uint32_t j = 0; j < plan->jobs; ++j) {
    NpuStep& step = jobs[j];
    Emitter emit(step);
    size_t first_tile, last_tile;
    tiling::job_range(tiles.size(), plan->jobs, j, &first_tile, &last_tile);
    for (const tiling::Step& st : tiling::job_steps(*plan, tiles, first_tile, last_tile)) {
      const tiling::TileRef& t = tiles[st.tile];
      // The input rows this band loads (within the image; rows outside are padding).
      const tiling::BandRows br = tiling::band_rows(s, t.oy0, t.rb);
      const auto a = static_cast<uint64_t>(br.first);
      const uint64_t rows = br.rows;
      switch (st.kind) {
        case tiling::StepKind::POINT: {
          // Between tiles only the weights blocks and input bands a later tile reads without reloading
          // are live (outputs are stored by then), so a preemption here saves just those.
          desc::PreemptPoint pp{};
          pp.h.opcode = desc::Opcode::PREEMPT_POINT;
          if (st.live_w_last >= st.live_w_first) {
            pp.offset[0] = static_cast<uint32_t>(l.w(static_cast<uint32_t>(st.live_w_first)));
            pp.bytes[0] =
                static_cast<uint32_t>(l.size.w * static_cast<uint64_t>(st.live_w_last - st.live_w_first + 1));
          }
          if (st.live_in_last >= st.live_in_first) {
            pp.offset[1] = static_cast<uint32_t>(l.in(static_cast<uint32_t>(st.live_in_first)));
            pp.bytes[1] = static_cast<uint32_t>(
                l.size.in * static_cast<uint64_t>(st.live_in_last - st.live_in_first + 1));
          }
          emit.op(pp);
          break;
        }
        case tiling::StepKind::LOAD_W: {
          if (rw) {  // the block of B from where it lives, then its bias and requantisation
            const tiling::SlotSizes z = tiling::slot_sizes(s, elem, 1, t.ob);
            if (rw->transposed)
              emit.dma(desc::Opcode::DMA_IN, rw->b.region, rw->b.offset + uint64_t{t.o0} * k * elem,
                       l.w(st.slot), uint64_t{t.ob} * k * elem, 1, 0, 0);
            else
              emit.dma(desc::Opcode::DMA_IN, rw->b.region, rw->b.offset + uint64_t{t.o0} * elem, l.w(st.slot),
                       uint64_t{t.ob} * elem, k, uint64_t{rw->n} * elem, uint64_t{t.ob} * elem);
            emit.dma(desc::Opcode::DMA_IN, Region::WEIGHTS, runtime_packed.at(t.ob).bias,
                     l.w(st.slot) + z.bias_at, z.w_load - z.bias_at, 1, 0, 0);
            break;
          }
          // Weights, bias and requantisation in one DMA: the image packs them with the slot's offsets.
          const PackedBlock& p = packed.at(t.o0);
          emit.dma(desc::Opcode::DMA_IN, Region::WEIGHTS, p.w, l.w(st.slot),
                   tiling::slot_sizes(s, elem, 1, t.ob).w_load, 1, 0, 0);
          break;
        }
        case tiling::StepKind::LOAD_IN:
          if (s.nchw) {
            const uint64_t plane = static_cast<uint64_t>(s.in_h) * s.in_w * elem;
            lower::dma_nchw_in(
                emit, Region::ARENA,
                in_base +
                    (static_cast<uint64_t>(t.n) * s.in_c * s.in_h + static_cast<uint64_t>(a)) * s.in_w * elem,
                plane, l.in(st.slot), s.in_c, rows * s.in_w, elem);
          } else if (br.step > 1) {
            emit.dma(desc::Opcode::DMA_IN, in_region,
                     in_base + (static_cast<uint64_t>(t.n) * s.in_h + a) * in_row_bytes, l.in(st.slot),
                     in_row_bytes, rows, br.step * in_row_bytes, in_row_bytes);
          } else {
            emit.dma(desc::Opcode::DMA_IN, in_region,
                     in_base + (static_cast<uint64_t>(t.n) * s.in_h + a) * in_row_bytes, l.in(st.slot),
                     rows * in_row_bytes, 1, 0, 0);
          }
          break;
        case tiling::StepKind::CONV: {
          const tiling::SlotSizes z = tiling::slot_sizes(s, elem, t.rb, t.ob);
          desc::Conv tc = c;
          tc.in_sram = static_cast<uint32_t>(l.in(st.in_slot));
          tc.in_h = static_cast<uint32_t>(rows);
          tc.w_sram = static_cast<uint32_t>(l.w(st.w_slot));
          tc.bias_sram = static_cast<uint32_t>(l.w(st.w_slot) + z.bias_at);
          tc.quant_sram = static_cast<uint32_t>(l.w(st.w_slot) + z.quant_at);
          tc.out_sram = static_cast<uint32_t>(l.out(st.out_slot));
          tc.cout = t.ob;
          tc.out_h = t.rb;
          tc.row_origin = br.row_origin;
          if (br.step > 1) tc.stride_h = 1;  // only the rows the outputs read were loaded
          emit.op(tc);
          ++prog.tiles;
          step.macs += static_cast<uint64_t>(t.rb) * s.out_w * t.ob * k;
          break;
        }
        case tiling::StepKind::STORE:
          if (view && s.nchw) {  // one DMA per channel and output row, its elements step_w apart
            for (uint32_t ch = 0; ch < t.ob; ++ch)
              for (uint32_t r = 0; r < t.rb; ++r) {
                const uint64_t row = uint64_t{t.oy0 + r} * view->step_h + view->row0;
                const uint64_t at =
                    ((uint64_t{t.n} * s.out_c + t.o0 + ch) * view->full_h + row) * view->full_w + view->col0;
                emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + at * elem,
                         l.out(st.slot) + (uint64_t{r} * s.out_w * t.ob + ch) * elem, elem, s.out_w,
                         uint64_t{view->step_w} * elem, uint64_t{t.ob} * elem);
              }
          } else if (view) {  // one DMA per output row: its pixels are step_w apart in the bigger output
            for (uint32_t r = 0; r < t.rb; ++r) {
              const uint64_t row = uint64_t{t.oy0 + r} * view->step_h + view->row0;
              const uint64_t pixel0 = (uint64_t{t.n} * view->full_h + row) * view->full_w + view->col0;
              emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + (pixel0 * s.out_c + t.o0) * elem,
                       l.out(st.slot) + uint64_t{r} * s.out_w * t.ob * elem, uint64_t{t.ob} * elem, s.out_w,
                       uint64_t{view->step_w} * s.out_c * elem, uint64_t{t.ob} * elem);
            }
          } else if (s.nchw) {
            const uint64_t plane = static_cast<uint64_t>(s.out_h) * s.out_w * elem;
            lower::dma_nchw_out(emit,
                                out_base + (static_cast<uint64_t>(t.n) * s.out_c + t.o0) * plane +
                                    static_cast<uint64_t>(t.oy0) * s.out_w * elem,
                                plane, l.out(st.slot), t.ob, static_cast<uint64_t>(t.rb) * s.out_w, elem);
          } else {
            const uint64_t out_pixel0 = (static_cast<uint64_t>(t.n) * s.out_h + t.oy0) * s.out_w;
            emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + (out_pixel0 * s.out_c + t.o0) * elem,
                     l.out(st.slot), static_cast<uint64_t>(t.ob) * elem,
                     static_cast<uint64_t>(t.rb) * s.out_w, static_cast<uint64_t>(s.out_c) * elem,
                     static_cast<uint64_t>(t.ob) * elem);
          }
          break;
      }
    }
    emit.fence();
  }
  return {};
}

std::string type_reason(const models::Model& m, const ConvSpec& s) {
  const auto& g = m.main;
  const auto t = g.operands[s.input].type;
  const auto ft = g.operands[s.filter].type;
  if (t == OperandType::TENSOR_FLOAT32) return ft == t ? "" : "filter type differs from input type";
  if (!is_quant8(t))
    return std::string("data type ") + std::string(models::to_string(t)) + " is not supported";
  if (ft != t && ft != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return "filter type is not supported";
  if (g.operands[s.output].type != t) return "output type differs from input type";
  return "";
}

}  // namespace

namespace {

// An IF/WHILE runs wholly on the NPU when every operation of every subgraph it references does (NNAPI's
// rule for offering control flow to an accelerator); else the first operation that does not, and why.
std::string control_flow_reason(const models::Model& m, uint32_t index, const NpuTarget& target) {
  for (uint32_t i : m.main.operations[index].inputs) {
    const auto& o = m.main.operands[i];
    if (o.lifetime != Lifetime::SUBGRAPH || o.subgraph >= m.referenced.size()) continue;
    models::Model sub;
    sub.main = m.referenced[o.subgraph];
    sub.referenced = m.referenced;
    sub.extension_name_to_prefix = m.extension_name_to_prefix;
    for (uint32_t k = 0; k < sub.main.operations.size(); ++k)
      if (auto r = npu_unsupported_reason(sub, k, target); !r.empty())
        return "referenced[" + std::to_string(o.subgraph) + "].operations[" + std::to_string(k) + "] (" +
               models::operation_name(sub, sub.main.operations[k].type) + "): " + r;
  }
  return "";
}

std::string matmul_unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto s = matmul_spec(m, index, target);
  if (!s) return s.error();
  return tiling::fits_reason(*s, elem_bytes(m.main.operands[s->input].type), target);
}

// Each batch is its own GEMM; job j of the stage runs job j of every batch, one after another.
Result<void> matmul_lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                          std::vector<NpuStep>& jobs) {
  auto s = matmul_spec(m, index, target);
  if (!s) return make_error(s.error());
  auto sh = matmul_shape(m, index);
  const auto& op = m.main.operations[index];
  const uint64_t elem = elem_bytes(m.main.operands[op.inputs[0]].type);
  const lower::Source a = lower::operand_source(m, op.inputs[0], prog);
  const lower::Source b = lower::operand_source(m, op.inputs[1], prog);
  for (uint32_t n = 0; n < sh->batch; ++n) {
    const RuntimeWeights rw{{b.region, b.offset + uint64_t{n} * sh->k * sh->n * elem},
                            sh->n,
                            sh->transposed,
                            {a.region, a.offset + uint64_t{n} * sh->m * sh->k * elem},
                            uint64_t{n} * sh->m * sh->n * elem};
    Stage one;
    if (auto r = lower_conv(m, *s, target, prog, one, &rw); !r) return r;
    if (jobs.size() < one.jobs.size()) jobs.resize(one.jobs.size());
    for (size_t j = 0; j < one.jobs.size(); ++j) {
      NpuStep& into = jobs[j];
      NpuStep& from = one.jobs[j];
      // One FENCE ends each command buffer: the batches' own are dropped and one added after the last.
      if (!into.commands.empty()) into.commands.pop_back();
      const auto base = static_cast<uint32_t>(into.commands.size());
      for (const Relocation& r : from.relocations)
        into.relocations.push_back({r.descriptor + base, r.region});
      into.commands.insert(into.commands.end(), from.commands.begin(), from.commands.end());
      into.macs += from.macs;
    }
  }
  return {};
}

}  // namespace

const lower::Lowering& lower::matmul_lowering() {
  static const Lowering l{matmul_unsupported, matmul_lower};
  return l;
}

Result<void> lower::lower_conv_operation(const models::Model& m, uint32_t index, const NpuTarget& target,
                                         Program& prog, std::vector<NpuStep>& jobs, const OutputView* view) {
  auto s = array_spec(m, index, target);
  if (!s) return make_error(s.error());
  if (view) {  // band_rows and the CONV's origins take negative paddings as offsets into the input
    s->pad_top -= static_cast<int32_t>(view->skip_rows);
    s->pad_left -= static_cast<int32_t>(view->skip_cols);
  }
  // The rewritten operation's jobs only: its tiling words stay with CONV_2D stages (--explain-tiling).
  Stage stage;
  if (auto r = lower_conv(m, *s, target, prog, stage, nullptr, view); !r) return r;
  for (auto& j : stage.jobs) jobs.push_back(std::move(j));
  return {};
}

std::string npu_unsupported_reason(const models::Model& m, uint32_t index, const NpuTarget& target) {
  const auto& lowered = target.lowered_operations;
  if (!lowered.empty() && index < m.main.operations.size() &&
      std::find(lowered.begin(), lowered.end(), m.main.operations[index].type) == lowered.end())
    return "this device does not lower " + models::operation_name(m, m.main.operations[index].type);
  if (ops::is_control_flow(m.main.operations[index].type)) return control_flow_reason(m, index, target);
  if (const lower::Lowering* l = lower::find_lowering(m, m.main.operations[index].type))
    return l->unsupported(m, index, target);
  if (models::is_extension_type(m.main.operations[index].type))
    return models::operation_name(m, m.main.operations[index].type) + " has no NPU lowering";
  auto s = array_spec(m, index, target);
  if (!s) return s.error();
  if (auto r = type_reason(m, *s); !r.empty()) return r;
  return tiling::fits_reason(*s, elem_bytes(m.main.operands[s->input].type), target);
}

Result<Program> compile_for_npu(const models::Model& m, const NpuTarget& target) {
  auto log = log::get("compilation");
  Program prog;
  const auto& g = m.main;
  prog.timing_only = models::is_timing_only(m);
  prog.weights = WeightsImage(!prog.timing_only);
  for (uint32_t i = 0; i < g.operands.size(); ++i) {
    const auto& o = g.operands[i];
    if (o.is_constant() || o.lifetime == Lifetime::NO_VALUE || o.lifetime == Lifetime::SUBGRAPH) continue;
    if (!o.fully_specified()) return make_error("operand " + std::to_string(i) + " has unknown dimensions");
    prog.arena[i] = {prog.arena_bytes, o.byte_size()};
    prog.arena_bytes = align(prog.arena_bytes + o.byte_size(), kArenaAlign);
  }
  size_t descriptors = 0;
  for (uint32_t i = 0; i < g.operations.size(); ++i) {
    Stage stage;
    stage.operation = i;
    if (ops::is_control_flow(g.operations[i].type)) {
      log->info("operations[{}] ({}) is interpreted on the host", i,
                models::operation_name(m, g.operations[i].type));
      stage.control_flow = true;
      ++prog.control_flow_operations;
      prog.stages.push_back(std::move(stage));
      continue;
    }
    const std::string name = models::operation_name(m, g.operations[i].type);
    if (auto reason = npu_unsupported_reason(m, i, target); !reason.empty()) {
      // The partitioning: what the NPU cannot run becomes a CPU stage, except a vendor extension
      // operation, which no CPU reference computes (nor NNAPI's CPU fallback): then the model cannot run.
      if (models::is_extension_type(g.operations[i].type))
        return make_error("operations[" + std::to_string(i) + "] (" + name + "): the NPU cannot run it (" +
                          reason + ") and the CPU reference computes no vendor extension");
      if (!ops::is_supported_by_cpu(g, g.operations[i]))
        return make_error("operations[" + std::to_string(i) + "] (" + name + "): runs on neither the NPU (" +
                          reason + ") nor the CPU reference");
      log->info("operations[{}] ({}) runs on the CPU: {}", i, name, reason);
      stage.on_cpu = true;
      stage.cpu_reason = reason;
      stage.cpu_model = extract_operation(m, i, &stage.cpu_inputs, &stage.cpu_outputs);
      ++prog.cpu_operations;
      prog.stages.push_back(std::move(stage));
      continue;
    }
    if (const lower::Lowering* l = lower::find_lowering(m, g.operations[i].type)) {
      if (auto r = l->lower(m, i, target, prog, stage.jobs); !r)
        return make_error("operations[" + std::to_string(i) + "]: " + r.error());
      for (const auto& j : stage.jobs) descriptors += j.commands.size();
      prog.stages.push_back(std::move(stage));
      continue;
    }
    auto s = array_spec(m, i, target);
    if (auto r = lower_conv(m, *s, target, prog, stage); !r)
      return make_error("operations[" + std::to_string(i) + "]: " + r.error());
    log->info("operations[{}] ({}): {}; predicted {} cycles", i,
              models::operation_name(m, g.operations[i].type), stage.tiling, stage.predicted_cycles);
    for (const auto& j : stage.jobs) descriptors += j.commands.size();
    prog.stages.push_back(std::move(stage));
  }
  log->info("compiled {} operations: {} tiles, {} descriptors, {} B weights, {} B arena", g.operations.size(),
            prog.tiles, descriptors, prog.weights.size(), prog.arena_bytes);
  return prog;
}

models::Model extract_operation(const models::Model& m, uint32_t index, std::vector<uint32_t>* inputs,
                                std::vector<uint32_t>* outputs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  models::Model sub;
  sub.relax_computation_float32_to_float16 = m.relax_computation_float32_to_float16;
  sub.referenced = m.referenced;
  sub.extension_name_to_prefix = m.extension_name_to_prefix;
  std::map<uint32_t, uint32_t> renumber;
  auto take = [&](uint32_t original, bool is_output) {
    if (auto it = renumber.find(original); it != renumber.end()) return it->second;
    models::Operand o = g.operands[original];
    if (is_output) {
      o.lifetime = Lifetime::SUBGRAPH_OUTPUT;
      outputs->push_back(original);
      sub.main.output_indexes.push_back(static_cast<uint32_t>(sub.main.operands.size()));
    } else if (!o.is_constant() && o.lifetime != Lifetime::NO_VALUE && o.lifetime != Lifetime::SUBGRAPH) {
      o.lifetime = Lifetime::SUBGRAPH_INPUT;
      inputs->push_back(original);
      sub.main.input_indexes.push_back(static_cast<uint32_t>(sub.main.operands.size()));
    }
    sub.main.operands.push_back(std::move(o));
    return renumber[original] = static_cast<uint32_t>(sub.main.operands.size() - 1);
  };
  models::Operation copy{op.type, {}, {}};
  for (uint32_t i : op.inputs) copy.inputs.push_back(take(i, false));
  for (uint32_t o : op.outputs) copy.outputs.push_back(take(o, true));
  sub.main.operations.push_back(std::move(copy));
  return sub;
}

void WeightsImage::align_to(uint64_t alignment) {
  size_ = align(size_, alignment);
  if (materialised_) bytes_.resize(size_);
}

uint64_t WeightsImage::append(const void* data, uint64_t n) {
  const uint64_t at = size_;
  size_ += n;
  if (materialised_ && n) {
    bytes_.resize(size_);
    std::memcpy(bytes_.data() + at, data, n);
  }
  return at;
}

std::vector<desc::Raw> relocate(const NpuStep& step,
                                const std::function<uint64_t(Region, uint64_t)>& device_address) {
  std::vector<desc::Raw> out = step.commands;
  for (const auto& r : step.relocations)
    desc::set_dma_dev(out[r.descriptor], device_address(r.region, desc::dma_dev(out[r.descriptor])));
  return out;
}

std::vector<desc::Raw> relocate(const NpuStep& step, uint64_t weights_base, uint64_t arena_base) {
  return relocate(step, [&](Region region, uint64_t offset) {
    return offset + (region == Region::WEIGHTS ? weights_base : arena_base);
  });
}

}  // namespace npu::hal
