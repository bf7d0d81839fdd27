// Scenario files (npusim scenario FILE): the bytes are the file, read and validated as the command does,
// with relative hardware paths resolving to the shipped presets. Properties: an error naming the file or
// a scenario, never a crash or an exception; a valid scenario's open-loop arrivals stay within the
// documented limit.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npu/scenario/scenario.h"
#include "scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path =
      npu::fuzz::scratch_file("scenario.json", std::string_view(reinterpret_cast<const char*>(data), size));
  auto s = npu::scenario::load_scenario(path);
  if (!s) {
    if (s.error().empty()) std::abort();
    return 0;
  }
  double arrivals = 0;
  for (const auto& app : s->apps) arrivals += npu::scenario::expected_arrivals(app.workload, s->duration_s);
  if (!(arrivals <= npu::scenario::kMaxArrivals)) std::abort();
  return 0;
}
