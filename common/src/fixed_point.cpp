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

ClampRange quantized_activation_range(FusedActivation act, float scale, int32_t zero_point, int32_t qmin,
                                      int32_t qmax) {
  // A scale that is not positive and finite quantises nothing: the type's full range. In double, and
  // clamped before the conversion, so a tiny scale saturates instead of overflowing int32.
  if (!(scale > 0.0f) || !std::isfinite(scale)) return {qmin, qmax};
  auto quantize = [&](float v) {
    const double q =
        static_cast<double>(zero_point) + std::round(static_cast<double>(v) / static_cast<double>(scale));
    return static_cast<int32_t>(std::clamp(q, static_cast<double>(qmin), static_cast<double>(qmax)));
  };
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
    case FusedActivation::RELU:
      *lo = 0.0f;
      *hi = inf;
      return;
    case FusedActivation::RELU6:
      *lo = 0.0f;
      *hi = 6.0f;
      return;
    case FusedActivation::RELU1:
      *lo = -1.0f;
      *hi = 1.0f;
      return;
    case FusedActivation::NONE:
      break;
  }
  *lo = -inf;
  *hi = inf;
}

}  // namespace npu::fx
