// EMBEDDING_LOOKUP and GATHER by the DMA engine's gather (DMA_GATHER). Both pick rows of a table by int32
// indices: EMBEDDING_LOOKUP rows of its values (axis 0), GATHER, along axis a of its input, the inner
// blocks (everything after the axis, contiguous) of each outer slice (everything before it), so its output
// is [outer, indices, inner] and each outer slice is a table of extent(a) rows of its own. Output rows are
// consecutive, so they go through SRAM in chunks (lower_flat) and each chunk leaves in one DMA_OUT. Per
// chunk, one gather per outer slice it touches fetches the rows (addresses from the indices, read when it
// runs, so constant and runtime indices alike). The indices stay in SRAM for the whole job when they fit
// in a quarter of it and there is more than one outer slice (each slice reuses them); otherwise each chunk
// loads the indices it needs. Any value type (a copy: the output shares the input's type and
// quantisation, FLOAT16 and INT32 included), so the results equal the CPU reference's byte for byte. An
// index outside the table stops the NPU job (INDEX_OUT_OF_RANGE, "gather index out of range"), as the
// CPU reference fails the execution; constant indices out of range are refused at preparation by both.
// GATHER runs on the CPU when its axis is not a constant or it has more outer slices than kMaxGathers
// (each takes a DMA_GATHER descriptor of its own); either runs there when one row and its index do not fit
// the SRAM.
#include <algorithm>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperationType;

constexpr uint64_t kMaxGathers = uint64_t{1} << 15;

struct Lookup {
  uint32_t indices_operand, table_operand;
  uint64_t outer;       // table slices (1 for EMBEDDING_LOOKUP)
  uint64_t per_outer;   // indices, i.e. output rows per slice
  uint64_t row_bytes;   // one table row
  uint32_t table_rows;  // rows per slice
  bool resident;        // the indices are loaded once per job
};

Result<Lookup> plan(const models::Model& m, uint32_t index, const NpuTarget& target) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const bool gather = op.type == OperationType::GATHER;
  if (op.inputs.size() != (gather ? 3u : 2u) || op.outputs.size() != 1)
    return make_error("unexpected operand count");
  Lookup l{};
  l.indices_operand = op.inputs[gather ? 2 : 0];
  l.table_operand = op.inputs[gather ? 0 : 1];
  if (auto r = unknown_dims_reason(m, {l.indices_operand, l.table_operand, op.outputs[0]}); !r.empty())
    return make_error(r);
  const auto& table = g.operands[l.table_operand];
  const std::vector<uint32_t>& d = table.dimensions;
  const uint64_t es = models::element_size(table.type);
  if (es == 0 || d.empty()) return make_error("the table has no fixed element size or rank");
  size_t axis = 0;
  if (gather) {
    const auto a = const_int(m, op.inputs[1]);
    if (!a) return make_error("axis must be a constant");
    const auto rank = static_cast<int32_t>(d.size());
    const int32_t k = *a < 0 ? *a + rank : *a;
    if (k < 0 || k >= rank) return make_error("axis out of range");
    axis = static_cast<size_t>(k);
  }
  l.outer = 1;
  for (size_t k = 0; k < axis; ++k) l.outer *= d[k];
  l.row_bytes = es;
  for (size_t k = axis + 1; k < d.size(); ++k) l.row_bytes *= d[k];
  l.table_rows = d[axis];
  l.per_outer = g.operands[l.indices_operand].element_count();
  if (l.outer == 0 || l.per_outer == 0 || l.row_bytes == 0 || l.table_rows == 0)
    return make_error("empty table or output");
  l.resident = l.outer > 1 && align(l.per_outer * 4, kSramAlign) <= target.sram_bytes / 4;
  return l;
}

FlatWork work_of(const Lookup& l) {
  FlatWork w;
  w.count = l.outer * l.per_outer;
  w.fixed_bytes = l.resident ? l.per_outer * 4 : 0;
  w.bytes_per_item = l.row_bytes + (l.resident ? 0 : 4);  // the row (and its index)
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto l = plan(m, index, target);
  if (!l) return l.error();
  // One gather per outer slice, plus at most one per chunk where a chunk boundary splits a slice.
  if (l->outer > kMaxGathers)
    return "the gather takes one DMA_GATHER per outer slice: " + std::to_string(l->outer) +
           " slices, more than " + std::to_string(kMaxGathers);
  return flat_fits(work_of(*l), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& op = m.main.operations[index];
  auto planned = plan(m, index, target);
  if (!planned) return make_error(planned.error());
  const Lookup l = *planned;
  const Source ids = operand_source(m, l.indices_operand, prog);
  const Source table = operand_source(m, l.table_operand, prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  const uint64_t row = l.row_bytes;
  const uint64_t slice_bytes = uint64_t{l.table_rows} * row;
  auto prologue = [&](Emitter& emit) {
    emit.dma(desc::Opcode::DMA_IN, ids.region, ids.offset, 0, l.per_outer * 4);
  };
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t chunk_indices = buffer + capacity * row;  // per-chunk indices follow the rows
    for (uint64_t item = first; item < first + items;) {
      const uint64_t o = item / l.per_outer, j = item % l.per_outer;
      const uint64_t n = std::min(l.per_outer - j, first + items - item);  // rows of this slice
      const uint64_t at = item - first;
      uint64_t index_sram = j * 4;
      if (!l.resident) {
        index_sram = chunk_indices + at * 4;
        emit.dma(desc::Opcode::DMA_IN, ids.region, ids.offset + j * 4, index_sram, n * 4);
      }
      emit.gather(table.region, table.offset + o * slice_bytes, buffer + at * row, row, n, row, row,
                  index_sram, l.table_rows);
      item += n;
    }
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row, buffer, items * row);
  };
  lower_flat(work_of(l), target, jobs, l.resident ? FlatPrologue(prologue) : nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& table_gather_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
