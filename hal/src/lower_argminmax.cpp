// ARGMAX and ARGMIN (NNAPI 1.2) on the vector unit: the input seen as [outer, extent, inner] around the
// constant axis, chunks of whole outer slices through SRAM, one REDUCE ARGMAX/ARGMIN descriptor per chunk
// writing TENSOR_INT32 indices. The descriptor compares with the CPU reference's strict comparisons in
// the same order (first index wins ties), so the results are the reference's; float32 and both quant8
// types (raw values order like the real ones). FLOAT16 and INT32 inputs stay on the CPU.
#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  uint64_t outer = 1, extent = 1, inner = 1;
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() != 2 || op.outputs.size() != 1) return make_error("expected 2 inputs and 1 output");
  if (auto r = unknown_dims_reason(m, {op.inputs[0], op.outputs[0]}); !r.empty()) return make_error(r);
  const auto& x = g.operands[op.inputs[0]];
  if (x.type != OperandType::TENSOR_FLOAT32 && !is_quant8(x.type))
    return make_error("data type " + std::string(models::to_string(x.type)) + " is not supported on the NPU");
  const auto axis = const_int(m, op.inputs[1]);
  if (!axis) return make_error("axis must be a constant");
  const auto rank = static_cast<int32_t>(x.dimensions.size());
  const int32_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) return make_error("axis out of range");
  Plan p;
  for (int32_t k = 0; k < rank; ++k)
    (k < a ? p.outer : k > a ? p.inner : p.extent) *= x.dimensions[static_cast<size_t>(k)];
  return p;
}

FlatWork work_of(const models::Model& m, uint32_t index, const Plan& p) {
  const uint32_t e = elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type);
  FlatWork w;
  w.count = p.outer;
  w.bytes_per_item = p.extent * p.inner * e + p.inner * 4;  // input slice and its int32 indices
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
  d.func = op.type == models::OperationType::ARGMAX ? desc::ReduceFunc::ARGMAX : desc::ReduceFunc::ARGMIN;
  d.dtype = dtype_of(in.type);
  d.extent = static_cast<uint32_t>(p->extent);
  d.inner = static_cast<uint32_t>(p->inner);
  const Source src = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t in_item = p->extent * p->inner * e, out_item = p->inner * 4;
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

const Lowering& argminmax_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
