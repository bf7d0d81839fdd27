// Runs the npusim binary (NPUSIM_BIN, set by the test's CMake) as a user would, for command-line tests:
// npusim(args) is cli.h's run_shell on that binary, stdout and stderr together.
#pragma once

#include <string>

#include "cli.h"

namespace npu::test {

using CliRun = npu::testing::CliRun;

inline CliRun npusim(const std::string& args) {
  return npu::testing::run_shell(std::string(NPUSIM_BIN) + " " + args);
}

}  // namespace npu::test
