#include "npu/scenario/jobs_table.h"

#include <cinttypes>
#include <cstdio>

namespace npu::scenario {
namespace {

// Simulated ns as ms with every digit kept (6 decimals: exact).
std::string ms(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);
  return buf;
}

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string jobs_csv_header() {
  return "policy,app,uid,priority,model,workload,request,arrival_ms,start_ms,end_ms,turnaround_ms,isolated_"
         "ms,"
         "slowdown,deadline_ms,outcome,jobs,preemptions,device_us,energy_uj\n";
}

std::string jobs_csv_rows(const Scenario& scenario, const RunResult& shared,
                          const std::map<int, RunResult>& isolated) {
  std::map<int, const AppSpec*> specs;
  for (const auto& a : scenario.apps) specs[a.uid] = &a;
  std::string csv;
  for (const AppRun& app : shared.apps) {
    const AppSpec* spec = specs.count(app.uid) ? specs[app.uid] : nullptr;
    // The isolated run's completed requests, matched by arrival order as the NTT is (metrics.h).
    std::map<uint32_t, const RequestRecord*> alone;
    if (auto it = isolated.find(app.uid); it != isolated.end())
      for (const AppRun& a : it->second.apps)
        if (a.uid == app.uid)
          for (const auto& r : a.requests)
            if (!r.dropped) alone[r.seq] = &r;
    for (const RequestRecord& r : app.requests) {
      const bool completed = !r.dropped;
      const uint64_t turnaround = completed ? r.end_ns - r.arrival_ns : 0;
      const auto iso = alone.find(r.seq);
      const uint64_t isolated_ns = iso == alone.end() ? 0 : iso->second->end_ns - iso->second->arrival_ns;
      const char* outcome = r.dropped        ? "dropped"
                            : !r.deadline_ns ? "no_deadline"
                            : r.missed       ? "missed"
                                             : "met";
      // Busy channel cycles at the run's nominal clock, as the metrics' NPU time is counted.
      const double device_us =
          shared.clock_mhz > 0 ? static_cast<double>(r.device_cycles) / shared.clock_mhz : 0;
      csv += field(shared.policy) + "," + field(app.name) + "," + std::to_string(app.uid) + "," +
             field(app.priority) + "," + field(spec ? spec->model.name : "") + "," +
             (spec ? to_string(spec->workload.kind) : "") + "," + std::to_string(r.seq) + "," +
             ms(r.arrival_ns) + "," + (completed ? ms(r.start_ns) : "") + "," +
             (completed ? ms(r.end_ns) : "") + "," + (completed ? ms(turnaround) : "") + "," +
             (isolated_ns ? ms(isolated_ns) : "") + "," +
             (completed && isolated_ns
                  ? number("%.6f", static_cast<double>(turnaround) / static_cast<double>(isolated_ns))
                  : "") +
             "," + (r.deadline_ns ? ms(r.deadline_ns) : "") + "," + outcome + "," + std::to_string(r.jobs) +
             "," + std::to_string(r.preemptions) + "," + number("%.3f", device_us) + "," +
             number("%.6f", static_cast<double>(r.energy_pj) * 1e-6) + "\n";
    }
  }
  return csv;
}

}  // namespace npu::scenario
