#include "npu/common/fixed_point.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace npu::fx {

QuantizedMultiplier quantize_multiplier(double real_multiplier) {
  if (real_multiplier <= 0.0) return {0, 0};
  int exponent = 0;
  const double q = std::frexp(real_multiplier, &exponent);  // q in [0.5, 1)
  auto q_fixed = static_cast<int64_t>(std::llround(q * static_cast<double>(1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) return {0, 0};  // underflows to zero
  return {static_cast<int32_t>(q_fixed), exponent};
}

int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  return static_cast<int32_t>((ab + nudge) / (1LL << 31));
}

int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiply_by_quantized_multiplier(int32_t acc, QuantizedMultiplier qm) {
  // Any left shift of 31 or more saturates every non-zero acc, so capping it changes no result.
  const int left = qm.shift > 0 ? std::min(qm.shift, 31) : 0;
  const int right = qm.shift > 0 ? 0 : std::min(-qm.shift, 31);
  // The left shift may overflow int32 for huge multipliers; saturate as the hardware does.
  const int64_t shifted = static_cast<int64_t>(acc) * (1LL << left);
  const auto clamped = static_cast<int32_t>(std::clamp<int64_t>(shifted, std::numeric_limits<int32_t>::min(),
                                                                std::numeric_limits<int32_t>::max()));
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(clamped, qm.multiplier), right);
}

ClampRange quantized_activation_range(FusedActivation act, float scale, int32_t zero_point, int32_t qmin,
                                      int32_t qmax) {
  auto quantize = [&](float v) { return zero_point + static_cast<int32_t>(std::round(v / scale)); };
  switch (act) {
    case FusedActivation::RELU:
      return {std::max(qmin, quantize(0.0f)), qmax};
    case FusedActivation::RELU6:
      return {std::max(qmin, quantize(0.0f)), std::min(qmax, quantize(6.0f))};
    case FusedActivation::RELU1:
      return {std::max(qmin, quantize(-1.0f)), std::min(qmax, quantize(1.0f))};
    case FusedActivation::NONE:
      break;
  }
  return {qmin, qmax};
}

void float_activation_range(FusedActivation act, float* lo, float* hi) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  switch (act) {
    case FusedActivation::RELU: *lo = 0.0f; *hi = inf; return;
    case FusedActivation::RELU6: *lo = 0.0f; *hi = 6.0f; return;
    case FusedActivation::RELU1: *lo = -1.0f; *hi = 1.0f; return;
    case FusedActivation::NONE: break;
  }
  *lo = -inf;
  *hi = inf;
}

}  // namespace npu::fx
