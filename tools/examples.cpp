#include "examples.h"

#include "npu/models/builder.h"

namespace npu::tools {

const char* example_names() {
  return "fc-quant8, fc-float, conv-quant8, conv-float, net-quant8, block-quant8";
}

Result<Example> make_example(const std::string& name, uint64_t seed) {
  using namespace npu::models;
  using npu::fx::FusedActivation;
  ModelBuilder b(seed);
  const QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, mid_q{0.05f, 100}, out_q{0.1f, 128};
  if (name == "fc-quant8") {
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {4, 256}, in_q);
    b.mark_output(b.fully_connected(x, 100, FusedActivation::RELU, w_q, out_q));
  } else if (name == "fc-float") {
    const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {4, 256});
    b.mark_output(b.fully_connected(x, 100, FusedActivation::NONE));
  } else if (name == "conv-quant8") {
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 32, 32, 16}, in_q);
    b.mark_output(b.conv_2d(x, 40, 3, 3, 1, 2, FusedActivation::RELU6, w_q, out_q));
  } else if (name == "conv-float") {
    const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 31, 31, 8});
    b.mark_output(b.conv_2d(x, 24, 3, 3, 2, 1, FusedActivation::RELU));
  } else if (name == "net-quant8") {
    // A small classifier: three convolutions then a fully-connected head.
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 64, 64, 3}, in_q);
    uint32_t h = b.conv_2d(x, 32, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
    h = b.conv_2d(h, 64, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
    h = b.conv_2d(h, 64, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
    b.mark_output(b.fully_connected(h, 10, FusedActivation::NONE, w_q, out_q));
  } else if (name == "block-quant8") {
    // A ResNet-18 stage-2-sized pair of 3x3 convolutions on 56x56x64: 231 M MACs.
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 56, 56, 64}, in_q);
    const uint32_t h = b.conv_2d(x, 64, 3, 3, 1, 1, FusedActivation::RELU, w_q, mid_q);
    b.mark_output(b.conv_2d(h, 64, 3, 3, 1, 1, FusedActivation::RELU, w_q, out_q));
  } else {
    return make_error("example: unknown name \"" + name + "\" (" + example_names() + ")");
  }
  Example e;
  e.inputs = b.random_inputs();
  e.model = b.take();
  return e;
}

}  // namespace npu::tools
