#include "npu/regmap/descriptors.h"

namespace npu::desc {

const char* opcode_name(Opcode op) { return enums::to_string(op, "UNKNOWN"); }

}  // namespace npu::desc
