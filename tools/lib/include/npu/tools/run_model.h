// One inference of a model on a fresh simulated System, as `npusim run` performs it: prepare on the NPU
// (or CPU) device, execute once with timing, optionally run the CPU reference in the same simulation,
// and add the execution's figures to the stats tree (hal.execution.latency_us, device_us, npu_cycles, jobs,
// stages, command_buffers, channel_parallelism; hal.prepare.time_us). The CLI and the Python module both run
// models through it, so their numbers are the same. It writes no files and prints nothing; a process calls it
// at most once (one SystemC simulation per process).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/device.h"
#include "npu/models/model.h"
#include "npu/system/system.h"

namespace npu::tools {

struct RunModelOptions {
  std::string name;            // how the user named the model: prefixes error messages
  std::string device = "npu";  // "npu" or "cpu" (the CPU reference device)
  // Also execute on the CPU reference device (RunModelOutcome::reference); a relaxed model's reference
  // runs with the relaxation off (float32), as NNAPI's CTS computes its expected results.
  bool check = false;
  // Host memory the run may take (tools/memory_budget.h); unset: memory_budget()'s default.
  std::optional<uint64_t> memory_budget;
  // NNAPI's setLoopTimeout: a WHILE running longer (simulated time) fails the execution with
  // MISSED_DEADLINE_TRANSIENT; above hal::kMaxLoopTimeoutNs the execution is INVALID_ARGUMENT.
  uint64_t loop_timeout_ns = hal::kDefaultLoopTimeoutNs;
  // Called inside the simulation once the model is prepared, before it executes (`npusim program` reads
  // the prepared program there).
  std::function<void(system::System&, const hal::PreparedModel&)> on_prepared;
};

struct RunModelOutcome {
  std::unique_ptr<system::System> system;  // after the run: stats(), tracer(), config()
  hal::ExecutionResult result;             // status ok unless execution_error says why not
  // Non-empty when the execution failed ("<name>: execute: GENERAL_FAILURE: ..."): no outputs, but the
  // stats and trace of the simulation up to the failure are there.
  std::string execution_error;
  hal::ExecutionResult reference;             // with check: the CPU reference's execution (status may fail)
  std::string placement;                      // PreparedModel::placement()
  std::vector<hal::OperationTiling> tilings;  // PreparedModel::tilings(): each MAC-array operation's plan
  uint64_t prepare_ns = 0;                    // simulated time of prepareModel
  // Simulated time of the whole executeSynchronously call as its caller sees it: the HAL call's own cost
  // (HalCosts::call_ns) plus result.timing.time_in_driver_us. What bench and sweep report as latency.
  uint64_t call_ns = 0;
  double simulated_end_s = 0;
  double area_mm2 = 0;  // the design's silicon area (docs/area.md)
};

// Errors: the System cannot be built, prepareModel failed ("<name>: prepareModel: INVALID_ARGUMENT: ..."),
// or the simulation hit its time limit. A failed execution is an outcome (execution_error), not an error.
Result<RunModelOutcome> run_model(const models::Model& model, const hal::TensorMap& inputs,
                                  const system::SystemConfig& config, const RunModelOptions& options);

// For an error that says device memory ran out ("device memory exhausted (N bytes)"): a hint naming a
// device memory size that fits the allocation, " (give the device more memory: --set
// npu.dram.size_mib=M)", M the next power of two at or above N plus the weight memory region and the
// driver's command-buffer space (twice today's size when that already fits). Empty for other errors.
std::string device_memory_hint(const std::string& error, const system::SystemConfig& config);

// Elementwise comparison with the CPU reference (`npusim run --check`): quantised results must be equal,
// float ones within the tolerance of NNAPI's CTS: float32 |e − a| ≤ 1e-5 + 5·2⁻²³·|e|; float16, and float32
// of a relaxed model (`relaxed`: relaxComputationFloat32toFloat16), |e − a| ≤ 5·2⁻¹⁰·(1 + |e|). NaN
// matches only NaN and an infinity only the same infinity (such a mismatch counts as an infinite error).
// An output missing from `got` or of another size counts all its elements as mismatches.
struct OutputComparison {
  double max_abs_error = 0;
  uint64_t mismatches = 0;
  uint64_t elements = 0;
  // The first element out of tolerance (output operands in index order, elements row-major), e.g.
  // "output operand 7 element 12: 131 on the device, 3 by the CPU reference"; empty when none.
  std::string first_mismatch;
};
OutputComparison compare_outputs(const hal::TensorMap& got, const hal::TensorMap& want, bool relaxed = false);

}  // namespace npu::tools
