// SELECT (NNAPI 1.2) on the vector unit: out = cond ? input1 : input2 element by element, the chosen
// element copied bit for bit, in flat chunks. TENSOR_FLOAT32, TENSOR_INT32 and both quant8 types when the
// two inputs share the output's scale and zero point (the CPU requantises otherwise, so that case stays
// there). The condition is a TENSOR_BOOL8, one byte per element; SELECT does not broadcast.
#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

// Element bytes of a type SELECT takes on the NPU (0: not one).
uint32_t select_bytes(OperandType t) {
  if (t == OperandType::TENSOR_FLOAT32 || t == OperandType::TENSOR_INT32) return 4;
  return is_quant8(t) ? 1 : 0;
}

Result<uint64_t> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() != 3 || op.outputs.size() != 1) return make_error("expected 3 inputs and 1 output");
  const uint32_t c = op.inputs[0], a = op.inputs[1], b = op.inputs[2], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {c, a, b, out}); !r.empty()) return make_error(r);
  const auto& oo = g.operands[out];
  if (select_bytes(oo.type) == 0)
    return make_error("data type " + std::string(models::to_string(oo.type)) +
                      " is not supported on the NPU");
  if (g.operands[c].type != OperandType::TENSOR_BOOL8)
    return make_error("the condition must be TENSOR_BOOL8");
  for (uint32_t i : {a, b}) {
    if (g.operands[i].type != oo.type) return make_error("input types differ from the output's");
    if (g.operands[i].dimensions != oo.dimensions || g.operands[c].dimensions != oo.dimensions)
      return make_error("operand shapes differ");
    if (is_quant8(oo.type) && (g.operands[i].scale != oo.scale || g.operands[i].zero_point != oo.zero_point))
      return make_error(
          "quantised inputs with another scale or zero point than the output's (the CPU "
          "requantises)");
  }
  return oo.element_count();
}

FlatWork work_of(uint64_t n, uint32_t e) {
  FlatWork w;
  w.count = n;
  w.bytes_per_item = 1 + 2 * uint64_t{e};  // condition byte, both inputs (the output overwrites input1)
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto n = plan(m, index);
  if (!n) return n.error();
  return flat_fits(work_of(*n, select_bytes(m.main.operands[m.main.operations[index].outputs[0]].type)),
                   target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto n = plan(m, index);
  if (!n) return make_error(n.error());
  const auto t = g.operands[op.outputs[0]].type;
  const uint32_t e = select_bytes(t);
  desc::Select d{};
  d.h.opcode = desc::Opcode::SELECT;
  d.dtype = t == OperandType::TENSOR_INT32 ? desc::DType::I32 : dtype_of(t);
  const Source cs = operand_source(m, op.inputs[0], prog), as = operand_source(m, op.inputs[1], prog),
               bs = operand_source(m, op.inputs[2], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  // Buffer layout per chunk of `capacity` elements: input1 (then the output) | input2 | condition.
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t b_sram = buffer + capacity * e, c_sram = buffer + 2 * capacity * e;
    emit.dma(desc::Opcode::DMA_IN, as.region, as.offset + first * e, buffer, items * e);
    emit.dma(desc::Opcode::DMA_IN, bs.region, bs.offset + first * e, b_sram, items * e);
    emit.dma(desc::Opcode::DMA_IN, cs.region, cs.offset + first, c_sram, items);
    desc::Select s = d;
    s.a_sram = s.out_sram = static_cast<uint32_t>(buffer);
    s.b_sram = static_cast<uint32_t>(b_sram);
    s.cond_sram = static_cast<uint32_t>(c_sram);
    s.count = static_cast<uint32_t>(items);
    emit.op(s);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * e, buffer, items * e);
  };
  lower_flat(work_of(*n, e), target, jobs, nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& select_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
