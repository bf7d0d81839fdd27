// ONNX import: an ONNX ModelProto (file or bytes) becomes the NNAPI-shaped npu::models::Model.
// What it does: maps each ONNX node to NNAPI operations (float32, or quant8 for QLinear*/Q/DQ graphs),
// folds constant subgraphs (Constant, ConstantOfShape, Shape/Gather/Unsqueeze chains, …) at import,
// folds BatchNormalization into the convolution before it, fuses a Relu/Clip that follows a
// convolution or an elementwise op into its fused activation, and converts ONNX's NCHW activations to
// NNAPI's NHWC (each rank-4 value remembers how its NNAPI operand is permuted, so Transpose nodes are
// free and TRANSPOSE operations appear only where data order matters: Reshape/Flatten, graph outputs).
// Graph inputs and outputs keep ONNX's shapes and element order.
// Graph inputs may be bound at import: a shape for symbolic dimensions (`input_shapes`) or a value
// (`input_values`, e.g. Silero's sample rate), which makes the input a constant so shape chains and
// If nodes whose condition becomes constant fold away (the taken branch is inlined).
// What it does not do: If on a runtime condition, Loop, sequences, external tensor data, truly dynamic
// shapes (an unbound symbolic dimension takes `dynamic_dim`), training ops. An operator it cannot map is one
// error naming the op type and the node; errors never crash, whatever the bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::models {

struct OnnxImportOptions {
  // Also import operators whose NNAPI equivalent has a CPU reference kernel but no NPU path is
  // planned (Div, Floor, ReduceMean, LRN, DepthToSpace, SpaceToDepth): those nodes then run on the
  // CPU device. Without it they are reported as unmapped.
  bool cpu_fallback = false;
  // Value of every symbolic or unknown dimension of a graph input (batch size, sequence length).
  uint32_t dynamic_dim = 1;
  // Graph inputs given a fixed value at import (name → serialised onnx TensorProto): they become
  // constants, so shape inputs, weights and quantisation parameters fold. Used by the node tests.
  std::map<std::string, std::string> constant_inputs;
  // Shapes of graph inputs (name → extents), overriding symbolic and fixed dimensions alike.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Values of graph inputs (name → elements in row-major order, in the input's declared type and
  // shape): the input becomes a constant.
  std::map<std::string, std::vector<double>> input_values;
};

// Parses "NAME=1x16000" (a shape) into `options.input_shapes`, or "NAME=16000" / "NAME=1,2,3" (values)
// into `options.input_values`; errors name the argument.
Result<void> parse_input_shape(const std::string& arg, OnnxImportOptions* options);
Result<void> parse_input_value(const std::string& arg, OnnxImportOptions* options);

struct OnnxImported {
  Model model;
  std::vector<std::string> input_names;       // ONNX name of model.main.input_indexes[i]
  std::vector<std::string> output_names;      // ONNX name of model.main.output_indexes[i]
  std::map<std::string, uint32_t> op_counts;  // ONNX op type → nodes in the file
  uint32_t folded_nodes = 0;                  // nodes computed at import (constant folding)
  std::vector<std::string> cpu_only_nodes;    // "OpType 'name'" imported only through cpu_fallback
};

// Reads and imports a .onnx file. Errors: "<path>: <what>", e.g.
//   m.onnx: node 12 'conv_3' (Conv): group 3 with 8 input channels is not a whole division
Result<OnnxImported> import_onnx_file(const std::string& path, const OnnxImportOptions& options = {});
Result<OnnxImported> import_onnx_bytes(std::string_view bytes, const std::string& source_name,
                                       const OnnxImportOptions& options = {});

// An ONNX TensorProto file (the node tests' input_*.pb / output_*.pb) as a Tensor in ONNX's shape and
// element order. float, uint8 (TENSOR_QUANT8_ASYMM, scale 1), int8, int32 and bool are supported.
Result<Tensor> load_onnx_tensor(const std::string& path);

// ONNX operator types imported as NNAPI operations (not counting the ones only folded as constants);
// with cpu_fallback also those that run on the CPU device.
std::vector<std::string> onnx_mapped_operators(bool cpu_fallback);

// True when `path` names an ONNX file (by its .onnx extension).
bool is_onnx_path(std::string_view path);

}  // namespace npu::models
