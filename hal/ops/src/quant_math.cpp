// Definitions for quant_math.h (see there).
#include "npu/hal/ops/quant_math.h"

#include <algorithm>
#include <cmath>

namespace npu::hal::ops {

using models::OperandType;

void quant8_range(OperandType t, int32_t* qmin, int32_t* qmax) {
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    *qmin = -128;
    *qmax = 127;
  } else {
    *qmin = 0;
    *qmax = 255;
  }
}

fx::QuantizedMultiplier safe_multiplier(double real_multiplier) {
  if (!(real_multiplier > 0.0) || !std::isfinite(real_multiplier)) {
    return real_multiplier > 0.0 ? fx::QuantizedMultiplier{1 << 30, 31} : fx::QuantizedMultiplier{0, 0};
  }
  fx::QuantizedMultiplier qm = fx::quantize_multiplier(real_multiplier);
  if (qm.shift > 31) qm.shift = 31;
  return qm;
}

fx::QuantizedMultiplier conv_multiplier(float input_scale, float filter_scale, float output_scale) {
  const double product = input_scale * filter_scale;
  return safe_multiplier(product / static_cast<double>(output_scale));
}

AddSubRescale add_sub_rescale(float a_scale, float b_scale, float out_scale, bool subtract) {
  AddSubRescale r;
  const double twice_max = 2.0 * std::max(a_scale, b_scale);
  r.a = safe_multiplier(a_scale / twice_max);
  r.b = safe_multiplier(b_scale / twice_max);
  if (subtract) r.b.multiplier = -r.b.multiplier;
  r.out = safe_multiplier(twice_max / ((1 << r.left_shift) * static_cast<double>(out_scale)));
  return r;
}

}  // namespace npu::hal::ops
