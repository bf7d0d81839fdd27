// The files npusim ships (configs/npu/*.json presets, configs/scenarios, configs/sweeps) found by name,
// one resolution for the CLI, the Python package and the paths inside config files:
//   data folder: $NPUSIM_DATA_DIR when set; else beside the executable as `cmake --install` lays it out
//   (<prefix>/bin/npusim reads <prefix>/share/npusim/configs, so an installed tree can be moved whole);
//   else the source tree the program was built from; else the current folder. The first holding
//   configs/npu/default.json wins (the environment variable always does).
//   A name: "large" (--hw), "camera_llm" (scenario), "small" (sweep) is configs/<kind>/<name>.json there;
//   anything that exists, holds a '/' or ends in .json is a path, used as given.
//   A relative path inside a copied file ("base": "default.json" beside large.json, "../npu/default.json"
//   in a scenario) that is not beside the copy falls back to the shipped file of the same name.
#pragma once

#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::shipped {

// The folder holding configs/.
std::string data_dir();
// data_dir() + "/configs/npu/default.json": the hardware config of every command given no --hw.
std::string default_hw_config();

// kind: "npu", "scenarios" or "sweeps". A file path as given; a shipped name as its file. A bare name that
// is neither is an error naming it, the shipped names and the nearest of them.
Result<std::string> resolve(const std::string& kind, const std::string& name_or_path);
// The names shipped of `kind` (file stems, sorted): for "known: ..." and "did you mean" hints.
std::vector<std::string> names(const std::string& kind);

// `resolved` is what a relative `rel` in a config file became beside that file; when it does not exist,
// the shipped file of kind `kind` with rel's file name, if there is one; else `resolved` unchanged.
std::string fallback(const std::string& kind, const std::string& rel, const std::string& resolved);

}  // namespace npu::shipped
