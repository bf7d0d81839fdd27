// The NPU device's compilation cache (NNAPI model and data cache files keyed by a 32-byte token):
// `<dir>/<token hex>.model` holds, for the main graph and each referenced subgraph, the compiled
// model's structure (model JSON, main-graph constant tensors left out) and its program without weights,
// plus the target it was compiled for; `<dir>/<token hex>.data` holds each graph's packed weights image
// and constant tensors as raw bytes. Each file carries a magic, a format version, its payload length
// and an HMAC-SHA-256 (OpenSSL) over all of that, under a secret key of the installation and bound to
// the device name, its version string (driver version and source digest) and the token; the model file
// also records the data file's MAC (so the two pair), a SHA-256 of the source model and the target.
// Reading checks the MACs first: any edited byte, even with every other field made consistent, is
// rejected without the key, and the caller recompiles. After the MACs, every index of the program is
// still checked. One error names what did not match; a cache is never trusted past a failed check.
// Not done: encryption (a cache file's content is readable by whoever can read the folder), or
// protecting the key itself from a user who can read it (it lives in that user's own cache folder).
#pragma once

#include <array>
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

// The installation's secret for the cache MACs.
using CacheKey = std::array<uint8_t, 32>;

// Where the key lives: $NPUSIM_CACHE_KEY if set, else $XDG_CACHE_HOME/npusim/cache.key, else
// $HOME/.cache/npusim/cache.key; empty if none of them is set.
std::string default_cache_key_path();
// The key at `path`, created the first time (32 bytes from OpenSSL's RAND_bytes, mode 0600; two
// processes creating it at once agree on one). An error names the path and the reason.
Result<CacheKey> load_or_create_cache_key(const std::string& path);

// What a cache is bound to: the MAC key, and the device, version string and token it was written for.
struct CacheIdentity {
  CacheKey key{};
  std::string device;
  std::string version;
  CacheToken token{};
};

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
// Both files are written atomically (a temporary renamed over the name).
Result<void> write_compilation_cache(const std::string& dir, const CacheIdentity& id, const NpuTarget& target,
                                     const models::Model& source, const CompiledGraph& main,
                                     const std::vector<CompiledGraph>& subgraphs = {});

struct CachedProgram {
  CompiledGraph main;                    // always has a program
  std::vector<CompiledGraph> subgraphs;  // as many as main.model.referenced
  uint64_t file_bytes = 0;
};

// `expected` (nullable): the source model the cache must have been written for.
Result<CachedProgram> read_compilation_cache(const std::string& dir, const CacheIdentity& id,
                                             const NpuTarget& target, const models::Model* expected);

// Writes `payload` as a cache file (the model file when `model_file`, else the data file) with a valid
// header and MAC under `id`: what a forger holding the installation's key could write. For the fuzz
// target, which reaches the checks past the MACs this way; npusim writes caches only through
// write_compilation_cache. Also the size of a file's header before its payload.
Result<void> write_signed_cache_file(const std::string& path, const CacheIdentity& id, bool model_file,
                                     const std::vector<uint8_t>& payload);
inline constexpr size_t kCacheFileHeaderBytes = 8 + 4 + 8 + 32;

}  // namespace npu::hal
