// The seeded example models of `npusim example` (small demos and the regression cases' models): built in
// memory with random constants and inputs from `seed`, so the same name and seed give the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::tools {

struct Example {
  models::Model model;
  std::map<uint32_t, models::Tensor> inputs;
};

// The names, for help text and errors.
const char* example_names();
// Builds example `name`; an error naming the known names for an unknown one.
Result<Example> make_example(const std::string& name, uint64_t seed);

}  // namespace npu::tools
