// Data movement on the NPU's DMA engines through SRAM, no arithmetic: RESHAPE, EXPAND_DIMS, SQUEEZE and CAST
// to the input's own type (the bytes are unchanged; a CAST between types stays on the CPU) and CONCATENATION
// (each input's rows land side by side in an SRAM row of the output, then whole rows go out). Any element
// type; CONCATENATION of quant8 inputs whose scale or zero point differ from the output's needs
// requantisation and stays on the CPU.
#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;
using models::OperationType;

struct Plan {
  uint64_t outer = 1, out_row = 0;
  std::vector<uint64_t> rows;  // bytes per outer index of each input
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.empty() || op.outputs.size() != 1) return make_error("expected inputs and 1 output");
  const auto& o = g.operands[op.outputs[0]];
  if (!o.fully_specified())
    return make_error("operand " + std::to_string(op.outputs[0]) + " has unknown dimensions");
  if (models::element_size(o.type) == 0)
    return make_error("data type " + std::string(models::to_string(o.type)) + " has no fixed element size");
  Plan p;
  if (op.type == OperationType::CAST && g.operands[op.inputs[0]].type != o.type)
    return make_error("the vector unit has no type conversion for CAST from " +
                      std::string(models::to_string(g.operands[op.inputs[0]].type)) + " to " +
                      std::string(models::to_string(o.type)));
  if (op.type == OperationType::RESHAPE || op.type == OperationType::EXPAND_DIMS ||
      op.type == OperationType::SQUEEZE || op.type == OperationType::CAST) {
    if (auto r = unknown_dims_reason(m, {op.inputs[0]}); !r.empty()) return make_error(r);
    // The copy moves the input's bytes as the output's: only where preparation already knows the shape
    // the operation produces (shape or axes operands constant), which it checked against the declared one.
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      const auto& shape = g.operands[op.inputs[i]];
      if (!shape.is_constant() && shape.lifetime != models::Lifetime::NO_VALUE)
        return make_error("input " + std::to_string(i) +
                          " is not a constant: the output's shape is known only at execution");
    }
    if (g.operands[op.inputs[0]].byte_size() != o.byte_size())
      return make_error("the output's size differs from the input's");
    p.out_row = o.byte_size();
    p.rows = {p.out_row};
    return p;
  }
  const size_t n = op.inputs.size() - 1;
  auto axis = const_int(m, op.inputs[n]);
  if (!axis) return make_error("axis must be a constant");
  const auto rank = static_cast<int32_t>(o.dimensions.size());
  const int32_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) return make_error("axis out of range");
  for (int32_t k = 0; k < a; ++k) p.outer *= o.dimensions[static_cast<size_t>(k)];
  for (size_t i = 0; i < n; ++i) {
    const auto& x = g.operands[op.inputs[i]];
    if (auto r = unknown_dims_reason(m, {op.inputs[i]}); !r.empty()) return make_error(r);
    if (x.type != o.type) return make_error("input types differ from the output's");
    if (is_quant8(o.type) && (x.scale != o.scale || x.zero_point != o.zero_point))
      return make_error("input " + std::to_string(i) +
                        " needs requantisation to the output's scale and zero point");
    p.rows.push_back(p.outer ? x.byte_size() / p.outer : 0);
    p.out_row += p.rows.back();
  }
  return p;
}

FlatWork work_of(const Plan& p) {
  FlatWork w;
  w.count = p.outer;
  w.bytes_per_item = p.out_row;
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  const OperationType t = m.main.operations[index].type;
  if (t == OperationType::RESHAPE || t == OperationType::EXPAND_DIMS || t == OperationType::SQUEEZE ||
      t == OperationType::CAST)
    return "";  // any size: chunked bytes
  return flat_fits(work_of(*p), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& op = m.main.operations[index];
  auto p = plan(m, index);
  if (!p) return make_error(p.error());
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  if (op.type == OperationType::RESHAPE || op.type == OperationType::EXPAND_DIMS ||
      op.type == OperationType::SQUEEZE || op.type == OperationType::CAST) {
    const Source src = operand_source(m, op.inputs[0], prog);
    FlatWork w;
    w.count = p->out_row;
    w.bytes_per_item = 1;
    lower_flat(w, target, jobs, nullptr,
               [&](Emitter& emit, uint64_t first, uint64_t n, uint64_t buffer, uint64_t) {
                 emit.dma(desc::Opcode::DMA_IN, src.region, src.offset + first, buffer, n);
                 emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first, buffer, n);
               });
    return {};
  }
  std::vector<Source> srcs;
  for (size_t i = 0; i < p->rows.size(); ++i) srcs.push_back(operand_source(m, op.inputs[i], prog));
  lower_flat(work_of(*p), target, jobs, nullptr,
             [&](Emitter& emit, uint64_t first, uint64_t n, uint64_t buffer, uint64_t) {
               uint64_t at = 0;
               for (size_t i = 0; i < p->rows.size(); ++i) {
                 const uint64_t r = p->rows[i];
                 if (r)
                   emit.dma(desc::Opcode::DMA_IN, srcs[i].region, srcs[i].offset + first * r, buffer + at, r,
                            n, r, p->out_row);
                 at += r;
               }
               emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * p->out_row, buffer,
                        n * p->out_row);
             });
  return {};
}

}  // namespace

const Lowering& copy_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
