// MEAN, REDUCE_SUM and REDUCE_MAX on the vector unit (REDUCE) when the reduced axes form one contiguous block
// once extents of 1 are ignored, so the input is [outer, extent, inner] and the reference's ascending-index
// sums are the descriptor's ascending-extent sums; float32 and both quant8 types (REDUCE_SUM is float-only in
// NNAPI; quantised REDUCE_MAX keeps the input's quantisation, so the raw maximum is the result). REDUCE_MIN
// has no vector function and stays on the CPU. Quantised, the reference's truncating integer mean of (q −
// qmin), clamped and shifted back by qmin (ops::quant8_range).
#include <algorithm>
#include <cstring>
#include <set>

#include "lowering.h"
#include "npu/hal/ops/quant_math.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  uint64_t outer, extent, inner;
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() != 3 || op.outputs.size() != 1) return make_error("expected 3 inputs and 1 output");
  const uint32_t in = op.inputs[0], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {in, out}); !r.empty()) return make_error(r);
  const auto t = g.operands[in].type;
  if (t != OperandType::TENSOR_FLOAT32 && !is_quant8(t))
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  if (g.operands[out].type != t) return make_error("output type differs from the input's");
  const auto& axes = g.operands[op.inputs[1]];
  if (!axes.is_constant() || axes.type != OperandType::TENSOR_INT32 || axes.data.empty())
    return make_error("axes must be a constant TENSOR_INT32 for the NPU");
  const auto& dims = g.operands[in].dimensions;
  const auto rank = static_cast<int32_t>(dims.size());
  std::set<int32_t> reduced;
  for (size_t i = 0; i + 4 <= axes.data.size(); i += 4) {
    int32_t a;
    std::memcpy(&a, axes.data.data() + i, 4);
    if (a < -rank || a >= rank) return make_error("axis out of range");
    reduced.insert(a < 0 ? a + rank : a);
  }
  const int32_t lo = *reduced.begin(), hi = *reduced.rbegin();
  for (int32_t k = lo; k <= hi; ++k)
    if (!reduced.count(k) && dims[static_cast<size_t>(k)] != 1)
      return make_error("MEAN over non-adjacent axes is not supported by the NPU");
  Plan p{1, 1, 1};
  for (int32_t k = 0; k < rank; ++k)
    (k < lo ? p.outer : k > hi ? p.inner : p.extent) *= dims[static_cast<size_t>(k)];
  return p;
}

FlatWork work_of(const models::Model& m, uint32_t index, const Plan& p) {
  const uint32_t e = elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type);
  FlatWork w;
  w.count = p.outer;
  w.bytes_per_item = (p.extent + 1) * p.inner * e;  // input slice and its reduced output
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  return flat_fits(work_of(m, index, *p), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto p = plan(m, index);
  if (!p) return make_error(p.error());
  const auto& in = g.operands[op.inputs[0]];
  const uint32_t e = elem_bytes(in.type);
  desc::Reduce d{};
  d.h.opcode = desc::Opcode::REDUCE;
  d.func = op.type == models::OperationType::REDUCE_MAX   ? desc::ReduceFunc::MAX
           : op.type == models::OperationType::REDUCE_SUM ? desc::ReduceFunc::SUM
                                                          : desc::ReduceFunc::MEAN;
  d.dtype = dtype_of(in.type);
  d.extent = static_cast<uint32_t>(p->extent);
  d.inner = static_cast<uint32_t>(p->inner);
  if (in.type == OperandType::TENSOR_FLOAT32) {
    float_clamp(0, &d.clamp_lo, &d.clamp_hi);
  } else {
    int32_t qmin = 0, qmax = 0;
    ops::quant8_range(in.type, &qmin, &qmax);
    if (d.func == desc::ReduceFunc::MEAN) {
      d.in_offset = -qmin;
      d.out_offset = qmin;
    }
    d.clamp_lo = qmin;
    d.clamp_hi = qmax;
  }
  const Source src = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t in_item = p->extent * p->inner * e, out_item = p->inner * e;
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t out_sram = buffer + capacity * in_item;
    emit.dma(desc::Opcode::DMA_IN, src.region, src.offset + first * in_item, buffer, items * in_item);
    desc::Reduce c = d;
    c.in_sram = static_cast<uint32_t>(buffer);
    c.out_sram = static_cast<uint32_t>(out_sram);
    c.outer = static_cast<uint32_t>(items);
    emit.op(c);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * out_item, out_sram, items * out_item);
  };
  lower_flat(work_of(m, index, *p), target, jobs, nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& mean_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
