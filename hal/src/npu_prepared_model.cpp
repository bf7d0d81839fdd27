// The NPU prepared model. Each execution in flight gets an activation arena of its own from a pool
// (so several executions of one prepared model can overlap); operands passed as device buffers are
// read and written by the NPU where they are (their descriptors are relocated onto the buffer), so
// they cost no host copy.
#include <algorithm>

#include "npu/common/log.h"
#include "npu/hal/ops/control_flow.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/extensions.h"
#include "npu_job.h"
#include "prepared_models.h"

namespace npu::hal {
namespace {

uint64_t to_us(uint64_t ns) { return (ns + 500) / 1000; }

Result<TensorMap> zero_outputs(const models::Model& m) {
  TensorMap out;
  for (uint32_t idx : m.main.output_indexes) {
    const auto& op = m.main.operands[idx];
    out[idx] = models::make_tensor(op, op.dimensions);
  }
  return out;
}

}  // namespace

// Returns the arena to the pool when an execution ends, on every path.
class NpuPreparedModel::ArenaLease {
 public:
  ArenaLease(NpuPreparedModel& m, drv::BufferObject bo) : m_(m), bo_(bo) {}
  ~ArenaLease() { m_.release_arena(bo_); }
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  const drv::BufferObject& bo() const { return bo_; }

 private:
  NpuPreparedModel& m_;
  drv::BufferObject bo_;
};

NpuPreparedModel::NpuPreparedModel(models::Model model, drv::Driver& driver, drv::ContextId ctx,
                                   Program program, drv::BufferObject weights, HostCost cost, HalCosts costs,
                                   Priority priority)
    : PreparedModel(driver.os(), costs, priority),
      model_(std::move(model)),
      driver_(driver),
      ctx_(ctx),
      program_(std::move(program)),
      weights_(weights),
      cost_(cost) {
  for (const auto& [operand, slot] : program_.arena) slots_.push_back({slot.offset, slot.bytes, operand});
  std::sort(slots_.begin(), slots_.end(), [](const Slot& a, const Slot& b) { return a.offset < b.offset; });
}

NpuPreparedModel::~NpuPreparedModel() {
  (void)driver_.free_bo(ctx_, weights_.handle);
  for (drv::BoHandle h : all_arenas_) (void)driver_.free_bo(ctx_, h);
}

std::vector<OperationTiling> NpuPreparedModel::tilings() const {
  std::vector<OperationTiling> out;
  for (const auto& s : program_.stages)
    if (!s.tiling.empty())
      out.push_back({s.operation, models::operation_name(model_, model_.main.operations[s.operation].type),
                     s.tiling, s.predicted_cycles});
  return out;
}

std::string NpuPreparedModel::placement() const {
  std::string p = "npu";
  if (program_.cpu_operations != 0)
    p += " + cpu (" + std::to_string(program_.cpu_operations) + " of " +
         std::to_string(model_.main.operations.size()) + " operations on the CPU)";
  if (program_.control_flow_operations == 0) return p;
  const std::string host = std::to_string(program_.control_flow_operations) + " IF/WHILE on the host";
  // Only the main model lists the subgraphs: they share one table, so a subgraph that listed it too
  // would recurse without end as soon as one of them holds an IF or WHILE itself.
  if (!owned_subgraphs_) return p + " (" + host + ")";
  p += "; " + host + ", subgraphs:";
  for (size_t i = 0; i < owned_subgraphs_->size(); ++i)
    p += (i ? ", " : " ") + std::string("referenced[") + std::to_string(i) + "] " +
         (*owned_subgraphs_)[i]->placement();
  return p;
}

void NpuPreparedModel::attach_subgraphs(std::unique_ptr<SubgraphModels> subgraphs) {
  owned_subgraphs_ = std::move(subgraphs);
  subgraphs_ = owned_subgraphs_.get();
  for (auto& m : *owned_subgraphs_)
    if (auto* npu = dynamic_cast<NpuPreparedModel*>(m.get())) npu->subgraphs_ = subgraphs_;
}

const models::Operand* NpuPreparedModel::io_operand(uint32_t operand) const {
  const auto& g = model_.main;
  const bool io = std::count(g.input_indexes.begin(), g.input_indexes.end(), operand) ||
                  std::count(g.output_indexes.begin(), g.output_indexes.end(), operand);
  return io ? &g.operands[operand] : nullptr;
}

Result<drv::BufferObject> NpuPreparedModel::acquire_arena() {
  if (!free_arenas_.empty()) {
    drv::BufferObject bo = free_arenas_.back();
    free_arenas_.pop_back();
    return bo;
  }
  auto bo = driver_.alloc_bo(ctx_, std::max<uint64_t>(program_.arena_bytes, 1));
  if (!bo) return bo;
  all_arenas_.push_back(bo->handle);
  return *bo;
}

NpuPreparedModel::Location NpuPreparedModel::locate(uint32_t operand, const drv::BufferObject& arena,
                                                    const Request& request) const {
  if (auto it = request.buffers.find(operand); it != request.buffers.end()) {
    const auto& bo = static_cast<const NpuDeviceBuffer&>(*it->second).bo();
    return {bo.handle, 0, bo.device_address};
  }
  const uint64_t off = program_.arena.at(operand).offset;
  return {arena.handle, off, arena.device_address + off};
}

std::vector<desc::Raw> NpuPreparedModel::relocate_step(const NpuStep& step, const drv::BufferObject& arena,
                                                       const Request& request) const {
  return relocate(step, [&](Region region, uint64_t dev) {
    if (region == Region::WEIGHTS) return weights_.device_address + dev;
    // The slot holding this arena offset names the operand; anything else is arena scratch.
    auto it = std::upper_bound(slots_.begin(), slots_.end(), dev,
                               [](uint64_t v, const Slot& s) { return v < s.offset; });
    if (it != slots_.begin() && dev < std::prev(it)->offset + std::prev(it)->bytes) {
      const Slot& s = *std::prev(it);
      return locate(s.operand, arena, request).address + (dev - s.offset);
    }
    return arena.device_address + dev;
  });
}

ExecutionResult NpuPreparedModel::run(const Request& request, const ExecuteOptions& options) {
  auto log = log::get("execution");
  ExecutionResult r;
  if (auto s = check_request(model_, request); !s.ok()) {
    r.status = s;
    return r;
  }
  for (const auto& [idx, buffer] : request.buffers) {
    const auto* b = dynamic_cast<const NpuDeviceBuffer*>(buffer.get());
    if (!b || b->context() != ctx_) {
      r.status = {ErrorStatus::INVALID_ARGUMENT,
                  "operand " + std::to_string(idx) + ": the buffer was not allocated by this device"};
      return r;
    }
  }
  std::vector<std::vector<uint32_t>> out_dims;
  for (uint32_t idx : model_.main.output_indexes) out_dims.push_back(model_.main.operands[idx].dimensions);
  if (auto s = check_output_capacity(model_, request, out_dims, &r.output_shapes); !s.ok()) {
    r.status = s;
    return r;
  }
  drv::Os& os = driver_.os();
  if (options.deadline && min_device_ns_ != UINT64_MAX && *options.deadline - os.now_ns() < min_device_ns_) {
    r.status = {ErrorStatus::MISSED_DEADLINE_PERSISTENT,
                "the deadline leaves " + std::to_string(*options.deadline - os.now_ns()) +
                    " ns; this model never ran faster than " + std::to_string(min_device_ns_) +
                    " ns on the NPU"};
    return r;
  }
  auto arena_bo = acquire_arena();
  if (!arena_bo) {
    // Out of memory may pass; a context that is gone (the client closed it) will not.
    r.status = driver_failure(arena_bo, "activation arena: ");
    return r;
  }
  ArenaLease arena(*this, *arena_bo);
  r.timing_only = program_.timing_only;
  if (auto s = check_no_value_placement(request); !s.ok()) {
    r.status = s;
    return r;
  }
  for (const auto& [idx, t] : request.inputs) {
    if (t.has_no_value) continue;  // nothing to copy; CPU stages see the operand as omitted
    const Location at = locate(idx, arena.bo(), request);
    os.delay_ns(copy_ns(cost_, t.data.size()));
    r.host_copy_bytes += t.data.size();
    if (auto w = driver_.write_bo(ctx_, at.bo, at.offset, t.data.data(), t.data.size()); !w) {
      r.status = driver_failure(w);
      return r;
    }
  }
  // A run of consecutive NPU stages is one driver job (a chain: the driver starts stage k+1 when
  // stage k's command buffers are all done); a CPU stage in between runs here, on the host.
  uint64_t device_ns = 0;
  for (size_t first = 0; first < program_.stages.size();) {
    if (program_.stages[first].control_flow) {
      if (auto c = run_control_flow(program_.stages[first], arena.bo(), request, options, &device_ns, r);
          !c.ok()) {
        r.status = c;
        return r;
      }
      ++first;
      continue;
    }
    if (program_.stages[first].on_cpu) {
      if (auto c = run_on_cpu(program_.stages[first], arena.bo(), request, r); !c.ok()) {
        r.status = c;
        return r;
      }
      ++first;
      continue;
    }
    // Consecutive NPU stages go in one job, cut where its command buffers would take more than half of
    // the driver's command-buffer space (the rest stays for other jobs and preemption save areas): a
    // model wholly on the NPU (a 7B decoder) would not fit in one.
    const uint64_t budget = driver_.command_space_bytes() / 2;
    size_t last = first;
    uint64_t bytes = 0;
    while (last < program_.stages.size() && !program_.stages[last].on_cpu &&
           !program_.stages[last].control_flow) {
      uint64_t stage_bytes = 0;
      for (const auto& step : program_.stages[last].jobs)
        stage_bytes += step.commands.size() * desc::kDescriptorBytes;
      if (last > first && bytes + stage_bytes > budget) break;
      bytes += stage_bytes;
      ++last;
    }
    if (auto s = run_npu_stages(first, last, arena.bo(), request, options, &device_ns, r); !s.ok()) {
      r.status = s;
      return r;
    }
    first = last;
  }
  for (uint32_t idx : model_.main.output_indexes) {
    if (request.buffers.count(idx)) continue;
    const auto& op = model_.main.operands[idx];
    models::Tensor t = models::make_tensor(op, op.dimensions);
    const Location at = locate(idx, arena.bo(), request);
    if (auto rd = driver_.read_bo(ctx_, at.bo, at.offset, t.data.data(), t.data.size()); !rd) {
      r.status = driver_failure(rd);
      return r;
    }
    os.delay_ns(copy_ns(cost_, t.data.size()));
    r.host_copy_bytes += t.data.size();
    // Timing-only: the copy is made like any other (same cost) and dropped; its bytes mean nothing.
    if (!r.timing_only) r.outputs[idx] = std::move(t);
  }
  // With control flow the device time depends on the data (branches, iterations): no lower bound.
  if (r.command_buffers && program_.control_flow_operations == 0)
    min_device_ns_ = std::min(min_device_ns_, device_ns);
  r.device_ns = device_ns;
  r.timing.time_on_device_us = to_us(device_ns);
  log->debug("executed {} NPU jobs ({} stages, {} command buffers), {} cycles, {} B copied", r.jobs, r.stages,
             r.command_buffers, r.device_cycles, r.host_copy_bytes);
  return r;
}

Status NpuPreparedModel::run_npu_stages(size_t first, size_t last, const drv::BufferObject& arena,
                                        const Request& request, const ExecuteOptions& options,
                                        uint64_t* device_ns, ExecutionResult& r) {
  drv::JobRequest job;
  job.label = "ops " + std::to_string(program_.stages[first].operation) + ".." +
              std::to_string(program_.stages[last - 1].operation);
  job.timing_only = program_.timing_only;
  for (size_t i = first; i < last; ++i) {
    auto& buffers = job.stages.emplace_back();
    for (const auto& step : program_.stages[i].jobs) buffers.push_back(relocate_step(step, arena, request));
    r.command_buffers += static_cast<uint32_t>(buffers.size());
  }
  r.stages += static_cast<uint32_t>(last - first);
  std::shared_ptr<drv::Fence> fence;
  if (auto s = run_npu_job(driver_, ctx_, std::move(job), to_job_priority(priority()), options, r, &fence);
      !s.ok())
    return s;
  for (size_t i = first; i < last && i - first < fence->stage_cycles.size(); ++i)
    r.operation_cycles[program_.stages[i].operation] += fence->stage_cycles[i - first];
  *device_ns += fence->device_ns;
  return {};
}

// An input given no value can only be read by CPU stages (the reference kernels take omitted operands);
// NPU descriptors and IF/WHILE stages were compiled to read a value.
Status NpuPreparedModel::check_no_value_placement(const Request& request) const {
  const auto& g = model_.main;
  for (const auto& [idx, t] : request.inputs) {
    if (!t.has_no_value) continue;
    for (const Stage& stage : program_.stages) {
      if (stage.on_cpu) continue;
      const auto& op = g.operations[stage.operation];
      if (std::find(op.inputs.begin(), op.inputs.end(), idx) == op.inputs.end()) continue;
      return {ErrorStatus::INVALID_ARGUMENT,
              "operand " + std::to_string(idx) + " is given no value, but operations[" +
                  std::to_string(stage.operation) + "] (" + models::operation_name(model_, op.type) +
                  ") reads it " + (stage.control_flow ? "as an IF/WHILE input" : "on the NPU")};
    }
  }
  return {};
}

// A CPU stage: its inputs come out of device memory, the reference kernel runs on the host (charged
// host time), its outputs go back into device memory for the stages after it.
Status NpuPreparedModel::run_on_cpu(const Stage& stage, const drv::BufferObject& arena,
                                    const Request& request, ExecutionResult& r) {
  drv::Os& os = driver_.os();
  TensorMap inputs;
  for (size_t i = 0; i < stage.cpu_inputs.size(); ++i) {
    const uint32_t original = stage.cpu_inputs[i];
    const auto& op = model_.main.operands[original];
    if (auto it = request.inputs.find(original); it != request.inputs.end() && it->second.has_no_value) {
      inputs[stage.cpu_model.main.input_indexes[i]] = models::no_value_tensor(op);
      continue;
    }
    models::Tensor t = models::make_tensor(op, op.dimensions);
    const Location at = locate(original, arena, request);
    if (auto rd = driver_.read_bo(ctx_, at.bo, at.offset, t.data.data(), t.data.size()); !rd)
      return driver_failure(rd);
    os.delay_ns(copy_ns(cost_, t.data.size()));
    r.host_copy_bytes += t.data.size();
    inputs[stage.cpu_model.main.input_indexes[i]] = std::move(t);
  }
  // Timing-only: no values to compute on, so the kernel is charged but not run and the stage's outputs
  // are zeros (their copies cost what they would).
  auto out =
      program_.timing_only ? zero_outputs(stage.cpu_model) : ops::run_reference(stage.cpu_model, inputs);
  if (!out)
    return {ErrorStatus::GENERAL_FAILURE,
            "operations[" + std::to_string(stage.operation) + "] on the CPU: " + out.error()};
  os.delay_ns(static_cast<uint64_t>(static_cast<double>(estimated_macs(stage.cpu_model)) / cost_.cpu_gmacs));
  for (size_t i = 0; i < stage.cpu_outputs.size(); ++i) {
    const auto& t = out->at(stage.cpu_model.main.output_indexes[i]);
    const Location at = locate(stage.cpu_outputs[i], arena, request);
    os.delay_ns(copy_ns(cost_, t.data.size()));
    r.host_copy_bytes += t.data.size();
    if (auto w = driver_.write_bo(ctx_, at.bo, at.offset, t.data.data(), t.data.size()); !w)
      return driver_failure(w);
  }
  return {};
}

Status NpuPreparedModel::run_subgraph(uint32_t sub, std::vector<models::Tensor>& values,
                                      const ExecuteOptions& options, uint64_t* device_ns,
                                      ExecutionResult& r) {
  const auto& sg = model_.referenced[sub];
  Request request;
  for (size_t i = 0; i < sg.input_indexes.size() && i < values.size(); ++i)
    request.inputs[sg.input_indexes[i]] = std::move(values[i]);
  ExecutionResult sr = (*subgraphs_)[sub]->run(request, options);
  r.jobs += sr.jobs;
  r.stages += sr.stages;
  r.command_buffers += sr.command_buffers;
  r.device_cycles += sr.device_cycles;
  r.device_energy_pj += sr.device_energy_pj;
  r.preemptions += sr.preemptions;
  r.job_times.insert(r.job_times.end(), sr.job_times.begin(), sr.job_times.end());
  r.host_copy_bytes += sr.host_copy_bytes;
  if (sr.effective_priority >= 0) r.effective_priority = sr.effective_priority;
  *device_ns += sr.device_ns;
  if (!sr.status.ok())
    return {sr.status.code, "referenced[" + std::to_string(sub) + "]: " + sr.status.message};
  values.clear();
  for (uint32_t idx : sg.output_indexes) {
    if (sr.timing_only) {
      // No values to carry on (timing only): zeros of the output's shape, as a CPU stage gives then.
      values.push_back(models::make_tensor(sg.operands[idx], sg.operands[idx].dimensions));
      continue;
    }
    auto it = sr.outputs.find(idx);
    if (it == sr.outputs.end())
      return {ErrorStatus::GENERAL_FAILURE,
              "referenced[" + std::to_string(sub) + "]: output " + std::to_string(idx) + " missing"};
    values.push_back(std::move(it->second));
  }
  return {};
}

Status NpuPreparedModel::run_control_flow(const Stage& stage, const drv::BufferObject& arena,
                                          const Request& request, const ExecuteOptions& options,
                                          uint64_t* device_ns, ExecutionResult& r) {
  drv::Os& os = driver_.os();
  const auto& g = model_.main;
  const auto& op = g.operations[stage.operation];
  const std::string where =
      "operations[" + std::to_string(stage.operation) + "] (" + models::operation_name(model_, op.type) + ")";
  if (!subgraphs_) return {ErrorStatus::GENERAL_FAILURE, where + ": its subgraphs were not prepared"};
  // Operand values: constants from the model, the rest out of device memory.
  auto value_of = [&](uint32_t idx, models::Tensor* t) -> Status {
    const auto& o = g.operands[idx];
    if (o.is_constant()) {
      *t = models::tensor_from_operand(o);
      return {};
    }
    *t = models::make_tensor(o, o.dimensions);
    const Location at = locate(idx, arena, request);
    if (auto rd = driver_.read_bo(ctx_, at.bo, at.offset, t->data.data(), t->data.size()); !rd)
      return driver_failure(rd);
    os.delay_ns(copy_ns(cost_, t->data.size()));
    r.host_copy_bytes += t->data.size();
    return {};
  };
  auto args_from = [&](uint32_t first, std::vector<models::Tensor>* args) -> Status {
    for (size_t i = first; i < op.inputs.size(); ++i)
      if (auto s = value_of(op.inputs[i], &args->emplace_back()); !s.ok()) return s;
    return {};
  };
  auto subgraph_of = [&](uint32_t position) { return g.operands[op.inputs[position]].subgraph; };
  std::vector<models::Tensor> values;
  if (op.type == models::OperationType::IF) {
    models::Tensor cond;
    if (auto s = value_of(op.inputs[ops::kIfCondition], &cond); !s.ok()) return s;
    const uint32_t branch = subgraph_of(cond.data.at(0) != 0 ? ops::kIfThen : ops::kIfElse);
    if (auto s = args_from(ops::kIfFirstInput, &values); !s.ok()) return s;
    if (auto s = run_subgraph(branch, values, options, device_ns, r); !s.ok())
      return {s.code, where + ": " + s.message};
  } else {
    // WHILE: the loop inputs are carried through the body; the condition sees them before every run.
    if (auto s = args_from(ops::kWhileFirstInput, &values); !s.ok()) return s;
    const uint32_t cond = subgraph_of(ops::kWhileCondition), body = subgraph_of(ops::kWhileBody);
    const uint64_t start = os.now_ns();
    for (uint64_t iteration = 0;; ++iteration) {
      std::vector<models::Tensor> c = values;
      if (auto s = run_subgraph(cond, c, options, device_ns, r); !s.ok())
        return {s.code, where + ": " + s.message};
      if (c.size() != 1 || c[0].data.size() != 1)
        return {ErrorStatus::GENERAL_FAILURE, where + ": the condition gave no single value"};
      if (c[0].data[0] == 0) break;
      if (os.now_ns() - start > options.loop_timeout_ns)
        return {ErrorStatus::MISSED_DEADLINE_TRANSIENT,
                where + ": the loop ran " + std::to_string(os.now_ns() - start) + " ns (" +
                    std::to_string(iteration) + " iterations), longer than its timeout of " +
                    std::to_string(options.loop_timeout_ns) + " ns"};
      std::vector<models::Tensor> next = values;
      if (auto s = run_subgraph(body, next, options, device_ns, r); !s.ok())
        return {s.code, where + ": " + s.message};
      for (size_t j = 0; j < next.size() && j < values.size(); ++j) values[j] = std::move(next[j]);
    }
    values.resize(op.outputs.size());
  }
  for (size_t j = 0; j < op.outputs.size(); ++j) {
    const uint32_t idx = op.outputs[j];
    const auto& t = values[j];
    if (t.data.size() != g.operands[idx].byte_size())
      return {ErrorStatus::GENERAL_FAILURE,
              where + ": output " + std::to_string(j) + " came out " + models::dims_to_string(t.dimensions) +
                  ", the model declares " + models::dims_to_string(g.operands[idx].dimensions)};
    const Location at = locate(idx, arena, request);
    os.delay_ns(copy_ns(cost_, t.data.size()));
    r.host_copy_bytes += t.data.size();
    if (auto w = driver_.write_bo(ctx_, at.bo, at.offset, t.data.data(), t.data.size()); !w)
      return driver_failure(w);
  }
  return {};
}

Status NpuDeviceBuffer::copy_from(const models::Tensor& value) {
  if (value.type != operand_.type || value.data.size() != operand_.byte_size())
    return {ErrorStatus::INVALID_ARGUMENT, "copy_from: the value has type " +
                                               std::string(models::to_string(value.type)) + " and " +
                                               std::to_string(value.data.size()) + " bytes, the buffer " +
                                               std::string(models::to_string(operand_.type)) + " and " +
                                               std::to_string(operand_.byte_size())};
  driver_.os().delay_ns(copy_ns(cost_, value.data.size()));
  if (auto w = driver_.write_bo(ctx_, bo_.handle, 0, value.data.data(), value.data.size()); !w)
    return driver_failure(w);
  return {};
}

Status NpuDeviceBuffer::copy_to(models::Tensor* value) {
  *value = models::make_tensor(operand_, operand_.dimensions);
  if (auto rd = driver_.read_bo(ctx_, bo_.handle, 0, value->data.data(), value->data.size()); !rd)
    return driver_failure(rd);
  driver_.os().delay_ns(copy_ns(cost_, value->data.size()));
  return {};
}

}  // namespace npu::hal
