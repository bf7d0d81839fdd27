#include "stress_models.h"

#include <random>

#include "npu/models/builder.h"
#include "npu/tools/run_model.h"

namespace npu::mlts::stress {
namespace {

using fx::FusedActivation;
using models::OperandType;
using models::QuantParams;

const QuantParams kInQ{0.02f, 128}, kWeightQ{0.01f, 120}, kMidQ{0.05f, 100}, kOutQ{0.1f, 128};

}  // namespace

models::Model small_model(uint64_t seed) {
  models::ModelBuilder b(seed);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, kInQ);
  uint32_t h = b.conv_2d(x, 16, 3, 3, 1, 1, FusedActivation::RELU, kWeightQ, kMidQ);
  h = b.conv_2d(h, 16, 3, 3, 1, 2, FusedActivation::RELU, kWeightQ, kMidQ);
  b.mark_output(b.fully_connected(h, 10, FusedActivation::NONE, kWeightQ, kOutQ));
  return b.take();
}

models::Model random_chain_model(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  models::ModelBuilder b(seed);
  const uint32_t side = 4 + pick(13), depth = 1u << (1 + pick(4));
  uint32_t h = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, side, side, depth}, kInQ);
  const uint32_t ops = 1 + pick(4);
  for (uint32_t i = 0; i < ops; ++i) {
    const auto& d = b.operand(h).dimensions;
    const bool room = d[1] >= 4 && d[2] >= 4;  // a stride-2 or VALID window still leaves a tensor
    const auto act = static_cast<FusedActivation>(pick(3));  // NONE, RELU, RELU1
    switch (pick(5)) {
      case 0:
        h = b.conv_2d(h, 4u << pick(3), pick(2) ? 3 : 1, pick(2) ? 3 : 1, 1, room ? 1 + pick(2) : 1, act,
                      kWeightQ, kMidQ);
        break;
      case 1:
        h = b.depthwise_conv_2d(h, 3, 3, 1, 1, act, kWeightQ, kMidQ);
        break;
      case 2:
        if (room) {
          h = b.pool_2d(pick(2) ? models::OperationType::MAX_POOL_2D : models::OperationType::AVERAGE_POOL_2D,
                        h, 2, 2, 2, 2);
          break;
        }
        [[fallthrough]];
      case 3:
        h = b.elementwise(models::OperationType::ADD, h, h, act, kMidQ);
        break;
      default:
        h = b.conv_2d(h, 8, 1, 1, 1, 1, act, kWeightQ, kMidQ);
        break;
    }
  }
  if (pick(2)) h = b.fully_connected(h, 1 + pick(16), FusedActivation::NONE, kWeightQ, kOutQ);
  b.mark_output(h);
  return b.take();
}

Answers reference_answers(system::System& s, const models::Model& model, uint64_t seed, uint32_t count) {
  Answers a;
  auto cpu = s.cpu_device().prepare_model(model);
  for (uint32_t i = 0; i < count; ++i) {
    a.inputs.push_back(models::random_inputs(model, seed + i));
    if (!cpu.status.ok()) continue;
    auto r = cpu.model->execute_synchronously(a.inputs.back(), false);
    if (r.status.ok()) a.outputs.push_back(std::move(r.outputs));
  }
  if (a.outputs.size() != a.inputs.size()) a.outputs.clear();
  return a;
}

std::string output_difference(const hal::TensorMap& got, const hal::TensorMap& want) {
  const tools::OutputComparison c = tools::compare_outputs(got, want);
  if (c.mismatches == 0) return {};
  return std::to_string(c.mismatches) + " of " + std::to_string(c.elements) + " elements differ, first " +
         c.first_mismatch;
}

}  // namespace npu::mlts::stress
