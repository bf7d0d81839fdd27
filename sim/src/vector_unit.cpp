// The vector unit's functional and timing model. Every descriptor goes through plan() first, which
// validates its fields, derives its SRAM footprint and its cost; execute() then does the arithmetic.
//
// Timing (cycles at the channel clock), with L = lanes (bytes per cycle through the unit),
// F = fp32_macs_per_cycle and P = pipeline_cycles:
//   DWCONV_INT8   P + ⌈macs / L⌉            macs = out_h·out_w·cout·kh·kw (one 8-bit MAC per lane)
//   DWCONV_FP32   P + ⌈macs / F⌉
//   ELTWISE       P + ⌈count·e / L⌉          e = element bytes (1 for U8/S8, 4 for F32/I32)
//   UNARY         P + ⌈count·e / L⌉·k        e = max(in, out) bytes; k = 4 for the F32 transcendental
//                                            functions (LOGISTIC, TANH, EXP, LOG, SQRT, RSQRT), else 1
//   POOL          P + ⌈taps·e / L⌉           taps = out_h·out_w·channels·filter_h·filter_w
//   REDUCE        P + ⌈outer·extent·inner·e / L⌉
//   SOFTMAX       P + ⌈rows·length·4 / L⌉·6  (max pass, exp pass at 4×, normalising pass)
//   RMS_NORM      P + 2·⌈n·e / L⌉ + 4·rows   n = rows·length: a sum-of-squares pass and a scaling pass,
//                                            and per row one reciprocal square root at the
//                                            transcendental rate (4 cycles)
//   ROPE          P + ⌈n·e / L⌉·4            n = rows·width: cos/sin of each pair's angle at the
//                                            transcendental rate, the rotation in the same pass
// MACs (energy, by kind INT8 for U8/S8/I32 and FP32 for F32): DWCONV its macs; ELTWISE ADD/SUB/MUL one
// per element (MAX/MIN none); POOL AVG/L2 one per tap; REDUCE MEAN/SUM one per input element; SOFTMAX
// two per element (exp, normalise); RMS_NORM two per element (square-accumulate, scale); ROPE two per
// element (its two products); UNARY none. SRAM bytes = every byte read plus every byte written.
#include "npu/sim/vector_unit.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "npu/common/fixed_point.h"

namespace npu::sim {

using regs::ChannelError;

namespace {

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Extents beyond this are a corrupt descriptor, not a big tensor (keeps products far from overflow).
constexpr uint64_t kMaxExtent = 1ull << 24;

bool valid_dtype(desc::DType t) {
  return static_cast<uint32_t>(t) <= static_cast<uint32_t>(desc::DType::I32);
}
bool is_int8(desc::DType t) { return t == desc::DType::U8 || t == desc::DType::S8; }

// What a descriptor costs and touches, or why it is rejected.
struct Plan {
  ChannelError error = ChannelError::NONE;
  SramFootprint fp;
  uint64_t cycles = 0;
  uint64_t macs = 0;
  MacKind mac_kind = MacKind::NONE;
};

class Planner {
 public:
  Planner(const VectorUnitConfig& cfg, uint64_t sram_bytes) : cfg_(cfg), sram_bytes_(sram_bytes) {}

  Plan bad() const {
    Plan p;
    p.error = ChannelError::BAD_DESCRIPTOR;
    return p;
  }
  void read(Plan& p, uint64_t offset, uint64_t bytes) const { add(p, p.fp.reads, offset, bytes); }
  void write(Plan& p, uint64_t offset, uint64_t bytes) const { add(p, p.fp.writes, offset, bytes); }
  // P + ⌈bytes / lanes⌉ · factor
  uint64_t lane_cycles(uint64_t bytes, uint64_t factor = 1) const {
    return cfg_.pipeline_cycles + div_up(bytes, std::max(1u, cfg_.lanes)) * factor;
  }
  uint64_t fp32_cycles(uint64_t macs) const {
    return cfg_.pipeline_cycles + div_up(macs, std::max(1u, cfg_.fp32_macs_per_cycle));
  }

 private:
  void add(Plan& p, std::vector<SramRange>& v, uint64_t offset, uint64_t bytes) const {
    if (bytes == 0) return;
    if (offset > sram_bytes_ || bytes > sram_bytes_ - offset) {
      if (p.error == ChannelError::NONE) p.error = ChannelError::SRAM_OVERFLOW;
      return;
    }
    v.push_back({static_cast<uint32_t>(offset), static_cast<uint32_t>(bytes)});
  }
  const VectorUnitConfig& cfg_;
  uint64_t sram_bytes_;
};

MacKind kind_of(desc::DType t) { return t == desc::DType::F32 ? MacKind::FP32 : MacKind::INT8; }

Plan plan_dwconv(const desc::Conv& d, bool fp32, const Planner& pl) {
  if (!d.in_h || !d.in_w || !d.in_c || !d.kh || !d.kw || !d.cout || !d.out_h || !d.out_w || !d.stride_h ||
      !d.stride_w || !d.dilation_h || !d.dilation_w || !d.depth_multiplier)
    return pl.bad();
  for (uint32_t v : {d.in_h, d.in_w, d.in_c, d.kh, d.kw, d.cout, d.out_h, d.out_w})
    if (v > kMaxExtent) return pl.bad();
  if (static_cast<uint64_t>(d.in_c) * d.depth_multiplier != d.cout) return pl.bad();
  const uint64_t e = fp32 ? 4 : 1;
  const uint64_t taps = static_cast<uint64_t>(d.kh) * d.kw;
  const uint64_t outs = static_cast<uint64_t>(d.out_h) * d.out_w * d.cout;
  if (taps > kMaxExtent || outs > (1ull << 32)) return pl.bad();
  Plan p;
  pl.read(p, d.in_sram, static_cast<uint64_t>(d.in_h) * d.in_w * d.in_c * e);
  pl.read(p, d.w_sram, taps * d.cout * e);
  pl.read(p, d.bias_sram, 4ull * d.cout);
  if (!fp32) pl.read(p, d.quant_sram, 8ull * d.cout);
  pl.write(p, d.out_sram, outs * e);
  p.macs = outs * taps;
  p.mac_kind = fp32 ? MacKind::FP32 : MacKind::INT8;
  p.cycles = fp32 ? pl.fp32_cycles(p.macs) : pl.lane_cycles(p.macs);
  return p;
}

Plan plan_eltwise(const desc::Eltwise& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.count == 0 || static_cast<uint32_t>(d.func) > 4) return pl.bad();
  if (d.b_period > d.count || (d.b_period && d.count % d.b_period)) return pl.bad();
  if (d.dtype == desc::DType::I32) return pl.bad();  // no integer-only eltwise yet
  if (d.left_shift < 0 || d.left_shift > 30) return pl.bad();
  const uint64_t e = desc::dtype_bytes(d.dtype);
  Plan p;
  pl.read(p, d.a_sram, d.count * e);
  pl.read(p, d.b_sram, (d.b_period ? d.b_period : d.count) * e);
  pl.write(p, d.out_sram, d.count * e);
  if (d.func != desc::EltwiseFunc::MAX && d.func != desc::EltwiseFunc::MIN) {
    p.macs = d.count;
    p.mac_kind = kind_of(d.dtype);
  }
  p.cycles = pl.lane_cycles(d.count * e);
  return p;
}

bool transcendental(desc::UnaryFunc f) {
  using F = desc::UnaryFunc;
  return f == F::LOGISTIC || f == F::TANH || f == F::EXP || f == F::LOG || f == F::SQRT || f == F::RSQRT ||
         f == F::SIN || f == F::ELU;
}

Plan plan_unary(const desc::Unary& d, const Planner& pl) {
  using F = desc::UnaryFunc;
  if (!valid_dtype(d.in_type) || !valid_dtype(d.out_type) || d.count == 0) return pl.bad();
  if (static_cast<uint32_t>(d.func) > static_cast<uint32_t>(F::ELU)) return pl.bad();
  const bool f32_in = d.in_type == desc::DType::F32, f32_out = d.out_type == desc::DType::F32;
  switch (d.func) {
    case F::CLAMP:
      if (d.in_type != d.out_type) return pl.bad();
      break;
    case F::REQUANT:
      if (f32_in || f32_out) return pl.bad();
      break;
    case F::LUT:
      if (!is_int8(d.in_type) || !is_int8(d.out_type)) return pl.bad();
      break;
    default:  // the float functions
      if (!f32_in || !f32_out) return pl.bad();
  }
  const uint64_t ein = desc::dtype_bytes(d.in_type), eout = desc::dtype_bytes(d.out_type);
  Plan p;
  pl.read(p, d.in_sram, d.count * ein);
  if (d.func == F::LUT) pl.read(p, d.table_sram, 256);
  pl.write(p, d.out_sram, d.count * eout);
  p.cycles = pl.lane_cycles(d.count * std::max(ein, eout), transcendental(d.func) ? 4 : 1);
  return p;
}

Plan plan_pool(const desc::Pool& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.dtype == desc::DType::I32 || static_cast<uint32_t>(d.func) > 2)
    return pl.bad();
  if (!d.in_h || !d.in_w || !d.channels || !d.out_h || !d.out_w || !d.filter_h || !d.filter_w ||
      !d.stride_h || !d.stride_w)
    return pl.bad();
  for (uint32_t v : {d.in_h, d.in_w, d.channels, d.out_h, d.out_w, d.filter_h, d.filter_w})
    if (v > kMaxExtent) return pl.bad();
  if (d.func == desc::PoolFunc::L2 && d.dtype != desc::DType::F32 && !(d.in_scale > 0.0f)) return pl.bad();
  const uint64_t e = desc::dtype_bytes(d.dtype);
  const uint64_t outs = static_cast<uint64_t>(d.out_h) * d.out_w * d.channels;
  const uint64_t window = static_cast<uint64_t>(d.filter_h) * d.filter_w;
  if (outs > (1ull << 32) || window > kMaxExtent) return pl.bad();
  Plan p;
  pl.read(p, d.in_sram, static_cast<uint64_t>(d.in_h) * d.in_w * d.channels * e);
  pl.write(p, d.out_sram, outs * e);
  if (d.func != desc::PoolFunc::MAX) {
    p.macs = outs * window;
    p.mac_kind = kind_of(d.dtype);
  }
  p.cycles = pl.lane_cycles(outs * window * e);
  return p;
}

Plan plan_reduce(const desc::Reduce& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.dtype == desc::DType::I32 || static_cast<uint32_t>(d.func) > 4)
    return pl.bad();
  if (!d.outer || !d.extent || !d.inner) return pl.bad();
  const uint64_t n = static_cast<uint64_t>(d.outer) * d.extent * d.inner;
  if (n > (1ull << 32)) return pl.bad();
  const uint64_t e = desc::dtype_bytes(d.dtype);
  const bool arg = d.func == desc::ReduceFunc::ARGMAX || d.func == desc::ReduceFunc::ARGMIN;
  Plan p;
  pl.read(p, d.in_sram, n * e);
  pl.write(p, d.out_sram, static_cast<uint64_t>(d.outer) * d.inner * (arg ? 4 : e));
  if (d.func != desc::ReduceFunc::MAX && !arg) {
    p.macs = n;
    p.mac_kind = kind_of(d.dtype);
  }
  p.cycles = pl.lane_cycles(n * e);
  return p;
}

Plan plan_softmax(const desc::Softmax& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.dtype == desc::DType::I32 || !d.rows || !d.length) return pl.bad();
  const uint64_t n = static_cast<uint64_t>(d.rows) * d.length;
  if (n > (1ull << 32)) return pl.bad();
  const uint64_t e = desc::dtype_bytes(d.dtype);
  Plan p;
  pl.read(p, d.in_sram, n * e);
  if (d.dtype != desc::DType::F32) pl.read(p, d.table_sram, 256 * 4);
  pl.write(p, d.out_sram, n * e);
  p.macs = 2 * n;
  p.mac_kind = MacKind::FP32;
  p.cycles = pl.lane_cycles(n * 4, 6);
  return p;
}

bool positive_finite(float v) { return std::isfinite(v) && v > 0.0f; }

Plan plan_rms_norm(const desc::RmsNorm& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.dtype == desc::DType::I32 || !d.rows || !d.length) return pl.bad();
  if (d.rows > kMaxExtent || d.length > kMaxExtent || !positive_finite(d.epsilon)) return pl.bad();
  if (d.dtype != desc::DType::F32 && (!positive_finite(d.in_scale) || !positive_finite(d.real_scale)))
    return pl.bad();
  const uint64_t n = uint64_t{d.rows} * d.length;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  Plan p;
  pl.read(p, d.in_sram, n * e);
  pl.read(p, d.gain_sram, uint64_t{d.length} * e);
  pl.write(p, d.out_sram, n * e);
  p.macs = 2 * n;
  p.mac_kind = kind_of(d.dtype);
  p.cycles = pl.lane_cycles(n * e, 2) + 4ull * d.rows;
  return p;
}

Plan plan_rope(const desc::Rope& d, const Planner& pl) {
  if (!valid_dtype(d.dtype) || d.dtype == desc::DType::I32 || !d.rows || !d.width) return pl.bad();
  if (d.rows > kMaxExtent || d.width > kMaxExtent || d.head_dim < 2 || d.head_dim % 2 || d.width % d.head_dim)
    return pl.bad();
  if (!positive_finite(d.base)) return pl.bad();
  const uint64_t n = uint64_t{d.rows} * d.width;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  Plan p;
  pl.read(p, d.in_sram, n * e);
  pl.read(p, d.position_sram, 4);
  pl.write(p, d.out_sram, n * e);
  p.macs = 2 * n;
  p.mac_kind = kind_of(d.dtype);
  p.cycles = pl.lane_cycles(n * e, 4);
  return p;
}

Plan plan(const desc::Raw& raw, const VectorUnitConfig& cfg, uint64_t sram_bytes) {
  const Planner pl(cfg, sram_bytes);
  switch (desc::opcode_of(raw)) {
    case desc::Opcode::DWCONV_INT8:
      return plan_dwconv(desc::decode<desc::Conv>(raw), false, pl);
    case desc::Opcode::DWCONV_FP32:
      return plan_dwconv(desc::decode<desc::Conv>(raw), true, pl);
    case desc::Opcode::ELTWISE:
      return plan_eltwise(desc::decode<desc::Eltwise>(raw), pl);
    case desc::Opcode::UNARY:
      return plan_unary(desc::decode<desc::Unary>(raw), pl);
    case desc::Opcode::POOL:
      return plan_pool(desc::decode<desc::Pool>(raw), pl);
    case desc::Opcode::REDUCE:
      return plan_reduce(desc::decode<desc::Reduce>(raw), pl);
    case desc::Opcode::SOFTMAX:
      return plan_softmax(desc::decode<desc::Softmax>(raw), pl);
    case desc::Opcode::RMS_NORM:
      return plan_rms_norm(desc::decode<desc::RmsNorm>(raw), pl);
    case desc::Opcode::ROPE:
      return plan_rope(desc::decode<desc::Rope>(raw), pl);
    default:
      return pl.bad();
  }
}

// ---- element access (little-endian SRAM, unaligned-safe) ----

int32_t load_int(const uint8_t* base, uint64_t i, desc::DType t) {
  switch (t) {
    case desc::DType::U8:
      return base[i];
    case desc::DType::S8:
      return static_cast<int8_t>(base[i]);
    default: {
      int32_t v;
      std::memcpy(&v, base + 4 * i, 4);
      return v;
    }
  }
}

void store_int(uint8_t* base, uint64_t i, desc::DType t, int32_t v) {
  if (t == desc::DType::I32) {
    std::memcpy(base + 4 * i, &v, 4);
  } else {
    base[i] = static_cast<uint8_t>(v);
  }
}

float load_f32(const uint8_t* base, uint64_t i) {
  float v;
  std::memcpy(&v, base + 4 * i, 4);
  return v;
}

void store_f32(uint8_t* base, uint64_t i, float v) { std::memcpy(base + 4 * i, &v, 4); }

int32_t clamp_int(int64_t v, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, lo), hi));
}
// Same expression as the CPU reference (a NaN passes through unclamped).
float clamp_f32(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
float f32_of(int32_t bits) { return std::bit_cast<float>(bits); }

// 32-bit two's-complement arithmetic, as an int32 hardware accumulator (and the CPU reference) wraps.
int32_t wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

fx::QuantizedMultiplier qm(desc::Requant r) { return {r.multiplier, r.shift}; }

// ---- kernels ----

// Input element index of output (oy, ox), tap (ky, kx) in the band, or -1 when the tap is padding.
int64_t dw_tap(const desc::Conv& d, uint64_t oy, uint64_t ox, uint32_t ky, uint32_t kx) {
  const int64_t iy = d.row_origin + static_cast<int64_t>(oy * d.stride_h + uint64_t{ky} * d.dilation_h);
  const int64_t ix = d.col_origin + static_cast<int64_t>(ox * d.stride_w + uint64_t{kx} * d.dilation_w);
  if (iy < 0 || ix < 0 || iy >= d.in_h || ix >= d.in_w) return -1;
  return (iy * d.in_w + ix) * static_cast<int64_t>(d.in_c);
}

// Depthwise convolution. INT8: operands in the int8 domain (uint8 input bytes read as x − 128);
// acc = Σ a·w − weight_offset·Σ a + bias over every tap (padding taps read pad_value), wrapping at 32
// bits, then requantised per channel. FP32: padding taps are skipped and the accumulation order (ky,
// kx, then + bias) is the CPU reference's.
void run_dwconv(const desc::Conv& d, bool fp32, uint8_t* s) {
  const uint64_t taps = uint64_t{d.kh} * d.kw;
  const uint8_t* in = s + d.in_sram;
  const uint8_t* w = s + d.w_sram;
  uint8_t* out = s + d.out_sram;
  std::vector<uint8_t> result(uint64_t{d.out_h} * d.out_w * d.cout * (fp32 ? 4 : 1));
  for (uint64_t oy = 0; oy < d.out_h; ++oy) {
    for (uint64_t ox = 0; ox < d.out_w; ++ox) {
      const uint64_t o0 = (oy * d.out_w + ox) * d.cout;
      for (uint32_t oc = 0; oc < d.cout; ++oc) {
        const uint32_t ic = oc / d.depth_multiplier;
        if (fp32) {
          float acc = 0.0f;
          for (uint32_t ky = 0; ky < d.kh; ++ky)
            for (uint32_t kx = 0; kx < d.kw; ++kx) {
              const int64_t base = dw_tap(d, oy, ox, ky, kx);
              if (base < 0) continue;
              acc += load_f32(in, base + ic) * load_f32(w, (uint64_t{ky} * d.kw + kx) * d.cout + oc);
            }
          acc += load_f32(s + d.bias_sram, oc);
          store_f32(result.data(), o0 + oc, clamp_f32(acc, f32_of(d.clamp_lo), f32_of(d.clamp_hi)));
          continue;
        }
        int64_t acc = load_int(s + d.bias_sram, oc, desc::DType::I32);
        int64_t sum_a = 0;
        for (uint64_t t = 0; t < taps; ++t) {
          const int64_t base =
              dw_tap(d, oy, ox, static_cast<uint32_t>(t / d.kw), static_cast<uint32_t>(t % d.kw));
          int32_t a = d.pad_value;
          if (base >= 0) {
            const uint8_t raw = in[base + ic];
            a = (d.flags & desc::kConvInputUnsigned) ? int32_t{raw} - 128 : int32_t{static_cast<int8_t>(raw)};
          }
          acc += int64_t{a} * static_cast<int8_t>(w[t * d.cout + oc]);
          sum_a += a;
        }
        acc -= int64_t{d.weight_offset} * sum_a;
        const fx::QuantizedMultiplier m{load_int(s + d.quant_sram, oc, desc::DType::I32),
                                        load_int(s + d.quant_sram + 4ull * d.cout, oc, desc::DType::I32)};
        const int64_t v = int64_t{fx::multiply_by_quantized_multiplier(wrap(acc), m)} + d.out_zero_point;
        result[o0 + oc] = static_cast<uint8_t>(clamp_int(v, d.clamp_lo, d.clamp_hi));
      }
    }
  }
  std::memcpy(out, result.data(), result.size());
}

void run_eltwise(const desc::Eltwise& d, uint8_t* s) {
  using F = desc::EltwiseFunc;
  const uint8_t* a = s + d.a_sram;
  const uint8_t* b = s + d.b_sram;
  uint8_t* out = s + d.out_sram;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  std::vector<uint8_t> result(d.count * e);
  for (uint64_t i = 0; i < d.count; ++i) {
    const uint64_t j = d.b_period ? i % d.b_period : i;
    if (d.dtype == desc::DType::F32) {
      const float x = load_f32(a, i), y = load_f32(b, j);
      float r = 0.0f;
      switch (d.func) {
        case F::ADD:
          r = x + y;
          break;
        case F::SUB:
          r = x - y;
          break;
        case F::MUL:
          r = x * y;
          break;
        case F::MAX:
          r = std::max(x, y);
          break;
        case F::MIN:
          r = std::min(x, y);
          break;
      }
      store_f32(result.data(), i, clamp_f32(r, f32_of(d.clamp_lo), f32_of(d.clamp_hi)));
      continue;
    }
    const int32_t x = wrap(int64_t{load_int(a, i, d.dtype)} + d.a_offset);
    const int32_t y = wrap(int64_t{load_int(b, j, d.dtype)} + d.b_offset);
    int32_t r = 0;
    switch (d.func) {
      case F::ADD:
      case F::SUB: {  // SUB: the compiler negated b_scale's multiplier
        const int32_t xs = fx::multiply_by_quantized_multiplier(
            wrap(int64_t{x} * (int64_t{1} << d.left_shift)), qm(d.a_scale));
        const int32_t ys = fx::multiply_by_quantized_multiplier(
            wrap(int64_t{y} * (int64_t{1} << d.left_shift)), qm(d.b_scale));
        r = fx::multiply_by_quantized_multiplier(wrap(int64_t{xs} + ys), qm(d.out_scale));
        break;
      }
      case F::MUL:
        r = fx::multiply_by_quantized_multiplier(wrap(int64_t{x} * y), qm(d.out_scale));
        break;
      case F::MAX:
      case F::MIN: {
        const int32_t xs = fx::multiply_by_quantized_multiplier(x, qm(d.a_scale));
        const int32_t ys = fx::multiply_by_quantized_multiplier(y, qm(d.b_scale));
        r = d.func == F::MAX ? std::max(xs, ys) : std::min(xs, ys);
        break;
      }
    }
    store_int(result.data(), i, d.dtype, clamp_int(int64_t{r} + d.out_offset, d.clamp_lo, d.clamp_hi));
  }
  std::memcpy(out, result.data(), result.size());
}

float unary_f32(desc::UnaryFunc f, float x, float alpha) {
  using F = desc::UnaryFunc;
  switch (f) {
    case F::LOGISTIC:
      return 1.0f / (1.0f + std::exp(-x));
    case F::TANH:
      return std::tanh(x);
    case F::ABS:
      return std::fabs(x);
    case F::NEG:
      return -x;
    case F::FLOOR:
      return std::floor(x);
    case F::EXP:
      return std::exp(x);
    case F::SQRT:
      return std::sqrt(x);
    case F::RSQRT:
      return 1.0f / std::sqrt(x);
    case F::LOG:
      return std::log(x);
    case F::SIN:
      return std::sin(x);
    case F::HARD_SWISH:
      return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    case F::ELU:
      return x < 0.0f ? alpha * (std::exp(x) - 1.0f) : x;
    default:
      return x;  // CLAMP
  }
}

void run_unary(const desc::Unary& d, uint8_t* s) {
  using F = desc::UnaryFunc;
  const uint8_t* in = s + d.in_sram;
  std::vector<uint8_t> result(d.count * desc::dtype_bytes(d.out_type));
  for (uint64_t i = 0; i < d.count; ++i) {
    if (d.in_type == desc::DType::F32) {
      const float v = unary_f32(d.func, load_f32(in, i), f32_of(d.in_offset));
      store_f32(result.data(), i, clamp_f32(v, f32_of(d.clamp_lo), f32_of(d.clamp_hi)));
      continue;
    }
    int64_t v = load_int(in, i, d.in_type);
    if (d.func == F::LUT) {
      v = load_int(s + d.table_sram, in[i], d.out_type);
    } else if (d.func == F::REQUANT) {
      v = int64_t{fx::multiply_by_quantized_multiplier(wrap(v + d.in_offset), qm(d.scale))} + d.out_offset;
    }
    store_int(result.data(), i, d.out_type, clamp_int(v, d.clamp_lo, d.clamp_hi));
  }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

// Pooling with the CPU reference's arithmetic: taps outside the band are skipped; quantised AVG is
// (sum + count/2) / count over values taken from the type's minimum; a window with no tap in the band yields
// the zero point (real 0).
void run_pool(const desc::Pool& d, uint8_t* s) {
  using F = desc::PoolFunc;
  const uint8_t* in = s + d.in_sram;
  const bool f32 = d.dtype == desc::DType::F32;
  std::vector<uint8_t> result(uint64_t{d.out_h} * d.out_w * d.channels * desc::dtype_bytes(d.dtype));
  for (uint64_t oy = 0; oy < d.out_h; ++oy)
    for (uint64_t ox = 0; ox < d.out_w; ++ox)
      for (uint64_t c = 0; c < d.channels; ++c) {
        float fsum = 0.0f, fmax = std::numeric_limits<float>::lowest();
        int64_t qsum = 0, count = 0;
        int32_t qmax = std::numeric_limits<int32_t>::min();
        double l2 = 0.0;  // quantised L2: squares of the dequantised values
        for (uint32_t fy = 0; fy < d.filter_h; ++fy) {
          const int64_t iy = d.row_origin + static_cast<int64_t>(oy * d.stride_h + fy);
          if (iy < 0 || iy >= d.in_h) continue;
          for (uint32_t fx = 0; fx < d.filter_w; ++fx) {
            const int64_t ix = d.col_origin + static_cast<int64_t>(ox * d.stride_w + fx);
            if (ix < 0 || ix >= d.in_w) continue;
            const uint64_t i =
                (static_cast<uint64_t>(iy) * d.in_w + static_cast<uint64_t>(ix)) * d.channels + c;
            ++count;
            if (f32) {
              const float x = load_f32(in, i);
              fsum += d.func == F::L2 ? x * x : x;
              fmax = std::max(fmax, x);
            } else {
              const int32_t q = load_int(in, i, d.dtype);
              qsum += q;
              qmax = std::max(qmax, q);
              const double x = (q - d.in_zero_point) * static_cast<double>(d.in_scale);
              l2 += x * x;
            }
          }
        }
        const uint64_t o = (oy * d.out_w + ox) * d.channels + c;
        if (f32) {
          float v = 0.0f;
          if (count > 0 && d.func == F::L2) {
            v = std::sqrt(fsum / static_cast<float>(count));
          } else if (count > 0) {
            v = d.func == F::AVG ? fsum / static_cast<float>(count) : fmax;
          }
          store_f32(result.data(), o, clamp_f32(v, f32_of(d.clamp_lo), f32_of(d.clamp_hi)));
          continue;
        }
        int64_t v = d.in_zero_point;
        if (count > 0 && d.func == F::AVG) {
          // Averaged from the type's minimum (signed values + 128), rounding half up, so a signed
          // result is exactly the unsigned one shifted by 128 (NN HAL 1.3).
          const int64_t offset = d.dtype == desc::DType::S8 ? 128 : 0;
          v = (qsum + offset * count + count / 2) / count - offset;
        } else if (count > 0 && d.func == F::MAX) {
          v = qmax;
        } else if (count > 0) {
          v = d.in_zero_point + std::llround(std::sqrt(l2 / static_cast<double>(count)) / d.in_scale);
        }
        store_int(result.data(), o, d.dtype, clamp_int(v, d.clamp_lo, d.clamp_hi));
      }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

// REDUCE, summing in ascending extent order as the CPU reference does. Quantised MEAN is NNAPI's
// reference: trunc(Σ(in + in_offset) / extent) + out_offset (the output shares the input's
// quantisation); SUM rescales the sum by `scale`.
void run_reduce(const desc::Reduce& d, uint8_t* s) {
  using F = desc::ReduceFunc;
  const uint8_t* in = s + d.in_sram;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  const bool arg = d.func == F::ARGMAX || d.func == F::ARGMIN;
  std::vector<uint8_t> result(uint64_t{d.outer} * d.inner * (arg ? 4 : e));
  for (uint64_t o = 0; o < d.outer; ++o)
    for (uint64_t i = 0; i < d.inner; ++i) {
      const uint64_t out = o * d.inner + i;
      auto at = [&](uint64_t k) { return (o * d.extent + k) * d.inner + i; };
      if (arg) {
        // Compared as double: exact for F32 and the integer types alike.
        auto value = [&](uint64_t k) {
          return d.dtype == desc::DType::F32 ? static_cast<double>(load_f32(in, at(k)))
                                             : static_cast<double>(load_int(in, at(k), d.dtype));
        };
        uint64_t best = 0;
        for (uint64_t k = 1; k < d.extent; ++k) {
          const double v = value(k), b = value(best);
          if (d.func == F::ARGMAX ? v > b : v < b) best = k;
        }
        store_int(result.data(), out, desc::DType::I32, static_cast<int32_t>(best));
        continue;
      }
      if (d.dtype == desc::DType::F32) {
        float acc = d.func == F::MAX ? std::numeric_limits<float>::lowest() : 0.0f;
        for (uint64_t k = 0; k < d.extent; ++k)
          acc = d.func == F::MAX ? std::max(acc, load_f32(in, at(k))) : acc + load_f32(in, at(k));
        if (d.func == F::MEAN) acc /= static_cast<float>(d.extent);
        store_f32(result.data(), out, clamp_f32(acc, f32_of(d.clamp_lo), f32_of(d.clamp_hi)));
        continue;
      }
      int32_t acc = d.func == F::MAX ? std::numeric_limits<int32_t>::min() : 0;
      for (uint64_t k = 0; k < d.extent; ++k) {
        const int32_t q = load_int(in, at(k), d.dtype);
        const int32_t x = wrap(int64_t{q} + d.in_offset);
        acc = d.func == F::MAX ? std::max(acc, x) : wrap(int64_t{acc} + x);
      }
      int64_t v = acc;
      if (d.func == F::MEAN) v = acc / static_cast<int32_t>(std::min<uint64_t>(d.extent, 0x7fffffff));
      if (d.func == F::SUM) v = fx::multiply_by_quantized_multiplier(acc, qm(d.scale));
      store_int(result.data(), out, d.dtype, clamp_int(v + d.out_offset, d.clamp_lo, d.clamp_hi));
    }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

// Softmax with the CPU reference's float arithmetic. Quantised inputs are dequantised through the
// float[256] table (indexed by the raw byte); outputs are lround(y·256) + out_offset, clamped to the type.
void run_softmax(const desc::Softmax& d, uint8_t* s) {
  const uint8_t* in = s + d.in_sram;
  const bool f32 = d.dtype == desc::DType::F32;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  std::vector<uint8_t> result(uint64_t{d.rows} * d.length * e);
  std::vector<float> x(d.length), y(d.length);
  const int32_t qmin = d.dtype == desc::DType::U8 ? 0 : -128, qmax = d.dtype == desc::DType::U8 ? 255 : 127;
  for (uint64_t r = 0; r < d.rows; ++r) {
    const uint64_t base = r * d.length;
    for (uint64_t k = 0; k < d.length; ++k)
      x[k] = f32 ? load_f32(in, base + k) : load_f32(s + d.table_sram, in[base + k]);
    float mx = x[0];
    for (uint64_t k = 1; k < d.length; ++k) mx = std::max(mx, x[k]);
    float sum = 0.0f;
    for (uint64_t k = 0; k < d.length; ++k) {
      y[k] = std::exp((x[k] - mx) * d.beta);
      sum += y[k];
    }
    for (uint64_t k = 0; k < d.length; ++k) {
      y[k] /= sum;
      if (f32) {
        store_f32(result.data(), base + k, y[k]);
      } else {
        const int64_t v = int64_t{std::lround(y[k] * 256.0f)} + d.out_offset;
        store_int(result.data(), base + k, d.dtype, clamp_int(v, qmin, qmax));
      }
    }
  }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

int32_t qmin_of(desc::DType t) { return t == desc::DType::U8 ? 0 : -128; }
int32_t qmax_of(desc::DType t) { return t == desc::DType::U8 ? 255 : 127; }

// RMS_NORM (descriptors.h): float in the CPU-style order; quantised with an int64 sum of squares and a
// per-row multiplier from it.
void run_rms_norm(const desc::RmsNorm& d, uint8_t* s) {
  const uint8_t* in = s + d.in_sram;
  const uint8_t* gain = s + d.gain_sram;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  std::vector<uint8_t> result(uint64_t{d.rows} * d.length * e);
  for (uint64_t r = 0; r < d.rows; ++r) {
    const uint64_t base = r * d.length;
    if (d.dtype == desc::DType::F32) {
      float ss = 0.0f;
      for (uint64_t k = 0; k < d.length; ++k) ss += load_f32(in, base + k) * load_f32(in, base + k);
      const float inv = 1.0f / std::sqrt(ss / static_cast<float>(d.length) + d.epsilon);
      for (uint64_t k = 0; k < d.length; ++k)
        store_f32(result.data(), base + k, load_f32(in, base + k) * inv * load_f32(gain, k));
      continue;
    }
    int64_t ss = 0;
    for (uint64_t k = 0; k < d.length; ++k) {
      const int64_t x = int64_t{load_int(in, base + k, d.dtype)} + d.in_offset;
      ss += x * x;
    }
    const double in_scale = d.in_scale;
    const double mean_sq = in_scale * in_scale * static_cast<double>(ss) / static_cast<double>(d.length);
    fx::QuantizedMultiplier m = fx::quantize_multiplier(static_cast<double>(d.real_scale) /
                                                        std::sqrt(mean_sq + static_cast<double>(d.epsilon)));
    m.shift = std::min(m.shift, 31);
    for (uint64_t k = 0; k < d.length; ++k) {
      const int32_t x = load_int(in, base + k, d.dtype) + d.in_offset;
      const int32_t g = load_int(gain, k, d.dtype) + d.gain_offset;
      const int64_t v = int64_t{fx::multiply_by_quantized_multiplier(x * g, m)} + d.out_offset;
      store_int(result.data(), base + k, d.dtype, clamp_int(v, qmin_of(d.dtype), qmax_of(d.dtype)));
    }
  }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

// ROPE (descriptors.h): the angle of pair i of a row at position p is p · base^(−2i/head_dim), in double.
void run_rope(const desc::Rope& d, uint8_t* s) {
  const uint8_t* in = s + d.in_sram;
  const uint64_t e = desc::dtype_bytes(d.dtype);
  const uint32_t half = d.head_dim / 2;
  int32_t position;
  std::memcpy(&position, s + d.position_sram, 4);
  std::vector<double> inv_freq(half);
  for (uint32_t i = 0; i < half; ++i)
    inv_freq[i] = std::pow(static_cast<double>(d.base), -2.0 * i / static_cast<double>(d.head_dim));
  std::vector<uint8_t> result(uint64_t{d.rows} * d.width * e);
  for (uint64_t r = 0; r < d.rows; ++r) {
    const double p = static_cast<double>(int64_t{position} + d.position_delta + static_cast<int64_t>(r));
    for (uint64_t h0 = r * d.width; h0 < (r + 1) * d.width; h0 += d.head_dim) {
      for (uint32_t i = 0; i < half; ++i) {
        const double theta = p * inv_freq[i];
        const uint64_t ia = h0 + i, ib = h0 + i + half;
        if (d.dtype == desc::DType::F32) {
          const auto c = static_cast<float>(std::cos(theta)), sn = static_cast<float>(std::sin(theta));
          const float a = load_f32(in, ia), b = load_f32(in, ib);
          store_f32(result.data(), ia, a * c - b * sn);
          store_f32(result.data(), ib, b * c + a * sn);
          continue;
        }
        const auto c = static_cast<int32_t>(std::lround(std::cos(theta) * 32768.0));
        const auto sn = static_cast<int32_t>(std::lround(std::sin(theta) * 32768.0));
        const int32_t a = load_int(in, ia, d.dtype) + d.in_offset,
                      b = load_int(in, ib, d.dtype) + d.in_offset;
        auto out = [&](int32_t acc) {
          const int64_t v = int64_t{fx::multiply_by_quantized_multiplier(acc, qm(d.scale))} + d.out_offset;
          return clamp_int(v, qmin_of(d.dtype), qmax_of(d.dtype));
        };
        store_int(result.data(), ia, d.dtype, out(a * c - b * sn));
        store_int(result.data(), ib, d.dtype, out(b * c + a * sn));
      }
    }
  }
  std::memcpy(s + d.out_sram, result.data(), result.size());
}

}  // namespace

bool VectorUnit::handles(desc::Opcode op) {
  switch (op) {
    case desc::Opcode::DWCONV_INT8:
    case desc::Opcode::DWCONV_FP32:
    case desc::Opcode::ELTWISE:
    case desc::Opcode::UNARY:
    case desc::Opcode::POOL:
    case desc::Opcode::REDUCE:
    case desc::Opcode::SOFTMAX:
    case desc::Opcode::RMS_NORM:
    case desc::Opcode::ROPE:
      return true;
    default:
      return false;
  }
}

ChannelError VectorUnit::footprint(const desc::Raw& raw, uint64_t sram_bytes, SramFootprint* fp) const {
  Plan p = plan(raw, cfg_, sram_bytes);
  if (p.error == ChannelError::NONE) *fp = std::move(p.fp);
  return p.error;
}

VectorOpResult VectorUnit::execute(const desc::Raw& raw, uint8_t* sram, uint64_t sram_bytes,
                                   bool functional) const {
  const Plan p = plan(raw, cfg_, sram_bytes);
  if (p.error != ChannelError::NONE) return {p.error, 0, 0, MacKind::NONE, 0};
  uint64_t bytes = 0;
  for (const auto& r : p.fp.reads) bytes += r.bytes;
  for (const auto& r : p.fp.writes) bytes += r.bytes;
  if (functional) {
    // Each kernel computes into a scratch result and stores it at the end, so an output range that
    // overlaps an input (in-place activation) reads only original values.
    switch (desc::opcode_of(raw)) {
      case desc::Opcode::DWCONV_INT8:
        run_dwconv(desc::decode<desc::Conv>(raw), false, sram);
        break;
      case desc::Opcode::DWCONV_FP32:
        run_dwconv(desc::decode<desc::Conv>(raw), true, sram);
        break;
      case desc::Opcode::ELTWISE:
        run_eltwise(desc::decode<desc::Eltwise>(raw), sram);
        break;
      case desc::Opcode::UNARY:
        run_unary(desc::decode<desc::Unary>(raw), sram);
        break;
      case desc::Opcode::POOL:
        run_pool(desc::decode<desc::Pool>(raw), sram);
        break;
      case desc::Opcode::REDUCE:
        run_reduce(desc::decode<desc::Reduce>(raw), sram);
        break;
      case desc::Opcode::SOFTMAX:
        run_softmax(desc::decode<desc::Softmax>(raw), sram);
        break;
      case desc::Opcode::RMS_NORM:
        run_rms_norm(desc::decode<desc::RmsNorm>(raw), sram);
        break;
      case desc::Opcode::ROPE:
        run_rope(desc::decode<desc::Rope>(raw), sram);
        break;
      default:
        break;
    }
  }
  return {ChannelError::NONE, p.cycles, p.macs, p.mac_kind, bytes};
}

}  // namespace npu::sim
