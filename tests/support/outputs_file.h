// An inputs or outputs file npusim wrote, as its operands alone. The file also names the build that
// wrote it under "npusim" (npu::kBuildKey); tests that compare values set that key aside, after
// checking it is there.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace npu::testing {

inline nlohmann::json operands_of(nlohmann::json file) {
  EXPECT_TRUE(file.is_object() && file.contains("npusim") && file["npusim"].is_object()) << file.dump();
  if (file.is_object()) file.erase("npusim");
  return file;
}

}  // namespace npu::testing
