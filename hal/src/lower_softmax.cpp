// SOFTMAX on the vector unit along the innermost axis (or an axis with only extents of 1 after it),
// float32 and both quant8 types, in place in SRAM, whole rows per chunk. Quantised inputs are
// dequantised through a float[256] table built with the CPU reference's expression
// (q − zero_point)·scale, so the float arithmetic that follows is the reference's.
// LOG_SOFTMAX (NNAPI 1.2, float only) is the same descriptor with its log flag, float32 on the NPU.
#include <cstring>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  uint64_t rows, length;
  float beta;
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() < 2 || op.inputs.size() > 3 || op.outputs.size() != 1)
    return make_error("expected 2 or 3 inputs and 1 output");
  const uint32_t in = op.inputs[0], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {in, out}); !r.empty()) return make_error(r);
  const auto t = g.operands[in].type;
  const bool log = op.type == models::OperationType::LOG_SOFTMAX;
  if (t != OperandType::TENSOR_FLOAT32 && (log || !is_quant8(t)))
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  if (g.operands[out].type != t) return make_error("output type differs from the input's");
  const auto& beta = g.operands[op.inputs[1]];
  if (!beta.is_constant() || beta.type != OperandType::FLOAT32 || beta.data.size() != 4)
    return make_error("beta must be a FLOAT32 constant for the NPU");
  const auto& dims = g.operands[in].dimensions;
  int64_t axis = -1;
  if (op.inputs.size() == 3) {
    auto a = const_int(m, op.inputs[2]);
    if (!a) return make_error("axis must be a constant");
    axis = *a;
  }
  if (axis < 0) axis += static_cast<int64_t>(dims.size());
  if (dims.empty() || axis < 0 || axis >= static_cast<int64_t>(dims.size()))
    return make_error("axis out of range");
  for (size_t k = static_cast<size_t>(axis) + 1; k < dims.size(); ++k)
    if (dims[k] != 1) return make_error("softmax along a non-innermost axis is not supported by the NPU");
  Plan p{};
  p.length = dims[static_cast<size_t>(axis)];
  p.rows = g.operands[in].element_count() / p.length;
  std::memcpy(&p.beta, beta.data.data(), 4);
  return p;
}

FlatWork work_of(const models::Model& m, uint32_t index, const Plan& p) {
  const auto t = m.main.operands[m.main.operations[index].inputs[0]].type;
  FlatWork w;
  w.count = p.rows;
  w.fixed_bytes = is_quant8(t) ? 256 * 4 : 0;
  w.bytes_per_item = p.length * elem_bytes(t);
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
  const auto& o = g.operands[op.outputs[0]];
  const bool quant = is_quant8(in.type);
  const uint32_t e = elem_bytes(in.type);
  desc::Softmax d{};
  d.h.opcode = desc::Opcode::SOFTMAX;
  d.log = op.type == models::OperationType::LOG_SOFTMAX ? 1 : 0;
  d.dtype = dtype_of(in.type);
  d.length = static_cast<uint32_t>(p->length);
  d.beta = p->beta;
  d.in_scale = in.scale;
  d.out_offset = o.zero_point;
  Source table{};
  if (quant) {
    std::vector<float> deq(256);
    for (int b = 0; b < 256; ++b) {
      const int32_t q = in.type == OperandType::TENSOR_QUANT8_ASYMM ? b : static_cast<int8_t>(b);
      deq[b] = static_cast<float>(q - in.zero_point) * in.scale;
    }
    table = {Region::WEIGHTS, append_weights(prog, deq.data(), deq.size() * 4)};
  }
  const Source src = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t row_bytes = p->length * e;
  auto prologue = [&](Emitter& emit) {
    if (quant) emit.dma(desc::Opcode::DMA_IN, table.region, table.offset, 0, 256 * 4);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t rows, uint64_t buffer, uint64_t) {
    emit.dma(desc::Opcode::DMA_IN, src.region, src.offset + first * row_bytes, buffer, rows * row_bytes);
    desc::Softmax c = d;
    c.in_sram = c.out_sram = static_cast<uint32_t>(buffer);
    c.rows = static_cast<uint32_t>(rows);
    c.table_sram = 0;
    emit.op(c);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row_bytes, buffer, rows * row_bytes);
  };
  lower_flat(work_of(m, index, *p), target, jobs, prologue, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& softmax_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
