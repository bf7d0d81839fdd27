#include "npu/common/version.h"

#include "npu/git_version.h"

namespace npu {

std::string_view version() { return NPUSIM_VERSION; }
std::string_view git_hash() { return NPUSIM_GIT_VERSION; }
std::string version_line() {
  return "npusim " + std::string(version()) + " (git " + std::string(git_hash()) + ")";
}

}  // namespace npu
