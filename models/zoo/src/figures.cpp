#include "npu/models/figures.h"

#include "npu/models/extensions.h"

namespace npu::models {
namespace {

uint64_t elements(const Subgraph& g, uint32_t operand) { return g.operands[operand].element_count(); }

// MACs of one operation: output elements × the reduction length of each output element.
uint64_t operation_macs(const Model& m, const Subgraph& g, const Operation& op) {
  if (is_extension_type(op.type)) {  // com.npusim.llm:MATMUL: output elements × K (a's last extent)
    const auto r = resolve_extension_operation(m.extension_name_to_prefix, op.type);
    const bool matmul = r.operation && r.extension->name == kLlmExtension &&
                        r.operation->type == static_cast<uint16_t>(LlmOperation::MATMUL);
    return matmul ? elements(g, op.outputs[0]) * g.operands[op.inputs[0]].dimensions.back() : 0;
  }
  switch (op.type) {
    case OperationType::CONV_2D: {
      const auto& filter = g.operands[op.inputs[1]].dimensions;  // [out, kh, kw, in]
      return elements(g, op.outputs[0]) * filter[1] * filter[2] * filter[3];
    }
    case OperationType::DEPTHWISE_CONV_2D: {
      const auto& filter = g.operands[op.inputs[1]].dimensions;  // [1, kh, kw, channels]
      return elements(g, op.outputs[0]) * filter[1] * filter[2];
    }
    case OperationType::FULLY_CONNECTED: {
      const auto& weights = g.operands[op.inputs[1]].dimensions;  // [units, input_size]
      return elements(g, op.outputs[0]) * weights[1];
    }
    case OperationType::LSTM: {
      // Input and recurrent weights of the four gates (input 1-8, three with CIFG) plus the projection.
      uint64_t macs = 0;
      const uint64_t batch = g.operands[op.inputs[0]].dimensions[0];
      for (uint32_t i = 1; i <= 8; ++i) {
        const Operand& w = g.operands[op.inputs[i]];
        if (w.lifetime != Lifetime::NO_VALUE) macs += batch * w.element_count();
      }
      const Operand& proj = g.operands[op.inputs[16]];
      if (proj.lifetime != Lifetime::NO_VALUE) macs += batch * proj.element_count();
      return macs;
    }
    default:
      return 0;
  }
}

}  // namespace

ModelFigures model_figures(const Model& model) {
  ModelFigures f;
  const Subgraph& g = model.main;
  for (const Operand& op : g.operands) {
    if (!op.is_constant() || !is_tensor(op.type)) continue;
    // Shape, begin/end and similar index tensors are TENSOR_INT32 with scale 0; quantised biases
    // carry a scale.
    if (op.type == OperandType::TENSOR_INT32 && op.scale == 0.0f) continue;
    f.parameters += op.element_count();
    f.parameter_bytes += op.byte_size();
  }
  for (const Operation& op : g.operations) f.macs += operation_macs(model, g, op);
  f.operations = static_cast<uint32_t>(g.operations.size());
  return f;
}

}  // namespace npu::models
