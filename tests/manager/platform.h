// Test support for the manager tests: builds the default simulated platform (configs/npu/default.json
// plus `path=value` overrides) and runs a body as its host thread; a small quantised model that runs
// wholly on the NPU (one driver job per execution).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "npu/hal/device.h"
#include "npu/models/model.h"
#include "npu/system/system.h"

namespace npu::test {

// `trace`: record the Perfetto timeline (System::tracer()).
void run_platform(const std::vector<std::string>& overrides, const std::function<void(system::System&)>& body,
                  bool trace = false);

struct SmallModel {
  models::Model model;
  hal::TensorMap inputs;
};
// CONV_2D 3×3, 1×32×32×16 → 32 channels, quant8, seeded weights and inputs.
SmallModel small_conv_model(uint64_t seed = 7);

}  // namespace npu::test
