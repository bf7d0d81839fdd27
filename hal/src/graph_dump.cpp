#include "npu/hal/graph_dump.h"

namespace npu::hal {
namespace {

using models::Lifetime;

std::string operand_style(const models::Operand& o) {
  switch (o.lifetime) {
    case Lifetime::SUBGRAPH_INPUT:
    case Lifetime::SUBGRAPH_OUTPUT:
      return "style=bold";
    case Lifetime::CONSTANT_COPY:
    case Lifetime::CONSTANT_REFERENCE:
      return "style=filled, fillcolor=lightgrey";
    case Lifetime::NO_VALUE:
      return "style=dashed";
    case Lifetime::SUBGRAPH:
      return "shape=folder";
    case Lifetime::TEMPORARY_VARIABLE:
      break;
  }
  return "style=solid";
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// One subgraph; node names are prefixed so subgraphs never share a node.
void dump_subgraph(const models::Subgraph& g, const std::string& prefix, std::string& out) {
  const std::string indent = prefix.empty() ? "  " : "    ";
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const auto& o = g.operands[i];
    std::string label = "#" + std::to_string(i) + " " + std::string(models::to_string(o.type));
    if (o.lifetime == Lifetime::SUBGRAPH)
      label += " → referenced[" + std::to_string(o.subgraph) + "]";
    else
      label += "\\n" + models::dims_to_string(o.dimensions);
    if (o.lifetime == Lifetime::SUBGRAPH_INPUT) label += "\\ninput";
    if (o.lifetime == Lifetime::SUBGRAPH_OUTPUT) label += "\\noutput";
    out += indent + prefix + "d" + std::to_string(i) + " [label=\"" + escape(label) + "\", " +
           operand_style(o) + "];\n";
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
    out += indent + node + " [shape=box, label=\"" + std::to_string(k) + ": " +
           std::string(models::to_string(op.type)) + "\"];\n";
    for (size_t j = 0; j < op.inputs.size(); ++j)
      out +=
          indent + operand_node(op.inputs[j]) + " -> " + node + " [label=\"" + std::to_string(j) + "\"];\n";
    for (size_t j = 0; j < op.outputs.size(); ++j)
      out +=
          indent + node + " -> " + operand_node(op.outputs[j]) + " [label=\"" + std::to_string(j) + "\"];\n";
  }
}

}  // namespace

std::string graph_dump(const models::Model& model) {
  std::string out = "digraph model {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
  if (model.relax_computation_float32_to_float16) out += "  label=\"relaxComputationFloat32toFloat16\";\n";
  dump_subgraph(model.main, "", out);
  for (size_t r = 0; r < model.referenced.size(); ++r) {
    const std::string prefix = "r" + std::to_string(r) + "_";
    out += "  subgraph cluster_" + std::to_string(r) + " {\n    label=\"referenced[" + std::to_string(r) +
           "]\";\n";
    dump_subgraph(model.referenced[r], prefix, out);
    out += "  }\n";
  }
  return out + "}\n";
}

}  // namespace npu::hal
