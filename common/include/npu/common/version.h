// Which npusim this is: the release (the CMake project version) and the git commit it was built from
// ("unknown" when built outside a git checkout, "+dirty" when tracked files differed from the commit).
// Reports carry both so a figure can be traced to the code that produced it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace npu {

// Every JSON file npusim writes names the build that wrote it under this top-level key, as
// {"version": ..., "git": ...}; the readers of files npusim also reads back (model, inputs/outputs,
// hardware config) accept the key and skip it. Header-only, so readers need not link npu_version.
inline constexpr const char* kBuildKey = "npusim";

std::string_view version();
std::string_view git_hash();
// "npusim 0.1.0 (git 0123456789ab)"
std::string version_line();
// {"version": version(), "git": git_hash()}: the value of kBuildKey.
nlohmann::json build_json();
// `doc` (an object) with build_json() under kBuildKey.
nlohmann::json with_build(nlohmann::json doc);

}  // namespace npu
