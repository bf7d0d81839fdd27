#include "npu/scenario/runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>

#include "npu/common/file_io.h"
#include "npu/common/interrupt.h"
#include "npu/hal/device.h"
#include "npu/scenario/baselines.h"
#include "npu/scenario/models.h"
#include "npu/scenario/tenant_app.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"

namespace npu::scenario {
namespace {

using nlohmann::json;

uint64_t s_to_ns(double s) { return static_cast<uint64_t>(std::llround(s * 1e9)); }

// Channel spans of the driver's timeline ("driver" process, tracks "chN"), attributed to apps by the
// job label ("<app name> <what>").
std::vector<ChannelSpan> channel_spans(const json& trace, const std::vector<AppSpec>& apps) {
  std::map<std::pair<int, int>, uint32_t> channel_of;  // (pid, tid) → channel
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "M" || e.value("name", "") != "thread_name") continue;
    const std::string n = e["args"].value("name", "");
    if (n.size() > 2 && n.rfind("ch", 0) == 0 && std::isdigit(static_cast<unsigned char>(n[2])))
      channel_of[{e["pid"].get<int>(), e["tid"].get<int>()}] = static_cast<uint32_t>(std::stoul(n.substr(2)));
  }
  std::vector<ChannelSpan> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    auto it = channel_of.find({e["pid"].get<int>(), e["tid"].get<int>()});
    if (it == channel_of.end()) continue;
    const std::string label = e.value("name", "");
    // The longest name that prefixes the label: "cam" must not take "cam b request".
    int uid = -1;
    size_t matched = 0;
    for (const auto& a : apps)
      if (label.rfind(a.name + " ", 0) == 0 && a.name.size() >= matched) {
        uid = a.uid;
        matched = a.name.size();
      }
    if (uid < 0) continue;
    const double ts_us = e["ts"].get<double>(), dur_us = e["dur"].get<double>();
    out.push_back({it->second, static_cast<uint64_t>(std::llround(ts_us * 1000)),
                   static_cast<uint64_t>(std::llround((ts_us + dur_us) * 1000)), uid});
  }
  std::sort(out.begin(), out.end(), [](const ChannelSpan& a, const ChannelSpan& b) {
    return std::tie(a.start_ns, a.channel) < std::tie(b.start_ns, b.channel);
  });
  return out;
}

double stat_value(const stats::Registry& r, const std::string& path) {
  if (const double* v = r.find_value(path)) return *v;
  if (const uint64_t* c = r.find_counter(path)) return static_cast<double>(*c);
  return 0;
}

json span_json(const Span& s) { return {s.start_ns, s.end_ns, s.what}; }

// The scenario with every point in time of the file (duration, workload start and stop, importance
// changes, events) multiplied by `scale`. Periods, rates, deadlines and think times stay: they are the
// apps' own pace, which a shorter run must not change.
Scenario scaled(Scenario s, double scale) {
  s.duration_s *= scale;
  for (AppSpec& a : s.apps) {
    a.workload.start_s *= scale;
    if (a.workload.stop_s >= 0) a.workload.stop_s *= scale;
    for (ImportanceChange& c : a.importance) c.at_s *= scale;
  }
  for (EventSpec& e : s.events) {
    e.at_s *= scale;
    e.duration_s *= scale;
  }
  return s;
}

}  // namespace

json RunResult::to_json() const {
  json j;
  j["scenario"] = scenario;
  j["policy"] = policy;
  j["only_uid"] = only_uid;
  j["duration_s"] = duration_s;
  j["channels"] = channels;
  j["clock_mhz"] = clock_mhz;
  j["fastest_mhz"] = fastest_mhz;
  j["trip_points_c"] = json::array();
  for (const auto& [name, c] : trip_points_c) j["trip_points_c"].push_back({{"name", name}, {"c", c}});
  j["preemptions"] = preemptions;
  j["preempt_latency_ns"] = preempt_latency_ns;
  j["preempt_saved_bytes"] = preempt_saved_bytes;
  j["killed_work_ns"] = killed_work;
  j["energy_j"] = energy_j;
  j["peak_junction_c"] = peak_junction_c;
  j["peak_skin_c"] = peak_skin_c;
  j["severity_s"] = severity_s;
  j["dvfs_changes"] = dvfs_changes;
  for (const auto& a : apps) {
    json ja = {{"name", a.name},
               {"uid", a.uid},
               {"priority", a.priority},
               {"arrivals", a.arrivals},
               {"load_requests", a.load_requests},
               {"loads", a.loads},
               {"approvals", a.approvals},
               {"unloads", a.unloads},
               {"load_wait_ns", a.load_wait_ns},
               {"load_wait_since_promotion_ns", a.load_wait_since_promotion_ns},
               {"load_ns", a.load_ns},
               {"errors", a.errors},
               {"device_cycles", a.device_cycles},
               {"first_loaded_ns", a.first_loaded_ns},
               {"energy_pj", a.energy_pj},
               {"preemptions", a.preemptions}};
    for (const auto& r : a.requests)
      ja["requests"].push_back({r.seq, r.arrival_ns, r.start_ns, r.end_ns, r.deadline_ns, r.dropped, r.missed,
                                r.jobs, r.preemptions, r.device_cycles, r.energy_pj});
    if (a.requests.empty()) ja["requests"] = json::array();
    ja["resident"] = json::array();
    for (const auto& s : a.resident) ja["resident"].push_back(span_json(s));
    ja["jobs"] = json::array();
    for (const auto& s : a.jobs) ja["jobs"].push_back(span_json(s));
    j["apps"].push_back(ja);
  }
  j["samples"] = json::array();
  for (const auto& s : samples)
    j["samples"].push_back({s.t_ns, s.junction_c, s.skin_c, s.mhz, s.power_w, s.severity});
  j["channel_spans"] = json::array();
  for (const auto& c : channel_spans) j["channel_spans"].push_back({c.channel, c.start_ns, c.end_ns, c.uid});
  return j;
}

Result<RunResult> RunResult::from_json(const json& j) {
  try {
    RunResult r;
    r.scenario = j.at("scenario");
    r.policy = j.at("policy");
    r.only_uid = j.at("only_uid");
    r.duration_s = j.at("duration_s");
    r.channels = j.at("channels");
    r.clock_mhz = j.at("clock_mhz");
    r.fastest_mhz = j.at("fastest_mhz");
    // Absent from results saved before the reports drew trip points.
    if (j.contains("trip_points_c"))
      for (const auto& t : j.at("trip_points_c")) r.trip_points_c.emplace_back(t.at("name"), t.at("c"));
    r.preemptions = j.at("preemptions");
    r.preempt_latency_ns = j.at("preempt_latency_ns");
    r.preempt_saved_bytes = j.at("preempt_saved_bytes");
    r.killed_work = j.at("killed_work_ns");
    r.energy_j = j.at("energy_j");
    r.peak_junction_c = j.at("peak_junction_c");
    r.peak_skin_c = j.at("peak_skin_c");
    r.severity_s = j.at("severity_s");
    r.dvfs_changes = j.at("dvfs_changes");
    for (const auto& ja : j.at("apps")) {
      AppRun a;
      a.name = ja.at("name");
      a.uid = ja.at("uid");
      a.priority = ja.at("priority");
      a.arrivals = ja.at("arrivals");
      a.load_requests = ja.at("load_requests");
      a.loads = ja.at("loads");
      a.approvals = ja.at("approvals");
      a.unloads = ja.at("unloads");
      a.load_wait_ns = ja.at("load_wait_ns");
      a.load_wait_since_promotion_ns = ja.at("load_wait_since_promotion_ns");
      a.load_ns = ja.at("load_ns");
      a.device_cycles = ja.at("device_cycles");
      a.first_loaded_ns = ja.at("first_loaded_ns");
      a.energy_pj = ja.at("energy_pj");
      a.preemptions = ja.at("preemptions");
      a.errors = ja.at("errors").get<std::vector<std::string>>();
      for (const auto& q : ja.at("requests"))
        a.requests.push_back({q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9], q[10]});
      for (const auto& s : ja.at("resident")) a.resident.push_back({s[0], s[1], s[2]});
      for (const auto& s : ja.at("jobs")) a.jobs.push_back({s[0], s[1], s[2]});
      r.apps.push_back(std::move(a));
    }
    for (const auto& s : j.at("samples")) r.samples.push_back({s[0], s[1], s[2], s[3], s[4], s[5]});
    for (const auto& c : j.at("channel_spans")) r.channel_spans.push_back({c[0], c[1], c[2], c[3]});
    return r;
  } catch (const json::exception& e) {
    return make_error(std::string("run result: ") + e.what());
  }
}

Result<RunResult> run_in_process(const Scenario& file_scenario, const RunOptions& options) {
  const Scenario scenario = scaled(file_scenario, options.duration_scale);
  const std::string policy = options.policy.empty() ? scenario.policy : options.policy;
  const Baseline* baseline = find_baseline(policy);
  if (!baseline) return make_error("--policy: unknown baseline \"" + policy + "\"");
  std::vector<std::string> sets = scenario.hardware_set;
  sets.push_back("npu.thermal.ambient_c=" + std::to_string(scenario.ambient_c));
  for (const auto& o : baseline->overrides) sets.push_back(o);
  auto cfg = system::load_system_config(scenario.hardware, sets);
  if (!cfg) return make_error(scenario.path + ": $.hardware: " + cfg.error());
  // Minutes of heating in seconds of simulation: the package and skin heat up (and cool) `scale` times
  // faster.
  if (options.scale_thermal) cfg->thermal_capacity_scale = options.duration_scale;
  // The channel timeline comes from the driver's trace (one span per command buffer on a channel).
  cfg->trace = options.channel_timeline || !options.trace_path.empty();
  std::vector<const AppSpec*> apps;
  for (const auto& a : scenario.apps)
    if (options.only_uid < 0 || a.uid == options.only_uid) apps.push_back(&a);
  if (apps.empty()) return make_error("no app with uid " + std::to_string(options.only_uid));
  // Each app's model, compiled for the NPU the driver probed (its device-info query, as on silicon).
  auto build_models = [&](const drv::Driver& driver) -> Result<std::vector<RunnableModel>> {
    const hal::NpuTarget target = hal::target_for(driver.device_info());
    std::vector<RunnableModel> models;
    for (const AppSpec* a : apps) {
      auto m = build_model(a->model, target, a->workload.prefill_tokens, scenario.seed,
                           a->workload.prefill_chunk_tokens,
                           a->workload.kind == WorkloadKind::LLM ? a->workload.decode_tokens : 0);
      if (!m) return make_error(scenario.path + ": app \"" + a->name + "\": " + m.error());
      // The driver copies a job's command buffers into its command-buffer space at submit: a job larger
      // than all of it would be refused at every attempt.
      if (const uint64_t bytes = m->max_job_command_bytes(); bytes > driver.command_space_bytes())
        return make_error(
            scenario.path + ": app \"" + a->name + "\": one job of model " + a->model.name + " needs " +
            std::to_string(bytes >> 20) + " MiB of command buffers, more than the driver's " +
            std::to_string(driver.command_space_bytes() >> 20) + " MiB (driver.kernel_reserved_bytes)" +
            (a->model.is_decoder() ? "; lower workload.prefill_chunk_tokens" : ""));
      models.push_back(std::move(*m));
    }
    return models;
  };

  auto sys = system::System::create(*cfg);
  if (!sys) return make_error(sys.error());
  system::System& s = **sys;
  // The NPU model traces every descriptor on every engine: millions of events on a long run. Only on
  // request; the driver's per-buffer channel spans and the apps' tracks stay.
  if (!options.trace_descriptors) s.npu().set_tracer(nullptr);
  const double duration_s = scenario.duration_s;
  const uint64_t end_ns = s_to_ns(duration_s);
  RunResult result;
  result.scenario = scenario.name;
  result.policy = policy;
  result.only_uid = options.only_uid;
  result.duration_s = duration_s;
  std::vector<std::unique_ptr<TenantApp>> tenants;
  std::string error;

  auto ran = s.run(
      [&](system::System& sys_) {
        auto svc = sys_.npu_service();
        if (!svc) {
          error = svc.error();
          return;
        }
        mgr::NpuService& service = **svc;
        drv::Os& os = sys_.os();
        // The NPU as the driver's probe found it.
        const drv::DeviceInfo& info = sys_.driver().device_info();
        result.channels = info.channels;
        result.clock_mhz = info.clock_mhz();
        result.fastest_mhz = info.opps.empty() ? info.clock_mhz() : info.opps.front().mhz;
        for (size_t i = 0; i < info.trip_c.size(); ++i)
          result.trip_points_c.emplace_back(sim::ThermalConfig::kTripNames[i], info.trip_c[i]);
        auto models = build_models(sys_.driver());
        if (!models) {
          error = models.error();
          return;
        }
        for (size_t i = 0; i < apps.size(); ++i) {
          service.set_importance(apps[i]->uid, apps[i]->importance.front().importance);
          hal::NpuDevice& device = sys_.npu_device(apps[i]->uid, 1000 + apps[i]->uid % 1000);
          tenants.push_back(std::make_unique<TenantApp>(device, service, *apps[i], std::move((*models)[i]),
                                                        scenario.seed, end_ns, sys_.tracer()));
        }
        for (auto& t : tenants) t->start();
        // Importance timelines and events, in time order, from this thread.
        struct Timed {
          uint64_t at_ns;
          std::function<void()> act;
        };
        std::vector<Timed> timeline;
        for (const AppSpec* a : apps)
          for (size_t k = 1; k < a->importance.size(); ++k) {
            const int uid = a->uid;
            const mgr::Importance imp = a->importance[k].importance;
            timeline.push_back(
                {s_to_ns(a->importance[k].at_s), [&service, uid, imp] { service.set_importance(uid, imp); }});
          }
        double injected = 0;
        for (const EventSpec& e : scenario.events) {
          const double w = e.watts;
          timeline.push_back({s_to_ns(e.at_s), [&sys_, &injected, w] {
                                injected += w;
                                sys_.npu().inject_thermal_runaway(injected);
                              }});
          if (e.duration_s > 0)
            timeline.push_back({s_to_ns(e.at_s + e.duration_s), [&sys_, &injected, w] {
                                  injected -= w;
                                  sys_.npu().inject_thermal_runaway(std::max(0.0, injected));
                                }});
        }
        std::stable_sort(timeline.begin(), timeline.end(),
                         [](const Timed& a, const Timed& b) { return a.at_ns < b.at_ns; });
        // Sampling thread: temperature, clock, power and severity for the metrics and the report.
        const uint64_t period = s_to_ns(scenario.sample_ms / 1000.0);
        // It outlives this body by a delta cycle: capture nothing of the body's own locals by reference.
        os.spawn("scenario_sampler", [&sys_, &os, &result, period, end_ns, progress = options.on_progress] {
          for (uint64_t t = 0; t < end_ns; t += period) {
            if (os.now_ns() < t) os.delay_ns(t - os.now_ns());
            if (progress) progress(static_cast<double>(t) / static_cast<double>(end_ns));
            const auto& rc = sys_.npu().thermal().rc();
            const auto& dvfs = sys_.npu().dvfs();
            result.samples.push_back(
                {t, rc.junction_c(), rc.temperature_c(2), dvfs.point(dvfs.current_point()).mhz,
                 sys_.npu().thermal().last_power_w(), static_cast<int>(sys_.driver().thermal_severity())});
          }
        });
        for (const Timed& t : timeline) {
          if (t.at_ns >= end_ns) break;
          if (os.now_ns() < t.at_ns) os.delay_ns(t.at_ns - os.now_ns());
          t.act();
        }
        if (os.now_ns() < end_ns) os.delay_ns(end_ns - os.now_ns());
        // Buffers still on a channel at the end count for their app too (their fences add them later).
        for (auto& t : tenants) {
          const double running_ns = static_cast<double>(sys_.driver().running_ns(t->spec().uid));
          result.apps.push_back(
              t->finish(static_cast<uint64_t>(std::llround(running_ns * result.clock_mhz / 1000))));
        }
      },
      duration_s + 60);
  if (!ran) return make_error(ran.error());
  if (!error.empty()) return make_error(error);

  const stats::Registry& st = s.stats();
  result.preemptions = static_cast<uint64_t>(stat_value(st, "driver.preemption.count"));
  result.preempt_latency_ns = static_cast<uint64_t>(stat_value(st, "driver.preemption.latency_ns_total"));
  result.preempt_saved_bytes = static_cast<uint64_t>(stat_value(st, "driver.preemption.save_bytes") +
                                                     stat_value(st, "driver.preemption.restore_bytes"));
  result.killed_work = static_cast<uint64_t>(stat_value(st, "driver.preemption.killed_work_ns"));
  result.energy_j = stat_value(st, "npu.power.energy.total") * 1e-12;
  result.dvfs_changes = static_cast<uint64_t>(stat_value(st, "driver.thermal.dvfs_changes"));
  for (size_t i = 0; i < result.severity_s.size(); ++i) {
    std::string name = drv::to_string(static_cast<drv::ThermalSeverity>(i));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    result.severity_s[i] = stat_value(st, "driver.thermal.time_at." + name + "_ns") * 1e-9;
  }
  for (const Sample& smp : result.samples) {
    result.peak_junction_c = std::max(result.peak_junction_c, smp.junction_c);
    result.peak_skin_c = std::max(result.peak_skin_c, smp.skin_c);
  }
  result.peak_junction_c = std::max(result.peak_junction_c, stat_value(st, "npu.thermal.max_junction_c"));
  if (options.channel_timeline) result.channel_spans = channel_spans(s.tracer()->to_json(), scenario.apps);
  if (!options.trace_path.empty()) {
    nlohmann::json trace = s.tracer()->to_json();
    if (!options.trace_metadata.is_null()) trace["metadata"] = options.trace_metadata;
    if (auto w = io::write_file_atomic(options.trace_path, trace.dump() + "\n"); !w)
      return make_error(w.error());
  }
  return result;
}

Result<RunResult> run_forked(const Scenario& scenario, const RunOptions& options) {
  int fds[2];
  if (pipe(fds) != 0) return make_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return make_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    // Ctrl-C ends the child at once; the parent (npu/common/interrupt.h) decides what is kept.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    auto r = run_in_process(scenario, options);
    const std::string text = r ? json{{"result", r->to_json()}}.dump() : json{{"error", r.error()}}.dump();
    for (size_t off = 0; off < text.size();) {
      const ssize_t n = write(fds[1], text.data() + off, text.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(r ? 0 : 1);  // no destructors: the simulation's threads are still parked in SystemC
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR && !stop_requested()) continue;
    break;
  }
  close(fds[0]);
  if (stop_requested()) kill(pid, SIGKILL);  // interrupted: the run's result is not wanted
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stop_requested()) return make_error("interrupted");
  if (text.empty()) return make_error("scenario run (policy " + options.policy + ") crashed");
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error("scenario run: unreadable result");
  if (j.contains("error")) return make_error(j["error"].get<std::string>());
  return RunResult::from_json(j["result"]);
}

}  // namespace npu::scenario
