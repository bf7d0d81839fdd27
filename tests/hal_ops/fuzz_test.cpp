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

#include "npu/hal/ops/conv_2d.h"
#include "npu/hal/ops/fully_connected.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/validate.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

class Mutator {
 public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}

  uint32_t below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(rng_() % n); }
  bool coin() { return (rng_() & 1u) != 0; }

  uint32_t interesting_u32() {
    static constexpr uint32_t kValues[] = {0,  1,   2,   3,     4,           7,           8,
                                           16, 255, 256, 65535, 0x7fffffffu, 0x80000000u, 0xffffffffu};
    return coin() ? kValues[below(std::size(kValues))] : below(24);
  }

  void mutate(Model& m) {
    auto& g = m.main;
    const uint32_t n = static_cast<uint32_t>(g.operands.size());
    switch (below(17)) {
      case 0: {  // an operation input or output index
        if (g.operations.empty()) return;
        auto& op = g.operations[below(static_cast<uint32_t>(g.operations.size()))];
        auto& list = coin() || op.outputs.empty() ? op.inputs : op.outputs;
        if (!list.empty())
          list[below(static_cast<uint32_t>(list.size()))] = coin() ? below(n + 3) : interesting_u32();
        return;
      }
      case 1:  // an operand type code (valid or not)
        g.operands[below(n)].type = static_cast<OperandType>(static_cast<int32_t>(below(20)) - 2);
        return;
      case 2:  // a lifetime code
        g.operands[below(n)].lifetime = static_cast<Lifetime>(below(8));
        return;
      case 3: {  // a dimension
        auto& d = g.operands[below(n)].dimensions;
        if (d.empty() || coin()) {
          d.push_back(interesting_u32());
        } else {
          d[below(static_cast<uint32_t>(d.size()))] = interesting_u32();
        }
        return;
      }
      case 4: {  // drop a dimension
        auto& d = g.operands[below(n)].dimensions;
        if (!d.empty()) d.erase(d.begin() + below(static_cast<uint32_t>(d.size())));
        return;
      }
      case 5: {  // data length
        auto& data = g.operands[below(n)].data;
        if (coin() && !data.empty()) {
          data.resize(below(static_cast<uint32_t>(data.size())));
        } else {
          data.resize(data.size() + 1 + below(8), static_cast<uint8_t>(rng_()));
        }
        return;
      }
      case 6:
      case 7: {  // data bytes: parameter values (strides, pads, activation, layout) and weights
        auto& o = g.operands[below(n)];
        if (o.data.empty()) return;
        if (o.data.size() == 4 && coin()) {
          const int32_t values[] = {-1, 0, 1, 2, 3, 4, 100, 0x7fffffff, static_cast<int32_t>(0x80000000u)};
          const int32_t v = values[below(std::size(values))];
          std::memcpy(o.data.data(), &v, 4);
        } else {
          o.data[below(static_cast<uint32_t>(o.data.size()))] = static_cast<uint8_t>(rng_());
        }
        return;
      }
      case 8: {  // scale
        const float values[] = {0.0f,
                                -1.0f,
                                1e-30f,
                                1e30f,
                                std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN(),
                                0.5f,
                                0.3f};
        g.operands[below(n)].scale = values[below(std::size(values))];
        return;
      }
      case 9:  // zero point
        g.operands[below(n)].zero_point =
            static_cast<int32_t>(static_cast<int64_t>(interesting_u32()) - (coin() ? 128 : 0));
        return;
      case 10: {  // per-channel parameters
        auto& o = g.operands[below(n)];
        if (coin()) {
          o.per_channel.reset();
        } else {
          models::PerChannelQuant pc;
          pc.channel_dim = below(5);
          for (uint32_t i = below(5); i > 0; --i) pc.scales.push_back(coin() ? 0.5f : -0.25f);
          o.per_channel = pc;
        }
        return;
      }
      case 11: {  // operation type
        if (g.operations.empty()) return;
        g.operations[below(static_cast<uint32_t>(g.operations.size()))].type =
            static_cast<OperationType>(static_cast<int32_t>(below(106)) - 2);
        return;
      }
      case 12: {  // operation input count
        if (g.operations.empty()) return;
        auto& ins = g.operations[below(static_cast<uint32_t>(g.operations.size()))].inputs;
        if (coin() && !ins.empty()) {
          ins.pop_back();
        } else {
          ins.push_back(below(n));
        }
        return;
      }
      case 13: {  // graph input/output lists
        auto& list = coin() ? g.input_indexes : g.output_indexes;
        if (coin() && !list.empty()) {
          list.erase(list.begin() + below(static_cast<uint32_t>(list.size())));
        } else {
          list.push_back(coin() ? below(n + 2) : interesting_u32());
        }
        return;
      }
      case 14:  // reorder or drop operations
        if (g.operations.size() >= 2 && coin()) {
          std::swap(g.operations[0], g.operations[1]);
        } else if (!g.operations.empty()) {
          g.operations.erase(g.operations.begin() + below(static_cast<uint32_t>(g.operations.size())));
        }
        return;
      case 15: {  // referenced subgraphs and SUBGRAPH operands
        if (coin()) m.referenced.push_back(small_float_model().main);
        auto& o = g.operands[below(n)];
        o.type = OperandType::SUBGRAPH;
        o.lifetime = Lifetime::SUBGRAPH;
        o.subgraph = coin() ? 0 : interesting_u32();
        o.data.clear();
        o.dimensions.clear();
        return;
      }
      case 16:  // the relaxed flag (harmless) plus a second structural change
        m.relax_computation_float32_to_float16 = !m.relax_computation_float32_to_float16;
        mutate(m);
        return;
    }
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

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
  EXPECT_LT(seconds, 20.0);
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
