// IF and WHILE (NN HAL 1.3): the operations whose arguments are other subgraphs of the model. They have
// no OperationKernel (a kernel sees operands, not subgraphs); the reference executor runs them by
// running the referenced subgraphs, and the NPU's HAL runtime interprets them on the host. This file
// holds what both share: the NNAPI signature rules and the operand positions.
//
// IF:    inputs  0 condition (TENSOR_BOOL8 [1]), 1 then-subgraph, 2 else-subgraph, 3.. the branch inputs;
//        outputs the branch outputs. Each branch has exactly those inputs and outputs (compatible types,
//        quantisation and shapes).
// WHILE: inputs  0 condition subgraph, 1 body subgraph, 2.. the loop inputs: m input-output operands
//        (m = number of outputs), then k state-only and n input-only operands. The condition takes all
//        m + k + n loop inputs and gives one TENSOR_BOOL8 [1]; the body takes them too and gives m + k
//        outputs, each compatible with the loop input it replaces (and the first m with the outputs).
// A subgraph referencing itself, directly or not, is rejected by models::validate_model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::hal::ops {

constexpr uint32_t kIfCondition = 0, kIfThen = 1, kIfElse = 2, kIfFirstInput = 3;
constexpr uint32_t kWhileCondition = 0, kWhileBody = 1, kWhileFirstInput = 2;

inline bool is_control_flow(models::OperationType t) {
  return t == models::OperationType::IF || t == models::OperationType::WHILE;
}

// Checks an IF or WHILE operation of `sg` (a subgraph of `model`) against the NNAPI rules above, with
// `shapes` the best known dimensions of sg's operands, and returns each output's dimensions (declared,
// refined from the subgraphs where they agree; 0 = unknown). Errors name the input or subgraph at
// fault, e.g. "input 0 (condition): expected TENSOR_BOOL8 [1], got TENSOR_INT32 [1]".
Result<std::vector<std::vector<uint32_t>>> control_flow_shapes(
    const models::Model& model, const models::Subgraph& sg, const models::Operation& op,
    const std::vector<std::vector<uint32_t>>& shapes);

// The referenced subgraph an operand of type SUBGRAPH names (the caller validated it).
inline const models::Subgraph& referenced_subgraph(const models::Model& model, const models::Operand& o) {
  return model.referenced[o.subgraph];
}

}  // namespace npu::hal::ops
