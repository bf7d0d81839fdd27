// TENSOR_FLOAT16 on the CPU reference is IEEE 754 binary16 arithmetic: every operation reads binary16
// values and writes each result rounded to the nearest binary16 (ties to even, overflow to infinity).
// The kernels compute one step in binary32 and round that to binary16; for +, -, ×, ÷ and √ this is the
// correctly rounded binary16 result, because binary32's 24-bit significand is at least 2 × 11 + 2 bits
// (rounding twice through such a format is innocuous). These tests check that against an independent
// rounding written here from the format's definition, over every finite binary16 operand.
// Operations that sum many products (FULLY_CONNECTED, CONV_2D, ...) accumulate in binary32 and round the
// sum once, as an fp16 datapath with fp32 accumulators does; a hand-worked case below shows which.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto F16 = OperandType::TENSOR_FLOAT16;
constexpr uint16_t kLargestFinite = 0x7bff;  // 65504
constexpr uint16_t kInfinity = 0x7c00;

// The value of a binary16 bit pattern by the format's definition: sign, 5-bit exponent (bias 15),
// 10-bit fraction; exponent 0 is subnormal (fraction × 2^-24).
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int fraction = h & 0x3ff;
  double v = 0.0;
  if (exponent == 0)
    v = std::ldexp(fraction, -24);
  else if (exponent == 31)
    v = fraction ? std::nan("") : INFINITY;
  else
    v = std::ldexp(1024 + fraction, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

// Nearest binary16 to x, ties to the even bit pattern; magnitudes from 65520 (halfway between 65504 and
// the next step, 65536) round to infinity. Positive finite binary16 values increase with their bit
// pattern, so the two neighbours are found by bisection.
uint16_t round_to_binary16(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | kInfinity;
  if (a >= half_value(kLargestFinite)) return sign | kLargestFinite;
  uint16_t lo = 0, hi = kLargestFinite;  // half_value(lo) <= a < half_value(hi)
  while (hi - lo > 1) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    (half_value(mid) <= a ? lo : hi) = mid;
  }
  const double below = a - half_value(lo), above = half_value(hi) - a;
  const uint16_t nearest = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  return sign | nearest;
}

Tensor half_tensor(const std::vector<uint16_t>& bits, std::vector<uint32_t> dims = {}) {
  Tensor t;
  t.type = F16;
  t.dimensions = dims.empty() ? std::vector<uint32_t>{static_cast<uint32_t>(bits.size())} : std::move(dims);
  t.data.resize(bits.size() * 2);
  std::memcpy(t.data.data(), bits.data(), t.data.size());
  return t;
}

std::vector<uint16_t> bits_of(const Tensor& t) {
  std::vector<uint16_t> bits(t.data.size() / 2);
  std::memcpy(bits.data(), t.data.data(), bits.size() * 2);
  return bits;
}

// Every finite binary16 value, both signs (63,488 patterns; -0 included).
std::vector<uint16_t> every_finite_half() {
  std::vector<uint16_t> all;
  for (uint32_t h = 0; h <= 0xffff; ++h)
    if (((h >> 10) & 0x1f) != 31) all.push_back(static_cast<uint16_t>(h));
  return all;
}

std::vector<uint16_t> run_binary(OperationType type, const std::vector<uint16_t>& a,
                                 const std::vector<uint16_t>& b) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  GraphBuilder g;
  const uint32_t x = g.input(F16, {n});
  const uint32_t y = g.input(F16, {n});
  const uint32_t out = g.output(F16, {n});
  g.op(type, {x, y, g.i32(0)}, {out});
  auto r = run_reference(g.build(), {{x, half_tensor(a)}, {y, half_tensor(b)}});
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? bits_of(r->at(out)) : std::vector<uint16_t>{};
}

// Each finite binary16 against a set of second operands: the smallest subnormal, 1, -1, the largest
// finite value, values whose sums and products round (1 + 2^-10, 0.1, 3) and seeded random patterns.
void expect_correctly_rounded(OperationType type, double (*exact)(double, double), bool skip_zero_divisor) {
  std::vector<uint16_t> seconds = {0x0001, 0x3c00, 0xbc00, kLargestFinite, 0x3c01, 0x2e66, 0x4200};
  std::mt19937 rng(16);
  while (seconds.size() < 24) {
    const auto h = static_cast<uint16_t>(rng());
    if (((h >> 10) & 0x1f) != 31) seconds.push_back(h);
  }
  const std::vector<uint16_t> firsts = every_finite_half();
  std::vector<uint16_t> a, b;
  for (uint16_t s : seconds)
    for (uint16_t f : firsts) {
      if (skip_zero_divisor && (s & 0x7fff) == 0) continue;
      a.push_back(f);
      b.push_back(s);
    }
  const std::vector<uint16_t> got = run_binary(type, a, b);
  ASSERT_EQ(got.size(), a.size());
  size_t wrong = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    // Sums and products of binary16 values are exact in double; a quotient is rounded once to 53 bits,
    // which (53 >= 2 × 11 + 2) leaves its binary16 rounding correct.
    const uint16_t want = round_to_binary16(exact(half_value(a[i]), half_value(b[i])));
    if (got[i] != want && ++wrong <= 5)
      ADD_FAILURE() << models::to_string(type) << " 0x" << std::hex << a[i] << ", 0x" << b[i] << ": got 0x"
                    << got[i] << ", want 0x" << want;
  }
  EXPECT_EQ(wrong, 0u) << "of " << a.size();
}

TEST(Fp16, AddSubMulDivAreCorrectlyRoundedBinary16) {
  expect_correctly_rounded(
      OperationType::ADD, [](double x, double y) { return x + y; }, false);
  expect_correctly_rounded(
      OperationType::SUB, [](double x, double y) { return x - y; }, false);
  expect_correctly_rounded(
      OperationType::MUL, [](double x, double y) { return x * y; }, false);
  expect_correctly_rounded(
      OperationType::DIV, [](double x, double y) { return x / y; }, true);
}

// Hand-worked: 65504 + 16 = 65520, halfway to 65536, rounds to even — infinity (overflow).
// 2^-24 + 2^-24 = 2^-23 (subnormals add exactly). 3 × (1 + 2^-10) = 3 + 3·2^-10: in [2, 4) the step is
// 2^-9, so this is 1.5 steps past 3, a tie between 3 + 2^-9 (odd fraction) and 3 + 2^-8 (even): 3.00390625.
// 1 / 3: 0.333251953125 (0x3555), the nearest binary16.
TEST(Fp16, HandWorkedRoundings) {
  EXPECT_EQ(run_binary(OperationType::ADD, {0x7bff, 0x0001}, {0x4c00, 0x0001}),
            (std::vector<uint16_t>{kInfinity, 0x0002}));
  const auto product = run_binary(OperationType::MUL, {0x4200}, {0x3c01});
  ASSERT_EQ(product.size(), 1u);
  EXPECT_EQ(half_value(product[0]), 3.00390625);
  const auto third = run_binary(OperationType::DIV, {0x3c00}, {0x4200});
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0], 0x3555);
  EXPECT_EQ(half_value(0x3555), 0.333251953125);
}

// SQRT over every non-negative finite binary16 (31,744 values): √ of a binary16 is rounded once to 53
// bits in double, then to binary16 — correctly rounded, as above.
TEST(Fp16, SqrtIsCorrectlyRoundedOverEveryValue) {
  std::vector<uint16_t> all;
  for (uint16_t h = 0; h <= kLargestFinite; ++h) all.push_back(h);
  const uint32_t n = static_cast<uint32_t>(all.size());
  GraphBuilder g;
  const uint32_t x = g.input(F16, {n});
  const uint32_t out = g.output(F16, {n});
  g.op(OperationType::SQRT, {x}, {out});
  auto r = run_reference(g.build(), {{x, half_tensor(all)}});
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<uint16_t> got = bits_of(r->at(out));
  ASSERT_EQ(got.size(), all.size());
  size_t wrong = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (got[i] != round_to_binary16(std::sqrt(half_value(all[i]))) && ++wrong <= 5)
      ADD_FAILURE() << "sqrt 0x" << std::hex << all[i] << " = 0x" << got[i];
  EXPECT_EQ(wrong, 0u);
}

// FULLY_CONNECTED sums in binary32 and rounds once: 2048·1 + 1·1 + 1·1 = 2050, a binary16 value (the
// step in [2048, 4096) is 2). Summing in binary16 would give 2048: 2048 + 1 is a tie that rounds to
// even 2048, and so is the next + 1.
TEST(Fp16, FullyConnectedAccumulatesInBinary32) {
  GraphBuilder g;
  const uint32_t x = g.input(F16, {1, 3});
  const uint32_t out = g.output(F16, {1, 1});
  g.op(OperationType::FULLY_CONNECTED,
       {x, g.floats({1, 3}, {1, 1, 1}, F16), g.floats({1}, {0}, F16), g.i32(0)}, {out});
  auto r = run_reference(g.build(), {{x, half_tensor({0x6800, 0x3c00, 0x3c00}, {1, 3})}});  // 2048, 1, 1
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<uint16_t> got = bits_of(r->at(out));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(half_value(got[0]), 2050.0);
}

}  // namespace
}  // namespace npu::hal::ops::test
