// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D on the vector unit (POOL), NHWC or NCHW, float32 and both
// quant8 types (L2 is float only, as in NNAPI), tiled into output-row bands × channel blocks (lower_spatial).
// Window taps in the padding are skipped and the average divides by the in-bounds taps, as the CPU
// reference does; the quantised clamp is the reference's quantized_activation_range.
#include "lowering.h"
#include "npu/hal/ops/quant_math.h"
#include "npu/hal/ops/window_ops.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;
using models::OperationType;

struct Plan {
  ops::Pool2DParams p;
  SpatialOp s;
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.empty() || op.outputs.size() != 1) return make_error("expected an input and 1 output");
  auto p = ops::pool_2d_params(g, op);
  if (!p) return make_error(p.error());
  const uint32_t in = op.inputs[0], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {in, out}); !r.empty()) return make_error(r);
  const auto t = g.operands[in].type;
  if (t != OperandType::TENSOR_FLOAT32 && !is_quant8(t))
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  if (g.operands[out].type != t) return make_error("output type differs from the input's");
  if (g.operands[in].dimensions.size() != 4 || g.operands[out].dimensions.size() != 4)
    return make_error("shapes must be rank 4");
  const Nhwc x = nhwc_extents(g.operands[in], p->window.nchw),
             y = nhwc_extents(g.operands[out], p->window.nchw);
  if (y.c != x.c) return make_error("output channels differ from the input's");
  Plan r{*p, {}};
  r.s.set_extents(x, y, p->window.nchw);
  r.s.kh = p->filter_h;
  r.s.stride_h = p->window.stride_h;
  r.s.dil_h = 1;
  r.s.pad_top = static_cast<int32_t>(p->window.pad_top);
  r.s.depth_multiplier = 1;
  r.s.elem = elem_bytes(t);
  r.s.fixed_bytes = [](uint32_t) { return uint64_t{0}; };
  return r;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  auto t = choose_spatial_tile(p->s, target);
  return t ? "" : t.error();
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto p = plan(m, index);
  if (!p) return make_error(p.error());
  auto tile = choose_spatial_tile(p->s, target);
  if (!tile) return make_error(tile.error());
  const auto& o = g.operands[op.outputs[0]];
  desc::Pool d{};
  d.h.opcode = desc::Opcode::POOL;
  d.func = op.type == OperationType::AVERAGE_POOL_2D ? desc::PoolFunc::AVG
           : op.type == OperationType::MAX_POOL_2D   ? desc::PoolFunc::MAX
                                                     : desc::PoolFunc::L2;
  d.dtype = dtype_of(o.type);
  d.in_w = p->s.in_w;
  d.out_w = p->s.out_w;
  d.filter_h = p->p.filter_h;
  d.filter_w = p->p.filter_w;
  d.stride_h = p->p.window.stride_h;
  d.stride_w = p->p.window.stride_w;
  d.col_origin = -static_cast<int32_t>(p->p.window.pad_left);
  const int32_t act = static_cast<int32_t>(p->p.window.activation);
  if (o.type == OperandType::TENSOR_FLOAT32) {
    float_clamp(act, &d.clamp_lo, &d.clamp_hi);
  } else {
    int32_t qmin = 0, qmax = 0;
    ops::quant8_range(o.type, &qmin, &qmax);
    const auto r = fx::quantized_activation_range(p->p.window.activation, o.scale, o.zero_point, qmin, qmax);
    d.clamp_lo = r.lo;
    d.clamp_hi = r.hi;
    d.in_scale = g.operands[op.inputs[0]].scale;
    d.in_zero_point = g.operands[op.inputs[0]].zero_point;
  }
  const Source in = operand_source(m, op.inputs[0], prog);
  auto no_constants = [](Emitter&, uint32_t, uint32_t) {};
  auto compute = [&](Emitter& emit, const SpatialTileRef& t) {
    desc::Pool c = d;
    c.in_sram = static_cast<uint32_t>(t.in_sram);
    c.in_h = static_cast<uint32_t>(t.in_rows);
    c.channels = t.cb;
    c.out_sram = static_cast<uint32_t>(t.out_sram);
    c.out_h = t.rb;
    c.row_origin = t.row_origin;
    emit.op(c);
    ++prog.tiles;
  };
  lower_spatial(p->s, *tile, target, in, prog.arena.at(op.outputs[0]).offset, jobs, no_constants, compute);
  return {};
}

}  // namespace

const Lowering& pool_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
