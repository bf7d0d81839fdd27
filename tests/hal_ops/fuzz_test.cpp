// Seeded corruption fuzzing: thousands of random mutations of valid small models (conv/fc, the
// element-wise, shape, activation, normalisation, resize, lookup and recurrent operations) (indices, types,
// lifetimes, dims, data lengths and bytes, parameters, quantisation, graph lists, operations) go through
// validate_model, validate_operations, the support query, the lowering-parameter readers and
// run_reference. Every case must come back as a status (an error message is never empty) without a
// crash; a model that validates must also run. Fixed seeds keep failures reproducible: the failing
// case number is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "model_mutator.h"
#include "npu/hal/ops/conv_2d.h"
#include "npu/hal/ops/fully_connected.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/validate.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

void check_status_has_message(bool ok, const std::string& message, int round) {
  if (!ok) {
    ASSERT_FALSE(message.empty()) << "case " << round;
  }
}

TEST(Fuzz, RandomCorruptionsAlwaysReturnAStatus) {
  const auto start = std::chrono::steady_clock::now();
  const Model bases[] = {small_quant_model(), small_float_model(),     small_mixed_model(),
                         small_shape_model(), small_quant_ops_model(), small_recurrent_model()};
  int validated = 0;
  int ran = 0;
  constexpr int kCases = 60000;
  for (int round = 0; round < kCases; ++round) {
    Mutator mut(static_cast<uint32_t>(round) * 2654435761u + 17u);
    Model m = bases[round % std::size(bases)];
    const uint32_t mutations = 1 + mut.below(3);
    for (uint32_t i = 0; i < mutations; ++i) mut.mutate(m);

    auto v = models::validate_model(m);
    check_status_has_message(v.ok(), v.ok() ? "" : v.error(), round);
    auto ops = validate_operations(m);
    check_status_has_message(ops.ok(), ops.ok() ? "" : ops.error(), round);
    (void)cpu_supported_operations(m);
    for (const auto& op : m.main.operations) {
      if (op.type == OperationType::CONV_2D) (void)conv_2d_params(m.main, op);
      if (op.type == OperationType::FULLY_CONNECTED) (void)fully_connected_params(m.main, op);
    }
    (void)infer_shapes(m.main);

    auto inputs = inputs_for(m, static_cast<uint32_t>(round));
    const bool complete_request = inputs.size() == m.main.input_indexes.size();
    bool corrupted_request = false;
    if (mut.below(8) == 0 && !inputs.empty()) {  // sometimes corrupt the request too
      corrupted_request = true;
      auto& t = inputs.begin()->second;
      if (mut.coin()) {
        t.data.resize(mut.below(static_cast<uint32_t>(t.data.size()) + 4));
      } else {
        t.dimensions.push_back(2);
      }
    }
    auto r = run_reference(m, inputs);
    check_status_has_message(r.ok(), r.ok() ? "" : r.error(), round);
    if (v.ok() && ops.ok() && complete_request && !corrupted_request) {
      EXPECT_TRUE(r.ok()) << "case " << round << " validated but did not run: " << r.error();
    }
    if (v.ok() && ops.ok()) ++validated;
    if (r.ok()) ++ran;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz: %d cases, %d validated, %d ran, %.2f s\n", kCases, validated, ran, seconds);
  // Some mutations are benign (e.g. a weight byte), so a share of cases validates and runs.
  EXPECT_GT(ran, kCases / 50);
  // No wall-time assertion: the machines are shared (a hang is caught by the ctest TIMEOUT).
}

// Mutations that keep the model valid must not change whether it runs: flipping weight bytes only
// changes the numbers.
TEST(Fuzz, WeightByteFlipsStillRun) {
  for (int round = 0; round < 500; ++round) {
    std::mt19937 rng(static_cast<uint32_t>(round));
    const Model bases[] = {small_quant_model(), small_mixed_model(), small_shape_model(),
                           small_quant_ops_model(), small_recurrent_model()};
    Model m = bases[round % std::size(bases)];
    size_t weights = 1;  // the first constant after the graph input
    while (m.main.operands[weights].data.empty()) ++weights;
    auto& filter = m.main.operands[weights].data;
    filter[rng() % filter.size()] = static_cast<uint8_t>(rng());
    auto r = run_reference(m, inputs_for(m, static_cast<uint32_t>(round)));
    ASSERT_TRUE(r.ok()) << "case " << round << ": " << r.error();
  }
}

}  // namespace
}  // namespace npu::hal::ops::test
