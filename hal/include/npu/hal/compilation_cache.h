// The NPU device's compilation cache (NNAPI model and data cache files keyed by a 32-byte token):
// `<dir>/<token hex>.model` holds, for the main graph and each referenced subgraph, the compiled
// model's structure (model JSON, main-graph constant tensors left out) and its program without weights,
// plus the target it was compiled for; `<dir>/<token hex>.data` holds each graph's packed weights image
// and constant tensors as raw bytes. Each file
// carries a magic, a format version, its payload length and a checksum; the model file also records
// the device's version string (so another driver version never trusts it), the token, a digest of the
// source model and the data file's checksum. Reading checks all of it and every index of the program,
// and answers one error naming what did not match; a cache is never trusted past a failed check.
// Not done: encryption or signing (a deliberately forged file with consistent checksums is caught only
// by the structural checks and the driver's validation of every DMA range at submit).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/hal/types.h"
#include "npu/models/model.h"

namespace npu::hal {

struct CacheFilePaths {
  std::string model, data;
};
CacheFilePaths cache_file_paths(const std::string& dir, const CacheToken& token);

// One compiled graph: the model its program was compiled from (shapes inferred) and the program, or,
// for a referenced subgraph (IF/WHILE) the NPU compiler refused, no program and the reason: that
// subgraph runs on the CPU reference.
struct CompiledGraph {
  models::Model model;
  std::optional<Program> program;
  std::string fallback;
};

// `source` is the model as the app gave it; `main` its compiled main graph (with a program);
// `subgraphs` one entry per referenced subgraph, in order, so a load from the cache compiles nothing.
Result<void> write_compilation_cache(const std::string& dir, const CacheToken& token,
                                     const std::string& version_string, const NpuTarget& target,
                                     const models::Model& source, const CompiledGraph& main,
                                     const std::vector<CompiledGraph>& subgraphs = {});

struct CachedProgram {
  CompiledGraph main;  // always has a program
  std::vector<CompiledGraph> subgraphs;  // as many as main.model.referenced
  uint64_t file_bytes = 0;
};

// `expected` (nullable): the source model the cache must have been written for.
Result<CachedProgram> read_compilation_cache(const std::string& dir, const CacheToken& token,
                                             const std::string& version_string, const NpuTarget& target,
                                             const models::Model* expected);

}  // namespace npu::hal
