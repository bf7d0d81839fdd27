// A model through the whole stack on the NPU device and on the CPU reference device, for the tests that
// compare the two.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/hal/device.h"
#include "npu/system/system.h"

namespace npu::testing {

struct Outcome {
  hal::ExecutionResult npu, cpu;
  std::string placement;
};

// Inside a running simulation: `model` with `inputs` on the NPU device, `reference` with `ref_inputs` on
// the CPU device (the same model, or say the float model a quantised one was made from).
inline void run_on_both_devices(system::System& s, const models::Model& model, const hal::TensorMap& inputs,
                                const models::Model& reference, const hal::TensorMap& ref_inputs,
                                Outcome* o) {
  auto prepared = s.npu_device().prepare_model(model);
  ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
  o->placement = prepared.model->placement();
  o->npu = prepared.model->execute_synchronously(inputs, true);
  auto ref = s.cpu_device().prepare_model(reference);
  ASSERT_TRUE(ref.status.ok()) << ref.status.message;
  o->cpu = ref.model->execute_synchronously(ref_inputs, false);
}

// The same in a simulation of its own: a fresh System on the phone-class preset with `overrides`.
inline Outcome run_both(const models::Model& model, const hal::TensorMap& inputs,
                        const models::Model& reference, const hal::TensorMap& ref_inputs,
                        const std::vector<std::string>& overrides = {}) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  Outcome o;
  auto end = (*sys)->run(
      [&](system::System& s) { run_on_both_devices(s, model, inputs, reference, ref_inputs, &o); });
  EXPECT_TRUE(end.ok()) << end.error();
  return o;
}

// One model and its inputs on both devices.
inline Outcome run_both(const models::Model& model, const hal::TensorMap& inputs,
                        const std::vector<std::string>& overrides = {}) {
  return run_both(model, inputs, model, inputs, overrides);
}

}  // namespace npu::testing
