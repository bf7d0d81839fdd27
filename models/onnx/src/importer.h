// Internals of the ONNX importer shared by its source files (not installed): the Importer, the Value it
// tracks per ONNX tensor, and helpers for attributes, windows and shapes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host_tensor.h"
#include "npu/models/onnx_import.h"

namespace npu::models::onnx_import {

using Perm = std::vector<int64_t>;

Perm identity(size_t rank);
inline const Perm kNhwc = {0, 2, 3, 1};  // NNAPI operand dim i holds ONNX (NCHW) dim kNhwc[i]
Perm inverse(const Perm& p);

// An ONNX value during import: a host constant, or an NNAPI operand holding the ONNX tensor with its
// dimensions permuted (operand dim i = ONNX dim perm[i]).
struct Value {
  bool is_const = false;
  HostTensor c;
  uint32_t operand = 0;
  std::vector<int64_t> shape;  // ONNX shape
  Perm perm;
};

Value constant_value(HostTensor t);

// Attributes: the value of the named attribute, or the default when the node has none.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name);
int64_t attr_i(const onnx::NodeProto& n, const char* name, int64_t def);
float attr_f(const onnx::NodeProto& n, const char* name, float def);
std::string attr_s(const onnx::NodeProto& n, const char* name, const std::string& def);
std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const char* name, std::vector<int64_t> def = {});

// A host value as int64, saturating (ONNX uses ±INT64_MAX as "to the end", which a double rounds past).
int64_t to_i64(double d);

// An integer read from a tensor (host values are doubles): a whole number within int64, else an error
// (converting NaN or 1e19 to int64 is undefined behaviour).
Result<int64_t> whole_i64(double d, const std::string& what);

// ONNX element type → NNAPI tensor type for runtime values.
std::optional<OperandType> runtime_type(int32_t t);

// Spatial attributes of Conv / pools for a 2-D window, with auto_pad resolved. pads: top, left,
// bottom, right (ONNX order x1_begin, x2_begin, x1_end, x2_end).
struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t out_h = 0, out_w = 0;
};

Result<Window> window(const onnx::NodeProto& n, int64_t in_h, int64_t in_w, int64_t kh, int64_t kw,
                      bool ceil_mode);

Result<std::vector<int64_t>> axes_of(const std::vector<int64_t>& axes, size_t rank);

// ONNX Reshape target: 0 copies the input extent (unless allowzero), one -1 is inferred.
Result<std::vector<int64_t>> reshape_target(const std::vector<int64_t>& in, const HostTensor& spec,
                                            bool allowzero);

// Flatten's axis lies in [-rank, rank]; the result is a one-element list as axes_of gives.
Result<std::vector<int64_t>> flatten_axis(int64_t axis, size_t rank);

Result<std::vector<int64_t>> unsqueeze_shape(std::vector<int64_t> shape, const std::vector<int64_t>& axes_in);

Result<std::vector<int64_t>> squeeze_shape(const std::vector<int64_t>& shape,
                                           const std::vector<int64_t>& axes_in);

// Squeeze/Unsqueeze axes: an attribute before opset 13, an input from 13.
Result<std::vector<int64_t>> axes_param(const onnx::NodeProto& n, const std::map<std::string, Value>& values);

// ONNX Slice semantics per axis: the first index, the step and the element count.
struct AxisSlice {
  int64_t start = 0, step = 1, count = 0;
};

Result<std::vector<AxisSlice>> slice_plan(const std::vector<int64_t>& shape,
                                          const std::vector<int64_t>& starts,
                                          const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                          std::vector<int64_t> steps);

class Importer;
// A runtime mapping: emits the NNAPI operations of one ONNX node.
using Handler = Result<void> (Importer::*)(const onnx::NodeProto&);

// The inputs of a node whose inputs are all constants (null: an omitted optional input).
struct FoldInputs {
  std::vector<const HostTensor*> t;
  const std::map<std::string, Value>& values;  // Squeeze/Unsqueeze read their axes input by name
  int64_t opset;

  size_t size() const { return t.size(); }
  bool empty() const { return t.empty(); }
  const HostTensor* operator[](size_t i) const { return t[i]; }
  auto begin() const { return t.begin(); }
  auto end() const { return t.end(); }
  // An error unless the first k inputs are present.
  Result<void> need(size_t k) const;
};

// Folds a node into `out`; false when this node does not fold (it is then mapped).
using Folder = Result<bool> (*)(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);

// How the importer treats one ONNX operator. Operators with a handler are the ones
// onnx_mapped_operators() lists; one with only a fold imports only when its inputs are constants.
struct OperatorEntry {
  Handler handler = nullptr;
  Folder fold = nullptr;
  const char* cpu_only = nullptr;  // the NNAPI operation of a handler only the CPU runs (cpu_fallback)
};

// The registration table, ONNX op_type → entry (importer.cpp).
const std::map<std::string, OperatorEntry>& operator_table();

// Constant folds (fold.cpp).
Result<bool> fold_constant(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_shape(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_constant_of_shape(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_identity(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_cast(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_reshape(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_transpose(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_concat(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_gather(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_arithmetic(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_compare(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_not(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_slice(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_quantize(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);
Result<bool> fold_dequantize(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out);

class Importer {
 public:
  Importer(const onnx::ModelProto& proto, const OnnxImportOptions& options) : proto_(proto), opt_(options) {}
  Result<OnnxImported> run();

  friend const std::map<std::string, OperatorEntry>& operator_table();

 private:
  // Graph assembly.
  Result<void> add_graph_input(const onnx::ValueInfoProto& vi);
  Result<void> import_node(const onnx::NodeProto& n);
  Result<void> add_graph_output(const std::string& name);
  void fuse_activations();
  void compact();

  // Operand emission.
  uint32_t add_operand(Operand op);
  uint32_t temp(OperandType t, const std::vector<int64_t>& nnapi_dims, float scale = 0, int32_t zp = 0);
  uint32_t add_const(OperandType t, const std::vector<int64_t>& dims, const std::vector<double>& values,
                     float scale = 0, int32_t zp = 0);
  uint32_t scalar_i32(int32_t v);
  uint32_t scalar_f32(float v);
  uint32_t tensor_i32(const std::vector<int32_t>& v);
  uint32_t op(OperationType t, std::vector<uint32_t> in, std::vector<uint32_t> out, int act_input = -1);

  // Values.
  Result<const Value*> input(const onnx::NodeProto& n, int i, bool required = true);
  Result<HostTensor> const_input(const onnx::NodeProto& n, int i, const char* what);
  // An output the node does not list (fewer than its operator defines) is not defined: output(i) past
  // output_size() reads outside the protobuf field.
  void define(const onnx::NodeProto& n, int i, Value v) {
    if (i < n.output_size() && !n.output(i).empty()) values_[n.output(i)] = std::move(v);
  }
  // The value as an operand whose dims are the ONNX dims permuted by `perm` (TRANSPOSE if needed).
  Result<uint32_t> in_layout(const Value& v, const Perm& perm);
  Value runtime(uint32_t operand, std::vector<int64_t> shape, Perm perm);
  std::vector<int64_t> nnapi_dims(const std::vector<int64_t>& shape, const Perm& perm);
  const Operand& operand(uint32_t i) const { return model_.main.operands[i]; }
  Result<Value> binary(OperationType t, const Value& a, const Value& b, int32_t act = 0);
  // An elementwise one-input operation in the value's own layout.
  Result<Value> unary(OperationType t, const Value& v);
  Result<Value> reshape(const Value& v, const std::vector<int64_t>& shape);
  // Quantisation of a QLinearConv (filter values are the raw integers).
  struct QuantConv {
    OperandType filter_type;
    std::vector<float> w_scales;  // one (per tensor) or M (per channel)
    int32_t w_zp;
    float y_scale;
    int32_t y_zp;
  };
  Result<Value> conv(const Value& x, const HostTensor& w, const std::vector<double>& bias, int64_t group,
                     const Window& win, const QuantConv* q = nullptr);

  // Folding of all-constant nodes.
  Result<bool> fold(const onnx::NodeProto& n);

  // Runtime handlers, one per ONNX operator (or family).
  Result<void> on_conv(const onnx::NodeProto& n);
  Result<void> on_batch_norm(const onnx::NodeProto& n);
  Result<void> on_gemm(const onnx::NodeProto& n);
  Result<void> on_matmul(const onnx::NodeProto& n);
  Result<void> on_unary(const onnx::NodeProto& n);
  Result<void> on_clip(const onnx::NodeProto& n);
  Result<void> on_leaky_relu(const onnx::NodeProto& n);
  Result<void> on_min_max(const onnx::NodeProto& n);
  Result<void> on_pool(const onnx::NodeProto& n);
  Result<void> on_global_pool(const onnx::NodeProto& n);
  Result<void> on_binary(const onnx::NodeProto& n);
  Result<void> on_concat(const onnx::NodeProto& n);
  Result<void> on_reshape(const onnx::NodeProto& n);
  Result<void> on_transpose(const onnx::NodeProto& n);
  Result<void> on_identity(const onnx::NodeProto& n);
  Result<void> on_dropout(const onnx::NodeProto& n);
  Result<void> on_pad(const onnx::NodeProto& n);
  Result<void> on_softmax(const onnx::NodeProto& n);
  Result<void> on_resize(const onnx::NodeProto& n);
  Result<void> on_dequantize(const onnx::NodeProto& n);
  Result<void> on_qlinear_conv(const onnx::NodeProto& n);
  Result<void> on_qlinear_matmul(const onnx::NodeProto& n);
  // The quantisation of a quant8 runtime value: assigned on first use of a raw graph input, else checked.
  Result<void> set_quant(const Value& v, double scale, double zero_point);
  Result<double> const_scalar(const onnx::NodeProto& n, int i, const char* what, double def);
  Result<void> on_lrn(const onnx::NodeProto& n);
  Result<void> on_depth_space(const onnx::NodeProto& n);
  // Operators of the audio models (1-D signal processing, recurrent layers, control flow).
  Result<void> on_if(const onnx::NodeProto& n);
  Result<void> import_graph(const onnx::GraphProto& g);
  Result<void> on_pow(const onnx::NodeProto& n);
  Result<void> on_div(const onnx::NodeProto& n);
  Result<void> on_quantize(const onnx::NodeProto& n);
  Result<void> on_reduce(const onnx::NodeProto& n);
  Result<void> on_cast(const onnx::NodeProto& n);
  Result<void> on_slice(const onnx::NodeProto& n);
  Result<void> on_lstm(const onnx::NodeProto& n);
  Result<Value> conv_1d(const onnx::NodeProto& n, const Value& x, const HostTensor& w,
                        const std::vector<double>& bias, int64_t group);
  // Unsqueeze/Squeeze of a runtime value without moving data: extents of 1 are inserted or removed in
  // the operand's own layout (a RESHAPE), so a permuted value stays permuted.
  Result<Value> reshape_ones(const Value& v, const std::vector<int64_t>& shape);
  Result<void> bind_input_value(const onnx::ValueInfoProto& vi, const std::vector<double>& values);
  uint32_t no_value(OperandType t);

  const onnx::ModelProto& proto_;
  const OnnxImportOptions& opt_;
  int64_t opset_ = 1;
  Model model_;
  OnnxImported result_;
  std::map<std::string, Value> values_;
  std::map<std::string, uint32_t> consumers_;  // ONNX value → nodes (and graph outputs) reading it
  std::set<std::string> graph_outputs_;
  std::map<std::pair<uint32_t, Perm>, uint32_t> transposed_;  // (operand, perm) → TRANSPOSE output
  std::map<uint32_t, int> act_input_;                         // operation → its fused-activation input
  std::set<uint32_t> unassigned_quant_;                       // quant8 graph inputs no operation has read yet
  // Float convolutions by output operand, for folding a BatchNormalization: filter, bias, channel dim.
  struct ConvInfo {
    uint32_t filter, bias, channel_dim;
  };
  std::map<uint32_t, ConvInfo> convs_;
  std::vector<std::string> defaulted_dims_;  // symbolic input dimensions that took dynamic_dim
};

}  // namespace npu::models::onnx_import
