// A stats tree: each statistic is registered once with its dotted path (the component's instance name
// plus the stat, e.g. `npu.ch0.busy_cycles`), unit and description, and dumped as nested JSON.
// Components keep a reference to their counters; the registry owns the storage (stable addresses).
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>

namespace npu::stats {

class Registry {
 public:
  uint64_t& counter(const std::string& path, std::string unit, std::string description);
  double& value(const std::string& path, std::string unit, std::string description);

  // {"npu": {"ch0": {"busy_cycles": 123}}}; with_meta adds {"value", "unit", "description"} leaves.
  nlohmann::json to_json(bool with_meta = false) const;
  // Value of a registered stat, or nullptr.
  const uint64_t* find_counter(const std::string& path) const;
  const double* find_value(const std::string& path) const;

 private:
  struct Entry {
    std::string path, unit, description;
    bool is_counter;
    uint64_t u = 0;
    double d = 0;
  };
  Entry& add(const std::string& path, std::string unit, std::string description, bool is_counter);
  std::deque<Entry> entries_;  // deque: stable references
};

}  // namespace npu::stats
