// The per-operation contract of the HAL's operation library: one OperationKernel per NNAPI operation
// type, each in its own source file, found by type through find_kernel(). A kernel knows the NNAPI
// signature of its operation (input counts, types per NNAPI version, ranks, parameter ranges), infers
// output shapes, and computes the CPU reference result — the accuracy oracle for the NPU and the
// fallback the framework would use. Kernels hold no state and never crash on bad input: every problem
// is an error value naming the input at fault. They do not allocate operands or walk graphs; the
// reference executor (reference_executor.h) does that.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::hal::ops {

// One operand as an operation sees it.
struct OperandInfo {
  models::OperandType type = models::OperandType::TENSOR_FLOAT32;
  models::Lifetime lifetime = models::Lifetime::TEMPORARY_VARIABLE;
  // Best known shape: 0 = unknown extent; empty = scalar, or a tensor of unknown rank.
  std::vector<uint32_t> dimensions;
  float scale = 0.0f;
  int32_t zero_point = 0;
  const models::PerChannelQuant* per_channel = nullptr;
  // The value's bytes when known: constants during validation, every input during execution.
  const std::vector<uint8_t>* value = nullptr;

  bool has_value() const { return value != nullptr; }
  bool rank_known() const { return !models::is_tensor(type) || !dimensions.empty(); }
  bool omitted() const { return lifetime == models::Lifetime::NO_VALUE; }
};

class OperationKernel {
 public:
  virtual ~OperationKernel() = default;

  virtual models::OperationType type() const = 0;
  // The vendor extension of an extension operation's kernel (empty for NNAPI's own operations); type() is
  // then the operation's code within the extension, not a model's type value (models/extensions.h).
  virtual std::string_view extension() const { return {}; }

  // Checks the operation's signature against NNAPI and returns each output's inferred dimensions
  // (0 where unknown). Parameter values that are not known yet (non-constant inputs) are checked
  // again at execution, when prepare() is called with every value present. Error messages start
  // with the input/output at fault, e.g. "input 1 (filter): expected rank 4, got 3".
  virtual Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> inputs,
                                                             std::span<const OperandInfo> outputs) const = 0;

  // Computes the outputs. Preconditions (the executor guarantees them): prepare() succeeded on the same
  // inputs, every input has a value of exactly its byte size, and each output tensor is allocated with
  // the dimensions prepare() returned and the declared output type and quantisation.
  virtual Result<void> execute(std::span<const OperandInfo> inputs,
                               std::span<models::Tensor* const> outputs) const = 0;
};

// The kernel for an NNAPI operation type, or nullptr when the library has none.
const OperationKernel* find_kernel(models::OperationType type);

// The kernel of vendor extension `extension`'s operation `type` (com.npusim.llm's), nullptr when none.
// Extension kernels validate and infer shapes; the CPU reference computes no extension (execute() refuses
// and is_supported_by_cpu says false), only a device that supports the extension runs them.
const OperationKernel* find_extension_kernel(std::string_view extension, uint16_t type);
// The kernel of operation type `type` in a model with extension table `table` (NNAPI or extension).
const OperationKernel* find_kernel(const std::vector<models::ExtensionNameAndPrefix>& table,
                                   models::OperationType type);

// Every operation type with a kernel, in NNAPI code order.
std::vector<models::OperationType> registered_operations();

}  // namespace npu::hal::ops
