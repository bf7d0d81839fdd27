#include "npu/hal/graph_dump.h"

#include <cstdio>
#include <cstring>

#include "npu/models/extensions.h"

namespace npu::hal {
namespace {

using models::Lifetime;
using models::OperandType;

std::string operand_style(const models::Operand& o) {
  switch (o.lifetime) {
    case Lifetime::SUBGRAPH_INPUT:
    case Lifetime::SUBGRAPH_OUTPUT:
      return "style=bold";
    case Lifetime::SUBGRAPH:
      return "shape=folder";
    default:
      return "style=solid";
  }
}

// DOT string escaping; a line break is added afterwards as DOT's own "\n", never escaped.
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A scalar constant's value as text ("" when it has none to show).
std::string scalar_value(const models::Operand& o) {
  if (o.data.size() != models::element_size(o.type) || o.data.empty()) return "";
  char text[32] = "";
  switch (o.type) {
    case OperandType::INT32: {
      int32_t v;
      std::memcpy(&v, o.data.data(), sizeof v);
      std::snprintf(text, sizeof text, "%d", v);
      break;
    }
    case OperandType::UINT32: {
      uint32_t v;
      std::memcpy(&v, o.data.data(), sizeof v);
      std::snprintf(text, sizeof text, "%u", v);
      break;
    }
    case OperandType::FLOAT32: {
      float v;
      std::memcpy(&v, o.data.data(), sizeof v);
      std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
      break;
    }
    case OperandType::BOOL:
      return o.data[0] ? "true" : "false";
    default:
      return "";
  }
  return text;
}

// What a constant or omitted input contributes to its operation's box: scalars by value, tensors by
// type and shape. Drawn inside the box, they keep a model's graph to its data flow.
std::string folded_input(const models::Operand& o, size_t position) {
  std::string text = "in" + std::to_string(position) + ": ";
  if (o.lifetime == Lifetime::NO_VALUE) return text + "(none)";
  if (o.dimensions.empty()) {
    const std::string v = scalar_value(o);
    return text + (v.empty() ? std::string(models::to_string(o.type)) : v);
  }
  return text + "const " + std::string(models::to_string(o.type)) + " " +
         models::dims_to_string(o.dimensions);
}

bool folded(const models::Operand& o) { return o.is_constant() || o.lifetime == Lifetime::NO_VALUE; }

// One subgraph; node names are prefixed so subgraphs never share a node.
void dump_subgraph(const models::Model& m, const models::Subgraph& g, const std::string& prefix,
                   std::string& out) {
  const std::string indent = prefix.empty() ? "  " : "    ";
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const auto& o = g.operands[i];
    if (folded(o)) continue;
    std::string label = escape("#" + std::to_string(i) + " " + std::string(models::to_string(o.type)));
    if (o.lifetime == Lifetime::SUBGRAPH)
      label += escape(" → referenced[" + std::to_string(o.subgraph) + "]");
    else
      label += "\\n" + escape(models::dims_to_string(o.dimensions));
    if (o.lifetime == Lifetime::SUBGRAPH_INPUT) label += "\\ninput";
    if (o.lifetime == Lifetime::SUBGRAPH_OUTPUT) label += "\\noutput";
    out +=
        indent + prefix + "d" + std::to_string(i) + " [label=\"" + label + "\", " + operand_style(o) + "];\n";
  }
  auto operand_node = [&](uint32_t idx) {
    if (idx < g.operands.size()) return prefix + "d" + std::to_string(idx);
    const std::string bad = prefix + "bad" + std::to_string(idx);
    out += indent + bad + " [label=\"?" + std::to_string(idx) + "\", color=red];\n";
    return bad;
  };
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    const std::string node = prefix + "op" + std::to_string(k);
    std::string label = escape(std::to_string(k) + ": " + models::operation_name(m, op.type));
    for (size_t j = 0; j < op.inputs.size(); ++j)
      if (op.inputs[j] < g.operands.size() && folded(g.operands[op.inputs[j]]))
        label += "\\l" + escape(folded_input(g.operands[op.inputs[j]], j));
    out += indent + node + " [shape=box, label=\"" + label +
           (label.find("\\l") == std::string::npos ? "" : "\\l") + "\"];\n";
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      if (op.inputs[j] < g.operands.size() && folded(g.operands[op.inputs[j]])) continue;
      out +=
          indent + operand_node(op.inputs[j]) + " -> " + node + " [label=\"" + std::to_string(j) + "\"];\n";
    }
    for (size_t j = 0; j < op.outputs.size(); ++j)
      out +=
          indent + node + " -> " + operand_node(op.outputs[j]) + " [label=\"" + std::to_string(j) + "\"];\n";
  }
}

}  // namespace

std::string graph_dump(const models::Model& model) {
  std::string out = "digraph model {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
  if (model.relax_computation_float32_to_float16) out += "  label=\"relaxComputationFloat32toFloat16\";\n";
  dump_subgraph(model, model.main, "", out);
  for (size_t r = 0; r < model.referenced.size(); ++r) {
    const std::string prefix = "r" + std::to_string(r) + "_";
    out += "  subgraph cluster_" + std::to_string(r) + " {\n    label=\"referenced[" + std::to_string(r) +
           "]\";\n";
    dump_subgraph(model, model.referenced[r], prefix, out);
    out += "  }\n";
  }
  return out + "}\n";
}

}  // namespace npu::hal
