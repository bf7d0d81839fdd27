// Timeline tracing in Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// load. A track is one named row (a channel, a DMA engine, a run queue, an app); spans are complete
// ("X") events with a start and a duration in simulated nanoseconds. Components hold a Tracer* that may
// be null (off).
//
// The written file is well-formed for Perfetto whatever order and overlap the components record: events
// are sorted by time, and spans on one track nest properly — a span that partly overlaps another on its
// track (two jobs waiting in one queue, say) moves to an overflow row named "<track> (2)", "(3)", ...
// beside it. It does not merge or drop spans.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::trace {

class Tracer {
 public:
  // Tracks are grouped into processes ("npu", "driver", "apps") for display.
  uint32_t track(const std::string& process, const std::string& name);
  void span(uint32_t track, const std::string& name, uint64_t start_ns, uint64_t duration_ns,
            nlohmann::json args = nlohmann::json::object());
  void instant(uint32_t track, const std::string& name, uint64_t at_ns,
               nlohmann::json args = nlohmann::json::object());
  void counter(const std::string& process, const std::string& name, uint64_t at_ns, double value);
  // Off: spans, instants and counters are dropped (tracks are still declared), so a caller can keep the
  // events of one part of a long run only (npusim bench traces its first timed iteration).
  void set_recording(bool on) { recording_ = on; }

  nlohmann::json to_json() const;
  Result<void> write(const std::string& path) const;
  size_t event_count() const { return events_.size(); }

 private:
  struct Track {
    uint32_t pid, tid;
    std::string name;
  };
  enum class Kind : uint8_t { Span, Instant, Counter };
  struct Event {
    Kind kind;
    uint32_t track;  // Span, Instant
    uint32_t pid;    // Counter
    std::string name;
    uint64_t start_ns, duration_ns;
    nlohmann::json args;
  };
  uint32_t pid_of(const std::string& process);
  std::map<std::string, uint32_t> processes_;
  std::vector<Track> tracks_;
  std::vector<Event> events_;
  bool recording_ = true;
};

}  // namespace npu::trace
