// The ONNX importer core: the graph walk, operator dispatch, activation fusion and the public entry
// points. Operators live in ops_*.cpp, constant folding in fold.cpp.
#include "importer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "npu/common/file_io.h"

namespace npu::models::onnx_import {

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

// The one registration table: every ONNX operator the importer knows, with its runtime handler, its
// constant fold, or both. Operators only the CPU reference runs (no NPU path planned) name their NNAPI
// operation and import only with cpu_fallback.
const std::map<std::string, OperatorEntry>& operator_table() {
  static const std::map<std::string, OperatorEntry> kTable = {
      // Convolution and matrix operators (ops_conv.cpp).
      {"Conv", {&Importer::on_conv}},
      {"BatchNormalization", {&Importer::on_batch_norm}},
      {"Gemm", {&Importer::on_gemm}},
      {"MatMul", {&Importer::on_matmul}},
      {"QLinearConv", {&Importer::on_qlinear_conv}},
      {"QLinearMatMul", {&Importer::on_qlinear_matmul}},
      // Elementwise operators (ops_elementwise.cpp).
      {"Relu", {&Importer::on_unary}},
      {"Sigmoid", {&Importer::on_unary}},
      {"Tanh", {&Importer::on_unary}},
      {"Abs", {&Importer::on_unary}},
      {"Exp", {&Importer::on_unary}},
      {"Log", {&Importer::on_unary}},
      {"Neg", {&Importer::on_unary}},
      {"Sqrt", {&Importer::on_unary}},
      {"Floor", {&Importer::on_unary, nullptr, "FLOOR"}},
      {"Clip", {&Importer::on_clip}},
      {"LeakyRelu", {&Importer::on_leaky_relu}},
      {"Max", {&Importer::on_min_max}},
      {"Min", {&Importer::on_min_max}},
      {"Add", {&Importer::on_binary, fold_arithmetic}},
      {"Sub", {&Importer::on_binary, fold_arithmetic}},
      {"Mul", {&Importer::on_binary, fold_arithmetic}},
      {"Div", {&Importer::on_div, fold_arithmetic}},
      {"Pow", {&Importer::on_pow}},
      {"Cast", {&Importer::on_cast, fold_cast}},
      {"QuantizeLinear", {&Importer::on_quantize, fold_quantize}},
      {"DequantizeLinear", {&Importer::on_dequantize, fold_dequantize}},
      // Layout and shape operators (ops_shape.cpp).
      {"Concat", {&Importer::on_concat, fold_concat}},
      {"Reshape", {&Importer::on_reshape, fold_reshape}},
      {"Flatten", {&Importer::on_reshape, fold_reshape}},
      {"Squeeze", {&Importer::on_reshape, fold_reshape}},
      {"Unsqueeze", {&Importer::on_reshape, fold_reshape}},
      {"Transpose", {&Importer::on_transpose, fold_transpose}},
      {"Identity", {&Importer::on_identity, fold_identity}},
      {"Dropout", {&Importer::on_dropout}},
      {"Pad", {&Importer::on_pad}},
      {"Slice", {&Importer::on_slice, fold_slice}},
      {"Resize", {&Importer::on_resize}},
      {"Upsample", {&Importer::on_resize}},
      {"DepthToSpace", {&Importer::on_depth_space, nullptr, "DEPTH_TO_SPACE"}},
      {"SpaceToDepth", {&Importer::on_depth_space, nullptr, "SPACE_TO_DEPTH"}},
      // Pooling, reductions, normalisation (ops_pool_reduce.cpp).
      {"MaxPool", {&Importer::on_pool}},
      {"AveragePool", {&Importer::on_pool}},
      {"GlobalAveragePool", {&Importer::on_global_pool}},
      {"GlobalMaxPool", {&Importer::on_global_pool}},
      {"ReduceMean", {&Importer::on_reduce}},
      {"ReduceMax", {&Importer::on_reduce}},
      {"ReduceMin", {&Importer::on_reduce}},
      {"ReduceSum", {&Importer::on_reduce}},
      {"Softmax", {&Importer::on_softmax}},
      {"LRN", {&Importer::on_lrn, nullptr, "LOCAL_RESPONSE_NORMALIZATION"}},
      // Recurrent layers and control flow (ops_recurrent.cpp, If below).
      {"LSTM", {&Importer::on_lstm}},
      {"If", {&Importer::on_if}},
      // Folded only: imported when every input is a constant (Shape also of a runtime value, below).
      {"Constant", {nullptr, fold_constant}},
      {"Shape", {nullptr, fold_shape}},
      {"ConstantOfShape", {nullptr, fold_constant_of_shape}},
      {"Gather", {nullptr, fold_gather}},
      {"Equal", {nullptr, fold_compare}},
      {"Less", {nullptr, fold_compare}},
      {"Greater", {nullptr, fold_compare}},
      {"Not", {nullptr, fold_not}},
  };
  return kTable;
}

Result<void> Importer::import_node(const onnx::NodeProto& n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return make_error("operator domain '" + n.domain() + "' is not supported");
  // Before folding and the output checks: the taken branch, not the inputs, says what an If defines.
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
  const auto& table = operator_table();
  const auto entry = table.find(n.op_type());
  if (entry == table.end() || entry->second.handler == nullptr)
    return make_error("operator " + n.op_type() + " is not supported by the importer");
  if (const char* cpu_op = entry->second.cpu_only) {
    if (!opt_.cpu_fallback)
      return make_error("operator " + n.op_type() +
                        " is not mapped to an NPU operation (--cpu-fallback runs it on the CPU device as " +
                        cpu_op + ")");
    result_.cpu_only_nodes.push_back(n.op_type() + " '" + n.name() + "'");
  }
  if (n.output_size() < 1 || (n.output(0).empty() && n.op_type() != "LSTM"))
    return make_error("has no output");
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty() && n.op_type() != "Dropout" && n.op_type() != "MaxPool" && n.op_type() != "LSTM")
      return make_error("only the first output is supported");
  return (this->*entry->second.handler)(n);
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

}  // namespace npu::models::onnx_import

namespace npu::models {

using namespace onnx_import;

std::vector<std::string> onnx_mapped_operators(bool cpu_fallback) {
  std::vector<std::string> ops;
  for (const auto& [name, entry] : operator_table())
    if (entry.handler != nullptr && (entry.cpu_only == nullptr || cpu_fallback)) ops.push_back(name);
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
