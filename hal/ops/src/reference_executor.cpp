#include "npu/hal/ops/reference_executor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>
#include <set>

#include "kernel_util.h"
#include "npu/common/log.h"
#include "npu/hal/ops/control_flow.h"
#include "npu/hal/ops/operation.h"
#include "npu/models/extensions.h"
#include "npu/models/validate.h"

namespace npu::hal::ops {

using models::Lifetime;
using models::Operand;
using models::Operation;
using models::Subgraph;
using models::Tensor;

namespace {

std::string op_name(const models::Model* model, const std::string& prefix, size_t k, const Operation& op) {
  const std::string type =
      model ? models::operation_name(*model, op.type) : std::string(models::to_string(op.type));
  return prefix + "operations[" + std::to_string(k) + "] (" + type + ")";
}

// Said where the CPU reference meets a vendor extension operation (validation accepts it; nothing here
// computes it).
constexpr const char* kNoExtensions =
    "a vendor extension operation: the CPU reference computes no vendor extension";

// A relaxed model (relaxComputationFloat32toFloat16) computes with fp16 range and precision: in an
// operation on float32 tensors, every float32 value it reads (inputs, weights, scalar parameters) and
// every float32 result it writes is rounded to the nearest binary16 (ties to even, beyond ±65504 to
// ±inf), as an fp16 datapath stores them; arithmetic inside one operation stays float32 (fp16 storage,
// wider accumulation, which NNAPI allows: relaxed means range and precision "as low as" fp16).
// Quantised operations are not relaxed, float scalar parameters (SOFTMAX's beta) included, and neither is
// LSH_PROJECTION: it hashes its operands' bytes, it computes nothing in float (NNAPI's reference gives the
// float32 bits whether relaxed or not).
bool computes_in_float32(const Subgraph& sg, const Operation& op) {
  if (op.type == models::OperationType::LSH_PROJECTION) return false;
  auto f32 = [&](uint32_t i) { return sg.operands[i].type == models::OperandType::TENSOR_FLOAT32; };
  return std::any_of(op.inputs.begin(), op.inputs.end(), f32) ||
         std::any_of(op.outputs.begin(), op.outputs.end(), f32);
}

// Rounds a float32 value to binary16 and back, in place (idempotent).
void round_to_half(Tensor& t) {
  if (t.type != models::OperandType::TENSOR_FLOAT32 && t.type != models::OperandType::FLOAT32) return;
  for (size_t i = 0; i + 4 <= t.data.size(); i += 4) {
    float f;
    std::memcpy(&f, &t.data[i], 4);
    f = models::half_to_float(models::float_to_half(f));
    std::memcpy(&t.data[i], &f, 4);
  }
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
// `no_value` (nullable, one flag per operand) marks request inputs given with no value: the operation
// sees them as NO_VALUE.
void gather(const Subgraph& sg, const Operation& op, const std::vector<std::vector<uint32_t>>& shapes,
            std::vector<OperandInfo>* in, std::vector<OperandInfo>* out,
            const std::vector<bool>* no_value = nullptr) {
  in->clear();
  out->clear();
  for (uint32_t i : op.inputs) {
    in->push_back(detail::operand_info(sg.operands[i]));
    in->back().dimensions = shapes[i];
    if (no_value && (*no_value)[i]) {
      in->back().lifetime = Lifetime::NO_VALUE;
      in->back().dimensions.clear();
    }
  }
  for (uint32_t i : op.outputs) {
    out->push_back(detail::operand_info(sg.operands[i]));
    out->back().dimensions = shapes[i];
  }
}

Result<std::vector<std::vector<uint32_t>>> infer_shapes_in(const models::Model* model, const Subgraph& sg,
                                                           const std::string& prefix,
                                                           const std::vector<bool>* no_value = nullptr);

// " [no value in the request: operand 12]" when operation `op` reads request inputs given no value.
std::string no_value_note(const Operation& op, const std::vector<bool>* no_value) {
  if (!no_value) return "";
  std::string list;
  for (uint32_t i : op.inputs) {
    if (i < no_value->size() && (*no_value)[i] &&
        list.find(" " + std::to_string(i) + ",") == std::string::npos)
      list += " " + std::to_string(i) + ",";
  }
  if (list.empty()) return "";
  list.pop_back();
  return " [no value in the request: operand" + list + "]";
}

}  // namespace

Result<std::vector<std::vector<uint32_t>>> infer_shapes(const Subgraph& sg, const std::string& prefix) {
  return infer_shapes_in(nullptr, sg, prefix);
}

Result<std::vector<std::vector<uint32_t>>> infer_shapes(const models::Model& model, const Subgraph& sg,
                                                        const std::string& prefix) {
  return infer_shapes_in(&model, sg, prefix);
}

namespace {

Result<std::vector<std::vector<uint32_t>>> infer_shapes_in(const models::Model* model, const Subgraph& sg,
                                                           const std::string& prefix,
                                                           const std::vector<bool>* no_value) {
  std::vector<std::vector<uint32_t>> shapes;
  shapes.reserve(sg.operands.size());
  for (const Operand& o : sg.operands) shapes.push_back(o.dimensions);
  std::vector<OperandInfo> in;
  std::vector<OperandInfo> out;
  for (size_t k = 0; k < sg.operations.size(); ++k) {
    const Operation& op = sg.operations[k];
    const std::string where = op_name(model, prefix, k, op);
    if (!indices_in_range(sg, op)) return make_error(where + ": operand index out of range");
    Result<std::vector<std::vector<uint32_t>>> inferred = std::vector<std::vector<uint32_t>>{};
    const std::string note = no_value_note(op, no_value);
    if (is_control_flow(op.type)) {
      if (model == nullptr) return make_error(where + ": needs the model's referenced subgraphs");
      if (!note.empty()) return make_error(where + ": every input needs a value" + note);
      inferred = control_flow_shapes(*model, sg, op, shapes);
    } else {
      if (models::is_extension_type(op.type) && model == nullptr)
        return make_error(where + ": a vendor extension operation needs the model's extensionNameToPrefix");
      const OperationKernel* kernel =
          model ? find_kernel(model->extension_name_to_prefix, op.type) : find_kernel(op.type);
      if (kernel == nullptr)
        return make_error(where + ": no kernel in the operation library (cannot validate or run)");
      gather(sg, op, shapes, &in, &out, no_value);
      inferred = kernel->prepare(in, out);
    }
    if (!inferred) return make_error(where + ": " + inferred.error() + note);
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

}  // namespace

Result<void> validate_operations(const models::Model& model) {
  if (auto r = infer_shapes(model, model.main); !r) return make_error(r.error());
  for (size_t i = 0; i < model.referenced.size(); ++i) {
    if (auto r = infer_shapes(model, model.referenced[i], "referenced[" + std::to_string(i) + "]."); !r) {
      return make_error(r.error());
    }
  }
  return {};
}

Result<void> validate_no_value_inputs(const models::Model& model, const std::set<uint32_t>& no_value) {
  if (no_value.empty()) return {};
  const Subgraph& g = model.main;
  std::vector<bool> flags(g.operands.size(), false);
  for (uint32_t idx : no_value) {
    if (std::find(g.input_indexes.begin(), g.input_indexes.end(), idx) == g.input_indexes.end())
      return make_error("operand " + std::to_string(idx) + " is given no value but is not a graph input");
    if (std::find(g.output_indexes.begin(), g.output_indexes.end(), idx) != g.output_indexes.end())
      return make_error("operand " + std::to_string(idx) + " is given no value but is also a graph output");
    flags[idx] = true;
  }
  if (auto r = infer_shapes_in(&model, g, "", &flags); !r) return make_error(r.error());
  return {};
}

bool is_supported_by_cpu(const Subgraph& sg, const Operation& op) {
  if (!indices_in_range(sg, op) || models::is_extension_type(op.type)) return false;
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

uint64_t operation_macs(const Subgraph& sg, const Operation& op) {
  uint64_t out = 0;
  for (uint32_t o : op.outputs)
    if (o < sg.operands.size()) out += sg.operands[o].element_count();
  uint64_t per_output = 1;
  if ((op.type == models::OperationType::CONV_2D || op.type == models::OperationType::FULLY_CONNECTED) &&
      op.inputs.size() > 1 && op.inputs[1] < sg.operands.size()) {
    const auto& f = sg.operands[op.inputs[1]];
    per_output = f.dimensions.empty() || f.dimensions[0] == 0 ? 1 : f.element_count() / f.dimensions[0];
  }
  return out * per_output;
}

uint64_t estimated_macs(const Subgraph& sg) {
  uint64_t macs = 0;
  for (const Operation& op : sg.operations) macs += operation_macs(sg, op);
  return macs;
}

namespace {

// Runs subgraphs of one model; IF and WHILE recurse into the referenced subgraphs (acyclic, so the
// depth is bounded by their number). Operations inside IF/WHILE subgraphs charge modelled host time to
// `stats` (ReferenceOptions); a WHILE fails once the time spent in it passes the loop timeout.
class GraphRunner {
 public:
  GraphRunner(const models::Model& model, const ReferenceOptions& options, ReferenceStats& stats)
      : model_(model), options_(options), stats_(stats), log_(log::get("cpuexe")) {}

  // `inputs[i]` is the value of sg.input_indexes[i] (type checked by the caller); the result holds the
  // values of sg.output_indexes in order.
  Result<std::vector<Tensor>> run(const Subgraph& sg, std::vector<Tensor> inputs, const std::string& prefix,
                                  bool nested) {
    std::vector<std::optional<Tensor>> values(sg.operands.size());
    for (size_t i = 0; i < sg.input_indexes.size(); ++i) {
      const uint32_t idx = sg.input_indexes[i];
      const Operand& desc = sg.operands[idx];
      Tensor& v = inputs[i];
      if (nested && !detail::merge_shapes(desc.dimensions, v.dimensions))
        return make_error(prefix + "inputIndexes[" + std::to_string(i) + "]: a value of shape " +
                          models::dims_to_string(v.dimensions) + " for an operand declared " +
                          models::dims_to_string(desc.dimensions));
      v.scale = desc.scale;  // a request cannot change quantisation; the model's parameters rule
      v.zero_point = desc.zero_point;
      v.per_channel = desc.per_channel;
      values[idx] = std::move(v);
    }
    for (size_t i = 0; i < sg.operands.size(); ++i) {
      if (sg.operands[i].is_constant()) values[i] = models::tensor_from_operand(sg.operands[i]);
    }
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const Operation& op = sg.operations[k];
      const std::string where = op_name(&model_, prefix, k, op);
      auto r = is_control_flow(op.type) ? run_control_flow(sg, op, values, where)
                                        : run_kernel(sg, op, values, where);
      if (!r) return make_error(r.error());
      if (nested)
        stats_.control_flow_ns +=
            options_.operation_ns + static_cast<uint64_t>(std::ceil(
                                        static_cast<double>(operation_macs(sg, op)) / options_.macs_per_ns));
      log_->debug("{}: done", where);
    }
    std::vector<Tensor> results;
    for (uint32_t idx : sg.output_indexes) {
      if (!values[idx] || values[idx]->has_no_value)
        return make_error(prefix + "graph output operand " + std::to_string(idx) + " was never computed");
      results.push_back(std::move(*values[idx]));
    }
    return results;
  }

 private:
  Result<void> run_kernel(const Subgraph& sg, const Operation& op, std::vector<std::optional<Tensor>>& values,
                          const std::string& where) {
    if (models::is_extension_type(op.type)) return make_error(where + ": " + kNoExtensions);
    const OperationKernel* kernel = find_kernel(op.type);
    if (kernel == nullptr) return make_error(where + ": no kernel in the operation library");
    std::vector<OperandInfo> in;
    std::vector<OperandInfo> out;
    for (uint32_t idx : op.inputs) {
      OperandInfo info = detail::operand_info(sg.operands[idx]);
      if (values[idx] && values[idx]->has_no_value) info.lifetime = Lifetime::NO_VALUE;
      if (info.lifetime != Lifetime::NO_VALUE) {
        if (!values[idx])
          return make_error(where + ": input operand " + std::to_string(idx) + " has no value yet");
        info.dimensions = values[idx]->dimensions;
        info.value = &values[idx]->data;
      }
      in.push_back(std::move(info));
    }
    for (uint32_t idx : op.outputs) out.push_back(detail::operand_info(sg.operands[idx]));
    const bool relaxed = model_.relax_computation_float32_to_float16 && computes_in_float32(sg, op);
    if (relaxed)
      for (uint32_t idx : op.inputs)
        if (values[idx]) round_to_half(*values[idx]);
    auto shapes = kernel->prepare(in, out);
    if (!shapes) return make_error(where + ": " + shapes.error());
    if (shapes->size() != op.outputs.size())
      return make_error(where + ": kernel returned the wrong number of shapes");
    std::vector<Tensor*> out_ptrs;
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const uint32_t idx = op.outputs[j];
      // Every input is known now, so the kernel knows each output's whole shape; a declared shape is
      // checked against it, never taken in its place (else a declared [10] would get 10 elements).
      const auto& produced = (*shapes)[j];
      if (models::is_tensor(sg.operands[idx].type) &&
          (produced.empty() || std::find(produced.begin(), produced.end(), 0u) != produced.end()))
        return make_error(where + ": output " + std::to_string(j) + " (operand " + std::to_string(idx) +
                          "): the operation gave no shape " + models::dims_to_string(produced) +
                          " to check the declared " + models::dims_to_string(sg.operands[idx].dimensions) +
                          " against");
      auto placed = place_output(sg, idx, j, produced, where);
      if (!placed) return make_error(placed.error());
      values[idx] = models::make_tensor(sg.operands[idx], *placed);
      out_ptrs.push_back(&*values[idx]);
    }
    if (auto r = kernel->execute(in, out_ptrs); !r) return make_error(where + ": " + r.error());
    if (relaxed)
      for (Tensor* t : out_ptrs) round_to_half(*t);
    return {};
  }

  // The output's dimensions: declared merged with produced, fully specified and of a sane size.
  Result<std::vector<uint32_t>> place_output(const Subgraph& sg, uint32_t idx, size_t j,
                                             const std::vector<uint32_t>& produced,
                                             const std::string& where) const {
    const Operand& desc = sg.operands[idx];
    auto merged = detail::merge_shapes(desc.dimensions, produced);
    if (!merged) {
      return make_error(where + ": output " + std::to_string(j) + " (operand " + std::to_string(idx) +
                        "): declared dimensions " + models::dims_to_string(desc.dimensions) +
                        " but the operation produces " + models::dims_to_string(produced));
    }
    Operand shaped = desc;
    shaped.dimensions = *merged;
    if (!shaped.fully_specified()) {
      return make_error(where + ": output " + std::to_string(j) + ": shape " +
                        models::dims_to_string(*merged) + " could not be inferred");
    }
    if (shaped.element_count() >
        kMaxReferenceOperandBytes / std::max<uint32_t>(1, models::element_size(desc.type)))
      return make_error(where + ": output " + std::to_string(j) + " too large for the CPU reference");
    return *merged;
  }

  Result<void> run_control_flow(const Subgraph& sg, const Operation& op,
                                std::vector<std::optional<Tensor>>& values, const std::string& where) {
    for (uint32_t idx : op.inputs) {
      if (sg.operands[idx].type != models::OperandType::SUBGRAPH &&
          (!values[idx] || values[idx]->has_no_value))
        return make_error(where + ": input operand " + std::to_string(idx) + " has no value");
    }
    auto outs = op.type == models::OperationType::IF ? run_if(sg, op, values, where)
                                                     : run_while(sg, op, values, where);
    if (!outs) return make_error(outs.error());
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const uint32_t idx = op.outputs[j];
      Tensor& t = (*outs)[j];
      auto placed = place_output(sg, idx, j, t.dimensions, where);
      if (!placed) return make_error(placed.error());
      t.scale = sg.operands[idx].scale;
      t.zero_point = sg.operands[idx].zero_point;
      values[idx] = std::move(t);
    }
    return {};
  }

  std::string sub_prefix(const Operand& o) const { return "referenced[" + std::to_string(o.subgraph) + "]."; }

  Result<std::vector<Tensor>> run_if(const Subgraph& sg, const Operation& op,
                                     const std::vector<std::optional<Tensor>>& values,
                                     const std::string& where) {
    const Tensor& cond = *values[op.inputs[kIfCondition]];
    if (cond.data.size() != 1)
      return make_error(where + ": the condition holds " + std::to_string(cond.data.size()) +
                        " values, expected 1");
    const Operand& branch = sg.operands[op.inputs[cond.data[0] != 0 ? kIfThen : kIfElse]];
    std::vector<Tensor> args;
    for (size_t i = kIfFirstInput; i < op.inputs.size(); ++i) args.push_back(*values[op.inputs[i]]);
    auto r = run(referenced_subgraph(model_, branch), std::move(args), sub_prefix(branch), true);
    if (!r) return make_error(where + ": " + r.error());
    return r;
  }

  Result<std::vector<Tensor>> run_while(const Subgraph& sg, const Operation& op,
                                        const std::vector<std::optional<Tensor>>& values,
                                        const std::string& where) {
    const Operand& cond = sg.operands[op.inputs[kWhileCondition]];
    const Operand& body = sg.operands[op.inputs[kWhileBody]];
    std::vector<Tensor> loop;
    for (size_t i = kWhileFirstInput; i < op.inputs.size(); ++i) loop.push_back(*values[op.inputs[i]]);
    const uint64_t start = stats_.control_flow_ns;
    for (uint64_t iteration = 0;; ++iteration) {
      auto c = run(referenced_subgraph(model_, cond), loop, sub_prefix(cond), true);
      if (!c) return make_error(where + ": " + c.error());
      if (c->size() != 1 || (*c)[0].data.size() != 1)
        return make_error(where + ": the condition gave no single value");
      if ((*c)[0].data[0] == 0) break;
      if (stats_.control_flow_ns - start > options_.loop_timeout_ns) {
        stats_.loop_timed_out = true;
        return make_error(where + ": the loop ran " + std::to_string(stats_.control_flow_ns - start) +
                          " ns (" + std::to_string(iteration) + " iterations), longer than its timeout of " +
                          std::to_string(options_.loop_timeout_ns) + " ns");
      }
      auto b = run(referenced_subgraph(model_, body), loop, sub_prefix(body), true);
      if (!b) return make_error(where + ": " + b.error());
      for (size_t j = 0; j < b->size(); ++j) loop[j] = std::move((*b)[j]);
      ++stats_.loop_iterations;
    }
    loop.resize(op.outputs.size());
    return loop;
  }

  const models::Model& model_;
  const ReferenceOptions& options_;
  ReferenceStats& stats_;
  std::shared_ptr<spdlog::logger> log_;
};

Result<std::map<uint32_t, Tensor>> run_graph(const models::Model& model,
                                             const std::map<uint32_t, Tensor>& inputs,
                                             const ReferenceOptions& options, ReferenceStats& stats) {
  const Subgraph& sg = model.main;
  // Inputs: exactly the graph inputs, each a complete value of the declared type and a compatible shape.
  for (const auto& [idx, t] : inputs) {
    bool listed = false;
    for (uint32_t i : sg.input_indexes) listed = listed || i == idx;
    if (!listed)
      return make_error("input for operand " + std::to_string(idx) + ", which is not a graph input");
  }
  std::set<uint32_t> no_value;
  for (const auto& [idx, t] : inputs)
    if (t.has_no_value) no_value.insert(idx);
  if (auto r = validate_no_value_inputs(model, no_value); !r) return make_error(r.error());
  std::vector<Tensor> values;
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
    if (t.has_no_value) {
      values.push_back(t);
      continue;
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
    values.push_back(t);
  }
  GraphRunner runner(model, options, stats);
  auto outs = runner.run(sg, std::move(values), "", false);
  if (!outs) return make_error(outs.error());
  std::map<uint32_t, Tensor> results;
  for (size_t i = 0; i < sg.output_indexes.size(); ++i)
    results.emplace(sg.output_indexes[i], std::move((*outs)[i]));
  return results;
}

}  // namespace

Result<std::map<uint32_t, Tensor>> run_reference(const models::Model& model,
                                                 const std::map<uint32_t, Tensor>& inputs) {
  ReferenceStats stats;
  return run_reference_with_stats(model, inputs, ReferenceOptions{}, &stats);
}

Result<std::map<uint32_t, Tensor>> run_reference_with_stats(const models::Model& model,
                                                            const std::map<uint32_t, Tensor>& inputs,
                                                            const ReferenceOptions& options,
                                                            ReferenceStats* stats) {
  ReferenceStats local;
  ReferenceStats& s = stats ? *stats : local;
  if (auto r = models::validate_model(model); !r) return make_error(r.error());
  if (auto r = validate_operations(model); !r) return make_error(r.error());
  try {
    return run_graph(model, inputs, options, s);
  } catch (const std::bad_alloc&) {
    return make_error("out of host memory running the CPU reference");
  }
}

}  // namespace npu::hal::ops
