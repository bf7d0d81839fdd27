// The compilation cache's signed-file format, for the installation's other caches (`npusim devices`'
// capability cache): the same header (an 8-byte magic naming the kind of file, format version, payload
// length, MAC) and the same HMAC-SHA-256 under the installation's key (load_or_create_cache_key), over
// magic, format version, the CacheIdentity's device, version and token strings, and the payload. One
// mechanism: compilation_cache.cpp implements both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compilation_cache.h"

namespace npu::hal {

// Writes atomically (a temporary renamed over `path`).
Result<void> write_signed_file(const std::string& path, const CacheIdentity& id, const char (&magic)[8],
                               const std::vector<uint8_t>& payload);
// The payload, after checking magic, format version and length against the file's size (before a
// byte of the payload is read) and then the MAC; an error is one line naming the file and what did not
// match ("bad magic", "truncated", "MAC mismatch ...").
Result<std::vector<uint8_t>> read_signed_file(const std::string& path, const CacheIdentity& id,
                                              const char (&magic)[8]);

}  // namespace npu::hal
