// Output files are checked before a simulation runs, so a long run's results are not lost at the end
// to a mistyped folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace npusim {

// Empty when `path` can be written (its folder exists and is writable, and it is not a folder itself)
// or is empty (no such output was asked for); else the one-line reason, naming the path.
inline std::string unwritable_reason(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return {};
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path + ": is a folder, not a file";
  const fs::path parent = fs::path(path).parent_path();
  const fs::path folder = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(folder, ec)) return path + ": cannot write (no folder " + folder.string() + ")";
  if (::access(folder.c_str(), W_OK) != 0) return path + ": cannot write (folder not writable)";
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) return path + ": cannot write (read-only)";
  return {};
}

}  // namespace npusim
