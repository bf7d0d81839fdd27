// The driver's jobs and their placement on channels: unfinished jobs and their command buffers, the run
// queues, what each channel runs, the scheduling and preemption policies' decisions, the predictions they
// use (channel time per descriptor, checkpoint cost, each context's slowdown), the job lifecycle with its
// WorkInfo events, and what a channel's interrupt means for its job. Not thread-safe: the driver, the
// bottom half and the watchdog call it under the big lock. What it needs of the driver comes through
// Hooks.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "npu/drv/driver.h"

namespace npu::drv {

class DeviceMemory;
class Interrupts;
struct DriverStats;

class JobScheduler {
 public:
  struct Job;
  // One command buffer of a job's stage: the unit placed on a channel.
  struct Task {
    Job* job = nullptr;
    uint32_t stage = 0, index = 0;
    uint64_t cmd_address = 0;  // kernel copy of the command buffer
    uint32_t count = 0;
    uint32_t resume_index = 0;  // first descriptor of the next dispatch
    uint64_t save_area = 0;     // kernel buffer holding its checkpoint (0: none)
    uint32_t saved_bytes = 0;
    uint32_t hangs = 0;
    uint64_t order = 0;      // FIFO position (re-queued tasks keep theirs)
    uint64_t cycles = 0;     // CH_CYCLES of its dispatches so far
    uint64_t queued_ns = 0;  // when it last entered a run queue (round-robin turns)
  };
  struct Job {
    JobId id = 0;
    QueueLevel level = QueueLevel::NORMAL;
    ContextId ctx = 0;
    JobRequest request;
    WorkInfo work;
    std::vector<std::vector<Task>> tasks;  // per stage
    uint32_t stage = 0;                    // the stage in progress
    uint32_t remaining = 0;                // tasks of that stage not yet completed
    uint32_t running = 0;                  // tasks on a channel now
    uint64_t stage_start_ns = 0;           // first dispatch of a task of the stage in progress
    bool stage_started = false;
    bool paused = false;                      // reported PAUSED, not yet RESUMED
    std::set<BoHandle> bos;                   // buffers its DMA descriptors touch
    std::vector<uint32_t> stage_descriptors;  // per stage: its longest command buffer (predictions)
    std::shared_ptr<Fence> fence;
  };
  // What a channel is doing.
  struct Slot {
    Task* task = nullptr;
    uint64_t started_ns = 0;
    bool preempting = false;
    PreemptMechanism mechanism = PreemptMechanism::CHECKPOINT;
    uint64_t preempt_ns = 0;
  };
  // Who submits a validated job, and at what effective priority.
  struct Submitter {
    ContextId ctx = 0;
    int uid = 0, pid = 0;
    int work_uid = 0;  // the uid the work is done for
    int effective_priority = 0;
  };
  struct Hooks {
    std::function<bool()> may_dispatch;  // probed and not halted by a thermal shutdown
    std::function<void()> started;       // a buffer went on a channel (wakes the watchdog)
  };

  JobScheduler(Hardware& hw, Os& os, const SchedulerParams& params, const DeviceInfo& info,
               DeviceMemory& memory, Interrupts& interrupts, Hooks hooks);
  ~JobScheduler();

  void set_policies(std::unique_ptr<SchedulingPolicy> scheduler,
                    std::unique_ptr<PreemptionPolicy> preemption);
  const SchedulingPolicy& scheduler() const { return *scheduler_; }
  const PreemptionPolicy& preemption() const { return *preemption_; }
  // Per-channel state and the first checkpoint-cost guess, once probe read the channels and the SRAM.
  void probe();
  void set_stats(DriverStats* stats) { st_ = stats; }
  // Tracks of the run-queue levels and the channels (nullptr = off).
  void set_tracer(trace::Tracer* tracer);
  void set_observer(WorkObserver* observer) { observer_ = observer; }

  // A context's slowdown history lives from open to close.
  void open_context(ContextId ctx);
  // Cancels the context's jobs and forgets its history.
  void close_context(ContextId ctx);

  // Copies a validated job's command buffers into kernel memory and queues its first stage.
  Result<std::shared_ptr<Fence>> submit(const Submitter& who, JobRequest request, std::set<BoHandle> bos);
  Result<void> cancel(ContextId ctx, JobId id);
  void cancel_uid(int uid);
  void set_uid_paused(int uid, bool paused);
  // Fails every unfinished job with `why` (thermal shutdown).
  void fail_all(const std::string& why);
  // EBUSY while an unfinished job of the context uses the buffer.
  Result<void> bo_idle(ContextId ctx, BoHandle handle) const;

  // Places waiting buffers on free channels, preempting where the policies say so.
  void dispatch();
  // A channel's interrupt, from the bottom half.
  void channel_event(uint32_t channel, uint32_t bits);

  // For the watchdog: what each channel runs, the scheduler's tick, and recovery.
  const std::vector<Slot>& slots() const { return slots_; }
  uint64_t tick_ns() const { return scheduler_->tick_ns(); }
  void abort_channel(uint32_t channel);
  // Puts the buffer back in its run queue to start over from its first descriptor (no checkpoint).
  void restart(Task* task);
  void fail_job(JobId id, const std::string& error);

  size_t unfinished_jobs() const { return jobs_.size(); }
  uint64_t running_ns(int uid) const;

 private:
  // A context's history the policy reads: its slowdown over its completed jobs (TaskView::context_slowdown)
  // and its recent submissions (TaskView::context_recent_jobs).
  struct Slowdown {
    double best_ratio = 0;         // least turnaround / predicted length seen
    double slowdown = 1.0;         // moving average of turnaround / predicted length over best_ratio
    std::deque<uint64_t> submits;  // its jobs' submission times within the rate window, oldest first

    // Submissions after `now - window` count; older ones are dropped here and skipped by recent_jobs.
    static uint64_t window_start(uint64_t now, uint64_t window) { return now > window ? now - window : 0; }
    void record_submit(uint64_t now, uint64_t window) {
      while (!submits.empty() && submits.front() <= window_start(now, window)) submits.pop_front();
      submits.push_back(now);
    }
    uint32_t recent_jobs(uint64_t now, uint64_t window) const {
      const auto from = std::upper_bound(submits.begin(), submits.end(), window_start(now, window));
      return static_cast<uint32_t>(submits.end() - from);
    }
  };

  uint64_t now() const { return os_.now_ns(); }

  // Run queues and channels (job_scheduler.cpp).
  void queue_stage(Job& job);
  void requeue(Task* task);
  void start(uint32_t channel, Task* task);
  bool runnable(const Task* task) const;
  TaskView view(const Task* task, uint32_t running_channel) const;
  uint64_t estimate_remaining_ns(const Task* task, uint32_t done) const;
  // Returns the mechanism used (a checkpoint without kernel memory for its save area becomes a kill).
  PreemptMechanism preempt(uint32_t channel, PreemptMechanism mechanism);
  void leave_channel(uint32_t channel);

  // Channel events (irq.cpp).
  void task_done(uint32_t channel);
  void task_preempted(uint32_t channel);
  void task_failed(uint32_t channel, const std::string& error);

  // Job lifecycle (job.cpp).
  void end_job(std::shared_ptr<Job> job, JobStatus status, WorkEndReason reason, const std::string& error);
  void note_paused(Job& job);
  void maybe_idle();
  void note_slowdown(const Job& job);
  // Whether the scheduler would hold `candidate` back from channel `ch` once it is free (backfilling),
  // the other channels running what they run now.
  bool held_from_freed_channel(const TaskView& candidate, uint32_t ch) const;
  void release_save_area(Task* task);

  Hardware& hw_;
  Os& os_;
  const SchedulerParams& params_;
  const DeviceInfo& info_;
  DeviceMemory& memory_;
  Interrupts& interrupts_;
  Hooks hooks_;
  std::unique_ptr<SchedulingPolicy> scheduler_;
  std::unique_ptr<PreemptionPolicy> preemption_;

  std::map<JobId, std::shared_ptr<Job>> jobs_;  // not yet ended
  JobId next_job_ = 1;
  uint64_t next_order_ = 1;
  std::array<std::deque<Task*>, kQueueLevels> run_queues_;
  std::vector<Slot> slots_;  // per channel
  std::set<int> paused_uids_;
  std::map<ContextId, Slowdown> slowdown_;  // per open context
  double ns_per_descriptor_ = 0;            // running average of channel time per descriptor (predictions)
  double checkpoint_ns_estimate_ = 0;       // running average of checkpoint latency (save; restore ≈ same)

  WorkObserver* observer_ = nullptr;
  DriverStats* st_ = nullptr;
  trace::Tracer* tracer_ = nullptr;
  std::vector<uint32_t> queue_tracks_, channel_tracks_;
};

}  // namespace npu::drv
