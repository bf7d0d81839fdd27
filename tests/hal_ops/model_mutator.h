// Seeded random corruptions of a model for fuzz tests (operation-level in hal_ops_fuzz_test,
// prepare + execute through the whole HAL in tests/hal): indices, type and lifetime codes, dimensions,
// data lengths and bytes, parameters, quantisation, per-channel parameters, operation types and input
// counts, graph input/output lists, operation order, SUBGRAPH operands. Each mutation is one small
// change; the same seed gives the same mutations.
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>

#include "test_models.h"

namespace npu::hal::ops::test {

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

}  // namespace npu::hal::ops::test
