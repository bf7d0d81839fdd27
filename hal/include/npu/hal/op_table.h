// The operation x operand-type table: for every NNAPI operation (NN HAL 1.0-1.3) and every operation of the
// vendor extension com.npusim.llm, and every main data type, whether the CPU reference accepts it and
// whether the NPU device lowers it (or its reason). An extension operation is never a CPU cell: the CPU
// reference refuses every vendor extension, so its valid forms run on the NPU or not at all.
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
  bool valid = false;     // validation of the probe model succeeded
  bool cpu = false;       // ... and the CPU reference runs it (never for a vendor extension)
  bool npu = false;       // the NPU device lowers it (only probed when cpu)
  std::string cpu_error;  // why the CPU refused (the validation message, or the vendor extension)
  std::string
      npu_reason;  // why the NPU does not lower it (a CPU stage, or for an extension: no device runs it)
};

struct OpTableRow {
  // For an extension row: its type in the probe models, whose extension table gives com.npusim.llm
  // prefix 1 (operation_probe_model takes it back).
  models::OperationType op = models::OperationType::ADD;
  std::string name;               // "ADD", "com.npusim.llm:RMS_NORM"
  bool extension = false;         // a vendor extension operation
  bool registered = false;        // the operation library has a kernel for it (validation at least)
  std::vector<OpTypeCell> cells;  // one per op_table_types()
};

// Every operation code of NN HAL 1.0-1.3 except IF and WHILE (control flow, interpreted by the HAL), then
// com.npusim.llm's operations.
std::vector<OpTableRow> probe_operation_table(const NpuTarget& target = {});

// The table as Markdown (what docs/hal.md embeds between its op-table markers).
std::string operation_table_markdown(const std::vector<OpTableRow>& rows);

// The probe model of `op` (an OpTableRow's) in `type`, or an empty model when the operation has no form for
// that column.
models::Model operation_probe_model(models::OperationType op, models::OperandType type);

}  // namespace npu::hal
