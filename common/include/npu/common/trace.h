// Timeline tracing in Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// load. A track is one named row (a channel, a run queue, an app); spans are complete events with a
// start and a duration in simulated nanoseconds. Components hold a Tracer* that may be null (off).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/common/result.h"

namespace npu::trace {

class Tracer {
 public:
  // Tracks are grouped into processes ("npu", "driver", "apps") for display.
  uint32_t track(const std::string& process, const std::string& name);
  void span(uint32_t track, const std::string& name, uint64_t start_ns, uint64_t duration_ns,
            nlohmann::json args = nlohmann::json::object());
  void instant(uint32_t track, const std::string& name, uint64_t at_ns, nlohmann::json args = nlohmann::json::object());
  void counter(const std::string& process, const std::string& name, uint64_t at_ns, double value);

  nlohmann::json to_json() const;
  Result<void> write(const std::string& path) const;
  size_t event_count() const { return events_.size(); }

 private:
  struct Track {
    uint32_t pid, tid;
  };
  uint32_t pid_of(const std::string& process);
  std::map<std::string, uint32_t> processes_;
  std::vector<Track> tracks_;
  std::vector<nlohmann::json> metadata_;
  std::vector<nlohmann::json> events_;
};

}  // namespace npu::trace
