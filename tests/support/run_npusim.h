// Runs the npusim binary (NPUSIM_BIN, set by the test's CMake) as a user would, for command-line tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "private_work_dir.h"

namespace npu::test {

struct CliRun {
  int status;          // exit status, -1 when it did not exit normally
  std::string output;  // stdout + stderr
};

inline CliRun npusim(const std::string& args) {
  const std::string cmd = std::string(NPUSIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int rc = p ? pclose(p) : -1;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

}  // namespace npu::test
