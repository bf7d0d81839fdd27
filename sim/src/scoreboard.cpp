#include "npu/sim/scoreboard.h"

#include <algorithm>

namespace npu::sim {
namespace {

bool overlap_any(const std::vector<SramRange>& a, const std::vector<SramRange>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x.bytes && y.bytes && uint64_t{x.offset} < uint64_t{y.offset} + y.bytes &&
          uint64_t{y.offset} < uint64_t{x.offset} + x.bytes)
        return true;
    }
  }
  return false;
}

bool overlap_any(const std::vector<DevRange>& a, const std::vector<DevRange>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x.bytes && y.bytes && x.address < y.address + y.bytes && y.address < x.address + x.bytes)
        return true;
    }
  }
  return false;
}

template <class Ranges>
bool hazard(const Ranges& earlier_reads, const Ranges& earlier_writes, const Ranges& later_reads,
            const Ranges& later_writes) {
  return overlap_any(earlier_writes, later_reads) ||  // read after write
         overlap_any(earlier_reads, later_writes) ||  // write after read
         overlap_any(earlier_writes, later_writes);   // write after write
}

}  // namespace

uint64_t Footprint::sram_write_end() const {
  uint64_t end = 0;
  for (const auto& w : sram.writes) {
    if (w.bytes) end = std::max(end, uint64_t{w.offset} + w.bytes);
  }
  return end;
}

bool conflicts(const Footprint& earlier, const Footprint& later) {
  return hazard(earlier.sram.reads, earlier.sram.writes, later.sram.reads, later.sram.writes) ||
         hazard(earlier.dev_reads, earlier.dev_writes, later.dev_reads, later.dev_writes);
}

std::vector<uint32_t> Scoreboard::dependencies(const Footprint& fp) const {
  std::vector<uint32_t> deps;
  for (const auto& e : entries_) {
    if (conflicts(e.fp, fp)) deps.push_back(e.index);
  }
  return deps;
}

void Scoreboard::issue(uint32_t index, Footprint fp) { entries_.push_back({index, std::move(fp)}); }

bool Scoreboard::retire(uint32_t index, Footprint* fp) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.index == index; });
  if (it == entries_.end()) return false;
  if (fp) *fp = std::move(it->fp);
  entries_.erase(it);
  return true;
}

bool Scoreboard::in_flight(uint32_t index) const { return footprint(index) != nullptr; }

const Footprint* Scoreboard::footprint(uint32_t index) const {
  for (const auto& e : entries_) {
    if (e.index == index) return &e.fp;
  }
  return nullptr;
}

}  // namespace npu::sim
