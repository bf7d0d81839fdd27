// The CPU reference graph executor and the whole-model checks built on the operation kernels.
// run_reference() is the accuracy oracle the NPU's results are compared with (and what a CPU
// fallback computes); validate_operations() is the operation-level half of NNAPI model validation,
// for the HAL's getSupportedOperations/prepareModel. Everything here is single-threaded, allocates
// every operand in host memory, and returns errors as values on any input (corrupted models
// included); it models no device, timing or memory limits beyond a sanity cap per operand.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::hal::ops {

// Largest operand the reference executor allocates (bytes).
constexpr uint64_t kMaxReferenceOperandBytes = uint64_t{1} << 30;

// Operation-level validation of every subgraph: each operation has a kernel and its inputs/outputs
// satisfy the NNAPI signature; inferred output shapes must agree with the declared ones. Assumes
// validate_model() passed (it re-checks indices itself, so it never crashes if not). Errors read
//   operations[2] (CONV_2D): input 1 (filter): expected rank 4, got 3
// (prefixed "referenced[i]." for referenced subgraphs).
Result<void> validate_operations(const models::Model& model);

// Best known dimensions of every operand of `sg` after propagating shapes through the operations in
// order (declared extents refined by inferred ones; 0 = still unknown). Errors as validate_operations.
// Without the model, an IF or WHILE is an error (its subgraphs are unknown); pass the model for those.
Result<std::vector<std::vector<uint32_t>>> infer_shapes(const models::Subgraph& sg,
                                                        const std::string& prefix = "");
Result<std::vector<std::vector<uint32_t>>> infer_shapes(const models::Model& model,
                                                        const models::Subgraph& sg,
                                                        const std::string& prefix = "");

// The operation-level check of a request that gives main-graph inputs `no_value` no value (NNAPI
// hasNoValue): each must be a graph input and not an output, and every operation reading one must accept
// it as NO_VALUE (an optional input), with shapes inferred again from there. Errors read
//   operations[0] (LSTM): input 2 (input-to-forget weights): is required but has no value (NO_VALUE)
//   [no value in the request: operand 2]
// (one line). OK for an empty set.
Result<void> validate_no_value_inputs(const models::Model& model, const std::set<uint32_t>& no_value);

// True when the CPU reference can run this operation of `sg` as declared (never a vendor extension
// operation): a kernel exists and accepts
// the operation's signature. Out-of-range operand indices give false.
bool is_supported_by_cpu(const models::Subgraph& sg, const models::Operation& op);

// One flag per operation of the main graph (is_supported_by_cpu for each).
std::vector<bool> cpu_supported_operations(const models::Model& model);

// Validates the model (validate_model + validate_operations), checks `inputs` against the graph
// inputs (every input present, no others, types equal, shapes compatible and fully specified, byte
// sizes exact; an input may be given with no value, Tensor::has_no_value, checked with
// validate_no_value_inputs), runs every operation in order and returns the graph outputs keyed by operand
// index (with their computed dimensions). Errors name the operation index and type. IF and WHILE run their
// referenced subgraphs (ReferenceOptions below).
Result<std::map<uint32_t, models::Tensor>> run_reference(const models::Model& model,
                                                         const std::map<uint32_t, models::Tensor>& inputs);

// Control flow needs a notion of time for WHILE's loop timeout: every operation run inside an IF/WHILE
// subgraph charges `operation_ns` (kernel dispatch) plus its multiply-accumulates at `macs_per_ns` of
// modelled host time; a WHILE whose loop has run longer than `loop_timeout_ns` fails (NNAPI
// MISSED_DEADLINE_TRANSIENT; ReferenceStats::loop_timed_out says so). Main-graph operations charge
// nothing here: the caller models their cost (CpuPreparedModel: estimated_macs at its CPU rate).
struct ReferenceOptions {
  uint64_t loop_timeout_ns = 2'000'000'000;
  double macs_per_ns = 8.0;
  uint64_t operation_ns = 1'000;
};
struct ReferenceStats {
  uint64_t control_flow_ns = 0;  // modelled host time of the operations run inside IF/WHILE subgraphs
  uint64_t loop_iterations = 0;  // WHILE body runs, all loops together
  bool loop_timed_out = false;
};
Result<std::map<uint32_t, models::Tensor>> run_reference_with_stats(
    const models::Model& model, const std::map<uint32_t, models::Tensor>& inputs,
    const ReferenceOptions& options, ReferenceStats* stats);

// Multiply-accumulates of an operation as the CPU cost model counts them: output elements times the
// filter's taps for CONV_2D / FULLY_CONNECTED, one per output element otherwise (declared shapes).
uint64_t operation_macs(const models::Subgraph& sg, const models::Operation& op);
uint64_t estimated_macs(const models::Subgraph& sg);

}  // namespace npu::hal::ops
