// NNAPI-style devices and prepared models (docs/hal.md). A Device answers discovery queries (name, type,
// version, capabilities, supported operations), prepares models (validation, compilation, the
// compilation cache) and allocates driver-managed buffers (memory domains); a PreparedModel executes
// them synchronously, asynchronously with a callback, fenced, or in a burst. NpuDevice runs models on
// the simulated NPU through the driver (its "minimal" variant lowers only CONV_2D, to exercise
// partitioning); CpuDevice runs the CPU reference implementation (the accuracy oracle and the fallback).
//
// Calls are made from simulated host threads and take simulated time; asynchronous and fenced
// executions run on simulated threads of their own. A prepared model must outlive its executions;
// destroying it frees every device buffer it held (buffers allocated for it free theirs when released).
// IF/WHILE: the CPU reference runs the referenced subgraphs; the NPU device interprets the control flow
// on the host and runs each subgraph as a model of its own, compiled like any model (docs/hal.md).
// Not modelled: binder death, process isolation (every client of a device shares one driver context).
// Vendor extensions: the NPU device supports com.npusim.llm (models/extensions.h); a device refuses a model
// using an extension it does not list in supported_extensions() (INVALID_ARGUMENT at prepare, false flags
// from supported_operations), and no model with an extension operation falls back to the CPU reference.
// Timing-only models (LLM-sized, constants as sizes only) run on the NPU device for timing: the same
// descriptors as with values, the NPU in timing-only mode, CPU stages charged their estimated time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/drv/driver.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/compiler.h"
#include "npu/hal/types.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::hal {

using TensorMap = std::map<uint32_t, models::Tensor>;

class DeviceBuffer;
class PreparedProgram;
struct PrecompiledModel;

// One execution's arguments (NNAPI Request). An input comes from `inputs` (a host tensor, copied into
// device memory) or from `buffers` (a device buffer: no copy); an output goes to `buffers` when listed
// there, else it is copied back into ExecutionResult::outputs. `output_capacity` is the size in bytes
// of the caller's memory for an output (absent: large enough).
struct Request {
  TensorMap inputs;
  std::map<uint32_t, std::shared_ptr<DeviceBuffer>> buffers;
  std::map<uint32_t, uint64_t> output_capacity;
};

struct ExecuteOptions {
  bool measure_timing = false;
  Deadline deadline;                                 // absolute simulated ns
  uint64_t loop_timeout_ns = kDefaultLoopTimeoutNs;  // WHILE loops; at most kMaxLoopTimeoutNs
  // The execution's priority (0 most urgent … 1000), which the driver adds to the uid's SchedulingConfig
  // priority (the scheduling HAL's effective priority); absent: the prepared model's Priority
  // (to_job_priority).
  std::optional<int> job_priority;
  // When the work should have ended (absolute simulated ns; 0: none): a hint for deadline-aware
  // schedulers. Unlike `deadline`, missing it never aborts the execution.
  uint64_t deadline_hint_ns = 0;
  uint64_t job_timeout_ns = 0;  // a job running longer is considered hung (0: the driver's default)
};

// When one driver job was submitted and when it ended (simulated ns).
struct JobTimes {
  uint64_t submit_ns = 0, end_ns = 0;
};

struct ExecutionResult {
  Status status;
  TensorMap outputs;  // outputs not written to a device buffer
  std::vector<OutputShape> output_shapes;
  Timing timing;               // kNoTiming unless requested and the execution succeeded
  uint64_t device_cycles = 0;  // NPU cycles of the jobs this execution ran (0 on the CPU)
  // What the execution submitted (README, "Reading the outputs"): driver jobs, each a chain of stages (one
  // per operation on the NPU), each stage one command buffer per channel it uses.
  uint32_t jobs = 0;
  uint32_t stages = 0;
  uint32_t command_buffers = 0;
  uint64_t host_copy_bytes = 0;   // bytes the HAL copied between host and device memory
  int effective_priority = -1;    // of the last NPU job (-1: none ran)
  uint64_t device_energy_pj = 0;  // NPU energy of its jobs
  uint32_t preemptions = 0;       // of its jobs
  std::vector<JobTimes> job_times;
  // A job was cancelled by the system (the NPU manager revoked the model), not failed.
  bool revoked = false;
  // A timing-only model ran: the NPU moved and computed no data, so `outputs` is empty (shapes and
  // timing are real).
  bool timing_only = false;
  uint64_t device_ns = 0;  // the NPU jobs' dispatch→completion times, summed
  // Per operation run on the NPU: its longest command buffer's cycles (CH_CYCLES).
  std::map<uint32_t, uint64_t> operation_cycles;
};

// How the compiler tiled an operation on the MAC array (npusim run --explain-tiling).
struct OperationTiling {
  uint32_t operation = 0;
  std::string type;
  std::string tiling;             // tile shape, loop order, buffering, tiles and jobs
  uint64_t predicted_cycles = 0;  // the compiler's cost model, for the longest job
};

// A sync fence as the HAL sees one: signalled exactly once, with the status of the work behind it.
class SyncFence {
 public:
  explicit SyncFence(drv::Os& os) : wake_(os.make_wait_queue()) {}
  void signal(Status status);
  // Sleeps the calling simulated thread until the fence is signalled; returns its status.
  const Status& wait();
  bool signalled() const { return signalled_; }
  const Status& status() const { return status_; }

 private:
  std::unique_ptr<drv::WaitQueue> wake_;
  bool signalled_ = false;
  Status status_;
};

// What IFencedExecutionCallback::getExecutionInfo reports, valid once the fence is signalled.
// timing_launched counts from the executeFenced call, timing_fenced from when the last fence it waited
// for was signalled.
struct FencedExecutionInfo {
  ExecutionResult result;
  Timing timing_launched, timing_fenced;
};

struct FencedExecution {
  Status status;  // errors found before launch (then there is no fence)
  std::shared_ptr<SyncFence> fence;
  std::shared_ptr<const FencedExecutionInfo> info;
};

class PreparedModel;

// Many executions in quick succession over a fast message queue (NNAPI IBurst): each costs
// HalCosts::burst_call_ns instead of a binder call.
class Burst {
 public:
  explicit Burst(PreparedModel& model) : model_(model) {}
  ExecutionResult execute(const Request& request, const ExecuteOptions& options);

 private:
  PreparedModel& model_;
};

// CPU cost of the HAL's own interfaces (simulated host time).
struct HalCosts {
  uint64_t call_ns = 20'000;          // one binder transaction (prepare, execute, allocate)
  uint64_t burst_call_ns = 3'000;     // one request over a burst's message queue
  uint64_t thread_start_ns = 10'000;  // starting the thread of an asynchronous or fenced execution
};

class PreparedModel {
 public:
  PreparedModel(drv::Os& os, HalCosts costs, Priority priority)
      : os_(os), costs_(costs), priority_(priority) {}
  virtual ~PreparedModel() = default;
  PreparedModel(const PreparedModel&) = delete;
  PreparedModel& operator=(const PreparedModel&) = delete;

  ExecutionResult execute_synchronously(const Request& request, const ExecuteOptions& options);
  // Shorthand: host inputs, host outputs, no deadline.
  ExecutionResult execute_synchronously(const TensorMap& inputs, bool measure_timing);
  // Runs the execution on a simulated thread of its own and calls `done` there when it ended.
  // The returned status reports argument errors found before launch (then `done` is not called).
  Status execute_async(Request request, ExecuteOptions options, std::function<void(ExecutionResult)> done);
  // Waits (on its own thread) for every fence of `wait_for`, then executes; the returned fence is
  // signalled when the execution ended. A failed fence fails the execution (GENERAL_FAILURE).
  FencedExecution execute_fenced(Request request, std::vector<std::shared_ptr<SyncFence>> wait_for,
                                 ExecuteOptions options);
  std::unique_ptr<Burst> configure_execution_burst() { return std::make_unique<Burst>(*this); }

  // Where the model runs: "npu", "npu + cpu (…)" or "cpu" (after a preparation fallback, "cpu (…)").
  virtual std::string placement() const = 0;
  // The MAC-array operations' tilings, in operation order (none on the CPU).
  virtual std::vector<OperationTiling> tilings() const { return {}; }
  // The operand descriptor of graph input or output `operand` (nullptr if it is neither).
  virtual const models::Operand* io_operand(uint32_t operand) const = 0;
  // The compiled program an NPU-prepared model runs (its stages, weights image and arena layout), for
  // tools that hand it to another client of the driver (`npusim program`); nullptr on the CPU.
  virtual const Program* npu_program() const { return nullptr; }
  Priority priority() const { return priority_; }
  drv::Os& os() { return os_; }

 protected:
  // One execution, after the call cost was charged. Implementations fill everything; run_timed()
  // applies NNAPI's rule that timing is reported only when asked for and on success.
  virtual ExecutionResult run(const Request& request, const ExecuteOptions& options) = 0;

 private:
  friend class Burst;
  friend class NpuPreparedModel;  // runs the prepared models of its IF/WHILE subgraphs
  ExecutionResult run_timed(const Request& request, const ExecuteOptions& options);

  drv::Os& os_;
  HalCosts costs_;
  Priority priority_;
  uint64_t next_thread_ = 0;
};

struct PrepareOptions {
  Priority priority = Priority::MEDIUM;
  Deadline deadline;  // absolute simulated ns
  // Compilation cache: with both set, prepare_model first tries the cache files named by the token in
  // `cache_dir` and writes them after compiling.
  std::string cache_dir;
  std::optional<CacheToken> token;
};

struct PrepareResult {
  PrepareResult() = default;
  PrepareResult(Status s, std::unique_ptr<PreparedModel> m) : status(std::move(s)), model(std::move(m)) {}
  Status status;
  std::unique_ptr<PreparedModel> model;
  bool from_cache = false;
  std::string cache_miss;  // why the cache was not used (empty: it was, or none was asked for)
};

// NpuDevice::prepare_program's result (the program's type is complete in prepared_program.h).
struct ProgramPrepareResult {
  Status status;
  std::unique_ptr<PreparedProgram> program;
};

struct AllocateResult {
  Status status;
  std::shared_ptr<DeviceBuffer> buffer;
};

// A driver-managed buffer (NNAPI IBuffer, memory domains): passed between executions without copies.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  // The operand it was allocated for (type, dimensions, quantisation).
  virtual const models::Operand& operand() const = 0;
  virtual Status copy_from(const models::Tensor& value) = 0;
  virtual Status copy_to(models::Tensor* value) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;  // {VENDOR}-{DEVICE_NAME}
  virtual DeviceType type() const = 0;
  // Differs for every driver version (it carries a digest of the driver's sources).
  virtual std::string version_string() const = 0;
  // Measured on the reference workloads at the first call (simulated time), then remembered.
  virtual Capabilities capabilities() = 0;
  // NNAPI getSupportedExtensions: the vendor extensions this device runs, with their operand types.
  virtual std::vector<Extension> supported_extensions() const { return {}; }
  // NNAPI getNumberOfCacheFilesNeeded: {model cache files, data cache files}.
  virtual std::pair<uint32_t, uint32_t> number_of_cache_files_needed() const { return {0, 0}; }
  // One entry per main-graph operation; INVALID_ARGUMENT status for an invalid model.
  virtual Status supported_operations(const models::Model& model, std::vector<bool>* supported) = 0;

  // Validates, then (with a cache token) tries the cache, else compiles. Deadlines (NNAPI semantics):
  // already passed at the call, or passed during validation or compilation (no model is returned) →
  // MISSED_DEADLINE_TRANSIENT; known beforehand to be too short (less than validation takes, or less
  // than this device ever needed for this model) → MISSED_DEADLINE_PERSISTENT without doing the work.
  // Validation errors are INVALID_ARGUMENT with the reason.
  PrepareResult prepare_model(const models::Model& model, const PrepareOptions& options = {});
  // NNAPI prepareModelFromCache: only the cache files named by options.token in options.cache_dir.
  PrepareResult prepare_model_from_cache(const PrepareOptions& options);
  // A buffer for graph input/output `operand` of `model` (which this device prepared).
  AllocateResult allocate(const PreparedModel& model, uint32_t operand);

  drv::Os& os() { return os_; }
  const HalCosts& hal_costs() const { return costs_; }
  // Whether it prepares timing-only models (constants without values): their executions report
  // timing and output shapes but no output values (ExecutionResult::timing_only).
  virtual bool runs_timing_only_models() const { return false; }

 protected:
  Device(drv::Os& os, HalCosts costs) : os_(os), costs_(costs) {}
  // Compiles a validated model; `options` for priority, deadline and (to write) the cache.
  virtual PrepareResult prepare(const models::Model& model, const PrepareOptions& options) = 0;
  // A buffer holding one value of `operand` (a graph input or output of a model it prepared).
  virtual AllocateResult allocate_buffer(const models::Operand& operand) = 0;
  // Loads a prepared model from the cache; `expected` (nullable) must be the model the cache holds.
  virtual PrepareResult prepare_from_cache(const PrepareOptions& options, const models::Model* expected) {
    (void)options;
    (void)expected;
    return {{ErrorStatus::GENERAL_FAILURE, name() + " keeps no compilation cache"}, nullptr};
  }

 private:
  drv::Os& os_;
  HalCosts costs_;
  // Fastest preparation of each model (by model_fingerprint) on this device, from the call to the
  // prepared model: a deadline allowing less is MISSED_DEADLINE_PERSISTENT without trying.
  std::map<uint64_t, uint64_t> fastest_prepare_ns_;
};

// Host CPU cost model, for the CPU device and for the HAL's own work.
struct HostCost {
  double cpu_gmacs = 8.0;     // reference-kernel multiply-accumulates per ns
  double memcpy_gbps = 10.0;  // host copies into and out of device memory
};

class CpuDevice : public Device {
 public:
  CpuDevice(drv::Os& os, HostCost cost, HalCosts costs = {}) : Device(os, costs), cost_(cost) {}
  std::string name() const override { return "npusim-cpu"; }
  DeviceType type() const override { return DeviceType::CPU; }
  std::string version_string() const override;
  Capabilities capabilities() override;
  Status supported_operations(const models::Model& model, std::vector<bool>* supported) override;

 protected:
  PrepareResult prepare(const models::Model& model, const PrepareOptions& options) override;
  AllocateResult allocate_buffer(const models::Operand& operand) override;

 private:
  HostCost cost_;
};

// The compiler's target for the NPU `info` describes (the driver's device-info query, nothing else).
NpuTarget target_for(const drv::DeviceInfo& info);

class NpuDevice : public Device {
 public:
  // FULL lowers every operation the compiler can; MINIMAL only CONV_2D (as AOSP's sample "minimal"
  // driver), so models exercise partitioning with the rest on the CPU.
  enum class Variant { FULL, MINIMAL };
  // Opens a driver context for (uid, pid) on first use; every prepared model of this device lives in it.
  // Compiles for the NPU the driver probed (target_for(driver.device_info())): construct after probe().
  NpuDevice(drv::Driver& driver, HostCost cost, int uid, int pid, Variant variant = Variant::FULL,
            HalCosts costs = {});
  ~NpuDevice() override;
  std::string name() const override;
  DeviceType type() const override { return DeviceType::ACCELERATOR; }
  std::string version_string() const override;
  Capabilities capabilities() override;
  std::pair<uint32_t, uint32_t> number_of_cache_files_needed() const override { return {1, 1}; }
  // com.npusim.llm (the FULL variant; the minimal one runs no extension).
  std::vector<Extension> supported_extensions() const override;
  Status supported_operations(const models::Model& model, std::vector<bool>* supported) override;
  bool runs_timing_only_models() const override { return true; }
  // Why this device does not lower operation `index` (empty: it does).
  std::string unsupported_reason(const models::Model& model, uint32_t index) const;
  const NpuTarget& target() const { return target_; }
  drv::Driver& driver() { return driver_; }
  // The client process went away (or is done): closes its driver context, which cancels its unfinished
  // jobs and frees every buffer in it. Prepared models of this device must not run afterwards; a later
  // preparation opens a new context. Call from a simulated thread.
  Status close();
  // Loads a precompiled model (prepared_program.h): its weights into the weight memory and its arena,
  // the copy of the weights charged. Weights larger than the whole weight memory are
  // RESOURCE_EXHAUSTED_PERSISTENT; a shortage that may pass, RESOURCE_EXHAUSTED_TRANSIENT.
  ProgramPrepareResult prepare_program(const PrecompiledModel& model);
  // Graphs run through the NPU compiler so far (main graphs and IF/WHILE subgraphs; a load from the
  // compilation cache compiles none).
  uint64_t compilations() const { return compilations_; }

 protected:
  PrepareResult prepare(const models::Model& model, const PrepareOptions& options) override;
  AllocateResult allocate_buffer(const models::Operand& operand) override;
  PrepareResult prepare_from_cache(const PrepareOptions& options, const models::Model* expected) override;

 private:
  Result<drv::ContextId> context();
  // Turns a compiled program into a prepared model (buffers, weights upload).
  PrepareResult load(const models::Model& model, Program program, Priority priority);
  // The one way weights reach the NPU: a buffer (in the weight memory when `resident`, else the general
  // pool), the copy of every byte charged (also when the image is not materialised: real weights would
  // be copied), the bytes written.
  Result<drv::BufferObject> upload_weights(drv::ContextId ctx, const WeightsImage& weights, bool resident);
  // Compiles and loads one graph, or the CPU reference when compilation fails (the framework's
  // fallback). `record` (nullable) receives what was compiled, for the compilation cache.
  PrepareResult compile_or_fall_back(const models::Model& model, Priority priority, CompiledGraph* record);
  // Gives an NPU-prepared model its IF/WHILE subgraphs: from `cached` when loading from the cache,
  // else compiled (and appended to `record` when it is not null).
  Status prepare_subgraphs(PrepareResult& prepared, const models::Model& model, Priority priority,
                           std::vector<CompiledGraph>* cached, std::vector<CompiledGraph>* record);
  // What the cache files for `token` are bound to: the installation's key (loaded from
  // default_cache_key_path() on first use, created if absent), this device's name and version string.
  Result<CacheIdentity> cache_identity(const CacheToken& token);

  drv::Driver& driver_;
  NpuTarget target_;
  HostCost cost_;
  int uid_, pid_;
  Variant variant_;
  std::optional<drv::ContextId> ctx_;
  std::optional<Capabilities> capabilities_;
  uint64_t compilations_ = 0;
  std::optional<Result<CacheKey>> cache_key_;  // loaded once: the key, or why there is none
};

// Checks that `inputs` holds exactly the graph inputs with matching type and element count.
Status check_inputs(const models::Model& model, const TensorMap& inputs);
// A 64-bit digest of a model's operands, operations, graph lists and data (equal models, equal digests).
uint64_t model_fingerprint(const models::Model& model);
// validate_model + per-operation validation, as one status.
Status validate_for_prepare(const models::Model& model);
// Why `device` cannot run operation `index` of the main graph for want of a vendor extension (empty: it
// is not an extension operation, or the device supports its extension).
std::string extension_unsupported_reason(const Device& device, const models::Model& model, uint32_t index);
// The HAL's version (NN HAL 1.3 interfaces) and a digest of the driver sources taken at build time.
const char* hal_version();
const char* driver_source_digest();

}  // namespace npu::hal
