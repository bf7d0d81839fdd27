// Each command-line test process works in a folder of its own: ctest runs the cases of one binary in
// parallel, and cases writing the same example files and outputs into one shared folder read each
// other's halves. Including this header is enough: the folder is entered before main() and removed
// at exit.
#pragma once

#include <unistd.h>

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

}  // namespace npu::test
