// `npusim devices`' capability cache: the rows each device measured on its reference workloads (name,
// type, version, cache files, extensions, operand performance), kept per resolved hardware config and
// build in a file signed like the compilation cache (hal/signed_file.h: the same HMAC-SHA-256 under the
// installation's key, over the whole entry and bound to the identity of build and config). Reading
// trusts nothing: a file that fails the MAC or is not rows of the expected shape is one error line, and
// the caller measures again. Writing is atomic.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/hal/compilation_cache.h"

namespace npu::tools {

// The signed file's kind (its first 8 bytes).
inline constexpr char kCapabilityCacheMagic[8] = {'N', 'P', 'U', 'S', 'I', 'M', 'C', 'P'};

// What a cache entry is bound to: the installation's key, and `identity` (the resolved config, the
// build's version line and git hash, the rows' format).
hal::CacheIdentity capability_cache_identity(const hal::CacheKey& key, const std::string& identity);

// An error naming the first field that is not as `npusim devices` writes it ($[1].operand_performance[3]
// .exec_time: expected a finite number >= 0, ...).
Result<void> check_capability_rows(const nlohmann::json& rows);

// The table `npusim devices` prints, from rows check_capability_rows accepts.
std::string capability_rows_text(const nlohmann::json& rows);

Result<nlohmann::json> read_capability_cache(const std::string& path, const hal::CacheIdentity& id);
Result<void> write_capability_cache(const std::string& path, const hal::CacheIdentity& id,
                                    const nlohmann::json& rows);

}  // namespace npu::tools
