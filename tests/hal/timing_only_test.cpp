// Timing-only models (constants as sizes only, e.g. the zoo's LLM decoders) on the NPU device: they
// compile to the same descriptors as the model with values and run the NPU in timing-only mode, so every
// simulated figure must equal the valued model's; they give no output values, and the CPU device (which
// computes) refuses them.
#include <cmath>
#include <filesystem>
#include <utility>

#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "npu/models/zoo.h"

namespace npu::hal::test {
namespace {

using models::OperandType;
using models::QuantParams;

// The same model with every constant tensor's values omitted (scalars such as paddings keep theirs).
models::Model without_values(models::Model m) {
  for (auto& o : m.main.operands) {
    if (o.is_constant() && models::is_tensor(o.type)) {
      o.values_omitted = true;
      o.data.clear();
    }
  }
  return m;
}

// The same model with omitted values filled with zeros.
models::Model with_zero_values(models::Model m) {
  for (auto& o : m.main.operands) {
    if (o.values_omitted) {
      o.values_omitted = false;
      o.data.assign(o.byte_size(), 0);
    }
  }
  return m;
}

// A quant8 network touching the MAC array (CONV_2D, FULLY_CONNECTED), the vector unit
// (DEPTHWISE_CONV_2D) and a CPU stage (L2_NORMALIZATION is not lowered).
models::Model mixed_quant8() {
  models::ModelBuilder b(7);
  const QuantParams in{0.02f, 128}, w{0.01f, 120}, mid{0.05f, 100};
  uint32_t h = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, in);
  h = b.conv_2d(h, 16, 3, 3, 1, 1, fx::FusedActivation::RELU, w, mid);
  h = b.depthwise_conv_2d(h, 3, 3, 1, 2, fx::FusedActivation::RELU6, w, mid);
  h = b.fully_connected(h, 32, fx::FusedActivation::NONE, w, mid);
  b.mark_output(b.l2_normalization(h));
  return b.take();
}

struct Measured {
  ExecutionResult result;
  uint64_t elapsed_ns = 0;
  std::string placement;
};

Measured prepare_and_run(system::System& s, const models::Model& m) {
  Measured run;
  auto p = s.npu_device().prepare_model(m);
  EXPECT_TRUE(p.status.ok()) << p.status.message;
  if (!p.model) return run;
  run.placement = p.model->placement();
  const uint64_t t0 = s.os().now_ns();
  run.result = p.model->execute_synchronously(models::random_inputs(m, 3, 0), true);
  run.elapsed_ns = s.os().now_ns() - t0;
  EXPECT_TRUE(run.result.status.ok()) << run.result.status.message;
  return run;
}

// Both models on one phone (SystemC elaborates once per process), the valued one first; the few
// microseconds of work do not move the temperature enough to change the clock.
std::pair<Measured, Measured> run_both(const models::Model& valued, const models::Model& timing_only) {
  std::pair<Measured, Measured> runs;
  run_on_phone([&](system::System& s) {
    runs.first = prepare_and_run(s, valued);
    runs.second = prepare_and_run(s, timing_only);
  });
  return runs;
}

// Equal but for the DRAM: the second run starts with the row buffers the first left open, which moves
// a long run's NPU cycles by a few (seen: ±10 of 127,000), so cycles and elapsed time are compared to
// within 0.05 %; everything the HAL and driver count is exact.
void expect_same_timing(const Measured& valued, const Measured& timing_only) {
  auto near = [](uint64_t a, uint64_t b) { return std::abs(static_cast<double>(a) - static_cast<double>(b)) <= 5e-4 * static_cast<double>(a); };
  EXPECT_FALSE(valued.result.timing_only);
  EXPECT_TRUE(timing_only.result.timing_only);
  EXPECT_FALSE(valued.result.outputs.empty());
  EXPECT_TRUE(timing_only.result.outputs.empty());
  EXPECT_EQ(valued.placement, timing_only.placement);
  EXPECT_GT(valued.result.command_buffers, 0u);
  EXPECT_EQ(valued.result.command_buffers, timing_only.result.command_buffers);
  EXPECT_GT(valued.result.device_cycles, 0u);
  EXPECT_PRED2(near, valued.result.device_cycles, timing_only.result.device_cycles);
  EXPECT_EQ(valued.result.host_copy_bytes, timing_only.result.host_copy_bytes);
  EXPECT_PRED2(near, valued.result.timing.time_on_device_us, timing_only.result.timing.time_on_device_us);
  EXPECT_EQ(valued.result.timing.time_in_driver_us, timing_only.result.timing.time_in_driver_us);
  EXPECT_PRED2(near, valued.elapsed_ns, timing_only.elapsed_ns);
  ASSERT_EQ(valued.result.output_shapes.size(), timing_only.result.output_shapes.size());
  for (size_t i = 0; i < valued.result.output_shapes.size(); ++i)
    EXPECT_EQ(valued.result.output_shapes[i].dimensions, timing_only.result.output_shapes[i].dimensions);
  std::printf("with values: %u jobs, %llu NPU cycles, %llu ns; timing-only: %llu cycles, %llu ns\n",
              valued.result.command_buffers, static_cast<unsigned long long>(valued.result.device_cycles),
              static_cast<unsigned long long>(valued.elapsed_ns),
              static_cast<unsigned long long>(timing_only.result.device_cycles),
              static_cast<unsigned long long>(timing_only.elapsed_ns));
}

TEST(HalTimingOnly, SameSimulatedFiguresAsWithValues) {
  const models::Model valued = mixed_quant8();
  const auto [with, without] = run_both(valued, without_values(valued));
  expect_same_timing(with, without);
  EXPECT_NE(with.placement.find("cpu"), std::string::npos) << with.placement;  // the CPU stage is timed too
}

// A decoder step of a reduced Llama shape, every operation on the NPU: the embedding lookup (a gather),
// com.npusim.llm's RMS_NORM, ROPE and attention MATMULs, every FULLY_CONNECTED on the MAC array.
TEST(HalTimingOnly, DecoderStepTimesLikeTheSameDecoderWithValues) {
  models::DecoderShape shape{"tiny", 2, 64, 4, 2, 16, 128, 256, false};
  const models::Model timing_only = models::build_decoder(shape, 1, 8, 1);
  const auto [with, without] = run_both(with_zero_values(timing_only), timing_only);
  expect_same_timing(with, without);
  EXPECT_EQ(with.placement, "npu");
  EXPECT_EQ(without.placement, "npu");
}

TEST(HalTimingOnly, CpuDeviceRefusesAndNothingIsCached) {
  run_on_phone([](system::System& s) {
    const models::Model m = without_values(mixed_quant8());
    auto cpu = s.cpu_device().prepare_model(m);
    EXPECT_EQ(cpu.status.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_NE(cpu.status.message.find("values omitted (a timing-only model)"), std::string::npos)
        << cpu.status.message;
    const std::string dir = ::testing::TempDir() + "/timing_only_cache";
    std::filesystem::create_directories(dir);
    PrepareOptions o;
    o.cache_dir = dir;
    o.token = CacheToken{};
    auto npu = s.npu_device().prepare_model(m, o);
    ASSERT_TRUE(npu.status.ok()) << npu.status.message;
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    auto again = s.npu_device().prepare_model_from_cache(o);
    EXPECT_FALSE(again.status.ok());
  });
}

}  // namespace
}  // namespace npu::hal::test
