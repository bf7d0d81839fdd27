// Signature checks of IF and WHILE (see control_flow.h).
#include "npu/hal/ops/control_flow.h"

#include "kernel_util.h"

namespace npu::hal::ops {

using models::Lifetime;
using models::Operand;
using models::OperandType;
using models::Subgraph;

namespace {

std::string describe(OperandType t, const std::vector<uint32_t>& dims) {
  return std::string(models::to_string(t)) + " " + models::dims_to_string(dims);
}

// "input 0 (condition)" is a TENSOR_BOOL8 of shape [1].
Result<void> check_condition(OperandType t, const std::vector<uint32_t>& dims, const std::string& what) {
  if (t != OperandType::TENSOR_BOOL8 || dims.size() != 1 || dims[0] != 1)
    return make_error(what + ": expected TENSOR_BOOL8 [1], got " + describe(t, dims));
  return {};
}

// Two operands can stand for each other across a subgraph boundary: same type and quantisation, and
// shapes that agree wherever both are known (unknown rank or extents match anything).
Result<void> check_compatible(const Operand& outer, const std::vector<uint32_t>& outer_dims,
                              const Operand& inner, const std::string& what) {
  bool ok = outer.type == inner.type && outer.scale == inner.scale && outer.zero_point == inner.zero_point;
  if (ok && outer.per_channel && inner.per_channel)
    ok = outer.per_channel->scales == inner.per_channel->scales &&
         outer.per_channel->channel_dim == inner.per_channel->channel_dim;
  if (ok && !outer_dims.empty() && !inner.dimensions.empty())
    ok = detail::merge_shapes(outer_dims, inner.dimensions).has_value();
  if (!ok) {
    std::string q;
    if (models::is_tensor(inner.type) && (inner.scale != 0.0f || outer.scale != 0.0f))
      q = " (scale " + std::to_string(outer.scale) + " zeroPoint " + std::to_string(outer.zero_point) +
          " against " + std::to_string(inner.scale) + " " + std::to_string(inner.zero_point) + ")";
    return make_error(what + ": " + describe(outer.type, outer_dims) + " does not match the subgraph's " +
                      describe(inner.type, inner.dimensions) + q);
  }
  return {};
}

// The subgraph an input names, or an error if that input is not a SUBGRAPH operand.
Result<const Subgraph*> subgraph_input(const models::Model& model, const Subgraph& sg,
                                       const models::Operation& op, uint32_t position, const char* role) {
  const Operand& o = sg.operands[op.inputs[position]];
  if (o.type != OperandType::SUBGRAPH || o.lifetime != Lifetime::SUBGRAPH ||
      o.subgraph >= model.referenced.size())
    return make_error(detail::input_name(position, role) + ": expected a SUBGRAPH operand, got " +
                      std::string(models::to_string(o.type)));
  return &model.referenced[o.subgraph];
}

// Every graph input/output index of a referenced subgraph in range (validate_model checks this too;
// validate_operations must not crash on a model that skipped it).
Result<void> check_io_indexes(const Subgraph& s, const std::string& name) {
  for (const auto* list : {&s.input_indexes, &s.output_indexes})
    for (uint32_t i : *list)
      if (i >= s.operands.size())
        return make_error(name + ": graph operand " + std::to_string(i) + " out of range");
  return {};
}

// IF and WHILE take no omitted input (NNAPI: every input of a control-flow operation has a value): an
// operand the model declares NO_VALUE would reach the branch or loop with nothing in it.
Result<void> check_all_have_values(const Subgraph& sg, const models::Operation& op, uint32_t first_data,
                                   const char* role) {
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (sg.operands[op.inputs[i]].lifetime != Lifetime::NO_VALUE) continue;
    const char* what = i >= first_data                                  ? role
                       : i == 0 && op.type == models::OperationType::IF ? "condition"
                                                                        : "subgraph";
    return make_error(detail::input_name(i, what) + ": operand " + std::to_string(op.inputs[i]) +
                      " is required but has no value (NO_VALUE)");
  }
  return {};
}

std::string sub_name(const Subgraph& sg, const models::Model& model) {
  return "referenced[" + std::to_string(&sg - model.referenced.data()) + "]";
}

Result<std::vector<std::vector<uint32_t>>> if_shapes(const models::Model& model, const Subgraph& sg,
                                                     const models::Operation& op,
                                                     const std::vector<std::vector<uint32_t>>& shapes) {
  if (op.inputs.size() < kIfFirstInput)
    return make_error("expected at least 3 inputs (condition, then, else), got " +
                      std::to_string(op.inputs.size()));
  if (op.outputs.empty()) return make_error("expected at least 1 output");
  if (auto r = check_all_have_values(sg, op, kIfFirstInput, "branch input"); !r) return make_error(r.error());
  const uint32_t c = op.inputs[kIfCondition];
  if (auto r = check_condition(sg.operands[c].type, shapes[c], detail::input_name(kIfCondition, "condition"));
      !r)
    return make_error(r.error());
  const Subgraph* branches[2];
  for (uint32_t b = 0; b < 2; ++b) {
    auto s = subgraph_input(model, sg, op, kIfThen + b, b == 0 ? "then" : "else");
    if (!s) return make_error(s.error());
    branches[b] = *s;
  }
  const size_t n_in = op.inputs.size() - kIfFirstInput;
  for (const Subgraph* br : branches) {
    const std::string name = (br == branches[0] ? "then branch " : "else branch ") + sub_name(*br, model);
    if (auto r = check_io_indexes(*br, name); !r) return make_error(r.error());
    if (br->input_indexes.size() != n_in || br->output_indexes.size() != op.outputs.size())
      return make_error(name + " has " + std::to_string(br->input_indexes.size()) + " inputs and " +
                        std::to_string(br->output_indexes.size()) + " outputs, the IF passes " +
                        std::to_string(n_in) + " and takes " + std::to_string(op.outputs.size()));
    for (size_t i = 0; i < n_in; ++i) {
      const uint32_t outer = op.inputs[kIfFirstInput + i];
      if (auto r = check_compatible(sg.operands[outer], shapes[outer], br->operands[br->input_indexes[i]],
                                    detail::input_name(kIfFirstInput + i, "branch input") + " into " + name);
          !r)
        return make_error(r.error());
    }
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const uint32_t outer = op.outputs[j];
      if (auto r = check_compatible(sg.operands[outer], shapes[outer], br->operands[br->output_indexes[j]],
                                    "output " + std::to_string(j) + " from " + name);
          !r)
        return make_error(r.error());
    }
  }
  std::vector<std::vector<uint32_t>> out;
  for (size_t j = 0; j < op.outputs.size(); ++j) {
    std::vector<uint32_t> dims = shapes[op.outputs[j]];
    const auto& a = branches[0]->operands[branches[0]->output_indexes[j]].dimensions;
    const auto& b = branches[1]->operands[branches[1]->output_indexes[j]].dimensions;
    if (a == b) dims = detail::merge_shapes(dims, a).value_or(dims);  // both branches agree
    out.push_back(std::move(dims));
  }
  return out;
}

Result<std::vector<std::vector<uint32_t>>> while_shapes(const models::Model& model, const Subgraph& sg,
                                                        const models::Operation& op,
                                                        const std::vector<std::vector<uint32_t>>& shapes) {
  if (op.inputs.size() < kWhileFirstInput + 1)
    return make_error("expected at least 3 inputs (condition, body, one loop input), got " +
                      std::to_string(op.inputs.size()));
  if (op.outputs.empty()) return make_error("expected at least 1 output");
  if (auto r = check_all_have_values(sg, op, kWhileFirstInput, "loop input"); !r)
    return make_error(r.error());
  auto cond = subgraph_input(model, sg, op, kWhileCondition, "condition");
  if (!cond) return make_error(cond.error());
  auto body = subgraph_input(model, sg, op, kWhileBody, "body");
  if (!body) return make_error(body.error());
  const size_t n_in = op.inputs.size() - kWhileFirstInput, m = op.outputs.size();
  if (m > n_in)
    return make_error(std::to_string(m) + " outputs but only " + std::to_string(n_in) +
                      " loop inputs (each output is an input-output operand)");
  for (const Subgraph* s : {*cond, *body}) {
    const std::string name = (s == *cond ? "condition " : "body ") + sub_name(*s, model);
    if (auto r = check_io_indexes(*s, name); !r) return make_error(r.error());
    if (s->input_indexes.size() != n_in)
      return make_error(name + " has " + std::to_string(s->input_indexes.size()) +
                        " inputs, the WHILE passes " + std::to_string(n_in));
    for (size_t i = 0; i < n_in; ++i) {
      const uint32_t outer = op.inputs[kWhileFirstInput + i];
      if (auto r = check_compatible(sg.operands[outer], shapes[outer], s->operands[s->input_indexes[i]],
                                    detail::input_name(kWhileFirstInput + i, "loop input") + " into " + name);
          !r)
        return make_error(r.error());
    }
  }
  const Subgraph& c = **cond;
  if (c.output_indexes.size() != 1)
    return make_error("condition " + sub_name(c, model) + " has " + std::to_string(c.output_indexes.size()) +
                      " outputs, expected 1");
  const Operand& co = c.operands[c.output_indexes[0]];
  if (auto r = check_condition(co.type, co.dimensions, "condition " + sub_name(c, model) + " output 0"); !r)
    return make_error(r.error());
  const Subgraph& b = **body;
  if (b.output_indexes.size() < m || b.output_indexes.size() > n_in)
    return make_error("body " + sub_name(b, model) + " has " + std::to_string(b.output_indexes.size()) +
                      " outputs, expected between " + std::to_string(m) + " (outputs) and " +
                      std::to_string(n_in) + " (loop inputs)");
  for (size_t j = 0; j < b.output_indexes.size(); ++j) {
    const Operand& inner = b.operands[b.output_indexes[j]];
    const uint32_t carried = op.inputs[kWhileFirstInput + j];
    if (auto r = check_compatible(sg.operands[carried], shapes[carried], inner,
                                  "body " + sub_name(b, model) + " output " + std::to_string(j) +
                                      " (carried into loop input " + std::to_string(j) + ")");
        !r)
      return make_error(r.error());
    if (j < m) {
      if (auto r = check_compatible(sg.operands[op.outputs[j]], shapes[op.outputs[j]], inner,
                                    "output " + std::to_string(j) + " from body " + sub_name(b, model));
          !r)
        return make_error(r.error());
    }
  }
  // An output keeps its loop input's shape when the body's declared output says the shape never changes.
  std::vector<std::vector<uint32_t>> out;
  for (size_t j = 0; j < m; ++j) {
    std::vector<uint32_t> dims = shapes[op.outputs[j]];
    const auto& in_dims = shapes[op.inputs[kWhileFirstInput + j]];
    if (b.operands[b.output_indexes[j]].dimensions == in_dims)
      dims = detail::merge_shapes(dims, in_dims).value_or(dims);
    out.push_back(std::move(dims));
  }
  return out;
}

}  // namespace

Result<std::vector<std::vector<uint32_t>>> control_flow_shapes(
    const models::Model& model, const Subgraph& sg, const models::Operation& op,
    const std::vector<std::vector<uint32_t>>& shapes) {
  if (op.type == models::OperationType::IF) return if_shapes(model, sg, op, shapes);
  if (op.type == models::OperationType::WHILE) return while_shapes(model, sg, op, shapes);
  return make_error(std::string(models::to_string(op.type)) + " is not a control-flow operation");
}

}  // namespace npu::hal::ops
