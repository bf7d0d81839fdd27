// Timing-only models (constants as sizes only, e.g. the zoo's LLM decoders) on the NPU device: they
// compile to the same descriptors as the model with values and run the NPU in timing-only mode, so every
// simulated figure must equal the valued model's; they give no output values, and the CPU device (which
// computes) refuses them.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

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

// The figures of one run, as text: a child process measures, its parent compares.
struct Figures {
  bool timing_only = false, has_outputs = false;
  std::string placement;
  uint32_t command_buffers = 0;
  uint64_t device_cycles = 0, host_copy_bytes = 0, on_device_us = 0, in_driver_us = 0, elapsed_ps = 0;
  std::vector<std::vector<uint32_t>> output_shapes;
  bool child_failed = false;
};

std::string to_text(const Figures& f) {
  std::ostringstream o;
  o << f.timing_only << ' ' << f.has_outputs << ' ' << f.command_buffers << ' ' << f.device_cycles << ' '
    << f.host_copy_bytes << ' ' << f.on_device_us << ' ' << f.in_driver_us << ' ' << f.elapsed_ps << ' '
    << f.child_failed << ' ' << f.output_shapes.size();
  for (const auto& d : f.output_shapes) {
    o << ' ' << d.size();
    for (uint32_t v : d) o << ' ' << v;
  }
  o << '\n' << f.placement;
  return o.str();
}

Figures from_text(const std::string& text) {
  Figures f;
  std::istringstream in(text);
  size_t shapes = 0;
  in >> f.timing_only >> f.has_outputs >> f.command_buffers >> f.device_cycles >> f.host_copy_bytes >>
      f.on_device_us >> f.in_driver_us >> f.elapsed_ps >> f.child_failed >> shapes;
  for (size_t i = 0; i < shapes; ++i) {
    size_t n = 0;
    in >> n;
    auto& d = f.output_shapes.emplace_back(n);
    for (auto& v : d) in >> v;
  }
  in.ignore(1);
  std::getline(in, f.placement, '\0');
  return f;
}

// Prepares and runs `m` on a fresh phone in a child process (SystemC elaborates once per process), so
// both models start from the same state. Run one after the other on one phone (as this test did before)
// the second run's NPU cycles differed by a few (±10 of 127,000 were seen); each on its own phone they
// are equal, and asserted so below.
Figures measure_alone(const models::Model& m) {
  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe failed";
    return {};
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Figures f;
    run_on_phone([&](system::System& s) {
      auto p = s.npu_device().prepare_model(m);
      if (!p.status.ok() || !p.model) return;
      f.placement = p.model->placement();
      // Simulated time in picoseconds: now_ns() rounds each end to a whole nanosecond, and the two
      // models' executions start at different fractions of one (their prepares upload different bytes).
      const auto t0 = sc_core::sc_time_stamp();
      const auto r = p.model->execute_synchronously(models::random_inputs(m, 3, 0), true);
      f.elapsed_ps = static_cast<uint64_t>((sc_core::sc_time_stamp() - t0).to_seconds() * 1e12 + 0.5);
      f.child_failed = !r.status.ok();
      f.timing_only = r.timing_only;
      f.has_outputs = !r.outputs.empty();
      f.command_buffers = r.command_buffers;
      f.device_cycles = r.device_cycles;
      f.host_copy_bytes = r.host_copy_bytes;
      f.on_device_us = r.timing.time_on_device_us;
      f.in_driver_us = r.timing.time_in_driver_us;
      for (const auto& o : r.output_shapes) f.output_shapes.push_back(o.dimensions);
    });
    f.child_failed = f.child_failed || f.placement.empty() || ::testing::Test::HasFailure();
    const std::string text = to_text(f);
    const bool written = write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the measuring child failed";
  return from_text(text);
}

// Everything simulated is equal: the NPU ran the same descriptors for the same time.
Figures expect_same_timing(const models::Model& valued, const models::Model& timing_only) {
  const Figures with = measure_alone(valued), without = measure_alone(timing_only);
  EXPECT_FALSE(with.child_failed);
  EXPECT_FALSE(without.child_failed);
  EXPECT_FALSE(with.timing_only);
  EXPECT_TRUE(without.timing_only);
  EXPECT_TRUE(with.has_outputs);
  EXPECT_FALSE(without.has_outputs);
  EXPECT_EQ(with.placement, without.placement);
  EXPECT_GT(with.command_buffers, 0u);
  EXPECT_EQ(with.command_buffers, without.command_buffers);
  EXPECT_GT(with.device_cycles, 0u);
  EXPECT_EQ(with.device_cycles, without.device_cycles);
  EXPECT_EQ(with.host_copy_bytes, without.host_copy_bytes);
  EXPECT_EQ(with.on_device_us, without.on_device_us);
  EXPECT_EQ(with.in_driver_us, without.in_driver_us);
  // Elapsed simulated time of the whole execution (input copies, ioctls, the CPU stage, output copies).
  EXPECT_EQ(with.elapsed_ps, without.elapsed_ps);
  EXPECT_EQ(with.output_shapes, without.output_shapes);
  std::printf(
      "with values: %u command buffers, %llu NPU cycles, %llu ps; timing-only: %llu cycles, %llu ps\n",
      with.command_buffers, static_cast<unsigned long long>(with.device_cycles),
      static_cast<unsigned long long>(with.elapsed_ps),
      static_cast<unsigned long long>(without.device_cycles),
      static_cast<unsigned long long>(without.elapsed_ps));
  return with;
}

TEST(HalTimingOnly, SameSimulatedFiguresAsWithValues) {
  const models::Model valued = mixed_quant8();
  const Figures with = expect_same_timing(valued, without_values(valued));
  EXPECT_NE(with.placement.find("cpu"), std::string::npos) << with.placement;  // the CPU stage is timed too
}

// A decoder step of a reduced Llama shape, every operation on the NPU: the embedding lookup (a gather),
// com.npusim.llm's RMS_NORM, ROPE and attention MATMULs, every FULLY_CONNECTED on the MAC array.
TEST(HalTimingOnly, DecoderStepTimesLikeTheSameDecoderWithValues) {
  models::DecoderShape shape{"tiny", 2, 64, 4, 2, 16, 128, 256, false};
  const models::Model timing_only = models::build_decoder(shape, 1, 8, 1);
  const Figures with = expect_same_timing(with_zero_values(timing_only), timing_only);
  EXPECT_EQ(with.placement, "npu");  // the timing-only run's placement equals it (checked above)
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
