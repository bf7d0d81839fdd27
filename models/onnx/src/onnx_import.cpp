#include "npu/models/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "host_tensor.h"
#include "npu/common/file_io.h"

namespace npu::models {
namespace {

using namespace onnx_import;
using Perm = std::vector<int64_t>;

Perm identity(size_t rank) {
  Perm p(rank);
  std::iota(p.begin(), p.end(), 0);
  return p;
}
const Perm kNhwc = {0, 2, 3, 1};  // NNAPI operand dim i holds ONNX (NCHW) dim kNhwc[i]

Perm inverse(const Perm& p) {
  Perm q(p.size());
  for (size_t i = 0; i < p.size(); ++i) q[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return q;
}

// An ONNX value during import: a host constant, or an NNAPI operand holding the ONNX tensor with its
// dimensions permuted (operand dim i = ONNX dim perm[i]).
struct Value {
  bool is_const = false;
  HostTensor c;
  uint32_t operand = 0;
  std::vector<int64_t> shape;  // ONNX shape
  Perm perm;
};

Value constant_value(HostTensor t) {
  Value v;
  v.is_const = true;
  v.shape = t.dims;
  v.perm = identity(t.dims.size());
  v.c = std::move(t);
  return v;
}

// --- Attributes -------------------------------------------------------------------------------------

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t attr_i(const onnx::NodeProto& n, const char* name, int64_t def) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : def;
}
float attr_f(const onnx::NodeProto& n, const char* name, float def) {
  const auto* a = find_attr(n, name);
  return a ? a->f() : def;
}
std::string attr_s(const onnx::NodeProto& n, const char* name, const std::string& def) {
  const auto* a = find_attr(n, name);
  return a ? a->s() : def;
}
std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const char* name, std::vector<int64_t> def = {}) {
  const auto* a = find_attr(n, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : def;
}

// A host value as int64, saturating (ONNX uses ±INT64_MAX as "to the end", which a double rounds past).
int64_t to_i64(double d) {
  if (!(d < 9.2e18)) return std::numeric_limits<int64_t>::max() / 2;
  if (!(d > -9.2e18)) return -(std::numeric_limits<int64_t>::max() / 2);
  return static_cast<int64_t>(d);
}

// An integer read from a tensor (host values are doubles): a whole number within int64, else an error
// (converting NaN or 1e19 to int64 is undefined behaviour).
Result<int64_t> whole_i64(double d, const std::string& what) {
  if (!(d >= -9.2e18 && d <= 9.2e18) || d != std::floor(d))
    return make_error(what + ": " + std::to_string(d) + " is not an integer in int64 range");
  return static_cast<int64_t>(d);
}

// ONNX element type → NNAPI tensor type for runtime values.
std::optional<OperandType> runtime_type(int32_t t) {
  switch (t) {
    case kFloat:
      return OperandType::TENSOR_FLOAT32;
    case kUint8:
      return OperandType::TENSOR_QUANT8_ASYMM;
    case kInt8:
      return OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    case kInt32:
      return OperandType::TENSOR_INT32;
    case kBool:
      return OperandType::TENSOR_BOOL8;
    default:
      return std::nullopt;
  }
}

// Spatial attributes of Conv / pools for a 2-D window, with auto_pad resolved. pads: top, left,
// bottom, right (ONNX order x1_begin, x2_begin, x1_end, x2_end).
struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t out_h = 0, out_w = 0;
};

Result<Window> window(const onnx::NodeProto& n, int64_t in_h, int64_t in_w, int64_t kh, int64_t kw,
                      bool ceil_mode) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  const auto strides = attr_ints(n, "strides", {1, 1});
  const auto dil = attr_ints(n, "dilations", {1, 1});
  const auto pads = attr_ints(n, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    return make_error("only 2-D windows are supported (strides, dilations, pads of 2, 2, 4 values)");
  w.sh = strides[0], w.sw = strides[1], w.dh = dil[0], w.dw = dil[1];
  if (w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1 || kh < 1 || kw < 1 || kh > 65535 || kw > 65535 ||
      w.sh > 65535 || w.sw > 65535 || w.dh > 65535 || w.dw > 65535)
    return make_error("kernel, strides and dilations must be in [1, 65535]");
  const int64_t eh = (kh - 1) * w.dh + 1, ew = (kw - 1) * w.dw + 1;
  const std::string auto_pad = attr_s(n, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    w.pt = pads[0], w.pl = pads[1], w.pb = pads[2], w.pr = pads[3];
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    auto split = [&](int64_t in, int64_t s, int64_t e, int64_t* head, int64_t* tail) {
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + e - in);
      *head = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      *tail = total - *head;
    };
    split(in_h, w.sh, eh, &w.pt, &w.pb);
    split(in_w, w.sw, ew, &w.pl, &w.pr);
  } else if (auto_pad != "VALID") {
    return make_error("auto_pad \"" + auto_pad + "\" is not known");
  }
  if (w.pt < 0 || w.pl < 0 || w.pb < 0 || w.pr < 0 || w.pt > 65535 || w.pl > 65535 || w.pb > 65535 ||
      w.pr > 65535)
    return make_error("pads must be in [0, 65535]");
  auto out = [&](int64_t in, int64_t head, int64_t* tail, int64_t s, int64_t e) -> int64_t {
    const int64_t span = in + head + *tail - e;
    if (span < 0) return 0;
    int64_t o = span / s + 1;
    if (ceil_mode && span % s != 0) {
      // ceil: one more window, which must start inside the input or the head padding (ONNX rule).
      if (o * s < in + head) {
        ++o;
        *tail += (o - 1) * s + e - (in + head + *tail);
      }
    }
    return o;
  };
  w.out_h = out(in_h, w.pt, &w.pb, w.sh, eh);
  w.out_w = out(in_w, w.pl, &w.pr, w.sw, ew);
  if (w.out_h < 1 || w.out_w < 1) return make_error("the window is larger than the padded input");
  return w;
}

class Importer;
const std::map<std::string, Result<void> (Importer::*)(const onnx::NodeProto&)>& mapped_operators();
const std::map<std::string, std::pair<Result<void> (Importer::*)(const onnx::NodeProto&), const char*>>&
cpu_only_operators();

class Importer {
 public:
  Importer(const onnx::ModelProto& proto, const OnnxImportOptions& options) : proto_(proto), opt_(options) {}
  Result<OnnxImported> run();

 public:
  using Handler = Result<void> (Importer::*)(const onnx::NodeProto&);
  friend const std::map<std::string, Handler>& mapped_operators();
  friend const std::map<std::string, std::pair<Handler, const char*>>& cpu_only_operators();

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
  std::map<uint32_t, int> act_input_;
  std::set<uint32_t> unassigned_quant_;  // quant8 graph inputs no operation has read yet // operation → its
                                         // fused-activation input
  // Float convolutions by output operand, for folding a BatchNormalization: filter, bias, channel dim.
  struct ConvInfo {
    uint32_t filter, bias, channel_dim;
  };
  std::map<uint32_t, ConvInfo> convs_;
  std::vector<std::string> defaulted_dims_;  // symbolic input dimensions that took dynamic_dim
};

// --- Emission -----------------------------------------------------------------------------------------

uint32_t Importer::add_operand(Operand o) {
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t Importer::temp(OperandType t, const std::vector<int64_t>& dims, float scale, int32_t zp) {
  Operand o;
  o.type = t;
  for (int64_t d : dims) o.dimensions.push_back(static_cast<uint32_t>(d));
  o.scale = scale;
  o.zero_point = zp;
  return add_operand(std::move(o));
}

uint32_t Importer::add_const(OperandType t, const std::vector<int64_t>& dims,
                             const std::vector<double>& values, float scale, int32_t zp) {
  Operand o;
  o.type = t;
  for (int64_t d : dims) o.dimensions.push_back(static_cast<uint32_t>(d));
  o.scale = scale;
  o.zero_point = zp;
  o.lifetime = Lifetime::CONSTANT_COPY;
  o.data.resize(values.size() * element_size(t));
  for (size_t i = 0; i < values.size(); ++i) write_element(t, o.data, i, values[i]);
  return add_operand(std::move(o));
}

uint32_t Importer::scalar_i32(int32_t v) {
  return add_const(OperandType::INT32, {}, {static_cast<double>(v)});
}
uint32_t Importer::scalar_f32(float v) { return add_const(OperandType::FLOAT32, {}, {v}); }
uint32_t Importer::tensor_i32(const std::vector<int32_t>& v) {
  return add_const(OperandType::TENSOR_INT32, {static_cast<int64_t>(v.size())},
                   std::vector<double>(v.begin(), v.end()));
}

uint32_t Importer::op(OperationType t, std::vector<uint32_t> in, std::vector<uint32_t> out, int act_input) {
  model_.main.operations.push_back({t, std::move(in), std::move(out)});
  const auto index = static_cast<uint32_t>(model_.main.operations.size() - 1);
  if (act_input >= 0) act_input_[index] = act_input;
  return index;
}

std::vector<int64_t> Importer::nnapi_dims(const std::vector<int64_t>& shape, const Perm& perm) {
  std::vector<int64_t> d;
  for (int64_t p : perm) d.push_back(shape[static_cast<size_t>(p)]);
  return d;
}

Value Importer::runtime(uint32_t operand_index, std::vector<int64_t> shape, Perm perm) {
  Value v;
  v.operand = operand_index;
  v.shape = std::move(shape);
  v.perm = std::move(perm);
  return v;
}

Result<const Value*> Importer::input(const onnx::NodeProto& n, int i, bool required) {
  if (i >= n.input_size() || n.input(i).empty()) {
    if (required) return make_error("input " + std::to_string(i) + " is missing");
    return static_cast<const Value*>(nullptr);
  }
  const auto it = values_.find(n.input(i));
  if (it == values_.end())
    return make_error("input " + std::to_string(i) + " '" + n.input(i) + "' is not defined before the node");
  return &it->second;
}

Result<HostTensor> Importer::const_input(const onnx::NodeProto& n, int i, const char* what) {
  auto v = input(n, i);
  if (!v) return make_error(v.error());
  if (!(*v)->is_const)
    return make_error(std::string(what) + " (input " + std::to_string(i) + ") must be a constant");
  return (*v)->c;
}

Result<uint32_t> Importer::in_layout(const Value& v, const Perm& perm) {
  if (perm.size() > 4 || v.shape.size() > 4)
    return make_error("tensors of rank " + std::to_string(v.shape.size()) +
                      " are not supported (NNAPI: rank <= 4)");
  for (int64_t d : v.shape)
    if (d < 1 || d > std::numeric_limits<uint32_t>::max())
      return make_error("dimension " + std::to_string(d) + " is not supported");
  if (v.is_const) {
    auto t = runtime_type(v.c.type);
    if (!t) return make_error("constant of type " + type_name(v.c.type) + " cannot be an operand");
    const HostTensor c = transpose(v.c, perm);
    return add_const(*t, c.dims, c.v, *t == OperandType::TENSOR_QUANT8_ASYMM ? 1.0f : 0.0f);
  }
  unassigned_quant_.erase(v.operand);  // read as it is: its quantisation is now fixed
  if (v.perm == perm) return v.operand;
  const auto key = std::make_pair(v.operand, perm);
  if (const auto it = transposed_.find(key); it != transposed_.end()) return it->second;
  // Only extents of 1 move: the element order is unchanged, so a RESHAPE (which the NPU copies) does it.
  auto non_one_axes = [&](const Perm& p) {
    Perm axes;
    for (int64_t k : p)
      if (v.shape[static_cast<size_t>(k)] != 1) axes.push_back(k);
    return axes;
  };
  if (non_one_axes(v.perm) == non_one_axes(perm)) {
    const Operand& src = operand(v.operand);
    const std::vector<int64_t> dims = nnapi_dims(v.shape, perm);
    const uint32_t out = temp(src.type, dims, src.scale, src.zero_point);
    op(OperationType::RESHAPE, {v.operand, tensor_i32(std::vector<int32_t>(dims.begin(), dims.end()))},
       {out});
    transposed_[key] = out;
    return out;
  }
  // Operand dim k holds ONNX dim v.perm[k]; target dim i needs ONNX dim perm[i] = operand dim inv[perm[i]].
  const Perm inv = inverse(v.perm);
  std::vector<int32_t> t;
  for (int64_t p : perm) t.push_back(static_cast<int32_t>(inv[static_cast<size_t>(p)]));
  const Operand& src = operand(v.operand);
  const uint32_t out = temp(src.type, nnapi_dims(v.shape, perm), src.scale, src.zero_point);
  op(OperationType::TRANSPOSE, {v.operand, tensor_i32(t)}, {out});
  transposed_[key] = out;
  return out;
}

Result<Value> Importer::reshape(const Value& v, const std::vector<int64_t>& shape) {
  if (shape.size() > 4)
    return make_error("reshape to rank " + std::to_string(shape.size()) +
                      " is not supported (NNAPI: rank <= 4)");
  if (shape.empty() && !v.is_const)
    return make_error("reshape of a runtime value to rank 0 is not supported (NNAPI tensors have rank >= 1)");
  auto x = in_layout(v, identity(v.shape.size()));
  if (!x) return make_error(x.error());
  const Operand& src = operand(*x);
  const uint32_t out = temp(src.type, shape, src.scale, src.zero_point);
  std::vector<int32_t> s(shape.begin(), shape.end());
  op(OperationType::RESHAPE, {*x, tensor_i32(s)}, {out});
  return runtime(out, shape, identity(shape.size()));
}

// Elementwise a (op) b with numpy broadcasting. Operands keep a shared permuted layout when they have
// one; a constant is laid out to match the runtime side.
Result<Value> Importer::binary(OperationType t, const Value& a, const Value& b, int32_t act) {
  auto shape = broadcast_shape(a.shape, b.shape);
  if (!shape) return make_error(shape.error());
  const size_t rank = shape->size();
  if (rank > 4) return make_error("rank " + std::to_string(rank) + " is not supported (NNAPI: rank <= 4)");
  Perm perm = identity(rank);
  if (a.is_const && b.is_const) return make_error("operations on two constants are not supported here");
  const Value& r = a.is_const ? b : a;
  if (r.shape.size() == rank && (a.is_const || b.is_const || (a.perm == b.perm && b.shape.size() == rank)))
    perm = r.perm;
  auto lay = [&](const Value& v) -> Result<uint32_t> {
    if (!v.is_const) {
      if (v.shape.size() != rank && perm != identity(rank)) return make_error("internal: layout mismatch");
      return in_layout(v, v.shape.size() == rank ? perm : identity(v.shape.size()));
    }
    HostTensor c = v.c;
    c.dims.insert(c.dims.begin(), rank - c.dims.size(), 1);
    cast_to(&c, kFloat);
    Value padded = constant_value(std::move(c));
    if (operand(r.operand).type != OperandType::TENSOR_FLOAT32)
      return make_error(
          "integer elementwise arithmetic is not supported (ONNX wraps integers, NNAPI quant8 rescales)");
    return in_layout(padded, perm);
  };
  auto x = lay(a);
  if (!x) return make_error(x.error());
  auto y = lay(b);
  if (!y) return make_error(y.error());
  const Operand& src = operand(r.operand);
  const uint32_t out = temp(src.type, nnapi_dims(*shape, perm), src.scale, src.zero_point);
  if (t == OperationType::MAXIMUM || t == OperationType::MINIMUM || t == OperationType::POW)
    op(t, {*x, *y}, {out});  // NNAPI 1.2 binary operations have no fused activation
  else
    op(t, {*x, *y, scalar_i32(act)}, {out}, 2);
  return runtime(out, *shape, perm);
}

Result<Value> Importer::reshape_ones(const Value& v, const std::vector<int64_t>& shape) {
  if (shape.size() > 4)
    return make_error("rank " + std::to_string(shape.size()) + " is not supported (NNAPI: rank <= 4)");
  if (v.is_const) {
    Value c = v;
    c.c.dims = c.shape = shape;
    c.perm = identity(shape.size());
    return c;
  }
  if (shape.empty())
    return make_error("squeeze of a runtime value to rank 0 is not supported (NNAPI tensors have rank >= 1)");
  // The j-th non-1 axis of the old shape is the j-th non-1 axis of the new one.
  std::vector<int64_t> new_axis(v.shape.size(), -1);
  std::vector<bool> used(shape.size(), false);
  size_t j = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == 1) continue;
    while (j < shape.size() && shape[j] == 1) ++j;
    if (j == shape.size() || shape[j] != v.shape[i]) return make_error("internal: not a reshape of ones");
    new_axis[i] = static_cast<int64_t>(j);
    used[j++] = true;
  }
  Perm perm;
  for (int64_t k : v.perm)
    if (new_axis[static_cast<size_t>(k)] >= 0) perm.push_back(new_axis[static_cast<size_t>(k)]);
  for (size_t k = 0; k < shape.size(); ++k)
    if (!used[k]) perm.push_back(static_cast<int64_t>(k));
  const std::vector<int64_t> dims = nnapi_dims(shape, perm);
  const Operand& src = operand(v.operand);
  if (std::vector<uint32_t>(dims.begin(), dims.end()) == src.dimensions)
    return runtime(v.operand, shape, perm);
  unassigned_quant_.erase(v.operand);
  const uint32_t out = temp(src.type, dims, src.scale, src.zero_point);
  std::vector<int32_t> d(dims.begin(), dims.end());
  op(OperationType::RESHAPE, {v.operand, tensor_i32(d)}, {out});
  return runtime(out, shape, perm);
}

// --- Folding ------------------------------------------------------------------------------------------

Result<std::vector<int64_t>> axes_of(const std::vector<int64_t>& axes, size_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    const int64_t r = static_cast<int64_t>(rank);
    if (a < -r || a >= r)
      return make_error("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    out.push_back(a < 0 ? a + r : a);
  }
  return out;
}

// ONNX Reshape target: 0 copies the input extent (unless allowzero), one -1 is inferred.
Result<std::vector<int64_t>> reshape_target(const std::vector<int64_t>& in, const HostTensor& spec,
                                            bool allowzero) {
  std::vector<int64_t> out;
  int infer = -1;
  uint64_t known = 1;
  auto total = element_count(in);
  if (!total) return make_error(total.error());
  for (size_t i = 0; i < spec.v.size(); ++i) {
    const auto entry = whole_i64(spec.v[i], "shape entry");
    if (!entry) return make_error(entry.error());
    int64_t d = *entry;
    if (d == 0 && !allowzero) {
      if (i >= in.size())
        return make_error("shape entry 0 at " + std::to_string(i) + " has no input extent to copy");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return make_error("shape has more than one -1");
      infer = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) return make_error("shape entry " + std::to_string(d) + " is invalid");
    if (d != 0 && known > kMaxHostElements / static_cast<uint64_t>(d))
      return make_error("shape is too large");
    known *= static_cast<uint64_t>(d);
    out.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || *total % known != 0) return make_error("cannot infer -1 in shape " + dims_string(out));
    out[static_cast<size_t>(infer)] = static_cast<int64_t>(*total / known);
  } else if (known != *total) {
    return make_error("shape " + dims_string(out) + " does not hold the " + std::to_string(*total) +
                      " input elements");
  }
  return out;
}

// Flatten's axis lies in [-rank, rank]; the result is a one-element list as axes_of gives.
Result<std::vector<int64_t>> flatten_axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis > r)
    return make_error("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return std::vector<int64_t>{axis < 0 ? axis + r : axis};
}

Result<std::vector<int64_t>> unsqueeze_shape(std::vector<int64_t> shape,
                                             const std::vector<int64_t>& axes_in) {
  auto axes = axes_of(axes_in, shape.size() + axes_in.size());
  if (!axes) return make_error(axes.error());
  std::sort(axes->begin(), axes->end());
  for (int64_t a : *axes) shape.insert(shape.begin() + a, 1);
  return shape;
}

Result<std::vector<int64_t>> squeeze_shape(const std::vector<int64_t>& shape,
                                           const std::vector<int64_t>& axes_in) {
  std::vector<int64_t> out;
  auto axes = axes_of(axes_in, shape.size());
  if (!axes) return make_error(axes.error());
  for (size_t i = 0; i < shape.size(); ++i) {
    const bool listed = std::find(axes->begin(), axes->end(), static_cast<int64_t>(i)) != axes->end();
    if (listed && shape[i] != 1)
      return make_error("cannot squeeze axis " + std::to_string(i) + " of extent " +
                        std::to_string(shape[i]));
    if (!(listed || (axes->empty() && shape[i] == 1))) out.push_back(shape[i]);
  }
  return out;
}

// Squeeze/Unsqueeze axes: an attribute before opset 13, an input from 13.
Result<std::vector<int64_t>> axes_param(const onnx::NodeProto& n,
                                        const std::map<std::string, Value>& values) {
  if (find_attr(n, "axes")) return attr_ints(n, "axes");
  if (n.input_size() < 2 || n.input(1).empty()) return std::vector<int64_t>{};
  const auto it = values.find(n.input(1));
  if (it == values.end() || !it->second.is_const) return make_error("axes (input 1) must be a constant");
  std::vector<int64_t> axes;
  for (double d : it->second.c.v) {
    auto a = whole_i64(d, "axes");
    if (!a) return make_error(a.error());
    axes.push_back(*a);
  }
  return axes;
}

// ONNX Slice semantics per axis: the first index, the step and the element count.
struct AxisSlice {
  int64_t start = 0, step = 1, count = 0;
};

Result<std::vector<AxisSlice>> slice_plan(const std::vector<int64_t>& shape,
                                          const std::vector<int64_t>& starts,
                                          const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                          std::vector<int64_t> steps) {
  if (ends.size() != starts.size()) return make_error("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return make_error("axes and steps must match starts in length");
  auto ax = axes_of(axes, shape.size());
  if (!ax) return make_error(ax.error());
  std::vector<AxisSlice> plan(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) plan[k] = {0, 1, shape[k]};
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t d = shape[static_cast<size_t>((*ax)[i])], step = steps[i];
    if (step == 0) return make_error("step 0");
    // Clamp first: ends like INT64_MAX / -INT64_MAX mean "to the end" in either direction.
    int64_t b = std::clamp<int64_t>(starts[i], -d - 1, d + 1),
            e = std::clamp<int64_t>(ends[i], -d - 1, d + 1);
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
    }
    const int64_t count = step > 0 ? (e - b + step - 1) / step : (b - e + (-step) - 1) / (-step);
    if (count <= 0) return make_error("the slice is empty");
    plan[static_cast<size_t>((*ax)[i])] = {b, step, count};
  }
  return plan;
}

Result<bool> Importer::fold(const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  std::vector<const HostTensor*> in;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) {
      in.push_back(nullptr);
      continue;
    }
    const auto it = values_.find(n.input(i));
    if (it == values_.end())
      return make_error("input " + std::to_string(i) + " '" + n.input(i) +
                        "' is not defined before the node");
    if (!it->second.is_const) return false;  // a runtime input: mapped (Shape is handled by the caller)
    in.push_back(&it->second.c);
  }
  auto need = [&](size_t k) -> Result<void> {
    if (in.size() < k ||
        std::any_of(in.begin(), in.begin() + static_cast<long>(k), [](auto* p) { return p == nullptr; }))
      return make_error("expects " + std::to_string(k) + " inputs");
    return {};
  };
  if (n.output_size() < 1) return make_error("has no output");
  HostTensor out;
  if (t == "Constant") {
    const auto* a = find_attr(n, "value");
    if (a && a->has_t()) {
      auto c = from_proto(a->t());
      if (!c) return make_error("value: " + c.error());
      out = std::move(*c);
    } else if ((a = find_attr(n, "value_float"))) {
      out.v = {a->f()};
    } else if ((a = find_attr(n, "value_int"))) {
      out.type = kInt64, out.v = {static_cast<double>(a->i())};
    } else if ((a = find_attr(n, "value_ints"))) {
      out.type = kInt64, out.dims = {a->ints_size()};
      for (int64_t i : a->ints()) out.v.push_back(static_cast<double>(i));
    } else if ((a = find_attr(n, "value_floats"))) {
      out.dims = {a->floats_size()};
      for (float f : a->floats()) out.v.push_back(f);
    } else {
      return make_error("has no supported value attribute");
    }
  } else if (t == "Shape") {
    if (auto r = need(1); !r) return make_error(r.error());
    out.type = kInt64;
    out.dims = {static_cast<int64_t>(in[0]->dims.size())};
    for (int64_t d : in[0]->dims) out.v.push_back(static_cast<double>(d));
  } else if (t == "ConstantOfShape") {
    if (auto r = need(1); !r) return make_error(r.error());
    for (double d : in[0]->v) {
      auto e = whole_i64(d, "shape");
      if (!e) return make_error(e.error());
      out.dims.push_back(*e);
    }
    auto count = element_count(out.dims);
    if (!count) return make_error(count.error());
    double fill = 0;
    if (const auto* a = find_attr(n, "value"); a && a->has_t()) {
      auto c = from_proto(a->t());
      if (!c || c->v.size() != 1) return make_error("value must be a one-element tensor");
      out.type = c->type;
      fill = c->v[0];
    }
    out.v.assign(*count, fill);
  } else if (t == "Identity") {
    if (auto r = need(1); !r) return make_error(r.error());
    out = *in[0];
  } else if (t == "Cast") {
    if (auto r = need(1); !r) return make_error(r.error());
    out = *in[0];
    cast_to(&out, static_cast<int32_t>(attr_i(n, "to", kFloat)));
  } else if (t == "Reshape" || t == "Flatten" || t == "Squeeze" || t == "Unsqueeze") {
    if (auto r = need(1); !r) return make_error(r.error());
    out = *in[0];
    Result<std::vector<int64_t>> shape = std::vector<int64_t>{};
    if (t == "Reshape") {
      if (auto r = need(2); !r) return make_error(r.error());
      shape = reshape_target(in[0]->dims, *in[1], attr_i(n, "allowzero", 0) != 0);
    } else if (t == "Flatten") {
      auto axis = flatten_axis(attr_i(n, "axis", 1), in[0]->dims.size());
      if (!axis) return make_error(axis.error());
      int64_t outer = 1, inner = 1;
      for (size_t i = 0; i < in[0]->dims.size(); ++i)
        (static_cast<int64_t>(i) < (*axis)[0] ? outer : inner) *= in[0]->dims[i];
      shape = std::vector<int64_t>{outer, inner};
    } else {
      auto axes = axes_param(n, values_);
      if (!axes) return make_error(axes.error());
      shape = t == "Squeeze" ? squeeze_shape(in[0]->dims, *axes) : unsqueeze_shape(in[0]->dims, *axes);
    }
    if (!shape) return make_error(shape.error());
    out.dims = *shape;
  } else if (t == "Transpose") {
    if (auto r = need(1); !r) return make_error(r.error());
    Perm perm = attr_ints(n, "perm");
    if (perm.empty())
      for (size_t i = in[0]->dims.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    Perm sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != identity(in[0]->dims.size()))
      return make_error("perm is not a permutation of the input's axes");
    out = transpose(*in[0], perm);
  } else if (t == "Concat") {
    if (in.empty() || in[0] == nullptr) return make_error("expects inputs");
    auto axis = axes_of({attr_i(n, "axis", 0)}, in[0]->dims.size());
    if (!axis) return make_error(axis.error());
    const auto ax = static_cast<size_t>((*axis)[0]);
    out.type = in[0]->type;
    out.dims = in[0]->dims;
    out.dims[ax] = 0;
    for (const auto* p : in) {
      if (p == nullptr || p->dims.size() != in[0]->dims.size())
        return make_error("inputs must have the same rank");
      for (size_t k = 0; k < p->dims.size(); ++k)
        if (k != ax && p->dims[k] != in[0]->dims[k])
          return make_error("input shapes differ off the concat axis");
      out.dims[ax] += p->dims[ax];
    }
    uint64_t outer = 1;
    for (size_t k = 0; k < ax; ++k) outer *= static_cast<uint64_t>(out.dims[k]);
    for (uint64_t o = 0; o < outer; ++o)
      for (const auto* p : in) {
        const uint64_t chunk = outer ? p->v.size() / outer : 0;
        out.v.insert(out.v.end(), p->v.begin() + static_cast<long>(o * chunk),
                     p->v.begin() + static_cast<long>((o + 1) * chunk));
      }
  } else if (t == "Gather") {
    if (auto r = need(2); !r) return make_error(r.error());
    const HostTensor& d = *in[0];
    auto axis = axes_of({attr_i(n, "axis", 0)}, d.dims.size());
    if (!axis) return make_error(axis.error());
    const auto ax = static_cast<size_t>((*axis)[0]);
    uint64_t outer = 1, inner = 1;
    for (size_t k = 0; k < ax; ++k) outer *= static_cast<uint64_t>(d.dims[k]);
    for (size_t k = ax + 1; k < d.dims.size(); ++k) inner *= static_cast<uint64_t>(d.dims[k]);
    out.type = d.type;
    out.dims.assign(d.dims.begin(), d.dims.begin() + static_cast<long>(ax));
    out.dims.insert(out.dims.end(), in[1]->dims.begin(), in[1]->dims.end());
    out.dims.insert(out.dims.end(), d.dims.begin() + static_cast<long>(ax) + 1, d.dims.end());
    const int64_t extent = d.dims[ax];
    for (uint64_t o = 0; o < outer; ++o)
      for (double idx : in[1]->v) {
        auto k = static_cast<int64_t>(idx);
        if (k < 0) k += extent;
        if (k < 0 || k >= extent)
          return make_error("index " + std::to_string(static_cast<int64_t>(idx)) + " out of range");
        const uint64_t base = (o * static_cast<uint64_t>(extent) + static_cast<uint64_t>(k)) * inner;
        out.v.insert(out.v.end(), d.v.begin() + static_cast<long>(base),
                     d.v.begin() + static_cast<long>(base + inner));
      }
  } else if (t == "Add" || t == "Sub" || t == "Mul" || t == "Div") {
    if (auto r = need(2); !r) return make_error(r.error());
    auto shape = broadcast_shape(in[0]->dims, in[1]->dims);
    if (!shape) return make_error(shape.error());
    if (auto c = element_count(*shape); !c) return make_error(c.error());
    const HostTensor a = broadcast_to(*in[0], *shape), b = broadcast_to(*in[1], *shape);
    out = a;
    const bool integer = a.type != kFloat && a.type != kDouble && a.type != kFloat16;
    for (size_t i = 0; i < out.v.size(); ++i) {
      const double x = a.v[i], y = b.v[i];
      if (t == "Add")
        out.v[i] = x + y;
      else if (t == "Sub")
        out.v[i] = x - y;
      else if (t == "Mul")
        out.v[i] = x * y;
      else if (integer && y == 0)
        return make_error("integer division by zero");
      else
        out.v[i] = integer ? std::trunc(x / y) : x / y;
    }
    cast_to(&out, a.type);
  } else if (t == "Equal" || t == "Less" || t == "Greater") {
    if (auto r = need(2); !r) return make_error(r.error());
    auto shape = broadcast_shape(in[0]->dims, in[1]->dims);
    if (!shape) return make_error(shape.error());
    const HostTensor a = broadcast_to(*in[0], *shape), b = broadcast_to(*in[1], *shape);
    out.type = kBool;
    out.dims = *shape;
    for (size_t i = 0; i < a.v.size(); ++i)
      out.v.push_back(t == "Equal" ? a.v[i] == b.v[i] : t == "Less" ? a.v[i] < b.v[i] : a.v[i] > b.v[i]);
  } else if (t == "Not") {
    if (auto r = need(1); !r) return make_error(r.error());
    out = *in[0];
    for (double& v : out.v) v = v == 0;
  } else if (t == "Slice" && opset_ >= 10) {
    if (auto r = need(3); !r) return make_error(r.error());
    auto ints = [&](size_t i) {
      std::vector<int64_t> v;
      if (i < in.size() && in[i])
        for (double d : in[i]->v) v.push_back(to_i64(d));
      return v;
    };
    auto plan = slice_plan(in[0]->dims, ints(1), ints(2), ints(3), ints(4));
    if (!plan) return make_error(plan.error());
    out.type = in[0]->type;
    for (const auto& a : *plan) out.dims.push_back(a.count);
    auto count = element_count(out.dims);
    if (!count) return make_error(count.error());
    const std::vector<uint64_t> src_strides = strides_of(in[0]->dims), dst_strides = strides_of(out.dims);
    for (uint64_t i = 0; i < *count; ++i) {
      uint64_t src = 0;
      for (size_t k = 0; k < out.dims.size(); ++k) {
        const auto c = static_cast<int64_t>((i / dst_strides[k]) % static_cast<uint64_t>(out.dims[k]));
        src += static_cast<uint64_t>((*plan)[k].start + c * (*plan)[k].step) * src_strides[k];
      }
      out.v.push_back(in[0]->v[src]);
    }
  } else if (t == "QuantizeLinear") {
    if (auto r = need(2); !r) return make_error(r.error());
    const HostTensor* z = in.size() > 2 ? in[2] : nullptr;
    if (in[1]->v.size() != 1 || (z && z->v.size() != 1) || in[1]->v[0] == 0)
      return make_error("per-axis QuantizeLinear of a constant is not supported");
    out.dims = in[0]->dims;
    for (double f : in[0]->v) out.v.push_back(std::nearbyint(f / in[1]->v[0]) + (z ? z->v[0] : 0));
    const int32_t type = z ? z->type : kUint8;
    const double lo = type == kInt8 ? -128 : 0, hi = type == kInt8 ? 127 : 255;
    for (double& v : out.v) v = std::clamp(v, lo, hi);
    out.type = type;
  } else if (t == "DequantizeLinear") {
    if (auto r = need(2); !r) return make_error(r.error());
    const HostTensor& x = *in[0];
    const HostTensor& s = *in[1];
    const HostTensor* z = in.size() > 2 ? in[2] : nullptr;
    if (s.v.size() != 1 || (z && z->v.size() != 1))
      return make_error("per-axis DequantizeLinear of a constant is not supported");
    out.dims = x.dims;
    for (double q : x.v) out.v.push_back((q - (z ? z->v[0] : 0)) * s.v[0]);
    cast_to(&out, kFloat);
  } else {
    return false;
  }
  ++result_.folded_nodes;
  define(n, 0, constant_value(std::move(out)));
  return true;
}

// --- Handlers -----------------------------------------------------------------------------------------

Result<Value> Importer::conv(const Value& x, const HostTensor& w, const std::vector<double>& bias,
                             int64_t group, const Window& win, const QuantConv* q) {
  const int64_t c = x.shape[1], m = w.dims[0], cg = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  auto xin = in_layout(x, kNhwc);  // a constant X becomes an operand here: only then has it one
  if (!xin) return make_error(xin.error());
  const float x_scale = operand(*xin).scale;
  const std::vector<int64_t> out_shape = {x.shape[0], m, win.out_h, win.out_w};
  const OperandType out_type = operand(*xin).type;
  const bool depthwise = group == c && cg == 1 && group != 1;
  if (group == 1 || depthwise) {
    // ONNX [M, C/g, kh, kw] → NNAPI CONV_2D [M, kh, kw, C] or DEPTHWISE_CONV_2D [1, kh, kw, M]
    // (depth multiplier M / C); the output channel is dimension 0 or 3 of the filter.
    const HostTensor f = transpose(w, depthwise ? Perm{1, 2, 3, 0} : Perm{0, 2, 3, 1});
    const uint32_t channel_dim = depthwise ? 3 : 0;
    uint32_t filter = 0, b = 0;
    if (q == nullptr) {
      filter = add_const(OperandType::TENSOR_FLOAT32, f.dims, f.v);
      b = add_const(OperandType::TENSOR_FLOAT32, {m}, bias);
    } else if (q->w_scales.size() > 1 || q->filter_type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      filter = add_const(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, f.dims, f.v);
      PerChannelQuant pc;
      pc.channel_dim = channel_dim;
      pc.scales =
          q->w_scales.size() == 1 ? std::vector<float>(static_cast<size_t>(m), q->w_scales[0]) : q->w_scales;
      model_.main.operands[filter].per_channel = std::move(pc);
      b = add_const(OperandType::TENSOR_INT32, {m}, bias);  // scale 0: input scale × channel scale
    } else {
      filter = add_const(q->filter_type, f.dims, f.v, q->w_scales[0], q->w_zp);
      b = add_const(OperandType::TENSOR_INT32, {m}, bias, x_scale * q->w_scales[0]);
    }
    const uint32_t out = temp(out_type, nnapi_dims(out_shape, kNhwc), q ? q->y_scale : 0.0f, q ? q->y_zp : 0);
    std::vector<uint32_t> in = {*xin, filter, b};
    for (int64_t v : {win.pl, win.pr, win.pt, win.pb, win.sw, win.sh})
      in.push_back(scalar_i32(static_cast<int32_t>(v)));
    if (depthwise) in.push_back(scalar_i32(static_cast<int32_t>(m / c)));
    const int act = static_cast<int>(in.size());
    in.push_back(scalar_i32(0));
    if (win.dh != 1 || win.dw != 1) {
      in.push_back(add_const(OperandType::BOOL, {}, {0}));
      in.push_back(scalar_i32(static_cast<int32_t>(win.dw)));
      in.push_back(scalar_i32(static_cast<int32_t>(win.dh)));
    }
    op(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, in, {out}, act);
    if (q == nullptr) convs_[out] = {filter, b, channel_dim};
    return runtime(out, out_shape, kNhwc);
  }
  if (q != nullptr) return make_error("grouped quantised convolution is not supported");
  // Grouped: NNAPI 1.1 has no GROUPED_CONV_2D kernel on the CPU reference, so each group is a channel
  // slice (STRIDED_SLICE), a CONV_2D the NPU can run, and the groups are concatenated.
  const int64_t mg = m / group;
  std::vector<uint32_t> parts;
  const auto xd = nnapi_dims(x.shape, kNhwc);
  for (int64_t g = 0; g < group; ++g) {
    const uint32_t slice = temp(OperandType::TENSOR_FLOAT32, {xd[0], xd[1], xd[2], cg});
    op(OperationType::STRIDED_SLICE,
       {*xin, tensor_i32({0, 0, 0, static_cast<int32_t>(g * cg)}),
        tensor_i32({static_cast<int32_t>(xd[0]), static_cast<int32_t>(xd[1]), static_cast<int32_t>(xd[2]),
                    static_cast<int32_t>((g + 1) * cg)}),
        tensor_i32({1, 1, 1, 1}), scalar_i32(0), scalar_i32(0), scalar_i32(0)},
       {slice});
    HostTensor wg;
    wg.dims = {mg, cg, kh, kw};
    const uint64_t per = static_cast<uint64_t>(mg * cg * kh * kw);
    wg.v.assign(w.v.begin() + static_cast<long>(g * per), w.v.begin() + static_cast<long>((g + 1) * per));
    const std::vector<double> bg(bias.begin() + g * mg, bias.begin() + (g + 1) * mg);
    Value xs = runtime(slice, {x.shape[0], cg, x.shape[2], x.shape[3]}, kNhwc);
    auto part = conv(xs, wg, bg, 1, win);
    if (!part) return make_error(part.error());
    parts.push_back(part->operand);
  }
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims(out_shape, kNhwc));
  parts.push_back(scalar_i32(3));
  op(OperationType::CONCATENATION, parts, {out});
  return runtime(out, out_shape, kNhwc);
}

Result<void> Importer::on_conv(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 1, "W");
  if (!w) return make_error(w.error());
  const bool one_d = (*x)->shape.size() == 3 && w->dims.size() == 3;
  if (!one_d && ((*x)->shape.size() != 4 || w->dims.size() != 4))
    return make_error("only 1-D and 2-D convolution (rank-3 or rank-4 X and W) is supported");
  // A constant X has no operand yet (operand 0 may not exist): only a runtime X is checked.
  if (!(*x)->is_const && operand((*x)->operand).type != OperandType::TENSOR_FLOAT32)
    return make_error("X must be float (quantised convolution is QLinearConv)");
  const int64_t group = attr_i(n, "group", 1);
  const int64_t c = (*x)->shape[1], m = w->dims[0];
  if (group < 1 || c % group != 0 || m % group != 0 || w->dims[1] * group != c)
    return make_error("W " + dims_string(w->dims) + " and group " + std::to_string(group) + " do not fit X " +
                      dims_string((*x)->shape));
  const auto ks =
      attr_ints(n, "kernel_shape",
                one_d ? std::vector<int64_t>{w->dims[2]} : std::vector<int64_t>{w->dims[2], w->dims[3]});
  if (ks != std::vector<int64_t>(w->dims.begin() + 2, w->dims.end()))
    return make_error("kernel_shape does not match W");
  std::vector<double> bias(static_cast<size_t>(m), 0.0);
  if (auto b = input(n, 2, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != static_cast<size_t>(m))
      return make_error("B must be a constant of M values");
    bias = (*b)->c.v;
  }
  cast_to(&*w, kFloat);
  if (one_d) {
    auto out = conv_1d(n, **x, *w, bias, group);
    if (!out) return make_error(out.error());
    define(n, 0, std::move(*out));
    return {};
  }
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], w->dims[2], w->dims[3], false);
  if (!win) return make_error(win.error());
  auto out = conv(**x, *w, bias, group, *win);
  if (!out) return make_error(out.error());
  define(n, 0, std::move(*out));
  return {};
}

Result<void> Importer::on_batch_norm(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  std::vector<HostTensor> p;
  for (int i = 1; i <= 4; ++i) {
    auto t = const_input(n, i, i == 1 ? "scale" : i == 2 ? "B" : i == 3 ? "mean" : "var");
    if (!t) return make_error(t.error());
    p.push_back(std::move(*t));
  }
  if ((*x)->shape.size() < 2) return make_error("X must have a channel dimension");
  const auto ch = static_cast<size_t>((*x)->shape[1]);
  for (const auto& t : p)
    if (t.v.size() != ch) return make_error("parameters must have C = " + std::to_string(ch) + " values");
  const double eps = attr_f(n, "epsilon", 1e-5f);
  std::vector<double> scale(ch), shift(ch);
  for (size_t c = 0; c < ch; ++c) {
    scale[c] = p[0].v[c] / std::sqrt(p[3].v[c] + eps);
    shift[c] = p[1].v[c] - p[2].v[c] * scale[c];
  }
  const Value& v = **x;
  const auto conv_it = v.is_const ? convs_.end() : convs_.find(v.operand);
  if (conv_it != convs_.end() && consumers_[n.input(0)] == 1 && !graph_outputs_.count(n.input(0))) {
    // Fold into the convolution: filter channel c scaled, bias (b − mean)·s + beta.
    Operand& f = model_.main.operands[conv_it->second.filter];
    Operand& b = model_.main.operands[conv_it->second.bias];
    const uint64_t count = f.element_count();
    const uint32_t dim = conv_it->second.channel_dim;
    uint64_t inner = 1;
    for (size_t k = dim + 1; k < f.dimensions.size(); ++k) inner *= f.dimensions[k];
    for (uint64_t i = 0; i < count; ++i) {
      const size_t c = (i / inner) % ch;
      write_element(f.type, f.data, i, read_element(f.type, f.data, i) * scale[c]);
    }
    for (size_t c = 0; c < ch; ++c)
      write_element(b.type, b.data, c, read_element(b.type, b.data, c) * scale[c] + shift[c]);
    define(n, 0, v);
    return {};
  }
  // Otherwise x·s + t per channel.
  HostTensor s, t;
  s.dims = t.dims = std::vector<int64_t>(v.shape.size() - 1, 1);
  s.dims[0] = t.dims[0] = static_cast<int64_t>(ch);
  s.v = scale;
  t.v = shift;
  auto mul = binary(OperationType::MUL, v, constant_value(s));
  if (!mul) return make_error(mul.error());
  auto add = binary(OperationType::ADD, *mul, constant_value(t));
  if (!add) return make_error(add.error());
  define(n, 0, std::move(*add));
  return {};
}

Result<void> Importer::on_gemm(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = const_input(n, 1, "B");
  if (!b) return make_error(b.error());
  if ((*a)->shape.size() != 2 || b->dims.size() != 2) return make_error("A and B must be 2-D");
  Value av = **a;
  if (attr_i(n, "transA", 0)) {
    av.shape = {av.shape[1], av.shape[0]};
    if (!av.is_const)
      av.perm = {av.perm[1], av.perm[0]};
    else
      av.c = transpose(av.c, {1, 0});
  }
  // FULLY_CONNECTED weights are [N, K]: ONNX B is [K, N] unless transB.
  HostTensor w = attr_i(n, "transB", 0) ? *b : transpose(*b, {1, 0});
  const int64_t k = av.shape[1], units = w.dims[0];
  if (w.dims[1] != k)
    return make_error("B " + dims_string(b->dims) + " does not fit A " + dims_string((*a)->shape));
  const double alpha = attr_f(n, "alpha", 1.0f), beta = attr_f(n, "beta", 1.0f);
  for (double& x : w.v) x *= alpha;
  std::vector<double> bias(static_cast<size_t>(units), 0.0);
  std::optional<HostTensor> matrix_c;  // a C that varies along M: added after the FULLY_CONNECTED
  if (auto c = input(n, 2, false); !c) {
    return make_error(c.error());
  } else if (*c) {
    if (!(*c)->is_const) return make_error("C must be a constant");
    const auto& cv = (*c)->c.v;
    if (cv.size() == static_cast<size_t>(units) || cv.size() == 1) {
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = beta * cv[cv.size() == 1 ? 0 : i];
    } else {
      auto bc = broadcast_shape((*c)->shape, {av.shape[0], units});
      if (!bc || *bc != std::vector<int64_t>{av.shape[0], units})
        return make_error("C " + dims_string((*c)->shape) + " does not broadcast to [M, N]");
      matrix_c = (*c)->c;
      for (double& v : matrix_c->v) v *= beta;
    }
  }
  auto x = in_layout(av, identity(2));
  if (!x) return make_error(x.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, {av.shape[0], units});
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(OperandType::TENSOR_FLOAT32, w.dims, w.v),
      add_const(OperandType::TENSOR_FLOAT32, {units}, bias), scalar_i32(0)},
     {out}, 3);
  Value result = runtime(out, {av.shape[0], units}, identity(2));
  if (matrix_c) {
    auto sum = binary(OperationType::ADD, result, constant_value(*matrix_c));
    if (!sum) return make_error(sum.error());
    result = *sum;
  }
  define(n, 0, std::move(result));
  return {};
}

Result<void> Importer::on_matmul(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  if (!(*b)->is_const) return make_error("B must be a constant (a runtime B has no NNAPI 1.1 mapping)");
  const auto& bd = (*b)->c.dims;
  if (bd.size() != 2 || (*a)->shape.size() < 2) return make_error("B must be 2-D and A at least 2-D");
  const int64_t k = bd[0], units = bd[1];
  if ((*a)->shape.back() != k)
    return make_error("A " + dims_string((*a)->shape) + " does not fit B " + dims_string(bd));
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < (*a)->shape.size(); ++i) rows *= (*a)->shape[i];
  Value av = **a;
  if (av.shape.size() != 2) {
    auto r = reshape(av, {rows, k});
    if (!r) return make_error(r.error());
    av = *r;
  }
  auto x = in_layout(av, identity(2));
  if (!x) return make_error(x.error());
  HostTensor w = transpose((*b)->c, {1, 0});
  cast_to(&w, kFloat);
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, {rows, units});
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(OperandType::TENSOR_FLOAT32, w.dims, w.v),
      add_const(OperandType::TENSOR_FLOAT32, {units}, std::vector<double>(static_cast<size_t>(units), 0.0)),
      scalar_i32(0)},
     {out}, 3);
  Value result = runtime(out, {rows, units}, identity(2));
  if ((*a)->shape.size() != 2) {
    std::vector<int64_t> shape((*a)->shape.begin(), (*a)->shape.end() - 1);
    shape.push_back(units);
    auto r = reshape(result, shape);
    if (!r) return make_error(r.error());
    result = *r;
  }
  define(n, 0, std::move(result));
  return {};
}

Result<Value> Importer::unary(OperationType t, const Value& v) {
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(v.shape, v.perm), src.scale, src.zero_point);
  op(t, {*in}, {out});
  return runtime(out, v.shape, v.perm);
}

Result<void> Importer::on_unary(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {
      {"Relu", OperationType::RELU},   {"Sigmoid", OperationType::LOGISTIC}, {"Tanh", OperationType::TANH},
      {"Floor", OperationType::FLOOR}, {"Abs", OperationType::ABS},          {"Exp", OperationType::EXP},
      {"Log", OperationType::LOG},     {"Neg", OperationType::NEG},          {"Sqrt", OperationType::SQRT}};
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto y = unary(kOps.at(n.op_type()), **x);
  if (!y) return make_error(y.error());
  define(n, 0, std::move(*y));
  return {};
}

Result<void> Importer::on_clip(const onnx::NodeProto& n) {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  const Value* bound[2] = {nullptr, nullptr};  // runtime min / max (NNAPI 1.2 MAXIMUM / MINIMUM)
  if (opset_ < 11) {
    lo = attr_f(n, "min", -std::numeric_limits<float>::infinity());
    hi = attr_f(n, "max", std::numeric_limits<float>::infinity());
  } else {
    for (int i : {1, 2}) {
      auto v = input(n, i, false);
      if (!v) return make_error(v.error());
      if (!*v) continue;
      if (!(*v)->is_const) {
        bound[i - 1] = *v;
        continue;
      }
      if ((*v)->c.v.size() != 1) return make_error("min/max must be scalars");
      (i == 1 ? lo : hi) = (*v)->c.v[0];
    }
  }
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  OperationType t = OperationType::RELU;
  if (lo == 0 && hi == 6)
    t = OperationType::RELU6;
  else if (lo == -1 && hi == 1)
    t = OperationType::RELU1;
  else if (bound[0] || bound[1] || !(lo == 0 && std::isinf(hi) && hi > 0)) {
    // General or runtime bounds: MAXIMUM with the minimum, then MINIMUM with the maximum.
    Value y = v;
    auto scalar = [](double s) {
      HostTensor t1;
      t1.v = {s};
      return constant_value(t1);
    };
    if (bound[0] || !std::isinf(lo)) {
      auto m = binary(OperationType::MAXIMUM, y, bound[0] ? *bound[0] : scalar(lo));
      if (!m) return make_error(m.error());
      y = *m;
    }
    if (bound[1] || !std::isinf(hi)) {
      auto m = binary(OperationType::MINIMUM, y, bound[1] ? *bound[1] : scalar(hi));
      if (!m) return make_error(m.error());
      y = *m;
    }
    define(n, 0, std::move(y));
    return {};
  }
  auto y = unary(t, v);
  if (!y) return make_error(y.error());
  define(n, 0, std::move(*y));
  return {};
}

// LeakyRelu(x) = α·x + (1 − α)·relu(x): NNAPI 1.1 has no PRELU/LEAKY_RELU.
Result<void> Importer::on_leaky_relu(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const double alpha = attr_f(n, "alpha", 0.01f);
  HostTensor a, b;
  a.v = {alpha};
  b.v = {1 - alpha};
  const Value& v = **x;
  auto r = unary(OperationType::RELU, v);
  if (!r) return make_error(r.error());
  auto rs = binary(OperationType::MUL, *r, constant_value(b));
  if (!rs) return make_error(rs.error());
  auto xs = binary(OperationType::MUL, v, constant_value(a));
  if (!xs) return make_error(xs.error());
  auto sum = binary(OperationType::ADD, *xs, *rs);
  if (!sum) return make_error(sum.error());
  define(n, 0, std::move(*sum));
  return {};
}

// Max / Min of any number of inputs: a chain of NNAPI 1.2 MAXIMUM / MINIMUM.
Result<void> Importer::on_min_max(const onnx::NodeProto& n) {
  auto first = input(n, 0);
  if (!first) return make_error(first.error());
  const OperationType t = n.op_type() == "Max" ? OperationType::MAXIMUM : OperationType::MINIMUM;
  Value acc = **first;
  for (int i = 1; i < n.input_size(); ++i) {
    auto b = input(n, i);
    if (!b) return make_error(b.error());
    auto r = binary(t, acc, **b);
    if (!r) return make_error(r.error());
    acc = std::move(*r);
  }
  define(n, 0, std::move(acc));
  return {};
}

Result<void> Importer::on_pool(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only 2-D pooling (rank-4 X) is supported");
  if (n.output_size() > 1 && !n.output(1).empty()) return make_error("the Indices output is not supported");
  const bool is_max = n.op_type() == "MaxPool";
  const auto ks = attr_ints(n, "kernel_shape");
  if (ks.size() != 2) return make_error("kernel_shape must have 2 values");
  const bool ceil_mode = attr_i(n, "ceil_mode", 0) != 0;
  if (!is_max && ceil_mode) return make_error("ceil_mode=1 is not supported for AveragePool");
  if (attr_ints(n, "dilations", {1, 1}) != std::vector<int64_t>{1, 1})
    return make_error("dilations are not supported");
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], ks[0], ks[1], ceil_mode);
  if (!win) return make_error(win.error());
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const bool pads = win->pt || win->pl || win->pb || win->pr;
  if (!is_max && pads && attr_i(n, "count_include_pad", 0)) {
    // Padding zeros that count: PAD first, then a VALID average.
    const auto d = nnapi_dims((*x)->shape, kNhwc);
    const uint32_t padded =
        temp(operand(*in).type, {d[0], d[1] + win->pt + win->pb, d[2] + win->pl + win->pr, d[3]});
    op(OperationType::PAD,
       {*in, add_const(OperandType::TENSOR_INT32, {4, 2},
                       {0, 0, static_cast<double>(win->pt), static_cast<double>(win->pb),
                        static_cast<double>(win->pl), static_cast<double>(win->pr), 0, 0})},
       {padded});
    *in = padded;
    win->pt = win->pl = win->pb = win->pr = 0;
  }
  const std::vector<int64_t> out_shape = {(*x)->shape[0], (*x)->shape[1], win->out_h, win->out_w};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(is_max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
     {*in, scalar_i32(static_cast<int32_t>(win->pl)), scalar_i32(static_cast<int32_t>(win->pr)),
      scalar_i32(static_cast<int32_t>(win->pt)), scalar_i32(static_cast<int32_t>(win->pb)),
      scalar_i32(static_cast<int32_t>(win->sw)), scalar_i32(static_cast<int32_t>(win->sh)),
      scalar_i32(static_cast<int32_t>(ks[1])), scalar_i32(static_cast<int32_t>(ks[0])), scalar_i32(0)},
     {out}, 9);
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

Result<void> Importer::on_global_pool(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only rank-4 X is supported");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const auto& s = (*x)->shape;
  if (s[2] > 65535 || s[3] > 65535) return make_error("spatial extent too large");
  const std::vector<int64_t> out_shape = {s[0], s[1], 1, 1};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(n.op_type() == "GlobalMaxPool" ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
     {*in, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1), scalar_i32(1),
      scalar_i32(static_cast<int32_t>(s[3])), scalar_i32(static_cast<int32_t>(s[2])), scalar_i32(0)},
     {out}, 9);
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

Result<void> Importer::on_binary(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {
      {"Add", OperationType::ADD}, {"Sub", OperationType::SUB}, {"Mul", OperationType::MUL}};
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  auto r = binary(kOps.at(n.op_type()), **a, **b);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

Result<void> Importer::on_concat(const onnx::NodeProto& n) {
  std::vector<const Value*> in;
  const Value* first_runtime = nullptr;
  for (int i = 0; i < n.input_size(); ++i) {
    auto v = input(n, i);
    if (!v) return make_error(v.error());
    in.push_back(*v);
    if (!(*v)->is_const && !first_runtime) first_runtime = *v;
  }
  if (in.empty() || !first_runtime) return make_error("expects inputs");
  const size_t rank = first_runtime->shape.size();
  auto axis = axes_of({attr_i(n, "axis", 0)}, rank);
  if (!axis) return make_error(axis.error());
  const auto ax = static_cast<size_t>((*axis)[0]);
  std::vector<int64_t> shape = first_runtime->shape;
  shape[ax] = 0;
  std::vector<uint32_t> ops;
  for (const Value* v : in) {
    if (v->shape.size() != rank) return make_error("inputs must have the same rank");
    for (size_t k = 0; k < rank; ++k)
      if (k != ax && v->shape[k] != first_runtime->shape[k])
        return make_error("input shapes differ off the concat axis");
    shape[ax] += v->shape[ax];
    Value c = *v;
    if (c.is_const) cast_to(&c.c, kFloat);
    auto o = in_layout(c, first_runtime->perm);
    if (!o) return make_error(o.error());
    ops.push_back(*o);
  }
  const Perm& perm = first_runtime->perm;
  const auto nnapi_axis =
      static_cast<int32_t>(std::find(perm.begin(), perm.end(), static_cast<int64_t>(ax)) - perm.begin());
  ops.push_back(scalar_i32(nnapi_axis));
  const Operand& src = operand(first_runtime->operand);
  const uint32_t out = temp(src.type, nnapi_dims(shape, perm), src.scale, src.zero_point);
  op(OperationType::CONCATENATION, ops, {out});
  define(n, 0, runtime(out, shape, perm));
  return {};
}

Result<void> Importer::on_reshape(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& in = (*x)->shape;
  Result<std::vector<int64_t>> shape = std::vector<int64_t>{};
  const std::string& t = n.op_type();
  if (t == "Reshape") {
    auto spec = const_input(n, 1, "shape");
    if (!spec) return make_error(spec.error());
    shape = reshape_target(in, *spec, attr_i(n, "allowzero", 0) != 0);
  } else if (t == "Flatten") {
    auto axis = flatten_axis(attr_i(n, "axis", 1), in.size());
    if (!axis) return make_error(axis.error());
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < in.size(); ++i) (static_cast<int64_t>(i) < (*axis)[0] ? outer : inner) *= in[i];
    shape = std::vector<int64_t>{outer, inner};
  } else {
    auto axes = axes_param(n, values_);
    if (!axes) return make_error(axes.error());
    shape = t == "Squeeze" ? squeeze_shape(in, *axes) : unsqueeze_shape(in, *axes);
  }
  if (!shape) return make_error(shape.error());
  auto r = t == "Squeeze" || t == "Unsqueeze" ? reshape_ones(**x, *shape) : reshape(**x, *shape);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

Result<void> Importer::on_transpose(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  Value v = **x;
  Perm q = attr_ints(n, "perm");
  if (q.empty())
    for (size_t i = v.shape.size(); i-- > 0;) q.push_back(static_cast<int64_t>(i));
  Perm sorted = q;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != identity(v.shape.size())) return make_error("perm is not a permutation of the input's axes");
  // No data moves: the operand stays, its ONNX view changes (perm' = q⁻¹ ∘ perm).
  const Perm qi = inverse(q);
  Value out = v;
  out.shape.clear();
  for (int64_t k : q) out.shape.push_back(v.shape[static_cast<size_t>(k)]);
  for (size_t i = 0; i < v.perm.size(); ++i) out.perm[i] = qi[static_cast<size_t>(v.perm[i])];
  define(n, 0, std::move(out));
  return {};
}

Result<void> Importer::on_identity(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  define(n, 0, **x);
  return {};
}

// Dropout at inference is the identity; training mode and the mask output are not inference.
Result<void> Importer::on_dropout(const onnx::NodeProto& n) {
  if (n.output_size() > 1 && !n.output(1).empty()) return make_error("the mask output is not supported");
  auto training = input(n, 2, false);
  if (!training) return make_error(training.error());
  if (*training && (!(*training)->is_const || (*training)->c.v.empty() || (*training)->c.v[0] != 0))
    return make_error("training_mode is not supported (inference only)");
  return on_identity(n);
}

Result<void> Importer::on_pad(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const std::string mode = attr_s(n, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return make_error("mode \"" + mode + "\" is not supported (constant, reflect, edge)");
  std::vector<int64_t> pads;
  double value = 0;
  if (opset_ < 11) {
    pads = attr_ints(n, "pads");
    value = attr_f(n, "value", 0.0f);
  } else {
    auto p = const_input(n, 1, "pads");
    if (!p) return make_error(p.error());
    for (double d : p->v) {
      auto e = whole_i64(d, "pads");
      if (!e) return make_error(e.error());
      pads.push_back(*e);
    }
    auto c = input(n, 2, false);
    if (!c) return make_error(c.error());
    if (*c) {
      if (!(*c)->is_const || (*c)->c.v.size() != 1)
        return make_error("constant_value must be a constant scalar");
      value = (*c)->c.v[0];
    }
    if (n.input_size() > 3 && !n.input(3).empty()) return make_error("the axes input is not supported");
  }
  const Value& v = **x;
  const size_t rank = v.shape.size();
  if (pads.size() != 2 * rank) return make_error("pads must have 2 × rank values");
  for (int64_t p : pads)
    if (p < 0) return make_error("negative pads are not supported");
  if (mode != "constant") {
    // Reflect / edge: per padded axis one GATHER (NNAPI 1.2) of the source index of every output position.
    Value cur = v;
    for (size_t a = 0; a < rank; ++a) {
      const int64_t head = pads[a], tail = pads[a + rank], len = cur.shape[a];
      if (head == 0 && tail == 0) continue;
      if (mode == "reflect" && (head >= len || tail >= len))
        return make_error("reflect pads must be smaller than the extent " + std::to_string(len));
      std::vector<int32_t> idx;
      for (int64_t i = -head; i < len + tail; ++i) {
        int64_t j = i;
        if (mode == "reflect")
          j = j < 0 ? -j : j >= len ? 2 * (len - 1) - j : j;
        else
          j = std::clamp<int64_t>(j, 0, len - 1);
        idx.push_back(static_cast<int32_t>(j));
      }
      auto in = in_layout(cur, cur.perm);
      if (!in) return make_error(in.error());
      std::vector<int64_t> shape = cur.shape;
      shape[a] += head + tail;
      const auto axis = static_cast<int32_t>(
          std::find(cur.perm.begin(), cur.perm.end(), static_cast<int64_t>(a)) - cur.perm.begin());
      const Operand& src = operand(*in);
      const uint32_t out = temp(src.type, nnapi_dims(shape, cur.perm), src.scale, src.zero_point);
      op(OperationType::GATHER, {*in, scalar_i32(axis), tensor_i32(idx)}, {out});
      cur = runtime(out, shape, cur.perm);
    }
    define(n, 0, std::move(cur));
    return {};
  }
  if (value != 0)
    return make_error("constant_value " + std::to_string(value) +
                      " is not supported (NNAPI 1.1 PAD pads with 0)");
  for (int64_t p : pads)
    if (p < 0) return make_error("negative pads are not supported");
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int64_t> shape = v.shape;
  std::vector<double> spec;
  for (size_t i = 0; i < rank; ++i) shape[i] += pads[i] + pads[i + rank];
  for (int64_t k : v.perm) {
    spec.push_back(static_cast<double>(pads[static_cast<size_t>(k)]));
    spec.push_back(static_cast<double>(pads[static_cast<size_t>(k) + rank]));
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(shape, v.perm), src.scale, src.zero_point);
  op(OperationType::PAD, {*in, add_const(OperandType::TENSOR_INT32, {static_cast<int64_t>(rank), 2}, spec)},
     {out});
  define(n, 0, runtime(out, shape, v.perm));
  return {};
}

// Softmax before opset 13 normalises the 2-D coercion [prod(d[:axis]), prod(d[axis:])]; from 13 along
// one axis. Both become: move the normalised axes last (TRANSPOSE), 2-D RESHAPE, SOFTMAX, and back.
Result<void> Importer::on_softmax(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  const size_t rank = v.shape.size();
  auto axis = axes_of({attr_i(n, "axis", opset_ < 13 ? 1 : -1)}, rank);
  if (!axis) return make_error(axis.error());
  const auto ax = (*axis)[0];
  Value moved = v;
  Perm to_last = identity(rank);
  if (opset_ >= 13 && ax != static_cast<int64_t>(rank) - 1) {
    to_last.erase(to_last.begin() + ax);
    to_last.push_back(ax);
    const Perm qi = inverse(to_last);
    moved.shape.clear();
    for (int64_t k : to_last) moved.shape.push_back(v.shape[static_cast<size_t>(k)]);
    for (size_t i = 0; i < v.perm.size(); ++i) moved.perm[i] = qi[static_cast<size_t>(v.perm[i])];
  }
  const int64_t split = opset_ >= 13 ? static_cast<int64_t>(rank) - 1 : ax;
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < rank; ++i) (static_cast<int64_t>(i) < split ? outer : inner) *= moved.shape[i];
  auto flat = reshape(moved, {outer, inner});
  if (!flat) return make_error(flat.error());
  const uint32_t sm = temp(OperandType::TENSOR_FLOAT32, {outer, inner});
  op(OperationType::SOFTMAX, {flat->operand, scalar_f32(1.0f)}, {sm});
  auto back = reshape(runtime(sm, {outer, inner}, identity(2)), moved.shape);
  if (!back) return make_error(back.error());
  Value out = *back;
  if (to_last != identity(rank)) {
    // The ONNX view of `out` is `moved`; undo the move without moving data.
    out.shape = v.shape;
    out.perm = to_last;
  }
  define(n, 0, std::move(out));
  return {};
}

Result<void> Importer::on_resize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& s = (*x)->shape;
  if (s.size() != 4) return make_error("only rank-4 X is supported");
  const std::string mode = attr_s(n, "mode", "nearest");
  const std::string coord = attr_s(n, "coordinate_transformation_mode",
                                   n.op_type() == "Upsample" || opset_ < 11 ? "asymmetric" : "half_pixel");
  if (mode != "linear" || coord != "asymmetric")
    return make_error("mode \"" + mode + "\" with coordinate_transformation_mode \"" + coord +
                      "\" is not supported (NNAPI 1.1 RESIZE_BILINEAR = linear, asymmetric)");
  int64_t oh = 0, ow = 0;
  const int scales_at = n.op_type() == "Upsample" || opset_ < 11 ? 1 : 2;
  auto sizes = input(n, 3, false);
  if (!sizes) return make_error(sizes.error());
  if (*sizes) {
    if (!(*sizes)->is_const || (*sizes)->c.v.size() != 4)
      return make_error("sizes must be a constant of 4 values");
    if ((*sizes)->c.v[0] != s[0] || (*sizes)->c.v[1] != s[1])
      return make_error("only H and W may be resized");
    auto h = whole_i64((*sizes)->c.v[2], "sizes"), w = whole_i64((*sizes)->c.v[3], "sizes");
    if (!h) return make_error(h.error());
    if (!w) return make_error(w.error());
    oh = *h, ow = *w;
  } else {
    auto sc = const_input(n, scales_at, "scales");
    if (!sc) return make_error(sc.error());
    if (sc->v.size() != 4 || sc->v[0] != 1 || sc->v[1] != 1) return make_error("scales must be [1, 1, h, w]");
    auto h = whole_i64(std::floor(static_cast<double>(s[2]) * sc->v[2]), "scales: output height");
    auto w = whole_i64(std::floor(static_cast<double>(s[3]) * sc->v[3]), "scales: output width");
    if (!h) return make_error(h.error());
    if (!w) return make_error(w.error());
    oh = *h, ow = *w;
  }
  if (oh < 1 || ow < 1 || oh > 65535 || ow > 65535) return make_error("output size out of range");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const std::vector<int64_t> out_shape = {s[0], s[1], oh, ow};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(OperationType::RESIZE_BILINEAR,
     {*in, scalar_i32(static_cast<int32_t>(ow)), scalar_i32(static_cast<int32_t>(oh))}, {out});
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

Result<void> Importer::on_dequantize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto s = const_input(n, 1, "x_scale");
  if (!s) return make_error(s.error());
  auto zp = const_scalar(n, 2, "x_zero_point", 0);
  if (!zp) return make_error(zp.error());
  if (s->v.size() != 1) return make_error("per-axis quantisation of a runtime tensor is not supported");
  const Value& v = **x;
  if (auto q = set_quant(v, s->v[0], *zp); !q) return make_error("x: " + q.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims(v.shape, v.perm));
  op(OperationType::DEQUANTIZE, {v.operand}, {out});
  define(n, 0, runtime(out, v.shape, v.perm));
  return {};
}

Result<void> Importer::set_quant(const Value& v, double scale, double zero_point) {
  if (v.is_const) return make_error("must be a runtime tensor");
  Operand& o = model_.main.operands[v.operand];
  if (o.type != OperandType::TENSOR_QUANT8_ASYMM && o.type != OperandType::TENSOR_QUANT8_ASYMM_SIGNED)
    return make_error("must be uint8 or int8");
  const auto fs = static_cast<float>(scale);
  const auto z = static_cast<int32_t>(zero_point);
  if (!(fs > 0) || !std::isfinite(fs)) return make_error("scale must be positive");
  if (unassigned_quant_.erase(v.operand)) {
    o.scale = fs;
    o.zero_point = z;
  } else if (o.scale != fs || o.zero_point != z) {
    return make_error("scale/zero point (" + std::to_string(fs) + ", " + std::to_string(z) +
                      ") differ from the tensor's (" + std::to_string(o.scale) + ", " +
                      std::to_string(o.zero_point) + ")");
  }
  return {};
}

Result<double> Importer::const_scalar(const onnx::NodeProto& n, int i, const char* what, double def) {
  auto v = input(n, i, false);
  if (!v) return make_error(v.error());
  if (!*v) return def;
  if (!(*v)->is_const || (*v)->c.v.size() != 1)
    return make_error(std::string(what) + " must be a constant scalar");
  return (*v)->c.v[0];
}

// QLinearConv: CONV_2D / DEPTHWISE_CONV_2D on quant8 operands. uint8 weights per tensor, or int8 weights
// with zero point 0 (per channel when w_scale has M values: TENSOR_QUANT8_SYMM_PER_CHANNEL).
Result<void> Importer::on_qlinear_conv(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 3, "w");
  if (!w) return make_error(w.error());
  auto ws = const_input(n, 4, "w_scale");
  if (!ws) return make_error(ws.error());
  auto wz = const_input(n, 5, "w_zero_point");
  if (!wz) return make_error(wz.error());
  auto xs = const_scalar(n, 1, "x_scale", 0), xz = const_scalar(n, 2, "x_zero_point", 0),
       ys = const_scalar(n, 6, "y_scale", 0), yz = const_scalar(n, 7, "y_zero_point", 0);
  for (const auto* r : {&xs, &xz, &ys, &yz})
    if (!*r) return make_error(r->error());
  if ((*x)->shape.size() != 4 || w->dims.size() != 4) return make_error("only 2-D convolution is supported");
  if (auto q = set_quant(**x, *xs, *xz); !q) return make_error("x: " + q.error());
  const int64_t m = w->dims[0], group = attr_i(n, "group", 1), c = (*x)->shape[1];
  if (group < 1 || c % group != 0 || m % group != 0 || w->dims[1] * group != c)
    return make_error("w " + dims_string(w->dims) + " and group " + std::to_string(group) + " do not fit x");
  QuantConv q;
  for (double v : ws->v) q.w_scales.push_back(static_cast<float>(v));
  if (q.w_scales.size() != 1 && q.w_scales.size() != static_cast<size_t>(m))
    return make_error("w_scale must have 1 or M values");
  const bool zero_zp = std::all_of(wz->v.begin(), wz->v.end(), [](double z) { return z == 0; });
  if (w->type == kInt8) {
    if (!zero_zp) return make_error("int8 weights need zero point 0 (symmetric)");
    q.filter_type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  } else if (w->type == kUint8 && q.w_scales.size() == 1 && wz->v.size() == 1) {
    if (operand((*x)->operand).type != OperandType::TENSOR_QUANT8_ASYMM)
      return make_error("uint8 weights need uint8 x");
    q.filter_type = OperandType::TENSOR_QUANT8_ASYMM;
  } else {
    return make_error("per-channel uint8 weights are not supported");
  }
  q.w_zp = static_cast<int32_t>(wz->v[0]);
  q.y_scale = static_cast<float>(*ys);
  q.y_zp = static_cast<int32_t>(*yz);
  std::vector<double> bias(static_cast<size_t>(m), 0.0);
  if (auto b = input(n, 8, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != static_cast<size_t>(m))
      return make_error("B must be a constant of M values");
    bias = (*b)->c.v;
  }
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], w->dims[2], w->dims[3], false);
  if (!win) return make_error(win.error());
  auto out = conv(**x, *w, bias, group, *win, &q);
  if (!out) return make_error(out.error());
  define(n, 0, std::move(*out));
  return {};
}

// QLinearMatMul with a constant b: FULLY_CONNECTED on quant8 operands (per-tensor, b's type = a's).
Result<void> Importer::on_qlinear_matmul(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = const_input(n, 3, "b");
  if (!b) return make_error(b.error());
  auto as = const_scalar(n, 1, "a_scale", 0), az = const_scalar(n, 2, "a_zero_point", 0),
       bs = const_scalar(n, 4, "b_scale", 0), bz = const_scalar(n, 5, "b_zero_point", 0),
       ys = const_scalar(n, 6, "y_scale", 0), yz = const_scalar(n, 7, "y_zero_point", 0);
  for (const auto* r : {&as, &az, &bs, &bz, &ys, &yz})
    if (!*r) return make_error(r->error());
  if ((*a)->shape.size() != 2 || b->dims.size() != 2) return make_error("only 2-D a and b are supported");
  if (auto q = set_quant(**a, *as, *az); !q) return make_error("a: " + q.error());
  const OperandType t = operand((*a)->operand).type;
  if ((t == OperandType::TENSOR_QUANT8_ASYMM) != (b->type == kUint8))
    return make_error("a and b must both be uint8 or int8");
  const int64_t k = b->dims[0], units = b->dims[1];
  if ((*a)->shape[1] != k)
    return make_error("a " + dims_string((*a)->shape) + " does not fit b " + dims_string(b->dims));
  auto x = in_layout(**a, identity(2));
  if (!x) return make_error(x.error());
  const HostTensor wt = transpose(*b, {1, 0});
  const auto b_scale = static_cast<float>(*bs);
  const uint32_t out = temp(t, {(*a)->shape[0], units}, static_cast<float>(*ys), static_cast<int32_t>(*yz));
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(t, wt.dims, wt.v, b_scale, static_cast<int32_t>(*bz)),
      add_const(OperandType::TENSOR_INT32, {units}, std::vector<double>(static_cast<size_t>(units), 0.0),
                operand(*x).scale * b_scale),
      scalar_i32(0)},
     {out}, 3);
  define(n, 0, runtime(out, {(*a)->shape[0], units}, identity(2)));
  return {};
}

// ReduceMean / ReduceMax / ReduceMin / ReduceSum → MEAN / REDUCE_* keeping the value's layout. The NNAPI
// operation keeps the reduced dimensions; keepdims=0 then drops them without moving data, except that a
// reduction to a scalar keeps rank (extents 1), which broadcasts exactly like the scalar.
Result<void> Importer::on_reduce(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {{"ReduceMean", OperationType::MEAN},
                                                            {"ReduceMax", OperationType::REDUCE_MAX},
                                                            {"ReduceMin", OperationType::REDUCE_MIN},
                                                            {"ReduceSum", OperationType::REDUCE_SUM}};
  const OperationType t = kOps.at(n.op_type());
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  std::vector<int64_t> axes = attr_ints(n, "axes");
  if (n.op_type() == "ReduceSum" && opset_ >= 13 && n.input_size() > 1 && !n.input(1).empty()) {
    auto a = const_input(n, 1, "axes");
    if (!a) return make_error(a.error());
    axes.assign(a->v.begin(), a->v.end());
  }
  if (axes.empty()) {
    if (attr_i(n, "noop_with_empty_axes", 0)) return make_error("noop_with_empty_axes is not supported");
    for (size_t i = 0; i < v.shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  auto ax = axes_of(axes, v.shape.size());
  if (!ax) return make_error(ax.error());
  const bool keep = attr_i(n, "keepdims", 1) != 0;
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int32_t> nn_axes;
  for (int64_t a : *ax)
    nn_axes.push_back(static_cast<int32_t>(std::find(v.perm.begin(), v.perm.end(), a) - v.perm.begin()));
  std::vector<int64_t> kept = v.shape, dropped;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const bool reduced = std::find(ax->begin(), ax->end(), static_cast<int64_t>(i)) != ax->end();
    if (reduced) kept[i] = 1;
    if (!reduced) dropped.push_back(v.shape[i]);
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(kept, v.perm), src.scale, src.zero_point);
  const uint32_t keep_param =
      t == OperationType::MEAN ? scalar_i32(1) : add_const(OperandType::BOOL, {}, {1});
  op(t, {*in, tensor_i32(nn_axes), keep_param}, {out});
  Value result = runtime(out, kept, v.perm);
  if (!keep && !dropped.empty()) {
    auto r = reshape_ones(result, dropped);
    if (!r) return make_error(r.error());
    result = *r;
  }
  define(n, 0, std::move(result));
  return {};
}

Result<void> Importer::on_lrn(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only rank-4 X is supported");
  const int64_t size = attr_i(n, "size", 0);
  if (size < 1 || size % 2 == 0) return make_error("only odd sizes map to NNAPI's symmetric radius");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims((*x)->shape, kNhwc));
  op(OperationType::LOCAL_RESPONSE_NORMALIZATION,
     {*in, scalar_i32(static_cast<int32_t>((size - 1) / 2)), scalar_f32(attr_f(n, "bias", 1.0f)),
      scalar_f32(attr_f(n, "alpha", 1e-4f) / static_cast<float>(size)), scalar_f32(attr_f(n, "beta", 0.75f))},
     {out});
  define(n, 0, runtime(out, (*x)->shape, kNhwc));
  return {};
}

Result<void> Importer::on_depth_space(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& s = (*x)->shape;
  if (s.size() != 4) return make_error("only rank-4 X is supported");
  if (attr_s(n, "mode", "DCR") != "DCR")
    return make_error("mode CRD is not supported (NNAPI uses DCR order)");
  const int64_t b = attr_i(n, "blocksize", 0);
  if (b < 1) return make_error("blocksize must be positive");
  const bool to_space = n.op_type() == "DepthToSpace";
  std::vector<int64_t> shape = s;
  if (to_space) {
    if (s[1] % (b * b)) return make_error("channels not divisible by blocksize²");
    shape = {s[0], s[1] / (b * b), s[2] * b, s[3] * b};
  } else {
    if (s[2] % b || s[3] % b) return make_error("H and W must be divisible by blocksize");
    shape = {s[0], s[1] * b * b, s[2] / b, s[3] / b};
  }
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const uint32_t out =
      temp(operand(*in).type, nnapi_dims(shape, kNhwc), operand(*in).scale, operand(*in).zero_point);
  op(to_space ? OperationType::DEPTH_TO_SPACE : OperationType::SPACE_TO_DEPTH,
     {*in, scalar_i32(static_cast<int32_t>(b))}, {out});
  define(n, 0, runtime(out, shape, kNhwc));
  return {};
}

// Pow with a constant exponent 2 is x·x (MUL, which the NPU runs), 0.5 is SQRT, 1 the identity; other
// exponents are NNAPI 1.2 POW.
Result<void> Importer::on_pow(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto e = input(n, 1);
  if (!e) return make_error(e.error());
  const Value& v = **x;
  if ((*e)->is_const && (*e)->c.v.size() == 1) {
    const double p = (*e)->c.v[0];
    if (p == 1) {
      define(n, 0, v);
      return {};
    }
    if (p == 2 || p == 0.5) {
      auto r = p == 2 ? binary(OperationType::MUL, v, v) : unary(OperationType::SQRT, v);
      if (!r) return make_error(r.error());
      define(n, 0, std::move(*r));
      return {};
    }
  }
  auto r = binary(OperationType::POW, v, **e);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

// Div by a constant multiplies by its reciprocal (MUL runs on the NPU; the result may differ from a
// true division by one rounding); a runtime divisor is DIV, which only the CPU runs (--cpu-fallback).
Result<void> Importer::on_div(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  if ((*b)->is_const && !(*a)->is_const) {
    HostTensor r = (*b)->c;
    cast_to(&r, kFloat);
    for (double& d : r.v) d = static_cast<float>(1.0f / static_cast<float>(d));
    auto m = binary(OperationType::MUL, **a, constant_value(std::move(r)));
    if (!m) return make_error(m.error());
    define(n, 0, std::move(*m));
    return {};
  }
  if (!opt_.cpu_fallback)
    return make_error(
        "Div by a runtime tensor is not mapped to an NPU operation (--cpu-fallback runs it on the CPU device "
        "as DIV)");
  result_.cpu_only_nodes.push_back(n.op_type() + " '" + n.name() + "'");
  auto r = binary(OperationType::DIV, **a, **b);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

// QuantizeLinear of a runtime float tensor (per-tensor scale and zero point): NNAPI 1.2 QUANTIZE to
// uint8 (TENSOR_QUANT8_ASYMM) or, with an int8 zero point, TENSOR_QUANT8_ASYMM_SIGNED. NNAPI rounds
// halves away from zero where ONNX rounds them to even: x / scale exactly at .5 may differ by one.
Result<void> Importer::on_quantize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto s = const_input(n, 1, "y_scale");
  if (!s) return make_error(s.error());
  if (s->v.size() != 1) return make_error("per-axis quantisation of a runtime tensor is not supported");
  int32_t zp_type = kUint8;
  double zp = 0;
  if (auto z = input(n, 2, false); !z) {
    return make_error(z.error());
  } else if (*z) {
    if (!(*z)->is_const || (*z)->c.v.size() != 1) return make_error("y_zero_point must be a constant scalar");
    zp_type = (*z)->c.type;
    zp = (*z)->c.v[0];
  }
  if (zp_type != kUint8 && zp_type != kInt8)
    return make_error("y_zero_point of type " + type_name(zp_type) + " is not supported (uint8, int8)");
  const Value& v = **x;
  if (operand(v.operand).type != OperandType::TENSOR_FLOAT32) return make_error("x must be float");
  const auto scale = static_cast<float>(s->v[0]);
  if (!(scale > 0) || !std::isfinite(scale)) return make_error("y_scale must be positive");
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  const OperandType t =
      zp_type == kInt8 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  const uint32_t out = temp(t, nnapi_dims(v.shape, v.perm), scale, static_cast<int32_t>(zp));
  op(OperationType::QUANTIZE, {*in}, {out});
  define(n, 0, runtime(out, v.shape, v.perm));
  return {};
}

// Cast of a runtime value: only to its own type (float to float), which is the identity.
Result<void> Importer::on_cast(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto to = static_cast<int32_t>(attr_i(n, "to", kFloat));
  const OperandType from = operand((*x)->operand).type;
  if (to != kFloat || from != OperandType::TENSOR_FLOAT32)
    return make_error("Cast of a runtime " + std::string(to_string(from)) + " tensor to " + type_name(to) +
                      " is not supported (only float to float)");
  define(n, 0, **x);
  return {};
}

// Slice: starts, ends, axes, steps are attributes before opset 10, constant inputs from 10. A runtime
// value becomes STRIDED_SLICE in its own layout (an end before index 0 is the end mask).
Result<void> Importer::on_slice(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  std::vector<int64_t> param[4];
  const char* names[4] = {"starts", "ends", "axes", "steps"};
  for (int i = 0; i < 4; ++i) {
    if (opset_ < 10) {
      param[i] = attr_ints(n, names[i]);
      continue;
    }
    if (i + 1 >= n.input_size() || n.input(i + 1).empty()) continue;
    auto c = const_input(n, i + 1, names[i]);
    if (!c) return make_error(c.error());
    for (double d : c->v) param[i].push_back(to_i64(d));
  }
  const Value& v = **x;
  auto plan = slice_plan(v.shape, param[0], param[1], param[2], param[3]);
  if (!plan) return make_error(plan.error());
  std::vector<int64_t> shape;
  for (const auto& a : *plan) shape.push_back(a.count);
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int32_t> begin, end, stride;
  int32_t end_mask = 0;
  for (size_t k = 0; k < v.perm.size(); ++k) {
    const AxisSlice& a = (*plan)[static_cast<size_t>(v.perm[k])];
    const int64_t last = a.start + a.count * a.step;
    begin.push_back(static_cast<int32_t>(a.start));
    end.push_back(static_cast<int32_t>(std::max<int64_t>(last, 0)));
    stride.push_back(static_cast<int32_t>(a.step));
    if (last < 0) end_mask |= 1 << k;
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(shape, v.perm), src.scale, src.zero_point);
  op(OperationType::STRIDED_SLICE,
     {*in, tensor_i32(begin), tensor_i32(end), tensor_i32(stride), scalar_i32(0), scalar_i32(end_mask),
      scalar_i32(0)},
     {out});
  define(n, 0, runtime(out, shape, v.perm));
  return {};
}

// A 1-D convolution [N, C, L] is a 2-D one with H = 1: the operand [N, L, C] is reshaped (no data moves)
// to NHWC [N, 1, L, C], CONV_2D / DEPTHWISE_CONV_2D runs, and the result [N, 1, L', M] is reshaped back
// to [N, L', M] (ONNX [N, M, L'] in layout {0, 2, 1}).
Result<Value> Importer::conv_1d(const onnx::NodeProto& n, const Value& x, const HostTensor& w,
                                const std::vector<double>& bias, int64_t group) {
  onnx::NodeProto n2 = n;  // the same node with its 1-D attributes written as 2-D ones (H: 1, no pads)
  n2.clear_attribute();
  for (const auto& a : n.attribute()) {
    onnx::AttributeProto b = a;
    const std::string& name = a.name();
    if (name == "strides" || name == "dilations" || name == "kernel_shape") {
      if (a.ints_size() != 1) return make_error(name + " must have 1 value for a 1-D convolution");
      b.clear_ints();
      b.add_ints(1);
      b.add_ints(a.ints(0));
    } else if (name == "pads") {
      if (a.ints_size() != 2) return make_error("pads must have 2 values for a 1-D convolution");
      b.clear_ints();
      for (int64_t p : {int64_t{0}, a.ints(0), int64_t{0}, a.ints(1)}) b.add_ints(p);
    }
    *n2.add_attribute() = b;
  }
  auto win = window(n2, 1, x.shape[2], 1, w.dims[2], false);
  if (!win) return make_error(win.error());
  auto x3 = in_layout(x, {0, 2, 1});
  if (!x3) return make_error(x3.error());
  const std::vector<int64_t> x4_shape = {x.shape[0], x.shape[1], 1, x.shape[2]};
  const std::vector<int64_t> x4_dims = nnapi_dims(x4_shape, kNhwc);  // [N, 1, L, C]: the same bytes
  const Operand& src = operand(*x3);
  const uint32_t x4 = temp(src.type, x4_dims, src.scale, src.zero_point);
  op(OperationType::RESHAPE, {*x3, tensor_i32(std::vector<int32_t>(x4_dims.begin(), x4_dims.end()))}, {x4});
  HostTensor w4 = w;
  w4.dims = {w.dims[0], w.dims[1], 1, w.dims[2]};
  auto y = conv(runtime(x4, x4_shape, kNhwc), w4, bias, group, *win);
  if (!y) return make_error(y.error());
  const int64_t m = y->shape[1], l = y->shape[3];
  const uint32_t out = temp(operand(y->operand).type, {x.shape[0], l, m});
  op(OperationType::RESHAPE,
     {y->operand,
      tensor_i32({static_cast<int32_t>(x.shape[0]), static_cast<int32_t>(l), static_cast<int32_t>(m)})},
     {out});
  return runtime(out, {x.shape[0], m, l}, {0, 2, 1});
}

// ONNX LSTM (forward, default activations, no peepholes, clip or sequence lengths) unrolled over the
// sequence: one NNAPI LSTM per step. ONNX gate order i, o, f, c becomes NNAPI's input, forget, cell,
// output; the two ONNX bias halves are summed. Outputs Y [T, 1, B, H], Y_h and Y_c [1, B, H].
Result<void> Importer::on_lstm(const onnx::NodeProto& n) {
  if (attr_s(n, "direction", "forward") != "forward")
    return make_error("only direction \"forward\" is supported");
  if (attr_i(n, "layout", 0) != 0) return make_error("only layout 0 is supported");
  if (attr_i(n, "input_forget", 0) != 0) return make_error("input_forget is not supported");
  if (find_attr(n, "clip") || find_attr(n, "activations"))
    return make_error("clip and non-default activations are not supported");
  if (n.input_size() > 4 && !n.input(4).empty()) return make_error("sequence_lens is not supported");
  if (n.input_size() > 7 && !n.input(7).empty()) return make_error("peepholes (P) are not supported");
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 1, "W");
  if (!w) return make_error(w.error());
  auto r = const_input(n, 2, "R");
  if (!r) return make_error(r.error());
  const Value& xv = **x;
  const int64_t hidden = attr_i(n, "hidden_size", 0);
  if (xv.shape.size() != 3) return make_error("X must be [seq, batch, input]");
  const int64_t steps = xv.shape[0], batch = xv.shape[1], isz = xv.shape[2];
  if (hidden < 1 || w->dims != std::vector<int64_t>{1, 4 * hidden, isz} ||
      r->dims != std::vector<int64_t>{1, 4 * hidden, hidden})
    return make_error("W/R " + dims_string(w->dims) + "/" + dims_string(r->dims) +
                      " do not fit hidden_size " + std::to_string(hidden) + " and X " +
                      dims_string(xv.shape));
  std::vector<double> bias(static_cast<size_t>(8 * hidden), 0.0);
  if (auto b = input(n, 3, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != bias.size())
      return make_error("B must be a constant [1, 8·hidden]");
    bias = (*b)->c.v;
  }
  // ONNX gate g of {i, o, f, c} for NNAPI gate k of {input, forget, cell, output}.
  const int kOnnxGate[4] = {0, 2, 3, 1};
  auto gate_rows = [&](const HostTensor& m, int g, int64_t cols) {
    const auto first = m.v.begin() + static_cast<long>(g * hidden * cols);
    return add_const(OperandType::TENSOR_FLOAT32, {hidden, cols},
                     std::vector<double>(first, first + hidden * cols));
  };
  std::vector<uint32_t> wi, ri, bi;
  for (int k = 0; k < 4; ++k) {
    const int g = kOnnxGate[k];
    wi.push_back(gate_rows(*w, g, isz));
    ri.push_back(gate_rows(*r, g, hidden));
    std::vector<double> b(static_cast<size_t>(hidden));
    for (int64_t u = 0; u < hidden; ++u)
      b[static_cast<size_t>(u)] =
          bias[static_cast<size_t>(g * hidden + u)] + bias[static_cast<size_t>((4 + g) * hidden + u)];
    bi.push_back(add_const(OperandType::TENSOR_FLOAT32, {hidden}, b));
  }
  // Initial states [1, B, H] → [B, H] (zeros when absent).
  auto state = [&](int i) -> Result<uint32_t> {
    auto s = input(n, i, false);
    if (!s) return make_error(s.error());
    if (!*s)
      return add_const(OperandType::TENSOR_FLOAT32, {batch, hidden},
                       std::vector<double>(static_cast<size_t>(batch * hidden), 0.0));
    if ((*s)->shape != std::vector<int64_t>{1, batch, hidden})
      return make_error("initial state " + dims_string((*s)->shape) + " must be [1, batch, hidden]");
    auto v = reshape_ones(**s, {batch, hidden});
    if (!v) return make_error(v.error());
    return in_layout(*v, identity(2));
  };
  auto h = state(5);
  if (!h) return make_error(h.error());
  auto c = state(6);
  if (!c) return make_error(c.error());
  auto xin = in_layout(xv, identity(3));
  if (!xin) return make_error(xin.error());
  std::vector<uint32_t> ys;
  uint32_t hs = *h, cs = *c;
  for (int64_t t = 0; t < steps; ++t) {
    // x_t = X[t] as [B, I]: a shrinking STRIDED_SLICE, or a RESHAPE when there is one step.
    const uint32_t xt = temp(OperandType::TENSOR_FLOAT32, {batch, isz});
    if (steps == 1)
      op(OperationType::RESHAPE, {*xin, tensor_i32({static_cast<int32_t>(batch), static_cast<int32_t>(isz)})},
         {xt});
    else
      op(OperationType::STRIDED_SLICE,
         {*xin, tensor_i32({static_cast<int32_t>(t), 0, 0}),
          tensor_i32({static_cast<int32_t>(t + 1), static_cast<int32_t>(batch), static_cast<int32_t>(isz)}),
          tensor_i32({1, 1, 1}), scalar_i32(0), scalar_i32(0), scalar_i32(1)},
         {xt});
    const uint32_t scratch = temp(OperandType::TENSOR_FLOAT32, {batch, 4 * hidden});
    const uint32_t h_out = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    const uint32_t c_out = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    const uint32_t y = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    std::vector<uint32_t> in = {xt, wi[0], wi[1], wi[2], wi[3], ri[0], ri[1], ri[2], ri[3]};
    for (int k = 0; k < 3; ++k) in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // peepholes
    in.insert(in.end(), bi.begin(), bi.end());
    in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // projection weights
    in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // projection bias
    in.insert(in.end(), {hs, cs, scalar_i32(4), scalar_f32(0.0f), scalar_f32(0.0f)});
    op(OperationType::LSTM, in, {scratch, h_out, c_out, y});
    ys.push_back(y);
    hs = h_out;
    cs = c_out;
  }
  // Y [T, 1, B, H]: the step outputs stacked (a reshape when there is one step).
  const uint32_t y_all = temp(OperandType::TENSOR_FLOAT32, {steps, 1, batch, hidden});
  if (steps == 1) {
    op(OperationType::RESHAPE,
       {ys[0], tensor_i32({1, 1, static_cast<int32_t>(batch), static_cast<int32_t>(hidden)})}, {y_all});
  } else {
    std::vector<uint32_t> parts;
    for (uint32_t y : ys) {
      const uint32_t y4 = temp(OperandType::TENSOR_FLOAT32, {1, 1, batch, hidden});
      op(OperationType::RESHAPE,
         {y, tensor_i32({1, 1, static_cast<int32_t>(batch), static_cast<int32_t>(hidden)})}, {y4});
      parts.push_back(y4);
    }
    parts.push_back(scalar_i32(0));
    op(OperationType::CONCATENATION, parts, {y_all});
  }
  if (!n.output(0).empty()) define(n, 0, runtime(y_all, {steps, 1, batch, hidden}, identity(4)));
  for (int i = 1; i < 3 && i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    auto v = reshape_ones(runtime(i == 1 ? hs : cs, {batch, hidden}, identity(2)), {1, batch, hidden});
    if (!v) return make_error(v.error());
    define(n, i, std::move(*v));
  }
  return {};
}

// If: the condition must be known at import (a constant, or computed from bound inputs and static
// shapes); the taken branch's nodes are imported in place. A runtime condition would be NNAPI IF.
Result<void> Importer::on_if(const onnx::NodeProto& n) {
  auto cond = input(n, 0);
  if (!cond) return make_error(cond.error());
  if (!(*cond)->is_const)
    return make_error(
        "the condition is a runtime tensor; NNAPI IF is not imported yet — bind the inputs it is "
        "computed from at import (--input-value NAME=V, --shape NAME=AxB) so it folds");
  if ((*cond)->c.v.size() != 1) return make_error("the condition must have one element");
  const char* name = (*cond)->c.v[0] != 0 ? "then_branch" : "else_branch";
  const auto* a = find_attr(n, name);
  if (!a || !a->has_g()) return make_error(std::string("has no ") + name);
  const onnx::GraphProto& g = a->g();
  if (g.output_size() != n.output_size())
    return make_error(std::string(name) + " has " + std::to_string(g.output_size()) + " outputs, the node " +
                      std::to_string(n.output_size()));
  if (auto r = import_graph(g); !r) return make_error(std::string(name) + ": " + r.error());
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    const auto it = values_.find(g.output(i).name());
    if (it == values_.end())
      return make_error(std::string(name) + " output '" + g.output(i).name() + "' is never produced");
    define(n, i, it->second);
  }
  ++result_.folded_nodes;
  return {};
}

Result<void> Importer::import_graph(const onnx::GraphProto& g) {
  for (const auto& t : g.initializer()) {
    auto c = from_proto(t);
    if (!c) return make_error("initializer '" + t.name() + "': " + c.error());
    values_[t.name()] = constant_value(std::move(*c));
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (auto r = import_node(n); !r)
      return make_error("node " + std::to_string(i) + " '" + n.name() + "' (" + n.op_type() +
                        "): " + r.error());
  }
  return {};
}

// --- Graph --------------------------------------------------------------------------------------------

Result<void> Importer::add_graph_input(const onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type()) return make_error("graph input '" + vi.name() + "' is not a tensor");
  const auto& tt = vi.type().tensor_type();
  auto t = runtime_type(tt.elem_type());
  if (!t)
    return make_error("graph input '" + vi.name() + "': element type " + type_name(tt.elem_type()) +
                      " is not supported for a runtime input; bind its value at import (--input-value " +
                      vi.name() + "=V)");
  std::vector<int64_t> shape;
  if (const auto b = opt_.input_shapes.find(vi.name()); b != opt_.input_shapes.end()) {
    if (static_cast<int>(b->second.size()) != tt.shape().dim_size())
      return make_error("graph input '" + vi.name() + "': --shape gives rank " +
                        std::to_string(b->second.size()) + ", the model declares rank " +
                        std::to_string(tt.shape().dim_size()));
    shape = b->second;
  } else {
    for (int k = 0; k < tt.shape().dim_size(); ++k) {
      const auto& d = tt.shape().dim(k);
      if (d.has_dim_value() && d.dim_value() > 0) {
        shape.push_back(d.dim_value());
        continue;
      }
      shape.push_back(opt_.dynamic_dim);
      defaulted_dims_.push_back("'" + vi.name() + "' dimension " + std::to_string(k) +
                                (d.dim_param().empty() ? "" : " ('" + d.dim_param() + "')"));
    }
  }
  for (int64_t v : shape)
    if (v < 1 || v > std::numeric_limits<uint32_t>::max())
      return make_error("graph input '" + vi.name() + "': dimension " + std::to_string(v) +
                        " is not supported");
  if (shape.empty())
    return make_error("graph input '" + vi.name() + "': scalar graph inputs are not supported");
  if (shape.size() > 4)
    return make_error("graph input '" + vi.name() + "': rank " + std::to_string(shape.size()) +
                      " is not supported (NNAPI: rank <= 4)");
  if (auto c = element_count(shape); !c) return make_error("graph input '" + vi.name() + "': " + c.error());
  const bool quant = *t == OperandType::TENSOR_QUANT8_ASYMM || *t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  // Raw integers (scale 1) until a DequantizeLinear says what they mean.
  const uint32_t o = temp(*t, shape, quant ? 1.0f : 0.0f);
  if (quant) unassigned_quant_.insert(o);
  model_.main.operands[o].lifetime = Lifetime::SUBGRAPH_INPUT;
  model_.main.input_indexes.push_back(o);
  result_.input_names.push_back(vi.name());
  values_[vi.name()] = runtime(o, shape, identity(shape.size()));
  return {};
}

// A graph input given a value at import: a constant of the declared element type and shape (the bound
// shape when --shape gives one), so everything computed from it folds.
Result<void> Importer::bind_input_value(const onnx::ValueInfoProto& vi, const std::vector<double>& values) {
  const std::string what = "graph input '" + vi.name() + "': ";
  if (!vi.type().has_tensor_type()) return make_error(what + "is not a tensor");
  const auto& tt = vi.type().tensor_type();
  HostTensor c;
  c.type = tt.elem_type();
  if (const auto b = opt_.input_shapes.find(vi.name()); b != opt_.input_shapes.end()) {
    c.dims = b->second;
  } else {
    for (const auto& d : tt.shape().dim()) {
      if (!d.has_dim_value())
        return make_error(what + "has a symbolic dimension; give its shape with --shape too");
      c.dims.push_back(d.dim_value());
    }
  }
  auto count = element_count(c.dims);
  if (!count) return make_error(what + count.error());
  if (*count != values.size())
    return make_error(what + std::to_string(values.size()) + " value(s) given, its shape " +
                      dims_string(c.dims) + " holds " + std::to_string(*count));
  c.v = values;
  cast_to(&c, c.type);
  values_[vi.name()] = constant_value(std::move(c));
  return {};
}

uint32_t Importer::no_value(OperandType t) {
  Operand o;
  o.type = t;
  o.lifetime = Lifetime::NO_VALUE;
  return add_operand(std::move(o));
}

Result<void> Importer::add_graph_output(const std::string& name) {
  const auto it = values_.find(name);
  if (it == values_.end()) return make_error("graph output '" + name + "' is never produced");
  if (it->second.is_const)
    return make_error("graph output '" + name + "' is a constant (nothing to compute)");
  auto o = in_layout(it->second, identity(it->second.shape.size()));
  if (!o) return make_error("graph output '" + name + "': " + o.error());
  uint32_t out = *o;
  if (operand(out).lifetime != Lifetime::TEMPORARY_VARIABLE) {
    // A graph input or an output already listed: NNAPI wants a distinct operand, so copy (RESHAPE).
    auto copy = reshape(runtime(out, it->second.shape, identity(it->second.shape.size())), it->second.shape);
    if (!copy) return make_error("graph output '" + name + "': " + copy.error());
    out = copy->operand;
  }
  model_.main.operands[out].lifetime = Lifetime::SUBGRAPH_OUTPUT;
  model_.main.output_indexes.push_back(out);
  result_.output_names.push_back(name);
  return {};
}

const std::map<std::string, Importer::Handler>& mapped_operators() {
  static const std::map<std::string, Importer::Handler> kMapped = {
      {"Conv", &Importer::on_conv},
      {"BatchNormalization", &Importer::on_batch_norm},
      {"Gemm", &Importer::on_gemm},
      {"MatMul", &Importer::on_matmul},
      {"Relu", &Importer::on_unary},
      {"Sigmoid", &Importer::on_unary},
      {"Tanh", &Importer::on_unary},
      {"Clip", &Importer::on_clip},
      {"LeakyRelu", &Importer::on_leaky_relu},
      {"Max", &Importer::on_min_max},
      {"Min", &Importer::on_min_max},
      {"MaxPool", &Importer::on_pool},
      {"AveragePool", &Importer::on_pool},
      {"GlobalAveragePool", &Importer::on_global_pool},
      {"GlobalMaxPool", &Importer::on_global_pool},
      {"Add", &Importer::on_binary},
      {"Sub", &Importer::on_binary},
      {"Mul", &Importer::on_binary},
      {"Concat", &Importer::on_concat},
      {"Reshape", &Importer::on_reshape},
      {"Flatten", &Importer::on_reshape},
      {"Squeeze", &Importer::on_reshape},
      {"Unsqueeze", &Importer::on_reshape},
      {"Transpose", &Importer::on_transpose},
      {"Identity", &Importer::on_identity},
      {"Dropout", &Importer::on_dropout},
      {"Pad", &Importer::on_pad},
      {"Softmax", &Importer::on_softmax},
      {"Resize", &Importer::on_resize},
      {"Upsample", &Importer::on_resize},
      {"DequantizeLinear", &Importer::on_dequantize},
      {"QLinearConv", &Importer::on_qlinear_conv},
      {"QLinearMatMul", &Importer::on_qlinear_matmul},
      {"Abs", &Importer::on_unary},
      {"Exp", &Importer::on_unary},
      {"Log", &Importer::on_unary},
      {"Neg", &Importer::on_unary},
      {"Sqrt", &Importer::on_unary},
      {"Pow", &Importer::on_pow},
      {"Div", &Importer::on_div},
      {"Cast", &Importer::on_cast},
      {"QuantizeLinear", &Importer::on_quantize},
      {"Slice", &Importer::on_slice},
      {"LSTM", &Importer::on_lstm},
      {"If", &Importer::on_if},
      {"ReduceMean", &Importer::on_reduce},
      {"ReduceMax", &Importer::on_reduce},
      {"ReduceMin", &Importer::on_reduce},
      {"ReduceSum", &Importer::on_reduce},
  };
  return kMapped;
}

// NNAPI operations with a CPU reference kernel and no NPU path planned: imported with cpu_fallback.
const std::map<std::string, std::pair<Importer::Handler, const char*>>& cpu_only_operators() {
  static const std::map<std::string, std::pair<Importer::Handler, const char*>> kCpuOnly = {
      {"Floor", {&Importer::on_unary, "FLOOR"}},
      {"LRN", {&Importer::on_lrn, "LOCAL_RESPONSE_NORMALIZATION"}},
      {"DepthToSpace", {&Importer::on_depth_space, "DEPTH_TO_SPACE"}},
      {"SpaceToDepth", {&Importer::on_depth_space, "SPACE_TO_DEPTH"}},
  };
  return kCpuOnly;
}

Result<void> Importer::import_node(const onnx::NodeProto& n) {
  const auto& kMapped = mapped_operators();
  const auto& kCpuOnly = cpu_only_operators();
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return make_error("operator domain '" + n.domain() + "' is not supported");
  if (n.op_type() == "If") return on_if(n);
  if (n.output_size() < 1) return make_error("has no output");
  auto folded = fold(n);
  if (!folded) return make_error(folded.error());
  if (*folded) return {};
  if (n.op_type() == "Shape") {
    // Shape of a runtime value: its static shape, a constant.
    auto x = input(n, 0);
    if (!x) return make_error(x.error());
    HostTensor s;
    s.type = kInt64;
    s.dims = {static_cast<int64_t>((*x)->shape.size())};
    for (int64_t d : (*x)->shape) s.v.push_back(static_cast<double>(d));
    ++result_.folded_nodes;
    define(n, 0, constant_value(std::move(s)));
    return {};
  }
  Handler h = nullptr;
  if (const auto it = kMapped.find(n.op_type()); it != kMapped.end()) {
    h = it->second;
  } else if (const auto cpu = kCpuOnly.find(n.op_type()); cpu != kCpuOnly.end()) {
    if (!opt_.cpu_fallback)
      return make_error("operator " + n.op_type() +
                        " is not mapped to an NPU operation (--cpu-fallback runs it on the CPU device as " +
                        cpu->second.second + ")");
    h = cpu->second.first;
    result_.cpu_only_nodes.push_back(n.op_type() + " '" + n.name() + "'");
  } else {
    return make_error("operator " + n.op_type() + " is not supported by the importer");
  }
  if (n.output_size() < 1 || (n.output(0).empty() && n.op_type() != "LSTM"))
    return make_error("has no output");
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty() && n.op_type() != "Dropout" && n.op_type() != "MaxPool" && n.op_type() != "LSTM")
      return make_error("only the first output is supported");
  return (this->*h)(n);
}

// A RELU/RELU1/RELU6 whose input is the only use of a convolution's / elementwise op's / pool's output
// becomes that operation's fused activation.
void Importer::fuse_activations() {
  auto& g = model_.main;
  std::vector<uint32_t> uses(g.operands.size(), 0);
  std::vector<int64_t> producer(g.operands.size(), -1);
  for (uint32_t i = 0; i < g.operations.size(); ++i) {
    for (uint32_t in : g.operations[i].inputs) ++uses[in];
    for (uint32_t out : g.operations[i].outputs) producer[out] = i;
  }
  std::vector<bool> dead(g.operations.size(), false);
  for (uint32_t i = 0; i < g.operations.size(); ++i) {
    auto& r = g.operations[i];
    int32_t code = 0;
    if (r.type == OperationType::RELU)
      code = 1;
    else if (r.type == OperationType::RELU1)
      code = 2;
    else if (r.type == OperationType::RELU6)
      code = 3;
    if (code == 0) continue;
    const uint32_t x = r.inputs[0];
    if (producer[x] < 0 || uses[x] != 1 || g.operands[x].lifetime != Lifetime::TEMPORARY_VARIABLE) continue;
    auto& p = g.operations[static_cast<size_t>(producer[x])];
    const auto act = act_input_.find(static_cast<uint32_t>(producer[x]));
    if (act == act_input_.end()) continue;
    Operand& a = g.operands[p.inputs[static_cast<size_t>(act->second)]];
    if (models::scalar_i32(a) != 0) continue;
    write_element(OperandType::INT32, a.data, 0, code);
    p.outputs[0] = r.outputs[0];
    if (const auto c = convs_.find(x); c != convs_.end()) {
      convs_[r.outputs[0]] = c->second;
      convs_.erase(c);
    }
    producer[r.outputs[0]] = producer[x];
    dead[i] = true;
  }
  std::vector<Operation> kept;
  for (uint32_t i = 0; i < g.operations.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(g.operations[i]));
  g.operations = std::move(kept);
}

// Drops operands no operation or graph list refers to (folded-away constants, fused intermediates).
void Importer::compact() {
  auto& g = model_.main;
  std::vector<bool> used(g.operands.size(), false);
  for (const auto& o : g.operations) {
    for (uint32_t i : o.inputs) used[i] = true;
    for (uint32_t i : o.outputs) used[i] = true;
  }
  for (uint32_t i : g.input_indexes) used[i] = true;
  for (uint32_t i : g.output_indexes) used[i] = true;
  std::vector<uint32_t> remap(g.operands.size(), 0);
  std::vector<Operand> kept;
  for (uint32_t i = 0; i < g.operands.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<uint32_t>(kept.size());
    kept.push_back(std::move(g.operands[i]));
  }
  g.operands = std::move(kept);
  for (auto& o : g.operations) {
    for (uint32_t& i : o.inputs) i = remap[i];
    for (uint32_t& i : o.outputs) i = remap[i];
  }
  for (uint32_t& i : g.input_indexes) i = remap[i];
  for (uint32_t& i : g.output_indexes) i = remap[i];
}

Result<OnnxImported> Importer::run() {
  for (const auto& os : proto_.opset_import())
    if (os.domain().empty() || os.domain() == "ai.onnx") opset_ = os.version();
  const auto& g = proto_.graph();
  if (g.node_size() == 0) return make_error("the graph has no nodes");
  for (const auto& t : g.initializer()) {
    auto c = from_proto(t);
    if (!c) return make_error("initializer '" + t.name() + "': " + c.error());
    values_[t.name()] = constant_value(std::move(*c));
  }
  for (const auto& vi : g.input()) {
    if (values_.count(vi.name())) continue;  // an initializer with a default: a constant
    if (const auto it = opt_.constant_inputs.find(vi.name()); it != opt_.constant_inputs.end()) {
      onnx::TensorProto t;
      if (!t.ParseFromString(it->second))
        return make_error("constant input '" + vi.name() + "': not a TensorProto");
      auto c = from_proto(t);
      if (!c) return make_error("constant input '" + vi.name() + "': " + c.error());
      values_[vi.name()] = constant_value(std::move(*c));
      continue;
    }
    if (const auto it = opt_.input_values.find(vi.name()); it != opt_.input_values.end()) {
      if (auto r = bind_input_value(vi, it->second); !r) return make_error(r.error());
      continue;
    }
    if (auto r = add_graph_input(vi); !r) return make_error(r.error());
  }
  // Named keys, not structured bindings: clang 14 (the fuzz build) cannot capture a binding in a lambda.
  auto is_graph_input = [&](const std::string& name) {
    return std::any_of(g.input().begin(), g.input().end(), [&](const auto& vi) { return vi.name() == name; });
  };
  for (const auto& kv : opt_.input_values)
    if (!is_graph_input(kv.first))
      return make_error("--input-value " + kv.first + ": the model has no graph input of that name");
  for (const auto& kv : opt_.input_shapes)
    if (!is_graph_input(kv.first))
      return make_error("--shape " + kv.first + ": the model has no graph input of that name");
  // Census and use counts over every graph, If branches included (a branch reads outer values).
  std::function<void(const onnx::GraphProto&)> count = [&](const onnx::GraphProto& sub) {
    for (const auto& n : sub.node()) {
      ++result_.op_counts[n.op_type()];
      for (const auto& in : n.input()) ++consumers_[in];
      for (const auto& a : n.attribute())
        if (a.has_g()) {
          count(a.g());
          for (const auto& o : a.g().output()) ++consumers_[o.name()];
        }
    }
  };
  count(g);
  for (const auto& o : g.output()) {
    ++consumers_[o.name()];
    graph_outputs_.insert(o.name());
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (auto r = import_node(n); !r) {
      std::string hint;
      for (const auto& d : defaulted_dims_) hint += (hint.empty() ? "" : ", ") + d;
      if (!hint.empty())
        hint = " (symbolic input dimensions were taken as " + std::to_string(opt_.dynamic_dim) + ": " + hint +
               "; bind them with --shape NAME=AxB)";
      return make_error("node " + std::to_string(i) + " '" + n.name() + "' (" + n.op_type() +
                        "): " + r.error() + hint);
    }
  }
  if (g.output_size() == 0) return make_error("the graph has no outputs");
  for (const auto& o : g.output())
    if (auto r = add_graph_output(o.name()); !r) return make_error(r.error());
  fuse_activations();
  compact();
  result_.model = std::move(model_);
  return std::move(result_);
}

}  // namespace

std::vector<std::string> onnx_mapped_operators(bool cpu_fallback) {
  std::vector<std::string> ops;
  for (const auto& [name, h] : mapped_operators()) ops.push_back(name);
  if (cpu_fallback)
    for (const auto& [name, h] : cpu_only_operators()) ops.push_back(name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

namespace {

// "NAME=REST" split at the first '='; errors name the option and the argument.
Result<std::pair<std::string, std::string>> split_binding(const std::string& arg, const char* option) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    return make_error(std::string(option) + " '" + arg + "': expected NAME=VALUE");
  return std::make_pair(arg.substr(0, eq), arg.substr(eq + 1));
}

// Numbers separated by `sep`; each must parse completely.
Result<std::vector<double>> parse_numbers(const std::string& text, char sep, const std::string& context) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t next = std::min(text.find(sep, pos), text.size());
    const std::string item = text.substr(pos, next - pos);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(v))
      return make_error(context + ": '" + item + "' is not a number");
    out.push_back(v);
    pos = next + 1;
  }
  return out;
}

}  // namespace

Result<void> parse_input_shape(const std::string& arg, OnnxImportOptions* options) {
  auto b = split_binding(arg, "--shape");
  if (!b) return make_error(b.error());
  auto dims = parse_numbers(b->second, 'x', "--shape " + arg);
  if (!dims) return make_error(dims.error());
  std::vector<int64_t> shape;
  for (double d : *dims) {
    if (d < 1 || d != std::floor(d) || d > std::numeric_limits<uint32_t>::max())
      return make_error("--shape " + arg + ": extents must be whole numbers >= 1");
    shape.push_back(static_cast<int64_t>(d));
  }
  options->input_shapes[b->first] = shape;
  return {};
}

Result<void> parse_input_value(const std::string& arg, OnnxImportOptions* options) {
  auto b = split_binding(arg, "--input-value");
  if (!b) return make_error(b.error());
  auto v = parse_numbers(b->second, ',', "--input-value " + arg);
  if (!v) return make_error(v.error());
  options->input_values[b->first] = *v;
  return {};
}

bool is_onnx_path(std::string_view path) {
  return path.size() >= 5 && path.substr(path.size() - 5) == ".onnx";
}

Result<OnnxImported> import_onnx_bytes(std::string_view bytes, const std::string& source_name,
                                       const OnnxImportOptions& options) {
  onnx::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return make_error(source_name + ": not a valid ONNX model (protobuf parse failed)");
  if (!proto.has_graph()) return make_error(source_name + ": the model has no graph");
  Importer importer(proto, options);
  auto r = importer.run();
  if (!r) return make_error(source_name + ": " + r.error());
  return r;
}

Result<OnnxImported> import_onnx_file(const std::string& path, const OnnxImportOptions& options) {
  // protobuf's own limit: a message is below 2 GiB.
  auto bytes = io::read_file(path, std::numeric_limits<int>::max());
  if (!bytes) return make_error(bytes.error());
  return import_onnx_bytes(*bytes, path, options);
}

Result<Tensor> load_onnx_tensor(const std::string& path) {
  auto bytes = io::read_file(path, std::numeric_limits<int>::max());
  if (!bytes) return make_error(bytes.error());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes)) return make_error(path + ": not a TensorProto");
  auto h = from_proto(proto);
  if (!h) return make_error(path + ": " + h.error());
  auto t = runtime_type(h->type);
  if (!t) return make_error(path + ": element type " + type_name(h->type) + " is not supported");
  Tensor out;
  out.type = *t;
  if (*t == OperandType::TENSOR_QUANT8_ASYMM || *t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED)
    out.scale = 1.0f;
  for (int64_t d : h->dims) {
    if (d < 1 || d > std::numeric_limits<uint32_t>::max())
      return make_error(path + ": empty or huge dimension");
    out.dimensions.push_back(static_cast<uint32_t>(d));
  }
  out.data.resize(h->v.size() * element_size(*t));
  for (size_t i = 0; i < h->v.size(); ++i) write_element(*t, out.data, i, h->v[i]);
  return out;
}

}  // namespace npu::models
