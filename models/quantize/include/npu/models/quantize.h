// Post-training quantisation: a TENSOR_FLOAT32 model becomes a TENSOR_QUANT8_ASYMM one that the NPU
// runs in int8. Activations are quantised per tensor (asymmetric uint8) from ranges observed on
// calibration inputs; CONV_2D / DEPTHWISE_CONV_2D filters per output channel
// (TENSOR_QUANT8_SYMM_PER_CHANNEL, symmetric), FULLY_CONNECTED weights per tensor (NNAPI has no
// per-channel form there), biases TENSOR_INT32 at input_scale · weight_scale. Operations that NNAPI
// requires to keep their input's quantisation (pools, reshape, transpose, pad, slices) share one range;
// LOGISTIC / TANH / SOFTMAX outputs get NNAPI's fixed parameters.
// What it does not do: run anything itself (calibration takes a runner, e.g. the HAL's CPU
// reference, so this library stays below the HAL), quantisation-aware tuning, int16. Operations without
// a quant8 form (DIV, LOG, LSTM, L2/LRN normalisation…) are errors unless `float_fallback` keeps them in
// float between DEQUANTIZE and QUANTIZE (NNAPI 1.2), the mixed-precision form NNAPI allows.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::models {

using TensorMap = std::map<uint32_t, Tensor>;

struct Range {
  float min = 0.0f;
  float max = 0.0f;
};
using RangeMap = std::map<uint32_t, Range>;  // operand index → observed [min, max]

// Runs a model on inputs and returns its graph outputs (e.g. hal::ops::run_reference).
using ModelRunner = std::function<Result<TensorMap>(const Model&, const TensorMap&)>;

// Seeded uniform inputs in [lo, hi] for every graph input of a float model.
std::vector<TensorMap> synthetic_inputs(const Model& model, uint32_t count, uint64_t seed, float lo,
                                        float hi);

// Runs `model` with every float intermediate exposed as an output on each sample and records the
// range of every float activation (graph inputs, intermediates, outputs).
Result<RangeMap> calibrate(const Model& model, const std::vector<TensorMap>& samples, const ModelRunner& run);

struct QuantizeOptions {
  bool per_channel = true;  // CONV_2D / DEPTHWISE_CONV_2D filters per output channel
  // Keep operations without a quant8 form in float (their inputs DEQUANTIZEd, their outputs QUANTIZEd
  // where a quantised operation reads them) instead of refusing the model.
  bool float_fallback = false;
};

// An error when the model has nothing float to quantise (every tensor already quantised or integer):
// quantising it again would only requantise its int8 values and lose accuracy.
Result<void> check_quantizable(const Model& model);

// Refuses a model check_quantizable refuses.
Result<Model> quantize_model(const Model& model, const RangeMap& ranges, const QuantizeOptions& options = {});

// A float tensor quantised with `desc`'s type/scale/zero point (round to nearest, saturate), and back.
Tensor quantize_tensor(const Tensor& values, const Operand& desc);
Tensor dequantize_tensor(const Tensor& q);

// Float reference vs dequantised int8 outputs, over all outputs' elements.
struct QuantError {
  double max_abs = 0;
  double mse = 0;
  double cosine = 0;  // cosine similarity of the flattened outputs (1 = same direction)
  uint64_t elements = 0;
};
Result<QuantError> compare_quantized(const TensorMap& reference, const TensorMap& quantized);

}  // namespace npu::models
