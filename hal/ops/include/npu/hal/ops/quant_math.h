// Quantised-parameter arithmetic shared by the CPU reference kernels and the NPU compiler, which packs
// the same multipliers into descriptors: one definition, so the two devices cannot drift apart.
#pragma once

#include <cstdint>

#include "npu/common/fixed_point.h"
#include "npu/models/model.h"

namespace npu::hal::ops {

// [qmin, qmax] of a quant8 type: [−128, 127] for TENSOR_QUANT8_ASYMM_SIGNED, else [0, 255].
void quant8_range(models::OperandType t, int32_t* qmin, int32_t* qmax);

// fx::quantize_multiplier with the left shift capped at 31. Any shift >= 31 saturates every non-zero
// accumulator in multiply_by_quantized_multiplier, so the cap changes no result; it keeps absurd
// scale ratios (corrupted models) away from a 64-bit shift overflow in the fixed-point helper.
fx::QuantizedMultiplier safe_multiplier(double real_multiplier);

// The real multiplier input_scale * filter_scale / output_scale, encoded for the fixed-point stage
// (the product is formed in float, as NNAPI does).
fx::QuantizedMultiplier conv_multiplier(float input_scale, float filter_scale, float output_scale);

// Quantised ADD/SUB as NNAPI's reference: each input minus its zero point, shifted left by
// `left_shift`, rescaled by its scale / (2·max(scales)) (`b` negated for SUB), summed, then rescaled by
// 2·max / (2^left_shift · out_scale).
struct AddSubRescale {
  int32_t left_shift = 20;
  fx::QuantizedMultiplier a, b, out;
};
AddSubRescale add_sub_rescale(float a_scale, float b_scale, float out_scale, bool subtract);

}  // namespace npu::hal::ops
