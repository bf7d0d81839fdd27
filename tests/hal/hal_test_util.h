// Shared pieces of the HAL runtime tests: one simulated phone per test, small seeded models, and an
// exact/tolerant output comparison under NNAPI's precision rules.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "npu/models/builder.h"
#include "npu/system/system.h"

namespace npu::hal::test {

// Builds the default phone (plus `overrides`) and runs `app` on a host thread until it returns.
void run_on_phone(const std::function<void(system::System&)>& app,
                  const std::vector<std::string>& overrides = {});

struct TestModel {
  models::Model model;
  TensorMap inputs;
};
// CONV_2D 3×3 (quant8, 1×16×16×8 → 1×16×16×20) then FULLY_CONNECTED to 10 units.
TestModel conv_fc_quant8(uint64_t seed = 1);
// One quant8 CONV_2D on 1×16×16×8 → 1×16×16×20.
TestModel conv_quant8(uint64_t seed = 1);
// Three 3×3 convolutions on 1×56×56×32: long enough on the NPU to preempt, queue and miss deadlines.
TestModel big_conv_quant8(uint64_t seed = 1);
// Fresh random inputs for `m` (same seed, same values).
TensorMap random_inputs_for(const models::Model& m, uint64_t seed);

// The CPU reference's outputs for `m` on `inputs` (run in the calling simulated thread).
TensorMap reference_outputs(system::System& s, const models::Model& m, const TensorMap& inputs);
// Quantised outputs must be identical, float ones within the fp32 tolerance.
void expect_outputs_match(const TensorMap& want, const TensorMap& got);

// Sleeps the calling simulated thread until `done()` holds, re-checking every `poll_ns`.
void wait_until(system::System& s, const std::function<bool()>& done, uint64_t poll_ns = 10'000);

}  // namespace npu::hal::test
