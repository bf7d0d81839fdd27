// A per-process scratch folder for targets whose reader takes a path: the input is written there, next
// to links to the shipped hardware presets, so relative config paths resolve as they do in configs/.
// Removed at exit.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace npu::fuzz {

inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "npusim-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    // <tmp>/in holds the inputs beside links to the presets ("base": "default.json"); <tmp>/npu and
    // <tmp>/scenarios link the shipped folders ("../npu/default.json" as configs/sweeps/ says it).
    const fs::path root(tmpl), in = root / "in", configs(NPUSIM_SOURCE_DIR "/configs");
    fs::create_directory(in);
    fs::create_directory_symlink(configs / "npu", root / "npu");
    fs::create_directory_symlink(configs / "scenarios", root / "scenarios");
    for (const auto& e : fs::directory_iterator(configs / "npu"))
      fs::create_symlink(e.path(), in / e.path().filename());
    static const std::string keep = tmpl;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(keep, ec);
    });
    return in.string();
  }();
  return dir;
}

// Writes `bytes` as `name` in the scratch folder; returns its path.
inline std::string scratch_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace npu::fuzz
