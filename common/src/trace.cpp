#include "npu/common/trace.h"

#include <fstream>

namespace npu::trace {
namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

uint32_t Tracer::pid_of(const std::string& process) {
  auto [it, inserted] = processes_.emplace(process, static_cast<uint32_t>(processes_.size() + 1));
  if (inserted)
    metadata_.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", it->second}, {"tid", 0},
                         {"args", {{"name", process}}}});
  return it->second;
}

uint32_t Tracer::track(const std::string& process, const std::string& name) {
  const uint32_t pid = pid_of(process);
  const auto tid = static_cast<uint32_t>(tracks_.size() + 1);
  tracks_.push_back({pid, tid});
  metadata_.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  metadata_.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid},
                       {"args", {{"sort_index", tid}}}});
  return static_cast<uint32_t>(tracks_.size() - 1);
}

void Tracer::span(uint32_t t, const std::string& name, uint64_t start_ns, uint64_t duration_ns, nlohmann::json args) {
  const Track& tr = tracks_.at(t);
  events_.push_back({{"ph", "X"}, {"name", name}, {"pid", tr.pid}, {"tid", tr.tid}, {"ts", us(start_ns)},
                     {"dur", us(duration_ns)}, {"args", std::move(args)}});
}

void Tracer::instant(uint32_t t, const std::string& name, uint64_t at_ns, nlohmann::json args) {
  const Track& tr = tracks_.at(t);
  events_.push_back({{"ph", "i"}, {"s", "t"}, {"name", name}, {"pid", tr.pid}, {"tid", tr.tid}, {"ts", us(at_ns)},
                     {"args", std::move(args)}});
}

void Tracer::counter(const std::string& process, const std::string& name, uint64_t at_ns, double value) {
  events_.push_back({{"ph", "C"}, {"name", name}, {"pid", pid_of(process)}, {"ts", us(at_ns)},
                     {"args", {{"value", value}}}});
}

nlohmann::json Tracer::to_json() const {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& m : metadata_) all.push_back(m);
  for (const auto& e : events_) all.push_back(e);
  return {{"traceEvents", all}, {"displayTimeUnit", "ns"}};
}

Result<void> Tracer::write(const std::string& path) const {
  std::ofstream out(path);
  if (!out) return make_error(path + ": cannot write");
  out << to_json().dump() << "\n";
  if (!out) return make_error(path + ": write failed");
  return {};
}

}  // namespace npu::trace
