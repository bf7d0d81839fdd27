// Prepare + execute fuzzing through the whole HAL: seeded random corruptions of valid small models
// (tests/hal_ops/model_mutator.h) go through getSupportedOperations, prepareModel on the NPU, the
// minimal NPU and the CPU device, and, when preparation succeeds, an execution on the simulated NPU
// with inputs derived from the (corrupted) model, sometimes with a corrupted request too. Every case
// must end in a status with a message, never a crash; System::run's simulated-time limit turns a
// hang into a failure. The failing case number is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "model_mutator.h"
#include "npu/system/system.h"
#include "test_models.h"

namespace npu::hal::test {
namespace {

using ops::test::Mutator;

void expect_message(const Status& s, int round, const char* where) {
  if (!s.ok()) {
    EXPECT_FALSE(s.message.empty()) << "case " << round << " " << where;
  }
}

TEST(HalFuzz, CorruptedModelsAndRequestsAlwaysGetAStatus) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  const models::Model bases[] = {ops::test::small_quant_model(), ops::test::small_float_model(),
                                 ops::test::small_mixed_model(), ops::test::small_shape_model(),
                                 ops::test::small_quant_ops_model()};
  constexpr int kCases = 3000;
  int prepared = 0, executed = 0, failed_execution = 0;
  const auto start = std::chrono::steady_clock::now();
  auto end = (*sys)->run(
      [&](system::System& s) {
        Device* devices[] = {&s.npu_device(), &s.npu_device(10000, 1000, NpuDevice::Variant::MINIMAL),
                             &s.cpu_device()};
        for (int round = 0; round < kCases; ++round) {
          Mutator mut(static_cast<uint32_t>(round) * 2246822519u + 3u);
          models::Model m = bases[round % std::size(bases)];
          for (uint32_t i = 1 + mut.below(3); i > 0; --i) mut.mutate(m);
          Device& dev = *devices[round % 3];
          std::vector<bool> supported;
          const Status support = dev.supported_operations(m, &supported);
          expect_message(support, round, "supported_operations");
          if (support.ok()) {
            EXPECT_EQ(supported.size(), m.main.operations.size()) << "case " << round;
          }
          PrepareOptions options;
          options.priority = static_cast<Priority>(mut.below(3));
          auto p = dev.prepare_model(m, options);
          expect_message(p.status, round, "prepare_model");
          EXPECT_EQ(p.status.ok(), p.model != nullptr) << "case " << round;
          if (!p.model) continue;
          ++prepared;
          Request req;
          req.inputs = ops::test::inputs_for(m, static_cast<uint32_t>(round));
          if (mut.below(6) == 0 && !req.inputs.empty()) {
            auto& t = req.inputs.begin()->second;
            switch (mut.below(4)) {
              case 0:
                t.data.resize(mut.below(static_cast<uint32_t>(t.data.size()) + 4));
                break;
              case 1:
                t.dimensions.push_back(2);
                break;
              case 2:
                t.type = static_cast<models::OperandType>(mut.below(16));
                break;
              default:
                req.output_capacity[mut.interesting_u32()] = mut.below(64);
                break;
            }
          }
          if (mut.below(8) == 0 && !m.main.output_indexes.empty())
            req.output_capacity[m.main.output_indexes[0]] = mut.below(16);
          ExecuteOptions eo;
          eo.measure_timing = mut.coin();
          auto r = p.model->execute_synchronously(req, eo);
          expect_message(r.status, round, "execute");
          if (!r.status.ok()) {
            ++failed_execution;
            EXPECT_EQ(r.timing.time_in_driver_us, kNoTiming) << "case " << round;
          } else {
            ++executed;
            EXPECT_EQ(r.output_shapes.size(), m.main.output_indexes.size()) << "case " << round;
          }
        }
      },
      600.0);
  ASSERT_TRUE(end.ok()) << end.error();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("hal fuzz: %d cases, %d prepared, %d executed, %d executions failed with a status, %.2f s\n",
              kCases, prepared, executed, failed_execution, seconds);
  // Benign mutations (weight bytes, the relaxed flag) keep a share of models valid and running.
  EXPECT_GT(executed, kCases / 50);
  EXPECT_EQ((*sys)->driver().unfinished_jobs(), 0u);
}

}  // namespace
}  // namespace npu::hal::test
