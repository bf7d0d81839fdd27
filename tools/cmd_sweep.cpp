// `npusim measure`: one design point on one workload (a model or a scenario), every sweep metric as a
// table or JSON — the child process a sweep runs for each point x workload, and the command line that
// reproduces any row of a sweep database.
// `npusim sweep S.json --db out.sqlite`: every point x workload of a sweep file, each in its own
// `npusim measure` process, locally on all cores (-j) or as a Slurm job array (--backend slurm, then
// --collect), results in SQLite; --export csv and --report r.html read the database.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "cmd_import.h"
#include "command.h"
#include "npu/common/version.h"
#include "npu/hal/device.h"
#include "npu/models/builder.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/scenario/metrics.h"
#include "npu/scenario/runner.h"
#include "npu/sim/npu.h"
#include "npu/sweep/area.h"
#include "npu/sweep/database.h"
#include "npu/sweep/report.h"
#include "npu/sweep/runner.h"
#include "npu/sweep/slurm.h"
#include "npu/sweep/spec.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "output_path.h"

namespace npusim {
namespace {

using nlohmann::json;

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

// --- npusim measure ------------------------------------------------------------------------------------

struct MeasureOptions {
  std::string hw = npu::tools::default_hw_config();
  std::vector<std::string> sets;
  std::string model, scenario, policy;
  uint32_t iterations = 3;
  uint64_t seed = 1;
  double scale = 1;
  bool timing_only = false, isolated = false, json = false;
};

// Rank percentile as the bench uses it: the ceil(p·n)-th smallest value.
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  return v[static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n))) - 1];
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double stat_value(const npu::stats::Registry& r, const std::string& path) {
  if (const double* v = r.find_value(path)) return *v;
  if (const uint64_t* c = r.find_counter(path)) return static_cast<double>(*c);
  return 0;
}

npu::Result<json> measure_model(const MeasureOptions& o, const npu::system::SystemConfig& cfg) {
  using namespace npu;
  auto model = o.model.size() > 5 && o.model.compare(o.model.size() - 5, 5, ".onnx") == 0
                   ? tools::load_model_file(o.model, false)
                   : models::load_model(o.model, o.seed);
  if (!model) return make_error(model.error());
  if (o.timing_only) {
    // Timing-only: weight tensors as sizes, as the zoo's decoders are; the NPU moves and computes no
    // values. Rank-1 and scalar constants (biases, shapes, parameters) keep theirs: compiling reads them.
    for (auto& op : model->main.operands)
      if ((op.lifetime == models::Lifetime::CONSTANT_COPY ||
           op.lifetime == models::Lifetime::CONSTANT_REFERENCE) &&
          op.dimensions.size() >= 2 && !op.data.empty()) {
        op.data.clear();
        op.data.shrink_to_fit();
        op.values_omitted = true;
      }
  }
  if (auto v = models::validate_model(*model); !v) return make_error(o.model + ": " + v.error());
  auto sys = system::System::create(cfg);
  if (!sys) return make_error(sys.error());
  std::vector<double> latency_us;
  double device_us = 0, busy_cycles = 0, energy_pj = 0, cpu_ops = 0;
  std::string error;
  auto end = (*sys)->run([&](system::System& s) {
    auto prepared = s.npu_device().prepare_model(*model);
    if (!prepared.status.ok()) {
      error = o.model + ": prepareModel: " + hal::to_string(prepared.status.code) + ": " +
              prepared.status.message;
      return;
    }
    std::vector<bool> supported;
    if (s.npu_device().supported_operations(*model, &supported).ok())
      cpu_ops = static_cast<double>(std::count(supported.begin(), supported.end(), false));
    const double e0 = stat_value(s.stats(), "npu.power.energy.total");
    for (uint32_t i = 0; i < o.iterations; ++i) {
      const auto inputs = models::random_inputs(*model, o.seed + i, 0);
      const uint64_t t0 = s.os().now_ns();
      hal::ExecutionResult e = prepared.model->execute_synchronously(inputs, true);
      if (!e.status.ok()) {
        error = o.model + ": execute: " + hal::to_string(e.status.code) + ": " + e.status.message;
        return;
      }
      latency_us.push_back(static_cast<double>(s.os().now_ns() - t0) / 1e3);
      device_us += static_cast<double>(e.timing.time_on_device_us);
      busy_cycles += static_cast<double>(e.device_cycles);
    }
    energy_pj = stat_value(s.stats(), "npu.power.energy.total") - e0;
  });
  if (!end) return make_error(end.error());
  if (!error.empty()) return make_error(error);
  const auto& st = (*sys)->stats();
  const double n = o.iterations;
  const double elapsed_cycles = device_us * cfg.npu.clock_mhz() * cfg.npu.channels;
  double throttled_ns = 0;
  for (int i = 1; i < 4; ++i)
    throttled_ns += stat_value(st, "npu.dvfs.opp" + std::to_string(i) + ".residency_ns");
  json m = {{"latency_p50_us", percentile(latency_us, 50)},
            {"latency_p99_us", percentile(latency_us, 99)},
            {"latency_mean_us", mean(latency_us)},
            {"npu_cycles", busy_cycles / n},
            {"utilisation", elapsed_cycles > 0 ? busy_cycles / elapsed_cycles : 0.0},
            {"energy_mj", energy_pj / n * 1e-9},
            {"peak_junction_c", stat_value(st, "npu.thermal.junction.max_c")},
            {"throttled_s", throttled_ns * 1e-9},
            {"cpu_ops", cpu_ops}};
  return m;
}

npu::Result<json> measure_scenario(const MeasureOptions& o) {
  using namespace npu::scenario;
  auto sc = load_scenario(o.scenario);
  if (!sc) return npu::make_error(sc.error());
  // The design point replaces the scenario's hardware: its own overrides first, then the point's.
  sc->hardware = o.hw;
  for (const auto& s : o.sets) sc->hardware_set.push_back(s);
  RunOptions ro;
  ro.policy = o.policy;
  ro.duration_scale = o.scale;
  // The runner names the file in most of its errors (an app's model, the hardware); not in all.
  auto named = [&](const std::string& e) {
    return e.rfind(sc->path + ":", 0) == 0 ? e : o.scenario + ": " + e;
  };
  auto shared = run_forked(*sc, ro);
  if (!shared) return npu::make_error(named(shared.error()));
  std::map<int, RunResult> isolated;
  if (o.isolated) {
    for (const auto& app : sc->apps) {
      RunOptions io = ro;
      io.only_uid = app.uid;
      auto alone = run_forked(*sc, io);
      if (!alone) return npu::make_error(named(alone.error()));
      isolated.emplace(app.uid, std::move(*alone));
    }
  }
  // An app whose loads or jobs failed (its model does not fit the design, say) did not run its share:
  // the design cannot run this scenario, and a row of "ok" metrics would hide it.
  for (const auto& a : shared->apps)
    if (!a.errors.empty())
      return npu::make_error(
          o.scenario + ": app " + a.name + ": " + a.errors.front() +
          (a.errors.size() > 1 ? " (and " + std::to_string(a.errors.size() - 1) + " more errors)" : ""));
  const Metrics met = compute_metrics(*shared, isolated);
  std::vector<double> latency_us;
  double cycles = 0, missed = 0, with_deadline = 0;
  for (const auto& a : shared->apps) {
    cycles += static_cast<double>(a.device_cycles);
    for (const auto& r : a.requests) {
      if (!r.dropped && r.end_ns >= r.arrival_ns)
        latency_us.push_back(static_cast<double>(r.end_ns - r.arrival_ns) / 1e3);
      if (r.deadline_ns) ++with_deadline;
      if (r.missed) ++missed;
    }
  }
  const double capacity = shared->channels * shared->duration_s * 1e6 * shared->clock_mhz;
  json m = {{"latency_p50_us", percentile(latency_us, 50)},
            {"latency_p99_us", percentile(latency_us, 99)},
            {"latency_mean_us", mean(latency_us)},
            {"npu_cycles", cycles},
            {"utilisation", capacity > 0 ? cycles / capacity : 0.0},
            {"energy_mj", met.energy_j * 1e3},
            {"peak_junction_c", met.peak_junction_c},
            {"throttled_s", met.throttled_s},
            {"deadline_misses", missed},
            {"miss_rate", with_deadline > 0 ? missed / with_deadline : 0.0}};
  m["antt"] = met.antt ? json(*met.antt) : json();
  m["stp"] = met.stp ? json(*met.stp) : json();
  m["fairness"] = met.fairness ? json(*met.fairness) : json();
  return m;
}

int run_measure(const MeasureOptions& o) {
  if (o.model.empty() == o.scenario.empty())
    return fail("measure: give exactly one of --model or --scenario");
  auto cfg = npu::system::load_system_config(o.hw, o.sets);
  if (!cfg) return fail(cfg.error());
  auto values = npu::sweep::effective_config(o.hw, o.sets);
  if (!values) return fail(values.error());
  auto m = o.model.empty() ? measure_scenario(o) : measure_model(o, *cfg);
  if (!m) return fail(m.error());
  const auto area = npu::sweep::design_area(*cfg);
  (*m)["area_mm2"] = area.total_mm2();
  json out = {{npu::kBuildKey, npu::build_json()},
              {"workload", o.model.empty() ? o.scenario : o.model},
              {"hardware", o.hw},
              {"sets", o.sets},
              {"config_digest", npu::sweep::digest(values->dump())},
              {"area",
               {{"mac_array_mm2", area.mac_array_mm2},
                {"sram_mm2", area.sram_mm2},
                {"vector_mm2", area.vector_mm2},
                {"dma_mm2", area.dma_mm2},
                {"dram_phy_mm2", area.dram_phy_mm2}}},
              {"metrics", *m}};
  if (o.json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("npusim measure: %s on %s\n", out["workload"].get<std::string>().c_str(), o.hw.c_str());
  for (const auto& metric : npu::sweep::metric_catalogue()) {
    if (!m->contains(metric.name)) continue;
    const json& v = (*m)[metric.name];
    std::printf("  %-16s %s %s\n", metric.name.c_str(),
                v.is_number() ? std::to_string(v.get<double>()).c_str() : "-", metric.unit.c_str());
  }
  return 0;
}

// --- npusim sweep --------------------------------------------------------------------------------------

struct SweepOptions {
  std::string file, db, exp, out, report, backend = "local", work_dir;
  unsigned jobs = 0;
  bool quiet = false, list = false, retry_failed = false, collect = false, no_wait = false;
  double point_timeout_s = 3600;
  int task = -1;
  std::optional<uint64_t> shuffle;
  npu::sweep::SlurmOptions slurm;
};

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "npusim";
}

npu::sweep::SweepMeta meta_of(const npu::sweep::SweepSpec& s) {
  npu::sweep::SweepMeta m;
  m.name = s.name;
  m.digest = s.digest;
  for (const auto& a : s.axes) m.axes.push_back(a.param);
  m.metrics = s.metrics;
  return m;
}

int read_database(const SweepOptions& o) {
  auto db = npu::sweep::Database::open(o.db, {});
  if (!db) return fail(db.error());
  if (!o.exp.empty()) {
    if (o.exp != "csv" && o.exp != "pareto")
      return fail("--export: csv (the table) or pareto (Markdown Pareto fronts), got \"" + o.exp + "\"");
    npu::Result<std::string> csv = std::string();
    if (o.exp == "csv") {
      csv = db->csv();
    } else {
      auto rows = db->rows();
      if (!rows) return fail(rows.error());
      csv = npu::sweep::pareto_markdown(db->meta(), *rows);
    }
    if (!csv) return fail(csv.error());
    if (o.out.empty() || o.out == "-") {
      std::fputs(csv->c_str(), stdout);
    } else {
      if (auto why = unwritable_reason(o.out); !why.empty()) return fail(why);
      std::ofstream f(o.out);
      f << *csv;
      if (!f) return fail(o.out + ": cannot write");
      std::fprintf(stderr, "%s written to %s\n", o.exp.c_str(), o.out.c_str());
    }
  }
  if (!o.report.empty()) {
    if (auto why = unwritable_reason(o.report); !why.empty()) return fail(why);
    auto rows = db->rows();
    if (!rows) return fail(rows.error());
    auto html = npu::sweep::html_report(db->meta(), *rows);
    std::ofstream f(o.report);
    f << html;
    if (!f) return fail(o.report + ": cannot write");
    std::printf("report written to %s\n", o.report.c_str());
  }
  return 0;
}

int run_sweep(const SweepOptions& o) {
  using namespace npu::sweep;
  // One Slurm array task: its chunk of the task list, rows to its own file (no database here).
  if (o.task >= 0) return run_slurm_task(o.work_dir, static_cast<unsigned>(o.task), self_exe());
  if (o.db.empty() && !o.list) return fail("sweep: --db FILE is required (the results database)");
  if (!o.exp.empty() || !o.report.empty()) return read_database(o);
  if (o.file.empty()) return fail("sweep: the sweep file is required (configs/sweeps/*.json)");
  auto spec = load_sweep(o.file);
  if (!spec) return fail(spec.error());
  auto expansion = expand(*spec);
  if (!expansion) return fail(expansion.error());
  if (o.list) {
    std::printf("sweep %s: %zu points (%u candidates, %zu rejected) x %zu workloads\n", spec->name.c_str(),
                expansion->points.size(), expansion->candidates, expansion->rejected.size(),
                spec->workloads.size());
    for (const auto& r : expansion->rejected) std::printf("  rejected %s\n", r.c_str());
    for (const auto& p : expansion->points) {
      std::string sets;
      for (const auto& s : p.sets()) sets += " " + s;
      std::printf("  point %u:%s  (%.2f mm2, config %s)\n", p.index, sets.c_str(), p.area_mm2,
                  p.config_digest.c_str());
    }
    return 0;
  }
  auto db = Database::open(o.db, meta_of(*spec));
  if (!db) return fail(db.error());
  if (o.collect) {
    auto n = collect_rows(o.work_dir, *db);
    if (!n) return fail(n.error());
    std::printf("collected %u rows from %s into %s\n", *n, o.work_dir.c_str(), o.db.c_str());
    return 0;
  }
  auto done = db->done(/*ok_only=*/o.retry_failed);
  if (!done) return fail(done.error());
  std::set<std::pair<uint32_t, std::string>> skip(done->begin(), done->end());
  auto tasks = make_tasks(*spec, *expansion, skip);
  if (o.shuffle) {
    // Whole points (all their workloads together) in a seeded random order: a study stopped early then
    // covers the design space thinly instead of its first corner densely.
    std::vector<std::vector<Task>> points;
    for (auto& t : tasks) {
      if (points.empty() || points.back().front().point != t.point) points.emplace_back();
      points.back().push_back(std::move(t));
    }
    std::shuffle(points.begin(), points.end(), std::mt19937_64(*o.shuffle));
    tasks.clear();
    for (auto& p : points)
      for (auto& t : p) tasks.push_back(std::move(t));
  }
  const size_t total = expansion->points.size() * spec->workloads.size();
  std::printf(
      "sweep %s: %zu points (%u candidates, %zu rejected by constraints) x %zu workloads = %zu runs; "
      "%zu already in %s, %zu to run\n",
      spec->name.c_str(), expansion->points.size(), expansion->candidates, expansion->rejected.size(),
      spec->workloads.size(), total, total - tasks.size(), o.db.c_str(), tasks.size());
  std::fflush(stdout);
  if (o.backend == "slurm") {
    SlurmOptions so = o.slurm;
    so.wait = !o.no_wait;
    so.progress = !o.quiet && isatty(2);
    install_stop_handlers();
    auto r = submit_slurm(*spec, tasks, o.work_dir, o.file, so, self_exe());
    if (!r) return fail(r.error());
    if (!so.wait) {
      std::printf("submitted job %s; when it ends: npusim sweep %s --db %s --collect --work-dir %s\n",
                  r->c_str(), o.file.c_str(), o.db.c_str(), o.work_dir.c_str());
      return 0;
    }
    auto n = collect_rows(o.work_dir, *db);
    if (!n) return fail(n.error());
    std::printf("job %s ended; collected %u rows into %s\n", r->c_str(), *n, o.db.c_str());
    return stop_requested() ? 130 : 0;
  }
  LocalOptions lo;
  lo.exe = self_exe();
  lo.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  lo.progress = !o.quiet && isatty(2);
  lo.point_timeout_s = o.point_timeout_s;
  install_stop_handlers();
  auto sum = run_local(tasks, spec->metrics, lo, [&](const Row& row) { return db->put(row); });
  if (!sum) return fail(sum.error());
  std::printf("sweep %s: %u ok, %u failed%s; results in %s\n", spec->name.c_str(), sum->ok, sum->failed,
              sum->interrupted ? ", interrupted (rerun to resume)" : "", o.db.c_str());
  return sum->interrupted ? 130 : 0;
}

}  // namespace

Subcommand register_measure_command(CLI::App& app) {
  auto o = std::make_shared<MeasureOptions>();
  auto* cmd =
      app.add_subcommand("measure",
                         "Measure one design point on one workload (a model or a scenario): latency, "
                         "cycles, utilisation, energy, temperature, throttling, area (a sweep's child)");
  cmd->add_option("--hw", o->hw, "Hardware config JSON")->capture_default_str();
  cmd->add_option("--set", o->sets, "Override a hardware parameter: path=value (repeatable)");
  cmd->add_option("--model", o->model, "Model JSON, ONNX file or zoo:NAME");
  cmd->add_option("--scenario", o->scenario, "Or a scenario file (its hardware replaced by --hw and --set)");
  cmd->add_option("--iterations", o->iterations, "Models: inferences to measure")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  cmd->add_option("--seed", o->seed, "Models: seed of zoo weights and inputs")->capture_default_str();
  cmd->add_flag("--timing-only", o->timing_only, "Models: drop constant values and run for timing alone");
  cmd->add_option("--scale", o->scale, "Scenarios: duration scale")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 100.0));
  cmd->add_option("--policy", o->policy, "Scenarios: baseline (default: the scenario's)");
  cmd->add_flag("--isolated", o->isolated, "Scenarios: also run each app alone (ANTT, STP, fairness)");
  cmd->add_flag("--json", o->json, "Print JSON");
  return {cmd, [o] { return run_measure(*o); }};
}

Subcommand register_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd =
      app.add_subcommand("sweep",
                         "Architecture exploration: every design point x workload of a sweep file, each "
                         "in its own process, locally on all cores or on Slurm; results in SQLite");
  cmd->add_option("file", o->file, "Sweep JSON (configs/sweeps/*.json)");
  cmd->add_option("--db", o->db, "SQLite results database (created; a rerun skips recorded points)");
  cmd->add_option("-j,--jobs", o->jobs, "Points at a time (default: all cores)");
  cmd->add_flag("--quiet", o->quiet, "No progress line");
  cmd->add_flag("--list", o->list,
                "Print the expanded points (and what the constraints rejected); run nothing");
  cmd->add_flag("--retry-failed", o->retry_failed,
                "Run failed points again (by default a rerun skips them too)");
  cmd->add_option("--shuffle", o->shuffle,
                  "Run the points in a random order from this seed (the same seed, the same order), so a "
                  "sweep stopped early covers the whole space");
  cmd->add_option("--point-timeout", o->point_timeout_s,
                  "Seconds after which a point's process is killed and the point fails")
      ->capture_default_str();
  cmd->add_option("--export", o->exp,
                  "Write the database: csv (every row) or pareto (Markdown Pareto fronts), to -o or stdout; "
                  "runs nothing");
  cmd->add_option("-o,--output", o->out, "With --export: the output file");
  cmd->add_option("--report", o->report,
                  "Write an HTML report (Pareto fronts, sensitivities, table); runs nothing");
  cmd->add_option("--backend", o->backend, "local (this machine) or slurm (a job array)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  cmd->add_option("--work-dir", o->work_dir,
                  "Slurm: shared folder for the task list, scripts, logs and row files");
  cmd->add_option("--partition", o->slurm.partition, "Slurm: partition (sbatch --partition)");
  cmd->add_option("--time", o->slurm.time, "Slurm: time limit per array task (sbatch --time)");
  cmd->add_option("--mem", o->slurm.mem, "Slurm: memory per array task (sbatch --mem)");
  cmd->add_option("--chunk", o->slurm.chunk, "Slurm: point x workload runs per array task")
      ->capture_default_str();
  cmd->add_option("--sbatch-arg", o->slurm.extra, "Slurm: any other sbatch argument (repeatable)");
  cmd->add_flag("--no-wait", o->no_wait, "Slurm: submit and return (collect later with --collect)");
  cmd->add_flag("--collect", o->collect, "Slurm: merge the tasks' row files from --work-dir into --db");
  cmd->add_option("--task", o->task, "Slurm: run array task N of --work-dir (what the batch script calls)");
  return {cmd, [o] {
            if ((o->backend == "slurm" || o->collect || o->task >= 0) && o->work_dir.empty())
              return fail("sweep: --work-dir is required with the Slurm backend, --collect and --task");
            return run_sweep(*o);
          }};
}

}  // namespace npusim
