#include "npu/mlts/soak.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "npu/common/enum_table.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "stress_models.h"

namespace npu::mlts {
namespace {

// Counts each job's WorkInfo events: a terminal one (anything but PAUSED) must come exactly once.
class JobLog : public drv::WorkObserver {
 public:
  std::map<drv::JobId, uint32_t> requested, terminal;
  void on_work_requested(const drv::WorkInfo& w) override { ++requested[w.id]; }
  void on_work_started(const drv::WorkInfo&, drv::WorkStartReason) override {}
  void on_work_ended(const drv::WorkInfo& w, drv::WorkEndReason reason) override {
    if (reason != drv::WorkEndReason::PAUSED) ++terminal[w.id];
  }
  void on_idle() override {}
};

uint64_t counter(system::System& s, const std::string& path) {
  const uint64_t* c = s.stats().find_counter(path);
  return c ? *c : 0;
}

// One execution's report, kept until the end so a second callback would still be counted.
struct Execution {
  uint32_t callbacks = 0;
  hal::ExecutionResult result;
  size_t input_set = 0;
};

// Drawn by index; the runaway, last, is injected as power rather than through a channel.
constexpr regs::FaultKind kFaultKinds[] = {regs::FaultKind::HANG, regs::FaultKind::DMA_ERROR,
                                           regs::FaultKind::SRAM_ECC, regs::FaultKind::THERMAL_RUNAWAY};

}  // namespace

Result<SoakCounters> run_soak(const SoakOptions& o) {
  if (o.tenants == 0) return make_error("soak: at least one tenant");
  if (!(o.simulated_s > 0)) return make_error("soak: the simulated time must be positive");
  // A hang must be found within the soak, not after the driver's default 2 s: the small model's command
  // buffers take well under a millisecond. The user's overrides come after and win.
  std::vector<std::string> sets = {"driver.timeouts.job_ns=5000000",
                                   "driver.timeouts.watchdog_period_ns=200000"};
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  auto cfg = system::load_system_config(o.hw, sets);
  if (!cfg) return make_error(cfg.error());
  auto sys = system::System::create(*cfg);
  if (!sys) return make_error(sys.error());
  system::System& platform = **sys;

  SoakCounters c;
  JobLog log;
  std::string setup_error;
  const models::Model model = stress::small_model(o.seed);
  std::vector<std::shared_ptr<Execution>> executions;
  uint64_t baseline_bytes = 0;
  auto end = platform.run(
      [&](system::System& s) {
        auto& d = s.driver();
        d.set_work_observer(&log);
        baseline_bytes = d.allocated_bytes();
        const stress::Answers answers = stress::reference_answers(s, model, o.seed, 4);
        if (answers.outputs.empty()) {
          setup_error = "soak: the CPU reference cannot run the soak's model";
          return;
        }
        const uint64_t stop_ns = s.os().now_ns() + static_cast<uint64_t>(o.simulated_s * 1e9);
        uint32_t running = o.tenants + 1;
        for (uint32_t t = 0; t < o.tenants; ++t) {
          s.os().spawn("soak_tenant", [&, t] {
            std::mt19937_64 rng(o.seed * 7919 + t);
            auto& device = s.npu_device(30000 + static_cast<int>(t), 3000 + static_cast<int>(t));
            hal::PrepareOptions po;
            po.priority = static_cast<hal::Priority>(2 - t % 3);  // HIGH, MEDIUM, LOW in turn
            auto prepared = device.prepare_model(model, po);
            if (!prepared.status.ok()) {
              setup_error = "soak: prepareModel: " + prepared.status.message;
            } else {
              auto wake = s.os().make_wait_queue();
              while (s.os().now_ns() < stop_ns) {
                auto e = std::make_shared<Execution>();
                e->input_set = rng() % answers.inputs.size();
                executions.push_back(e);
                hal::Request request;
                request.inputs = answers.inputs[e->input_set];
                const hal::Status launched = prepared.model->execute_async(
                    std::move(request), {}, [e, w = wake.get()](hal::ExecutionResult r) {
                      ++e->callbacks;
                      e->result = std::move(r);
                      w->wake_all();
                    });
                if (!launched.ok()) {
                  e->callbacks = 1;  // refused before launch: reported by the call, no callback due
                  e->result.status = launched;
                } else {
                  while (e->callbacks == 0) wake->wait();
                }
                // After a failure (a thermal halt refuses work for a while) back off instead of spinning.
                s.os().delay_ns(e->result.status.ok() ? rng() % 50'000 : 200'000);
              }
            }
            prepared.model.reset();  // frees its buffers
            if (auto closed = device.close(); !closed.ok()) setup_error = "soak: close: " + closed.message;
            --running;
          });
        }
        s.os().spawn("soak_faults", [&] {
          std::mt19937_64 rng(o.seed * 104729 + 17);
          std::exponential_distribution<double> gap(1.0 / std::max(1.0, o.fault_interval_us));
          // Three times the configured runaway: the default 10 W for tens of milliseconds barely warms the
          // die; 30 W for 20-100 ms brings the trips, the governor and now and then a thermal shutdown.
          const double runaway_w = 3 * s.config().npu.faults.thermal_runaway_w;
          uint64_t runaway_ends_ns = 0;  // 0: no runaway in force
          // Runaways back to back would hold the die at its shutdown temperature for the whole soak: after
          // one ends the die gets 100 ms to cool before the next may start.
          uint64_t next_runaway_ns = 0;
          for (;;) {
            s.os().delay_ns(static_cast<uint64_t>(gap(rng) * 1e3));
            if (runaway_ends_ns && s.os().now_ns() >= runaway_ends_ns) {
              s.npu().inject_thermal_runaway(0);
              next_runaway_ns = runaway_ends_ns + 100'000'000;
              runaway_ends_ns = 0;
            }
            if (s.os().now_ns() >= stop_ns) break;
            uint32_t kind = static_cast<uint32_t>(rng() % 4);
            if (kind == 3 && (runaway_ends_ns || s.os().now_ns() < next_runaway_ns)) kind = rng() % 3;
            const uint32_t channel = static_cast<uint32_t>(rng() % s.npu().channel_count());
            const uint32_t at = static_cast<uint32_t>(rng() % 8);
            ++c.faults_injected[enums::to_string(kFaultKinds[kind])];
            if (kind == 3) {
              // Extra junction power for 20-100 ms, then the cooling the trips react to.
              s.npu().inject_thermal_runaway(runaway_w);
              runaway_ends_ns = s.os().now_ns() + 20'000'000 + rng() % 80'000'000;
            } else {
              s.npu().inject_fault(channel, kFaultKinds[kind], at);
            }
          }
          s.npu().inject_thermal_runaway(0);
          --running;
        });
        while (running > 0) s.os().delay_ns(100'000);
        // Time for a late or repeated callback to show, then every armed fault still waiting is moot.
        s.os().delay_ns(10'000'000);
        c.live_contexts = d.live_contexts();
        c.live_bos = d.live_bos();
        c.unsignalled_fences = d.unsignalled_fences();
        const uint64_t now_bytes = d.allocated_bytes();
        c.leaked_bytes = now_bytes > baseline_bytes ? now_bytes - baseline_bytes : 0;
        for (const auto& e : executions) {
          if (e->callbacks == 0) ++c.callbacks_missing;
          if (e->callbacks > 1) ++c.callbacks_repeated;
          if (e->result.status.ok()) {
            ++c.executions_ok;
            if (!stress::output_difference(e->result.outputs, answers.outputs[e->input_set]).empty())
              ++c.output_mismatches;
          } else {
            ++c.executions_failed;
            if (e->result.status.code != hal::ErrorStatus::GENERAL_FAILURE) ++c.failed_with_wrong_status;
          }
        }
        c.executions = executions.size();
      },
      o.simulated_s + 600.0);
  if (!setup_error.empty()) return make_error(setup_error);
  if (!end) return make_error("soak: " + end.error());
  c.simulated_end_s = *end;
  system::System& s = platform;
  c.jobs_submitted = counter(s, "driver.jobs.submitted");
  c.jobs_completed = counter(s, "driver.jobs.completed");
  c.jobs_failed = counter(s, "driver.jobs.failed");
  c.jobs_cancelled = counter(s, "driver.jobs.cancelled");
  c.submits_refused = counter(s, "driver.jobs.refused");
  for (const auto& [id, n] : log.terminal)
    if (n != 1) ++c.jobs_not_ended_once;
  for (const auto& [id, n] : log.requested)
    if (n != 1 || !log.terminal.count(id)) ++c.jobs_not_ended_once;
  for (uint32_t ch = 0; ch < s.npu().channel_count(); ++ch)
    c.faults_struck += counter(s, "npu.ch" + std::to_string(ch) + ".faults_injected");
  c.hangs_detected = counter(s, "driver.watchdog.hangs");
  c.hang_retries = counter(s, "driver.watchdog.retries");
  c.channels = s.npu().channel_count();
  c.channel_resets = counter(s, "driver.channel_resets");
  c.dma_faults = counter(s, "driver.errors.dma_fault");
  c.sram_ecc_errors = counter(s, "driver.errors.sram_ecc");
  c.thermal_shutdowns = counter(s, "driver.thermal.shutdowns");
  c.dvfs_changes = counter(s, "driver.thermal.dvfs_changes");
  for (const regs::FaultKind k : kFaultKinds) c.faults_injected.emplace(enums::to_string(k), 0);
  return c;
}

std::vector<std::string> soak_violations(const SoakCounters& c) {
  std::vector<std::string> v;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) v.push_back(what);
  };
  const auto n = [](uint64_t x) { return std::to_string(x); };
  expect(c.executions > 0, "no execution ran");
  expect(c.executions == c.executions_ok + c.executions_failed, "executions " + n(c.executions) + " != ok " +
                                                                    n(c.executions_ok) + " + failed " +
                                                                    n(c.executions_failed));
  expect(c.callbacks_missing == 0, n(c.callbacks_missing) + " executions never reported");
  expect(c.callbacks_repeated == 0, n(c.callbacks_repeated) + " executions reported more than once");
  expect(c.failed_with_wrong_status == 0, n(c.failed_with_wrong_status) + " failures not GENERAL_FAILURE");
  expect(c.output_mismatches == 0,
         n(c.output_mismatches) + " completed executions differ from the CPU reference");
  expect(c.jobs_submitted == c.jobs_completed + c.jobs_failed + c.jobs_cancelled,
         "jobs submitted " + n(c.jobs_submitted) + " != completed " + n(c.jobs_completed) + " + failed " +
             n(c.jobs_failed) + " + cancelled " + n(c.jobs_cancelled));
  expect(c.jobs_not_ended_once == 0, n(c.jobs_not_ended_once) + " jobs did not end exactly once");
  // Each struck fault is found once: a hang by the watchdog, an error by the interrupt handler. The one
  // exception: a fault that strikes a command buffer whose job has just failed on another channel is
  // reset away with that buffer before anyone can see it, so it is found at most once per failed job
  // on every other channel. With one channel the counts are equal.
  const uint64_t found = c.hangs_detected + c.dma_faults + c.sram_ecc_errors;
  expect(found <= c.faults_struck && c.faults_struck - found <= c.jobs_failed * (c.channels - 1),
         "faults struck " + n(c.faults_struck) + " but found " + n(c.hangs_detected) + " hangs + " +
             n(c.dma_faults) + " DMA faults + " + n(c.sram_ecc_errors) + " ECC errors");
  // The watchdog retries a hung buffer up to the hang limit; a job fails for its own fault only: a DMA or
  // ECC error, or a buffer that hung past the limit (hangs found minus retried). A thermal shutdown also
  // fails whatever is unfinished.
  expect(c.hang_retries <= c.hangs_detected, "more hang retries than hangs");
  const uint64_t caused =
      c.dma_faults + c.sram_ecc_errors + (c.hangs_detected - std::min(c.hangs_detected, c.hang_retries));
  expect(c.thermal_shutdowns ? c.jobs_failed >= caused : c.jobs_failed == caused,
         "jobs failed " + n(c.jobs_failed) + " but faults that fail a job " + n(caused));
  expect(c.executions_failed <= c.jobs_failed + c.jobs_cancelled + c.submits_refused,
         "more failed executions than failed, cancelled or refused jobs");
  for (const auto& [kind, count] : c.faults_injected) expect(count > 0, "no " + kind + " fault was injected");
  expect(c.live_contexts == 0, n(c.live_contexts) + " contexts left open");
  expect(c.live_bos == 0, n(c.live_bos) + " buffer objects left allocated");
  expect(c.unsignalled_fences == 0, n(c.unsignalled_fences) + " fences never signalled");
  expect(c.leaked_bytes == 0, n(c.leaked_bytes) + " bytes of device memory leaked");
  return v;
}

nlohmann::json soak_json(const SoakCounters& c) {
  return {{"executions", c.executions},
          {"executions_ok", c.executions_ok},
          {"executions_failed", c.executions_failed},
          {"callbacks_missing", c.callbacks_missing},
          {"callbacks_repeated", c.callbacks_repeated},
          {"failed_with_wrong_status", c.failed_with_wrong_status},
          {"output_mismatches", c.output_mismatches},
          {"jobs_submitted", c.jobs_submitted},
          {"jobs_completed", c.jobs_completed},
          {"jobs_failed", c.jobs_failed},
          {"jobs_cancelled", c.jobs_cancelled},
          {"submits_refused", c.submits_refused},
          {"jobs_not_ended_once", c.jobs_not_ended_once},
          {"faults_injected", c.faults_injected},
          {"faults_struck", c.faults_struck},
          {"hangs_detected", c.hangs_detected},
          {"hang_retries", c.hang_retries},
          {"channels", c.channels},
          {"channel_resets", c.channel_resets},
          {"dma_faults", c.dma_faults},
          {"sram_ecc_errors", c.sram_ecc_errors},
          {"thermal_shutdowns", c.thermal_shutdowns},
          {"dvfs_changes", c.dvfs_changes},
          {"live_contexts", c.live_contexts},
          {"live_bos", c.live_bos},
          {"unsignalled_fences", c.unsignalled_fences},
          {"leaked_bytes", c.leaked_bytes},
          {"simulated_end_s", c.simulated_end_s}};
}

std::string soak_table(const SoakCounters& c) {
  std::string out;
  char line[160];
  auto row = [&](const char* what, const std::string& value) {
    std::snprintf(line, sizeof line, "  %-24s %s\n", what, value.c_str());
    out += line;
  };
  const auto n = [](uint64_t x) { return std::to_string(x); };
  row("executions", n(c.executions) + " (" + n(c.executions_ok) + " ok, " + n(c.executions_failed) +
                        " failed, " + n(c.output_mismatches) + " wrong)");
  row("jobs", n(c.jobs_submitted) + " submitted = " + n(c.jobs_completed) + " completed + " +
                  n(c.jobs_failed) + " failed + " + n(c.jobs_cancelled) + " cancelled; " +
                  n(c.submits_refused) + " refused");
  std::string injected;
  for (const auto& [kind, count] : c.faults_injected)
    injected += (injected.empty() ? "" : ", ") + kind + " " + n(count);
  row("faults injected", injected);
  row("faults found", n(c.faults_struck) + " struck: " + n(c.hangs_detected) + " hangs (" +
                          n(c.hang_retries) + " retries), " + n(c.dma_faults) + " DMA, " +
                          n(c.sram_ecc_errors) + " ECC; " + n(c.channel_resets) + " channel resets");
  row("thermal", n(c.thermal_shutdowns) + " shutdowns, " + n(c.dvfs_changes) + " DVFS changes");
  row("alive at the end", n(c.live_contexts) + " contexts, " + n(c.live_bos) + " BOs, " +
                              n(c.unsignalled_fences) + " unsignalled fences, " + n(c.leaked_bytes) +
                              " bytes leaked");
  char sim[32];
  std::snprintf(sim, sizeof sim, "%.3f s", c.simulated_end_s);
  row("simulated", sim);
  return out;
}

}  // namespace npu::mlts
