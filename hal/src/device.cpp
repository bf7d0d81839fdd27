#include "npu/hal/device.h"

#include <cstring>

#include "npu/common/log.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/validate.h"

namespace npu::hal {
namespace {

constexpr const char* kHalVersion = "1.3.0";

uint64_t to_us(uint64_t ns) { return (ns + 500) / 1000; }

// Multiply-accumulates of the convolution-like operations, for the CPU cost model; other operations
// count one operation per output element.
uint64_t estimated_macs(const models::Model& m) {
  uint64_t macs = 0;
  for (const auto& op : m.main.operations) {
    uint64_t out = 0;
    for (uint32_t o : op.outputs) out += m.main.operands[o].element_count();
    uint64_t per_output = 1;
    if ((op.type == models::OperationType::CONV_2D || op.type == models::OperationType::FULLY_CONNECTED) &&
        op.inputs.size() > 1) {
      const auto& f = m.main.operands[op.inputs[1]];
      per_output = f.dimensions.empty() || f.dimensions[0] == 0 ? 1 : f.element_count() / f.dimensions[0];
    }
    macs += out * per_output;
  }
  return macs;
}

class CpuPreparedModel : public PreparedModel {
 public:
  CpuPreparedModel(const models::Model& m, drv::Os& os, HostCost cost, std::string placement)
      : model_(m), os_(os), cost_(cost), macs_(estimated_macs(m)), placement_(std::move(placement)) {}

  ExecutionResult execute_synchronously(const TensorMap& inputs, bool measure) override {
    ExecutionResult r;
    if (auto s = check_inputs(model_, inputs); !s.ok()) {
      r.status = s;
      return r;
    }
    const uint64_t t0 = os_.now_ns();
    auto out = ops::run_reference(model_, inputs);
    os_.delay_ns(static_cast<uint64_t>(static_cast<double>(macs_) / cost_.cpu_gmacs));
    if (!out) {
      r.status = {ErrorStatus::GENERAL_FAILURE, out.error()};
      return r;
    }
    r.outputs = std::move(*out);
    for (uint32_t idx : model_.main.output_indexes) r.output_shapes.push_back({r.outputs[idx].dimensions, true});
    if (measure) r.timing = {kNoTiming, to_us(os_.now_ns() - t0)};
    log::get("cpuexe")->debug("executed {} operations on the CPU", model_.main.operations.size());
    return r;
  }
  std::string placement() const override { return placement_; }

 private:
  models::Model model_;
  drv::Os& os_;
  HostCost cost_;
  uint64_t macs_;
  std::string placement_;
};

class NpuPreparedModel : public PreparedModel {
 public:
  NpuPreparedModel(const models::Model& m, drv::Driver& driver, drv::ContextId ctx, Program program,
                   drv::BufferObject weights, drv::BufferObject arena, HostCost cost)
      : model_(m), driver_(driver), ctx_(ctx), program_(std::move(program)), weights_(weights), arena_(arena),
        cost_(cost) {}

  ~NpuPreparedModel() override {
    (void)driver_.free_bo(ctx_, weights_.handle);
    (void)driver_.free_bo(ctx_, arena_.handle);
  }

  ExecutionResult execute_synchronously(const TensorMap& inputs, bool measure) override {
    auto log = log::get("execution");
    ExecutionResult r;
    if (auto s = check_inputs(model_, inputs); !s.ok()) {
      r.status = s;
      return r;
    }
    drv::Os& os = driver_.os();
    const uint64_t t0 = os.now_ns();
    uint64_t device_ns = 0;
    for (const auto& [idx, t] : inputs) {
      os.delay_ns(copy_ns(t.data.size()));
      if (auto w = driver_.write_bo(ctx_, arena_.handle, program_.arena.at(idx).offset, t.data.data(), t.data.size());
          !w) {
        r.status = {ErrorStatus::GENERAL_FAILURE, w.error()};
        return r;
      }
    }
    // A run of consecutive NPU stages is one driver job (a chain: the driver starts stage k+1 when
    // stage k's command buffers are all done); a CPU stage in between runs here, on the host.
    for (size_t first = 0; first < program_.stages.size();) {
      if (program_.stages[first].on_cpu) {
        if (auto c = run_on_cpu(program_.stages[first]); !c.ok()) {
          r.status = c;
          return r;
        }
        ++first;
        continue;
      }
      size_t last = first;
      while (last < program_.stages.size() && !program_.stages[last].on_cpu) ++last;
      drv::JobRequest job;
      job.label = "ops " + std::to_string(program_.stages[first].operation) + ".." +
                  std::to_string(program_.stages[last - 1].operation);
      for (size_t i = first; i < last; ++i) {
        auto& buffers = job.stages.emplace_back();
        for (const auto& step : program_.stages[i].jobs)
          buffers.push_back(relocate(step, weights_.device_address, arena_.device_address));
        r.npu_jobs += static_cast<uint32_t>(buffers.size());
      }
      auto fence = driver_.submit(ctx_, std::move(job));
      if (!fence) {
        r.status = {ErrorStatus::GENERAL_FAILURE, fence.error()};
        return r;
      }
      driver_.wait(**fence);
      const drv::Fence& f = **fence;
      if (f.status != drv::JobStatus::COMPLETED) {
        r.status = {ErrorStatus::GENERAL_FAILURE, "NPU job " + std::string(drv::to_string(f.status)) + ": " + f.error};
        return r;
      }
      r.device_cycles += f.device_cycles;
      device_ns += f.device_ns;
      first = last;
    }
    for (uint32_t idx : model_.main.output_indexes) {
      const auto& op = model_.main.operands[idx];
      models::Tensor t = models::make_tensor(op, op.dimensions);
      if (auto rd = driver_.read_bo(ctx_, arena_.handle, program_.arena.at(idx).offset, t.data.data(), t.data.size());
          !rd) {
        r.status = {ErrorStatus::GENERAL_FAILURE, rd.error()};
        return r;
      }
      os.delay_ns(copy_ns(t.data.size()));
      r.output_shapes.push_back({t.dimensions, true});
      r.outputs[idx] = std::move(t);
    }
    if (measure) r.timing = {to_us(device_ns), to_us(os.now_ns() - t0)};
    log->debug("executed {} NPU jobs, {} cycles", r.npu_jobs, r.device_cycles);
    return r;
  }
  std::string placement() const override {
    if (program_.cpu_operations == 0) return "npu";
    return "npu + cpu (" + std::to_string(program_.cpu_operations) + " of " +
           std::to_string(model_.main.operations.size()) + " operations on the CPU)";
  }

 private:
  // A CPU stage: its inputs come out of the arena, the reference kernel runs on the host (charged
  // host time), its outputs go back into the arena for the stages after it.
  Status run_on_cpu(const Stage& stage) {
    drv::Os& os = driver_.os();
    TensorMap inputs;
    for (size_t i = 0; i < stage.cpu_inputs.size(); ++i) {
      const uint32_t original = stage.cpu_inputs[i];
      const auto& op = model_.main.operands[original];
      models::Tensor t = models::make_tensor(op, op.dimensions);
      if (auto rd = driver_.read_bo(ctx_, arena_.handle, program_.arena.at(original).offset, t.data.data(), t.data.size()); !rd)
        return {ErrorStatus::GENERAL_FAILURE, rd.error()};
      os.delay_ns(copy_ns(t.data.size()));
      inputs[stage.cpu_model.main.input_indexes[i]] = std::move(t);
    }
    auto out = ops::run_reference(stage.cpu_model, inputs);
    if (!out) return {ErrorStatus::GENERAL_FAILURE, "operations[" + std::to_string(stage.operation) + "] on the CPU: " + out.error()};
    os.delay_ns(static_cast<uint64_t>(static_cast<double>(estimated_macs(stage.cpu_model)) / cost_.cpu_gmacs));
    for (size_t i = 0; i < stage.cpu_outputs.size(); ++i) {
      const auto& t = out->at(stage.cpu_model.main.output_indexes[i]);
      os.delay_ns(copy_ns(t.data.size()));
      if (auto w = driver_.write_bo(ctx_, arena_.handle, program_.arena.at(stage.cpu_outputs[i]).offset, t.data.data(), t.data.size()); !w)
        return {ErrorStatus::GENERAL_FAILURE, w.error()};
    }
    return {};
  }

  uint64_t copy_ns(uint64_t bytes) const { return static_cast<uint64_t>(static_cast<double>(bytes) / cost_.memcpy_gbps); }

  models::Model model_;
  drv::Driver& driver_;
  drv::ContextId ctx_;
  Program program_;
  drv::BufferObject weights_, arena_;
  HostCost cost_;
};

}  // namespace

const char* to_string(ErrorStatus s) {
  switch (s) {
    case ErrorStatus::NONE: return "NONE";
    case ErrorStatus::DEVICE_UNAVAILABLE: return "DEVICE_UNAVAILABLE";
    case ErrorStatus::GENERAL_FAILURE: return "GENERAL_FAILURE";
    case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
    case ErrorStatus::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ErrorStatus::MISSED_DEADLINE_TRANSIENT: return "MISSED_DEADLINE_TRANSIENT";
    case ErrorStatus::MISSED_DEADLINE_PERSISTENT: return "MISSED_DEADLINE_PERSISTENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT: return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT: return "RESOURCE_EXHAUSTED_PERSISTENT";
  }
  return "?";
}

const char* to_string(DeviceType t) {
  switch (t) {
    case DeviceType::OTHER: return "OTHER";
    case DeviceType::CPU: return "CPU";
    case DeviceType::GPU: return "GPU";
    case DeviceType::ACCELERATOR: return "ACCELERATOR";
  }
  return "?";
}

Status validate_for_prepare(const models::Model& model) {
  if (auto v = models::validate_model(model); !v) return {ErrorStatus::INVALID_ARGUMENT, v.error()};
  if (auto v = ops::validate_operations(model); !v) return {ErrorStatus::INVALID_ARGUMENT, v.error()};
  return {};
}

namespace {

// The devices here compute, so they prepare only models whose constants have values; a timing-only
// model (Operand::values_omitted) validates but is refused here, naming the first such operand.
Status check_values_present(const models::Model& model) {
  const auto& ops = model.main.operands;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].values_omitted)
      return {ErrorStatus::INVALID_ARGUMENT, "operands[" + std::to_string(i) +
                                                 "]: values omitted (a timing-only model); this device executes "
                                                 "only models whose constants have values"};
  }
  return {};
}

}  // namespace

Status check_inputs(const models::Model& model, const TensorMap& inputs) {
  const auto& g = model.main;
  for (uint32_t idx : g.input_indexes) {
    auto it = inputs.find(idx);
    if (it == inputs.end()) return {ErrorStatus::INVALID_ARGUMENT, "missing input operand " + std::to_string(idx)};
    const auto& op = g.operands[idx];
    if (it->second.type != op.type)
      return {ErrorStatus::INVALID_ARGUMENT, "input operand " + std::to_string(idx) + " has type " +
                                                 std::string(models::to_string(it->second.type)) + ", model expects " +
                                                 std::string(models::to_string(op.type))};
    if (it->second.data.size() != it->second.element_count() * models::element_size(op.type) ||
        (op.fully_specified() && it->second.element_count() != op.element_count()))
      return {ErrorStatus::INVALID_ARGUMENT, "input operand " + std::to_string(idx) + " has " +
                                                 std::to_string(it->second.element_count()) + " elements, model expects " +
                                                 std::to_string(op.element_count())};
  }
  if (inputs.size() != g.input_indexes.size())
    return {ErrorStatus::INVALID_ARGUMENT, "inputs name an operand that is not a graph input"};
  return {};
}

std::string CpuDevice::version_string() const { return std::string("npusim-cpu-ref ") + kHalVersion; }

Status CpuDevice::supported_operations(const models::Model& model, std::vector<bool>* supported) {
  if (auto s = validate_for_prepare(model); !s.ok()) return s;
  supported->assign(model.main.operations.size(), true);
  return {};
}

PrepareResult CpuDevice::prepare_model(const models::Model& model) {
  if (auto s = validate_for_prepare(model); !s.ok()) return {s, nullptr};
  if (auto s = check_values_present(model); !s.ok()) return {s, nullptr};
  return {{}, std::make_unique<CpuPreparedModel>(model, os_, cost_, "cpu")};
}

NpuDevice::NpuDevice(drv::Driver& driver, NpuTarget target, HostCost cost, int uid, int pid)
    : driver_(driver), target_(target), cost_(cost), uid_(uid), pid_(pid) {}

std::string NpuDevice::version_string() const {
  char hw[16];
  std::snprintf(hw, sizeof hw, "%u.%u", driver_.hw_version() >> 16, driver_.hw_version() & 0xFFFF);
  return std::string("npusim-npu hal ") + kHalVersion + " driver " + drv::kDriverVersion + " hw " + hw;
}

Status NpuDevice::supported_operations(const models::Model& model, std::vector<bool>* supported) {
  if (auto s = validate_for_prepare(model); !s.ok()) return s;
  auto log = log::get("compilation");
  supported->clear();
  for (uint32_t i = 0; i < model.main.operations.size(); ++i) {
    const std::string reason = npu_unsupported_reason(model, i, target_);
    if (!reason.empty()) log->info("operations[{}] not supported on the NPU: {}", i, reason);
    supported->push_back(reason.empty());
  }
  return {};
}

PrepareResult NpuDevice::prepare_model(const models::Model& model) {
  auto log = log::get("compilation");
  if (auto s = validate_for_prepare(model); !s.ok()) return {s, nullptr};
  if (auto s = check_values_present(model); !s.ok()) return {s, nullptr};
  auto program = compile_for_npu(model, target_);
  if (!program) {
    // As the NNAPI framework does when preparation fails: run the whole model on the CPU.
    log->info("NPU preparation failed ({}); the model runs on the CPU", program.error());
    return {{}, std::make_unique<CpuPreparedModel>(model, driver_.os(), cost_, "cpu (fallback: " + program.error() + ")")};
  }
  if (!ctx_) {
    auto c = driver_.open_context(uid_, pid_);
    if (!c) return {{ErrorStatus::DEVICE_UNAVAILABLE, c.error()}, nullptr};
    ctx_ = *c;
  }
  auto weights = driver_.alloc_bo(*ctx_, std::max<uint64_t>(program->weights.size(), 1));
  if (!weights) return {{ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, weights.error()}, nullptr};
  auto arena = driver_.alloc_bo(*ctx_, std::max<uint64_t>(program->arena_bytes, 1));
  if (!arena) {
    (void)driver_.free_bo(*ctx_, weights->handle);
    return {{ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, arena.error()}, nullptr};
  }
  if (!program->weights.empty()) {
    driver_.os().delay_ns(static_cast<uint64_t>(static_cast<double>(program->weights.size()) / cost_.memcpy_gbps));
    if (auto w = driver_.write_bo(*ctx_, weights->handle, 0, program->weights.data(), program->weights.size()); !w)
      return {{ErrorStatus::GENERAL_FAILURE, w.error()}, nullptr};
  }
  return {{}, std::make_unique<NpuPreparedModel>(model, driver_, *ctx_, std::move(*program), *weights, *arena, cost_)};
}

}  // namespace npu::hal
