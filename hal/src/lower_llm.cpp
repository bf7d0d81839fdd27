// com.npusim.llm's RMS_NORM and ROPE on the vector unit (its RMS_NORM and ROPE descriptors), float32 and
// both quant8 types, whole rows per chunk, in place in SRAM. MATMUL is on the MAC array (compiler.cpp).
// The descriptors' semantics (descriptors.h) are the operations' (docs/npu_ops.md).
#include <cmath>
#include <cstring>

#include "lowering.h"
#include "npu/hal/ops/quant_math.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

// Rows of `length` elements of the operation's input (its last axis for RMS_NORM, the row for ROPE).
struct Rows {
  uint64_t rows, length;
};

Result<Rows> rows_of(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const uint32_t in = op.inputs[0], out = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {in, out}); !r.empty()) return make_error(r);
  const auto& dims = g.operands[in].dimensions;
  Rows r{};
  r.length = dims.back();
  r.rows = g.operands[in].element_count() / r.length;
  return r;
}

FlatWork work_of(const models::Model& m, uint32_t index, const Rows& r, uint64_t fixed_bytes) {
  FlatWork w;
  w.count = r.rows;
  w.fixed_bytes = fixed_bytes;
  w.bytes_per_item = r.length * elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type);
  return w;
}

uint64_t gain_bytes(const models::Model& m, uint32_t index, const Rows& r) {
  return align(r.length * elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type), kSramAlign);
}

std::string rms_unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto r = rows_of(m, index);
  if (!r) return r.error();
  return flat_fits(work_of(m, index, *r, gain_bytes(m, index, *r)), target);
}

Result<void> rms_lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                       std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto r = rows_of(m, index);
  if (!r) return make_error(r.error());
  const auto& in = g.operands[op.inputs[0]];
  const auto& gamma = g.operands[op.inputs[1]];
  const auto& o = g.operands[op.outputs[0]];
  const uint32_t e = elem_bytes(in.type);
  desc::RmsNorm d{};
  d.h.opcode = desc::Opcode::RMS_NORM;
  d.dtype = dtype_of(in.type);
  d.length = static_cast<uint32_t>(r->length);
  std::memcpy(&d.epsilon, g.operands[op.inputs[2]].data.data(), 4);
  if (is_quant8(in.type)) {
    d.in_scale = in.scale;
    d.real_scale = static_cast<float>(static_cast<double>(in.scale) * gamma.scale / o.scale);
    d.in_offset = -in.zero_point;
    d.gain_offset = -gamma.zero_point;
    d.out_offset = o.zero_point;
  }
  const Source src = operand_source(m, op.inputs[0], prog);
  const Source gain = operand_source(m, op.inputs[1], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t row_bytes = r->length * e;
  auto prologue = [&](Emitter& emit) {
    emit.dma(desc::Opcode::DMA_IN, gain.region, gain.offset, 0, row_bytes);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t rows, uint64_t buffer, uint64_t) {
    emit.dma(desc::Opcode::DMA_IN, src.region, src.offset + first * row_bytes, buffer, rows * row_bytes);
    desc::RmsNorm c = d;
    c.in_sram = c.out_sram = static_cast<uint32_t>(buffer);
    c.gain_sram = 0;
    c.rows = static_cast<uint32_t>(rows);
    emit.op(c);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row_bytes, buffer, rows * row_bytes);
  };
  lower_flat(work_of(m, index, *r, gain_bytes(m, index, *r)), target, jobs, prologue, body);
  prog.tiles += jobs.size();
  return {};
}

// The position (an INT32 scalar, constant or a runtime value) is loaded once per job into SRAM 0; the
// descriptor reads it when it runs.
constexpr uint64_t kPositionBytes = kSramAlign;

std::string rope_unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto r = rows_of(m, index);
  if (!r) return r.error();
  return flat_fits(work_of(m, index, *r, kPositionBytes), target);
}

Result<void> rope_lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                        std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto r = rows_of(m, index);
  if (!r) return make_error(r.error());
  const auto& in = g.operands[op.inputs[0]];
  const auto& o = g.operands[op.outputs[0]];
  const uint32_t e = elem_bytes(in.type);
  desc::Rope d{};
  d.h.opcode = desc::Opcode::ROPE;
  d.dtype = dtype_of(in.type);
  d.width = static_cast<uint32_t>(r->length);
  d.head_dim = static_cast<uint32_t>(*const_int(m, op.inputs[2]));
  std::memcpy(&d.base, g.operands[op.inputs[3]].data.data(), 4);
  if (is_quant8(in.type)) {
    d.in_offset = -in.zero_point;
    d.out_offset = o.zero_point;
    const auto qm =
        ops::safe_multiplier(static_cast<double>(in.scale) / (static_cast<double>(o.scale) * 32768.0));
    d.scale = {qm.multiplier, qm.shift};
  }
  const Source src = operand_source(m, op.inputs[0], prog);
  const Source position = operand_source(m, op.inputs[1], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t row_bytes = r->length * e;
  auto prologue = [&](Emitter& emit) {
    emit.dma(desc::Opcode::DMA_IN, position.region, position.offset, 0, 4);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t rows, uint64_t buffer, uint64_t) {
    emit.dma(desc::Opcode::DMA_IN, src.region, src.offset + first * row_bytes, buffer, rows * row_bytes);
    desc::Rope c = d;
    c.in_sram = c.out_sram = static_cast<uint32_t>(buffer);
    c.position_sram = 0;
    c.position_delta = static_cast<int32_t>(first);
    c.rows = static_cast<uint32_t>(rows);
    emit.op(c);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row_bytes, buffer, rows * row_bytes);
  };
  lower_flat(work_of(m, index, *r, kPositionBytes), target, jobs, prologue, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& rms_norm_lowering() {
  static const Lowering l{rms_unsupported, rms_lower};
  return l;
}

const Lowering& rope_lowering() {
  static const Lowering l{rope_unsupported, rope_lower};
  return l;
}

}  // namespace npu::hal::lower
