// Runs one model through the whole stack on a fresh System (the phone-class preset with `overrides`):
// on the NPU device and on the CPU reference device, for the e2e tests that compare the two.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/hal/device.h"
#include "npu/system/system.h"

namespace npu_e2e {

struct Outcome {
  npu::hal::ExecutionResult npu, cpu;
  std::string placement;
};

inline Outcome run_both(const npu::models::Model& model, const npu::hal::TensorMap& inputs,
                        const std::vector<std::string>& overrides = {}) {
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  Outcome o;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto prepared = s.npu_device().prepare_model(model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    o.placement = prepared.model->placement();
    o.npu = prepared.model->execute_synchronously(inputs, true);
    auto ref = s.cpu_device().prepare_model(model);
    ASSERT_TRUE(ref.status.ok()) << ref.status.message;
    o.cpu = ref.model->execute_synchronously(inputs, false);
  });
  EXPECT_TRUE(end.ok()) << end.error();
  return o;
}

}  // namespace npu_e2e
