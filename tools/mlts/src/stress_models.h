// Models and CPU-reference answers the stress cases and the fault soak share: small quantised networks
// (exact on the NPU, so every output can be compared byte for byte with the CPU reference) and a seeded
// random chain generator for the random-models case.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/hal/device.h"
#include "npu/models/model.h"
#include "npu/system/system.h"

namespace npu::mlts::stress {

// A conv → conv → fully-connected classifier on 1×16×16×8 int8: a few hundred µs on the NPU, several
// command buffers per stage, so faults and preemption land inside it.
models::Model small_model(uint64_t seed);

// A chain of 1-4 operations (CONV_2D, DEPTHWISE_CONV_2D, pooling, ADD, FULLY_CONNECTED) of shapes drawn
// from `seed`, every tensor TENSOR_QUANT8_ASYMM.
models::Model random_chain_model(uint64_t seed);

// Input sets with the CPU reference's outputs for them: what a correct execution must return.
struct Answers {
  std::vector<hal::TensorMap> inputs;
  std::vector<hal::TensorMap> outputs;
};

// `count` seeded input sets run on the CPU reference device (call on a simulated thread of `s`).
// Empty outputs when the reference refused the model.
Answers reference_answers(system::System& s, const models::Model& model, uint64_t seed, uint32_t count);

// Empty when `got` equals `want` (quantised: exactly); else where they first differ.
std::string output_difference(const hal::TensorMap& got, const hal::TensorMap& want);

}  // namespace npu::mlts::stress
