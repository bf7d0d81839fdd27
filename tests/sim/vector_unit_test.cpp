// The vector unit on its own (no SystemC process): every opcode's values, checked by hand, and its cycle
// formula with the default configuration (lanes L = 64, fp32 F = 64 MAC/cycle, pipeline P = 8), plus
// footprint validation (BAD_DESCRIPTOR, SRAM_OVERFLOW) and timing-only execution.
#include "npu/sim/vector_unit.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "npu/common/fixed_point.h"

namespace {

using namespace npu;
using npu::regs::ChannelError;
using npu::sim::MacKind;
using npu::sim::VectorUnit;
using npu::sim::VectorUnitConfig;

constexpr float kInf = std::numeric_limits<float>::infinity();
int32_t bits(float f) { return std::bit_cast<int32_t>(f); }

struct Sram {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0);
  template <class T>
  void put(uint32_t at, const std::vector<T>& v) {
    std::memcpy(bytes.data() + at, v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> get(uint32_t at, size_t n) const {
    std::vector<T> v(n);
    std::memcpy(v.data(), bytes.data() + at, n * sizeof(T));
    return v;
  }
};

sim::VectorOpResult run(const desc::Raw& raw, Sram& s, bool functional = true) {
  const VectorUnit vu(VectorUnitConfig{});
  sim::SramFootprint fp;
  EXPECT_EQ(vu.footprint(raw, s.bytes.size(), &fp), ChannelError::NONE);
  return vu.execute(raw, s.bytes.data(), s.bytes.size(), functional);
}

// 3×3 single-channel input, depth multiplier 2, 2×2 filter, stride 1, one padding column on the left.
TEST(VectorUnit, DepthwiseFloatWithMultiplierAndPadding) {
  Sram s;
  s.put<float>(0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // filter [kh·kw][cout]: channel 0 taps 1,0,0,1 (diagonal), channel 1 all 0.5.
  s.put<float>(64, {1, 0.5f, 0, 0.5f, 0, 0.5f, 1, 0.5f});
  s.put<float>(128, {10, -100});
  desc::Conv d{};
  d.h.opcode = desc::Opcode::DWCONV_FP32;
  d.in_sram = 0, d.in_h = 3, d.in_w = 3, d.in_c = 1;
  d.w_sram = 64, d.kh = 2, d.kw = 2, d.cout = 2, d.depth_multiplier = 2;
  d.bias_sram = 128, d.out_sram = 256, d.out_h = 2, d.out_w = 3;
  d.stride_h = d.stride_w = d.dilation_h = d.dilation_w = 1;
  d.row_origin = 0, d.col_origin = -1;
  d.clamp_lo = bits(-kInf), d.clamp_hi = bits(kInf);
  const auto r = run(desc::encode(d), s);
  // Taps (ky, kx) of output (oy, ox) read input (oy + ky, ox − 1 + kx); channel 0 weighs taps (0,0) and
  // (1,1), channel 1 halves the sum of all in-bounds taps. Out (0,0): taps pad, 1, pad, 4 → 4 + 10 = 14,
  // 0.5·5 − 100 = −97.5. Out (0,1): 1, 2, 4, 5 → 16, −94. Out (0,2): 2, 3, 5, 6 → 18, −92.
  // Out (1,0): pad, 4, pad, 7 → 17, −94.5. Out (1,1): 4, 5, 7, 8 → 22, −88. Out (1,2): 5, 6, 8, 9 → 24, −86.
  EXPECT_EQ(s.get<float>(256, 12),
            (std::vector<float>{14, -97.5f, 16, -94, 18, -92, 17, -94.5f, 22, -88, 24, -86}));
  // macs = out_h·out_w·cout·kh·kw = 2·3·2·4 = 48 → P + ⌈48/64⌉ = 9.
  EXPECT_EQ(r.macs, 48u);
  EXPECT_EQ(r.mac_kind, MacKind::FP32);
  EXPECT_EQ(r.cycles, 9u);
  // SRAM bytes: input 36 + filter 32 + bias 8 + output 48.
  EXPECT_EQ(r.sram_bytes, 124u);
}

// uint8 input (zero point 130 → int8 domain 2), int8-domain weights (zero point 1), padding at the zero
// point, multiplier 0.5, output zero point 128 clamped to [0, 255]. The bias is 8 with the zero-point
// terms folded in as the compiler does: 8 − za·Σw + K·za·zw = 8 − 2·8 + 4·2·1 = 0.
TEST(VectorUnit, DepthwiseInt8MatchesHandArithmetic) {
  Sram s;
  s.put<uint8_t>(0, {140, 150, 160, 170});  // 2×2×1, int8 domain 12, 22, 32, 42
  s.put<int8_t>(64, {3, 1, -1, 5});         // 2×2 taps, one channel (real weights 2, 0, −2, 4)
  s.put<int32_t>(128, {0});
  const fx::QuantizedMultiplier half = fx::quantize_multiplier(0.5);
  s.put<int32_t>(192, {half.multiplier, half.shift});
  desc::Conv d{};
  d.h.opcode = desc::Opcode::DWCONV_INT8;
  d.in_sram = 0, d.in_h = 2, d.in_w = 2, d.in_c = 1;
  d.w_sram = 64, d.kh = 2, d.kw = 2, d.cout = 1, d.depth_multiplier = 1;
  d.bias_sram = 128, d.quant_sram = 192, d.out_sram = 256, d.out_h = 2, d.out_w = 2;
  d.stride_h = d.stride_w = d.dilation_h = d.dilation_w = 1;
  d.row_origin = 0, d.col_origin = 0;  // taps beyond the bottom/right edge are padding
  d.pad_value = 2, d.weight_offset = 1, d.out_zero_point = 128, d.clamp_lo = 0, d.clamp_hi = 255;
  d.flags = desc::kConvInputUnsigned | desc::kConvOutputUnsigned;
  const auto r = run(desc::encode(d), s);
  // Real (a − 2)·(w − 1) + 8: out(0,0) = 10·2 + 20·0 + 30·(−2) + 40·4 + 8 = 128 → 64 + 128 = 192.
  // out(0,1): 20·2 + 40·(−2) + 8 = −32 → −16 → 112 (the other taps are padding). out(1,0): 30·2 + 40·0 + 8
  // = 68 → 34 → 162. out(1,1): 40·2 + 8 = 88 → 44 → 172.
  EXPECT_EQ(s.get<uint8_t>(256, 4), (std::vector<uint8_t>{192, 112, 162, 172}));
  EXPECT_EQ(r.mac_kind, MacKind::INT8);
  EXPECT_EQ(r.macs, 16u);
  EXPECT_EQ(r.cycles, 9u);  // P + ⌈16/64⌉
}

TEST(VectorUnit, EltwiseFloatBroadcastWithRelu6) {
  Sram s;
  s.put<float>(0, {1, 2, 3, 4, 5, 6});
  s.put<float>(64, {-3, 2.5f});
  desc::Eltwise d{};
  d.h.opcode = desc::Opcode::ELTWISE;
  d.func = desc::EltwiseFunc::ADD;
  d.dtype = desc::DType::F32;
  d.a_sram = 0, d.b_sram = 64, d.out_sram = 128, d.count = 6, d.b_period = 2;
  d.clamp_lo = bits(0.0f), d.clamp_hi = bits(6.0f);
  const auto r = run(desc::encode(d), s);
  EXPECT_EQ(s.get<float>(128, 6), (std::vector<float>{0, 4.5f, 0, 6, 2, 6}));
  EXPECT_EQ(r.cycles, 9u);  // P + ⌈6·4/64⌉
  EXPECT_EQ(r.macs, 6u);
}

// Quantised MUL: (a − 3)·(b − 1)·0.25 + 10, signed.
TEST(VectorUnit, EltwiseQuantisedMul) {
  Sram s;
  s.put<int8_t>(0, {3, 5, 13, -7, 127});
  s.put<int8_t>(64, {9, 9, 3, 3, 127});
  const fx::QuantizedMultiplier q = fx::quantize_multiplier(0.25);
  desc::Eltwise d{};
  d.h.opcode = desc::Opcode::ELTWISE;
  d.func = desc::EltwiseFunc::MUL;
  d.dtype = desc::DType::S8;
  d.a_sram = 0, d.b_sram = 64, d.out_sram = 128, d.count = 5;
  d.a_offset = -3, d.b_offset = -1, d.out_offset = 10;
  d.out_scale = {q.multiplier, q.shift};
  d.clamp_lo = -128, d.clamp_hi = 127;
  run(desc::encode(d), s);
  // 0·8 → 0; 2·8/4 = 4; 10·2/4 = 5; −10·2/4 = −5; 124·126/4 = 3906 → clamp 127.
  EXPECT_EQ(s.get<int8_t>(128, 5), (std::vector<int8_t>{10, 14, 15, 5, 127}));
}

// Quantised ADD as NNAPI's reference: inputs shifted left 20, scaled by s_i / (2·max), summed, rescaled
// by 2·max / (2^20·s_out). Scales a 0.5, b 0.25, out 1: real a' = 0.5(a − 128), b' = 0.25(b − 128).
TEST(VectorUnit, EltwiseQuantisedAdd) {
  Sram s;
  s.put<uint8_t>(0, {128, 138, 100, 255});
  s.put<uint8_t>(64, {128, 132, 160, 0});
  const fx::QuantizedMultiplier ma = fx::quantize_multiplier(0.5), mb = fx::quantize_multiplier(0.25),
                                mo = fx::quantize_multiplier(1.0 / (1 << 20));
  desc::Eltwise d{};
  d.h.opcode = desc::Opcode::ELTWISE;
  d.func = desc::EltwiseFunc::ADD;
  d.dtype = desc::DType::U8;
  d.a_sram = 0, d.b_sram = 64, d.out_sram = 128, d.count = 4;
  d.a_offset = -128, d.b_offset = -128, d.out_offset = 100, d.left_shift = 20;
  d.a_scale = {ma.multiplier, ma.shift}, d.b_scale = {mb.multiplier, mb.shift},
  d.out_scale = {mo.multiplier, mo.shift};
  d.clamp_lo = 0, d.clamp_hi = 255;
  run(desc::encode(d), s);
  // 0 + 0 = 0 → 100; 5 + 1 = 6 → 106; −14 + 8 = −6 → 94; 63.5 − 32 = 31.5 → 32 (half away) → 132.
  EXPECT_EQ(s.get<uint8_t>(128, 4), (std::vector<uint8_t>{100, 106, 94, 132}));
}

TEST(VectorUnit, UnaryLutRequantAndFloatFunctions) {
  Sram s;
  std::vector<uint8_t> table(256);
  for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(255 - i);
  s.put<uint8_t>(0, {0, 7, 200});
  s.put<uint8_t>(256, table);
  desc::Unary u{};
  u.h.opcode = desc::Opcode::UNARY;
  u.func = desc::UnaryFunc::LUT;
  u.in_type = u.out_type = desc::DType::U8;
  u.in_sram = 0, u.out_sram = 64, u.count = 3, u.table_sram = 256;
  u.clamp_lo = 0, u.clamp_hi = 250;
  auto r = run(desc::encode(u), s);
  EXPECT_EQ(s.get<uint8_t>(64, 3), (std::vector<uint8_t>{250, 248, 55}));
  EXPECT_EQ(r.cycles, 9u);
  // REQUANT uint8 → int8: (x − 128)·2 − 1 clamped to [−128, 127].
  const fx::QuantizedMultiplier two = fx::quantize_multiplier(2.0);
  u.func = desc::UnaryFunc::REQUANT;
  u.out_type = desc::DType::S8;
  u.in_offset = -128, u.out_offset = -1, u.scale = {two.multiplier, two.shift};
  u.clamp_lo = -128, u.clamp_hi = 127;
  s.put<uint8_t>(0, {128, 130, 0});
  run(desc::encode(u), s);
  EXPECT_EQ(s.get<int8_t>(64, 3), (std::vector<int8_t>{-1, 3, -128}));
  // LOGISTIC on floats, then RELU1-style clamp at 0.6; cost 4× per lane pass: P + ⌈3·4/64⌉·4 = 12.
  s.put<float>(0, {0.0f, std::log(3.0f), -100.0f});
  u.func = desc::UnaryFunc::LOGISTIC;
  u.in_type = u.out_type = desc::DType::F32;
  u.clamp_lo = bits(-kInf), u.clamp_hi = bits(0.6f);
  r = run(desc::encode(u), s);
  const auto out = s.get<float>(64, 3);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[1], 0.6f);  // 0.75 clamped
  EXPECT_LT(out[2], 1e-40f);
  EXPECT_EQ(r.cycles, 12u);
}

// NNAPI 1.2/1.3 float functions. SIN: sin 0 = 0, sin(π/2 as float) = 1 (to float precision), cost
// P + ⌈2·4/64⌉·4 = 12. HARD_SWISH x·min(max(x + 3, 0), 6)/6: −4 → −0, −1.5 → −1.5·1.5/6 = −0.375,
// 1 → 4/6, 5 → 5, cost 8 + 1 = 9 (not transcendental). ELU with α = 0.5 (float bits in in_offset):
// −2 → 0.5·(e^−2 − 1) = −0.43233237, 3 → 3, cost 12.
TEST(VectorUnit, UnarySinHardSwishElu) {
  Sram s;
  desc::Unary u{};
  u.h.opcode = desc::Opcode::UNARY;
  u.in_type = u.out_type = desc::DType::F32;
  u.in_sram = 0, u.out_sram = 64;
  u.clamp_lo = bits(-kInf), u.clamp_hi = bits(kInf);
  s.put<float>(0, {0.0f, 1.5707964f});
  u.func = desc::UnaryFunc::SIN;
  u.count = 2;
  auto r = run(desc::encode(u), s);
  EXPECT_EQ(s.get<float>(64, 2), (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(r.cycles, 12u);
  s.put<float>(0, {-4.0f, -1.5f, 1.0f, 5.0f});
  u.func = desc::UnaryFunc::HARD_SWISH;
  u.count = 4;
  r = run(desc::encode(u), s);
  const auto hs = s.get<float>(64, 4);
  EXPECT_EQ(hs[0], 0.0f);
  EXPECT_EQ(hs[1], -0.375f);
  EXPECT_NEAR(hs[2], 2.0f / 3.0f, 1e-7f);
  EXPECT_EQ(hs[3], 5.0f);
  EXPECT_EQ(r.cycles, 9u);
  s.put<float>(0, {-2.0f, 3.0f});
  u.func = desc::UnaryFunc::ELU;
  u.in_offset = bits(0.5f);
  u.count = 2;
  r = run(desc::encode(u), s);
  const auto e = s.get<float>(64, 2);
  EXPECT_NEAR(e[0], -0.43233237f, 1e-7f);
  EXPECT_EQ(e[1], 3.0f);
  EXPECT_EQ(r.cycles, 12u);
  // A function code past the last is rejected.
  u.func = static_cast<desc::UnaryFunc>(15);
  const VectorUnit vu(VectorUnitConfig{});
  sim::SramFootprint fp;
  EXPECT_EQ(vu.footprint(desc::encode(u), s.bytes.size(), &fp), ChannelError::BAD_DESCRIPTOR);
}

// ARGMAX/ARGMIN over the extent of [1, 3, 2] floats: column 0 is 1, 7, 7 (max at 1, the first of the
// two 7s; min at 0), column 1 is 5, 5, −1 (max at 0, min at 2); I32 out; cost P + ⌈6·4/64⌉ = 9.
// Int8 [−3, 4, 4] (extent 3, inner 1): max at 1.
TEST(VectorUnit, ReduceArgMaxArgMin) {
  Sram s;
  s.put<float>(0, {1.0f, 5.0f, 7.0f, 5.0f, 7.0f, -1.0f});
  desc::Reduce d{};
  d.h.opcode = desc::Opcode::REDUCE;
  d.dtype = desc::DType::F32;
  d.in_sram = 0, d.out_sram = 64, d.outer = 1, d.extent = 3, d.inner = 2;
  d.func = desc::ReduceFunc::ARGMAX;
  auto r = run(desc::encode(d), s);
  EXPECT_EQ(s.get<int32_t>(64, 2), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(r.cycles, 9u);
  d.func = desc::ReduceFunc::ARGMIN;
  run(desc::encode(d), s);
  EXPECT_EQ(s.get<int32_t>(64, 2), (std::vector<int32_t>{0, 2}));
  s.put<int8_t>(0, {-3, 4, 4});
  d.dtype = desc::DType::S8;
  d.func = desc::ReduceFunc::ARGMAX;
  d.inner = 1;
  run(desc::encode(d), s);
  EXPECT_EQ(s.get<int32_t>(64, 1), (std::vector<int32_t>{1}));
}

// 3×3 int8 band, 2×2 window, stride 2, one padding row/column at the bottom/right.
TEST(VectorUnit, PoolAverageQuantisedSkipsPaddingAndRoundsTiesUp) {
  Sram s;
  s.put<int8_t>(0, {1, 2, -9, 4, 6, -6, -5, -4, 100});
  desc::Pool p{};
  p.h.opcode = desc::Opcode::POOL;
  p.func = desc::PoolFunc::AVG;
  p.dtype = desc::DType::S8;
  p.in_sram = 0, p.in_h = 3, p.in_w = 3, p.channels = 1;
  p.out_sram = 64, p.out_h = 2, p.out_w = 2, p.filter_h = 2, p.filter_w = 2, p.stride_h = 2, p.stride_w = 2;
  p.clamp_lo = -128, p.clamp_hi = 127, p.in_zero_point = 0;
  const auto r = run(desc::encode(p), s);
  // Signed values are averaged from −128 with ties rounded up, as their unsigned twins (+128) are:
  // (1+2+4+6)/4 = 3.25 → 3; (−9−6)/2 = −7.5 → −7; (−5−4)/2 = −4.5 → −4; 100/1.
  EXPECT_EQ(s.get<int8_t>(64, 4), (std::vector<int8_t>{3, -7, -4, 100}));
  EXPECT_EQ(r.macs, 16u);   // out 4 × window 4
  EXPECT_EQ(r.cycles, 9u);  // P + ⌈16/64⌉
  p.func = desc::PoolFunc::MAX;
  run(desc::encode(p), s);
  EXPECT_EQ(s.get<int8_t>(64, 4), (std::vector<int8_t>{6, -6, -4, 100}));
}

TEST(VectorUnit, PoolL2Float) {
  Sram s;
  s.put<float>(0, {3, 4, 0, 0});  // 1×2×2 channels: pixel (0,0) = (3, 4), pixel (0,1) = (0, 0)
  desc::Pool p{};
  p.h.opcode = desc::Opcode::POOL;
  p.func = desc::PoolFunc::L2;
  p.dtype = desc::DType::F32;
  p.in_sram = 0, p.in_h = 1, p.in_w = 2, p.channels = 2;
  p.out_sram = 64, p.out_h = 1, p.out_w = 1, p.filter_h = 1, p.filter_w = 2, p.stride_h = 1, p.stride_w = 1;
  p.clamp_lo = bits(-kInf), p.clamp_hi = bits(kInf);
  run(desc::encode(p), s);
  // sqrt((9 + 0)/2), sqrt((16 + 0)/2)
  EXPECT_EQ(s.get<float>(64, 2), (std::vector<float>{std::sqrt(4.5f), std::sqrt(8.0f)}));
}

// MEAN over the middle extent of [2, 3, 2] uint8 with NNAPI's truncating integer mean.
TEST(VectorUnit, ReduceMeanQuantisedTruncates) {
  Sram s;
  s.put<uint8_t>(0, {1, 10, 2, 10, 2, 11, 255, 0, 255, 0, 254, 1});
  desc::Reduce d{};
  d.h.opcode = desc::Opcode::REDUCE;
  d.func = desc::ReduceFunc::MEAN;
  d.dtype = desc::DType::U8;
  d.in_sram = 0, d.out_sram = 64, d.outer = 2, d.extent = 3, d.inner = 2;
  d.in_offset = 0, d.out_offset = 0, d.clamp_lo = 0, d.clamp_hi = 255;
  const auto r = run(desc::encode(d), s);
  // (1+2+2)/3 = 1; (10+10+11)/3 = 10; (255+255+254)/3 = 254; (0+0+1)/3 = 0.
  EXPECT_EQ(s.get<uint8_t>(64, 4), (std::vector<uint8_t>{1, 10, 254, 0}));
  EXPECT_EQ(r.macs, 12u);
  EXPECT_EQ(r.cycles, 9u);
}

TEST(VectorUnit, SoftmaxFloatAndQuantised) {
  Sram s;
  s.put<float>(0, {0.0f, std::log(3.0f), 5.0f, 5.0f});
  desc::Softmax d{};
  d.h.opcode = desc::Opcode::SOFTMAX;
  d.dtype = desc::DType::F32;
  d.in_sram = 0, d.out_sram = 64, d.rows = 2, d.length = 2, d.beta = 1.0f;
  auto r = run(desc::encode(d), s);
  const auto y = s.get<float>(64, 4);
  EXPECT_NEAR(y[0], 0.25f, 1e-7);
  EXPECT_NEAR(y[1], 0.75f, 1e-7);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.5f);
  EXPECT_EQ(r.cycles, 8u + 1 * 6);  // P + ⌈4·4/64⌉·6
  // Quantised U8 through a dequantisation table (scale 0.5, zero point 2): inputs 2, 2, 2, 2 → ¼ each
  // → lround(64) = 64.
  std::vector<float> table(256);
  for (int q = 0; q < 256; ++q) table[q] = static_cast<float>(q - 2) * 0.5f;
  s.put<float>(1024, table);
  s.put<uint8_t>(0, {2, 2, 2, 2});
  d.dtype = desc::DType::U8;
  d.rows = 1, d.length = 4, d.table_sram = 1024, d.out_offset = 0;
  r = run(desc::encode(d), s);
  EXPECT_EQ(s.get<uint8_t>(64, 4), (std::vector<uint8_t>{64, 64, 64, 64}));
}

// The throughput term: counts that take several lane passes, with a remainder, so a formula that
// rounds down, ignores the element size or the transcendental factor, or counts elements instead of
// bytes gives a different figure. L = 64 bytes per cycle, P = 8, F = 64.
TEST(VectorUnit, ThroughputTermOverManyLanePasses) {
  Sram s;
  desc::Eltwise e{};
  e.h.opcode = desc::Opcode::ELTWISE;
  e.func = desc::EltwiseFunc::MAX;
  e.dtype = desc::DType::S8;
  e.a_sram = 0, e.b_sram = 1024, e.out_sram = 2048, e.count = 200;
  e.clamp_lo = -128, e.clamp_hi = 127;
  EXPECT_EQ(run(desc::encode(e), s).cycles, 8u + 4);  // ⌈200·1/64⌉ = 4 (3.125 passes)
  e.dtype = desc::DType::F32;
  e.count = 150;
  e.clamp_lo = bits(-kInf), e.clamp_hi = bits(kInf);
  EXPECT_EQ(run(desc::encode(e), s).cycles, 8u + 10);  // ⌈150·4/64⌉ = ⌈9.375⌉ = 10

  desc::Unary u{};
  u.h.opcode = desc::Opcode::UNARY;
  u.func = desc::UnaryFunc::TANH;
  u.in_type = u.out_type = desc::DType::F32;
  u.in_sram = 0, u.out_sram = 2048, u.count = 100;
  u.clamp_lo = bits(-kInf), u.clamp_hi = bits(kInf);
  EXPECT_EQ(run(desc::encode(u), s).cycles, 8u + 7 * 4);  // ⌈100·4/64⌉ = 7 passes at 4× each

  desc::Softmax m{};
  m.h.opcode = desc::Opcode::SOFTMAX;
  m.dtype = desc::DType::F32;
  m.in_sram = 0, m.out_sram = 2048, m.rows = 3, m.length = 50, m.beta = 1.0f;
  EXPECT_EQ(run(desc::encode(m), s).cycles, 8u + 10 * 6);  // ⌈3·50·4/64⌉ = ⌈9.375⌉ = 10, six passes
}

TEST(VectorUnit, BadDescriptorsAndOverflowAreRejected) {
  const VectorUnit vu(VectorUnitConfig{});
  sim::SramFootprint fp;
  desc::Eltwise e{};
  e.h.opcode = desc::Opcode::ELTWISE;
  e.dtype = desc::DType::U8;
  e.count = 0;  // empty
  EXPECT_EQ(vu.footprint(desc::encode(e), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
  e.count = 8;
  e.func = static_cast<desc::EltwiseFunc>(9);  // unknown function
  EXPECT_EQ(vu.footprint(desc::encode(e), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
  e.func = desc::EltwiseFunc::ADD;
  e.b_period = 3;  // does not divide count
  EXPECT_EQ(vu.footprint(desc::encode(e), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
  e.b_period = 0;
  e.out_sram = 4090;  // 8 bytes from 4090 pass the end of a 4 KiB SRAM
  EXPECT_EQ(vu.footprint(desc::encode(e), 4096, &fp), ChannelError::SRAM_OVERFLOW);
  std::vector<uint8_t> sram(4096);
  EXPECT_EQ(vu.execute(desc::encode(e), sram.data(), sram.size(), true).error, ChannelError::SRAM_OVERFLOW);
  e.out_sram = 64;
  ASSERT_EQ(vu.footprint(desc::encode(e), 4096, &fp), ChannelError::NONE);
  ASSERT_EQ(fp.reads.size(), 2u);
  ASSERT_EQ(fp.writes.size(), 1u);
  EXPECT_EQ(fp.writes[0].offset, 64u);
  EXPECT_EQ(fp.writes[0].bytes, 8u);
  desc::Unary u{};
  u.h.opcode = desc::Opcode::UNARY;
  u.func = desc::UnaryFunc::TANH;  // float function on bytes
  u.in_type = u.out_type = desc::DType::U8;
  u.count = 4;
  EXPECT_EQ(vu.footprint(desc::encode(u), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
  desc::Conv c{};
  c.h.opcode = desc::Opcode::DWCONV_FP32;
  c.in_h = c.in_w = c.kh = c.kw = c.out_h = c.out_w = 1;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.in_c = 2, c.cout = 3, c.depth_multiplier = 1;  // cout ≠ in_c · multiplier
  EXPECT_EQ(vu.footprint(desc::encode(c), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
  EXPECT_EQ(vu.footprint(desc::encode(desc::Fence{}), 4096, &fp), ChannelError::BAD_DESCRIPTOR);
}

// functional = false: the same cycles, MACs and bytes, and no SRAM byte changes.
TEST(VectorUnit, TimingOnlyMovesNoData) {
  Sram s;
  s.put<float>(0, {1, 2, 3, 4});
  desc::Eltwise d{};
  d.h.opcode = desc::Opcode::ELTWISE;
  d.func = desc::EltwiseFunc::MUL;
  d.dtype = desc::DType::F32;
  d.a_sram = 0, d.b_sram = 0, d.out_sram = 64, d.count = 4;
  d.clamp_lo = bits(-kInf), d.clamp_hi = bits(kInf);
  const std::vector<uint8_t> before = s.bytes;
  const auto timing = run(desc::encode(d), s, false);
  EXPECT_EQ(s.bytes, before);
  const auto full = run(desc::encode(d), s, true);
  EXPECT_EQ(s.get<float>(64, 4), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(timing.cycles, full.cycles);
  EXPECT_EQ(timing.macs, full.macs);
  EXPECT_EQ(timing.sram_bytes, full.sram_bytes);
  EXPECT_EQ(full.sram_bytes, 48u);  // a 16 + b 16 (same range, read twice) + out 16
}

// ---- com.npusim.llm: RMS_NORM and ROPE (descriptors.h) ----

desc::Raw rms_norm(desc::DType t, uint32_t rows, uint32_t length, float epsilon) {
  desc::RmsNorm d{};
  d.h.opcode = desc::Opcode::RMS_NORM;
  d.dtype = t;
  d.in_sram = 0, d.gain_sram = 512, d.out_sram = 1024;
  d.rows = rows, d.length = length, d.epsilon = epsilon;
  return desc::encode(d);
}

// Epsilons chosen so mean(x²) + ε is a square: every value is exact in float.
// Row 0: x = 1,1,1,1: mean 1, + 3 = 4, 1/√4 = 0.5, y = 0.5·g = 0.5, 1, 1.5, 2.
// Row 1: x = 1,5,1,5: (1 + 25 + 1 + 25)/4 = 13, + 3 = 16, 1/4, y = 0.25·x·g = 0.25, 2.5, 0.75, 5.
TEST(VectorUnit, RmsNormFloat) {
  Sram s;
  s.put<float>(0, {1, 1, 1, 1, 1, 5, 1, 5});
  s.put<float>(512, {1, 2, 3, 4});
  const auto r = run(rms_norm(desc::DType::F32, 2, 4, 3.0f), s);
  EXPECT_EQ(s.get<float>(1024, 8), (std::vector<float>{0.5f, 1, 1.5f, 2, 0.25f, 2.5f, 0.75f, 5}));
  // n = 8 elements of 4 bytes: P + 2·⌈32/64⌉ + 4·rows = 8 + 2 + 8 = 18; MACs 2 per element.
  EXPECT_EQ(r.cycles, 18u);
  EXPECT_EQ(r.macs, 16u);
  EXPECT_EQ(r.mac_kind, MacKind::FP32);
  EXPECT_EQ(r.sram_bytes, 32u + 16 + 32);  // input, gain, output
}

// uint8 x (scale 0.5, zero point 128): 130, 126, 132, 124 → d = 2, −2, 4, −4 (reals 1, −1, 2, −2);
// Σd² = 40, mean of the reals' squares 0.25·40/4 = 2.5, + ε 1.5 = 4, √ = 2. Gain (scale 0.25, zero point
// 0): 4, 4, 8, 8 (reals 1, 1, 2, 2). Output scale 1/32, zero point 128: real_scale = 0.5·0.25·32 = 4, so the
// row's multiplier is 4/2 = 2: y = 128 + 2·d·g = 128 + 2·(8, −8, 32, −32) = 144, 112, 192, 64
// (reals 0.5, −0.5, 2, −2 = x/2·g). Signed: every value − 128 (gain zero point −128), the same minus 128.
TEST(VectorUnit, RmsNormQuantisedBothTypes) {
  for (const bool is_signed : {false, true}) {
    Sram s;
    const int shift = is_signed ? 128 : 0;
    std::vector<uint8_t> x{130, 126, 132, 124}, g{4, 4, 8, 8};
    for (auto& v : x) v = static_cast<uint8_t>(v - shift);
    for (auto& v : g) v = static_cast<uint8_t>(v - shift);
    s.put<uint8_t>(0, x);
    s.put<uint8_t>(512, g);
    auto d = desc::decode<desc::RmsNorm>(rms_norm(is_signed ? desc::DType::S8 : desc::DType::U8, 1, 4, 1.5f));
    d.in_scale = 0.5f;
    d.real_scale = 4.0f;
    d.in_offset = -(128 - shift);
    d.gain_offset = shift;
    d.out_offset = 128 - shift;
    const auto r = run(desc::encode(d), s);
    std::vector<uint8_t> want{144, 112, 192, 64};
    for (auto& v : want) v = static_cast<uint8_t>(v - shift);
    EXPECT_EQ(s.get<uint8_t>(1024, 4), want) << (is_signed ? "S8" : "U8");
    // 4 one-byte elements: 8 + 2·⌈4/64⌉ + 4·1 = 14.
    EXPECT_EQ(r.cycles, 14u);
    EXPECT_EQ(r.macs, 8u);
    EXPECT_EQ(r.mac_kind, MacKind::INT8);
  }
}

// The result saturates at the type's range: x = 228, 128, 128, 128 → d = 100, 0, 0, 0 (scale 0.5); mean of
// the squares 0.25·10000/4 = 625, + ε 275 = 900, √ = 30; multiplier real_scale/30 = 4/30. Gain 40 on the
// first element: 128 + 100·40·4/30 = 128 + 533 = 661 → 255; the zeros stay at the zero point 128.
TEST(VectorUnit, RmsNormQuantisedSaturates) {
  Sram s;
  s.put<uint8_t>(0, {228, 128, 128, 128});
  s.put<uint8_t>(512, {40, 4, 4, 4});
  auto d = desc::decode<desc::RmsNorm>(rms_norm(desc::DType::U8, 1, 4, 275.0f));
  d.in_scale = 0.5f;
  d.real_scale = 4.0f;
  d.in_offset = -128;
  d.out_offset = 128;
  run(desc::encode(d), s);
  EXPECT_EQ(s.get<uint8_t>(1024, 4), (std::vector<uint8_t>{255, 128, 128, 128}));
}

desc::Raw rope(desc::DType t, uint32_t rows, uint32_t width, uint32_t head_dim, float base) {
  desc::Rope d{};
  d.h.opcode = desc::Opcode::ROPE;
  d.dtype = t;
  d.in_sram = 0, d.out_sram = 1024, d.position_sram = 512;
  d.rows = rows, d.width = width, d.head_dim = head_dim, d.base = base;
  return desc::encode(d);
}

// One head of 4 (pairs (0, 2) and (1, 3)), base 100: frequencies 100^0 = 1 and 100^(−2/4) = 0.1. Position
// 1 + row: row 0 turns the pairs by 1 and 0.1 rad, row 1 by 2 and 0.2 rad.
// Row 0, x = 1, 0, 0, 1: (a, b) = (1, 0) → (cos 1, sin 1) = (0.540302306, 0.841470985);
//   (a, b) = (0, 1) → (−sin 0.1, cos 0.1) = (−0.099833417, 0.995004165).
// Row 1, x = 2, 0, 0, 0: (2, 0) → (2 cos 2, 2 sin 2) = (−0.832293673, 1.818594854); (0, 0) stays 0.
TEST(VectorUnit, RopeFloat) {
  Sram s;
  s.put<float>(0, {1, 0, 0, 1, 2, 0, 0, 0});
  s.put<int32_t>(512, {1});
  const auto r = run(rope(desc::DType::F32, 2, 4, 4, 100.0f), s);
  const std::vector<float> want{0.540302306f,  -0.099833417f, 0.841470985f, 0.995004165f,
                                -0.832293673f, 0.0f,          1.818594854f, 0.0f};
  const auto got = s.get<float>(1024, 8);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  // 8 elements of 4 bytes: P + ⌈32/64⌉·4 = 12; 2 MACs per element.
  EXPECT_EQ(r.cycles, 12u);
  EXPECT_EQ(r.macs, 16u);
  EXPECT_EQ(r.sram_bytes, 32u + 4 + 32);  // input, position, output
}

// uint8, zero point 128, input scale = output scale, so the rescale is 1/2^15. Position 1: angles 1 and 0.1.
// C = lround(cos·2^15), S = lround(sin·2^15): cos 1 → 17704.6 → 17705, sin 1 → 27573.6 → 27574,
// cos 0.1 → 32604.3 → 32604, sin 0.1 → 3271.3 → 3271.
// x = 228, 128, 128, 28 → (a, b) pairs (100, 0) and (0, −100):
//   a0' = 100·17705 = 1770500 → /32768 = 54.03 → 54;   b0' = 100·27574 = 2757400 → 84.15 → 84;
//   a1' = −(−100)·3271 = 327100 → 9.98 → 10;            b1' = −100·32604 = −3260400 → −99.50 → −99.
// y = 128 + (54, 10, 84, −99) = 182, 138, 212, 29 in element order (a0, a1, b0, b1).
TEST(VectorUnit, RopeQuantised) {
  Sram s;
  s.put<uint8_t>(0, {228, 128, 128, 28});
  s.put<int32_t>(512, {1});
  auto d = desc::decode<desc::Rope>(rope(desc::DType::U8, 1, 4, 4, 100.0f));
  d.in_offset = -128;
  d.out_offset = 128;
  const auto m = fx::quantize_multiplier(1.0 / 32768);
  d.scale = {m.multiplier, m.shift};
  const auto r = run(desc::encode(d), s);
  EXPECT_EQ(s.get<uint8_t>(1024, 4), (std::vector<uint8_t>{182, 138, 212, 29}));
  EXPECT_EQ(r.cycles, 12u);  // 8 + ⌈4/64⌉·4
  // The position is read when the descriptor runs, plus position_delta: delta 1 with position 0 is the same.
  Sram t;
  t.put<uint8_t>(0, {228, 128, 128, 28});
  t.put<int32_t>(512, {0});
  d.position_delta = 1;
  run(desc::encode(d), t);
  EXPECT_EQ(t.get<uint8_t>(1024, 4), (std::vector<uint8_t>{182, 138, 212, 29}));
}

TEST(VectorUnit, LlmDescriptorsRejectBadFields) {
  const VectorUnit vu(VectorUnitConfig{});
  sim::SramFootprint fp;
  auto bad = [&](const desc::Raw& raw) { return vu.footprint(raw, 4096, &fp); };
  EXPECT_EQ(bad(rms_norm(desc::DType::F32, 1, 4, 0.0f)), ChannelError::BAD_DESCRIPTOR);  // ε must be > 0
  EXPECT_EQ(bad(rms_norm(desc::DType::I32, 1, 4, 1.0f)), ChannelError::BAD_DESCRIPTOR);
  EXPECT_EQ(bad(rms_norm(desc::DType::U8, 1, 4, 1.0f)), ChannelError::BAD_DESCRIPTOR);  // no scales
  EXPECT_EQ(bad(rms_norm(desc::DType::F32, 1, 0, 1.0f)), ChannelError::BAD_DESCRIPTOR);
  EXPECT_EQ(bad(rms_norm(desc::DType::F32, 64, 64, 1.0f)), ChannelError::SRAM_OVERFLOW);
  EXPECT_EQ(bad(rope(desc::DType::F32, 1, 6, 3, 100.0f)), ChannelError::BAD_DESCRIPTOR);  // odd head
  EXPECT_EQ(bad(rope(desc::DType::F32, 1, 6, 4, 100.0f)), ChannelError::BAD_DESCRIPTOR);  // 4 ∤ 6
  EXPECT_EQ(bad(rope(desc::DType::F32, 1, 8, 4, 0.0f)), ChannelError::BAD_DESCRIPTOR);    // base > 0
  EXPECT_EQ(bad(rope(desc::DType::F32, 1, 8, 4, 100.0f)), ChannelError::NONE);
  EXPECT_EQ(bad(rope(desc::DType::F32, 64, 16, 4, 100.0f)), ChannelError::SRAM_OVERFLOW);
}

}  // namespace
