#include "platform.h"

#include <gtest/gtest.h>

#include "npu/models/builder.h"

namespace npu::test {

void run_platform(const std::vector<std::string>& overrides, const std::function<void(system::System&)>& body,
                  bool trace) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  cfg->trace = trace;
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run(body);
  ASSERT_TRUE(end.ok()) << end.error();
}

SmallModel small_conv_model(uint64_t seed) {
  models::ModelBuilder b(seed);
  const uint32_t x = b.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 32, 32, 16}, {0.02f, 128});
  b.mark_output(b.conv_2d(x, 32, 3, 3, 1, 1, fx::FusedActivation::RELU, {0.01f, 120}, {0.1f, 128}));
  SmallModel m;
  m.inputs = b.random_inputs();
  m.model = b.take();
  return m;
}

}  // namespace npu::test
