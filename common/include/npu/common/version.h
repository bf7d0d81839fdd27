// Which npusim this is: the release (the CMake project version) and the git commit it was built from
// ("unknown" when built outside a git checkout, "+dirty" when tracked files differed from the commit).
// Reports carry both so a figure can be traced to the code that produced it.
#pragma once

#include <string>
#include <string_view>

namespace npu {

std::string_view version();
std::string_view git_hash();
// "npusim 0.1.0 (git 0123456789ab)"
std::string version_line();

}  // namespace npu
