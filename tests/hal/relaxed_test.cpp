// Relaxed fp32→fp16 (relaxComputationFloat32toFloat16) on both devices, checked with NNAPI's relaxed
// tolerance |e − a| ≤ atol + rtol·|e|, atol = rtol = 5·2^-10 (NNAPI's validation precision).
// Model: CONV_2D 3×3 SAME (RELU) → FULLY_CONNECTED → ADD → SOFTMAX, float32, seeded values; the ADD's
// logits and the SOFTMAX's probabilities are both outputs. One simulation runs it four ways: relaxed
// and not, on the CPU reference device and on the NPU device.
//   - the CPU reference really computes in fp16 (round_to_half in reference_executor.cpp): every
//     relaxed output is a binary16 value, and the relaxed outputs differ from the float32 ones;
//   - they stay within the relaxed tolerance of the float32 results;
//   - the NPU has no fp16 datapath (capabilities.cpp), so it runs a relaxed model in float32, which
//     NNAPI allows: the whole model on the NPU, its relaxed output identical to its float32 one and
//     within the relaxed tolerance of the CPU's float32 results (and of the CPU's relaxed ones);
//   - relaxed costs what float32 costs on both devices (NPU cycles, CPU simulated time), which is why
//     the relaxed capabilities report the float32 figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "../hal_ops/test_models.h"
#include "npu/models/tensor.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr double kRelaxedTolerance = 5 * 0.0009765625;  // NNAPI: fp16 and relaxed fp32, atol = rtol

std::vector<float> seeded(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Net {
  Model model;
  uint32_t in, logits, probs;
};

// 1×6×6×3 → CONV_2D 3×3 SAME RELU → 1×6×6×8 → FULLY_CONNECTED (288 → 10) → ADD [10] → SOFTMAX (beta 1).
Net conv_fc_add_softmax(bool relaxed) {
  GraphBuilder g;
  Net n;
  n.in = g.input(F32, {1, 6, 6, 3});
  const uint32_t conv = g.temp(F32, {1, 6, 6, 8});
  g.op(OperationType::CONV_2D,
       {n.in, g.floats({8, 3, 3, 3}, seeded(8 * 27, 2, -0.6f, 0.6f)),
        g.floats({8}, seeded(8, 3, -0.5f, 0.5f)), g.i32(1), g.i32(1), g.i32(1), g.i32(1)},
       {conv});
  const uint32_t fc = g.temp(F32, {1, 10});
  g.op(OperationType::FULLY_CONNECTED,
       {conv, g.floats({10, 288}, seeded(10 * 288, 4, -0.15f, 0.15f)), g.floats({10}, seeded(10, 5, -1, 1)),
        g.i32(0)},
       {fc});
  n.logits = g.output(F32, {1, 10});
  g.op(OperationType::ADD, {fc, g.floats({10}, seeded(10, 6, -2, 2)), g.i32(0)}, {n.logits});
  n.probs = g.output(F32, {1, 10});
  g.op(OperationType::SOFTMAX, {n.logits, g.floats({}, {1.0f}, OperandType::FLOAT32)}, {n.probs});
  n.model = g.build();
  n.model.relax_computation_float32_to_float16 = relaxed;
  return n;
}

std::vector<float> floats(const Tensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), v.size() * 4);
  return v;
}

// Elements of `got` outside the relaxed tolerance of `want`.
size_t outside_relaxed(const std::vector<float>& want, const std::vector<float>& got) {
  EXPECT_EQ(want.size(), got.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    const double e = want[i], a = got[i];
    if (!(std::fabs(e - a) <= kRelaxedTolerance + kRelaxedTolerance * std::fabs(e))) {
      ADD_FAILURE() << "element " << i << ": float32 " << e << ", relaxed " << a;
      ++bad;
    }
  }
  return bad;
}

TEST(Relaxed, CpuComputesInFp16AndBothDevicesMeetTheRelaxedTolerance) {
  const Net exact = conv_fc_add_softmax(false), relaxed = conv_fc_add_softmax(true);
  Tensor x;
  x.type = F32;
  x.dimensions = {1, 6, 6, 3};
  const std::vector<float> xv = seeded(108, 1, -2, 2);
  x.data.resize(xv.size() * 4);
  std::memcpy(x.data.data(), xv.data(), x.data.size());

  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  npu::hal::ExecutionResult cpu_exact, cpu_relaxed, npu_exact, npu_relaxed;
  std::string placement;
  uint64_t cpu_exact_ns = 0, cpu_relaxed_ns = 0;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto run = [&](npu::hal::Device& dev, const Net& n, std::string* where, uint64_t* ns = nullptr) {
      auto p = dev.prepare_model(n.model);
      EXPECT_TRUE(p.status.ok()) << p.status.message;
      if (!p.status.ok()) return npu::hal::ExecutionResult{};
      if (where) *where = p.model->placement();
      const uint64_t t0 = dev.os().now_ns();
      auto r = p.model->execute_synchronously({{n.in, x}}, false);
      if (ns) *ns = dev.os().now_ns() - t0;
      return r;
    };
    cpu_exact = run(s.cpu_device(), exact, nullptr, &cpu_exact_ns);
    cpu_relaxed = run(s.cpu_device(), relaxed, nullptr, &cpu_relaxed_ns);
    npu_exact = run(s.npu_device(), exact, nullptr);
    npu_relaxed = run(s.npu_device(), relaxed, &placement);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  for (const auto* r : {&cpu_exact, &cpu_relaxed, &npu_exact, &npu_relaxed})
    ASSERT_TRUE(r->status.ok()) << r->status.message;
  EXPECT_EQ(placement, "npu");
  // Why the relaxed capabilities are the float32 ones (capabilities.cpp): the NPU runs the same program
  // (same cycles) and the CPU device's modelled time does not depend on the precision.
  EXPECT_EQ(npu_relaxed.device_cycles, npu_exact.device_cycles);
  EXPECT_GT(cpu_exact_ns, 0u);
  EXPECT_EQ(cpu_relaxed_ns, cpu_exact_ns);

  for (uint32_t out : {exact.logits, exact.probs}) {
    const auto want = floats(cpu_exact.outputs.at(out));
    const auto cpu = floats(cpu_relaxed.outputs.at(out));
    const auto npu = floats(npu_relaxed.outputs.at(out));
    // The CPU reference's relaxed results are binary16 values and not the float32 ones.
    size_t differ = 0;
    double max_diff = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
      EXPECT_EQ(cpu[i], npu::models::half_to_float(npu::models::float_to_half(cpu[i]))) << i;
      differ += cpu[i] != want[i];
      max_diff = std::max(max_diff, std::fabs(static_cast<double>(cpu[i]) - want[i]));
    }
    EXPECT_GT(differ, 0u) << "relaxed CPU output " << out << " equals the float32 one: nothing was relaxed";
    std::cout << "output " << out << ": " << differ << " of " << cpu.size()
              << " relaxed CPU elements differ from float32, max |diff| " << max_diff << "\n";
    EXPECT_EQ(outside_relaxed(want, cpu), 0u) << "CPU relaxed vs float32, output " << out;
    // The NPU: float32 arithmetic for a relaxed model, within the tolerance of both CPU results.
    EXPECT_EQ(npu_relaxed.outputs.at(out).data, npu_exact.outputs.at(out).data);
    EXPECT_EQ(outside_relaxed(want, npu), 0u) << "NPU relaxed vs CPU float32, output " << out;
    EXPECT_EQ(outside_relaxed(cpu, npu), 0u) << "NPU relaxed vs CPU relaxed, output " << out;
  }
}

}  // namespace
