#include "npu/hal/ops/reference_executor.h"

#include <new>
#include <optional>

#include "kernel_util.h"
#include "npu/common/log.h"
#include "npu/hal/ops/operation.h"
#include "npu/models/validate.h"

namespace npu::hal::ops {

using models::Lifetime;
using models::Operand;
using models::Operation;
using models::Subgraph;
using models::Tensor;

namespace {

std::string op_name(const std::string& prefix, size_t k, const Operation& op) {
  return prefix + "operations[" + std::to_string(k) + "] (" + std::string(models::to_string(op.type)) + ")";
}

bool indices_in_range(const Subgraph& sg, const Operation& op) {
  for (uint32_t i : op.inputs) {
    if (i >= sg.operands.size()) return false;
  }
  for (uint32_t i : op.outputs) {
    if (i >= sg.operands.size()) return false;
  }
  return true;
}

// Infos for an operation's inputs and outputs with the current best-known shapes.
void gather(const Subgraph& sg, const Operation& op, const std::vector<std::vector<uint32_t>>& shapes,
            std::vector<OperandInfo>* in, std::vector<OperandInfo>* out) {
  in->clear();
  out->clear();
  for (uint32_t i : op.inputs) {
    in->push_back(detail::operand_info(sg.operands[i]));
    in->back().dimensions = shapes[i];
  }
  for (uint32_t i : op.outputs) {
    out->push_back(detail::operand_info(sg.operands[i]));
    out->back().dimensions = shapes[i];
  }
}

}  // namespace

Result<std::vector<std::vector<uint32_t>>> infer_shapes(const Subgraph& sg, const std::string& prefix) {
  std::vector<std::vector<uint32_t>> shapes;
  shapes.reserve(sg.operands.size());
  for (const Operand& o : sg.operands) shapes.push_back(o.dimensions);
  std::vector<OperandInfo> in;
  std::vector<OperandInfo> out;
  for (size_t k = 0; k < sg.operations.size(); ++k) {
    const Operation& op = sg.operations[k];
    const std::string where = op_name(prefix, k, op);
    if (!indices_in_range(sg, op)) return make_error(where + ": operand index out of range");
    const OperationKernel* kernel = find_kernel(op.type);
    if (kernel == nullptr)
      return make_error(where + ": no kernel in the operation library (cannot validate or run)");
    gather(sg, op, shapes, &in, &out);
    auto inferred = kernel->prepare(in, out);
    if (!inferred) return make_error(where + ": " + inferred.error());
    for (size_t j = 0; j < op.outputs.size() && j < inferred->size(); ++j) {
      const uint32_t idx = op.outputs[j];
      auto merged = detail::merge_shapes(shapes[idx], (*inferred)[j]);
      if (!merged) {
        return make_error(where + ": output " + std::to_string(j) + " (operand " + std::to_string(idx) +
                          "): declared dimensions " + models::dims_to_string(shapes[idx]) +
                          " but the operation produces " + models::dims_to_string((*inferred)[j]));
      }
      shapes[idx] = std::move(*merged);
    }
  }
  return shapes;
}

Result<void> validate_operations(const models::Model& model) {
  if (auto r = infer_shapes(model.main); !r) return make_error(r.error());
  for (size_t i = 0; i < model.referenced.size(); ++i) {
    if (auto r = infer_shapes(model.referenced[i], "referenced[" + std::to_string(i) + "]."); !r) {
      return make_error(r.error());
    }
  }
  return {};
}

bool is_supported_by_cpu(const Subgraph& sg, const Operation& op) {
  if (!indices_in_range(sg, op)) return false;
  const OperationKernel* kernel = find_kernel(op.type);
  if (kernel == nullptr) return false;
  std::vector<std::vector<uint32_t>> shapes;
  for (const Operand& o : sg.operands) shapes.push_back(o.dimensions);
  std::vector<OperandInfo> in;
  std::vector<OperandInfo> out;
  gather(sg, op, shapes, &in, &out);
  return kernel->prepare(in, out).ok();
}

std::vector<bool> cpu_supported_operations(const models::Model& model) {
  std::vector<bool> flags;
  for (const Operation& op : model.main.operations) flags.push_back(is_supported_by_cpu(model.main, op));
  return flags;
}

namespace {

Result<std::map<uint32_t, Tensor>> run_graph(const models::Model& model,
                                             const std::map<uint32_t, Tensor>& inputs) {
  const Subgraph& sg = model.main;
  auto log = log::get("cpuexe");
  // Inputs: exactly the graph inputs, each a complete value of the declared type and a compatible shape.
  for (const auto& [idx, t] : inputs) {
    bool listed = false;
    for (uint32_t i : sg.input_indexes) listed = listed || i == idx;
    if (!listed)
      return make_error("input for operand " + std::to_string(idx) + ", which is not a graph input");
  }
  std::vector<std::optional<Tensor>> values(sg.operands.size());
  for (uint32_t idx : sg.input_indexes) {
    auto it = inputs.find(idx);
    const std::string where = "graph input operand " + std::to_string(idx);
    if (it == inputs.end()) return make_error(where + ": no value given");
    const Operand& desc = sg.operands[idx];
    const Tensor& t = it->second;
    if (t.type != desc.type) {
      return make_error(where + ": value has type " + std::string(models::to_string(t.type)) +
                        ", operand is " + std::string(models::to_string(desc.type)));
    }
    Operand shaped = desc;
    shaped.dimensions = t.dimensions;
    auto merged = detail::merge_shapes(desc.dimensions, t.dimensions);
    if (!merged || (models::is_tensor(desc.type) && !shaped.fully_specified()) ||
        (!models::is_tensor(desc.type) && !t.dimensions.empty())) {
      return make_error(where + ": value dimensions " + models::dims_to_string(t.dimensions) +
                        " do not fully specify the operand's " + models::dims_to_string(desc.dimensions));
    }
    const uint64_t count = shaped.element_count();
    if (count > kMaxReferenceOperandBytes / models::element_size(desc.type))
      return make_error(where + ": too large");
    if (t.data.size() != count * models::element_size(desc.type)) {
      return make_error(where + ": value has " + std::to_string(t.data.size()) + " bytes, expected " +
                        std::to_string(count * models::element_size(desc.type)));
    }
    Tensor v = t;
    v.scale = desc.scale;  // a request cannot change quantisation; the model's parameters rule
    v.zero_point = desc.zero_point;
    v.per_channel = desc.per_channel;
    values[idx] = std::move(v);
  }
  for (size_t i = 0; i < sg.operands.size(); ++i) {
    if (sg.operands[i].is_constant()) values[i] = models::tensor_from_operand(sg.operands[i]);
  }

  std::vector<OperandInfo> in;
  std::vector<OperandInfo> out;
  for (size_t k = 0; k < sg.operations.size(); ++k) {
    const Operation& op = sg.operations[k];
    const std::string where = op_name("", k, op);
    const OperationKernel* kernel = find_kernel(op.type);
    if (kernel == nullptr) return make_error(where + ": no kernel in the operation library");
    in.clear();
    out.clear();
    for (uint32_t idx : op.inputs) {
      OperandInfo info = detail::operand_info(sg.operands[idx]);
      if (info.lifetime != Lifetime::NO_VALUE) {
        if (!values[idx])
          return make_error(where + ": input operand " + std::to_string(idx) + " has no value yet");
        info.dimensions = values[idx]->dimensions;
        info.value = &values[idx]->data;
      }
      in.push_back(std::move(info));
    }
    for (uint32_t idx : op.outputs) out.push_back(detail::operand_info(sg.operands[idx]));
    auto shapes = kernel->prepare(in, out);
    if (!shapes) return make_error(where + ": " + shapes.error());
    if (shapes->size() != op.outputs.size())
      return make_error(where + ": kernel returned the wrong number of shapes");
    std::vector<Tensor*> out_ptrs;
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const uint32_t idx = op.outputs[j];
      const Operand& desc = sg.operands[idx];
      auto merged = detail::merge_shapes(desc.dimensions, (*shapes)[j]);
      if (!merged) {
        return make_error(where + ": output " + std::to_string(j) + " (operand " + std::to_string(idx) +
                          "): declared dimensions " + models::dims_to_string(desc.dimensions) +
                          " but the operation produces " + models::dims_to_string((*shapes)[j]));
      }
      Operand shaped = desc;
      shaped.dimensions = *merged;
      if (!shaped.fully_specified()) {
        return make_error(where + ": output " + std::to_string(j) + ": shape " +
                          models::dims_to_string(*merged) + " could not be inferred");
      }
      if (shaped.element_count() >
          kMaxReferenceOperandBytes / std::max<uint32_t>(1, models::element_size(desc.type))) {
        return make_error(where + ": output " + std::to_string(j) + " too large for the CPU reference");
      }
      values[idx] = models::make_tensor(desc, *merged);
      out_ptrs.push_back(&*values[idx]);
    }
    if (auto r = kernel->execute(in, out_ptrs); !r) return make_error(where + ": " + r.error());
    log->debug("{}: done", where);
  }
  std::map<uint32_t, Tensor> results;
  for (uint32_t idx : sg.output_indexes) {
    if (!values[idx])
      return make_error("graph output operand " + std::to_string(idx) + " was never computed");
    results.emplace(idx, std::move(*values[idx]));
  }
  return results;
}

}  // namespace

Result<std::map<uint32_t, Tensor>> run_reference(const models::Model& model,
                                                 const std::map<uint32_t, Tensor>& inputs) {
  if (auto r = models::validate_model(model); !r) return make_error(r.error());
  if (auto r = validate_operations(model); !r) return make_error(r.error());
  try {
    return run_graph(model, inputs);
  } catch (const std::bad_alloc&) {
    return make_error("out of host memory running the CPU reference");
  }
}

}  // namespace npu::hal::ops
