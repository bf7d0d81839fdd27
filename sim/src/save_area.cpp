#include "npu/sim/save_area.h"

#include <algorithm>
#include <cstring>

namespace npu::sim {
namespace {

void put(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

uint32_t get(const uint8_t* b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b + at, 4);
  return v;
}

}  // namespace

uint64_t SaveHeader::saved_bytes() const {
  uint64_t n = 0;
  for (const auto& r : ranges) n += r.bytes;
  return n;
}

std::vector<uint8_t> encode_save_header(const SaveHeader& h) {
  std::vector<uint8_t> b(regs::kSaveAreaHeader, 0);
  put(b, 0, kSaveMagic);
  put(b, 4, kSaveVersion);
  put(b, 8, static_cast<uint32_t>(h.saved_bytes()));
  put(b, 12, static_cast<uint32_t>(h.ranges.size()));
  put(b, 16, h.resume_index);
  put(b, 20, h.flags);
  put(b, 24, h.sram_bytes);
  for (size_t i = 0; i < h.ranges.size() && i < kMaxSaveRanges; ++i) {
    put(b, 32 + 8 * i, h.ranges[i].offset);
    put(b, 36 + 8 * i, h.ranges[i].bytes);
  }
  return b;
}

std::optional<SaveHeader> decode_save_header(const uint8_t* b, uint64_t sram_bytes) {
  if (get(b, 0) != kSaveMagic || get(b, 4) != kSaveVersion) return std::nullopt;
  const uint32_t count = get(b, 12);
  if (count > kMaxSaveRanges) return std::nullopt;
  SaveHeader h;
  h.resume_index = get(b, 16);
  h.flags = get(b, 20);
  h.sram_bytes = get(b, 24);
  if (h.sram_bytes != sram_bytes) return std::nullopt;
  for (uint32_t i = 0; i < count; ++i) {
    const SramRange r{get(b, 32 + 8 * i), get(b, 36 + 8 * i)};
    if (uint64_t{r.offset} + r.bytes > sram_bytes) return std::nullopt;
    h.ranges.push_back(r);
  }
  if (h.saved_bytes() != get(b, 8)) return std::nullopt;
  return h;
}

std::vector<SramRange> coalesce_ranges(std::vector<SramRange> ranges, size_t max_ranges) {
  std::erase_if(ranges, [](const SramRange& r) { return r.bytes == 0; });
  std::sort(ranges.begin(), ranges.end(),
            [](const SramRange& a, const SramRange& b) { return a.offset < b.offset; });
  std::vector<SramRange> out;
  for (const auto& r : ranges) {
    if (!out.empty() && uint64_t{r.offset} <= uint64_t{out.back().offset} + out.back().bytes) {
      const uint64_t end =
          std::max(uint64_t{out.back().offset} + out.back().bytes, uint64_t{r.offset} + r.bytes);
      out.back().bytes = static_cast<uint32_t>(end - out.back().offset);
    } else {
      out.push_back(r);
    }
  }
  while (out.size() > std::max<size_t>(1, max_ranges)) {
    size_t best = 0;
    uint64_t best_gap = UINT64_MAX;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      const uint64_t gap = out[i + 1].offset - (uint64_t{out[i].offset} + out[i].bytes);
      if (gap < best_gap) {
        best_gap = gap;
        best = i;
      }
    }
    out[best].bytes =
        static_cast<uint32_t>(uint64_t{out[best + 1].offset} + out[best + 1].bytes - out[best].offset);
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  return out;
}

}  // namespace npu::sim
