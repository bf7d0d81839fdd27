// Shared pieces of the operation lowerings (see lowering.h).
#include "lowering.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "npu/common/fixed_point.h"
#include "npu/models/extensions.h"

namespace npu::hal::lower {

using models::OperandType;
using models::OperationType;

bool is_quant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

uint32_t elem_bytes(OperandType t) { return t == OperandType::TENSOR_FLOAT32 ? 4 : 1; }

desc::DType dtype_of(OperandType t) {
  if (t == OperandType::TENSOR_FLOAT32) return desc::DType::F32;
  return t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? desc::DType::S8 : desc::DType::U8;
}

std::optional<int32_t> const_int(const models::Model& m, uint32_t operand) {
  if (operand >= m.main.operands.size()) return std::nullopt;
  const auto& o = m.main.operands[operand];
  if (!o.is_constant() || o.type != OperandType::INT32 || o.data.size() != 4) return std::nullopt;
  int32_t v;
  std::memcpy(&v, o.data.data(), 4);
  return v;
}

Nhwc nhwc_extents(const models::Operand& o, bool nchw) {
  const auto& d = o.dimensions;
  return nchw ? Nhwc{d[0], d[2], d[3], d[1]} : Nhwc{d[0], d[1], d[2], d[3]};
}

std::string unknown_dims_reason(const models::Model& m, std::initializer_list<uint32_t> operands) {
  for (uint32_t i : operands)
    if (!m.main.operands[i].fully_specified())
      return "operand " + std::to_string(i) + " has unknown dimensions";
  return "";
}

void float_clamp(int32_t activation, int32_t* lo, int32_t* hi) {
  float l = 0.0f, h = 0.0f;
  fx::float_activation_range(static_cast<fx::FusedActivation>(activation), &l, &h);
  *lo = std::bit_cast<int32_t>(l);
  *hi = std::bit_cast<int32_t>(h);
}

void Emitter::dma(desc::Opcode op, Region region, uint64_t dev, uint64_t sram, uint64_t row_bytes,
                  uint64_t rows, uint64_t dev_stride, uint64_t sram_stride) {
  desc::Dma d{};
  d.h = {op, next_id_++};
  d.dev = dev;
  d.sram = static_cast<uint32_t>(sram);
  d.row_bytes = static_cast<uint32_t>(row_bytes);
  d.rows = static_cast<uint32_t>(rows);
  d.dev_stride = static_cast<uint32_t>(dev_stride);
  d.sram_stride = static_cast<uint32_t>(sram_stride);
  step_.relocations.push_back({static_cast<uint32_t>(step_.commands.size()), region});
  step_.commands.push_back(desc::encode(d));
}

void Emitter::gather(Region region, uint64_t dev, uint64_t sram, uint64_t row_bytes, uint64_t rows,
                     uint64_t dev_stride, uint64_t sram_stride, uint64_t index_sram, uint64_t table_rows) {
  desc::DmaGather d{};
  d.h = {desc::Opcode::DMA_GATHER, next_id_++};
  d.dev = dev;
  d.sram = static_cast<uint32_t>(sram);
  d.row_bytes = static_cast<uint32_t>(row_bytes);
  d.rows = static_cast<uint32_t>(rows);
  d.dev_stride = static_cast<uint32_t>(dev_stride);
  d.sram_stride = static_cast<uint32_t>(sram_stride);
  d.index_sram = static_cast<uint32_t>(index_sram);
  d.table_rows = static_cast<uint32_t>(table_rows);
  step_.relocations.push_back({static_cast<uint32_t>(step_.commands.size()), region});
  step_.commands.push_back(desc::encode(d));
}

void Emitter::preempt_point(uint64_t offset, uint64_t bytes) {
  desc::PreemptPoint pp{};
  pp.h = {desc::Opcode::PREEMPT_POINT, next_id_++};
  if (bytes) {
    pp.offset[0] = static_cast<uint32_t>(offset);
    pp.bytes[0] = static_cast<uint32_t>(bytes);
  }
  step_.commands.push_back(desc::encode(pp));
}

void Emitter::fence() {
  step_.commands.push_back(desc::encode(desc::Fence{{desc::Opcode::FENCE, 0xFFFFFFFF}, 1}));
}

void dma_nchw_in(Emitter& emit, Region region, uint64_t dev, uint64_t plane_bytes, uint64_t sram,
                 uint32_t channels, uint64_t pixels, uint32_t elem) {
  for (uint32_t c = 0; c < channels; ++c)
    emit.dma(desc::Opcode::DMA_IN, region, dev + c * plane_bytes, sram + uint64_t{c} * elem, elem, pixels,
             elem, uint64_t{channels} * elem);
}

void dma_nchw_out(Emitter& emit, uint64_t dev, uint64_t plane_bytes, uint64_t sram, uint32_t channels,
                  uint64_t pixels, uint32_t elem) {
  for (uint32_t c = 0; c < channels; ++c)
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, dev + c * plane_bytes, sram + uint64_t{c} * elem, elem,
             pixels, elem, uint64_t{channels} * elem);
}

uint64_t append_weights(Program& prog, const void* data, uint64_t bytes) {
  prog.weights.align_to(kArenaAlign);
  return prog.weights.append(data, bytes);
}

Source operand_source(const models::Model& m, uint32_t operand, Program& prog) {
  const auto& o = m.main.operands[operand];
  if (!o.is_constant()) return {Region::ARENA, prog.arena.at(operand).offset};
  std::vector<uint8_t> zeros;
  const bool have = o.data.size() >= o.byte_size();
  if (!have && prog.weights.materialised()) zeros.assign(o.byte_size(), 0);
  return {Region::WEIGHTS, append_weights(prog, have ? o.data.data() : zeros.data(), o.byte_size())};
}

namespace {

struct FlatLayout {
  uint64_t fixed, capacity, buffer_bytes;
  bool two;
};

FlatLayout flat_layout(const FlatWork& w, const NpuTarget& target) {
  FlatLayout l{align(w.fixed_bytes, kSramAlign), 0, 0, false};
  if (l.fixed >= target.sram_bytes || w.bytes_per_item == 0) return l;
  const uint64_t avail = target.sram_bytes - l.fixed;
  const uint64_t granule_bytes = w.granule * w.bytes_per_item;
  // Enough chunks to give every channel work, no bigger than the SRAM allows.
  const uint64_t granules = (w.count + w.granule - 1) / w.granule;
  const uint64_t per_job = (granules + std::max(1u, target.channels) - 1) / std::max(1u, target.channels);
  uint64_t cap = avail >= 2 * kSramAlign ? (avail / 2 - kSramAlign) / granule_bytes : 0;
  l.two = cap > 0 && per_job > cap;  // a job with more than one chunk alternates two buffers
  if (!l.two) cap = avail / granule_bytes;
  cap = std::min(cap, per_job);
  l.capacity = cap * w.granule;
  l.buffer_bytes = align(l.capacity * w.bytes_per_item, kSramAlign);
  return l;
}

}  // namespace

std::string flat_fits(const FlatWork& w, const NpuTarget& target) {
  if (flat_layout(w, target).capacity > 0) return "";
  return "one chunk of " + std::to_string(w.granule) + " elements needs " +
         std::to_string(align(w.fixed_bytes, kSramAlign) + w.granule * w.bytes_per_item) +
         " bytes of SRAM, the channel has " + std::to_string(target.sram_bytes);
}

void lower_flat(const FlatWork& w, const NpuTarget& target, std::vector<NpuStep>& jobs,
                const FlatPrologue& prologue, const FlatBody& body) {
  const FlatLayout l = flat_layout(w, target);
  std::vector<std::pair<uint64_t, uint64_t>> chunks;
  for (uint64_t first = 0; first < w.count; first += l.capacity)
    chunks.emplace_back(first, std::min(l.capacity, w.count - first));
  const size_t job_count = std::min<size_t>(std::max(1u, target.channels), chunks.size());
  jobs.assign(job_count, NpuStep{});
  for (size_t j = 0; j < job_count; ++j) {
    Emitter emit(jobs[j]);
    emit.preempt_point(0, 0);
    if (prologue) prologue(emit);
    uint32_t n = 0;
    for (size_t i = chunks.size() * j / job_count; i < chunks.size() * (j + 1) / job_count; ++i, ++n) {
      emit.preempt_point(0, w.fixed_bytes);  // between chunks only the per-job constants are live
      const uint64_t buffer = l.fixed + (l.two && n % 2 ? l.buffer_bytes : 0);
      body(emit, chunks[i].first, chunks[i].second, buffer, l.capacity);
    }
    emit.fence();
  }
}

namespace {

uint32_t band_rows(const SpatialOp& s, uint32_t rb) {
  return static_cast<uint32_t>(std::min<uint64_t>(
      s.in_h, static_cast<uint64_t>(rb - 1) * s.stride_h + uint64_t{s.kh - 1} * s.dil_h + 1));
}

struct SpatialSram {
  uint64_t fixed, in_bytes, out_bytes, total;
};

SpatialSram spatial_sram(const SpatialOp& s, SpatialTile t) {
  SpatialSram l{};
  l.fixed = align(s.fixed_bytes(t.cb), kSramAlign);
  l.in_bytes = align(uint64_t{band_rows(s, t.rb)} * s.in_w * t.cb * s.elem, kSramAlign);
  l.out_bytes = align(uint64_t{t.rb} * s.out_w * t.cb * s.depth_multiplier * s.elem, kSramAlign);
  l.total = l.fixed + t.buffers * (l.in_bytes + l.out_bytes);
  return l;
}

}  // namespace

Result<SpatialTile> choose_spatial_tile(const SpatialOp& s, const NpuTarget& target) {
  SpatialTile t{s.out_h, s.in_c, 1};
  while (spatial_sram(s, t).total > target.sram_bytes) {
    if (t.rb > 1) {
      t.rb = (t.rb + 1) / 2;
    } else if (t.cb > 1) {
      t.cb = (t.cb + 1) / 2;
    } else {
      return make_error("one output row of one channel needs " + std::to_string(spatial_sram(s, t).total) +
                        " bytes of SRAM, the channel has " + std::to_string(target.sram_bytes));
    }
  }
  const uint32_t want = std::max(1u, target.channels);
  t.rb = std::min(t.rb, std::max(1u, (s.out_h + want - 1) / want));
  const uint64_t tiles = uint64_t{(s.out_h + t.rb - 1) / t.rb} * s.batch * ((s.in_c + t.cb - 1) / t.cb);
  if (tiles > want) {
    SpatialTile d = t;
    d.buffers = 2;
    while (spatial_sram(s, d).total > target.sram_bytes && d.rb > 1) d.rb = (d.rb + 1) / 2;
    if (spatial_sram(s, d).total <= target.sram_bytes) t = d;
  }
  return t;
}

void lower_spatial(const SpatialOp& s, SpatialTile tile, const NpuTarget& target, Source input,
                   uint64_t out_base, std::vector<NpuStep>& jobs, const BlockLoader& load_block,
                   const TileCompute& compute) {
  const uint64_t e = s.elem;
  const uint64_t out_c = uint64_t{s.in_c} * s.depth_multiplier;
  std::vector<SpatialTileRef> tiles;
  for (uint32_t c0 = 0; c0 < s.in_c; c0 += tile.cb)
    for (uint32_t n = 0; n < s.batch; ++n)
      for (uint32_t oy0 = 0; oy0 < s.out_h; oy0 += tile.rb)
        tiles.push_back(
            {n, oy0, std::min(tile.rb, s.out_h - oy0), c0, std::min(tile.cb, s.in_c - c0), 0, 0, 0, 0});
  const size_t job_count = std::min<size_t>(std::max(1u, target.channels), tiles.size());
  jobs.assign(job_count, NpuStep{});
  for (size_t j = 0; j < job_count; ++j) {
    Emitter emit(jobs[j]);
    int64_t loaded = -1;
    uint32_t k = 0;
    for (size_t i = tiles.size() * j / job_count; i < tiles.size() * (j + 1) / job_count; ++i, ++k) {
      SpatialTileRef t = tiles[i];
      const SpatialSram l = spatial_sram(s, {tile.rb, t.cb, tile.buffers});
      const bool second = tile.buffers > 1 && k % 2 == 1;
      t.in_sram = l.fixed + (second ? l.in_bytes + l.out_bytes : 0);
      t.out_sram = t.in_sram + l.in_bytes;
      emit.preempt_point(0, loaded == t.c0 ? l.fixed : 0);  // between tiles only the block constants live
      if (loaded != t.c0) {
        load_block(emit, t.c0, t.cb);
        loaded = t.c0;
      }
      const int64_t first = int64_t{t.oy0} * s.stride_h - s.pad_top;
      const int64_t last = int64_t{t.oy0 + t.rb - 1} * s.stride_h - s.pad_top + int64_t{s.kh - 1} * s.dil_h;
      const int64_t a = std::clamp<int64_t>(first, 0, s.in_h - 1);
      const int64_t b = std::max(a, std::clamp<int64_t>(last, 0, s.in_h - 1));
      t.in_rows = static_cast<uint64_t>(b - a + 1);
      t.row_origin = static_cast<int32_t>(first - a);
      const uint64_t in_pixel0 = (uint64_t{t.n} * s.in_h + static_cast<uint64_t>(a)) * s.in_w;
      const uint64_t pixels = t.in_rows * s.in_w;
      const uint64_t in_plane = uint64_t{s.in_h} * s.in_w * e, out_plane = uint64_t{s.out_h} * s.out_w * e;
      if (s.nchw) {
        const uint64_t run0 =
            (uint64_t{t.n} * s.in_c + t.c0) * in_plane + static_cast<uint64_t>(a) * s.in_w * e;
        dma_nchw_in(emit, input.region, input.offset + run0, in_plane, t.in_sram, t.cb, pixels, s.elem);
      } else if (t.cb == s.in_c) {
        emit.dma(desc::Opcode::DMA_IN, input.region, input.offset + in_pixel0 * s.in_c * e, t.in_sram,
                 pixels * t.cb * e);
      } else {
        emit.dma(desc::Opcode::DMA_IN, input.region, input.offset + (in_pixel0 * s.in_c + t.c0) * e,
                 t.in_sram, t.cb * e, pixels, uint64_t{s.in_c} * e, t.cb * e);
      }
      compute(emit, t);
      const uint64_t ob = uint64_t{t.cb} * s.depth_multiplier;
      if (s.nchw) {
        const uint64_t run0 = (uint64_t{t.n} * out_c + uint64_t{t.c0} * s.depth_multiplier) * out_plane +
                              uint64_t{t.oy0} * s.out_w * e;
        dma_nchw_out(emit, out_base + run0, out_plane, t.out_sram, static_cast<uint32_t>(ob),
                     uint64_t{t.rb} * s.out_w, s.elem);
      } else {
        const uint64_t out_pixel0 = (uint64_t{t.n} * s.out_h + t.oy0) * s.out_w;
        emit.dma(desc::Opcode::DMA_OUT, Region::ARENA,
                 out_base + (out_pixel0 * out_c + uint64_t{t.c0} * s.depth_multiplier) * e, t.out_sram,
                 ob * e, uint64_t{t.rb} * s.out_w, out_c * e, ob * e);
      }
    }
    emit.fence();
  }
}

const Lowering* find_lowering(OperationType type) {
  switch (type) {
    case OperationType::ADD:
    case OperationType::SUB:
    case OperationType::MUL:
    case OperationType::MAXIMUM:
    case OperationType::MINIMUM:
      return &eltwise_lowering();
    case OperationType::RELU:
    case OperationType::RELU1:
    case OperationType::RELU6:
    case OperationType::LOGISTIC:
    case OperationType::TANH:
    case OperationType::ABS:
    case OperationType::EXP:
    case OperationType::LOG:
    case OperationType::NEG:
    case OperationType::RSQRT:
    case OperationType::SQRT:
    case OperationType::HARD_SWISH:
    case OperationType::SIN:
    case OperationType::ELU:
      return &activation_lowering();
    case OperationType::AVERAGE_POOL_2D:
    case OperationType::MAX_POOL_2D:
    case OperationType::L2_POOL_2D:
      return &pool_lowering();
    case OperationType::DEPTHWISE_CONV_2D:
      return &depthwise_lowering();
    case OperationType::SOFTMAX:
      return &softmax_lowering();
    case OperationType::MEAN:
    case OperationType::REDUCE_MAX:
    case OperationType::REDUCE_SUM:
      return &mean_lowering();
    case OperationType::RESHAPE:
    case OperationType::EXPAND_DIMS:
    case OperationType::CAST:
    case OperationType::CONCATENATION:
      return &copy_lowering();
    case OperationType::SLICE:
    case OperationType::SPLIT:
    case OperationType::TILE:
    case OperationType::CHANNEL_SHUFFLE:
    case OperationType::RESIZE_NEAREST_NEIGHBOR:
      return &gather_rows_lowering();
    case OperationType::PAD:
    case OperationType::PAD_V2:
      return &pad_lowering();
    case OperationType::ARGMAX:
    case OperationType::ARGMIN:
      return &argminmax_lowering();
    case OperationType::GROUPED_CONV_2D:
      return &grouped_conv_lowering();
    case OperationType::TRANSPOSE_CONV_2D:
      return &transpose_conv_lowering();
    case OperationType::EMBEDDING_LOOKUP:
      return &embedding_lookup_lowering();
    default:
      return nullptr;
  }
}

const Lowering* find_lowering(const models::Model& m, OperationType type) {
  if (!models::is_extension_type(type)) return find_lowering(type);
  const auto r = models::resolve_extension_operation(m.extension_name_to_prefix, type);
  if (!r.operation || r.extension->name != models::kLlmExtension) return nullptr;
  switch (static_cast<models::LlmOperation>(r.operation->type)) {
    case models::LlmOperation::RMS_NORM:
      return &rms_norm_lowering();
    case models::LlmOperation::ROPE:
      return &rope_lowering();
    case models::LlmOperation::MATMUL:
      return &matmul_lowering();
  }
  return nullptr;
}

}  // namespace npu::hal::lower
