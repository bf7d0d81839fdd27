// Where npusim finds the files it ships (configs/npu/*.json presets, configs/scenarios, configs/sweeps), so
// that a command given no --hw works from any folder, from the build tree or installed:
//   1. $NPUSIM_DATA_DIR, when set (a folder holding configs/);
//   2. beside the executable as `cmake --install` lays it out: <prefix>/bin/npusim reads
//      <prefix>/share/npusim/configs (so an installed tree can be moved as a whole);
//   3. the source tree the program was built from (running from the build tree);
//   4. configs/ under the current folder.
// The first that holds configs/npu/default.json wins (the environment variable always does).
#pragma once

#include <string>

namespace npu::tools {

// The folder holding configs/.
std::string data_dir();
// data_dir() + "/configs/npu/default.json": the hardware config of every command run without --hw.
std::string default_hw_config();

}  // namespace npu::tools
