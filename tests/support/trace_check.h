// Checks a Chrome trace-event JSON document the way Perfetto reads it, for tests: returns what is wrong
// (empty = well-formed). Checked: every event has ph, name and pid; thread events (X, B, E, i) a tid and a
// non-negative ts, X a non-negative dur; every pid and (pid, tid) used is named by metadata; per track ts
// never decreases in file order; per track X spans nest (no partial overlap) and B/E pairs match.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace npu::test {

inline std::vector<std::string> trace_problems(const nlohmann::json& doc) {
  std::vector<std::string> problems;
  auto bad = [&](size_t i, const std::string& what) {
    if (problems.size() < 20) problems.push_back("event " + std::to_string(i) + ": " + what);
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return {"no traceEvents array"};
  using TrackId = std::pair<int64_t, int64_t>;
  std::set<int64_t> named_pids, used_pids;
  std::set<TrackId> named_tracks, used_tracks;
  std::map<TrackId, double> last_ts;
  std::map<TrackId, std::vector<double>> open_x;       // ends of enclosing X spans
  std::map<TrackId, std::vector<std::string>> open_b;  // names of open B events
  const auto& events = doc["traceEvents"];
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string() || !e.contains("name") ||
        !e["name"].is_string() || !e.contains("pid") || !e["pid"].is_number_integer()) {
      bad(i, "needs string ph and name and an integer pid: " + e.dump());
      continue;
    }
    const std::string ph = e["ph"];
    const int64_t pid = e["pid"];
    if (ph == "M") {
      if (e["name"] == "process_name") named_pids.insert(pid);
      if (e["name"] == "thread_name" && e.contains("tid"))
        named_tracks.insert({pid, e["tid"].get<int64_t>()});
      continue;
    }
    used_pids.insert(pid);
    if (!e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() < 0) {
      bad(i, "needs a non-negative ts");
      continue;
    }
    const double ts = e["ts"];
    if (ph == "C") continue;
    if (ph != "X" && ph != "B" && ph != "E" && ph != "i") {
      bad(i, "unexpected ph " + ph);
      continue;
    }
    if (!e.contains("tid") || !e["tid"].is_number_integer()) {
      bad(i, "needs an integer tid");
      continue;
    }
    const TrackId track{pid, e["tid"].get<int64_t>()};
    used_tracks.insert(track);
    if (last_ts.count(track) && ts < last_ts[track]) bad(i, "ts goes backwards on its track");
    last_ts[track] = ts;
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        bad(i, "X needs a non-negative dur");
        continue;
      }
      auto& stack = open_x[track];
      const double end = ts + e["dur"].get<double>();
      constexpr double kEps = 1e-6;  // µs: below the ns resolution of the simulation
      while (!stack.empty() && stack.back() <= ts + kEps) stack.pop_back();
      if (!stack.empty() && end > stack.back() + kEps)
        bad(i, "span " + e["name"].get<std::string>() + " partly overlaps an earlier span on its track");
      stack.push_back(end);
    } else if (ph == "B") {
      open_b[track].push_back(e["name"]);
    } else if (ph == "E") {
      auto& stack = open_b[track];
      if (stack.empty())
        bad(i, "E without B");
      else
        stack.pop_back();
    }
  }
  for (const auto& [track, stack] : open_b)
    if (!stack.empty()) problems.push_back("unclosed B event " + stack.back());
  for (int64_t pid : used_pids)
    if (!named_pids.count(pid)) problems.push_back("pid " + std::to_string(pid) + " has no process_name");
  for (const auto& t : used_tracks)
    if (!named_tracks.count(t)) problems.push_back("tid " + std::to_string(t.second) + " has no thread_name");
  return problems;
}

// The thread names of every track.
inline std::set<std::string> trace_track_names(const nlohmann::json& doc) {
  std::set<std::string> names;
  for (const auto& e : doc["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") names.insert(e["args"]["name"]);
  return names;
}

}  // namespace npu::test
