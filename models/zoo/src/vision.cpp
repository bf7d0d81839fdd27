// MobileNet v1, MobileNet v2 and ResNet-18 at a chosen resolution, float or quant8, batch-norm folded
// into each convolution's bias (as deployed models are). Architectures from the papers:
//   MobileNet v1 (Howard et al. 2017, table 1): 3×3/2 conv 32, 13 depthwise-separable blocks, average
//     pool, 1000-way classifier; 569 M mult-adds and 4.2 M parameters at 224.
//   MobileNet v2 (Sandler et al. 2018, table 2): 3×3/2 conv 32, 17 inverted-residual bottlenecks
//     (expansion t, channels c, repeats n, first stride s), 1×1 conv 1280, pool, classifier; 300 M
//     multiply-adds and 3.4 M parameters at 224.
//   ResNet-18 (He et al. 2016, table 1): 7×7/2 conv 64, 3×3/2 max pool, four stages of two basic blocks
//     (64, 128, 256, 512 channels; 1×1/2 projection shortcuts), pool, classifier; 1.8 G FLOPs
//     (multiply-adds) and 11.7 M parameters.
#include <cmath>
#include <stdexcept>

#include "npu/models/builder.h"
#include "npu/models/zoo.h"

namespace npu::models {
namespace {

using fx::FusedActivation;
constexpr int32_t kSame = 1;
constexpr int32_t kValid = 2;

// Per-tensor quantisation of activations, chosen for He-initialised layers (activations of order 1):
// the input image in [-1, 1), ReLU6 outputs over [0, 6] (as quantised MobileNets ship), ReLU outputs
// over [0, 8), linear outputs (bottleneck projections, residual sums, logits) over [-8, 8).
constexpr QuantParams kImage{1.0f / 128, 128};
constexpr QuantParams kRelu6{6.0f / 255, 0};
constexpr QuantParams kRelu{8.0f / 256, 0};
constexpr QuantParams kLinear{16.0f / 256, 128};

// The layer helpers below pick weight and output quantisation for the quant8 variant and nothing for
// float (the builder ignores QuantParams on float tensors).
class VisionBuilder {
 public:
  VisionBuilder(bool quant8, uint64_t seed, bool values)
      : quant8_(quant8), b_(seed, {WeightInit::HeUniform, !values}) {}

  uint32_t image(uint32_t resolution) {
    if (!quant8_) return b_.input(OperandType::TENSOR_FLOAT32, {1, resolution, resolution, 3});
    return b_.input(OperandType::TENSOR_QUANT8_ASYMM, {1, resolution, resolution, 3}, kImage);
  }
  uint32_t conv(uint32_t x, uint32_t out, uint32_t k, uint32_t stride, FusedActivation act,
                QuantParams out_q) {
    const uint32_t fan_in = k * k * b_.operand(x).dimensions[3];
    return b_.conv_2d(x, out, k, k, kSame, stride, act, weight_q(fan_in), out_q);
  }
  uint32_t depthwise(uint32_t x, uint32_t stride, FusedActivation act, QuantParams out_q) {
    return b_.depthwise_conv_2d(x, 3, 3, kSame, stride, act, weight_q(9), out_q);
  }
  uint32_t add(uint32_t a, uint32_t c, FusedActivation act, QuantParams out_q) {
    return b_.elementwise(OperationType::ADD, a, c, act, out_q);
  }
  // Global average pool, 1000-way fully-connected classifier, softmax: the graph's one output.
  void classifier(uint32_t x) {
    const auto& d = b_.operand(x).dimensions;
    const uint32_t pooled = b_.pool_2d(OperationType::AVERAGE_POOL_2D, x, d[1], d[2], kValid, 1);
    const uint32_t channels = b_.operand(pooled).dimensions[3];
    const uint32_t flat = b_.reshape(pooled, {1, channels});
    const uint32_t logits =
        b_.fully_connected(flat, 1000, FusedActivation::NONE, weight_q(channels), kLinear);
    b_.mark_output(b_.softmax(logits, 1.0f));
  }
  ModelBuilder& builder() { return b_; }

 private:
  // He-uniform weights ±sqrt(6 / fan_in) as uint8 around zero point 128 over the full range.
  QuantParams weight_q(uint32_t fan_in) const {
    return {static_cast<float>(std::sqrt(6.0 / fan_in) / 127.0), 128};
  }
  bool quant8_;
  ModelBuilder b_;
};

void mobilenet_v1(VisionBuilder& v, uint32_t x) {
  x = v.conv(x, 32, 3, 2, FusedActivation::RELU6, kRelu6);
  // (pointwise output channels, depthwise stride) of the 13 separable blocks.
  constexpr uint32_t kBlocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},  {512, 2}, {512, 1},
                                       {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  for (const auto& [channels, stride] : kBlocks) {
    x = v.depthwise(x, stride, FusedActivation::RELU6, kRelu6);
    x = v.conv(x, channels, 1, 1, FusedActivation::RELU6, kRelu6);
  }
  v.classifier(x);
}

void mobilenet_v2(VisionBuilder& v, uint32_t x, ModelBuilder& b) {
  x = v.conv(x, 32, 3, 2, FusedActivation::RELU6, kRelu6);
  struct Stage {
    uint32_t t, c, n, s;
  };
  constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const Stage& st : kStages) {
    for (uint32_t i = 0; i < st.n; ++i) {
      const uint32_t stride = i == 0 ? st.s : 1;
      const uint32_t in_channels = b.operand(x).dimensions[3];
      uint32_t h = x;
      if (st.t != 1) h = v.conv(h, in_channels * st.t, 1, 1, FusedActivation::RELU6, kRelu6);
      h = v.depthwise(h, stride, FusedActivation::RELU6, kRelu6);
      h = v.conv(h, st.c, 1, 1, FusedActivation::NONE, kLinear);  // linear bottleneck
      x = stride == 1 && in_channels == st.c ? v.add(x, h, FusedActivation::NONE, kLinear) : h;
    }
  }
  x = v.conv(x, 1280, 1, 1, FusedActivation::RELU6, kRelu6);
  v.classifier(x);
}

void resnet18(VisionBuilder& v, uint32_t x, ModelBuilder& b) {
  x = v.conv(x, 64, 7, 2, FusedActivation::RELU, kRelu);
  x = b.pool_2d(OperationType::MAX_POOL_2D, x, 3, 3, kSame, 2);
  for (uint32_t stage = 0; stage < 4; ++stage) {
    const uint32_t channels = 64u << stage;
    for (uint32_t block = 0; block < 2; ++block) {
      const uint32_t stride = stage > 0 && block == 0 ? 2 : 1;
      uint32_t h = v.conv(x, channels, 3, stride, FusedActivation::RELU, kRelu);
      h = v.conv(h, channels, 3, 1, FusedActivation::NONE, kLinear);
      const bool project = b.operand(x).dimensions[3] != channels || stride != 1;
      const uint32_t shortcut = project ? v.conv(x, channels, 1, stride, FusedActivation::NONE, kLinear) : x;
      x = v.add(h, shortcut, FusedActivation::RELU, kRelu);
    }
  }
  v.classifier(x);
}

}  // namespace

Model build_vision(VisionNet net, bool quant8, uint32_t resolution, uint64_t seed, bool values) {
  if (resolution < 32 || resolution % 32 != 0)
    throw std::invalid_argument("vision models need a resolution that is a positive multiple of 32");
  VisionBuilder v(quant8, seed, values);
  const uint32_t x = v.image(resolution);
  switch (net) {
    case VisionNet::MobileNetV1:
      mobilenet_v1(v, x);
      break;
    case VisionNet::MobileNetV2:
      mobilenet_v2(v, x, v.builder());
      break;
    case VisionNet::ResNet18:
      resnet18(v, x, v.builder());
      break;
  }
  return v.builder().take();
}

}  // namespace npu::models
