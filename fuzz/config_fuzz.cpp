// Hardware config files and --set overrides: the bytes up to the first NUL are a config file (read as
// npusim reads --hw, so "base" chains to the shipped presets resolve), and each NUL-separated piece after
// it one `path=value` override. Properties: an error or a config, never a crash or an exception; a
// config's resolved form (npusim config --resolved) loads back to the same resolved form.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "npu/system/system.h"
#include "scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const size_t nul = bytes.find('\0');
  std::vector<std::string> sets;
  for (size_t at = nul; at != std::string::npos && sets.size() < 16;) {
    const size_t next = bytes.find('\0', at + 1);
    sets.push_back(bytes.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
  }
  const std::string path = npu::fuzz::scratch_file("hw.json", std::string_view(bytes).substr(0, nul));
  auto cfg = npu::system::load_system_config(path, sets);
  auto resolved = npu::system::resolved_config(path, sets);
  if (!cfg) return 0;
  if (!resolved) std::abort();  // what loads, resolves
  const std::string again = npu::fuzz::scratch_file("resolved.json", resolved->dump(2));
  auto cfg2 = npu::system::load_system_config(again, {});
  auto resolved2 = npu::system::resolved_config(again, {});
  if (!cfg2 || !resolved2 || *resolved2 != *resolved) std::abort();  // the resolved form is the same config
  return 0;
}
