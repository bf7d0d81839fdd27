// The driver's pluggable scheduling decisions, picked by name from config (driver.scheduler,
// driver.preemption):
//   SchedulingPolicy  — which waiting command buffer runs next on a free channel, and whether it may take
//                       a channel from a running one;
//   PreemptionPolicy  — how a running command buffer gives its channel up: CHECKPOINT (save live SRAM,
//                       resume later), KILL (drop progress, restart from its first descriptor) or DRAIN
//                       (let it finish).
// Both are eligibility-only: they look at snapshots (TaskView) and must not change driver state, so the
// driver can ask them at any time and a run stays deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"

namespace npu::drv {

// A snapshot of one command buffer, waiting or running.
struct TaskView {
  uint64_t job = 0;
  uint32_t level = 0;                   // run-queue level, 0 = REALTIME
  int effective_priority = 0;           // 0 best … 1000
  uint64_t submit_ns = 0;               // of its job
  uint64_t order = 0;                   // FIFO position within the driver (smaller = earlier)
  uint64_t waited_ns = 0;               // time its job has spent waiting so far
  uint64_t estimated_remaining_ns = 0;  // predicted channel time still needed
  uint64_t ran_ns = 0;                  // channel time since its current dispatch (running tasks)
  bool preempting = false;              // a preemption of it is already in flight
  uint64_t now_ns = 0;                  // when the snapshot was taken
  uint64_t deadline_ns = 0;             // its job's deadline (absolute; 0: none)
  uint64_t queued_wait_ns = 0;          // waiting tasks: time since it last entered a run queue
  // Predicted channel time of its whole job: still needed (this buffer's rest plus the longest buffer of
  // each later stage) and in all (every stage's longest buffer).
  uint64_t job_remaining_ns = 0;
  uint64_t job_total_ns = 0;
  // Its context's recent slowdown: a moving average of (turnaround / predicted length) of its completed
  // jobs over the best it ever had (1: as fast as its jobs run alone). Lets a policy be fair to apps.
  double context_slowdown = 1.0;
  // Jobs its context submitted in the last SchedulerParams::rate_window_ns, this one's included.
  uint32_t context_recent_jobs = 1;
  // Command buffers of its job's next stage (0: this is the last stage).
  uint32_t next_stage_buffers = 0;
};

// Knobs of the schedulers that have any (declared under driver.sched.* with their defaults and reasons).
struct SchedulerParams {
  // "rr": the time slice of each run-queue level (REALTIME, HIGH, NORMAL, LOW), longer for more urgent
  // levels, as GPU and NPU firmware schedulers give per-priority quanta.
  std::array<uint64_t, 4> rr_quantum_ns{4'000'000, 2'000'000, 1'000'000, 500'000};
  // "adaptive": the weight of each level in the share of the NPU left by deadline work.
  std::array<double, 4> weight{1.0, 1.0, 1.0, 1.0};
  // "adaptive": a job without a deadline takes a running one's channel only when the running one has this
  // many times more predicted work left (and is not a candidate against it).
  double preempt_ratio = 4.0;
  // "adaptive": a job waiting more than this many times its predicted length is starved: it goes ahead
  // of every job without a deadline and keeps its channel.
  double starvation_bound = 20.0;
  // "adaptive": the waiting jobs whose tokens (weight · (1 + time in system / predicted length)) reach this
  // share of the most any waiting job holds are the candidates; the shortest of them runs. 1: highest
  // response ratio next (fairest); 0: shortest remaining work first (least mean slowdown).
  double candidate_share = 0.9;
  // "adaptive": weight of each completed job in its context's moving-average slowdown (0: contexts'
  // history ignored). Tokens are multiplied by that slowdown, so an app whose jobs have lately been slowed
  // most becomes a candidate sooner.
  double history = 0.5;
  // "adaptive": other work runs ahead of waiting deadline work only while, with every predicted length
  // stretched by this factor, each deadline would still be met (slack stealing); 0: deadline work always
  // goes first.
  double deadline_stretch = 1.5;
  // "adaptive": candidates are ranked by remaining work times their app's recent demand (jobs submitted
  // in this window times the job's predicted length), since the metrics are per app: a job of an app
  // that submits few jobs carries more of its app's mean slowdown. 0: by remaining work alone.
  uint64_t rate_window_ns = 100'000'000;
  // "adaptive": a free channel stays idle rather than start a buffer that would still run when a
  // better-ranked running job's stage ends and that job's next stage needs the channel (backfilling).
  bool backfill = true;
  // "adaptive": while work runs, the waiting jobs are weighed again this often: their tokens grow with
  // time, so one may have become a candidate against running work with no submission or completion to
  // notice it (0: only on those events).
  uint64_t recheck_ns = 1'000'000;
};

enum class PreemptMechanism { CHECKPOINT, KILL, DRAIN };
inline constexpr enums::Entry<PreemptMechanism> kPreemptMechanismNames[] = {
    {PreemptMechanism::CHECKPOINT, "checkpoint"},
    {PreemptMechanism::KILL, "kill"},
    {PreemptMechanism::DRAIN, "drain"}};
constexpr const auto& enum_table(PreemptMechanism) { return kPreemptMechanismNames; }
inline const char* to_string(PreemptMechanism m) { return enums::to_string(m); }

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual const char* name() const = 0;
  // Index into `waiting` (non-empty) of the command buffer to start next.
  virtual size_t pick(std::span<const TaskView> waiting) const = 0;
  // Index into `running` of a command buffer `candidate` may preempt, or nullopt (never one already
  // preempting).
  virtual std::optional<size_t> victim(const TaskView& candidate,
                                       std::span<const TaskView> running) const = 0;
  // Whether hold() may ever say yes: the driver then reads the running buffers' progress (MMIO reads, which
  // take simulated time) on every free channel.
  virtual bool may_hold() const { return false; }
  // Whether `chosen` should not start on one of `free_channels` idle channels, which stay idle for the
  // next stage of a job in `running` (the buffers on channels, their jobs runnable). Default: never.
  virtual bool hold(const TaskView& /*chosen*/, std::span<const TaskView> /*running*/,
                    uint32_t /*free_channels*/) const {
    return false;
  }
  // > 0: the driver asks again at least this often while work runs (a time slice may have ended with no
  // event to notice it); 0: only on submissions and completions.
  virtual uint64_t tick_ns() const { return 0; }
};

// What giving up a channel would cost, as the driver estimates it.
struct PreemptCosts {
  uint64_t checkpoint_ns = 0;  // save + restore of the live SRAM through DRAM
  uint64_t kill_lost_ns = 0;   // work thrown away by a restart
  bool save_restore = false;   // the hardware can checkpoint
};

class PreemptionPolicy {
 public:
  virtual ~PreemptionPolicy() = default;
  virtual const char* name() const = 0;
  virtual PreemptMechanism choose(const TaskView& victim, const TaskView& candidate,
                                  const PreemptCosts& costs) const = 0;
};

// "priority" (preemptive highest-priority-first, FIFO within a level), "fcfs" (non-preemptive, submit
// order, priorities ignored), "prema" (PREMA-style tokens: priority × normalised waiting, shortest
// predicted job among the candidates). nullptr for an unknown name.
// "rr" (time slices per level, round robin over every waiting buffer), "edf" (earliest deadline first,
// jobs without a deadline after, by priority), "adaptive" (npusim's default policy: the shortest remaining
// work among fair candidates, starvation-bounded, with deadlines kept by slack stealing; see
// sched_policy.cpp).
std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const std::string& name,
                                                         const SchedulerParams& params = {});
// "checkpoint", "kill", "drain", "predictive" (PREMA's dynamic choice: drain when the victim finishes
// sooner than a checkpoint would take, kill when it has done less work than a checkpoint costs, else
// checkpoint). Without hardware save/restore every choice of checkpoint becomes kill.
// "adaptive": the cheapest way per case — drain when the victim ends sooner than a checkpoint would take
// (and the candidate has no deadline the wait would break), kill when less work is lost than a checkpoint
// costs, else checkpoint.
std::unique_ptr<PreemptionPolicy> make_preemption_policy(const std::string& name);

// The names of the rows of each family's factory table, in table order (the schema's choices).
const std::vector<std::string>& scheduling_policy_names();
const std::vector<std::string>& preemption_policy_names();

}  // namespace npu::drv
