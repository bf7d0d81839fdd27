// Runs the npusim binary (NPUSIM_BIN, set by the test's CMake) as a user would, for command-line tests.
// Each test process works in a folder of its own: ctest runs the cases of one binary in parallel, and
// cases writing the same example files and outputs into one shared folder read each other's halves.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace npu::test {

class PrivateWorkDir {
 public:
  PrivateWorkDir() {
    namespace fs = std::filesystem;
    dir_ = fs::current_path() / ("work-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::current_path(dir_);
  }
  ~PrivateWorkDir() {
    std::error_code ec;
    std::filesystem::current_path(dir_.parent_path(), ec);
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::filesystem::path dir_;
};
inline const PrivateWorkDir private_work_dir;

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
