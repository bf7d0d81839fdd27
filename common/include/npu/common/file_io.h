// Reading and writing the files users hand npusim, safely. Reading: only regular files (a folder,
// FIFO, socket or device such as /dev/zero is refused before a byte is read, so nothing blocks or runs
// away), up to a stated size. Writing: atomically, through a temporary file in the destination's folder
// renamed over it once complete, so an interrupted or failed write (full disk) never leaves a
// half-written file under the final name. Every error is one line naming the path and the OS reason.
// Not provided: locking against concurrent writers (the last rename wins) or directory fsync.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "npu/common/result.h"

namespace npu::io {

// The largest text file a reader accepts (model, inputs, config and scenario JSON). The largest file
// npusim writes itself, a float ResNet-18 as model JSON, is about 150 MB.
inline constexpr uint64_t kMaxTextFileBytes = 1ull << 30;

// An open regular file, closed on destruction. `size` is its length when opened.
class RegularFile {
 public:
  RegularFile() = default;
  RegularFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  RegularFile(RegularFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  RegularFile& operator=(RegularFile&& o) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Reads exactly `n` bytes at `offset` (an error names `path` and what went wrong).
  Result<void> read_at(uint64_t offset, void* dst, uint64_t n, const std::string& path) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Opens `path` for reading if it is a regular file of at most `max_bytes`; else one error naming it
// ("is a folder", "is not a regular file (FIFO)", "is N bytes, above the limit of M").
Result<RegularFile> open_regular(const std::string& path, uint64_t max_bytes);

// The whole content of the regular file `path` (see open_regular).
Result<std::string> read_file(const std::string& path, uint64_t max_bytes = kMaxTextFileBytes);

// The deepest JSON nesting a reader accepts: real files need under ten levels; the cap keeps a
// hostile file's arrays-of-arrays from exhausting the stack where a value is printed or walked.
inline constexpr unsigned kMaxJsonDepth = 64;

// An error "nested deeper than N levels (line L, column C)" if `text`, read as JSON, opens more than
// `max_depth` arrays/objects at once; brackets inside strings do not count. Checks nothing else.
Result<void> check_json_nesting(std::string_view text, unsigned max_depth = kMaxJsonDepth);

// A value as an error message shows it: dumped with invalid UTF-8 replaced (a plain dump() throws on
// it) and, when longer than `max_bytes`, cut on a character boundary to fit with "..." appended, so a
// hostile value can neither abort the message nor flood it.
std::string json_for_message(const nlohmann::json& value, size_t max_bytes);
// Raw text (e.g. a --set assignment) shown the same way: its JSON string form without the quotes.
std::string text_for_message(const std::string& raw, size_t max_bytes);

// Writes `data` to `path` atomically: a temporary file beside it, written, flushed to disk and renamed
// over `path`. On failure the temporary is removed, `path` is untouched, and the error names `path`
// and the OS reason (e.g. "No space left on device"). The file gets the usual 0666 & ~umask mode.
Result<void> write_file_atomic(const std::string& path, std::string_view data);
Result<void> write_file_atomic(const std::string& path, const std::vector<uint8_t>& data);

}  // namespace npu::io
