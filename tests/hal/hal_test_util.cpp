#include "hal_test_util.h"

#include <cmath>

namespace npu::hal::test {

using models::ModelBuilder;
using models::OperandType;
using models::QuantParams;

namespace {
const QuantParams kIn{0.02f, 128}, kW{0.01f, 120}, kMid{0.05f, 100}, kOut{0.1f, 128};
}  // namespace

void run_on_phone(const std::function<void(system::System&)>& app,
                  const std::vector<std::string>& overrides) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run(app, 60.0);
  ASSERT_TRUE(end.ok()) << end.error();
}

namespace {
TestModel conv_then_maybe_fc(uint64_t seed, bool fc) {
  ModelBuilder b(seed);
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, kIn);
  const uint32_t h = b.conv_2d(x, 20, 3, 3, 1, 1, fx::FusedActivation::RELU, kW, fc ? kMid : kOut);
  b.mark_output(fc ? b.fully_connected(h, 10, fx::FusedActivation::NONE, kW, kOut) : h);
  TestModel t;
  t.inputs = b.random_inputs();
  t.model = b.take();
  return t;
}
}  // namespace

TestModel conv_fc_quant8(uint64_t seed) { return conv_then_maybe_fc(seed, true); }
TestModel conv_quant8(uint64_t seed) { return conv_then_maybe_fc(seed, false); }

TestModel big_conv_quant8(uint64_t seed) {
  ModelBuilder b(seed);
  uint32_t h = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 56, 56, 32}, kIn);
  for (int i = 0; i < 3; ++i) h = b.conv_2d(h, 32, 3, 3, 1, 1, fx::FusedActivation::RELU, kW, kMid);
  b.mark_output(h);
  TestModel t;
  t.inputs = b.random_inputs();
  t.model = b.take();
  return t;
}

TensorMap random_inputs_for(const models::Model& m, uint64_t seed) {
  ModelBuilder b(seed);
  b.model() = m;
  return b.random_inputs();
}

TensorMap reference_outputs(system::System& s, const models::Model& m, const TensorMap& inputs) {
  auto ref = s.cpu_device().prepare_model(m);
  EXPECT_TRUE(ref.status.ok()) << ref.status.message;
  if (!ref.model) return {};
  auto r = ref.model->execute_synchronously(inputs, false);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  return r.outputs;
}

void expect_outputs_match(const TensorMap& want, const TensorMap& got) {
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [idx, w] : want) {
    auto it = got.find(idx);
    ASSERT_NE(it, got.end()) << "operand " << idx;
    const auto& g = it->second;
    ASSERT_EQ(w.dimensions, g.dimensions) << "operand " << idx;
    ASSERT_EQ(w.data.size(), g.data.size()) << "operand " << idx;
    if (!models::is_float_type(w.type)) {
      EXPECT_EQ(w.data, g.data) << "operand " << idx;
      continue;
    }
    uint64_t bad = 0;
    for (uint64_t i = 0; i < w.element_count(); ++i) {
      const double e = models::read_element(w.type, w.data, i), a = models::read_element(g.type, g.data, i);
      if (std::fabs(e - a) > 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e)) ++bad;
    }
    EXPECT_EQ(bad, 0u) << "operand " << idx;
  }
}

void wait_until(system::System& s, const std::function<bool()>& done, uint64_t poll_ns) {
  while (!done()) s.os().delay_ns(poll_ns);
}

}  // namespace npu::hal::test
