#include "npu/hal/graph_dump.h"

#include <cstdio>
#include <cstring>
#include <vector>

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

// A constant tensor as its box shows it: type and shape ("TENSOR_QUANT8_ASYMM [32,3,3,3]").
std::string tensor_text(const models::Operand& o) {
  return std::string(models::to_string(o.type)) + " " + models::dims_to_string(o.dimensions);
}

bool folded(const models::Operand& o) { return o.is_constant() || o.lifetime == Lifetime::NO_VALUE; }

// Scalars and omitted inputs, several to a line ("in3=1 in4=2 in5=2 in6=1 in7=(none)"): one line per
// parameter used to make a CONV_2D box ten lines tall.
constexpr size_t kScalarsPerLine = 8;

// One subgraph; node names are prefixed so subgraphs never share a node. Only graph inputs, graph
// outputs and subgraph references are nodes of their own; a value passed from one operation to the next
// is the edge between them and is named on its producer's title line ("3: ADD → #7 TYPE [dims]"), so a chain
// of operations is one rank per operation.
void dump_subgraph(const models::Model& m, const models::Subgraph& g, const std::string& prefix,
                   std::string& out) {
  const std::string indent = prefix.empty() ? "  " : "    ";
  std::vector<int64_t> producer(g.operands.size(), -1);
  for (size_t k = 0; k < g.operations.size(); ++k)
    for (uint32_t idx : g.operations[k].outputs)
      if (idx < g.operands.size()) producer[idx] = static_cast<int64_t>(k);
  // A value is drawn as a node when it is a graph input or output, a subgraph reference, or nothing in
  // this graph produces it (a broken model, drawn as it is).
  auto has_node = [&](uint32_t idx) {
    const auto& o = g.operands[idx];
    return !folded(o) && (o.lifetime != Lifetime::TEMPORARY_VARIABLE || producer[idx] < 0);
  };
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const auto& o = g.operands[i];
    if (!has_node(static_cast<uint32_t>(i))) continue;
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
  // Where a value comes from: its producer's box, or its own node.
  auto source_node = [&](uint32_t idx) {
    if (idx >= g.operands.size()) {
      const std::string bad = prefix + "bad" + std::to_string(idx);
      out += indent + bad + " [label=\"?" + std::to_string(idx) + "\", color=red];\n";
      return bad;
    }
    if (!has_node(idx)) return prefix + "op" + std::to_string(producer[idx]);
    return prefix + "d" + std::to_string(idx);
  };
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    const std::string node = prefix + "op" + std::to_string(k);
    std::string label = escape(std::to_string(k) + ": " + models::operation_name(m, op.type));
    // Its outputs: the first on the title line, any other on a line of its own.
    bool first_output = true;
    for (uint32_t idx : op.outputs)
      if (idx < g.operands.size() && !has_node(idx)) {
        label += (first_output ? " " : "\\l") +
                 escape("→ #" + std::to_string(idx) + " " + tensor_text(g.operands[idx]));
        first_output = false;
      }
    std::string scalars;
    size_t on_line = 0;
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      if (op.inputs[j] >= g.operands.size() || !folded(g.operands[op.inputs[j]])) continue;
      const auto& o = g.operands[op.inputs[j]];
      const std::string in = "in" + std::to_string(j);
      if (o.lifetime != Lifetime::NO_VALUE && !o.dimensions.empty()) {
        label += "\\l" + escape(in + ": const " + tensor_text(o));
        continue;
      }
      const std::string v = o.lifetime == Lifetime::NO_VALUE ? "(none)" : scalar_value(o);
      scalars += (on_line == 0                     ? ""
                  : on_line % kScalarsPerLine == 0 ? "\\l"
                                                   : " ") +
                 escape(in + "=" + (v.empty() ? std::string(models::to_string(o.type)) : v));
      ++on_line;
    }
    if (!scalars.empty()) label += "\\l" + scalars;
    out += indent + node + " [shape=box, label=\"" + label + "\\l\"];\n";
    // Edges into the box, labelled with the input position only where there is more than one.
    size_t flowing = 0;
    for (uint32_t idx : op.inputs) flowing += idx >= g.operands.size() || !folded(g.operands[idx]);
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      if (op.inputs[j] < g.operands.size() && folded(g.operands[op.inputs[j]])) continue;
      out += indent + source_node(op.inputs[j]) + " -> " + node +
             (flowing > 1 ? " [headlabel=\"" + std::to_string(j) + "\"]" : "") + ";\n";
    }
    for (uint32_t idx : op.outputs)
      if (idx >= g.operands.size() || has_node(idx)) out += indent + node + " -> " + source_node(idx) + ";\n";
  }
}

}  // namespace

std::string graph_dump(const models::Model& model) {
  // Tight ranks: a network is mostly a chain, one rank per operation.
  std::string out =
      "digraph model {\n  rankdir=TB;\n  ranksep=0.2;\n  nodesep=0.25;\n"
      "  node [fontname=\"monospace\", fontsize=10, margin=\"0.08,0.03\"];\n"
      "  edge [fontname=\"monospace\", fontsize=9, arrowsize=0.6];\n";
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
