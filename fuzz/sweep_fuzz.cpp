// Sweep files (npusim sweep FILE): the bytes are the file, validated as the command does (base configs
// resolve to the shipped presets), and a valid sweep of at most 64 candidate points is expanded as the
// runner would before running it. Properties: an error or a spec, never a crash or an exception; an
// expansion's points are distinct, numbered in order and satisfy no more candidates than there were.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npu/sweep/spec.h"
#include "scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path =
      npu::fuzz::scratch_file("sweep.json", std::string_view(reinterpret_cast<const char*>(data), size));
  auto spec = npu::sweep::load_sweep(path);
  if (!spec) return 0;
  // Each candidate reads the config chain: a bounded grid keeps one input fast.
  uint64_t candidates = spec->samples ? spec->samples : 1;
  for (const auto& a : spec->axes)
    if (!a.continuous) candidates *= std::max<uint64_t>(a.values.size(), 1);
  if (candidates > 64) return 0;
  auto e = npu::sweep::expand(*spec);
  if (!e) return 0;
  if (e->points.size() > e->candidates) std::abort();
  for (size_t i = 0; i < e->points.size(); ++i) {
    if (e->points[i].index < (i ? e->points[i - 1].index + 1 : 0)) std::abort();  // in expansion order
    if (e->points[i].values.size() != spec->axes.size()) std::abort();            // one value per axis
  }
  return 0;
}
