#include "npu/models/validate.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "npu/models/extensions.h"

namespace npu::models {
namespace {

std::string name(OperandType t) { return std::string(to_string(t)); }
std::string name(Lifetime l) { return std::string(to_string(l)); }

Error err(const std::string& where, const std::string& what) { return make_error(where + ": " + what); }

std::string range_msg(int64_t lo, int64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

bool positive_finite(float s) { return std::isfinite(s) && s > 0.0f; }

Result<void> check_quant(const Operand& op, const std::string& where) {
  const OperandType t = op.type;
  auto zp_in = [&](int64_t lo, int64_t hi) -> Result<void> {
    if (op.zero_point < lo || op.zero_point > hi) {
      return err(where, name(t) + " zeroPoint " + std::to_string(op.zero_point) + " out of range " +
                            range_msg(lo, hi));
    }
    return {};
  };
  auto scale_positive = [&]() -> Result<void> {
    if (!positive_finite(op.scale))
      return err(where, name(t) + " needs scale > 0, got " + std::to_string(op.scale));
    return {};
  };
  switch (t) {
    case OperandType::TENSOR_QUANT8_ASYMM: {
      if (auto r = scale_positive(); !r) return r;
      return zp_in(0, 255);
    }
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      if (auto r = scale_positive(); !r) return r;
      return zp_in(-128, 127);
    }
    case OperandType::TENSOR_QUANT16_ASYMM: {
      if (auto r = scale_positive(); !r) return r;
      return zp_in(0, 65535);
    }
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_SYMM: {
      if (auto r = scale_positive(); !r) return r;
      return zp_in(0, 0);
    }
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      if (auto r = zp_in(0, 0); !r) return r;
      if (!op.per_channel) return err(where, "TENSOR_QUANT8_SYMM_PER_CHANNEL needs channelQuant parameters");
      const PerChannelQuant& pc = *op.per_channel;
      if (op.dimensions.empty()) return err(where, "TENSOR_QUANT8_SYMM_PER_CHANNEL needs a known rank");
      if (pc.channel_dim >= op.dimensions.size()) {
        return err(where, "channelDim " + std::to_string(pc.channel_dim) + " out of range for rank " +
                              std::to_string(op.dimensions.size()));
      }
      const uint32_t channels = op.dimensions[pc.channel_dim];
      if (channels != 0 && pc.scales.size() != channels) {
        return err(where, "channelQuant has " + std::to_string(pc.scales.size()) + " scales, expected " +
                              std::to_string(channels) + " (dimension " + std::to_string(pc.channel_dim) +
                              ")");
      }
      for (size_t i = 0; i < pc.scales.size(); ++i) {
        if (!positive_finite(pc.scales[i])) {
          return err(where, "channelQuant scales[" + std::to_string(i) + "] must be > 0, got " +
                                std::to_string(pc.scales[i]));
        }
      }
      return {};
    }
    case OperandType::TENSOR_INT32:
      // Bias tensors carry input_scale * filter_scale; plain int tensors carry 0.
      if (!std::isfinite(op.scale) || op.scale < 0.0f) {
        return err(where, "TENSOR_INT32 needs scale >= 0, got " + std::to_string(op.scale));
      }
      return {};
    default:
      if (op.scale != 0.0f || op.zero_point != 0) {
        return err(where, name(t) + " must have scale 0 and zeroPoint 0 (got " + std::to_string(op.scale) +
                              ", " + std::to_string(op.zero_point) + ")");
      }
      return {};
  }
}

}  // namespace

Result<void> validate_operand(const Operand& op, size_t num_referenced, const std::string& where) {
  // No extension this build knows defines operand types (validate_extensions names the type at fault).
  if (is_extension_type(op.type))
    return err(where, "extension operand type " + std::to_string(static_cast<uint32_t>(op.type)) +
                          " (no known extension defines operand types)");
  if (!is_valid(op.type))
    return err(where, "invalid operand type code " + std::to_string(static_cast<int32_t>(op.type)));
  if (!is_valid(op.lifetime)) {
    return err(where, "invalid lifetime code " + std::to_string(static_cast<int>(op.lifetime)));
  }
  if ((op.type == OperandType::SUBGRAPH) != (op.lifetime == Lifetime::SUBGRAPH)) {
    return err(where, "type " + name(op.type) + " with lifetime " + name(op.lifetime) +
                          " (type SUBGRAPH and lifetime SUBGRAPH go together)");
  }
  if (op.type == OperandType::SUBGRAPH) {
    if (op.subgraph >= num_referenced) {
      return err(where, "SUBGRAPH reference " + std::to_string(op.subgraph) + " out of range (model has " +
                            std::to_string(num_referenced) + " referenced subgraphs)");
    }
    if (!op.dimensions.empty() || !op.data.empty())
      return err(where, "SUBGRAPH operand must have no dimensions or data");
    return {};
  }
  if (!is_tensor(op.type) && !op.dimensions.empty()) {
    return err(where,
               "scalar " + name(op.type) + " must have no dimensions, got " + dims_to_string(op.dimensions));
  }
  if (op.per_channel && op.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return err(where, "channelQuant is only valid on TENSOR_QUANT8_SYMM_PER_CHANNEL, not " + name(op.type));
  }
  if (op.element_count() > max_operand_bytes() / element_size(op.type)) {
    return err(where, "operand too large (" + name(op.type) + " " + dims_to_string(op.dimensions) + ")");
  }
  if (auto r = check_quant(op, where); !r) return r;
  if (op.is_constant()) {
    if (!op.fully_specified()) {
      return err(where,
                 "constant operand needs fully specified dimensions, got " + dims_to_string(op.dimensions));
    }
    if (op.values_omitted) {
      if (!op.data.empty()) return err(where, "constant with omitted values must carry no data");
    } else if (op.data.size() != op.byte_size()) {
      return err(where, "constant data has " + std::to_string(op.data.size()) + " bytes, expected " +
                            std::to_string(op.byte_size()) + " (" + name(op.type) + " " +
                            dims_to_string(op.dimensions) + ")");
    }
  } else if (!op.data.empty() || op.values_omitted) {
    return err(where, "operand with lifetime " + name(op.lifetime) + " must not have data");
  }
  return {};
}

Result<void> validate_subgraph(const Subgraph& sg, size_t num_referenced, const std::string& prefix) {
  const size_t n = sg.operands.size();
  const std::string graph = prefix.empty() ? "model" : prefix.substr(0, prefix.size() - 1);
  if (sg.operations.empty()) return err(graph, "graph has no operations");
  if (sg.output_indexes.empty()) return err(graph, "graph has no outputs");
  for (size_t i = 0; i < n; ++i) {
    if (auto r =
            validate_operand(sg.operands[i], num_referenced, prefix + "operands[" + std::to_string(i) + "]");
        !r) {
      return r;
    }
  }
  auto out_of_range = [&](const std::string& where, uint32_t index) {
    return err(where, "operand " + std::to_string(index) + " out of range (model has " + std::to_string(n) +
                          " operands)");
  };

  // Graph inputs and outputs: in range, no repeats, and lifetimes that agree with the lists.
  std::vector<uint8_t> listed(n, 0);
  for (int pass = 0; pass < 2; ++pass) {
    const bool inputs = pass == 0;
    const auto& list = inputs ? sg.input_indexes : sg.output_indexes;
    const Lifetime want = inputs ? Lifetime::SUBGRAPH_INPUT : Lifetime::SUBGRAPH_OUTPUT;
    const std::string key = inputs ? "inputIndexes" : "outputIndexes";
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = prefix + key + "[" + std::to_string(i) + "]";
      const uint32_t idx = list[i];
      if (idx >= n) return out_of_range(where, idx);
      if (sg.operands[idx].lifetime != want) {
        return err(where, "operand " + std::to_string(idx) + " has lifetime " +
                              name(sg.operands[idx].lifetime) + ", expected " + name(want));
      }
      if (listed[idx]) return err(where, "operand " + std::to_string(idx) + " listed twice");
      listed[idx] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const Lifetime l = sg.operands[i].lifetime;
    if ((l == Lifetime::SUBGRAPH_INPUT || l == Lifetime::SUBGRAPH_OUTPUT) && !listed[i]) {
      return err(prefix + "operands[" + std::to_string(i) + "]",
                 "lifetime " + name(l) + " but not listed in " +
                     (l == Lifetime::SUBGRAPH_INPUT ? "inputIndexes" : "outputIndexes"));
    }
  }

  // Writers: each operation output is a temporary or graph output, written once.
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> writer(n, kNone);
  for (size_t k = 0; k < sg.operations.size(); ++k) {
    const Operation& op = sg.operations[k];
    const std::string where = prefix + "operations[" + std::to_string(k) + "]";
    if (!is_valid(op.type) && !is_extension_type(op.type)) {  // extension types: validate_extensions
      return err(where, "invalid operation type code " + std::to_string(static_cast<int32_t>(op.type)));
    }
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      if (op.inputs[j] >= n) return out_of_range(where + ".inputs[" + std::to_string(j) + "]", op.inputs[j]);
    }
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const std::string ow = where + ".outputs[" + std::to_string(j) + "]";
      const uint32_t idx = op.outputs[j];
      if (idx >= n) return out_of_range(ow, idx);
      const Lifetime l = sg.operands[idx].lifetime;
      if (l != Lifetime::TEMPORARY_VARIABLE && l != Lifetime::SUBGRAPH_OUTPUT) {
        return err(ow, "operand " + std::to_string(idx) + " has lifetime " + name(l) +
                           "; operation outputs must be TEMPORARY_VARIABLE or SUBGRAPH_OUTPUT");
      }
      if (writer[idx] != kNone) {
        return err(ow, "operand " + std::to_string(idx) + " is already written by " + prefix + "operations[" +
                           std::to_string(writer[idx]) + "]");
      }
      writer[idx] = k;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const Lifetime l = sg.operands[i].lifetime;
    if ((l == Lifetime::TEMPORARY_VARIABLE || l == Lifetime::SUBGRAPH_OUTPUT) && writer[i] == kNone) {
      return err(prefix + "operands[" + std::to_string(i) + "]",
                 name(l) + " is never written by any operation");
    }
  }
  // NNAPI requires operations in topological order: every computed input comes from an earlier one.
  for (size_t k = 0; k < sg.operations.size(); ++k) {
    const Operation& op = sg.operations[k];
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      const uint32_t idx = op.inputs[j];
      const Lifetime l = sg.operands[idx].lifetime;
      if ((l == Lifetime::TEMPORARY_VARIABLE || l == Lifetime::SUBGRAPH_OUTPUT) && writer[idx] >= k) {
        return err(prefix + "operations[" + std::to_string(k) + "].inputs[" + std::to_string(j) + "]",
                   "operand " + std::to_string(idx) + " is read before it is written (by " + prefix +
                       "operations[" + std::to_string(writer[idx]) +
                       "]); operations must be in topological order");
      }
    }
  }
  return {};
}

Result<void> validate_model(const Model& model) {
  if (auto res = validate_extensions(model); !res) return res;
  const size_t r = model.referenced.size();
  if (auto res = validate_subgraph(model.main, r, ""); !res) return res;
  for (size_t i = 0; i < r; ++i) {
    if (auto res = validate_subgraph(model.referenced[i], r, "referenced[" + std::to_string(i) + "].");
        !res) {
      return res;
    }
  }
  // SUBGRAPH references must form no cycle (an IF/WHILE body cannot contain itself). Colour-marking
  // depth-first search, iterative so a long chain cannot overflow the stack.
  std::vector<std::vector<uint32_t>> edges(r);
  for (size_t i = 0; i < r; ++i) {
    for (const Operand& op : model.referenced[i].operands) {
      if (op.lifetime == Lifetime::SUBGRAPH) edges[i].push_back(op.subgraph);
    }
  }
  std::vector<uint8_t> state(r, 0);  // 0 new, 1 on stack, 2 done
  for (size_t start = 0; start < r; ++start) {
    if (state[start]) continue;
    std::vector<std::pair<uint32_t, size_t>> stack{{static_cast<uint32_t>(start), 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < edges[node].size()) {
        const uint32_t to = edges[node][next++];
        if (state[to] == 1) {
          return err("referenced[" + std::to_string(node) + "]",
                     "references referenced[" + std::to_string(to) + "], which leads back to it (cycle)");
        }
        if (state[to] == 0) {
          state[to] = 1;
          stack.emplace_back(to, 0);
        }
      } else {
        state[node] = 2;
        stack.pop_back();
      }
    }
  }
  // Nesting depth: levels[i] counts subgraph i and those below it on its longest chain (a main graph
  // referencing i nests it that deep). Each relaxation pass settles at least one more level, so a chain
  // past the limit is found within kMaxControlFlowDepth + 1 passes, with no recursion.
  std::vector<uint32_t> levels(r, 1);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < r; ++i)
      for (uint32_t to : edges[i])
        if (levels[to] + 1 > levels[i]) {
          levels[i] = levels[to] + 1;
          changed = true;
        }
    for (size_t i = 0; i < r; ++i)
      if (levels[i] > kMaxControlFlowDepth)
        return err("referenced[" + std::to_string(i) + "]",
                   "IF/WHILE subgraphs nested deeper than " + std::to_string(kMaxControlFlowDepth) +
                       " levels (a chain of " + std::to_string(levels[i]) + " or more starts here)");
  }
  return {};
}

}  // namespace npu::models
