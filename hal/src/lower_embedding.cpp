// EMBEDDING_LOOKUP by the DMA engine's gather (DMA_GATHER): per chunk of lookups, the indices are loaded
// into SRAM, the gather fetches the table rows they name (addresses from data, read when it runs) and one
// DMA stores them. Any value type (a copy: the output shares the values' quantisation). An index outside
// the table stops the NPU job (INDEX_OUT_OF_RANGE), as the CPU reference fails the execution.
#include "lowering.h"

namespace npu::hal::lower {
namespace {

struct Lookup {
  uint64_t lookups, row_bytes;
  uint32_t table_rows;
};

Result<Lookup> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() != 2 || op.outputs.size() != 1) return make_error("expected 2 inputs and 1 output");
  if (auto r = unknown_dims_reason(m, {op.inputs[0], op.inputs[1], op.outputs[0]}); !r.empty())
    return make_error(r);
  const auto& values = g.operands[op.inputs[1]];
  Lookup l{};
  l.lookups = g.operands[op.inputs[0]].element_count();
  l.table_rows = values.dimensions[0];
  l.row_bytes = values.byte_size() / values.dimensions[0];
  return l;
}

FlatWork work_of(const Lookup& l) {
  FlatWork w;
  w.count = l.lookups;
  w.bytes_per_item = l.row_bytes + 4;  // the row and its index
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto l = plan(m, index);
  if (!l) return l.error();
  return flat_fits(work_of(*l), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& op = m.main.operations[index];
  auto l = plan(m, index);
  if (!l) return make_error(l.error());
  const Source ids = operand_source(m, op.inputs[0], prog);
  const Source table = operand_source(m, op.inputs[1], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t row = l->row_bytes;
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t index_sram = buffer + capacity * row;  // rows first, then the chunk's indices
    emit.dma(desc::Opcode::DMA_IN, ids.region, ids.offset + first * 4, index_sram, items * 4);
    emit.gather(table.region, table.offset, buffer, row, items, row, row, index_sram, l->table_rows);
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row, buffer, items * row);
  };
  lower_flat(work_of(*l), target, jobs, nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& embedding_lookup_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
