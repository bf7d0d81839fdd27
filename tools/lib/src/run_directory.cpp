#include "npu/tools/run_directory.h"

#include <unistd.h>

#include <filesystem>

#include "npu/common/file_io.h"
#include "npu/common/shell_quote.h"
#include "npu/common/version.h"

namespace npu::tools {
namespace fs = std::filesystem;

namespace {

std::string g_command_line;

}  // namespace

void set_command_line(int argc, char** argv) {
  g_command_line.clear();
  for (int i = 0; i < argc; ++i) g_command_line += (i ? " " : "") + shell_quote(argv[i]);
}

const std::string& command_line() { return g_command_line; }

Result<StagedDirectory> StagedDirectory::create(const std::string& final_dir,
                                                std::vector<std::string> names) {
  std::error_code ec;
  if (fs::exists(final_dir, ec) && !fs::is_directory(final_dir, ec))
    return make_error(final_dir + ": --out: is a file, not a folder");
  // The sibling must be on the same file system as the final folder for the renames.
  fs::path final_path = fs::absolute(fs::path(final_dir), ec).lexically_normal();
  if (final_path.filename().empty()) final_path = final_path.parent_path();
  const fs::path parent = final_path.parent_path();
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent))
    return make_error(final_dir + ": --out: cannot create the folder" + (ec ? ": " + ec.message() : ""));
  const fs::path staging =
      parent / ("." + final_path.filename().string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec) || ec)
    return make_error(final_dir + ": --out: cannot create the folder" + (ec ? ": " + ec.message() : ""));
  names.emplace_back("command.txt");
  return StagedDirectory(final_dir, staging.string(), std::move(names));
}

StagedDirectory::StagedDirectory(StagedDirectory&& o) noexcept
    : final_(std::move(o.final_)), staging_(std::move(o.staging_)), names_(std::move(o.names_)) {
  o.staging_.clear();
}

StagedDirectory::~StagedDirectory() {
  if (staging_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

std::string StagedDirectory::staged(const std::string& name) const {
  return (fs::path(staging_) / name).string();
}

std::string StagedDirectory::shown(const std::string& path) const {
  const fs::path p(path);
  if (p.parent_path() != fs::path(staging_)) return path;
  return (fs::path(final_) / p.filename()).string();
}

Result<void> StagedDirectory::commit() {
  if (auto w = io::write_file_atomic(staged("command.txt"), version_line() + "\n" + g_command_line + "\n");
      !w)
    return make_error(w.error());
  std::error_code ec;
  fs::create_directories(final_, ec);
  if (ec || !fs::is_directory(final_))
    return make_error(final_ + ": --out: cannot create the folder" + (ec ? ": " + ec.message() : ""));
  // Stale files first: a name this run did not write must not survive from an earlier run.
  for (const auto& name : names_) {
    if (fs::exists(fs::path(staging_) / name, ec)) continue;
    fs::remove(fs::path(final_) / name, ec);
    if (ec)
      return make_error((fs::path(final_) / name).string() +
                        ": cannot remove the stale file: " + ec.message());
  }
  for (const auto& name : names_) {
    const fs::path from = fs::path(staging_) / name;
    if (!fs::exists(from, ec)) continue;
    fs::rename(from, fs::path(final_) / name, ec);
    if (ec) return make_error((fs::path(final_) / name).string() + ": cannot write: " + ec.message());
  }
  fs::remove_all(staging_, ec);
  staging_.clear();
  return {};
}

}  // namespace npu::tools
