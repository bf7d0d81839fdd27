// SLICE, SPLIT, TILE, CHANNEL_SHUFFLE, RESIZE_NEAREST_NEIGHBOR and TRANSPOSE on the NPU's DMA engines: no
// arithmetic, every output is a set of equal "rows" (runs of contiguous bytes), each a copy of a
// contiguous run of the input. SLICE: a row is the slice of the last dimension, one per output
// coordinate of the other dimensions. SPLIT: a row is one piece of the split axis with everything inside
// it, one per outer index and output. TILE: a row is a whole input row (last dimension), one per output
// coordinate of the other dimensions and repeat of the last. CHANNEL_SHUFFLE: a row is one channel's
// inner block, ordered channel by channel so each channel's rows are equally spaced. RESIZE_NEAREST_
// NEIGHBOR: a row is one pixel's channels (NHWC) or one element (NCHW); which input pixel each output
// pixel copies is found by running the CPU reference kernel on a float image of pixel indices, so the
// index rounding is the reference's by construction. TRANSPOSE: a row is the block of the trailing axes
// the permutation leaves in place (one element when the last axis moves), one per output coordinate of
// the other axes; consecutive rows along the innermost moved output axis read equally spaced input, so a
// run of them is one strided DMA_IN (strided in DRAM, dense in SRAM) and the output leaves in whole runs.
// STRIDED_SLICE, DEPTH_TO_SPACE, SPACE_TO_DEPTH and BATCH_TO_SPACE_ND: each output element is one input
// element, and which one is found as for RESIZE_NEAREST_NEIGHBOR, by running the reference kernel on a
// float tensor of element indices; a row is the longest run length that every copied run is a multiple of
// (a pixel's channels for the block rearrangements, the innermost slice for a unit-stride slice).
// Rows go through SRAM in chunks (lower_flat); in a chunk, rows whose sources (destinations) are equally
// spaced share one 2-D DMA_IN (DMA_OUT) descriptor, and back-to-back rows one plain run. Any element type
// (the bytes are copied), so the results equal the CPU reference's bit for bit. Parameters must be
// constants; otherwise, or when the copy would take more than kMaxDescriptors descriptors, the operation
// runs on the CPU with that reason.
#include <cstring>
#include <numeric>

#include "lowering.h"
#include "npu/hal/ops/reference_executor.h"

namespace npu::hal::lower {
namespace {

using models::OperationType;

// A constant TENSOR_INT32 operand's values (nullopt when not a constant).
std::optional<std::vector<int32_t>> const_ints(const models::Model& m, uint32_t operand) {
  const auto& o = m.main.operands[operand];
  if (!o.is_constant() || o.type != models::OperandType::TENSOR_INT32 || o.data.size() != o.byte_size())
    return std::nullopt;
  std::vector<int32_t> v(o.data.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), o.data.data(), o.data.size());
  return v;
}

// Every row's source byte offset (in input 0) and destination (arena byte offset), `row` bytes each.
struct Rows {
  uint64_t row = 0;
  std::vector<uint64_t> src, dst;
};

// Row-major element strides.
std::vector<uint64_t> strides_of(const std::vector<uint32_t>& d) {
  std::vector<uint64_t> s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

constexpr uint64_t kMaxDescriptors = uint64_t{1} << 16;

// Source pixel (y * in_w + x) of every output pixel (oy * out_w + ox) of a RESIZE_NEAREST_NEIGHBOR: the
// reference kernel run on a [1, in_h, in_w, 1] float image whose values are the pixel indices (exact in
// float32 below 2^24), with the operation's own size/scale and flag operands.
Result<std::vector<uint64_t>> nearest_sources(const models::Model& m, uint32_t index, uint32_t in_h,
                                              uint32_t in_w, uint32_t out_h, uint32_t out_w) {
  const auto& op = m.main.operations[index];
  if (uint64_t{in_h} * in_w >= (uint64_t{1} << 24)) return make_error("image too large for the index map");
  models::Model t;
  models::Operand in;
  in.type = models::OperandType::TENSOR_FLOAT32;
  in.dimensions = {1, in_h, in_w, 1};
  in.lifetime = models::Lifetime::SUBGRAPH_INPUT;
  models::Operand out = in;
  out.dimensions = {1, out_h, out_w, 1};
  out.lifetime = models::Lifetime::SUBGRAPH_OUTPUT;
  t.main.operands = {in, out};
  std::vector<uint32_t> inputs = {0};
  for (size_t k = 1; k < op.inputs.size(); ++k) {
    models::Operand p = m.main.operands[op.inputs[k]];
    if (!p.is_constant()) return make_error("input " + std::to_string(k) + " must be a constant");
    if (k == 3) p.data = {0};  // the index image is NHWC whatever the operation's layout
    // A FLOAT16 scale (for a TENSOR_FLOAT16 input) keeps its value; the index image is float32.
    if (p.type == models::OperandType::FLOAT16) {
      const float v = static_cast<float>(models::read_element(p.type, p.data, 0));
      p.type = models::OperandType::FLOAT32;
      p.data.resize(4);
      std::memcpy(p.data.data(), &v, 4);
    }
    t.main.operands.push_back(p);
    inputs.push_back(static_cast<uint32_t>(t.main.operands.size() - 1));
  }
  t.main.input_indexes = {0};
  t.main.output_indexes = {1};
  t.main.operations.push_back({op.type, inputs, {1}});
  models::Tensor x{in.type, in.dimensions, 0.0f,
                   0,       std::nullopt,  std::vector<uint8_t>(uint64_t{in_h} * in_w * 4)};
  for (uint64_t i = 0; i < uint64_t{in_h} * in_w; ++i) {
    const auto v = static_cast<float>(i);
    std::memcpy(x.data.data() + i * 4, &v, 4);
  }
  auto r = ops::run_reference(t, {{0, x}});
  if (!r) return make_error("building the index map: " + r.error());
  const models::Tensor& y = r->at(1);
  std::vector<uint64_t> src(uint64_t{out_h} * out_w);
  for (uint64_t i = 0; i < src.size(); ++i) {
    float v = 0.0f;
    std::memcpy(&v, y.data.data() + i * 4, 4);
    src[i] = static_cast<uint64_t>(v);
  }
  return src;
}

// Source element of every output element of a pure element selection (STRIDED_SLICE, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH, BATCH_TO_SPACE_ND): the reference kernel run on a float32 input of element indices
// (exact below 2^24) with the operation's own constant parameters.
Result<std::vector<uint64_t>> index_map(const models::Model& m, uint32_t index) {
  const auto& op = m.main.operations[index];
  const auto& x = m.main.operands[op.inputs[0]];
  const uint64_t n = x.element_count();
  if (n >= (uint64_t{1} << 24)) return make_error("input too large for the index map");
  models::Model t;
  models::Operand in;
  in.type = models::OperandType::TENSOR_FLOAT32;
  in.dimensions = x.dimensions;
  in.lifetime = models::Lifetime::SUBGRAPH_INPUT;
  models::Operand out = in;
  out.dimensions = m.main.operands[op.outputs[0]].dimensions;
  out.lifetime = models::Lifetime::SUBGRAPH_OUTPUT;
  t.main.operands = {in, out};
  std::vector<uint32_t> inputs = {0};
  for (size_t k = 1; k < op.inputs.size(); ++k) {
    const models::Operand& p = m.main.operands[op.inputs[k]];
    if (!p.is_constant() && p.lifetime != models::Lifetime::NO_VALUE)
      return make_error("input " + std::to_string(k) + " must be a constant");
    t.main.operands.push_back(p);
    inputs.push_back(static_cast<uint32_t>(t.main.operands.size() - 1));
  }
  t.main.input_indexes = {0};
  t.main.output_indexes = {1};
  t.main.operations.push_back({op.type, inputs, {1}});
  models::Tensor xi{in.type, in.dimensions, 0.0f, 0, std::nullopt, std::vector<uint8_t>(n * 4)};
  for (uint64_t i = 0; i < n; ++i) {
    const auto v = static_cast<float>(i);
    std::memcpy(xi.data.data() + i * 4, &v, 4);
  }
  auto r = ops::run_reference(t, {{0, xi}});
  if (!r) return make_error("building the index map: " + r.error());
  const models::Tensor& y = r->at(1);
  std::vector<uint64_t> src(y.element_count());
  for (uint64_t i = 0; i < src.size(); ++i) {
    float v = 0.0f;
    std::memcpy(&v, y.data.data() + i * 4, 4);
    src[i] = static_cast<uint64_t>(v);
  }
  return src;
}

// Rows of an element map: the row length is the gcd of the map's run boundaries, so every row is a
// contiguous input run.
Rows rows_of_map(const std::vector<uint64_t>& src, uint64_t es, uint64_t dst_base) {
  uint64_t len = src.size();
  for (uint64_t i = 1; i < src.size() && len > 1; ++i)
    if (src[i] != src[i - 1] + 1) len = std::gcd(len, i);
  Rows rows;
  rows.row = len * es;
  for (uint64_t i = 0; len && i < src.size(); i += len) {
    rows.src.push_back(src[i] * es);
    rows.dst.push_back(dst_base + i * es);
  }
  return rows;
}

Result<Rows> plan(const models::Model& m, uint32_t index, const Program* prog) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  for (uint32_t o : op.outputs)
    if (auto r = unknown_dims_reason(m, {o}); !r.empty()) return make_error(r);
  if (auto r = unknown_dims_reason(m, {op.inputs[0]}); !r.empty()) return make_error(r);
  const auto& x = g.operands[op.inputs[0]];
  const uint64_t es = models::element_size(x.type);
  const std::vector<uint32_t>& d = x.dimensions;
  const size_t rank = d.size();
  if (es == 0 || rank == 0) return make_error("input 0 has no fixed element size or rank");
  const std::vector<uint64_t> is = strides_of(d);
  auto base = [&](size_t k) -> uint64_t { return prog ? prog->arena.at(op.outputs[k]).offset : 0; };
  if (op.type == OperationType::STRIDED_SLICE || op.type == OperationType::DEPTH_TO_SPACE ||
      op.type == OperationType::SPACE_TO_DEPTH || op.type == OperationType::BATCH_TO_SPACE_ND) {
    auto src = index_map(m, index);
    if (!src) return make_error(src.error());
    return rows_of_map(*src, es, base(0));
  }
  Rows rows;
  if (op.type == OperationType::SPLIT) {
    const auto axis = const_int(m, op.inputs[1]);
    if (!axis) return make_error("axis must be a constant");
    const auto r = static_cast<int32_t>(rank);
    const int32_t a = *axis < 0 ? *axis + r : *axis;
    if (a < 0 || a >= r) return make_error("axis out of range");
    const size_t n = op.outputs.size();
    const uint64_t piece = d[static_cast<size_t>(a)] / n;
    const uint64_t inner = is[static_cast<size_t>(a)];
    uint64_t outer = 1;
    for (int32_t k = 0; k < a; ++k) outer *= d[static_cast<size_t>(k)];
    rows.row = piece * inner * es;
    for (size_t j = 0; j < n; ++j)
      for (uint64_t o = 0; o < outer; ++o) {
        rows.src.push_back((o * d[static_cast<size_t>(a)] + j * piece) * inner * es);
        rows.dst.push_back(base(j) + o * rows.row);
      }
    return rows;
  }
  const std::vector<uint32_t>& od = g.operands[op.outputs[0]].dimensions;
  if (od.size() != rank) return make_error("output rank differs from the input's");
  if (op.type == OperationType::CHANNEL_SHUFFLE) {
    const auto groups = const_int(m, op.inputs[1]);
    const auto axis = const_int(m, op.inputs[2]);
    if (!groups || !axis) return make_error("num_groups and axis must be constants");
    const auto r = static_cast<int32_t>(rank);
    const int32_t a = *axis < 0 ? *axis + r : *axis;
    if (a < 0 || a >= r || *groups < 1) return make_error("axis or num_groups out of range");
    const uint64_t c = d[static_cast<size_t>(a)];
    const auto gr = static_cast<uint64_t>(*groups);
    const uint64_t per = c / gr;
    const uint64_t inner = is[static_cast<size_t>(a)];
    uint64_t outer = 1;
    for (int32_t k = 0; k < a; ++k) outer *= d[static_cast<size_t>(k)];
    rows.row = inner * es;
    for (uint64_t oc = 0; oc < c; ++oc) {
      const uint64_t sc = (oc % gr) * per + oc / gr;
      for (uint64_t o = 0; o < outer; ++o) {
        rows.src.push_back((o * c + sc) * inner * es);
        rows.dst.push_back(base(0) + (o * c + oc) * inner * es);
      }
    }
    return rows;
  }
  if (op.type == OperationType::RESIZE_NEAREST_NEIGHBOR) {
    if (rank != 4) return make_error("expected a 4-D input");
    const auto& layout = g.operands[op.inputs[3]];
    if (!layout.is_constant() || layout.data.empty()) return make_error("layout must be a constant");
    const bool nchw = layout.data[0] != 0;
    const Nhwc xi = nhwc_extents(x, nchw);
    const Nhwc yo = nhwc_extents(g.operands[op.outputs[0]], nchw);
    auto src = nearest_sources(m, index, xi.h, xi.w, yo.h, yo.w);
    if (!src) return make_error(src.error());
    const uint64_t opix = uint64_t{yo.h} * yo.w;
    const uint64_t ipix = uint64_t{xi.h} * xi.w;
    if (!nchw) {
      rows.row = uint64_t{xi.c} * es;
      for (uint64_t b = 0; b < xi.n; ++b)
        for (uint64_t p = 0; p < opix; ++p) {
          rows.src.push_back((b * ipix + (*src)[p]) * rows.row);
          rows.dst.push_back(base(0) + (b * opix + p) * rows.row);
        }
      return rows;
    }
    rows.row = es;
    for (uint64_t b = 0; b < xi.n; ++b)
      for (uint64_t ch = 0; ch < xi.c; ++ch)
        for (uint64_t p = 0; p < opix; ++p) {
          rows.src.push_back(((b * xi.c + ch) * ipix + (*src)[p]) * es);
          rows.dst.push_back(base(0) + ((b * xi.c + ch) * opix + p) * es);
        }
    return rows;
  }
  if (op.type == OperationType::TRANSPOSE) {
    // Output coordinate k reads input axis perm[k]. Trailing axes the permutation leaves in place stay
    // contiguous, so a row is their block (one element when the last axis moves).
    std::vector<size_t> perm(rank);
    if (op.inputs.size() < 2 || g.operands[op.inputs[1]].lifetime == models::Lifetime::NO_VALUE) {
      for (size_t k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
    } else {
      const auto p = const_ints(m, op.inputs[1]);
      if (!p || p->size() != rank) return make_error("permutation must be a constant");
      for (size_t k = 0; k < rank; ++k) {
        if ((*p)[k] < 0 || static_cast<size_t>((*p)[k]) >= rank)
          return make_error("permutation out of range");
        perm[k] = static_cast<size_t>((*p)[k]);
      }
    }
    size_t moved = rank;  // axes [moved, rank) stay in place
    while (moved > 1 && perm[moved - 1] == moved - 1) --moved;
    rows.row = es;
    for (size_t k = moved; k < rank; ++k) rows.row *= d[k];
    uint64_t count = 1;
    for (size_t k = 0; k < moved; ++k) count *= od[k];
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t flat = i, src = 0;
      for (size_t k = moved; k-- > 0;) {
        src += (flat % od[k]) * is[perm[k]];
        flat /= od[k];
      }
      rows.src.push_back(src * es);
      rows.dst.push_back(base(0) + i * rows.row);
    }
    return rows;
  }
  if (op.type == OperationType::SLICE) {
    const auto begin = const_ints(m, op.inputs[1]);
    if (!begin || begin->size() != rank) return make_error("begin must be a constant");
    rows.row = uint64_t{od[rank - 1]} * es;
    uint64_t count = 1;
    for (size_t k = 0; k + 1 < rank; ++k) count *= od[k];
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t flat = i;
      uint64_t src = static_cast<uint64_t>((*begin)[rank - 1]);
      for (size_t k = rank - 1; k-- > 0;) {
        src += (flat % od[k] + static_cast<uint64_t>((*begin)[k])) * is[k];
        flat /= od[k];
      }
      rows.src.push_back(src * es);
      rows.dst.push_back(base(0) + i * rows.row);
    }
    return rows;
  }
  // TILE
  const auto mult = const_ints(m, op.inputs[1]);
  if (!mult || mult->size() != rank) return make_error("multiples must be a constant");
  rows.row = uint64_t{d[rank - 1]} * es;
  const auto repeats = static_cast<uint64_t>((*mult)[rank - 1]);
  uint64_t count = 1;
  for (size_t k = 0; k + 1 < rank; ++k) count *= od[k];
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t flat = i;
    uint64_t src = 0;
    for (size_t k = rank - 1; k-- > 0;) {
      src += (flat % od[k] % d[k]) * is[k];
      flat /= od[k];
    }
    for (uint64_t t = 0; t < repeats; ++t) {
      rows.src.push_back(src * es);
      rows.dst.push_back(base(0) + (i * repeats + t) * rows.row);
    }
  }
  return rows;
}

FlatWork work_of(const Rows& r) {
  FlatWork w;
  w.count = r.src.size();
  w.bytes_per_item = r.row;
  return w;
}

// Descriptors one direction takes for the whole sequence (chunk boundaries add at most one per chunk).
uint64_t count_runs(const std::vector<uint64_t>& at) {
  uint64_t runs = 0;
  for (uint64_t i = 0; i < at.size();) {
    uint64_t k = 1;
    if (i + 1 < at.size() && at[i + 1] > at[i] && at[i + 1] - at[i] <= 0xffffffffu) {
      const uint64_t step = at[i + 1] - at[i];
      k = 2;
      while (i + k < at.size() && at[i + k] > at[i + k - 1] && at[i + k] - at[i + k - 1] == step) ++k;
    }
    ++runs;
    i += k;
  }
  return runs;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto r = plan(m, index, nullptr);
  if (!r) return r.error();
  if (r->row == 0 || r->src.empty()) return "empty rows";
  const uint64_t descriptors = count_runs(r->src) + count_runs(r->dst);
  if (descriptors > kMaxDescriptors)
    return "the copy takes " + std::to_string(descriptors) + " DMA descriptors, more than " +
           std::to_string(kMaxDescriptors);
  return flat_fits(work_of(*r), target);
}

// Emits rows [first, first + n) of `at` (offsets into `region` from `origin`) as few descriptors as the
// spacing allows: equally spaced rows share one 2-D descriptor, adjacent ones one plain run.
void emit_runs(Emitter& emit, desc::Opcode opcode, Region region, uint64_t origin,
               const std::vector<uint64_t>& at, uint64_t first, uint64_t n, uint64_t row, uint64_t buffer) {
  uint64_t i = first;
  const uint64_t end = first + n;
  while (i < end) {
    uint64_t k = 1;
    uint64_t step = 0;
    if (i + 1 < end && at[i + 1] > at[i] && at[i + 1] - at[i] <= 0xffffffffu) {
      step = at[i + 1] - at[i];
      k = 2;
      while (i + k < end && at[i + k] > at[i + k - 1] && at[i + k] - at[i + k - 1] == step) ++k;
    }
    const uint64_t sram = buffer + (i - first) * row;
    if (k == 1 || step == row)
      emit.dma(opcode, region, origin + at[i], sram, row * k);  // one contiguous run
    else
      emit.dma(opcode, region, origin + at[i], sram, row, k, step, row);
    i += k;
  }
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  auto r = plan(m, index, &prog);
  if (!r) return make_error(r.error());
  const Source src = operand_source(m, m.main.operations[index].inputs[0], prog);
  const Rows& rows = *r;
  lower_flat(work_of(rows), target, jobs, nullptr,
             [&](Emitter& emit, uint64_t first, uint64_t n, uint64_t buffer, uint64_t) {
               emit_runs(emit, desc::Opcode::DMA_IN, src.region, src.offset, rows.src, first, n, rows.row,
                         buffer);
               emit_runs(emit, desc::Opcode::DMA_OUT, Region::ARENA, 0, rows.dst, first, n, rows.row, buffer);
             });
  return {};
}

}  // namespace

const Lowering& gather_rows_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
