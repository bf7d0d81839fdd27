// Structural validation of a model: the NNAPI rules that need no operation semantics. Checks every
// index (operation inputs/outputs, graph inputs/outputs, SUBGRAPH references), lifetimes against the
// graph input/output lists, constant data sizes, quantisation parameters, per-channel parameters,
// single writers and topological order of operations, that no graph is empty, and the vendor extensions
// (validate_extensions: the table, and that every extension type resolves to a known one).
// It does not check operation signatures (input counts, types, ranks, parameter values): the HAL's
// operation library does that (npu::hal::ops::validate_operations).
//
// The first violation is reported, naming the subgraph (omitted for the main one), the operand or
// operation index and the rule, e.g.
//   operations[2].inputs[1]: operand 17 out of range (model has 9 operands)
//   referenced[0].operands[4]: TENSOR_QUANT8_ASYMM zeroPoint 300 out of range [0, 255]
#pragma once

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::models {

// The deepest IF/WHILE nesting a model may have: a subgraph referenced from the main graph is level 1,
// one referenced from it level 2, and so on. Every walk over the subgraphs (validation, shape inference,
// both devices' execution, on a SystemC thread's 256 KiB stack) recurses once per level; real models
// nest a few levels. Deeper is an error naming the chain's first subgraph.
inline constexpr uint32_t kMaxControlFlowDepth = 32;

Result<void> validate_model(const Model& model);

// One subgraph; `prefix` is prepended to error paths ("" for the main graph, "referenced[1]." else).
// `num_referenced` bounds SUBGRAPH operand references.
Result<void> validate_subgraph(const Subgraph& sg, size_t num_referenced, const std::string& prefix);

// The per-operand rules alone (type, dims, quantisation, data size against lifetime); `where` names
// the operand in the error ("operands[3]"). Also used by the HAL to check shapes it infers.
Result<void> validate_operand(const Operand& op, size_t num_referenced, const std::string& where);

}  // namespace npu::models
