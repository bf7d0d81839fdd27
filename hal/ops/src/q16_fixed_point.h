// gemmlowp-style 16-bit fixed point (internal to npu_hal_ops), shared by the quantised LSTM kernels:
// saturating Q0.15 products, exp on negative values, logistic on Q3.12 and tanh on any Qm.(15-m).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "npu/common/fixed_point.h"

namespace npu::hal::ops::detail {

// gemmlowp fixed point on int16 raw values; integer-bit counts are tracked by the caller.
namespace q16 {

constexpr int32_t kMin = std::numeric_limits<int16_t>::min();
constexpr int32_t kMax = std::numeric_limits<int16_t>::max();
constexpr int32_t kOneQ0 = kMax;  // "1" with 0 integer bits

inline int32_t wrap(int32_t v) {
  return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v)));
}
inline int32_t saturate(int32_t v) { return std::clamp(v, kMin, kMax); }
inline int32_t add(int32_t a, int32_t b) { return wrap(a + b); }
inline int32_t sub(int32_t a, int32_t b) { return wrap(a - b); }
inline int32_t neg(int32_t a) { return wrap(-a); }

// (a * b * 2) >> 16 rounded to nearest; the single overflow case (-1 * -1) saturates.
inline int32_t mul(int32_t a, int32_t b) {
  if (a == kMin && b == kMin) return kMax;
  const int32_t ab = a * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (ab + nudge) / (1 << 15);
}

// x * 2^e, saturating for e > 0, rounding to nearest for e < 0.
inline int32_t mul_pot(int32_t x, int e) {
  if (e < 0) return fx::rounding_divide_by_pot(x, -e);
  return saturate(x * (1 << e));
}

// An int32 gemmlowp constant in 16-bit precision (rounded, as gemmlowp rescales its constants).
inline int32_t constant(int32_t raw32) { return fx::rounding_divide_by_pot(raw32, 16); }

// exp(a) for a in [-1/4, 0), Q0.15 in and out.
inline int32_t exp_quarter(int32_t a) {
  const int32_t constant_term = constant(1895147668);  // exp(-1/8)
  const int32_t one_third = constant(715827883);
  const int32_t x = add(a, 1 << 12);  // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = mul_pot(x4, -2);
  const int32_t poly = mul_pot(add(mul(add(x4_over_4, x3), one_third), x2), -1);
  return saturate(constant_term + mul(constant_term, add(x, poly)));
}

// exp(a) for a <= 0 given with `int_bits` integer bits; result Q0.15.
inline int32_t exp_negative(int32_t a, int int_bits) {
  const int frac_bits = 15 - int_bits;
  const int32_t one_quarter = 1 << (frac_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod = sub(a & mask, one_quarter);
  int32_t result = exp_quarter(mul_pot(a_mod, int_bits));
  const int32_t remainder = sub(a_mod, a);
  // exp(-1/4), exp(-1/2), exp(-1), exp(-2), exp(-4), exp(-8), exp(-16) in Q0.31, then to Q0.15.
  // exp(-32) and exp(-64) round to 0 in Q0.31 (cell states with up to 6 integer bits reach them).
  static constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308, 39332535,
                                             720401,     242,        0,         0};
  for (int e = -2; e <= 6; ++e) {
    if (int_bits > e && ((remainder >> (frac_bits + e)) & 1) != 0)
      result = mul(result, constant(kMultipliers[e + 2]));
  }
  if (a == 0) result = kOneQ0;
  return result;
}

// Newton-Raphson estimate of 2 / (1 + a) in Q2.13 for a in [0, 1] (Q0.15).
inline int32_t two_over_one_plus(int32_t a) {
  const int32_t sum = a + kOneQ0;
  const int32_t half_denominator = (sum + (sum >= 0 ? 1 : -1)) / 2;
  const int32_t c48_17 = constant(1515870810);
  const int32_t cneg32_17 = constant(-1010580540);
  int32_t x = add(c48_17, mul(half_denominator, cneg32_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t hx = mul(half_denominator, x);
    const int32_t one_minus = sub(1 << 13, hx);
    x = add(x, mul_pot(mul(x, one_minus), 2));
  }
  return x;
}

// logistic(a), a in Q3.12; result Q0.15.
inline int32_t logistic(int32_t a) {
  if (a == 0) return constant(1 << 30);  // 1/2
  const int32_t abs_a = a > 0 ? a : neg(a);
  const int32_t pos = mul_pot(two_over_one_plus(exp_negative(neg(abs_a), 3)), 1);
  return a > 0 ? pos : sub(kOneQ0, pos);
}

// tanh(a), a with `int_bits` integer bits (Q3.12 by default); result Q0.15.
inline int32_t tanh(int32_t a, int int_bits = 3) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : neg(a);  // -|a|
  // (1 - e) / (1 + e) with e = exp(2n): 2n is the same raw value read with one more integer bit.
  const int32_t t = mul_pot(sub(two_over_one_plus(exp_negative(n, int_bits + 1)), 1 << 13), 2);
  return a < 0 ? neg(t) : t;
}

}  // namespace q16

}  // namespace npu::hal::ops::detail
