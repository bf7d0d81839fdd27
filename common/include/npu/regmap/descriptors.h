// Command-buffer descriptors: the ABI between the HAL's compiler, the driver (which validates the
// addresses they carry) and the simulated command processor (which fetches and executes them).
// Every descriptor is 128 bytes, little-endian; the channel executes them in order.
//
// Address spaces: `dev` fields are device-memory (DRAM) addresses; `sram` fields are byte offsets in the
// channel's scratchpad.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "npu/common/enum_table.h"

namespace npu::desc {

inline constexpr uint32_t kDescriptorBytes = 128;

enum class Opcode : uint32_t {
  NOP = 0,
  DMA_IN = 1,            // device memory → SRAM, 2-D strided (Dma)
  DMA_OUT = 2,           // SRAM → device memory, 2-D strided (Dma)
  CONV_INT8 = 3,         // quantised convolution / GEMM tile on the MAC array (Conv)
  CONV_FP32 = 4,         // float convolution / GEMM tile on the vector unit (Conv)
  FENCE = 5,             // completion marker (Fence)
  DWCONV_INT8 = 6,       // quantised depthwise convolution tile on the vector unit (Conv, depth_multiplier)
  DWCONV_FP32 = 7,       // float depthwise convolution tile on the vector unit (Conv, depth_multiplier)
  ELTWISE = 8,           // binary elementwise ADD/SUB/MUL/MAX/MIN/PRELU (Eltwise)
  UNARY = 9,             // unary activation, requantisation or 256-entry table lookup (Unary)
  POOL = 10,             // AVG/MAX/L2 pooling window over an NHWC band (Pool)
  REDUCE = 11,           // MEAN/SUM/MAX over the middle extent of [outer, extent, inner] (Reduce)
  SOFTMAX = 12,          // softmax or log-softmax along the innermost extent (Softmax)
  FILL = 13,             // fill an SRAM range with a repeated 32-bit pattern (Fill)
  BARRIER = 14,          // the next descriptor starts only after every earlier one of this channel completed
  PREEMPT_POINT = 15,    // declares the SRAM ranges live from here on, for a context save (PreemptPoint)
  RMS_NORM = 16,         // root-mean-square normalisation of rows, times a per-column gain (RmsNorm)
  ROPE = 17,             // rotary position embedding of rows of heads (Rope)
  DMA_GATHER = 18,       // device memory → SRAM: table rows picked by int32 indices in SRAM (DmaGather)
  SELECT = 19,           // elementwise choice between two operands by a boolean operand (Select)
  RESIZE_BILINEAR = 20,  // bilinear resampling of an NHWC band (ResizeBilinear)
};
// Names for traces and logs (opcode_name), in opcode order.
inline constexpr enums::Entry<Opcode> kOpcodeNames[] = {
    {Opcode::NOP, "NOP"},
    {Opcode::DMA_IN, "DMA_IN"},
    {Opcode::DMA_OUT, "DMA_OUT"},
    {Opcode::CONV_INT8, "CONV_INT8"},
    {Opcode::CONV_FP32, "CONV_FP32"},
    {Opcode::FENCE, "FENCE"},
    {Opcode::DWCONV_INT8, "DWCONV_INT8"},
    {Opcode::DWCONV_FP32, "DWCONV_FP32"},
    {Opcode::ELTWISE, "ELTWISE"},
    {Opcode::UNARY, "UNARY"},
    {Opcode::POOL, "POOL"},
    {Opcode::REDUCE, "REDUCE"},
    {Opcode::SOFTMAX, "SOFTMAX"},
    {Opcode::FILL, "FILL"},
    {Opcode::BARRIER, "BARRIER"},
    {Opcode::PREEMPT_POINT, "PREEMPT_POINT"},
    {Opcode::RMS_NORM, "RMS_NORM"},
    {Opcode::ROPE, "ROPE"},
    {Opcode::DMA_GATHER, "DMA_GATHER"},
    {Opcode::SELECT, "SELECT"},
    {Opcode::RESIZE_BILINEAR, "RESIZE_BILINEAR"},
};
constexpr const auto& enum_table(Opcode) { return kOpcodeNames; }
// Opcodes are 0 .. kOpcodeCount - 1 (the driver refuses any other), so the table lists each in order.
inline constexpr uint32_t kOpcodeCount = static_cast<uint32_t>(std::size(kOpcodeNames));
static_assert([] {
  for (uint32_t i = 0; i < kOpcodeCount; ++i)
    if (static_cast<uint32_t>(kOpcodeNames[i].value) != i) return false;
  return true;
}());

// Element types of the vector unit's operands.
enum class DType : uint32_t { U8 = 0, S8 = 1, F32 = 2, I32 = 3 };
inline constexpr uint32_t dtype_bytes(DType t) { return t == DType::F32 || t == DType::I32 ? 4 : 1; }

struct Header {
  Opcode opcode;
  uint32_t id;  // compiler-assigned, for traces
};

// rows × row_bytes bytes; row r starts at src + r·src_stride and lands at dst + r·dst_stride.
struct Dma {
  Header h;
  uint64_t dev;   // device address (source for DMA_IN, destination for DMA_OUT)
  uint32_t sram;  // scratchpad offset
  uint32_t row_bytes;
  uint32_t rows;
  uint32_t dev_stride;
  uint32_t sram_stride;
};

// A convolution tile over an input band already in SRAM (NHWC band of in_h × in_w × in_c elements),
// producing out_h × out_w × cout outputs (NHWC, row stride out_w·cout). Filter in SRAM as K × cout with
// K = kh·kw·in_c in (kh, kw, in_c) order. Input row/column of output (0,0) tap (0,0) is
// (row_origin, col_origin), possibly negative: taps outside the band read the padding value.
// FULLY_CONNECTED is the 1×1 case with in_h = 1, in_w = batch.
// Depthwise (DWCONV_*): output channel o reads input channel o / depth_multiplier; cout = in_c ·
// depth_multiplier; filter in SRAM as kh·kw × cout; INT8 bias/quant as for CONV_INT8 (quant8 weights
// with weight_offset = their zero point in the int8 domain).
struct Conv {
  Header h;
  uint32_t in_sram, in_h, in_w, in_c;
  uint32_t w_sram, kh, kw, cout;
  uint32_t bias_sram;   // int32[cout] (INT8: zero-point corrections folded in) or float[cout]
  uint32_t quant_sram;  // INT8 only: int32 multiplier[cout] then int32 shift[cout]
  uint32_t out_sram, out_h, out_w;
  uint32_t stride_h, stride_w, dilation_h, dilation_w;
  int32_t row_origin, col_origin;
  int32_t pad_value;      // INT8: padding value in the int8 (x − 128 for uint8) domain
  int32_t weight_offset;  // INT8: acc −= weight_offset · Σ a
  int32_t out_zero_point;
  int32_t clamp_lo, clamp_hi;  // INT8: integer clamp; FP32: float bit patterns
  uint32_t flags;              // kConvInputUnsigned, kConvOutputUnsigned
  uint32_t depth_multiplier;   // DWCONV_* only (≥ 1)
};
inline constexpr uint32_t kConvInputUnsigned = 1u << 0;   // input bytes are uint8: convert x − 128
inline constexpr uint32_t kConvOutputUnsigned = 1u << 1;  // store uint8
// Weights the compiler could not pack (a matrix product of two runtime tensors, com.npusim.llm:MATMUL):
// the weight loader adapts them as they stream into the array, at no cost in cycles.
inline constexpr uint32_t kConvWeightsTransposed = 1u << 2;  // filter in SRAM as cout × K (row j: channel j)
inline constexpr uint32_t kConvWeightsUnsigned = 1u << 3;  // INT8: weight bytes are uint8: convert w − 128
// INT8: the loader sums each weight column (int8 domain) and the array takes the input zero point's term
// off the bias: acc_j = Σ a·w − weight_offset·Σ a + bias_j − pad_value·Σ_k w[k][j].
inline constexpr uint32_t kConvWeightColumnSums = 1u << 4;

// Fixed-point rescale of an int32 value: multiply_by_quantized_multiplier (npu::fx) with these fields.
struct Requant {
  int32_t multiplier;
  int32_t shift;  // > 0: left shift
};

enum class EltwiseFunc : uint32_t { ADD = 0, SUB = 1, MUL = 2, MAX = 3, MIN = 4, PRELU = 5 };

// out[i] = f(a[i], b[i mod b_period]) over `count` elements (b_period 0: b has `count` elements too).
// Quantised (U8/S8), NNAPI/TFLite arithmetic:
//   ADD/SUB: x = ((a + a_offset) << left_shift) rescaled by a_scale, y likewise with b (SUB:
//   b_scale.multiplier
//            negated by the compiler), r = rescale(x ± y, out_scale) + out_offset;
//   MUL:     r = rescale((a + a_offset)·(b + b_offset), out_scale) + out_offset;
//   MAX/MIN: r = rescale(a + a_offset, a_scale)  max/min  rescale(b + b_offset, b_scale), + out_offset;
//   PRELU:   x = a + a_offset; r = (x >= 0 ? rescale(x, a_scale) : rescale(x·(b + b_offset), b_scale))
//            + out_offset (NNAPI PRELU with alpha in b; left_shift and out_scale are not read);
// then clamped to [clamp_lo, clamp_hi] (integers; F32: float bit patterns). F32 PRELU: a >= 0 ? a : b·a.
// dtype I32 is rejected.
struct Eltwise {
  Header h;
  EltwiseFunc func;
  DType dtype;  // of a, b and out
  uint32_t a_sram, b_sram, out_sram;
  uint32_t count, b_period;
  int32_t a_offset, b_offset, out_offset;
  int32_t left_shift;
  Requant a_scale, b_scale, out_scale;
  int32_t clamp_lo, clamp_hi;
};

enum class UnaryFunc : uint32_t {
  CLAMP = 0,     // out = clamp(in) (RELU/RELU1/RELU6 on floats; on quantised types with the requant below)
  REQUANT = 1,   // out = clamp(rescale(in + in_offset, scale) + out_offset), also U8 ↔ S8 and type casts
  LUT = 2,       // out = table[in] for 8-bit inputs: a 256-byte table at table_sram, indexed by the raw byte
  LOGISTIC = 3,  // F32: 1 / (1 + exp(−x))
  TANH = 4,      // F32
  ABS = 5,
  NEG = 6,
  FLOOR = 7,
  EXP = 8,
  SQRT = 9,
  RSQRT = 10,
  LOG = 11,         // F32
  SIN = 12,         // F32
  HARD_SWISH = 13,  // F32: x·min(max(x + 3, 0), 6) / 6
  ELU = 14,         // F32: x < 0 ? α·(exp(x) − 1) : x, α's float bits in in_offset
};

// CLAMP keeps the type; REQUANT is integer to integer (U8/S8/I32); LUT is 8-bit to 8-bit; the F32
// functions are followed by the clamp too (the compiler passes ±inf for none).
struct Unary {
  Header h;
  UnaryFunc func;
  DType in_type, out_type;
  uint32_t in_sram, out_sram, count;
  uint32_t table_sram;  // LUT only
  int32_t in_offset, out_offset;
  Requant scale;
  int32_t clamp_lo, clamp_hi;  // integers; F32: float bit patterns
};

enum class PoolFunc : uint32_t { AVG = 0, MAX = 1, L2 = 2 };

// Pooling over an NHWC band in SRAM (in_h × in_w × channels), out_h × out_w × channels outputs. Window
// taps outside the band are skipped (NNAPI: padding is not counted in the average).
// Quantised AVG: (sum ± count/2) / count, rounding as NNAPI's reference; MAX: max; L2: the root mean
// square of the dequantised taps, requantised to (in_scale, in_zero_point); then clamp. A window with no
// tap in the band yields in_zero_point (0.0 for F32). U8/S8 inputs keep their zero point and scale
// (NNAPI requires the output to share them).
struct Pool {
  Header h;
  PoolFunc func;
  DType dtype;
  uint32_t in_sram, in_h, in_w, channels;
  uint32_t out_sram, out_h, out_w;
  uint32_t filter_h, filter_w, stride_h, stride_w;
  int32_t row_origin, col_origin;
  int32_t clamp_lo, clamp_hi;  // integers; F32: float bit patterns
  float in_scale;              // L2 on quantised types only
  int32_t in_zero_point;       // quantised types: empty windows and L2
};

enum class ReduceFunc : uint32_t { MEAN = 0, SUM = 1, MAX = 2, ARGMAX = 3, ARGMIN = 4 };

// Reduces a dense [outer × extent × inner] tensor over `extent`: out[o][i] = f_e(in[o][e][i]).
// Quantised MEAN: trunc(Σ(in + in_offset) / extent) + out_offset, as NNAPI's reference (the output shares
// the input's quantisation; `scale` is not read); SUM: rescale(Σ(in + in_offset), scale) + out_offset;
// MAX: max(in + in_offset) + out_offset; then clamp. Sums wrap at 32 bits; F32 sums in ascending order.
// ARGMAX/ARGMIN: the extent index of the first largest/smallest value (strict comparisons, so NaN is never
// chosen after the first element), written as I32 (offsets, scale and clamp not read).
struct Reduce {
  Header h;
  ReduceFunc func;
  DType dtype;
  uint32_t in_sram, out_sram;
  uint32_t outer, extent, inner;
  int32_t in_offset, out_offset;
  Requant scale;
  int32_t clamp_lo, clamp_hi;
};

// softmax(beta · x) along the innermost extent of `rows` rows of `length` elements, in float with the CPU
// reference's operation order. Quantised: x comes from a float[256] dequantisation table at table_sram
// indexed by the raw input byte (compiler-built, (q − zp)·scale exactly as the reference computes it);
// output scale 1/256: lround(y·256) + out_offset (0 for U8, −128 for S8), clamped to the type.
// in_scale is informational (the table carries the dequantisation).
// log = 1 (F32 only): log-softmax, y = beta·x, m = max y, out = (y − m) − log(Σ exp(y − m)), the sum in
// row order (NNAPI LOG_SOFTMAX as the reference computes it).
struct Softmax {
  Header h;
  DType dtype;
  uint32_t in_sram, out_sram;
  uint32_t rows, length;
  float beta;
  float in_scale;
  uint32_t table_sram;  // quantised only: float[256]
  int32_t out_offset;
  uint32_t log;  // 0 softmax, 1 log-softmax
};

// out[i] = cond[i] ? a[i] : b[i] for `count` elements of dtype (F32, I32, U8, S8); cond holds one byte per
// element (nonzero = true). The chosen element is copied bit for bit: operands share one quantisation.
struct Select {
  Header h;
  DType dtype;
  uint32_t cond_sram, a_sram, b_sram, out_sram;
  uint32_t count;
};

// Where output coordinate v of a resized axis samples the input (NNAPI RESIZE_BILINEAR, as TFLite's
// reference): s = v·scale, or (v + 0.5)·scale − 0.5 with half-pixel centres; taps lo = floor(s) and
// hi = ceil(s), both clamped to [0, extent − 1]. Shared by the compiler (which bands rows by it) and the
// vector unit (which blends with it), so they cannot disagree on which rows a band needs.
struct BilinearTaps {
  float s;
  int64_t lo, hi;
};
inline BilinearTaps bilinear_taps(uint32_t v, float scale, uint32_t extent, bool half_pixel) {
  BilinearTaps t{};
  t.s = half_pixel ? (static_cast<float>(v) + 0.5f) * scale - 0.5f : static_cast<float>(v) * scale;
  const auto fl = static_cast<int64_t>(std::floor(t.s)), ce = static_cast<int64_t>(std::ceil(t.s));
  const int64_t last = int64_t{extent} - 1;
  t.lo = fl < 0 ? 0 : fl > last ? last : fl;
  t.hi = ce > last ? last : ce < 0 ? 0 : ce;
  return t;
}

// Bilinear resampling of one NHWC image (in_h × in_w → out_h × out_w, `channels` channels): output rows
// [out_y0, out_y0 + out_rows) (all columns, dense at out_sram) from the band of input rows
// [in_y0, in_y0 + in_rows) at in_sram (whole rows). Along each axis bilinear_taps with h_scale / w_scale;
// the four taps blend in float in the reference's order, with dy = s_y − lo_y and dx = s_x − lo_x:
//   v(lo_y, lo_x)·(1 − dy)·(1 − dx) + v(hi_y, lo_x)·dy·(1 − dx) + v(lo_y, hi_x)·(1 − dy)·dx + v(hi_y,
//   hi_x)·dy·dx.
// U8/S8: values are the raw bytes offset to [0, 255] (S8 + 128); the blend truncates toward zero, is
// clamped to [0, 255] and offset back, so signed results are the unsigned ones shifted by 128.
// A tap row outside the band is a bad descriptor.
struct ResizeBilinear {
  Header h;
  DType dtype;  // F32, U8 or S8
  uint32_t in_sram, out_sram;
  uint32_t in_h, in_w, out_h, out_w, channels;
  uint32_t in_y0, in_rows, out_y0, out_rows;
  float h_scale, w_scale;
  uint32_t half_pixel;  // 0 or 1
};

// RMS normalisation of `rows` rows of `length` elements (dense), each times gain[length]:
//   F32:  ss = Σ x² (float, ascending), inv = 1 / sqrt(ss / length + epsilon), y = (x · inv) · g.
//   U8/S8 (x, gain and y of the same 8-bit type): d = x + in_offset, ss = Σ d² (int64); per row the
//     real multiplier m = real_scale / sqrt(in_scale² · ss / length + epsilon) (double) is encoded as
//     fx::quantize_multiplier(m) (left shift capped at 31), and y = clamp(out_offset +
//     rescale(d · (g + gain_offset), m)) to the type's range.
// real_scale = in_scale · gain_scale / out_scale (quantised only); epsilon > 0.
struct RmsNorm {
  Header h;
  DType dtype;
  uint32_t in_sram, gain_sram, out_sram;
  uint32_t rows, length;
  float epsilon;
  float in_scale;                              // quantised only
  float real_scale;                            // quantised only
  int32_t in_offset, gain_offset, out_offset;  // −zero points (in, gain), +zero point (out)
};

// Rotary position embedding of `rows` rows, each `width` = heads · head_dim elements. Row r is at
// position p = position + r, where `position` is the int32 at position_sram (read when the descriptor
// runs, so a runtime value) plus position_delta. Within each head, element i < head_dim/2 pairs with
// element i + head_dim/2 (the "rotate half" convention) and both turn by θ = p · base^(−2i/head_dim),
// computed in double:  a' = a·cos θ − b·sin θ,  b' = b·cos θ + a·sin θ.
//   F32:  c = (float)cos θ, s = (float)sin θ, a' = a·c − b·s in float.
//   U8/S8: C = lround(cos θ · 2^15), S = lround(sin θ · 2^15) (int32), da = a + in_offset, db likewise,
//     acc = da·C − db·S (int32), a' = clamp(out_offset + rescale(acc, scale)) to the type's range, where
//     scale encodes in_scale / (out_scale · 2^15).
struct Rope {
  Header h;
  DType dtype;
  uint32_t in_sram, out_sram;
  uint32_t rows, width, head_dim;
  uint32_t position_sram;  // int32
  int32_t position_delta;
  float base;
  int32_t in_offset, out_offset;
  Requant scale;  // quantised only
};

// `rows` destination rows of row_bytes: row r (at sram + r·sram_stride) is table row idx[r] (at
// dev + idx[r]·dev_stride), idx being int32[rows] at index_sram. An index outside [0, table_rows) stops
// the channel with INDEX_OUT_OF_RANGE. The first fields are laid out as Dma's (the HAL relocates `dev`).
struct DmaGather {
  Header h;
  uint64_t dev;  // table base (device address)
  uint32_t sram;
  uint32_t row_bytes;
  uint32_t rows;
  uint32_t dev_stride;
  uint32_t sram_stride;
  uint32_t index_sram;
  uint32_t table_rows;
};

struct Fill {
  Header h;
  uint32_t sram, bytes;  // bytes need not be a multiple of 4: the pattern is repeated byte-wise
  uint32_t pattern;
};

// On preemption after this point the channel saves these SRAM ranges (bytes 0 = unused) instead of
// everything it wrote, and restores them on resume. A later PREEMPT_POINT replaces the set.
struct PreemptPoint {
  Header h;
  uint32_t offset[4];
  uint32_t bytes[4];
};

struct Fence {
  Header h;
  uint64_t value;
};

static_assert(sizeof(Dma) <= kDescriptorBytes && sizeof(Conv) <= kDescriptorBytes);
static_assert(sizeof(Eltwise) <= kDescriptorBytes && sizeof(Unary) <= kDescriptorBytes);
static_assert(sizeof(Pool) <= kDescriptorBytes && sizeof(Reduce) <= kDescriptorBytes);
static_assert(sizeof(Softmax) <= kDescriptorBytes && sizeof(Fill) <= kDescriptorBytes);
static_assert(sizeof(PreemptPoint) <= kDescriptorBytes && sizeof(Fence) <= kDescriptorBytes);
static_assert(sizeof(RmsNorm) <= kDescriptorBytes && sizeof(Rope) <= kDescriptorBytes);
static_assert(sizeof(Select) <= kDescriptorBytes && sizeof(ResizeBilinear) <= kDescriptorBytes);
static_assert(sizeof(DmaGather) <= kDescriptorBytes && offsetof(DmaGather, dev) == offsetof(Dma, dev));
static_assert(std::is_trivially_copyable_v<Conv> && std::is_trivially_copyable_v<Dma>);

// Name of an opcode for traces and logs ("CONV_INT8"); "UNKNOWN" outside the enum.
const char* opcode_name(Opcode op);

// One raw descriptor slot.
struct Raw {
  uint8_t bytes[kDescriptorBytes];
};

template <class T>
Raw encode(const T& d) {
  Raw r{};
  std::memcpy(r.bytes, &d, sizeof(T));
  return r;
}

template <class T>
T decode(const Raw& r) {
  T d;
  std::memcpy(&d, r.bytes, sizeof(T));
  return d;
}

inline Opcode opcode_of(const Raw& r) { return decode<Header>(r).opcode; }

// The device address of a DMA_IN / DMA_OUT / DMA_GATHER (the same place in all three), read and patched
// in place so a relocation keeps every other byte of the descriptor.
inline uint64_t dma_dev(const Raw& r) {
  uint64_t dev;
  std::memcpy(&dev, r.bytes + offsetof(Dma, dev), sizeof dev);
  return dev;
}
inline void set_dma_dev(Raw& r, uint64_t dev) { std::memcpy(r.bytes + offsetof(Dma, dev), &dev, sizeof dev); }

}  // namespace npu::desc
