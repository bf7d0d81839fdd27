// PAD and PAD_V2 on the NPU (rank 1..4, float32 and both quant8 types): each chunk of output rows (the
// last two dimensions of the rank-4 view [N, H, W, C]) is filled with the padding value (PAD: 0.0, or the
// zero point as the CPU reference uses; PAD_V2: its constant pad value, the float's bits or the raw
// quantised byte) by a FILL descriptor, the input rows that land in it are DMAed in at
// their padded position (pixel-strided when C is padded), and the chunk goes out in one DMA.
#include <cstring>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  uint32_t in[4], out[4], before[4];  // rank-4 view
};

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const size_t n_in = op.type == models::OperationType::PAD_V2 ? 3 : 2;
  if (op.inputs.size() != n_in || op.outputs.size() != 1) return make_error("unexpected operand counts");
  if (n_in == 3 && !g.operands[op.inputs[2]].is_constant())
    return make_error("the pad value must be a constant");
  if (auto r = unknown_dims_reason(m, {op.inputs[0], op.outputs[0]}); !r.empty()) return make_error(r);
  const auto& x = g.operands[op.inputs[0]];
  const auto& o = g.operands[op.outputs[0]];
  if (x.type != OperandType::TENSOR_FLOAT32 && !is_quant8(x.type))
    return make_error("data type " + std::string(models::to_string(x.type)) + " is not supported on the NPU");
  const size_t rank = x.dimensions.size();
  const auto& pads = g.operands[op.inputs[1]];
  if (rank < 1 || rank > 4 || o.dimensions.size() != rank) return make_error("rank must be 1 to 4");
  if (!pads.is_constant() || pads.data.size() != rank * 8)
    return make_error("paddings must be a constant for the NPU");
  Plan p{};
  for (size_t k = 0; k < 4; ++k) p.in[k] = p.out[k] = 1;
  for (size_t k = 0; k < rank; ++k) {
    const size_t v = 4 - rank + k;
    int32_t before;
    std::memcpy(&before, pads.data.data() + 8 * k, 4);
    if (before < 0) return make_error("negative padding");
    p.in[v] = x.dimensions[k];
    p.out[v] = o.dimensions[k];
    p.before[v] = static_cast<uint32_t>(before);
    if (uint64_t{p.before[v]} + p.in[v] > p.out[v])
      return make_error("paddings do not match the output shape");
  }
  return p;
}

FlatWork work_of(const models::Model& m, uint32_t index, const Plan& p) {
  FlatWork w;
  w.count = uint64_t{p.out[0]} * p.out[1];
  w.bytes_per_item =
      uint64_t{p.out[2]} * p.out[3] * elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type);
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
  auto pl = plan(m, index);
  if (!pl) return make_error(pl.error());
  const Plan& p = *pl;
  const auto& o = g.operands[op.outputs[0]];
  const uint64_t e = elem_bytes(o.type);
  // The FILL pattern repeats its 4 bytes: one quant8 byte four times, or a float32's bits.
  uint32_t pattern = is_quant8(o.type) ? static_cast<uint8_t>(o.zero_point) * 0x01010101u : 0;
  if (op.type == models::OperationType::PAD_V2) {
    const auto& v = g.operands[op.inputs[2]];
    if (v.data.size() < 4) return make_error("pad value has no data");
    std::memcpy(&pattern, v.data.data(), 4);  // FLOAT32 bits, or the INT32 quantised value
    if (is_quant8(o.type)) pattern = (pattern & 0xffu) * 0x01010101u;
  }
  const uint64_t out_row = uint64_t{p.out[2]} * p.out[3] * e, in_row = uint64_t{p.in[2]} * p.in[3] * e;
  const Source src = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  auto body = [&](Emitter& emit, uint64_t first, uint64_t rows, uint64_t buffer, uint64_t) {
    desc::Fill f{};
    f.h.opcode = desc::Opcode::FILL;
    f.sram = static_cast<uint32_t>(buffer);
    f.bytes = static_cast<uint32_t>(rows * out_row);
    f.pattern = pattern;
    emit.op(f);
    for (uint64_t r = first; r < first + rows; ++r) {
      const int64_t n = static_cast<int64_t>(r / p.out[1]) - p.before[0];
      const int64_t h = static_cast<int64_t>(r % p.out[1]) - p.before[1];
      if (n < 0 || n >= p.in[0] || h < 0 || h >= p.in[1]) continue;
      const uint64_t dev =
          src.offset + (static_cast<uint64_t>(n) * p.in[1] + static_cast<uint64_t>(h)) * in_row;
      const uint64_t sram =
          buffer + (r - first) * out_row + (uint64_t{p.before[2]} * p.out[3] + p.before[3]) * e;
      emit.dma(desc::Opcode::DMA_IN, src.region, dev, sram, p.in[3] * e, p.in[2], p.in[3] * e, p.out[3] * e);
    }
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * out_row, buffer, rows * out_row);
  };
  lower_flat(work_of(m, index, p), target, jobs, nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& pad_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
