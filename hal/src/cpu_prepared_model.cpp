// The CPU reference prepared model (the CpuDevice's, and the NPU's fallback when preparation fails),
// plus the request checks both prepared models share.
#include <algorithm>
#include <set>

#include "npu/common/log.h"
#include "npu/hal/ops/reference_executor.h"
#include "prepared_models.h"

namespace npu::hal {

uint64_t copy_ns(const HostCost& cost, uint64_t bytes) {
  return static_cast<uint64_t>(static_cast<double>(bytes) / cost.memcpy_gbps);
}

uint64_t estimated_macs(const models::Model& m) { return ops::estimated_macs(m.main); }

Status check_request(const models::Model& model, const Request& request) {
  const auto& g = model.main;
  auto is_output = [&](uint32_t i) {
    return std::find(g.output_indexes.begin(), g.output_indexes.end(), i) != g.output_indexes.end();
  };
  auto is_input = [&](uint32_t i) {
    return std::find(g.input_indexes.begin(), g.input_indexes.end(), i) != g.input_indexes.end();
  };
  TensorMap host_inputs;
  for (const auto& [idx, t] : request.inputs) {
    if (request.buffers.count(idx))
      return {ErrorStatus::INVALID_ARGUMENT,
              "input operand " + std::to_string(idx) + " is given twice (value and buffer)"};
    host_inputs.emplace(idx, t);
  }
  for (const auto& [idx, buffer] : request.buffers) {
    if (!buffer) return {ErrorStatus::INVALID_ARGUMENT, "operand " + std::to_string(idx) + ": null buffer"};
    if (!is_input(idx) && !is_output(idx))
      return {ErrorStatus::INVALID_ARGUMENT,
              "operand " + std::to_string(idx) + " is neither a graph input nor output"};
    const auto& want = g.operands[idx];
    const auto& have = buffer->operand();
    if (have.type != want.type || (want.fully_specified() && have.byte_size() != want.byte_size()))
      return {ErrorStatus::INVALID_ARGUMENT,
              "operand " + std::to_string(idx) + ": the buffer holds " +
                  std::string(models::to_string(have.type)) + " " + models::dims_to_string(have.dimensions) +
                  ", the model expects " + std::string(models::to_string(want.type)) + " " +
                  models::dims_to_string(want.dimensions)};
    // A buffer standing in for an input is checked like a value of the buffer's shape.
    if (is_input(idx)) host_inputs.emplace(idx, models::make_tensor(have, have.dimensions));
  }
  if (auto s = check_inputs(model, host_inputs); !s.ok()) return s;
  // Inputs given no value (NNAPI hasNoValue): every operation reading one must take it as omitted.
  std::set<uint32_t> no_value;
  for (const auto& [idx, t] : request.inputs)
    if (t.has_no_value) no_value.insert(idx);
  if (auto r = ops::validate_no_value_inputs(model, no_value); !r)
    return {ErrorStatus::INVALID_ARGUMENT, r.error()};
  for (const auto& [idx, bytes] : request.output_capacity) {
    (void)bytes;
    if (!is_output(idx))
      return {ErrorStatus::INVALID_ARGUMENT,
              "output_capacity names operand " + std::to_string(idx) + ", which is not a graph output"};
  }
  return {};
}

Status check_output_capacity(const models::Model& model, const Request& request,
                             const std::vector<std::vector<uint32_t>>& output_dims,
                             std::vector<OutputShape>* shapes) {
  const auto& g = model.main;
  Status status;
  shapes->clear();
  for (size_t i = 0; i < g.output_indexes.size(); ++i) {
    const uint32_t idx = g.output_indexes[i];
    models::Operand shaped = g.operands[idx];
    shaped.dimensions = output_dims[i];
    OutputShape s{output_dims[i], true};
    auto cap = request.output_capacity.find(idx);
    if (cap != request.output_capacity.end() && cap->second < shaped.byte_size()) {
      s.is_sufficient = false;
      if (status.ok())
        status = {ErrorStatus::OUTPUT_INSUFFICIENT_SIZE,
                  "output " + std::to_string(i) + " (operand " + std::to_string(idx) + ", " +
                      models::dims_to_string(output_dims[i]) + ") needs " +
                      std::to_string(shaped.byte_size()) + " bytes, its buffer holds " +
                      std::to_string(cap->second)};
    }
    shapes->push_back(std::move(s));
  }
  return status;
}

const models::Operand* CpuPreparedModel::io_operand(uint32_t operand) const {
  const auto& g = model_.main;
  const bool io = std::count(g.input_indexes.begin(), g.input_indexes.end(), operand) ||
                  std::count(g.output_indexes.begin(), g.output_indexes.end(), operand);
  return io ? &g.operands[operand] : nullptr;
}

ExecutionResult CpuPreparedModel::run(const Request& request, const ExecuteOptions& options) {
  ExecutionResult r;
  if (auto s = check_request(model_, request); !s.ok()) {
    r.status = s;
    return r;
  }
  const uint64_t compute_ns = static_cast<uint64_t>(static_cast<double>(macs_) / cost_.cpu_gmacs);
  if (options.deadline && *options.deadline - os().now_ns() < compute_ns) {
    r.status = {ErrorStatus::MISSED_DEADLINE_PERSISTENT,
                "the deadline leaves " + std::to_string(*options.deadline - os().now_ns()) +
                    " ns; the CPU needs " + std::to_string(compute_ns) + " ns for this model"};
    return r;
  }
  TensorMap inputs = request.inputs;
  for (const auto& [idx, buffer] : request.buffers) {
    if (!io_operand(idx) ||
        std::count(model_.main.output_indexes.begin(), model_.main.output_indexes.end(), idx))
      continue;
    if (auto s = buffer->copy_to(&inputs[idx]); !s.ok()) {
      r.status = s;
      return r;
    }
  }
  // IF/WHILE subgraphs charge their own modelled time (and count it against the loop timeout).
  ops::ReferenceOptions ro;
  ro.loop_timeout_ns = options.loop_timeout_ns;
  ro.macs_per_ns = cost_.cpu_gmacs;
  ops::ReferenceStats stats;
  auto out = ops::run_reference_with_stats(model_, inputs, ro, &stats);
  os().delay_ns(compute_ns + stats.control_flow_ns);
  if (!out) {
    r.status = {stats.loop_timed_out ? ErrorStatus::MISSED_DEADLINE_TRANSIENT : ErrorStatus::GENERAL_FAILURE,
                out.error()};
    return r;
  }
  std::vector<std::vector<uint32_t>> dims;
  for (uint32_t idx : model_.main.output_indexes) dims.push_back((*out)[idx].dimensions);
  if (auto s = check_output_capacity(model_, request, dims, &r.output_shapes); !s.ok()) {
    r.status = s;
    return r;
  }
  for (uint32_t idx : model_.main.output_indexes) {
    if (auto it = request.buffers.find(idx); it != request.buffers.end()) {
      if (auto s = it->second->copy_from((*out)[idx]); !s.ok()) {
        r.status = s;
        return r;
      }
      continue;
    }
    r.outputs[idx] = std::move((*out)[idx]);
  }
  log::get("cpuexe")->debug("executed {} operations on the CPU", model_.main.operations.size());
  return r;
}

Status CpuDeviceBuffer::copy_from(const models::Tensor& value) {
  if (value.type != operand_.type ||
      (operand_.fully_specified() && value.data.size() != operand_.byte_size()))
    return {ErrorStatus::INVALID_ARGUMENT, "copy_from: the value does not match the buffer's type and size"};
  value_ = value;
  return {};
}

Status CpuDeviceBuffer::copy_to(models::Tensor* value) {
  if (!value_) return {ErrorStatus::GENERAL_FAILURE, "copy_to: the buffer was never written"};
  *value = *value_;
  return {};
}

}  // namespace npu::hal
