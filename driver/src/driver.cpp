// The facade: probe, the device-info query, `driver.*` config keys and stats, and the ioctls, which take
// the big lock, charge their CPU cost, validate and hand over to the driver's parts.
#include "npu/drv/driver.h"

#include <algorithm>
#include <cerrno>
#include <mutex>

#include "contexts.h"
#include "device_memory.h"
#include "driver_stats.h"
#include "interrupts.h"
#include "job_scheduler.h"
#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"
#include "thermal_manager.h"
#include "watchdog.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver"); }

}  // namespace

QueueLevel queue_level_for(int p) {
  if (p < 100) return QueueLevel::REALTIME;
  if (p < 400) return QueueLevel::HIGH;
  if (p < 700) return QueueLevel::NORMAL;
  return QueueLevel::LOW;
}

int effective_priority(const SchedulingConfig* cfg, int job_priority) {
  const int job = std::clamp(job_priority, kHighestPriority, kLowestPriority);
  if (!cfg) return kLowestPriority + job;
  const int app = std::clamp(cfg->app_priority, kHighestPriority, kLowestPriority);
  const int lo = std::clamp(cfg->min_priority, kHighestPriority, kLowestPriority);
  const int hi = std::clamp(cfg->max_priority, lo, kLowestPriority);
  return app + std::clamp(job, lo, hi);
}

void DriverConfig::declare(cfg::Schema& s) {
  s.choice(
      "driver.scheduler", &scheduler, "priority", scheduling_policy_names(),
      "Which waiting command buffer runs next: preemptive highest-priority-first, FCFS, PREMA tokens, round "
      "robin, earliest deadline first, or adaptive (the shortest of the fair candidates, deadlines kept by "
      "slack stealing)");
  s.choice("driver.preemption", &preemption, "checkpoint", preemption_policy_names(),
           "How a running command buffer gives its channel to more urgent work");
  // Round robin: a slice of a few command-buffer tiles (0.5-4 ms), longer for more urgent levels so they
  // keep a channel for a whole camera stage; short enough that a turn comes every few ms.
  const char* levels[] = {"realtime", "high", "normal", "low"};
  const uint64_t quanta[] = {4'000'000, 2'000'000, 1'000'000, 500'000};
  const double weights[] = {1.0, 1.0, 1.0, 1.0};
  for (int l = 0; l < 4; ++l) {
    s.u64(std::string("driver.sched.rr_quantum_ns.") + levels[l], &sched.rr_quantum_ns[l], quanta[l], "ns",
          "rr: time slice of this run-queue level before a waiting buffer may take the channel", 10'000);
    s.f64(
        std::string("driver.sched.weight.") + levels[l], &sched.weight[l], weights[l], "",
        "adaptive: weight of this level's tokens among work without a deadline (1 for every level: fairness "
        "is measured between apps whatever their level, and deadline work is a candidate anyway; LOW at 0.5 "
        "left a BACKGROUND app slowed 1.21 times beside a FOREGROUND one at 1.00)",
        0.01, 1000);
  }
  s.f64("driver.sched.preempt_ratio", &sched.preempt_ratio, 8.0, "",
        "adaptive: a job without a deadline takes a running one's channel only when the running one has this "
        "many times more predicted work left (no checkpoint for a small gain; on full-length prema_mix 8 "
        "gave fairness 0.768 and 533 MiB of checkpoints where 4 gave 0.706 and 632 MiB, ANTT alike)",
        1.0, 1e6);
  s.f64("driver.sched.candidate_share", &sched.candidate_share, 0.9, "",
        "adaptive: jobs whose tokens (weight x (1 + time in system / predicted length)) reach this share of "
        "the most any waiting job holds are candidates, and the shortest candidate runs (1: highest response "
        "ratio next, fairest; 0: shortest remaining work first, least mean slowdown; with backfilling, 0.9 "
        "kept prema_mix's ANTT below PREMA's with fairness above it, where 0.8 and 0.85 lost fairness)",
        0.0, 1.0);
  s.f64(
      "driver.sched.history", &sched.history, 0.5, "",
      "adaptive: weight of each completed job in its app's (context's) moving-average slowdown, which "
      "multiplies "
      "the tokens of the app's waiting jobs so an app slowed more than others lately catches up (0: off; 0.5 "
      "beat 1 on prema_mix's fairness, 0.76 against 0.71)",
      0.0, 1.0);
  s.f64(
      "driver.sched.deadline_stretch", &sched.deadline_stretch, 1.5, "",
      "adaptive: work runs ahead of waiting deadline work only while every deadline would still be met with "
      "each predicted length stretched by this factor (slack stealing: the margin covers DRAM contention "
      "and preemption latency the prediction leaves out); 0: deadline work always goes first",
      0.0, 100.0);
  s.u64("driver.sched.rate_window_ns", &sched.rate_window_ns, 100'000'000, "ns",
        "adaptive: candidates run by remaining work times their app's recent demand (jobs submitted in this "
        "window times the job's predicted length): the metrics are per app, so a job of an app that asks "
        "for little carries more of its app's mean slowdown (0: by remaining work alone)",
        0);
  s.boolean("driver.sched.backfill", &sched.backfill, true,
            "adaptive: a free channel stays idle rather than start a buffer that would still run when a "
            "better-ranked running job's stage ends and its next stage needs the channel (otherwise the two "
            "jobs interleave stage by stage and slow each other)");
  s.u64("driver.sched.recheck_ns", &sched.recheck_ns, 1'000'000, "ns",
        "adaptive: while work runs, waiting jobs are weighed again this often, since their tokens grow with "
        "time and one may have become a candidate against running work with no event to notice it (a "
        "vision job waited 37 ms behind a long LLM prefill buffer); 0: only on submissions and completions",
        0);
  s.f64("driver.sched.starvation_bound", &sched.starvation_bound, 20.0, "",
        "adaptive: a job that waited this many times its predicted length runs ahead of all work without a "
        "deadline (bounds its slowdown whatever its weight)",
        1.0, 1e6);
  s.u64("driver.timeouts.job_ns", &timeouts.job_ns, 2'000'000'000, "ns",
        "A command buffer running longer than this is considered hung (channel reset)", 1000);
  s.u64("driver.timeouts.watchdog_period_ns", &timeouts.watchdog_period_ns, 1'000'000, "ns",
        "Watchdog check period while work runs", 1000);
  s.u32("driver.timeouts.hang_limit", &timeouts.hang_limit, 2, "",
        "Hangs of one command buffer retried before its job fails", 0, 100);
  s.u64("driver.timeouts.preempt_ns", &timeouts.preempt_ns, 1'000'000, "ns",
        "A preemption not honoured within this is treated as a hang", 1000);
  s.u64("driver.kernel_reserved_bytes", &kernel_reserved_bytes, 16ull << 20, "B",
        "Device memory at the bottom the driver keeps for command buffers and checkpoint save areas (a "
        "job whose command buffers do not fit is refused)",
        1ull << 20);
  thermal.declare(s, "driver.thermal");
}

DriverStats::DriverStats(stats::Registry& r)
    : jobs_submitted(r.counter("driver.jobs.submitted", "", "Jobs accepted by submit")),
      jobs_completed(r.counter("driver.jobs.completed", "", "Jobs ended COMPLETED")),
      jobs_failed(r.counter("driver.jobs.failed", "", "Jobs ended FAILED")),
      jobs_cancelled(r.counter("driver.jobs.cancelled", "", "Jobs ended CANCELLED_USER or CANCELLED_SYSTEM")),
      submits_refused(r.counter("driver.jobs.refused", "", "Submissions refused by validation")),
      work_paused(r.counter("driver.work.paused", "", "Work ended PAUSED (preempted or its uid paused)")),
      work_resumed(r.counter("driver.work.resumed", "", "Work started RESUMED after a pause")),
      preemptions(r.counter("driver.preemption.count", "", "Command buffers made to give up their channel")),
      checkpoints(
          r.counter("driver.preemption.checkpoint", "", "Preemptions by checkpoint (save and resume)")),
      kills(r.counter("driver.preemption.kill", "", "Preemptions by kill (restart from the beginning)")),
      drains(r.counter("driver.preemption.drain", "", "Preemptions decided as drain (let it finish)")),
      resumes(r.counter("driver.preemption.resumes", "", "Checkpointed command buffers resumed")),
      preempt_latency_ns_total(r.value("driver.preemption.latency_ns_total", "ns",
                                       "Σ time from preempt request to the channel being free")),
      preempt_latency_ns_max(r.value("driver.preemption.latency_ns_max", "ns", "Longest preemption latency")),
      save_bytes(r.counter("driver.preemption.save_bytes", "B", "SRAM bytes saved by checkpoints")),
      restore_bytes(r.counter("driver.preemption.restore_bytes", "B", "SRAM bytes restored on resume")),
      killed_work_ns(r.value("driver.preemption.killed_work_ns", "ns", "Channel time thrown away by kills")),
      hangs(r.counter("driver.watchdog.hangs", "", "Command buffers found hung by the watchdog")),
      hang_retries(r.counter("driver.watchdog.retries", "",
                             "Hung command buffers retried from their start after the channel reset")),
      channel_resets(r.counter("driver.channel_resets", "", "Channel resets (cancel, kill, hang)")),
      channel_errors(
          r.counter("driver.channel_errors", "", "ERROR interrupts (DMA fault, ECC, bad descriptor)")),
      dma_faults(r.counter("driver.errors.dma_fault", "", "ERROR interrupts with code DMA fault")),
      sram_ecc_errors(
          r.counter("driver.errors.sram_ecc", "", "ERROR interrupts with code uncorrectable SRAM ECC")),
      other_channel_errors(r.counter("driver.errors.other", "",
                                     "ERROR interrupts with another code (bad descriptor, SRAM overflow)")),
      dvfs_changes(r.counter("driver.thermal.dvfs_changes", "", "Operating-point changes by the governor")),
      thermal_shutdowns(r.counter("driver.thermal.shutdowns", "",
                                  "Thermal shutdowns: the NPU halted at SHUTDOWN severity until it cooled")),
      severity_ns{} {
  for (int i = 0; i <= static_cast<int>(ThermalSeverity::SHUTDOWN); ++i) {
    std::string name = to_string(static_cast<ThermalSeverity>(i));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    severity_ns[i] =
        &r.value("driver.thermal.time_at." + name + "_ns", "ns", "Simulated time at this thermal severity");
  }
}

Driver::Driver(Hardware hw, Os& os, DriverConfig cfg, PlatformData platform)
    : hw_(hw),
      os_(os),
      cfg_(std::move(cfg)),
      lock_(os),
      memory_(std::make_unique<DeviceMemory>()),
      contexts_(std::make_unique<ContextTable>(*memory_)),
      thermal_(std::make_unique<ThermalManager>(
          hw_.regs, os_, lock_, cfg_.thermal,
          ThermalManager::Hooks{[this](const std::string& why) { jobs_->fail_all(why); },
                                [this] { jobs_->dispatch(); }})),
      interrupts_(std::make_unique<Interrupts>(
          hw_, os_, lock_, cfg_,
          Interrupts::Handlers{[this](uint32_t ch, uint32_t bits) { jobs_->channel_event(ch, bits); },
                               [this] { thermal_->event(); }, [this] { jobs_->dispatch(); }})),
      jobs_(std::make_unique<JobScheduler>(
          hw_, os_, cfg_.sched, info_, *memory_, *interrupts_,
          JobScheduler::Hooks{[this] { return probed_ && !thermal_->halted(); },
                              [this] { watchdog_->kick(); }})),
      watchdog_(std::make_unique<Watchdog>(os_, lock_, cfg_.timeouts, *jobs_)) {
  info_.platform = platform;
}
Driver::~Driver() = default;

Result<void> Driver::probe() {
  auto log = logger();
  auto scheduler = make_scheduling_policy(cfg_.scheduler, cfg_.sched);
  if (!scheduler)
    return make_error("probe: driver.scheduler: unknown policy \"" + cfg_.scheduler + "\"", EINVAL);
  auto preemption = make_preemption_policy(cfg_.preemption);
  if (!preemption)
    return make_error("probe: driver.preemption: unknown policy \"" + cfg_.preemption + "\"", EINVAL);
  jobs_->set_policies(std::move(scheduler), std::move(preemption));
  if (!stats_) {
    own_stats_ = std::make_unique<stats::Registry>();
    stats_ = own_stats_.get();
  }
  st_ = std::make_unique<DriverStats>(*stats_);
  jobs_->set_stats(st_.get());
  watchdog_->set_stats(st_.get());

  const uint32_t id = hw_.regs.read32(regs::NPU_ID);
  if (id != regs::kNpuIdValue)
    return make_error("probe: NPU_ID reads 0x" + std::to_string(id) + ", not an npusim NPU", ENODEV);
  info_.hw_version = hw_.regs.read32(regs::NPU_VERSION);
  const uint32_t config = hw_.regs.read32(regs::NPU_CONFIG);
  info_.channels = regs::CONFIG_CHANNELS.get(config);
  info_.array_rows = regs::CONFIG_ARRAY_ROWS.get(config);
  info_.array_cols = regs::CONFIG_ARRAY_COLS.get(config);
  if (info_.channels == 0 || info_.channels > regs::kMaxChannels)
    return make_error("probe: NPU_CONFIG reports no channels", ENODEV);
  if (hw_.memory.size() <= cfg_.kernel_reserved_bytes)
    return make_error("probe: device memory too small", ENODEV);
  info_.sram_bytes = uint64_t{hw_.regs.read32(regs::NPU_SRAM_KIB)} * 1024;
  const uint32_t caps = hw_.regs.read32(regs::NPU_CAPS);
  info_.save_restore = caps & regs::CAPS_SAVE_RESTORE;
  info_.functional = caps & regs::CAPS_FUNCTIONAL;
  info_.fault_injection = caps & regs::CAPS_FAULT_INJECT;
  // The weight-memory region, when the hardware has one; otherwise weights share the general pool.
  const uint64_t mib = 1ull << 20;
  const uint64_t weight_base = static_cast<uint64_t>(hw_.regs.read32(regs::WEIGHT_MEM_BASE_MIB)) * mib;
  const uint64_t weight_bytes = static_cast<uint64_t>(hw_.regs.read32(regs::WEIGHT_MEM_MIB)) * mib;
  if (auto m = memory_->configure(hw_.memory.size(), cfg_.kernel_reserved_bytes, weight_base, weight_bytes);
      !m)
    return make_error("probe: " + m.error(), ENODEV);
  hw_.regs.write32(regs::GLOBAL_CTRL, regs::GLOBAL_CTRL_SOFT_RESET);
  jobs_->probe();
  interrupts_->probe(info_.channels);
  watchdog_->probe();
  const uint32_t config2 = hw_.regs.read32(regs::NPU_CONFIG2);
  info_.vector_lanes = regs::CONFIG2_VECTOR_LANES.get(config2);
  info_.sram_banks = regs::CONFIG2_SRAM_BANKS.get(config2);
  thermal_->set_stats(st_.get());
  thermal_->probe(regs::CONFIG2_DVFS_POINTS.get(config2), info_);
  info_.dram_bytes = hw_.memory.size();
  info_.weight_memory_bytes = memory_->weight_pool_bytes();
  info_.opp = thermal_->opp();
  if (!thermal_->governor() && cfg_.thermal.governor != "none" && !info_.opps.empty())
    return make_error("probe: driver.thermal.governor: cannot build \"" + cfg_.thermal.governor + "\"",
                      EINVAL);
  jobs_->set_tracer(tracer_);
  thermal_->set_tracer(tracer_);
  interrupts_->install();
  hw_.regs.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.put((1u << info_.channels) - 1) |
                                       (info_.opps.empty() ? 0 : regs::IRQ_THERMAL));
  interrupts_->start();
  watchdog_->start();
  thermal_->start();
  probed_ = true;
  log->info(
      "probe: NPU version 0x{:08x}, {} channels, {}x{} arrays, {} KiB SRAM per channel, save/restore {}, "
      "scheduler {}, preemption {}, governor {}",
      info_.hw_version, info_.channels, info_.array_rows, info_.array_cols, info_.sram_bytes / 1024,
      info_.save_restore ? "yes" : "no", jobs_->scheduler().name(), jobs_->preemption().name(),
      thermal_->governor() ? thermal_->governor()->name() : "none");
  return {};
}

Result<ContextId> Driver::open_context(int uid, int pid) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  if (!probed_) return make_error("open_context: device not probed", ENODEV);
  const ContextId id = contexts_->open(uid, pid);
  jobs_->open_context(id);
  logger()->debug("context {} opened for uid {} pid {}", id, uid, pid);
  return id;
}

Result<void> Driver::close_context(ContextId ctx) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  if (auto c = contexts_->find(ctx); !c) return with_context("close_context: ", c);
  jobs_->close_context(ctx);
  contexts_->close(ctx);
  jobs_->dispatch();
  return {};
}

Result<std::shared_ptr<Fence>> Driver::submit(ContextId ctx, JobRequest request) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  auto refuse = [this](std::string why, int code) {
    if (st_) ++st_->submits_refused;
    return make_error("submit: " + std::move(why), code);
  };
  if (!probed_) return refuse("device not probed", ENODEV);
  if (thermal_->halted())
    return refuse("NPU halted by a thermal shutdown; it takes work again below the critical trip", EAGAIN);
  auto c = contexts_->find(ctx);
  if (!c) return refuse(c.error(), c.error_code());
  const int uid = (*c)->uid;
  const SchedulingConfig* own = scheduling_config(uid);
  if (own && !own->has_direct_access)
    return refuse("uid " + std::to_string(uid) + " has no direct NPU access", EPERM);
  int work_uid = uid;
  if (request.attributed_uid >= 0 && request.attributed_uid != uid) {
    if (!own || !own->can_attribute_other_uid)
      return refuse("uid " + std::to_string(uid) + " may not attribute work to uid " +
                        std::to_string(request.attributed_uid),
                    EPERM);
    work_uid = request.attributed_uid;
  }
  if (request.job_priority < kHighestPriority || request.job_priority > kLowestPriority)
    return refuse("job priority " + std::to_string(request.job_priority) + " outside [0, 1000]", EINVAL);
  if (request.stages.empty()) return refuse("no stages", EINVAL);
  std::set<BoHandle> used;
  for (size_t s = 0; s < request.stages.size(); ++s) {
    if (request.stages[s].empty())
      return refuse("stage " + std::to_string(s) + " has no command buffers", EINVAL);
    for (size_t b = 0; b < request.stages[s].size(); ++b) {
      const auto& cmds = request.stages[s][b];
      const std::string where = "stage " + std::to_string(s) + " buffer " + std::to_string(b);
      if (cmds.empty()) return refuse(where + ": empty command buffer", EINVAL);
      if (auto v = contexts_->validate_dma(**c, cmds, &used); !v)
        return refuse(where + ": " + v.error(), EINVAL);
    }
  }
  const JobScheduler::Submitter who{ctx, uid, (*c)->pid, work_uid,
                                    effective_priority(scheduling_config(work_uid), request.job_priority)};
  auto fence = jobs_->submit(who, std::move(request), std::move(used));
  if (!fence) return refuse(fence.error(), fence.error_code());
  return fence;
}

Result<void> Driver::cancel(ContextId ctx, JobId id) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  return jobs_->cancel(ctx, id);
}

void Driver::wait(Fence& fence) {
  while (!fence.signalled()) fence.waiters->wait();
}

void Driver::cancel_uid_work(int uid) {
  std::lock_guard guard(lock_);
  jobs_->cancel_uid(uid);
}

void Driver::set_uid_paused(int uid, bool paused) {
  std::lock_guard guard(lock_);
  jobs_->set_uid_paused(uid, paused);
}

void Driver::set_work_observer(WorkObserver* observer) { jobs_->set_observer(observer); }
size_t Driver::unfinished_jobs() const { return jobs_->unfinished_jobs(); }
size_t Driver::unsignalled_fences() const { return jobs_->unfinished_jobs(); }
uint64_t Driver::running_ns(int uid) const { return jobs_->running_ns(uid); }

uint64_t Driver::allocated_bytes() const { return memory_->allocated_bytes(); }
size_t Driver::live_contexts() const { return contexts_->live_contexts(); }
size_t Driver::live_bos() const { return contexts_->live_bos(); }
void Driver::inject_alloc_failures(uint32_t every) { memory_->inject_failures(every); }
uint64_t Driver::injected_alloc_failures() const { return memory_->injected_failures(); }

Result<BufferObject> Driver::alloc_bo(ContextId ctx, uint64_t size, bool weights) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  return contexts_->alloc_bo(ctx, size, weights);
}

Result<void> Driver::free_bo(ContextId ctx, BoHandle handle) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  return contexts_->free_bo(ctx, handle, [&] { return jobs_->bo_idle(ctx, handle); });
}

Result<void> Driver::write_bo(ContextId ctx, BoHandle handle, uint64_t offset, const void* src,
                              uint64_t len) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  auto b = contexts_->bo(ctx, handle, offset, len);
  if (!b) return with_context("write_bo: ", b);
  if (!hw_.memory.write((*b)->device_address + offset, src, len))
    return make_error("write_bo: bus error", EIO);
  return {};
}

Result<void> Driver::read_bo(ContextId ctx, BoHandle handle, uint64_t offset, void* dst, uint64_t len) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  auto b = contexts_->bo(ctx, handle, offset, len);
  if (!b) return with_context("read_bo: ", b);
  if (!hw_.memory.read((*b)->device_address + offset, dst, len)) return make_error("read_bo: bus error", EIO);
  return {};
}

uint64_t Driver::weight_memory_bytes() const { return probed_ ? info_.weight_memory_bytes : 0; }

void Driver::set_scheduling_config(const SchedulingConfig& cfg) { sched_configs_[cfg.uid] = cfg; }
void Driver::clear_scheduling_configs() { sched_configs_.clear(); }

const SchedulingConfig* Driver::scheduling_config(int uid) const {
  auto it = sched_configs_.find(uid);
  return it == sched_configs_.end() ? nullptr : &it->second;
}

void Driver::set_thermal_observer(ThermalObserver* observer) { thermal_->set_observer(observer); }
ThermalSeverity Driver::thermal_severity() const { return thermal_->severity(); }
bool Driver::thermal_halted() const { return thermal_->halted(); }
void Driver::update_stats() { thermal_->update_stats(); }

}  // namespace npu::drv
