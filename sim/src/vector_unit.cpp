#include "npu/sim/vector_unit.h"

namespace npu::sim {

// The vector-unit operations are being brought up: until each lands, its opcode is rejected as a bad
// descriptor, exactly as an unknown opcode is.
bool VectorUnit::handles(desc::Opcode op) {
  switch (op) {
    case desc::Opcode::DWCONV_INT8:
    case desc::Opcode::DWCONV_FP32:
    case desc::Opcode::ELTWISE:
    case desc::Opcode::UNARY:
    case desc::Opcode::POOL:
    case desc::Opcode::REDUCE:
    case desc::Opcode::SOFTMAX: return true;
    default: return false;
  }
}

regs::ChannelError VectorUnit::footprint(const desc::Raw&, uint64_t, SramFootprint*) const {
  return regs::ChannelError::BAD_DESCRIPTOR;
}

VectorOpResult VectorUnit::execute(const desc::Raw&, uint8_t*, uint64_t, bool) const {
  return {regs::ChannelError::BAD_DESCRIPTOR, 0, 0, MacKind::NONE, 0};
}

}  // namespace npu::sim
