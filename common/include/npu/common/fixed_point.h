// NNAPI / TFLite quantised arithmetic: the fixed-point multiplier that rescales an int32 accumulator to
// the output scale, and the activation clamp ranges. Shared by the HAL's CPU reference, the compiler
// (which packs multipliers into descriptors) and the simulated NPU's requantisation stage, because NNAPI
// defines the result bit-exactly; the RTL implements the same arithmetic independently in SystemVerilog.
#pragma once

#include <cstdint>

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
int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b);

// x / 2^exponent rounded to nearest, ties away from zero.
int32_t rounding_divide_by_pot(int32_t x, int exponent);

// acc * real_multiplier with the encoded multiplier, exactly as TFLite's MultiplyByQuantizedMultiplier.
int32_t multiply_by_quantized_multiplier(int32_t acc, QuantizedMultiplier qm);

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
