// NNAPI / TFLite quantised arithmetic: the fixed-point multiplier that rescales an int32 accumulator to
// the output scale, and the activation clamp ranges. Shared by the HAL's CPU reference, the compiler
// (which packs multipliers into descriptors) and the simulated NPU's requantisation stage, because NNAPI
// defines the result bit-exactly; the RTL implements the same arithmetic independently in SystemVerilog.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace npu::fx {

// A real multiplier m encoded as quantized_multiplier * 2^(shift - 31), quantized_multiplier in
// [2^30, 2^31) (or 0). shift > 0 is a left shift.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};

// Encodes any non-negative real multiplier (NNAPI 1.2+ allows multipliers >= 1).
QuantizedMultiplier quantize_multiplier(double real_multiplier);

// (a * b * 2) >> 32 with rounding to nearest, saturating the single overflow case.
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  return static_cast<int32_t>((ab + nudge) / (1LL << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero.
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// acc * real_multiplier with the encoded multiplier, exactly as TFLite's MultiplyByQuantizedMultiplier.
// Inline: it runs once per output element of every quantised convolution.
inline int32_t multiply_by_quantized_multiplier(int32_t acc, QuantizedMultiplier qm) {
  // Any left shift of 31 or more saturates every non-zero acc, so capping it changes no result.
  const int left = qm.shift > 0 ? std::min(qm.shift, 31) : 0;
  // Compared before negating: a shift of INT32_MIN (read from a hostile SRAM) has no negation.
  const int right = qm.shift > 0 ? 0 : (qm.shift < -31 ? 31 : -qm.shift);
  // The left shift may overflow int32 for huge multipliers; saturate as the hardware does.
  const int64_t shifted = static_cast<int64_t>(acc) * (1LL << left);
  const auto clamped = static_cast<int32_t>(
      std::clamp<int64_t>(shifted, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(clamped, qm.multiplier), right);
}

// NNAPI fused activation codes.
enum class FusedActivation : int32_t { NONE = 0, RELU = 1, RELU1 = 2, RELU6 = 3 };

struct ClampRange {
  int32_t lo;
  int32_t hi;
};

// Quantised clamp range for an activation on an output of (scale, zero_point) within [qmin, qmax].
ClampRange quantized_activation_range(FusedActivation act, float scale, int32_t zero_point, int32_t qmin,
                                      int32_t qmax);

// Float clamp range for an activation.
void float_activation_range(FusedActivation act, float* lo, float* hi);

}  // namespace npu::fx
