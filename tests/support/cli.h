// Runs a shell command for tests of the npusim command line: its exit status and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "private_work_dir.h"

namespace npu::testing {

struct CliRun {
  int status;          // exit status (-1 when the command did not exit normally)
  std::string output;  // stdout, plus stderr when asked
};

inline CliRun run_shell(const std::string& command, bool with_stderr = true) {
  FILE* p = popen((command + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int rc = p ? pclose(p) : -1;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

// A file's whole text ("" when it cannot be read), and the number of lines in a text.
inline std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace npu::testing
