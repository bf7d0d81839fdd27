// ADD, SUB and MUL on the vector unit (ELTWISE), float32 and both quant8 types, with the fused
// activation; MAXIMUM and MINIMUM (NNAPI 1.2, no activation) in float32, and quantised when both inputs
// share the output's scale and zero point (no requantisation: the result is one of the raw inputs);
// PRELU (NNAPI 1.2) in float32 and both quant8 types, alpha the second operand (full or periodic, never
// the input), each operand with its own quantisation: the PRELU function takes the CPU kernel's two
// multipliers (input/output through ops::safe_multiplier, input·alpha/output through conv_multiplier).
// Broadcasting is supported when one operand covers the whole output and the other's (leading-1-stripped)
// shape equals the output's trailing dimensions, i.e. it repeats with a period in the flat layout (a bias per
// channel, a scalar); for ADD and MUL the periodic operand may be either. Quantised arithmetic takes its
// multipliers from ops::add_sub_rescale / conv_multiplier, the CPU reference's own functions.
#include <algorithm>

#include "lowering.h"
#include "npu/hal/ops/quant_math.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;
using models::OperationType;

enum class Bcast { FULL, PERIODIC, OTHER };

uint64_t product(const std::vector<uint32_t>& d) {
  uint64_t p = 1;
  for (uint32_t v : d) p *= v;
  return p;
}

Bcast broadcast_kind(const std::vector<uint32_t>& d, const std::vector<uint32_t>& out) {
  size_t k = 0;
  while (k < d.size() && d[k] == 1) ++k;
  const std::vector<uint32_t> t(d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
  if (t.size() > out.size() ||
      !std::equal(t.begin(), t.end(), out.end() - static_cast<std::ptrdiff_t>(t.size())))
    return Bcast::OTHER;
  return product(t) == product(out) ? Bcast::FULL : Bcast::PERIODIC;
}

struct Plan {
  uint32_t x, y;           // x covers the output; y is full too or periodic
  uint64_t count, period;  // period 0: y is full
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const bool prelu = op.type == OperationType::PRELU;
  const bool no_activation = prelu || op.type == OperationType::MAXIMUM || op.type == OperationType::MINIMUM;
  const bool extreme = op.type == OperationType::MAXIMUM || op.type == OperationType::MINIMUM;
  if (op.inputs.size() != (no_activation ? 2u : 3u) || op.outputs.size() != 1)
    return make_error(no_activation ? "expected 2 inputs and 1 output" : "expected 3 inputs and 1 output");
  const uint32_t a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {a, b, out}); !r.empty()) return make_error(r);
  const OperandType t = g.operands[out].type;
  if (t != OperandType::TENSOR_FLOAT32 && !is_quant8(t))
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  if (g.operands[a].type != t || g.operands[b].type != t)
    return make_error("input types differ from the output's");
  if (!no_activation && !const_int(m, op.inputs[2]))
    return make_error("the fused activation must be a constant");
  if (extreme && is_quant8(t))
    for (uint32_t i : {a, b})
      if (g.operands[i].scale != g.operands[out].scale ||
          g.operands[i].zero_point != g.operands[out].zero_point)
        return make_error(
            "quantised inputs must share the output's scale and zero point (else requantised on the CPU)");
  const auto& od = g.operands[out].dimensions;
  const Bcast ka = broadcast_kind(g.operands[a].dimensions, od),
              kb = broadcast_kind(g.operands[b].dimensions, od);
  const uint64_t n = product(od);
  if (ka == Bcast::FULL && kb != Bcast::OTHER)
    return Plan{a, b, n, kb == Bcast::FULL ? 0 : product(g.operands[b].dimensions)};
  if (kb == Bcast::FULL && ka == Bcast::PERIODIC && op.type != OperationType::SUB && !prelu)  // commutative
    return Plan{b, a, n, product(g.operands[a].dimensions)};
  return make_error("broadcast of " + models::dims_to_string(g.operands[a].dimensions) + " with " +
                    models::dims_to_string(g.operands[b].dimensions) +
                    " is not a trailing-dimension broadcast the NPU supports");
}

FlatWork work_of(const models::Model& m, const Plan& p) {
  const uint32_t e = elem_bytes(m.main.operands[p.x].type);
  FlatWork w;
  w.count = p.count;
  w.granule = p.period ? p.period : 1;
  w.fixed_bytes = p.period * e;
  w.bytes_per_item = p.period ? e : 2 * e;  // x (computed in place) and, when full, y
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  return flat_fits(work_of(m, *p), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto p = plan(m, index);
  if (!p) return make_error(p.error());
  const auto& xo = g.operands[p->x];
  const auto& yo = g.operands[p->y];
  const auto& oo = g.operands[op.outputs[0]];
  const uint32_t e = elem_bytes(oo.type);
  const bool prelu = op.type == OperationType::PRELU;
  const bool extreme = op.type == OperationType::MAXIMUM || op.type == OperationType::MINIMUM;
  const int32_t act = extreme || prelu ? 0 : *const_int(m, op.inputs[2]);

  desc::Eltwise d{};
  d.h.opcode = desc::Opcode::ELTWISE;
  d.func = op.type == OperationType::ADD       ? desc::EltwiseFunc::ADD
           : op.type == OperationType::SUB     ? desc::EltwiseFunc::SUB
           : op.type == OperationType::MAXIMUM ? desc::EltwiseFunc::MAX
           : op.type == OperationType::MINIMUM ? desc::EltwiseFunc::MIN
           : prelu                             ? desc::EltwiseFunc::PRELU
                                               : desc::EltwiseFunc::MUL;
  d.dtype = dtype_of(oo.type);
  d.b_period = static_cast<uint32_t>(p->period);
  if (oo.type == OperandType::TENSOR_FLOAT32) {
    float_clamp(act, &d.clamp_lo, &d.clamp_hi);
  } else {
    d.a_offset = -xo.zero_point;
    d.b_offset = -yo.zero_point;
    d.out_offset = oo.zero_point;
    if (prelu) {
      const auto pos = ops::safe_multiplier(static_cast<double>(xo.scale) / static_cast<double>(oo.scale));
      const auto neg = ops::conv_multiplier(xo.scale, yo.scale, oo.scale);
      d.a_scale = {pos.multiplier, pos.shift};
      d.b_scale = {neg.multiplier, neg.shift};
    } else if (extreme) {
      // Equal quantisation (checked above): rescale by exactly 1 (2^30 · 2^1 / 2^31) and restore the zero
      // point.
      d.a_scale = d.b_scale = {1 << 30, 1};
    } else if (op.type == OperationType::MUL) {
      const auto q = ops::conv_multiplier(xo.scale, yo.scale, oo.scale);
      d.out_scale = {q.multiplier, q.shift};
    } else {
      const auto rs = ops::add_sub_rescale(xo.scale, yo.scale, oo.scale, op.type == OperationType::SUB);
      d.left_shift = rs.left_shift;
      d.a_scale = {rs.a.multiplier, rs.a.shift};
      d.b_scale = {rs.b.multiplier, rs.b.shift};
      d.out_scale = {rs.out.multiplier, rs.out.shift};
    }
    int32_t qmin = 0, qmax = 0;
    ops::quant8_range(oo.type, &qmin, &qmax);
    const auto r = fx::quantized_activation_range(static_cast<fx::FusedActivation>(act), oo.scale,
                                                  oo.zero_point, qmin, qmax);
    d.clamp_lo = r.lo;
    d.clamp_hi = r.hi;
  }
  const Source xs = operand_source(m, p->x, prog), ys = operand_source(m, p->y, prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const FlatWork w = work_of(m, *p);
  auto prologue = [&](Emitter& emit) {
    if (p->period) emit.dma(desc::Opcode::DMA_IN, ys.region, ys.offset, 0, p->period * e);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t y_sram = p->period ? 0 : buffer + capacity * e;
    emit.dma(desc::Opcode::DMA_IN, xs.region, xs.offset + first * e, buffer, items * e);
    if (!p->period) emit.dma(desc::Opcode::DMA_IN, ys.region, ys.offset + first * e, y_sram, items * e);
    desc::Eltwise c = d;
    c.a_sram = static_cast<uint32_t>(buffer);
    c.b_sram = static_cast<uint32_t>(y_sram);
    c.out_sram = static_cast<uint32_t>(buffer);
    c.count = static_cast<uint32_t>(items);
    emit.op(c);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * e, buffer, items * e);
  };
  lower_flat(w, target, jobs, prologue, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& eltwise_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
