#include "npu/common/stats.h"

#include <stdexcept>

namespace npu::stats {

Registry::Entry& Registry::add(const std::string& path, std::string unit, std::string description,
                               bool is_counter) {
  for (auto& e : entries_) {
    // Registering a path twice is a programming error in a component's constructor.
    if (e.path == path) throw std::logic_error("stat registered twice: " + path);
  }
  entries_.push_back({path, std::move(unit), std::move(description), is_counter});
  return entries_.back();
}

uint64_t& Registry::counter(const std::string& path, std::string unit, std::string description) {
  return add(path, std::move(unit), std::move(description), true).u;
}

double& Registry::value(const std::string& path, std::string unit, std::string description) {
  return add(path, std::move(unit), std::move(description), false).d;
}

nlohmann::json Registry::to_json(bool with_meta) const {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& e : entries_) {
    std::string pointer = "/" + e.path;
    for (auto& c : pointer) {
      if (c == '.') c = '/';
    }
    nlohmann::json v = e.is_counter ? nlohmann::json(e.u) : nlohmann::json(e.d);
    if (with_meta) v = {{"value", v}, {"unit", e.unit}, {"description", e.description}};
    root[nlohmann::json::json_pointer(pointer)] = v;
  }
  return root;
}

const uint64_t* Registry::find_counter(const std::string& path) const {
  for (const auto& e : entries_) {
    if (e.path == path && e.is_counter) return &e.u;
  }
  return nullptr;
}

const double* Registry::find_value(const std::string& path) const {
  for (const auto& e : entries_) {
    if (e.path == path && !e.is_counter) return &e.d;
  }
  return nullptr;
}

}  // namespace npu::stats
