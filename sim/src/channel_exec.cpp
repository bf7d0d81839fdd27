// What each descriptor does: decode (validation and SRAM/device footprint, in the command processor) and
// execution on its engine (time, data, energy). Every wait is interruptible by a reset; a descriptor whose
// wait was interrupted moves no more data.
#include <algorithm>
#include <bit>
#include <cstring>

#include "npu/sim/channel.h"

namespace npu::sim {

using regs::ChannelError;
using regs::FaultKind;

namespace {

struct ConvGeometry {
  uint64_t m, k, n, in_bytes, w_bytes, out_bytes;
};

// Element counts of a conv descriptor, or false when a field is zero or out of range.
bool conv_geometry(const desc::Conv& d, uint32_t elem, ConvGeometry* g) {
  if (!d.in_h || !d.in_w || !d.in_c || !d.kh || !d.kw || !d.cout || !d.out_h || !d.out_w || !d.stride_h ||
      !d.stride_w || !d.dilation_h || !d.dilation_w)
    return false;
  if (d.kh > 4096 || d.kw > 4096 || d.in_c > (1u << 20) || d.cout > (1u << 20)) return false;
  g->m = static_cast<uint64_t>(d.out_h) * d.out_w;
  g->k = static_cast<uint64_t>(d.kh) * d.kw * d.in_c;
  g->n = d.cout;
  g->in_bytes = static_cast<uint64_t>(d.in_h) * d.in_w * d.in_c * elem;
  g->w_bytes = g->k * g->n * elem;
  g->out_bytes = g->m * g->n * elem;
  return g->m <= (1ull << 32) && g->k <= (1ull << 24);
}

// Input element index of output (oy, ox) tap (ky, kx) within the band, or -1 for padding.
int64_t tap_index(const desc::Conv& d, uint64_t oy, uint64_t ox, uint32_t ky, uint32_t kx) {
  const int64_t iy =
      d.row_origin + static_cast<int64_t>(oy * d.stride_h + static_cast<uint64_t>(ky) * d.dilation_h);
  const int64_t ix =
      d.col_origin + static_cast<int64_t>(ox * d.stride_w + static_cast<uint64_t>(kx) * d.dilation_w);
  if (iy < 0 || ix < 0 || iy >= d.in_h || ix >= d.in_w) return -1;
  return (iy * d.in_w + ix) * static_cast<int64_t>(d.in_c);
}

SramRange range(uint64_t offset, uint64_t bytes) {
  return {static_cast<uint32_t>(offset), static_cast<uint32_t>(bytes)};
}

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

ChannelError Channel::decode(const desc::Raw& raw, Op* op) const {
  Footprint& fp = op->fp;
  switch (op->opcode) {
    case desc::Opcode::NOP:
    case desc::Opcode::FENCE:
    case desc::Opcode::BARRIER:
      return ChannelError::NONE;
    case desc::Opcode::PREEMPT_POINT: {
      const auto p = desc::decode<desc::PreemptPoint>(raw);
      for (size_t r = 0; r < 4; ++r) {
        if (!sram_.range_ok(p.offset[r], p.bytes[r])) return ChannelError::SRAM_OVERFLOW;
      }
      return ChannelError::NONE;
    }
    case desc::Opcode::DMA_IN:
    case desc::Opcode::DMA_OUT: {
      const auto d = desc::decode<desc::Dma>(raw);
      if (d.rows == 0 || d.row_bytes == 0) return ChannelError::NONE;
      const uint64_t dev_span = static_cast<uint64_t>(d.rows - 1) * d.dev_stride + d.row_bytes;
      const uint64_t sram_span = static_cast<uint64_t>(d.rows - 1) * d.sram_stride + d.row_bytes;
      if (!dram_.in_range(d.dev, dev_span)) return ChannelError::DMA_FAULT;
      if (!sram_.range_ok(d.sram, sram_span)) return ChannelError::SRAM_OVERFLOW;
      const bool in = op->opcode == desc::Opcode::DMA_IN;
      (in ? fp.dev_reads : fp.dev_writes).push_back({d.dev, dev_span});
      (in ? fp.sram.writes : fp.sram.reads).push_back(range(d.sram, sram_span));
      return ChannelError::NONE;
    }
    case desc::Opcode::DMA_GATHER: {
      const auto d = desc::decode<desc::DmaGather>(raw);
      if (d.rows == 0 || d.row_bytes == 0) return ChannelError::NONE;
      if (d.table_rows == 0 || (d.table_rows > 1 && d.dev_stride < d.row_bytes))
        return ChannelError::BAD_DESCRIPTOR;
      const uint64_t dev_span = static_cast<uint64_t>(d.table_rows - 1) * d.dev_stride + d.row_bytes;
      const uint64_t sram_span = static_cast<uint64_t>(d.rows - 1) * d.sram_stride + d.row_bytes;
      if (!dram_.in_range(d.dev, dev_span)) return ChannelError::DMA_FAULT;
      if (!sram_.range_ok(d.sram, sram_span) || !sram_.range_ok(d.index_sram, 4ull * d.rows))
        return ChannelError::SRAM_OVERFLOW;
      fp.dev_reads.push_back({d.dev, dev_span});
      fp.sram.reads.push_back(range(d.index_sram, 4ull * d.rows));
      fp.sram.writes.push_back(range(d.sram, sram_span));
      return ChannelError::NONE;
    }
    case desc::Opcode::CONV_INT8:
    case desc::Opcode::CONV_FP32: {
      const auto d = desc::decode<desc::Conv>(raw);
      const bool int8 = op->opcode == desc::Opcode::CONV_INT8;
      ConvGeometry g{};
      if (!conv_geometry(d, int8 ? 1 : 4, &g)) return ChannelError::BAD_DESCRIPTOR;
      if (!int8 && (d.flags & (desc::kConvWeightsUnsigned | desc::kConvWeightColumnSums)))
        return ChannelError::BAD_DESCRIPTOR;
      fp.sram.reads = {range(d.in_sram, g.in_bytes), range(d.w_sram, g.w_bytes), range(d.bias_sram, g.n * 4)};
      if (int8) fp.sram.reads.push_back(range(d.quant_sram, g.n * 8));
      fp.sram.writes = {range(d.out_sram, g.out_bytes)};
      if (!sram_.range_ok(d.in_sram, g.in_bytes) || !sram_.range_ok(d.w_sram, g.w_bytes) ||
          !sram_.range_ok(d.bias_sram, g.n * 4) || (int8 && !sram_.range_ok(d.quant_sram, g.n * 8)) ||
          !sram_.range_ok(d.out_sram, g.out_bytes))
        return ChannelError::SRAM_OVERFLOW;
      return ChannelError::NONE;
    }
    case desc::Opcode::FILL: {
      const auto d = desc::decode<desc::Fill>(raw);
      if (!sram_.range_ok(d.sram, d.bytes)) return ChannelError::SRAM_OVERFLOW;
      if (d.bytes) fp.sram.writes.push_back({d.sram, d.bytes});
      return ChannelError::NONE;
    }
    default:
      if (VectorUnit::handles(op->opcode)) return vector_unit_.footprint(raw, sram_.size(), &fp.sram);
      return ChannelError::BAD_DESCRIPTOR;
  }
}

ChannelError Channel::execute(const Op& op) {
  switch (op.opcode) {
    case desc::Opcode::DMA_IN:
      return dma(op, desc::decode<desc::Dma>(op.raw), true);
    case desc::Opcode::DMA_OUT:
      return dma(op, desc::decode<desc::Dma>(op.raw), false);
    case desc::Opcode::DMA_GATHER:
      return dma_gather(op, desc::decode<desc::DmaGather>(op.raw));
    case desc::Opcode::CONV_INT8:
      return conv_int8(op, desc::decode<desc::Conv>(op.raw));
    case desc::Opcode::CONV_FP32:
      return conv_fp32(op, desc::decode<desc::Conv>(op.raw));
    case desc::Opcode::FILL:
      return fill(op, desc::decode<desc::Fill>(op.raw));
    default:
      return vector(op);
  }
}

ChannelError Channel::dma(const Op& op, const desc::Dma& d, bool to_sram) {
  if (d.rows == 0 || d.row_bytes == 0) return ChannelError::NONE;
  // Fast mode, no fault armed: setup, latency and the whole transfer in one wait (below).
  const bool one_wait = fast_ && op.fault == FaultKind::NONE;
  if (!one_wait && !wait_cycles(cfg_.dma_setup_cycles, op.epoch)) return ChannelError::NONE;
  if (op.fault == FaultKind::DMA_ERROR) return ChannelError::DMA_FAULT;
  if (op.fault == FaultKind::SRAM_ECC)
    if (const ChannelError e = sram_upset(op); e != ChannelError::NONE) return e;
  const uint64_t bytes = static_cast<uint64_t>(d.rows) * d.row_bytes;
  // The engine's own pace: its port width, plus the cycles rows packed into one cycle lose to a shared bank.
  const uint64_t conflicts =
      sram_.conflict_cycles(d.sram, d.row_bytes, d.rows, d.sram_stride, cfg_.dma_bytes_per_cycle);
  const uint64_t engine_cycles = div_up(bytes, cfg_.dma_bytes_per_cycle) + conflicts;
  const double ns_per_byte =
      static_cast<double>(engine_cycles) * clock_.period().to_seconds() * 1e9 / static_cast<double>(bytes);
  if (one_wait) {
    if (!dram_.share(bytes, ns_per_byte, clock_.cycles(cfg_.dma_setup_cycles), sc_core::SC_ZERO_TIME,
                     &abort_) ||
        op.epoch != epoch_)
      return ChannelError::NONE;
  } else if (!dram_.transfer(bytes, ns_per_byte, &abort_) || op.epoch != epoch_) {
    return ChannelError::NONE;
  }
  if (run_.functional) {
    for (uint32_t r = 0; r < d.rows; ++r) {
      uint8_t* s = sram_.data() + d.sram + static_cast<uint64_t>(r) * d.sram_stride;
      const uint64_t a = d.dev + static_cast<uint64_t>(r) * d.dev_stride;
      if (to_sram) {
        dram_.read(a, s, d.row_bytes);
      } else {
        dram_.write(a, s, d.row_bytes);
      }
    }
  }
  bank_conflict_cycles_ += conflicts;
  (to_sram ? dma_bytes_in_ : dma_bytes_out_) += bytes;
  power_.add_dram_bytes(power_id_, bytes);
  power_.add_sram_bytes(power_id_, bytes);
  return ChannelError::NONE;
}

// A gather moves its rows at the DMA engine's pace like a 2-D DMA of the same bytes; the indices are
// read from SRAM when it runs (data-dependent addresses), and checked against the table.
ChannelError Channel::dma_gather(const Op& op, const desc::DmaGather& d) {
  if (d.rows == 0 || d.row_bytes == 0) return ChannelError::NONE;
  if (!wait_cycles(cfg_.dma_setup_cycles, op.epoch)) return ChannelError::NONE;
  if (op.fault == FaultKind::DMA_ERROR) return ChannelError::DMA_FAULT;
  if (op.fault == FaultKind::SRAM_ECC) return ChannelError::SRAM_ECC;
  std::vector<int32_t> index(d.rows);
  if (run_.functional) {
    std::memcpy(index.data(), sram_.data() + d.index_sram, 4ull * d.rows);
    for (int32_t i : index)
      if (i < 0 || static_cast<uint32_t>(i) >= d.table_rows) return ChannelError::INDEX_OUT_OF_RANGE;
  }
  const uint64_t bytes = static_cast<uint64_t>(d.rows) * d.row_bytes;
  const uint64_t conflicts =
      sram_.conflict_cycles(d.sram, d.row_bytes, d.rows, d.sram_stride, cfg_.dma_bytes_per_cycle);
  const uint64_t engine_cycles = div_up(bytes, cfg_.dma_bytes_per_cycle) + conflicts;
  const double ns_per_byte =
      static_cast<double>(engine_cycles) * clock_.period().to_seconds() * 1e9 / static_cast<double>(bytes);
  if (!dram_.transfer(bytes, ns_per_byte, &abort_) || op.epoch != epoch_) return ChannelError::NONE;
  if (run_.functional) {
    for (uint32_t r = 0; r < d.rows; ++r)
      dram_.read(d.dev + static_cast<uint64_t>(index[r]) * d.dev_stride,
                 sram_.data() + d.sram + static_cast<uint64_t>(r) * d.sram_stride, d.row_bytes);
  }
  bank_conflict_cycles_ += conflicts;
  dma_bytes_in_ += bytes;
  power_.add_dram_bytes(power_id_, bytes);
  power_.add_sram_bytes(power_id_, bytes + 4ull * d.rows);
  return ChannelError::NONE;
}

ChannelError Channel::conv_int8(const Op& op, const desc::Conv& d) {
  ConvGeometry g{};
  conv_geometry(d, 1, &g);  // validated at decode
  if (op.fault == FaultKind::SRAM_ECC)
    if (const ChannelError e = sram_upset(op); e != ChannelError::NONE) return e;
  const uint32_t cols = core_->geometry().cols;
  uint64_t cycles = 0;
  bool timed = false;  // true once the core itself advanced time (RTL)
  if (!run_.functional) {
    for (uint64_t j0 = 0; j0 < g.n; j0 += cols)
      cycles += core_->int8_tile_cycles(static_cast<uint32_t>(g.m), static_cast<uint32_t>(g.k),
                                        static_cast<uint32_t>(std::min<uint64_t>(cols, g.n - j0)));
  } else {
    // The address generator streams im2col rows into the array; it costs no cycles of its own.
    const bool in_unsigned = d.flags & desc::kConvInputUnsigned;
    std::vector<int8_t> a(g.m * g.k);
    const uint8_t* in = sram_.data() + d.in_sram;
    int8_t* row = a.data();
    for (uint64_t oy = 0; oy < d.out_h; ++oy) {
      for (uint64_t ox = 0; ox < d.out_w; ++ox) {
        for (uint32_t ky = 0; ky < d.kh; ++ky) {
          for (uint32_t kx = 0; kx < d.kw; ++kx) {
            const int64_t base = tap_index(d, oy, ox, ky, kx);
            if (base < 0) {
              // uint8 input: the pass below flips every byte, so the padding is stored flipped too.
              std::memset(row, static_cast<uint8_t>(d.pad_value) ^ (in_unsigned ? 0x80u : 0u), d.in_c);
            } else {
              std::memcpy(row, in + base, d.in_c);
            }
            row += d.in_c;
          }
        }
      }
    }
    if (in_unsigned) {  // x − 128 as int8 is x ^ 0x80: one pass, eight bytes at a time
      auto* bytes = reinterpret_cast<uint8_t*>(a.data());
      size_t i = 0;
      for (; i + 8 <= a.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, bytes + i, 8);
        word ^= 0x8080808080808080ull;
        std::memcpy(bytes + i, &word, 8);
      }
      for (; i < a.size(); ++i) bytes[i] ^= 0x80u;
    }
    std::vector<int32_t> bias(g.n), mult(g.n), shift(g.n);
    std::memcpy(bias.data(), sram_.data() + d.bias_sram, g.n * 4);
    std::memcpy(mult.data(), sram_.data() + d.quant_sram, g.n * 4);
    std::memcpy(shift.data(), sram_.data() + d.quant_sram + g.n * 4, g.n * 4);
    // Any shift past ±31 requantises as ±31 does; clamped here, every core (the vectorised one negates
    // it) sees a shift whose negation is defined.
    for (int32_t& sh : shift) sh = std::clamp(sh, -31, 31);
    const auto* w = reinterpret_cast<const int8_t*>(sram_.data() + d.w_sram);
    // Runtime weights (kConvWeights*): the loader's view of them, K × N int8, and their column sums.
    std::vector<int8_t> loaded;
    if (d.flags & (desc::kConvWeightsTransposed | desc::kConvWeightsUnsigned | desc::kConvWeightColumnSums)) {
      const uint8_t* raw = sram_.data() + d.w_sram;
      const bool transposed = d.flags & desc::kConvWeightsTransposed;
      const uint8_t flip = (d.flags & desc::kConvWeightsUnsigned) ? 0x80u : 0u;
      loaded.resize(g.k * g.n);
      for (uint64_t kk = 0; kk < g.k; ++kk)
        for (uint64_t j = 0; j < g.n; ++j)
          loaded[kk * g.n + j] = static_cast<int8_t>(raw[transposed ? j * g.k + kk : kk * g.n + j] ^ flip);
      if (d.flags & desc::kConvWeightColumnSums) {
        for (uint64_t j = 0; j < g.n; ++j) {
          int64_t sum = 0;
          for (uint64_t kk = 0; kk < g.k; ++kk) sum += loaded[kk * g.n + j];
          bias[j] = static_cast<int32_t>(static_cast<uint32_t>(bias[j]) -
                                         static_cast<uint32_t>(static_cast<int64_t>(d.pad_value) * sum));
        }
      }
      w = loaded.data();
    }
    uint8_t* out = sram_.data() + d.out_sram;
    std::vector<uint8_t> scratch;  // a clocked core writes here, so a reset mid-tile cannot reach the SRAM
    // A core that computes untimed takes every column block at once (one weight packing per descriptor);
    // a clocked one runs them one by one.
    for (uint64_t j0 = 0; j0 < g.n;) {
      const bool whole = j0 == 0;
      Int8TileCommand t;
      t.m = static_cast<uint32_t>(g.m);
      t.k = static_cast<uint32_t>(g.k);
      t.n = static_cast<uint32_t>(whole ? g.n : std::min<uint64_t>(cols, g.n - j0));
      t.a = a.data();
      t.lda = t.k;
      t.w = w + j0;
      t.ldw = d.cout;
      t.bias = bias.data() + j0;
      t.weight_offset = d.weight_offset;
      t.out_multiplier = mult.data() + j0;
      t.out_shift = shift.data() + j0;
      t.out_zero_point = d.out_zero_point;
      t.clamp_lo = d.clamp_lo;
      t.clamp_hi = d.clamp_hi;
      t.out_unsigned = d.flags & desc::kConvOutputUnsigned;
      t.out = out + j0;
      t.ldo = d.cout;
      if (whole) {
        if (const auto c = core_->compute_int8_tile(t)) {
          cycles += *c;
          break;
        }
        t.n = static_cast<uint32_t>(std::min<uint64_t>(cols, g.n));
      }
      scratch.resize(g.m * t.n);
      t.out = scratch.data();
      t.ldo = t.n;
      cycles += core_->run_int8_tile(t);
      timed = true;
      if (op.epoch != epoch_) return ChannelError::NONE;
      for (uint64_t i = 0; i < g.m; ++i) std::memcpy(out + i * d.cout + j0, scratch.data() + i * t.n, t.n);
      j0 += t.n;
    }
  }
  if (!timed && !wait_cycles(cycles, op.epoch)) return ChannelError::NONE;
  const uint64_t macs = g.m * g.k * g.n;
  macs_ += macs;
  power_.add_macs(power_id_, DataType::Int8, macs);
  // Activations stream once per column block; weights, bias and requantisation once; outputs written once.
  power_.add_sram_bytes(power_id_, g.m * g.k * div_up(g.n, cols) + g.w_bytes + g.n * 12 + g.out_bytes);
  return ChannelError::NONE;
}

ChannelError Channel::conv_fp32(const Op& op, const desc::Conv& d) {
  ConvGeometry g{};
  conv_geometry(d, 4, &g);  // validated at decode
  if (op.fault == FaultKind::SRAM_ECC)
    if (const ChannelError e = sram_upset(op); e != ChannelError::NONE) return e;
  const uint64_t macs = g.m * g.k * g.n;
  const uint64_t cycles = div_up(macs, cfg_.fp32_macs_per_cycle) + cfg_.vector_pipeline_cycles;
  std::vector<float> out;
  if (run_.functional) {
    auto load = [&](uint64_t off, uint64_t count) {
      std::vector<float> v(count);
      std::memcpy(v.data(), sram_.data() + off, count * 4);
      return v;
    };
    const std::vector<float> in = load(d.in_sram, g.in_bytes / 4);
    std::vector<float> w = load(d.w_sram, g.k * g.n);
    if (d.flags & desc::kConvWeightsTransposed) {  // cout × K in SRAM: the loader turns it to K × cout
      std::vector<float> t(w.size());
      for (uint64_t kk = 0; kk < g.k; ++kk)
        for (uint64_t j = 0; j < g.n; ++j) t[kk * g.n + j] = w[j * g.k + kk];
      w = std::move(t);
    }
    const std::vector<float> bias = load(d.bias_sram, g.n);
    const float lo = std::bit_cast<float>(d.clamp_lo), hi = std::bit_cast<float>(d.clamp_hi);
    out.resize(g.m * g.n);
    // Accumulation order (ky, kx, c innermost from 0, then + bias) mirrors the CPU reference exactly.
    std::vector<float> acc(g.n);
    for (uint64_t oy = 0; oy < d.out_h; ++oy) {
      for (uint64_t ox = 0; ox < d.out_w; ++ox) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (uint32_t ky = 0; ky < d.kh; ++ky) {
          for (uint32_t kx = 0; kx < d.kw; ++kx) {
            const int64_t base = tap_index(d, oy, ox, ky, kx);
            if (base < 0) continue;
            const uint64_t krow = (static_cast<uint64_t>(ky) * d.kw + kx) * d.in_c;
            for (uint32_t c = 0; c < d.in_c; ++c) {
              const float x = in[base + c];
              const float* wr = &w[(krow + c) * g.n];
              for (uint64_t j = 0; j < g.n; ++j) acc[j] += x * wr[j];
            }
          }
        }
        float* o = &out[(oy * d.out_w + ox) * g.n];
        for (uint64_t j = 0; j < g.n; ++j) o[j] = std::clamp(acc[j] + bias[j], lo, hi);
      }
    }
  }
  if (!wait_cycles(cycles, op.epoch)) return ChannelError::NONE;
  if (run_.functional) std::memcpy(sram_.data() + d.out_sram, out.data(), g.out_bytes);
  macs_ += macs;
  power_.add_macs(power_id_, DataType::Fp32, macs);
  power_.add_sram_bytes(power_id_, g.in_bytes + g.w_bytes + g.n * 4 + g.out_bytes);
  return ChannelError::NONE;
}

// FILL writes `lanes` bytes per cycle through the vector unit's store path.
ChannelError Channel::fill(const Op& op, const desc::Fill& d) {
  if (!wait_cycles(div_up(d.bytes, cfg_.vector_lanes), op.epoch)) return ChannelError::NONE;
  if (run_.functional) {
    uint8_t* s = sram_.data() + d.sram;
    for (uint32_t i = 0; i < d.bytes; ++i) s[i] = static_cast<uint8_t>(d.pattern >> (8 * (i % 4)));
  }
  power_.add_sram_bytes(power_id_, d.bytes);
  return ChannelError::NONE;
}

ChannelError Channel::vector(const Op& op) {
  if (op.fault == FaultKind::SRAM_ECC)
    if (const ChannelError e = sram_upset(op); e != ChannelError::NONE) return e;
  const VectorOpResult r = vector_unit_.execute(op.raw, sram_.data(), sram_.size(), run_.functional);
  if (r.error != ChannelError::NONE) return r.error;
  if (!wait_cycles(r.cycles, op.epoch)) return ChannelError::NONE;
  macs_ += r.macs;
  if (r.mac_kind != MacKind::NONE)
    power_.add_macs(power_id_, r.mac_kind == MacKind::INT8 ? DataType::Int8 : DataType::Fp32, r.macs);
  power_.add_sram_bytes(power_id_, r.sram_bytes);
  return ChannelError::NONE;
}

}  // namespace npu::sim
