#include "npu/common/version.h"

#include "npu/git_version.h"

namespace npu {

std::string_view version() { return NPUSIM_VERSION; }
std::string_view git_hash() { return NPUSIM_GIT_VERSION; }
nlohmann::json build_json() { return {{"version", version()}, {"git", git_hash()}}; }
nlohmann::json with_build(nlohmann::json doc) {
  doc[kBuildKey] = build_json();
  return doc;
}
std::string version_line() {
  return "npusim " + std::string(version()) + " (git " + std::string(git_hash()) + ")";
}

}  // namespace npu
