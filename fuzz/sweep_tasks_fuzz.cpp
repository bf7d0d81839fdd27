// Slurm tasks.json (npusim sweep --work-dir W --task N): the bytes are the file, parsed as JSON and
// checked field by field as an array task does before running anything. Properties: an error naming
// the file, or a list with at least one task, chunk >= 1 and string args, never a crash or an exception.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "npu/common/file_io.h"
#include "npu/sweep/slurm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!npu::io::check_json_nesting(text)) return 0;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  auto list = npu::sweep::parse_task_list(j, "tasks.json");
  if (!list) {
    if (list.error().rfind("tasks.json: ", 0) != 0) std::abort();
    return 0;
  }
  if (list->tasks.empty() || list->chunk < 1) std::abort();
  for (const auto& t : list->tasks)
    if (t.args.empty()) std::abort();
  return 0;
}
