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

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace npu::drv {

// A snapshot of one command buffer, waiting or running.
struct TaskView {
  uint64_t job = 0;
  uint32_t level = 0;                    // run-queue level, 0 = REALTIME
  int effective_priority = 0;            // 0 best … 1000
  uint64_t submit_ns = 0;                // of its job
  uint64_t order = 0;                    // FIFO position within the driver (smaller = earlier)
  uint64_t waited_ns = 0;                // time its job has spent waiting so far
  uint64_t estimated_remaining_ns = 0;   // predicted channel time still needed
  uint64_t ran_ns = 0;                   // channel time since its current dispatch (running tasks)
  bool preempting = false;               // a preemption of it is already in flight
};

enum class PreemptMechanism { CHECKPOINT, KILL, DRAIN };
const char* to_string(PreemptMechanism m);

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual const char* name() const = 0;
  // Index into `waiting` (non-empty) of the command buffer to start next.
  virtual size_t pick(std::span<const TaskView> waiting) const = 0;
  // Index into `running` of a command buffer `candidate` may preempt, or nullopt (never one already
  // preempting).
  virtual std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const = 0;
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
std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const std::string& name);
// "checkpoint", "kill", "drain", "predictive" (PREMA's dynamic choice: drain when the victim finishes
// sooner than a checkpoint would take, kill when it has done less work than a checkpoint costs, else
// checkpoint). Without hardware save/restore every choice of checkpoint becomes kill.
std::unique_ptr<PreemptionPolicy> make_preemption_policy(const std::string& name);

const std::vector<std::string>& scheduling_policy_names();
const std::vector<std::string>& preemption_policy_names();

}  // namespace npu::drv
