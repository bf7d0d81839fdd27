#include "npu/tools/data_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace npu::tools {
namespace fs = std::filesystem;

namespace {

bool holds_default_config(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "configs" / "npu" / "default.json", ec);
}

// The running executable's folder (Linux: /proc/self/exe), empty when it cannot be read.
fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("NPUSIM_DATA_DIR"); env && *env) return env;
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    const fs::path installed = (exe / NPUSIM_BIN_TO_DATA_DIR).lexically_normal();
    if (holds_default_config(installed)) return installed.string();
  }
  if (holds_default_config(NPUSIM_SOURCE_DIR)) return NPUSIM_SOURCE_DIR;
  return ".";
}

std::string default_hw_config() {
  const std::string dir = data_dir();
  return dir == "." ? "configs/npu/default.json"
                    : (fs::path(dir) / "configs" / "npu" / "default.json").string();
}

}  // namespace npu::tools
