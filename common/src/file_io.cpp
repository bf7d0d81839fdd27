#include "npu/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

namespace npu::io {
namespace {

std::string os_reason(int err) { return std::strerror(err); }

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::string bytes_text(uint64_t n) {
  if (n >= (1ull << 30) && n % (1ull << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}

Result<void> write_all(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return make_error(path + ": cannot write: " + os_reason(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return {};
}

}  // namespace

RegularFile& RegularFile::operator=(RegularFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> RegularFile::read_at(uint64_t offset, void* dst, uint64_t n, const std::string& path) const {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return make_error(path + ": cannot read: " + os_reason(errno));
    }
    if (r == 0) return make_error(path + ": cannot read: the file ended early (changed while read?)");
    p += r;
    n -= static_cast<uint64_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return {};
}

Result<RegularFile> open_regular(const std::string& path, uint64_t max_bytes) {
  if (path.empty()) return make_error("(empty path): cannot open: no file name given");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return make_error(path + ": cannot open: it is a folder, not a file");
    return make_error(path + ": cannot open: " + os_reason(err));
  }
  RegularFile file(fd, 0);  // closes the descriptor on every error below
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error(path + ": cannot open: " + os_reason(errno));
  if (S_ISDIR(st.st_mode)) return make_error(path + ": cannot open: it is a folder, not a file");
  if (!S_ISREG(st.st_mode))
    return make_error(path + ": cannot open: it is " + std::string(kind_of(st.st_mode)) +
                      ", not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    return make_error(path + ": cannot open: it is " + std::to_string(size) + " bytes, above the limit of " +
                      bytes_text(max_bytes));
  // Back to blocking reads (a regular file never blocks for long, but EAGAIN is not worth handling).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return RegularFile(file.release(), size);
}

Result<std::string> read_file(const std::string& path, uint64_t max_bytes) {
  auto f = open_regular(path, max_bytes);
  if (!f) return make_error(f.error());
  std::string text(f->size(), '\0');
  if (auto r = f->read_at(0, text.data(), text.size(), path); !r) return make_error(r.error());
  return text;
}

namespace {
std::string cut_for_message(std::string s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t at = max_bytes >= 3 ? max_bytes - 3 : 0;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;  // not inside a character
  s.resize(at);
  return s + "...";
}

std::string dump_replacing_invalid_utf8(const nlohmann::json& v) {
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

std::string json_for_message(const nlohmann::json& value, size_t max_bytes) {
  return cut_for_message(dump_replacing_invalid_utf8(value), max_bytes);
}

std::string text_for_message(const std::string& raw, size_t max_bytes) {
  const std::string quoted = dump_replacing_invalid_utf8(nlohmann::json(raw));
  return cut_for_message(quoted.substr(1, quoted.size() - 2), max_bytes);
}

Result<void> check_json_nesting(std::string_view text, unsigned max_depth) {
  unsigned depth = 0;
  bool in_string = false, escaped = false;
  uint64_t line = 1, column = 0;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return make_error("nested deeper than " + std::to_string(max_depth) + " levels (line " +
                          std::to_string(line) + ", column " + std::to_string(column) + ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

namespace {

// A character device or FIFO the user named as an output (/dev/null, /dev/stdout on a terminal or pipe,
// a named pipe): written in place, never replaced. A FIFO with no reader is refused rather than waited on.
Result<void> write_through(const std::string& path, std::string_view data, const char* kind) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO) return make_error(path + ": cannot write: it is " + kind + " with no reader");
    return make_error(path + ": cannot write: " + os_reason(errno));
  }
  struct stat st {};
  // Checked again on the open file: a regular file put there meanwhile would be overwritten in place.
  const bool special = ::fstat(fd, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
  const int flags = ::fcntl(fd, F_GETFL);
  if (!special || flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    ::close(fd);
    return make_error(path + ": cannot write: it changed while being opened");
  }
  auto w = write_all(fd, data.data(), data.size(), path);
  if (::close(fd) != 0 && w) return make_error(path + ": cannot write: " + os_reason(errno));
  return w;
}

}  // namespace

// Beyond what file_io.h says, what the name leads to decides how it is written: a symbolic link is followed
// and its target file replaced the same way (the temporary beside the target, the link kept); a link to
// nothing is refused, as GNU cp refuses it. A character device or FIFO (/dev/null, /dev/stdout, a named pipe)
// is written through in place, never replaced (`--outputs /dev/full` as root had deleted the device node); a
// FIFO with no reader is refused, not waited on; a block device or socket is refused.
Result<void> write_file_atomic(const std::string& path, std::string_view data) {
  if (path.empty()) return make_error("(empty path): cannot write: no file name given");
  std::string dest = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return make_error(path + ": cannot write: it is a folder, not a file");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_through(path, data, kind_of(st.st_mode));
    if (!S_ISREG(st.st_mode))
      return make_error(path + ": cannot write: it is " + kind_of(st.st_mode) + ", not a regular file");
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
      char* real = ::realpath(path.c_str(), nullptr);
      if (real == nullptr) return make_error(path + ": cannot write: " + os_reason(errno));
      dest = real;
      std::free(real);  // NOLINT(cppcoreguidelines-no-malloc): realpath's buffer
    }
  } else if (errno != ENOENT) {
    return make_error(path + ": cannot write: " + os_reason(errno));
  } else if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return make_error(path + ": cannot write: it is a symbolic link to a file that does not exist");
  }
  // The temporary lives in the destination's folder: rename() is atomic only within one file system.
  std::string tmp = dest + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return make_error(path + ": cannot write: " + os_reason(errno));
  auto fail = [&](Result<void> r) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return r;
  };
  // mkstemp makes the file 0600; give it the mode an ordinary create would (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return fail(make_error(path + ": cannot write: " + os_reason(errno)));
  if (auto w = write_all(fd, data.data(), data.size(), path); !w) return fail(w);
  if (::fsync(fd) != 0) return fail(make_error(path + ": cannot write: " + os_reason(errno)));
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": cannot write: " + os_reason(err));
  }
  if (::rename(tmp.c_str(), dest.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": cannot write: " + os_reason(err));
  }
  return {};
}

Result<void> write_file_atomic(const std::string& path, const std::vector<uint8_t>& data) {
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

}  // namespace npu::io
