// The NPU device's compilation cache (NNAPI model and data cache files keyed by a 32-byte token):
// `<dir>/<token hex>.model` holds the model's structure (model JSON, constant tensors left out), the
// target it was compiled for and the compiled program without its weights; `<dir>/<token hex>.data`
// holds the packed weights image and the model's constant tensors as raw bytes. Each file
// carries a magic, a format version, its payload length and a checksum; the model file also records
// the device's version string (so another driver version never trusts it), the token, a digest of the
// source model and the data file's checksum. Reading checks all of it and every index of the program,
// and answers one error naming what did not match; a cache is never trusted past a failed check.
// Not done: encryption or signing (a deliberately forged file with consistent checksums is caught only
// by the structural checks and the driver's validation of every DMA range at submit).
#pragma once

#include <string>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/hal/types.h"
#include "npu/models/model.h"

namespace npu::hal {

struct CacheFilePaths {
  std::string model, data;
};
CacheFilePaths cache_file_paths(const std::string& dir, const CacheToken& token);

// `source` is the model as the app gave it, `compiled` the one the program was compiled from (shapes
// inferred).
Result<void> write_compilation_cache(const std::string& dir, const CacheToken& token,
                                     const std::string& version_string, const NpuTarget& target,
                                     const models::Model& source, const models::Model& compiled,
                                     const Program& program);

struct CachedProgram {
  models::Model model;  // the compiled model
  Program program;
  uint64_t file_bytes = 0;
};

// `expected` (nullable): the source model the cache must have been written for.
Result<CachedProgram> read_compilation_cache(const std::string& dir, const CacheToken& token,
                                             const std::string& version_string, const NpuTarget& target,
                                             const models::Model* expected);

}  // namespace npu::hal
