// FULLY_CONNECTED (NNAPI 1.0–1.3): parameters in lowered form for the compiler. Validation and
// execution live in the kernel (find_kernel(FULLY_CONNECTED)).
//
// NNAPI signature: inputs 0 input (rank 2..4, flattened to [batch_size, input_size]), 1 weights
// [num_units, input_size], 2 bias [num_units], 3 fused activation; output [batch_size, num_units].
//
// Reference arithmetic, per output (b, u):
//   float: acc = 0; for i in input_size: acc += in[b][i] * w[u][i]; acc += bias[u]; clamp.
//   quant8: acc = sum (in - in_zp) * (w - w_zp) + bias[u] (int32, wrapping), requantised with
//           quantize_multiplier(in_scale * w_scale / out_scale), + out_zp, clamped to the activation range.
#pragma once

#include <cstdint>

#include "npu/common/fixed_point.h"
#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::hal::ops {

struct FullyConnectedParams {
  uint32_t batch_size = 0;  // 0 when the input's element count is not known
  uint32_t input_size = 0;
  uint32_t num_units = 0;
  fx::FusedActivation activation = fx::FusedActivation::NONE;
};

// Reads the parameters of a FULLY_CONNECTED operation of `sg`; the activation must be a constant and
// the weights' shape known.
Result<FullyConnectedParams> fully_connected_params(const models::Subgraph& sg, const models::Operation& op);

}  // namespace npu::hal::ops
