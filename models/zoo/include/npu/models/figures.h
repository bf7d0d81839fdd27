// Size figures of a model read off its graph: parameters (elements of constant tensors, omitted values
// included), their bytes, and multiply-accumulates per execution of the compute-heavy operations
// (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, LSTM, com.npusim.llm:MATMUL). Elementwise operations,
// pooling, softmax, rotary embedding and normalisation count no MACs (they are a few per element, negligible
// next to the layers above). It does not infer shapes: operands need their dimensions, as the zoo builds
// them.
#pragma once

#include <cstdint>

#include "npu/models/model.h"

namespace npu::models {

struct ModelFigures {
  uint64_t parameters = 0;       // elements of constant tensors (no scalars, no scale-0 INT32 shape tensors)
  uint64_t parameter_bytes = 0;  // their bytes
  uint64_t macs = 0;             // multiply-accumulates of one execution
  uint32_t operations = 0;
};

ModelFigures model_figures(const Model& model);

}  // namespace npu::models
