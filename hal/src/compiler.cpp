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
    s = {op.inputs[0], op.inputs[1], op.inputs[2], op.outputs[0], in.n, in.h, in.w, in.c, out.h, out.w,
         out.c, f[1], f[2], p->stride_h, p->stride_w, p->dilation_h, p->dilation_w,
         static_cast<int32_t>(p->pad_top), static_cast<int32_t>(p->pad_left), p->activation, p->nchw};
  } else if (op.type == OperationType::FULLY_CONNECTED) {
    auto p = ops::fully_connected_params(g, op);
    if (!p) return make_error(p.error());
    s = {op.inputs[0], op.inputs[1], op.inputs[2], op.outputs[0], 1, p->batch_size, 1, p->input_size, p->batch_size,
         1, p->num_units, 1, 1, 1, 1, 1, 1, 0, 0, p->activation, false};
  } else {
    return make_error(std::string(models::to_string(op.type)) + " has no NPU lowering");
  }
  for (uint32_t i : {s.input, s.output}) {
    if (!g.operands[i].fully_specified()) return make_error("operand " + std::to_string(i) + " has unknown dimensions");
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
Result<ConvSpec> array_spec(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto s = conv_spec(m, index);
  if (!s || m.main.operations[index].type != OperationType::FULLY_CONNECTED) return s;
  const uint32_t batch = s->out_h, elem = elem_bytes(m.main.operands[s->input].type);
  for (uint32_t w = batch; w > 1; --w) {
    if (batch % w) continue;
    ConvSpec wide = *s;
    wide.in_h = wide.out_h = batch / w;
    wide.in_w = wide.out_w = w;
    if (tiling::fits_reason(wide, elem, target).empty()) return wide;
  }
  return s;
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

Result<void> lower_conv(const models::Model& m, const ConvSpec& s, const NpuTarget& target, Program& prog,
                        Stage& stage) {
  const auto& g = m.main;
  const auto& in = g.operands[s.input];
  const auto& out = g.operands[s.output];
  const uint32_t elem = elem_bytes(in.type);
  auto plan = tiling::choose_plan(s, elem, target);
  if (!plan) return make_error(plan.error());
  stage.tiling = tiling::describe(s, *plan);
  stage.predicted_cycles = plan->predicted_cycles;
  std::vector<NpuStep>& jobs = stage.jobs;
  const uint64_t in_base = prog.arena.at(s.input).offset;
  const uint64_t out_base = prog.arena.at(s.output).offset;
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
  }

  // The plan's tiles; job j takes a contiguous run of them (tiling::job_steps says what each loads).
  const std::vector<tiling::TileRef> tiles = tiling::plan_tiles(s, *plan);
  const tiling::RingLayout l = tiling::ring_layout(s, elem, *plan);
  jobs.assign(plan->jobs, NpuStep{});
  std::map<uint32_t, PackedBlock> packed;
  for (const auto& t : tiles)
    if (!packed.count(t.o0)) packed[t.o0] = pack_block(m, s, t.o0, t.ob, prog.weights);

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
            pp.bytes[0] = static_cast<uint32_t>(l.size.w * static_cast<uint64_t>(st.live_w_last - st.live_w_first + 1));
          }
          if (st.live_in_last >= st.live_in_first) {
            pp.offset[1] = static_cast<uint32_t>(l.in(static_cast<uint32_t>(st.live_in_first)));
            pp.bytes[1] =
                static_cast<uint32_t>(l.size.in * static_cast<uint64_t>(st.live_in_last - st.live_in_first + 1));
          }
          emit.op(pp);
          break;
        }
        case tiling::StepKind::LOAD_W: {
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
            emit.dma(desc::Opcode::DMA_IN, Region::ARENA,
                     in_base + (static_cast<uint64_t>(t.n) * s.in_h + a) * in_row_bytes, l.in(st.slot), in_row_bytes,
                     rows, br.step * in_row_bytes, in_row_bytes);
          } else {
            emit.dma(desc::Opcode::DMA_IN, Region::ARENA,
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
          if (s.nchw) {
            const uint64_t plane = static_cast<uint64_t>(s.out_h) * s.out_w * elem;
            lower::dma_nchw_out(emit,
                                out_base + (static_cast<uint64_t>(t.n) * s.out_c + t.o0) * plane +
                                    static_cast<uint64_t>(t.oy0) * s.out_w * elem,
                                plane, l.out(st.slot), t.ob, static_cast<uint64_t>(t.rb) * s.out_w, elem);
          } else {
            const uint64_t out_pixel0 = (static_cast<uint64_t>(t.n) * s.out_h + t.oy0) * s.out_w;
            emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + (out_pixel0 * s.out_c + t.o0) * elem,
                     l.out(st.slot), static_cast<uint64_t>(t.ob) * elem, static_cast<uint64_t>(t.rb) * s.out_w,
                     static_cast<uint64_t>(s.out_c) * elem, static_cast<uint64_t>(t.ob) * elem);
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
  if (!is_quant8(t)) return std::string("data type ") + std::string(models::to_string(t)) + " is not supported";
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
    for (uint32_t k = 0; k < sub.main.operations.size(); ++k)
      if (auto r = npu_unsupported_reason(sub, k, target); !r.empty())
        return "referenced[" + std::to_string(o.subgraph) + "].operations[" + std::to_string(k) + "] (" +
               std::string(models::to_string(sub.main.operations[k].type)) + "): " + r;
  }
  return "";
}

}  // namespace

Result<void> lower::lower_conv_operation(const models::Model& m, uint32_t index, const NpuTarget& target,
                                         Program& prog, std::vector<NpuStep>& jobs) {
  auto s = array_spec(m, index, target);
  if (!s) return make_error(s.error());
  // The rewritten operation's jobs only: its tiling words stay with CONV_2D stages (--explain-tiling).
  Stage stage;
  if (auto r = lower_conv(m, *s, target, prog, stage); !r) return r;
  for (auto& j : stage.jobs) jobs.push_back(std::move(j));
  return {};
}

std::string npu_unsupported_reason(const models::Model& m, uint32_t index, const NpuTarget& target) {
  const auto& lowered = target.lowered_operations;
  if (!lowered.empty() && index < m.main.operations.size() &&
      std::find(lowered.begin(), lowered.end(), m.main.operations[index].type) == lowered.end())
    return "this device does not lower " + std::string(models::to_string(m.main.operations[index].type));
  if (ops::is_control_flow(m.main.operations[index].type)) return control_flow_reason(m, index, target);
  if (const lower::Lowering* l = lower::find_lowering(m.main.operations[index].type))
    return l->unsupported(m, index, target);
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
      log->info("operations[{}] ({}) is interpreted on the host", i, models::to_string(g.operations[i].type));
      stage.control_flow = true;
      ++prog.control_flow_operations;
      prog.stages.push_back(std::move(stage));
      continue;
    }
    if (auto reason = npu_unsupported_reason(m, i, target); !reason.empty()) {
      if (!ops::is_supported_by_cpu(g, g.operations[i]))
        return make_error("operations[" + std::to_string(i) + "] (" +
                          std::string(models::to_string(g.operations[i].type)) + "): runs on neither the NPU (" +
                          reason + ") nor the CPU reference");
      log->info("operations[{}] ({}) runs on the CPU: {}", i, models::to_string(g.operations[i].type), reason);
      stage.on_cpu = true;
      stage.cpu_reason = reason;
      stage.cpu_model = extract_operation(m, i, &stage.cpu_inputs, &stage.cpu_outputs);
      ++prog.cpu_operations;
      prog.stages.push_back(std::move(stage));
      continue;
    }
    if (const lower::Lowering* l = lower::find_lowering(g.operations[i].type)) {
      if (auto r = l->lower(m, i, target, prog, stage.jobs); !r)
        return make_error("operations[" + std::to_string(i) + "]: " + r.error());
      for (const auto& j : stage.jobs) descriptors += j.commands.size();
      prog.stages.push_back(std::move(stage));
      continue;
    }
    auto s = array_spec(m, i, target);
    if (auto r = lower_conv(m, *s, target, prog, stage); !r)
      return make_error("operations[" + std::to_string(i) + "]: " + r.error());
    log->info("operations[{}] ({}): {}; predicted {} cycles", i, models::to_string(g.operations[i].type),
              stage.tiling, stage.predicted_cycles);
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

std::vector<desc::Raw> relocate(const NpuStep& step, uint64_t weights_base, uint64_t arena_base) {
  std::vector<desc::Raw> out = step.commands;
  for (const auto& r : step.relocations) {
    auto d = desc::decode<desc::Dma>(out[r.descriptor]);
    d.dev += r.region == Region::WEIGHTS ? weights_base : arena_base;
    out[r.descriptor] = desc::encode(d);
  }
  return out;
}

}  // namespace npu::hal
