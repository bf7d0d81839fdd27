#include "npu/sim/channel.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "npu/common/log.h"

namespace npu::sim {

using regs::ChannelError;
using regs::ChannelState;

Channel::Channel(sc_core::sc_module_name name, uint32_t index, const ChannelConfig& cfg,
                 const ClockDomain& clock, Dram& dram, std::unique_ptr<ComputeCore> core,
                 stats::Registry& stats)
    : sc_module(name),
      index_(index),
      cfg_(cfg),
      clock_(clock),
      dram_(dram),
      core_(std::move(core)),
      sram_(static_cast<size_t>(cfg.sram_kib) * 1024),
      vector_unit_(VectorUnitConfig{cfg.vector_lanes, cfg.fp32_macs_per_cycle}),
      busy_cycles_(stats.counter(std::string(this->name()) + ".busy_cycles", "cycles",
                                 "Cycles between doorbell and completion")),
      compute_cycles_(stats.counter(std::string(this->name()) + ".compute_cycles", "cycles",
                                    "Cycles the MAC array or vector unit was computing")),
      dma_cycles_(stats.counter(std::string(this->name()) + ".dma_cycles", "cycles",
                                "Cycles spent in DMA and descriptor fetch")),
      macs_(stats.counter(std::string(this->name()) + ".macs", "MAC", "Multiply-accumulates performed")),
      dma_bytes_in_(stats.counter(std::string(this->name()) + ".dma.bytes_in", "B", "Bytes DMA'd into SRAM")),
      dma_bytes_out_(stats.counter(std::string(this->name()) + ".dma.bytes_out", "B", "Bytes DMA'd out of SRAM")),
      descriptors_(stats.counter(std::string(this->name()) + ".descriptors", "", "Descriptors executed")),
      jobs_(stats.counter(std::string(this->name()) + ".command_buffers", "", "Command buffers completed")),
      preemptions_(stats.counter(std::string(this->name()) + ".preemptions", "", "Preempt requests honoured")) {
  SC_HAS_PROCESS(Channel);
  SC_THREAD(command_processor);
}

uint32_t Channel::read_reg(uint32_t offset) const {
  switch (offset) {
    case regs::CH_CMD_BASE_LO: return static_cast<uint32_t>(cmd_base_);
    case regs::CH_CMD_BASE_HI: return static_cast<uint32_t>(cmd_base_ >> 32);
    case regs::CH_CMD_COUNT: return cmd_count_;
    case regs::CH_STATUS: return static_cast<uint32_t>(state_) | (static_cast<uint32_t>(error_) << 8);
    case regs::CH_PROGRESS: return progress_;
    case regs::CH_CYCLES_LO: return static_cast<uint32_t>(last_cycles_);
    case regs::CH_CYCLES_HI: return static_cast<uint32_t>(last_cycles_ >> 32);
    case regs::CH_IRQ_STATUS: return irq_status_;
    default: return 0;
  }
}

void Channel::write_reg(uint32_t offset, uint32_t value) {
  switch (offset) {
    case regs::CH_CMD_BASE_LO: cmd_base_ = (cmd_base_ & ~0xFFFFFFFFull) | value; break;
    case regs::CH_CMD_BASE_HI: cmd_base_ = (cmd_base_ & 0xFFFFFFFFull) | (static_cast<uint64_t>(value) << 32); break;
    case regs::CH_CMD_COUNT: cmd_count_ = value; break;
    case regs::CH_DOORBELL:
      // A doorbell while busy is ignored, as the driver must wait for the channel to go idle.
      if ((value & 1) && state_ != ChannelState::BUSY) {
        state_ = ChannelState::BUSY;
        doorbell_.notify(sc_core::SC_ZERO_TIME);
      }
      break;
    case regs::CH_CTRL:
      if (value & regs::CH_CTRL_PREEMPT) preempt_requested_ = true;
      if ((value & regs::CH_CTRL_RESET) && state_ != ChannelState::BUSY) {
        state_ = ChannelState::IDLE;
        error_ = ChannelError::NONE;
        progress_ = 0;
      }
      break;
    case regs::CH_IRQ_STATUS:
      irq_status_ &= ~value;
      if (irq_changed_) irq_changed_();
      break;
    default: break;
  }
}

void Channel::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (tracer_) track_ = tracer_->track("npu", name());
}

namespace {

uint64_t now_ns() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }

}  // namespace

void Channel::raise(uint32_t bits) {
  irq_status_ |= bits;
  if (irq_changed_) irq_changed_();
}

void Channel::command_processor() {
  auto log = log::get(name());
  for (;;) {
    sc_core::wait(doorbell_);
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    error_ = ChannelError::NONE;
    progress_ = 0;
    bool preempted = false;
    log->debug("start: {} descriptors at 0x{:x}", cmd_count_, cmd_base_);
    for (uint32_t i = 0; i < cmd_count_; ++i) {
      if (preempt_requested_) {
        preempted = true;
        break;
      }
      const uint64_t addr = cmd_base_ + static_cast<uint64_t>(i) * desc::kDescriptorBytes;
      if (!dram_.in_range(addr, desc::kDescriptorBytes)) {
        error_ = ChannelError::DMA_FAULT;
        break;
      }
      const sc_core::sc_time fetch_start = sc_core::sc_time_stamp();
      dram_.transfer(desc::kDescriptorBytes, dma_ns_per_byte());
      desc::Raw raw;
      dram_.read(addr, raw.bytes, sizeof raw.bytes);
      sc_core::wait(clock_.cycles(cfg_.descriptor_fetch_cycles));
      dma_cycles_ += static_cast<uint64_t>((sc_core::sc_time_stamp() - fetch_start) / clock_.period());
      error_ = execute(raw);
      if (tracer_) {
        const uint64_t t0 = static_cast<uint64_t>(fetch_start.to_seconds() * 1e9 + 0.5);
        tracer_->span(track_, desc::opcode_name(desc::opcode_of(raw)), t0, now_ns() - t0,
                      {{"index", i}, {"id", desc::decode<desc::Header>(raw).id}});
      }
      if (error_ != ChannelError::NONE) {
        log->warn("descriptor {} failed with error {}", i, static_cast<uint32_t>(error_));
        break;
      }
      ++descriptors_;
      progress_ = i + 1;
    }
    last_cycles_ = static_cast<uint64_t>((sc_core::sc_time_stamp() - start) / clock_.period());
    busy_cycles_ += last_cycles_;
    if (error_ != ChannelError::NONE) {
      state_ = ChannelState::ERROR;
      raise(regs::CH_IRQ_ERROR);
    } else if (preempted) {
      preempt_requested_ = false;
      ++preemptions_;
      state_ = ChannelState::PREEMPTED;
      raise(regs::CH_IRQ_PREEMPTED);
    } else {
      ++jobs_;
      state_ = ChannelState::DONE;
      raise(regs::CH_IRQ_DONE);
    }
    log->debug("end: state {} after {} cycles", static_cast<uint32_t>(state_), last_cycles_);
  }
}

double Channel::dma_ns_per_byte() const { return clock_.period().to_seconds() * 1e9 / cfg_.dma_bytes_per_cycle; }

bool Channel::sram_range_ok(uint64_t offset, uint64_t bytes) const {
  return offset <= sram_.size() && bytes <= sram_.size() - offset;
}

ChannelError Channel::execute(const desc::Raw& raw) {
  const desc::Opcode op = desc::opcode_of(raw);
  if (VectorUnit::handles(op)) return vector(raw);
  switch (op) {
    case desc::Opcode::NOP:
    case desc::Opcode::FENCE: return ChannelError::NONE;
    case desc::Opcode::DMA_IN: return dma(desc::decode<desc::Dma>(raw), true);
    case desc::Opcode::DMA_OUT: return dma(desc::decode<desc::Dma>(raw), false);
    case desc::Opcode::CONV_INT8: return conv_int8(desc::decode<desc::Conv>(raw));
    case desc::Opcode::CONV_FP32: return conv_fp32(desc::decode<desc::Conv>(raw));
    default: return ChannelError::BAD_DESCRIPTOR;
  }
}

ChannelError Channel::vector(const desc::Raw& raw) {
  SramFootprint fp;
  if (const auto e = vector_unit_.footprint(raw, sram_.size(), &fp); e != ChannelError::NONE) return e;
  const VectorOpResult r = vector_unit_.execute(raw, sram_.data(), sram_.size(), true);
  if (r.error != ChannelError::NONE) return r.error;
  sc_core::wait(clock_.cycles(r.cycles));
  compute_cycles_ += r.cycles;
  macs_ += r.macs;
  return ChannelError::NONE;
}

ChannelError Channel::dma(const desc::Dma& d, bool to_sram) {
  if (d.rows == 0 || d.row_bytes == 0) return ChannelError::NONE;
  const uint64_t dev_span = static_cast<uint64_t>(d.rows - 1) * d.dev_stride + d.row_bytes;
  const uint64_t sram_span = static_cast<uint64_t>(d.rows - 1) * d.sram_stride + d.row_bytes;
  if (!dram_.in_range(d.dev, dev_span)) return ChannelError::DMA_FAULT;
  if (!sram_range_ok(d.sram, sram_span)) return ChannelError::SRAM_OVERFLOW;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  sc_core::wait(clock_.cycles(cfg_.dma_setup_cycles));
  const uint64_t bytes = static_cast<uint64_t>(d.rows) * d.row_bytes;
  dram_.transfer(bytes, dma_ns_per_byte());
  for (uint32_t r = 0; r < d.rows; ++r) {
    uint8_t* s = sram_.data() + d.sram + static_cast<uint64_t>(r) * d.sram_stride;
    const uint64_t a = d.dev + static_cast<uint64_t>(r) * d.dev_stride;
    if (to_sram) {
      dram_.read(a, s, d.row_bytes);
    } else {
      dram_.write(a, s, d.row_bytes);
    }
  }
  (to_sram ? dma_bytes_in_ : dma_bytes_out_) += bytes;
  dma_cycles_ += static_cast<uint64_t>((sc_core::sc_time_stamp() - start) / clock_.period());
  return ChannelError::NONE;
}

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
  const int64_t iy = d.row_origin + static_cast<int64_t>(oy * d.stride_h + static_cast<uint64_t>(ky) * d.dilation_h);
  const int64_t ix = d.col_origin + static_cast<int64_t>(ox * d.stride_w + static_cast<uint64_t>(kx) * d.dilation_w);
  if (iy < 0 || ix < 0 || iy >= d.in_h || ix >= d.in_w) return -1;
  return (iy * d.in_w + ix) * static_cast<int64_t>(d.in_c);
}

}  // namespace

ChannelError Channel::conv_int8(const desc::Conv& d) {
  ConvGeometry g{};
  if (!conv_geometry(d, 1, &g)) return ChannelError::BAD_DESCRIPTOR;
  if (!sram_range_ok(d.in_sram, g.in_bytes) || !sram_range_ok(d.w_sram, g.w_bytes) ||
      !sram_range_ok(d.bias_sram, g.n * 4) || !sram_range_ok(d.quant_sram, g.n * 8) ||
      !sram_range_ok(d.out_sram, g.out_bytes))
    return ChannelError::SRAM_OVERFLOW;

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
          for (uint32_t c = 0; c < d.in_c; ++c) {
            if (base < 0) {
              *row++ = static_cast<int8_t>(d.pad_value);
            } else {
              const uint8_t v = in[base + c];
              *row++ = static_cast<int8_t>(in_unsigned ? (v ^ 0x80u) : v);
            }
          }
        }
      }
    }
  }
  std::vector<int32_t> bias(g.n), mult(g.n), shift(g.n);
  std::memcpy(bias.data(), sram_.data() + d.bias_sram, g.n * 4);
  std::memcpy(mult.data(), sram_.data() + d.quant_sram, g.n * 4);
  std::memcpy(shift.data(), sram_.data() + d.quant_sram + g.n * 4, g.n * 4);
  const auto* w = reinterpret_cast<const int8_t*>(sram_.data() + d.w_sram);
  uint8_t* out = sram_.data() + d.out_sram;

  const uint32_t cols = core_->geometry().cols;
  for (uint64_t j0 = 0; j0 < g.n; j0 += cols) {
    Int8TileCommand t;
    t.m = static_cast<uint32_t>(g.m);
    t.k = static_cast<uint32_t>(g.k);
    t.n = static_cast<uint32_t>(std::min<uint64_t>(cols, g.n - j0));
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
    compute_cycles_ += core_->run_int8_tile(t);
  }
  macs_ += g.m * g.k * g.n;
  return ChannelError::NONE;
}

ChannelError Channel::conv_fp32(const desc::Conv& d) {
  ConvGeometry g{};
  if (!conv_geometry(d, 4, &g)) return ChannelError::BAD_DESCRIPTOR;
  if (!sram_range_ok(d.in_sram, g.in_bytes) || !sram_range_ok(d.w_sram, g.w_bytes) ||
      !sram_range_ok(d.bias_sram, g.n * 4) || !sram_range_ok(d.out_sram, g.out_bytes))
    return ChannelError::SRAM_OVERFLOW;
  auto load = [&](uint64_t off, uint64_t count) {
    std::vector<float> v(count);
    std::memcpy(v.data(), sram_.data() + off, count * 4);
    return v;
  };
  const std::vector<float> in = load(d.in_sram, g.in_bytes / 4);
  const std::vector<float> w = load(d.w_sram, g.k * g.n);
  const std::vector<float> bias = load(d.bias_sram, g.n);
  const float lo = std::bit_cast<float>(d.clamp_lo), hi = std::bit_cast<float>(d.clamp_hi);
  std::vector<float> out(g.m * g.n);
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
  std::memcpy(sram_.data() + d.out_sram, out.data(), g.out_bytes);
  const uint64_t macs = g.m * g.k * g.n;
  const uint64_t cycles = (macs + cfg_.fp32_macs_per_cycle - 1) / cfg_.fp32_macs_per_cycle + 8;  // + pipeline
  sc_core::wait(clock_.cycles(cycles));
  compute_cycles_ += cycles;
  macs_ += macs;
  return ChannelError::NONE;
}

}  // namespace npu::sim
