#include "npu/scenario/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "npu/drv/driver.h"

namespace npu::scenario {
namespace {

using nlohmann::json;

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// Rounds for the JSON so that the file is stable and readable (the values are deterministic anyway).
double r6(double v) { return std::round(v * 1e6) / 1e6; }

json opt(const std::optional<double>& v) { return v ? json(r6(*v)) : json(nullptr); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_opt(const char* f, const std::optional<double>& v) { return v ? fmt(f, *v) : "-"; }

// Requests of `shared` whose isolated counterpart completed: how many, and how many of them completed
// in the shared run within `factor` × the isolated turnaround.
std::pair<uint32_t, uint32_t> sla_counts(const AppRun& shared, const AppRun* isolated, const RunResult& run,
                                         double factor) {
  if (!isolated) return {0, 0};
  std::map<uint32_t, const RequestRecord*> alone;
  for (const auto& r : isolated->requests)
    if (!r.dropped && r.end_ns > r.arrival_ns) alone[r.seq] = &r;
  std::map<uint32_t, const RequestRecord*> mine;
  for (const auto& r : shared.requests) mine[r.seq] = &r;
  const uint64_t end_ns = static_cast<uint64_t>(std::llround(run.duration_s * 1e9));
  uint32_t judged = 0, met = 0;
  for (const auto& [seq, iso] : alone) {
    const double limit = factor * static_cast<double>(iso->end_ns - iso->arrival_ns);
    auto it = mine.find(seq);
    if (it == mine.end()) {
      // Not finished in the shared run: a failure once its limit had passed by the end, else not judged.
      if (static_cast<double>(iso->arrival_ns) + limit <= static_cast<double>(end_ns)) ++judged;
      continue;
    }
    ++judged;
    const RequestRecord& r = *it->second;
    if (!r.dropped && static_cast<double>(r.end_ns - r.arrival_ns) <= limit) ++met;
  }
  return {judged, met};
}

std::optional<double> app_ntt(const AppRun& shared, const AppRun* isolated) {
  if (!isolated) return std::nullopt;
  std::map<uint32_t, const RequestRecord*> alone;
  for (const auto& r : isolated->requests)
    if (!r.dropped) alone[r.seq] = &r;
  double sum = 0;
  uint32_t n = 0;
  for (const auto& r : shared.requests) {
    if (r.dropped) continue;
    auto it = alone.find(r.seq);
    if (it == alone.end()) continue;
    const double iso = static_cast<double>(it->second->end_ns - it->second->arrival_ns);
    if (iso <= 0) continue;
    sum += static_cast<double>(r.end_ns - r.arrival_ns) / iso;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

}  // namespace

const AppMetrics* Metrics::app(const std::string& name) const {
  for (const auto& a : apps)
    if (a.name == name) return &a;
  return nullptr;
}

double Metrics::share_of_leftover(const std::string& name) const {
  const AppMetrics* me = app(name);
  if (!me || duration_s <= 0) return 0;
  double others = 0;
  for (const auto& a : apps)
    if (a.name != name) others += a.npu_s;
  const double left = me->loaded_s * (channels - others / duration_s);
  return left > 0 ? me->npu_s / left : 0;
}

Metrics compute_metrics(const RunResult& shared, const std::map<int, RunResult>& isolated,
                        double sla_factor) {
  Metrics m;
  m.sla_factor = sla_factor;
  uint32_t sla_judged = 0, sla_met = 0, completed_all = 0;
  std::map<std::string, std::vector<double>> by_priority;
  m.scenario = shared.scenario;
  m.policy = shared.policy;
  m.duration_s = shared.duration_s;
  m.channels = shared.channels;
  std::vector<double> np;
  bool all_ntt = !shared.apps.empty();
  for (const AppRun& a : shared.apps) {
    AppMetrics am;
    am.name = a.name;
    am.uid = a.uid;
    am.arrivals = a.arrivals;
    am.loads = a.loads;
    am.unloads = a.unloads;
    am.load_requests = a.load_requests;
    am.load_wait_ms = a.load_wait_ns / 1e6;
    am.load_wait_since_promotion_ms = a.load_wait_since_promotion_ns / 1e6;
    am.load_ms = a.load_ns / 1e6;
    am.approvals = a.approvals;
    am.errors = static_cast<uint32_t>(a.errors.size());
    if (!a.errors.empty()) am.first_error = a.errors.front();
    std::vector<double> lat;
    for (const auto& r : a.requests) {
      if (r.deadline_ns) ++am.with_deadline;
      if (r.dropped) ++am.dropped;
      if (r.missed) ++am.missed;
      if (!r.dropped) {
        ++am.completed;
        lat.push_back((r.end_ns - r.arrival_ns) / 1e6);
      }
    }
    am.preemptions = a.preemptions;
    am.loaded_s = a.first_loaded_ns ? shared.duration_s - a.first_loaded_ns / 1e9 : 0;
    am.npu_s = shared.clock_mhz > 0 ? a.device_cycles / (shared.clock_mhz * 1e6) : 0;
    am.energy_j = a.energy_pj * 1e-12;
    std::sort(lat.begin(), lat.end());
    am.p50_ms = percentile(lat, 50);
    am.p99_ms = percentile(lat, 99);
    for (double l : lat) am.mean_ms += l / static_cast<double>(lat.size());
    am.miss_rate = am.with_deadline ? static_cast<double>(am.missed) / am.with_deadline : 0;
    const RunResult* iso = nullptr;
    if (auto it = isolated.find(a.uid); it != isolated.end()) iso = &it->second;
    const AppRun* iso_app = nullptr;
    if (iso)
      for (const auto& ia : iso->apps)
        if (ia.uid == a.uid) iso_app = &ia;
    am.ntt = app_ntt(a, iso_app);
    const auto [judged, met] = sla_counts(a, iso_app, shared, sla_factor);
    sla_judged += judged;
    sla_met += met;
    am.priority = a.priority;
    auto& group = by_priority[a.priority];
    group.insert(group.end(), lat.begin(), lat.end());
    completed_all += am.completed;
    am.energy_per_request_mj = am.completed ? am.energy_j * 1e3 / am.completed : 0;
    if (am.ntt && *am.ntt > 0)
      np.push_back(1.0 / *am.ntt);
    else
      all_ntt = false;
    m.apps.push_back(am);
  }
  if (all_ntt) {
    double sum_ntt = 0;
    for (const auto& a : m.apps) sum_ntt += *a.ntt;
    m.antt = sum_ntt / m.apps.size();
    double stp = 0;
    for (double p : np) stp += p;
    m.stp = stp;
    m.fairness = *std::min_element(np.begin(), np.end()) / *std::max_element(np.begin(), np.end());
  }
  if (!isolated.empty() && sla_judged) m.sla_satisfaction = static_cast<double>(sla_met) / sla_judged;
  for (auto& [priority, lat] : by_priority) {
    std::sort(lat.begin(), lat.end());
    PriorityTail t;
    t.priority = priority;
    t.completed = static_cast<uint32_t>(lat.size());
    t.p50_ms = percentile(lat, 50);
    t.p99_ms = percentile(lat, 99);
    t.max_ms = lat.empty() ? 0 : lat.back();
    m.tails.push_back(t);
  }
  // Most urgent first: importance in its declared order, then the job priority.
  auto rank = [](const std::string& p) {
    static const char* kOrder[] = {"FOREGROUND", "VISIBLE", "SERVICE", "BACKGROUND", "CACHED"};
    const std::string imp = p.substr(0, p.find('/'));
    int i = 0;
    while (i < 5 && imp != kOrder[i]) ++i;
    return std::make_pair(i, std::atoi(p.c_str() + std::min(p.size(), p.find('/') + 1)));
  };
  std::stable_sort(m.tails.begin(), m.tails.end(), [&](const PriorityTail& a, const PriorityTail& b) {
    return rank(a.priority) < rank(b.priority);
  });
  m.energy_per_inference_mj = completed_all ? shared.energy_j * 1e3 / completed_all : 0;
  m.killed_work_ms = shared.killed_work / 1e6;
  m.preempt_overhead_ms = shared.preempt_latency_ns / 1e6 + m.killed_work_ms;
  m.preemptions = shared.preemptions;
  m.preempt_latency_ms = shared.preempt_latency_ns / 1e6;
  m.preempt_saved_mib = shared.preempt_saved_bytes / (1024.0 * 1024.0);
  m.energy_j = shared.energy_j;
  m.peak_junction_c = shared.peak_junction_c;
  m.peak_skin_c = shared.peak_skin_c;
  m.severity_s = shared.severity_s;
  m.dvfs_changes = shared.dvfs_changes;
  // Throttled: the clock below the fastest operating point (not merely below the fastest clock seen: a
  // run may never reach it), each sample standing for the time up to the next one or the end.
  double fastest = shared.fastest_mhz;
  for (const auto& s : shared.samples) fastest = std::max(fastest, s.mhz);
  for (size_t i = 0; i < shared.samples.size(); ++i) {
    const double next_s =
        i + 1 < shared.samples.size() ? shared.samples[i + 1].t_ns / 1e9 : shared.duration_s;
    if (shared.samples[i].mhz < fastest)
      m.throttled_s += std::max(0.0, next_s - shared.samples[i].t_ns / 1e9);
  }
  return m;
}

json Metrics::to_json() const {
  json j = {{"scenario", scenario},
            {"policy", policy},
            {"duration_s", r6(duration_s)},
            {"antt", opt(antt)},
            {"stp", opt(stp)},
            {"fairness", opt(fairness)},
            {"preemptions", preemptions},
            {"preempt_latency_ms", r6(preempt_latency_ms)},
            {"preempt_saved_mib", r6(preempt_saved_mib)},
            {"killed_work_ms", r6(killed_work_ms)},
            {"preempt_overhead_ms", r6(preempt_overhead_ms)},
            {"sla_factor", r6(sla_factor)},
            {"sla_satisfaction", opt(sla_satisfaction)},
            {"energy_per_inference_mj", r6(energy_per_inference_mj)},
            {"energy_j", r6(energy_j)},
            {"peak_junction_c", r6(peak_junction_c)},
            {"peak_skin_c", r6(peak_skin_c)},
            {"throttled_s", r6(throttled_s)},
            {"dvfs_changes", dvfs_changes}};
  for (size_t i = 0; i < severity_s.size(); ++i)
    j["time_at_severity_s"][drv::to_string(static_cast<drv::ThermalSeverity>(i))] = r6(severity_s[i]);
  j["tail_latency_by_priority"] = json::array();
  for (const auto& t : tails)
    j["tail_latency_by_priority"].push_back({{"priority", t.priority},
                                             {"completed", t.completed},
                                             {"p50_ms", r6(t.p50_ms)},
                                             {"p99_ms", r6(t.p99_ms)},
                                             {"max_ms", r6(t.max_ms)}});
  j["apps"] = json::array();
  for (const auto& a : apps)
    j["apps"].push_back({{"name", a.name},
                         {"uid", a.uid},
                         {"arrivals", a.arrivals},
                         {"completed", a.completed},
                         {"dropped", a.dropped},
                         {"missed", a.missed},
                         {"deadline_miss_rate", r6(a.miss_rate)},
                         {"p50_ms", r6(a.p50_ms)},
                         {"p99_ms", r6(a.p99_ms)},
                         {"mean_ms", r6(a.mean_ms)},
                         {"ntt", opt(a.ntt)},
                         {"preemptions", a.preemptions},
                         {"npu_s", r6(a.npu_s)},
                         {"share_of_leftover_npu", r6(share_of_leftover(a.name))},
                         {"energy_j", r6(a.energy_j)},
                         {"priority", a.priority},
                         {"energy_per_request_mj", r6(a.energy_per_request_mj)},
                         {"load_requests", a.load_requests},
                         {"loads", a.loads},
                         {"unloads", a.unloads},
                         {"load_wait_ms", r6(a.load_wait_ms)},
                         {"load_wait_since_promotion_ms", r6(a.load_wait_since_promotion_ms)},
                         {"load_ms", r6(a.load_ms)},
                         {"approvals", a.approvals},
                         {"errors", a.errors},
                         {"first_error", a.first_error}});
  return j;
}

std::vector<std::string> unserved_apps(const Metrics& m) {
  std::vector<std::string> out;
  for (const auto& a : m.apps)
    if (a.approvals > 0 && a.completed == 0 && a.errors > 0)
      out.push_back("app \"" + a.name + "\" (policy " + m.policy + ") was approved " +
                    std::to_string(a.approvals) + " time(s) but completed no request; " +
                    std::to_string(a.errors) + " failure(s), the first: " + a.first_error);
  return out;
}

std::string comparison_table(const std::vector<Metrics>& runs) {
  if (runs.empty()) return "";
  std::string out;
  auto cell = [&out](const std::string& s, size_t w) {
    out += s;
    if (s.size() < w) out += std::string(w - s.size(), ' ');
    out += ' ';
  };
  // Ratios against the non-preemptive FCFS run when there is one (PREMA's way of reporting).
  const Metrics* fcfs = nullptr;
  for (const auto& m : runs)
    if (m.policy == "fcfs") fcfs = &m;
  auto ratio = [](const std::optional<double>& v,
                  const std::optional<double>& base) -> std::optional<double> {
    if (!v || !base || *base == 0) return std::nullopt;
    return *v / *base;
  };
  cell("policy", 8), cell("ANTT", 6), cell("STP", 6), cell("fair", 5),
      cell("SLA<=" + fmt("%gx", runs.front().sla_factor), 8);
  if (fcfs) cell("ANTT/fcfs", 9), cell("STP/fcfs", 8), cell("fair/fcfs", 9);
  for (const auto& a : runs.front().apps) cell(a.name + " miss% / p99 ms / NPU s", 30);
  cell("preempt", 8), cell("overhead ms", 11), cell("ckpt MiB", 9), cell("energy J", 9), cell("mJ/inf", 7),
      cell("Tj max", 7), cell("skin max", 8), cell("throttled s", 11), cell("worst severity", 14);
  out += "\n";
  for (const auto& m : runs) {
    cell(m.policy, 8), cell(fmt_opt("%.2f", m.antt), 6), cell(fmt_opt("%.2f", m.stp), 6),
        cell(fmt_opt("%.2f", m.fairness), 5),
        cell(m.sla_satisfaction ? fmt("%.1f%%", 100 * *m.sla_satisfaction) : std::string("-"), 8);
    if (fcfs)
      cell(fmt_opt("%.2fx", ratio(m.antt, fcfs->antt)), 9),
          cell(fmt_opt("%.2fx", ratio(m.stp, fcfs->stp)), 8),
          cell(fmt_opt("%.2fx", ratio(m.fairness, fcfs->fairness)), 9);
    for (const auto& a : m.apps)
      cell((a.with_deadline ? fmt("%.1f", 100 * a.miss_rate) : std::string("-")) + " / " +
               fmt("%.1f", a.p99_ms) + " / " + fmt("%.2f", a.npu_s),
           30);
    int worst = 0;
    for (int i = 0; i < 7; ++i)
      if (m.severity_s[i] > 0) worst = i;
    cell(std::to_string(m.preemptions), 8), cell(fmt("%.1f", m.preempt_overhead_ms), 11),
        cell(fmt("%.1f", m.preempt_saved_mib), 9), cell(fmt("%.2f", m.energy_j), 9),
        cell(fmt("%.2f", m.energy_per_inference_mj), 7), cell(fmt("%.1f", m.peak_junction_c), 7),
        cell(fmt("%.1f", m.peak_skin_c), 8), cell(fmt("%.2f", m.throttled_s), 11),
        cell(drv::to_string(static_cast<drv::ThermalSeverity>(worst)), 14);
    out += "\n";
  }
  return out;
}

std::string app_table(const Metrics& m) {
  std::string out;
  char line[512];
  // "load wait": every load request's wait for CAN_LOAD_NOW; "since promo": the same counted from the
  // app's last promotion when that came later (its wait while less important left out).
  std::snprintf(line, sizeof line, "%-14s %6s %6s %6s %7s %9s %9s %6s %8s %8s %6s %6s %11s %11s %6s\n", "app",
                "arrive", "done", "missed", "miss%", "p50 ms", "p99 ms", "NTT", "preempt", "NPU s", "loads",
                "unload", "load wait", "since promo", "failed");
  out += line;
  for (const auto& a : m.apps) {
    std::snprintf(line, sizeof line,
                  "%-14s %6u %6u %6u %7s %9.2f %9.2f %6s %8u %8.3f %6u %6u %8.1f ms %8.1f ms %6u\n",
                  a.name.c_str(), a.arrivals, a.completed, a.missed,
                  a.with_deadline ? fmt("%.2f", 100 * a.miss_rate).c_str() : "-", a.p50_ms, a.p99_ms,
                  fmt_opt("%.2f", a.ntt).c_str(), a.preemptions, a.npu_s, a.loads, a.unloads, a.load_wait_ms,
                  a.load_wait_since_promotion_ms, a.errors);
    out += line;
  }
  out += "\npriority              done    p50 ms    p99 ms    max ms\n";
  for (const auto& t : m.tails) {
    std::snprintf(line, sizeof line, "%-20s %6u %9.2f %9.2f %9.2f\n", t.priority.c_str(), t.completed,
                  t.p50_ms, t.p99_ms, t.max_ms);
    out += line;
  }
  // Failures are never silent: each failing app's first error under the table.
  for (const auto& a : m.apps)
    if (a.errors)
      out += a.name + ": " + std::to_string(a.errors) + " failure(s), the first: " + a.first_error + "\n";
  return out;
}

}  // namespace npu::scenario
