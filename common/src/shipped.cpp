#include "npu/common/shipped.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "npu/common/suggest.h"

namespace npu::shipped {
namespace fs = std::filesystem;

namespace {

bool holds_default_config(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "configs" / "npu" / "default.json", ec);
}

// The running executable's folder (Linux: /proc/self/exe), empty when it cannot be read.
fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("NPUSIM_DATA_DIR"); env && *env) return env;
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    const fs::path installed = (exe / NPUSIM_BIN_TO_DATA_DIR).lexically_normal();
    if (holds_default_config(installed)) return installed.string();
  }
  if (holds_default_config(NPUSIM_SOURCE_DIR)) return NPUSIM_SOURCE_DIR;
  return ".";
}

std::string default_hw_config() {
  const std::string dir = data_dir();
  return dir == "." ? "configs/npu/default.json"
                    : (fs::path(dir) / "configs" / "npu" / "default.json").string();
}

Result<std::string> resolve(const std::string& kind, const std::string& name_or_path) {
  std::error_code ec;
  if (name_or_path.empty() || fs::exists(name_or_path, ec) || name_or_path.find('/') != std::string::npos ||
      ends_with(name_or_path, ".json"))
    return name_or_path;
  const fs::path file = fs::path(data_dir()) / "configs" / kind / (name_or_path + ".json");
  if (fs::is_regular_file(file, ec)) return file.string();
  const std::vector<std::string> known = names(kind);
  std::string list;
  for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
  return make_error(name_or_path + ": no such file, nor a shipped " + kind + " config of that name" +
                    did_you_mean(name_or_path, known) + " (shipped: " + list + ")");
}

std::vector<std::string> names(const std::string& kind) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(data_dir()) / "configs" / kind, ec))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string fallback(const std::string& kind, const std::string& rel, const std::string& resolved) {
  std::error_code ec;
  if (rel.empty() || rel.front() == '/' || fs::exists(resolved, ec)) return resolved;
  const fs::path file = fs::path(data_dir()) / "configs" / kind / fs::path(rel).filename();
  return fs::is_regular_file(file, ec) ? file.string() : resolved;
}

}  // namespace npu::shipped
