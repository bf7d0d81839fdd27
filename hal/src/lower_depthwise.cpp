// DEPTHWISE_CONV_2D on the vector unit (DWCONV_INT8 / DWCONV_FP32), NHWC or NCHW, any stride, dilation and
// depth multiplier, float32 and both quant8 types (filters of the input's type or per-channel
// symmetric), tiled into output-row bands × input-channel blocks (lower_spatial). Weights are packed per
// block as taps × block output channels; quantised operands move to the int8 domain (uint8 x − 128)
// with the zero-point cross terms folded into the bias, exactly as CONV_2D's packing, so
//   Σ(a − za)(w − zw) + bias = Σ a'w' − zw'·Σa' + (bias − za'·Σw' + taps·za'·zw')
// and padding taps (a' = za') add nothing, as the reference's skipped taps. Requantisation multipliers
// come from ops::conv_multiplier, the CPU reference's own.
#include <cstring>
#include <map>

#include "lowering.h"
#include "npu/hal/ops/quant_math.h"
#include "npu/hal/ops/window_ops.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  ops::DepthwiseConv2DParams p;
  SpatialOp s;
  uint32_t taps, out_c;
};

uint64_t block_constants(uint32_t taps, uint32_t ob, uint32_t e, bool quant) {
  const uint64_t w = align(uint64_t{taps} * ob * e, kSramAlign);
  const uint64_t bias = align(4ull * ob, kSramAlign);
  return w + bias + (quant ? 8ull * ob : 0);
}

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() < 3 || op.outputs.size() != 1) return make_error("expected 3+ inputs and 1 output");
  auto p = ops::depthwise_conv_2d_params(g, op);
  if (!p) return make_error(p.error());
  const uint32_t in = op.inputs[0], f = op.inputs[1], b = op.inputs[2], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {in, f, out}); !r.empty()) return make_error(r);
  if (!g.operands[f].is_constant() || !g.operands[b].is_constant())
    return make_error("filter and bias must be constants for the NPU");
  const auto t = g.operands[in].type, ft = g.operands[f].type;
  if (t == OperandType::TENSOR_FLOAT32) {
    if (ft != t) return make_error("filter type differs from input type");
  } else if (!is_quant8(t)) {
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  } else if (ft != t && ft != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return make_error("filter type is not supported");
  }
  if (g.operands[out].type != t) return make_error("output type differs from input type");
  const auto& fd = g.operands[f].dimensions;
  if (g.operands[in].dimensions.size() != 4 || fd.size() != 4 || g.operands[out].dimensions.size() != 4)
    return make_error("shapes must be rank 4");
  const Nhwc x = nhwc_extents(g.operands[in], p->conv.nchw), y = nhwc_extents(g.operands[out], p->conv.nchw);
  if (uint64_t{x.c} * p->depth_multiplier != fd[3] || y.c != fd[3])
    return make_error("output channels must equal input channels × depth multiplier");
  Plan r{*p, {}, fd[1] * fd[2], fd[3]};
  const uint32_t taps = r.taps, dm = p->depth_multiplier, e = elem_bytes(t);
  const bool quant = is_quant8(t);
  r.s.set_extents(x, y, p->conv.nchw);
  r.s.kh = fd[1];
  r.s.stride_h = p->conv.stride_h;
  r.s.dil_h = p->conv.dilation_h;
  r.s.pad_top = static_cast<int32_t>(p->conv.pad_top);
  r.s.depth_multiplier = dm;
  r.s.elem = e;
  r.s.fixed_bytes = [=](uint32_t cb) { return block_constants(taps, cb * dm, e, quant); };
  return r;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  auto t = choose_spatial_tile(p->s, target);
  return t ? "" : t.error();
}

std::vector<uint8_t> bytes_of(const models::Operand& o) {
  std::vector<uint8_t> v = o.data;
  v.resize(o.byte_size());  // zeros for a timing-only model's omitted values
  return v;
}

struct Packed {
  uint64_t w, bias, quant;
};

// Weights (taps × ob), bias and requantisation of output channels [oc0, oc0 + ob) into the weights image.
Packed pack(const models::Model& m, uint32_t index, const Plan& pl, uint32_t oc0, uint32_t ob,
            Program& prog) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const auto& in = g.operands[op.inputs[0]];
  const auto& f = g.operands[op.inputs[1]];
  const auto& out = g.operands[op.outputs[0]];
  const std::vector<uint8_t> fdata = bytes_of(f), bdata = bytes_of(g.operands[op.inputs[2]]);
  Packed p{};
  if (in.type == OperandType::TENSOR_FLOAT32) {
    std::vector<float> w(uint64_t{pl.taps} * ob);
    for (uint64_t t = 0; t < pl.taps; ++t)
      std::memcpy(&w[t * ob], fdata.data() + (t * pl.out_c + oc0) * 4, 4ull * ob);
    p.w = append_weights(prog, w.data(), w.size() * 4);
    p.bias = append_weights(prog, bdata.data() + 4ull * oc0, 4ull * ob);
    return p;
  }
  const bool in_unsigned = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  const bool per_channel = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  const bool w_unsigned = f.type == OperandType::TENSOR_QUANT8_ASYMM;
  const int64_t za = in.zero_point - (in_unsigned ? 128 : 0);
  const int64_t zw = per_channel ? 0 : f.zero_point - (w_unsigned ? 128 : 0);
  std::vector<int8_t> w(uint64_t{pl.taps} * ob);
  std::vector<int32_t> bias(ob), quant(2ull * ob);
  for (uint32_t j = 0; j < ob; ++j) {
    int64_t wsum = 0;
    for (uint64_t t = 0; t < pl.taps; ++t) {
      const uint8_t raw = fdata[t * pl.out_c + oc0 + j];
      const auto v = static_cast<int8_t>(w_unsigned ? (raw ^ 0x80u) : raw);
      w[t * ob + j] = v;
      wsum += v;
    }
    int32_t b32;
    std::memcpy(&b32, bdata.data() + 4ull * (oc0 + j), 4);
    const int64_t folded = b32 - za * wsum + int64_t{pl.taps} * za * zw;
    bias[j] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(folded)));  // wraps as int32
    const float w_scale = per_channel ? f.per_channel->scales[oc0 + j] : f.scale;
    const auto q = ops::conv_multiplier(in.scale, w_scale, out.scale);
    quant[j] = q.multiplier;
    quant[ob + j] = q.shift;
  }
  p.w = append_weights(prog, w.data(), w.size());
  p.bias = append_weights(prog, bias.data(), bias.size() * 4);
  p.quant = append_weights(prog, quant.data(), quant.size() * 4);
  return p;
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto pl = plan(m, index);
  if (!pl) return make_error(pl.error());
  auto tile = choose_spatial_tile(pl->s, target);
  if (!tile) return make_error(tile.error());
  const auto& in = g.operands[op.inputs[0]];
  const auto& f = g.operands[op.inputs[1]];
  const auto& o = g.operands[op.outputs[0]];
  const bool quant = is_quant8(o.type);
  const uint32_t e = elem_bytes(o.type), dm = pl->p.depth_multiplier;
  const auto& fd = f.dimensions;

  desc::Conv d{};
  d.h.opcode = quant ? desc::Opcode::DWCONV_INT8 : desc::Opcode::DWCONV_FP32;
  d.in_w = pl->s.in_w;
  d.kh = fd[1];
  d.kw = fd[2];
  d.out_w = pl->s.out_w;
  d.stride_h = pl->p.conv.stride_h;
  d.stride_w = pl->p.conv.stride_w;
  d.dilation_h = pl->p.conv.dilation_h;
  d.dilation_w = pl->p.conv.dilation_w;
  d.col_origin = -static_cast<int32_t>(pl->p.conv.pad_left);
  d.depth_multiplier = dm;
  if (!quant) {
    float_clamp(static_cast<int32_t>(pl->p.conv.activation), &d.clamp_lo, &d.clamp_hi);
  } else {
    const bool in_unsigned = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    const bool out_unsigned = o.type == OperandType::TENSOR_QUANT8_ASYMM;
    d.pad_value = in.zero_point - (in_unsigned ? 128 : 0);
    d.weight_offset = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL
                          ? 0
                          : f.zero_point - (f.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0);
    d.out_zero_point = o.zero_point;
    int32_t qmin = 0, qmax = 0;
    ops::quant8_range(o.type, &qmin, &qmax);
    const auto r = fx::quantized_activation_range(pl->p.conv.activation, o.scale, o.zero_point, qmin, qmax);
    d.clamp_lo = r.lo;
    d.clamp_hi = r.hi;
    d.flags = (in_unsigned ? desc::kConvInputUnsigned : 0) | (out_unsigned ? desc::kConvOutputUnsigned : 0);
  }
  std::map<uint32_t, Packed> packed;
  auto load_block = [&](Emitter& emit, uint32_t c0, uint32_t cb) {
    const uint32_t ob = cb * dm;
    auto it = packed.find(c0);
    if (it == packed.end()) it = packed.emplace(c0, pack(m, index, *pl, c0 * dm, ob, prog)).first;
    const uint64_t w_bytes = uint64_t{pl->taps} * ob * e;
    const uint64_t bias_sram = align(w_bytes, kSramAlign);
    emit.dma(desc::Opcode::DMA_IN, Region::WEIGHTS, it->second.w, 0, w_bytes);
    emit.dma(desc::Opcode::DMA_IN, Region::WEIGHTS, it->second.bias, bias_sram, 4ull * ob);
    if (quant)
      emit.dma(desc::Opcode::DMA_IN, Region::WEIGHTS, it->second.quant,
               bias_sram + align(4ull * ob, kSramAlign), 8ull * ob);
  };
  auto compute = [&](Emitter& emit, const SpatialTileRef& t) {
    const uint32_t ob = t.cb * dm;
    const uint64_t bias_sram = align(uint64_t{pl->taps} * ob * e, kSramAlign);
    desc::Conv c = d;
    c.in_sram = static_cast<uint32_t>(t.in_sram);
    c.in_h = static_cast<uint32_t>(t.in_rows);
    c.in_c = t.cb;
    c.w_sram = 0;
    c.cout = ob;
    c.bias_sram = static_cast<uint32_t>(bias_sram);
    c.quant_sram = static_cast<uint32_t>(bias_sram + align(4ull * ob, kSramAlign));
    c.out_sram = static_cast<uint32_t>(t.out_sram);
    c.out_h = t.rb;
    c.row_origin = t.row_origin;
    emit.op(c);
    emit.step().macs += uint64_t{t.rb} * pl->s.out_w * ob * pl->taps;
    ++prog.tiles;
  };
  lower_spatial(pl->s, *tile, target, operand_source(m, op.inputs[0], prog),
                prog.arena.at(op.outputs[0]).offset, jobs, load_block, compute);
  return {};
}

}  // namespace

const Lowering& depthwise_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
