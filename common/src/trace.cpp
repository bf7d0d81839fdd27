#include "npu/common/trace.h"

#include <algorithm>

#include "npu/common/file_io.h"

namespace npu::trace {
namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

nlohmann::json thread_metadata(uint32_t pid, uint32_t tid, const std::string& name, uint32_t sort_index) {
  return nlohmann::json::array(
      {{{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}},
       {{"ph", "M"},
        {"name", "thread_sort_index"},
        {"pid", pid},
        {"tid", tid},
        {"args", {{"sort_index", sort_index}}}}});
}

}  // namespace

uint32_t Tracer::pid_of(const std::string& process) {
  return processes_.emplace(process, static_cast<uint32_t>(processes_.size() + 1)).first->second;
}

uint32_t Tracer::track(const std::string& process, const std::string& name) {
  const uint32_t pid = pid_of(process);
  tracks_.push_back({pid, static_cast<uint32_t>(tracks_.size() + 1), name});
  return static_cast<uint32_t>(tracks_.size() - 1);
}

void Tracer::span(uint32_t t, const std::string& name, uint64_t start_ns, uint64_t duration_ns,
                  nlohmann::json args) {
  (void)tracks_.at(t);
  if (!recording_) return;
  events_.push_back({Kind::Span, t, 0, name, start_ns, duration_ns, std::move(args)});
}

void Tracer::instant(uint32_t t, const std::string& name, uint64_t at_ns, nlohmann::json args) {
  (void)tracks_.at(t);
  if (!recording_) return;
  events_.push_back({Kind::Instant, t, 0, name, at_ns, 0, std::move(args)});
}

void Tracer::counter(const std::string& process, const std::string& name, uint64_t at_ns, double value) {
  if (!recording_) return;
  events_.push_back({Kind::Counter, 0, pid_of(process), name, at_ns, 0, {{"value", value}}});
}

nlohmann::json Tracer::to_json() const {
  // Time order; at one instant the longer span first, so an enclosing span precedes what it encloses.
  std::vector<size_t> order(events_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    const Event &x = events_[a], &y = events_[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.duration_ns > y.duration_ns;
  });

  // Row of every span: the first row of its track where it nests (each row keeps a stack of the ends of
  // the spans open at the current time). Row 0 is the track itself; others are overflow rows.
  std::vector<std::vector<std::vector<uint64_t>>> open(tracks_.size());  // track → row → stack of ends
  std::vector<uint32_t> row_of(events_.size(), 0);
  for (size_t i : order) {
    const Event& e = events_[i];
    if (e.kind != Kind::Span) continue;
    auto& rows = open[e.track];
    const uint64_t end = e.start_ns + e.duration_ns;
    uint32_t r = 0;
    for (;; ++r) {
      if (r == rows.size()) rows.emplace_back();
      auto& stack = rows[r];
      while (!stack.empty() && stack.back() <= e.start_ns) stack.pop_back();
      if (stack.empty() || end <= stack.back()) {
        stack.push_back(end);
        break;
      }
    }
    row_of[i] = r;
  }

  nlohmann::json all = nlohmann::json::array();
  for (const auto& [name, pid] : processes_)
    all.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  // Overflow rows get thread ids after every track's, and sort right below their track.
  std::vector<std::vector<uint32_t>> tid_of(tracks_.size());
  uint32_t next_tid = static_cast<uint32_t>(tracks_.size() + 1);
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const Track& tr = tracks_[t];
    const uint32_t sort_base = tr.tid * 1000;
    for (const auto& m : thread_metadata(tr.pid, tr.tid, tr.name, sort_base)) all.push_back(m);
    tid_of[t].push_back(tr.tid);
    for (size_t r = 1; r < open[t].size(); ++r) {
      tid_of[t].push_back(next_tid);
      for (const auto& m : thread_metadata(tr.pid, next_tid, tr.name + " (" + std::to_string(r + 1) + ")",
                                           sort_base + static_cast<uint32_t>(r)))
        all.push_back(m);
      ++next_tid;
    }
  }
  for (size_t i : order) {
    const Event& e = events_[i];
    switch (e.kind) {
      case Kind::Span:
        all.push_back({{"ph", "X"},
                       {"name", e.name},
                       {"pid", tracks_[e.track].pid},
                       {"tid", tid_of[e.track][row_of[i]]},
                       {"ts", us(e.start_ns)},
                       {"dur", us(e.duration_ns)},
                       {"args", e.args}});
        break;
      case Kind::Instant:
        all.push_back({{"ph", "i"},
                       {"s", "t"},
                       {"name", e.name},
                       {"pid", tracks_[e.track].pid},
                       {"tid", tracks_[e.track].tid},
                       {"ts", us(e.start_ns)},
                       {"args", e.args}});
        break;
      case Kind::Counter:
        all.push_back(
            {{"ph", "C"}, {"name", e.name}, {"pid", e.pid}, {"ts", us(e.start_ns)}, {"args", e.args}});
        break;
    }
  }
  return {{"traceEvents", all}, {"displayTimeUnit", "ns"}};
}

Result<void> Tracer::write(const std::string& path) const {
  return io::write_file_atomic(path, to_json().dump() + "\n");
}

}  // namespace npu::trace
