// Output files are checked before a simulation runs, so a long run's results are not lost at the end
// to a mistyped folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace npusim {

// Empty when `path` can be written (its folder exists and is writable, and it is not a folder itself)
// or is empty (no such output was asked for); else the one-line reason, naming the path.
// As io::write_file_atomic writes: a character device or FIFO in place (only the file itself need be
// writable), a symbolic link's target beside it, never a block device, socket or a link to nothing.
inline std::string unwritable_reason(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return {};
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path + ": is a folder, not a file";
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::character || st.type() == fs::file_type::fifo)
    return ::access(path.c_str(), W_OK) == 0 ? std::string() : path + ": cannot write (read-only)";
  if (st.type() == fs::file_type::block || st.type() == fs::file_type::socket)
    return path + ": cannot write: it is a " +
           (st.type() == fs::file_type::block ? "block device" : "socket") + ", not a regular file";
  if (fs::is_symlink(fs::symlink_status(path, ec)) && !fs::exists(st))
    return path + ": cannot write: it is a symbolic link to a file that does not exist";
  const fs::path target = fs::exists(st) ? fs::canonical(path, ec) : fs::path(path);
  const fs::path parent = (ec ? fs::path(path) : target).parent_path();
  const fs::path folder = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(folder, ec)) return path + ": cannot write (no folder " + folder.string() + ")";
  if (::access(folder.c_str(), W_OK) != 0) return path + ": cannot write (folder not writable)";
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) return path + ": cannot write (read-only)";
  return {};
}

}  // namespace npusim
