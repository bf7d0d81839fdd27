#include "npu/hal/device.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "npu/common/digest.h"
#include "npu/common/log.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/hal/prepared_program.h"
#include "npu/models/extensions.h"
#include "npu/models/validate.h"
#include "npu/regmap/npu_regs.h"
#include "prepared_models.h"

namespace npu::hal {
namespace {

constexpr const char* kHalVersion = "1.3.0";

// Host time the HAL spends preparing (validation and compilation run on the CPU; NNAPI counts them
// against the preparation deadline).
constexpr uint64_t kValidateNsPerOperation = 1'000;
constexpr uint64_t kCompileNsPerDescriptor = 200;

uint64_t descriptor_count(const Program& p) {
  uint64_t n = 0;
  for (const auto& s : p.stages)
    for (const auto& j : s.jobs) n += j.commands.size();
  return n;
}

// Fills unknown dimensions with those shape propagation infers (a model may leave temporaries and
// outputs open, NNAPI 1.2); operands that stay unknown keep their zeros.
models::Model with_inferred_shapes(const models::Model& model) {
  models::Model shaped = model;
  auto dims = ops::infer_shapes(shaped, shaped.main);
  if (!dims) return shaped;
  for (size_t i = 0; i < shaped.main.operands.size() && i < dims->size(); ++i) {
    auto& op = shaped.main.operands[i];
    if (!op.fully_specified() && models::is_tensor(op.type) && !(*dims)[i].empty())
      op.dimensions = (*dims)[i];
  }
  return shaped;
}

// Bytes of the main graph's constant tensors (with values or not: a timing-only model costs what the
// model with values would).
uint64_t constant_bytes(const models::Model& model) {
  uint64_t n = 0;
  for (const auto& o : model.main.operands)
    if (o.is_constant() && models::is_tensor(o.type)) n += o.byte_size();
  return n;
}

// A timing-only model (Operand::values_omitted) validates everywhere, but only a device that can run
// it for timing alone prepares it; the others refuse it naming the first such operand.
Status check_values_present(const models::Model& model) {
  const auto& ops = model.main.operands;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].values_omitted)
      return {ErrorStatus::INVALID_ARGUMENT,
              "operands[" + std::to_string(i) +
                  "]: values omitted (a timing-only model); this device executes "
                  "only models whose constants have values"};
  }
  return {};
}

}  // namespace

uint64_t model_fingerprint(const models::Model& model) {
  // A digest of everything that defines the model (not its JSON: hashing the bytes is much cheaper for
  // large weights), word-parallel (npu::Digest) as megabytes of weights go through it.
  Digest d;
  auto mix = [&](const void* p, size_t n) { d.add(p, n); };
  auto mix_u32s = [&](const std::vector<uint32_t>& v) {
    const uint64_t n = v.size();
    mix(&n, sizeof n);
    mix(v.data(), v.size() * sizeof(uint32_t));
  };
  auto mix_graph = [&](const models::Subgraph& g) {
    for (const auto& o : g.operands) {
      const int32_t head[4] = {static_cast<int32_t>(o.type), static_cast<int32_t>(o.lifetime), o.zero_point,
                               static_cast<int32_t>(o.subgraph)};
      mix(head, sizeof head);
      mix(&o.scale, sizeof o.scale);
      mix_u32s(o.dimensions);
      const uint64_t bytes = o.data.size();
      mix(&bytes, sizeof bytes);
      mix(o.data.data(), o.data.size());
      if (o.per_channel) {
        mix(o.per_channel->scales.data(), o.per_channel->scales.size() * sizeof(float));
        mix(&o.per_channel->channel_dim, sizeof o.per_channel->channel_dim);
      }
    }
    for (const auto& op : g.operations) {
      const auto t = static_cast<int32_t>(op.type);
      mix(&t, sizeof t);
      mix_u32s(op.inputs);
      mix_u32s(op.outputs);
    }
    mix_u32s(g.input_indexes);
    mix_u32s(g.output_indexes);
  };
  mix_graph(model.main);
  for (const auto& g : model.referenced) mix_graph(g);
  const uint8_t relaxed = model.relax_computation_float32_to_float16;
  mix(&relaxed, 1);
  for (const auto& e : model.extension_name_to_prefix) {  // the same type values mean other operations
    const uint64_t n = e.name.size();
    mix(&n, sizeof n);
    mix(e.name.data(), e.name.size());
    mix(&e.prefix, sizeof e.prefix);
  }
  return d.value();
}

const char* hal_version() { return kHalVersion; }

int to_job_priority(Priority p) {
  switch (p) {
    case Priority::HIGH:
      return drv::kHighestPriority;
    case Priority::MEDIUM:
      return (drv::kHighestPriority + drv::kLowestPriority) / 2;
    case Priority::LOW:
      return drv::kLowestPriority;
  }
  return drv::kLowestPriority;
}

Status validate_for_prepare(const models::Model& model) {
  if (auto v = models::validate_model(model); !v) return {ErrorStatus::INVALID_ARGUMENT, v.error()};
  if (auto v = ops::validate_operations(model); !v) return {ErrorStatus::INVALID_ARGUMENT, v.error()};
  return {};
}

Status check_inputs(const models::Model& model, const TensorMap& inputs) {
  const auto& g = model.main;
  for (uint32_t idx : g.input_indexes) {
    auto it = inputs.find(idx);
    if (it == inputs.end())
      return {ErrorStatus::INVALID_ARGUMENT, "missing input operand " + std::to_string(idx)};
    const auto& op = g.operands[idx];
    if (it->second.type != op.type)
      return {ErrorStatus::INVALID_ARGUMENT, "input operand " + std::to_string(idx) + " has type " +
                                                 std::string(models::to_string(it->second.type)) +
                                                 ", model expects " +
                                                 std::string(models::to_string(op.type))};
    if (it->second.has_no_value) continue;  // whether the operations allow it: check_request
    // NNAPI: a value's dimensions agree with every extent the model declares (rank included); the
    // NPU would otherwise read a [1,4,2,4] value laid out as the model's [1,4,4,2].
    const auto& dims = it->second.dimensions;
    bool agree = op.dimensions.empty() || dims.empty() || dims.size() == op.dimensions.size();
    for (size_t d = 0; agree && !op.dimensions.empty() && d < dims.size(); ++d)
      agree = op.dimensions[d] == 0 || op.dimensions[d] == dims[d];
    if (!agree)
      return {ErrorStatus::INVALID_ARGUMENT, "input operand " + std::to_string(idx) + " has dimensions " +
                                                 models::dims_to_string(dims) + ", the model declares " +
                                                 models::dims_to_string(op.dimensions)};
    if (it->second.data.size() != it->second.element_count() * models::element_size(op.type) ||
        (op.fully_specified() && it->second.element_count() != op.element_count()))
      return {ErrorStatus::INVALID_ARGUMENT,
              "input operand " + std::to_string(idx) + " has " + std::to_string(it->second.element_count()) +
                  " elements, model expects " + std::to_string(op.element_count())};
  }
  if (inputs.size() != g.input_indexes.size())
    return {ErrorStatus::INVALID_ARGUMENT, "inputs name an operand that is not a graph input"};
  return {};
}

std::string extension_unsupported_reason(const Device& device, const models::Model& model, uint32_t index) {
  if (index >= model.main.operations.size() || !models::is_extension_type(model.main.operations[index].type))
    return "";
  const auto r =
      models::resolve_extension_operation(model.extension_name_to_prefix, model.main.operations[index].type);
  if (!r.extension) return r.error;
  std::string supported;
  for (const Extension& e : device.supported_extensions()) {
    if (e.name == r.extension->name) return "";
    supported += (supported.empty() ? "" : ", ") + e.name;
  }
  return "vendor extension " + std::string(r.extension->name) + " is not supported by " + device.name() +
         " (" + (supported.empty() ? "it supports no vendor extension" : "it supports " + supported) + ")";
}

namespace {

// NNAPI: a model using a vendor extension goes only to a device that lists it in getSupportedExtensions.
Status check_extensions_supported(const Device& device, const models::Model& model) {
  for (size_t g = 0; g <= model.referenced.size(); ++g) {
    models::Model one;
    one.main = g == 0 ? model.main : model.referenced[g - 1];
    one.extension_name_to_prefix = model.extension_name_to_prefix;
    for (uint32_t i = 0; i < one.main.operations.size(); ++i)
      if (auto why = extension_unsupported_reason(device, one, i); !why.empty())
        return {ErrorStatus::INVALID_ARGUMENT, (g == 0 ? "" : "referenced[" + std::to_string(g - 1) + "].") +
                                                   "operations[" + std::to_string(i) + "] (" +
                                                   models::operation_name(one, one.main.operations[i].type) +
                                                   "): " + why};
  }
  return {};
}

}  // namespace

// --- Device: the preparation flow every device shares ---------------------------------------------

PrepareResult Device::prepare_model(const models::Model& model, const PrepareOptions& options) {
  auto log = log::get("compilation");
  const uint64_t t0 = os_.now_ns();
  os_.delay_ns(costs_.call_ns);
  if (options.deadline && *options.deadline <= os_.now_ns())
    return {{ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the preparation deadline passed before it started"},
            nullptr};
  const uint64_t validate_ns = kValidateNsPerOperation * model.main.operations.size();
  const uint64_t fingerprint = model_fingerprint(model);
  // NNAPI: MISSED_DEADLINE_PERSISTENT when the driver knows the deadline cannot be met, so that trying
  // again with the same budget would fail too: validation alone does not fit, or this device never
  // prepared this model within the budget. Nothing is done then.
  if (options.deadline) {
    const uint64_t left = *options.deadline - os_.now_ns();
    if (left < validate_ns)
      return {{ErrorStatus::MISSED_DEADLINE_PERSISTENT,
               "the preparation deadline leaves " + std::to_string(left) + " ns; validating " +
                   std::to_string(model.main.operations.size()) + " operations alone takes " +
                   std::to_string(validate_ns)},
              nullptr};
    auto fastest = fastest_prepare_ns_.find(fingerprint);
    if (fastest != fastest_prepare_ns_.end() && *options.deadline - t0 < fastest->second)
      return {
          {ErrorStatus::MISSED_DEADLINE_PERSISTENT,
           "the preparation deadline allows " + std::to_string(*options.deadline - t0) +
               " ns; this device never prepared this model in less than " + std::to_string(fastest->second)},
          nullptr};
  }
  os_.delay_ns(validate_ns);
  if (auto s = validate_for_prepare(model); !s.ok()) return {s, nullptr};
  // Abort rather than compile past a deadline that validation already used up.
  if (options.deadline && os_.now_ns() > *options.deadline)
    return {{ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the preparation deadline passed during validation"},
            nullptr};
  if (auto s = check_extensions_supported(*this, model); !s.ok()) return {s, nullptr};
  if (!runs_timing_only_models())
    if (auto s = check_values_present(model); !s.ok()) return {s, nullptr};
  PrepareResult r;
  const bool cached = options.token && !options.cache_dir.empty() && number_of_cache_files_needed().first > 0;
  if (cached) {
    r = prepare_from_cache(options, &model);
    if (r.status.ok()) {
      r.from_cache = true;
    } else {
      log->info("{}: compilation cache not used: {}", name(), r.status.message);
      r.cache_miss = r.status.message;
      r.status = {};
      r.model.reset();
    }
  }
  if (!r.model) {
    std::string miss = r.cache_miss;
    r = prepare(model, options);
    r.cache_miss = miss;
  }
  if (r.status.ok()) {
    // Whether or not this one was in time, the next call with a smaller budget is known to fail.
    auto [it, fresh] = fastest_prepare_ns_.emplace(fingerprint, os_.now_ns() - t0);
    if (!fresh) it->second = std::min(it->second, os_.now_ns() - t0);
  }
  if (r.status.ok() && options.deadline && os_.now_ns() > *options.deadline) {
    r.model.reset();
    r.status = {
        ErrorStatus::MISSED_DEADLINE_TRANSIENT,
        "preparation ended " + std::to_string(os_.now_ns() - *options.deadline) + " ns after its deadline"};
  }
  return r;
}

PrepareResult Device::prepare_model_from_cache(const PrepareOptions& options) {
  os_.delay_ns(costs_.call_ns);
  if (!options.token || options.cache_dir.empty())
    return {{ErrorStatus::INVALID_ARGUMENT, "prepareModelFromCache needs a cache directory and a token"},
            nullptr};
  if (options.deadline && *options.deadline <= os_.now_ns())
    return {{ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the preparation deadline passed before it started"},
            nullptr};
  auto r = prepare_from_cache(options, nullptr);
  r.from_cache = r.status.ok();
  return r;
}

AllocateResult Device::allocate(const PreparedModel& model, uint32_t operand) {
  os_.delay_ns(costs_.call_ns);
  const models::Operand* op = model.io_operand(operand);
  if (!op)
    return {{ErrorStatus::INVALID_ARGUMENT,
             "operand " + std::to_string(operand) + " is not a graph input or output"},
            nullptr};
  auto r = allocate_buffer(*op);
  if (!r.status.ok()) r.status.message = "operand " + std::to_string(operand) + ": " + r.status.message;
  return r;
}

// --- CPU device -------------------------------------------------------------------------------------

std::string CpuDevice::version_string() const {
  return std::string("npusim-cpu-ref ") + kHalVersion + " (src " + driver_source_digest() + ")";
}

Status CpuDevice::supported_operations(const models::Model& model, std::vector<bool>* supported) {
  if (auto s = validate_for_prepare(model); !s.ok()) return s;
  supported->clear();
  for (uint32_t i = 0; i < model.main.operations.size(); ++i) {
    const std::string reason = extension_unsupported_reason(*this, model, i);
    if (!reason.empty())
      log::get("compilation")
          ->info("{}: operations[{}] ({}) not supported: {}", name(), i,
                 models::operation_name(model, model.main.operations[i].type), reason);
    supported->push_back(reason.empty());
  }
  return {};
}

PrepareResult CpuDevice::prepare(const models::Model& model, const PrepareOptions& options) {
  return {{}, std::make_unique<CpuPreparedModel>(model, os(), cost_, hal_costs(), options.priority, "cpu")};
}

AllocateResult CpuDevice::allocate_buffer(const models::Operand& operand) {
  return {{}, std::make_shared<CpuDeviceBuffer>(operand)};
}

// --- NPU device -------------------------------------------------------------------------------------

NpuTarget target_for(const drv::DeviceInfo& info) {
  NpuTarget t;
  t.array_rows = info.array_rows;
  t.array_cols = info.array_cols;
  t.sram_bytes = info.sram_bytes;
  t.channels = info.channels;
  t.clock_mhz = info.clock_mhz();
  const drv::PlatformData& p = info.platform;
  t.dma_bytes_per_cycle = p.dma_bytes_per_cycle;
  t.dma_setup_cycles = p.dma_setup_cycles;
  t.descriptor_fetch_cycles = p.descriptor_fetch_cycles;
  t.queue_depth = p.queue_depth;
  t.dram_gbps = p.dram_gbps;
  t.dram_latency_ns = p.dram_latency_ns;
  t.fp32_macs_per_cycle = p.fp32_macs_per_cycle;
  t.vector_pipeline_cycles = p.vector_pipeline_cycles;
  return t;
}

NpuDevice::NpuDevice(drv::Driver& driver, HostCost cost, int uid, int pid, Variant variant, HalCosts costs)
    : Device(driver.os(), costs),
      driver_(driver),
      target_(target_for(driver.device_info())),
      cost_(cost),
      uid_(uid),
      pid_(pid),
      variant_(variant) {
  if (variant_ == Variant::MINIMAL) target_.lowered_operations = {models::OperationType::CONV_2D};
}

NpuDevice::~NpuDevice() = default;

std::string NpuDevice::name() const {
  return variant_ == Variant::MINIMAL ? "npusim-npu-minimal" : "npusim-npu";
}

std::string NpuDevice::version_string() const {
  char hw[16];
  std::snprintf(hw, sizeof hw, "%u.%u", regs::VERSION_MAJOR.get(driver_.hw_version()),
                regs::VERSION_MINOR.get(driver_.hw_version()));
  return std::string("npusim-npu hal ") + kHalVersion + " driver " + drv::kDriverVersion + "+" +
         driver_source_digest() + " hw " + hw;
}

std::vector<Extension> NpuDevice::supported_extensions() const {
  if (variant_ == Variant::MINIMAL) return {};
  const models::ExtensionInfo* llm = models::find_extension(models::kLlmExtension);
  Extension e{std::string(llm->name), {}};
  for (const auto& t : llm->operand_types) e.operand_types.push_back({t.type, t.is_tensor, t.byte_size});
  return {e};
}

std::string NpuDevice::unsupported_reason(const models::Model& model, uint32_t index) const {
  if (auto why = extension_unsupported_reason(*this, model, index); !why.empty()) return why;
  return npu_unsupported_reason(model, index, target_);
}

Status NpuDevice::supported_operations(const models::Model& model, std::vector<bool>* supported) {
  if (auto s = validate_for_prepare(model); !s.ok()) return s;
  auto log = log::get("compilation");
  const models::Model shaped = with_inferred_shapes(model);
  supported->clear();
  for (uint32_t i = 0; i < shaped.main.operations.size(); ++i) {
    const std::string reason = unsupported_reason(shaped, i);
    if (!reason.empty())
      log->info("{}: operations[{}] ({}) not supported: {}", name(), i,
                models::operation_name(shaped, shaped.main.operations[i].type), reason);
    supported->push_back(reason.empty());
  }
  return {};
}

Result<drv::ContextId> NpuDevice::context() {
  if (!ctx_) {
    auto c = driver_.open_context(uid_, pid_);
    if (!c) return c;
    ctx_ = *c;
  }
  return *ctx_;
}

Status NpuDevice::close() {
  if (!ctx_) return {};
  const drv::ContextId ctx = *ctx_;
  ctx_.reset();
  if (auto c = driver_.close_context(ctx); !c) return driver_failure(c);
  return {};
}

PrepareResult NpuDevice::compile_or_fall_back(const models::Model& model, Priority priority,
                                              CompiledGraph* record) {
  auto log = log::get("compilation");
  models::Model shaped = with_inferred_shapes(model);
  auto program = compile_for_npu(shaped, target_);
  ++compilations_;
  if (!program && models::is_timing_only(model))
    return {{ErrorStatus::GENERAL_FAILURE, "timing-only model: " + program.error()}, nullptr};
  // The CPU reference computes no vendor extension: a model using one has no fallback.
  if (!program && !models::extensions_used(model).empty())
    return {{ErrorStatus::GENERAL_FAILURE, program.error()}, nullptr};
  if (!program) {
    // As the NNAPI framework does when preparation fails: run the whole model on the CPU.
    log->info("{}: NPU preparation failed ({}); the model runs on the CPU", name(), program.error());
    if (record) *record = {std::move(shaped), std::nullopt, program.error()};
    return {{},
            std::make_unique<CpuPreparedModel>(model, os(), cost_, hal_costs(), priority,
                                               "cpu (fallback: " + program.error() + ")")};
  }
  // Host time: emitting descriptors, and packing, which reads every constant and writes the image.
  os().delay_ns(kCompileNsPerDescriptor * descriptor_count(*program) +
                copy_ns(cost_, constant_bytes(shaped) + program->weights.size()));
  if (record) *record = {shaped, *program, {}};
  return load(shaped, std::move(*program), priority);
}

Status NpuDevice::prepare_subgraphs(PrepareResult& prepared, const models::Model& model, Priority priority,
                                    std::vector<CompiledGraph>* cached, std::vector<CompiledGraph>* record) {
  auto* npu = dynamic_cast<NpuPreparedModel*>(prepared.model.get());
  // A model on the CPU reference runs its control flow there; one without subgraphs needs nothing.
  if (!npu || model.referenced.empty()) return {};
  // Each referenced subgraph becomes a model of its own (same referenced list, so nested IF/WHILE
  // indices hold), compiled like any model, or loaded from the cache; they share this model's table
  // instead of preparing their own.
  auto table = std::make_unique<SubgraphModels>();
  for (size_t i = 0; i < model.referenced.size(); ++i) {
    PrepareResult child;
    if (cached) {
      CompiledGraph& g = (*cached)[i];
      if (auto v = validate_for_prepare(g.model); !v.ok())
        return {ErrorStatus::GENERAL_FAILURE,
                "cached subgraph " + std::to_string(i) + " invalid: " + v.message};
      if (g.program)
        child = load(g.model, std::move(*g.program), priority);
      else
        child = {{},
                 std::make_unique<CpuPreparedModel>(g.model, os(), cost_, hal_costs(), priority,
                                                    "cpu (fallback: " + g.fallback + ")")};
    } else {
      models::Model sub;
      sub.main = model.referenced[i];
      sub.referenced = model.referenced;
      sub.extension_name_to_prefix = model.extension_name_to_prefix;
      sub.relax_computation_float32_to_float16 = model.relax_computation_float32_to_float16;
      CompiledGraph compiled;
      child = compile_or_fall_back(sub, priority, record ? &compiled : nullptr);
      if (record) record->push_back(std::move(compiled));
    }
    if (!child.status.ok()) return child.status;
    table->push_back(std::move(child.model));
  }
  npu->attach_subgraphs(std::move(table));
  return {};
}

PrepareResult NpuDevice::prepare(const models::Model& model, const PrepareOptions& options) {
  auto log = log::get("compilation");
  const bool write_cache = options.token && !options.cache_dir.empty();
  CompiledGraph main;
  std::vector<CompiledGraph> subgraphs;
  auto r = compile_or_fall_back(model, options.priority, write_cache ? &main : nullptr);
  if (!r.status.ok()) return r;
  if (auto s = prepare_subgraphs(r, model, options.priority, nullptr, write_cache ? &subgraphs : nullptr);
      !s.ok())
    return {s, nullptr};
  if (write_cache && main.program && !main.program->timing_only) {
    auto id = cache_identity(*options.token);
    Result<void> w = id ? write_compilation_cache(options.cache_dir, *id, target_, model, main, subgraphs)
                        : Result<void>(make_error(id.error()));
    if (!w) log->warn("{}: compilation cache not written: {}", name(), w.error());
  }
  return r;
}

Result<CacheIdentity> NpuDevice::cache_identity(const CacheToken& token) {
  if (!cache_key_) cache_key_ = load_or_create_cache_key(default_cache_key_path());
  if (!*cache_key_) return make_error(cache_key_->error());
  return CacheIdentity{**cache_key_, name(), version_string(), token};
}

PrepareResult NpuDevice::prepare_from_cache(const PrepareOptions& options, const models::Model* expected) {
  auto id = cache_identity(*options.token);
  if (!id) return {{ErrorStatus::GENERAL_FAILURE, id.error()}, nullptr};
  auto cached = read_compilation_cache(options.cache_dir, *id, target_, expected);
  if (!cached) return {{ErrorStatus::GENERAL_FAILURE, cached.error()}, nullptr};
  // The cache passed its MACs; its content is still checked like any model before use.
  if (auto v = validate_for_prepare(cached->main.model); !v.ok())
    return {{ErrorStatus::GENERAL_FAILURE, "cached model invalid: " + v.message}, nullptr};
  // Reading and checking the files costs host time like copying them.
  os().delay_ns(copy_ns(cost_, cached->file_bytes));
  auto r = load(cached->main.model, std::move(*cached->main.program), options.priority);
  if (!r.status.ok()) return r;
  if (auto s = prepare_subgraphs(r, cached->main.model, options.priority, &cached->subgraphs, nullptr);
      !s.ok())
    return {s, nullptr};
  return r;
}

PrepareResult NpuDevice::load(const models::Model& model, Program program, Priority priority) {
  // Hardware that computes nothing (npu.functional = false) runs every program for timing alone: its
  // executions report timing and no output values, as a timing-only model's do.
  if (!driver_.functional()) program.timing_only = true;
  auto ctx = context();
  if (!ctx) return {driver_failure(ctx), nullptr};
  // Weights belong in the weight memory, as a precompiled model's do. Weights that can never fit it
  // (ENOSPC: a 7B decoder's 6.6 GB on a 16 GiB part with 6 GiB of weight memory, docs/models.md's
  // bench) are streamed from the general pool instead; a weight memory that is only full for now
  // (ENOMEM) is reported, as for any resident model.
  auto weights = upload_weights(*ctx, program.weights, true);
  if (!weights && weights.error_code() == ENOSPC) weights = upload_weights(*ctx, program.weights, false);
  if (!weights) return {driver_failure(weights), nullptr};
  return {{},
          std::make_unique<NpuPreparedModel>(model, driver_, *ctx, std::move(program), *weights, cost_,
                                             hal_costs(), priority)};
}

Result<drv::BufferObject> NpuDevice::upload_weights(drv::ContextId ctx, const WeightsImage& weights,
                                                    bool resident) {
  auto bo = driver_.alloc_bo(ctx, std::max<uint64_t>(weights.size(), 1), resident);
  if (!bo) return bo;
  os().delay_ns(copy_ns(cost_, weights.size()));
  if (!weights.bytes().empty()) {
    if (auto w = driver_.write_bo(ctx, bo->handle, 0, weights.bytes().data(), weights.bytes().size()); !w) {
      (void)driver_.free_bo(ctx, bo->handle);
      return with_context("", w);
    }
  }
  return bo;
}

ProgramPrepareResult NpuDevice::prepare_program(const PrecompiledModel& model) {
  os().delay_ns(hal_costs().call_ns);
  if (const uint64_t room = driver_.weight_memory_bytes(); model.weights.size() > room)
    return {{ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
             std::to_string(model.weights.size() >> 20) + " MiB of weights can never fit the NPU's " +
                 std::to_string(room >> 20) + " MiB weight memory"},
            nullptr};
  auto ctx = context();
  if (!ctx) return {driver_failure(ctx, "open_context: "), nullptr};
  auto weights = upload_weights(*ctx, model.weights, true);
  if (!weights) return {driver_failure(weights, "weights: "), nullptr};
  auto arena = driver_.alloc_bo(*ctx, std::max<uint64_t>(model.arena_bytes, 4096));
  if (!arena) {
    (void)driver_.free_bo(*ctx, weights->handle);
    return {driver_failure(arena, "arena: "), nullptr};
  }
  return {{}, std::make_unique<PreparedProgram>(driver_, *ctx, model, *weights, *arena, hal_costs())};
}

AllocateResult NpuDevice::allocate_buffer(const models::Operand& operand) {
  if (!operand.fully_specified())
    return {{ErrorStatus::INVALID_ARGUMENT, "the operand has unknown dimensions"}, nullptr};
  auto ctx = context();
  if (!ctx) return {driver_failure(ctx), nullptr};
  auto bo = driver_.alloc_bo(*ctx, std::max<uint64_t>(operand.byte_size(), 1));
  if (!bo) return {driver_failure(bo), nullptr};
  return {{}, std::make_shared<NpuDeviceBuffer>(driver_, *ctx, *bo, operand, cost_)};
}

ErrorStatus status_for_driver_error(int code) {
  switch (code) {
    case ENOMEM:
      return ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT;
    case ENOSPC:
      return ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
    case ENODEV:
      return ErrorStatus::DEVICE_UNAVAILABLE;
    default:
      return ErrorStatus::GENERAL_FAILURE;
  }
}

}  // namespace npu::hal
