// RELU, RELU1, RELU6, LOGISTIC, TANH and the NNAPI 1.2 float functions ABS, EXP, LOG, NEG, RSQRT and
// SQRT on the vector unit (UNARY), in place in SRAM. Float32: CLAMP to the activation's range, or the
// function (the vector unit evaluates them with the same C library calls as the CPU reference). Quant8: a
// 256-entry LUT indexed by the raw input byte, computed at compile time by running the CPU reference kernel
// itself on all 256 input values with the operation's quantisation — so the NPU's result is the reference's
// by construction, including NNAPI's fixed-point LOGISTIC/TANH and RELU with a different output scale.
// NNAPI 1.2/1.3: SIN, ELU (alpha a constant, passed to the vector unit as float bits) and HARD_SWISH
// as float functions with the reference's expressions; quant8 HARD_SWISH by the same lookup table.
#include <cstring>
#include <limits>
#include <optional>

#include "lowering.h"
#include "npu/common/fixed_point.h"
#include "npu/hal/ops/reference_executor.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;
using models::OperationType;

// The vector unit's function for an NNAPI 1.2 float-only operation, nullopt for the activations.
std::optional<desc::UnaryFunc> float_function(OperationType t) {
  switch (t) {
    case OperationType::ABS:
      return desc::UnaryFunc::ABS;
    case OperationType::EXP:
      return desc::UnaryFunc::EXP;
    case OperationType::LOG:
      return desc::UnaryFunc::LOG;
    case OperationType::NEG:
      return desc::UnaryFunc::NEG;
    case OperationType::RSQRT:
      return desc::UnaryFunc::RSQRT;
    case OperationType::SQRT:
      return desc::UnaryFunc::SQRT;
    case OperationType::SIN:
      return desc::UnaryFunc::SIN;
    case OperationType::ELU:
      return desc::UnaryFunc::ELU;
    case OperationType::HARD_SWISH:
      return desc::UnaryFunc::HARD_SWISH;
    default:
      return std::nullopt;
  }
}

std::string reason(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const size_t n_in = op.type == OperationType::ELU ? 2 : 1;  // ELU: input, alpha
  if (op.inputs.size() != n_in || op.outputs.size() != 1) return "unexpected operand counts";
  if (n_in == 2 &&
      (!g.operands[op.inputs[1]].is_constant() || g.operands[op.inputs[1]].type != OperandType::FLOAT32))
    return "alpha must be a FLOAT32 constant";
  if (auto r = unknown_dims_reason(m, {op.inputs[0], op.outputs[0]}); !r.empty()) return r;
  const OperandType t = g.operands[op.inputs[0]].type;
  const bool lut_too = op.type == OperationType::HARD_SWISH && is_quant8(t);
  if (float_function(op.type) && !lut_too && t != OperandType::TENSOR_FLOAT32)
    return "data type " + std::string(models::to_string(t)) + " is not supported on the NPU";
  if (t != OperandType::TENSOR_FLOAT32 && !is_quant8(t))
    return "data type " + std::string(models::to_string(t)) + " is not supported on the NPU";
  if (g.operands[op.outputs[0]].type != t) return "output type differs from the input's";
  return "";
}

FlatWork work_of(const models::Model& m, uint32_t index) {
  const auto& o = m.main.operands[m.main.operations[index].outputs[0]];
  FlatWork w;
  w.count = o.element_count();
  w.fixed_bytes = is_quant8(o.type) ? 256 : 0;
  w.bytes_per_item = elem_bytes(o.type);
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  if (auto r = reason(m, index); !r.empty()) return r;
  return flat_fits(work_of(m, index), target);
}

// out = table[raw input byte], by running the reference on the 256 possible inputs.
Result<std::vector<uint8_t>> reference_table(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  models::Model t;
  models::Operand in = g.operands[op.inputs[0]], out = g.operands[op.outputs[0]];
  in.dimensions = out.dimensions = {256};
  in.lifetime = models::Lifetime::SUBGRAPH_INPUT;
  out.lifetime = models::Lifetime::SUBGRAPH_OUTPUT;
  t.main.operands = {in, out};
  t.main.input_indexes = {0};
  t.main.output_indexes = {1};
  t.main.operations.push_back({op.type, {0}, {1}});
  models::Tensor x{in.type, {256}, in.scale, in.zero_point, std::nullopt, std::vector<uint8_t>(256)};
  for (int i = 0; i < 256; ++i) x.data[i] = static_cast<uint8_t>(i);
  auto r = ops::run_reference(t, {{0, x}});
  if (!r) return make_error("building the lookup table: " + r.error());
  return r->at(1).data;
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const auto& o = g.operands[op.outputs[0]];
  const uint32_t e = elem_bytes(o.type);
  desc::Unary d{};
  d.h.opcode = desc::Opcode::UNARY;
  d.in_type = d.out_type = dtype_of(o.type);
  Source table{};
  if (is_quant8(o.type)) {
    auto lut = reference_table(m, index);
    if (!lut) return make_error(lut.error());
    table = {Region::WEIGHTS, append_weights(prog, lut->data(), lut->size())};
    d.func = desc::UnaryFunc::LUT;
    d.table_sram = 0;
    d.clamp_lo = o.type == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
    d.clamp_hi = o.type == OperandType::TENSOR_QUANT8_ASYMM ? 255 : 127;
  } else {
    const fx::FusedActivation act = op.type == OperationType::RELU    ? fx::FusedActivation::RELU
                                    : op.type == OperationType::RELU1 ? fx::FusedActivation::RELU1
                                    : op.type == OperationType::RELU6 ? fx::FusedActivation::RELU6
                                                                      : fx::FusedActivation::NONE;
    float_clamp(static_cast<int32_t>(act), &d.clamp_lo, &d.clamp_hi);
    d.func = op.type == OperationType::LOGISTIC ? desc::UnaryFunc::LOGISTIC
             : op.type == OperationType::TANH   ? desc::UnaryFunc::TANH
                                                : float_function(op.type).value_or(desc::UnaryFunc::CLAMP);
    if (op.type == OperationType::ELU) std::memcpy(&d.in_offset, g.operands[op.inputs[1]].data.data(), 4);
  }
  const Source in = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  auto prologue = [&](Emitter& emit) {
    if (is_quant8(o.type)) emit.dma(desc::Opcode::DMA_IN, table.region, table.offset, 0, 256);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t) {
    emit.dma(desc::Opcode::DMA_IN, in.region, in.offset + first * e, buffer, items * e);
    desc::Unary u = d;
    u.in_sram = u.out_sram = static_cast<uint32_t>(buffer);
    u.count = static_cast<uint32_t>(items);
    emit.op(u);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * e, buffer, items * e);
  };
  lower_flat(work_of(m, index), target, jobs, prologue, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& activation_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
