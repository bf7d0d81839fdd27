// The channel's SRAM hazard scoreboard: the descriptors issued by the command processor and not yet
// completed, each with the SRAM byte ranges it reads and writes (and, for DMA, the device-memory ranges).
// When the command processor issues a descriptor it asks for its dependencies: every in-flight earlier
// descriptor it conflicts with — read-after-write, write-after-read or write-after-write on overlapping
// bytes of the same address space. An engine starts the descriptor only once all of them have retired,
// so any order the engines complete in gives the same bytes as running the descriptors one by one.
// Ranges are byte-exact spans; a strided DMA is recorded as the hull of its rows (conservative: it may
// report a dependency where the rows interleave without touching, never miss one).
// Not a SystemC object: the channel owns it and does the waiting.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/sim/vector_unit.h"

namespace npu::sim {

struct DevRange {
  uint64_t address = 0;
  uint64_t bytes = 0;
};

// What one descriptor touches, in the channel's SRAM and in device memory.
struct Footprint {
  SramFootprint sram;
  std::vector<DevRange> dev_reads, dev_writes;
  // The highest SRAM byte offset written plus one (0 when it writes nothing).
  uint64_t sram_write_end() const;
};

class Scoreboard {
 public:
  // Indices of the in-flight descriptors `fp` conflicts with, in issue order.
  std::vector<uint32_t> dependencies(const Footprint& fp) const;
  // Records descriptor `index` as in flight.
  void issue(uint32_t index, Footprint fp);
  // Removes a completed (or cancelled) descriptor, handing its footprint to `fp` if given; false if it
  // was not in flight.
  bool retire(uint32_t index, Footprint* fp = nullptr);
  bool in_flight(uint32_t index) const;
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  void clear() { entries_.clear(); }
  // The footprint of an in-flight descriptor (nullptr if not in flight).
  const Footprint* footprint(uint32_t index) const;

 private:
  struct Entry {
    uint32_t index;
    Footprint fp;
  };
  std::vector<Entry> entries_;
};

// True when the two footprints must not be reordered (RAW, WAR or WAW on either address space).
bool conflicts(const Footprint& earlier, const Footprint& later);

}  // namespace npu::sim
