#include "npu/regmap/descriptors.h"

namespace npu::desc {

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::NOP:
      return "NOP";
    case Opcode::DMA_IN:
      return "DMA_IN";
    case Opcode::DMA_OUT:
      return "DMA_OUT";
    case Opcode::CONV_INT8:
      return "CONV_INT8";
    case Opcode::CONV_FP32:
      return "CONV_FP32";
    case Opcode::FENCE:
      return "FENCE";
    case Opcode::DWCONV_INT8:
      return "DWCONV_INT8";
    case Opcode::DWCONV_FP32:
      return "DWCONV_FP32";
    case Opcode::ELTWISE:
      return "ELTWISE";
    case Opcode::UNARY:
      return "UNARY";
    case Opcode::POOL:
      return "POOL";
    case Opcode::REDUCE:
      return "REDUCE";
    case Opcode::SOFTMAX:
      return "SOFTMAX";
    case Opcode::FILL:
      return "FILL";
    case Opcode::BARRIER:
      return "BARRIER";
    case Opcode::PREEMPT_POINT:
      return "PREEMPT_POINT";
    case Opcode::RMS_NORM:
      return "RMS_NORM";
    case Opcode::ROPE:
      return "ROPE";
    case Opcode::DMA_GATHER:
      return "DMA_GATHER";
    case Opcode::SELECT:
      return "SELECT";
    case Opcode::RESIZE_BILINEAR:
      return "RESIZE_BILINEAR";
  }
  return "UNKNOWN";
}

}  // namespace npu::desc
