// The operation x operand-type table: for every NNAPI operation (NN HAL 1.0-1.3) and every main data
// type, whether the CPU reference accepts it and whether the NPU device lowers it (or its reason).
// Each cell is measured, not declared: a one-operation probe model per operation is built in that
// type and given to validation (CPU) and to the NPU compiler's support check. docs/hal.md embeds the
// Markdown form (`npusim ops`) and a test fails when the two differ.
#pragma once

#include <string>
#include <vector>

#include "npu/hal/compiler.h"
#include "npu/models/model.h"

namespace npu::hal {

// The columns: operand types an operation's main data can have. TENSOR_QUANT8_SYMM_PER_CHANNEL stands
// for "TENSOR_QUANT8_ASYMM activations with a per-channel filter" and applies to filtered operations only.
const std::vector<models::OperandType>& op_table_types();

struct OpTypeCell {
  bool cpu = false;        // validation of the probe model succeeded
  bool npu = false;        // the NPU device lowers it (only probed when cpu)
  std::string cpu_error;   // why the CPU refused (the validation message), when it did
  std::string npu_reason;  // why the NPU runs it as a CPU stage, when cpu && !npu
};

struct OpTableRow {
  models::OperationType op = models::OperationType::ADD;
  bool registered = false;        // the CPU reference has a kernel for it
  std::vector<OpTypeCell> cells;  // one per op_table_types()
};

// Every operation code of NN HAL 1.0-1.3 except IF and WHILE (control flow, interpreted by the HAL).
std::vector<OpTableRow> probe_operation_table(const NpuTarget& target = {});

// The table as Markdown (what docs/hal.md embeds between its op-table markers).
std::string operation_table_markdown(const std::vector<OpTableRow>& rows);

// The probe model of `op` in `type`, or an empty model when the operation has no form for that column.
models::Model operation_probe_model(models::OperationType op, models::OperandType type);

}  // namespace npu::hal
