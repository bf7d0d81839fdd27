// Placing command buffers on channels: run queues, the scheduling policy's picks, and preemption by
// checkpoint, kill or drain when more urgent work waits and no channel is free.
#include "job_scheduler.h"

#include <algorithm>

#include "device_memory.h"
#include "driver_stats.h"
#include "interrupts.h"
#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver"); }

// Prediction before any measurement: a descriptor of a typical tile at 1 GHz.
constexpr double kInitialNsPerDescriptor = 1000.0;

}  // namespace

JobScheduler::JobScheduler(Hardware& hw, Os& os, const SchedulerParams& params, const DeviceInfo& info,
                           DeviceMemory& memory, Interrupts& interrupts, Hooks hooks)
    : hw_(hw),
      os_(os),
      params_(params),
      info_(info),
      memory_(memory),
      interrupts_(interrupts),
      hooks_(std::move(hooks)) {}

JobScheduler::~JobScheduler() = default;

void JobScheduler::set_policies(std::unique_ptr<SchedulingPolicy> scheduler,
                                std::unique_ptr<PreemptionPolicy> preemption) {
  scheduler_ = std::move(scheduler);
  preemption_ = std::move(preemption);
}

void JobScheduler::probe() {
  slots_.assign(info_.channels, Slot{});
  checkpoint_ns_estimate_ = info_.sram_bytes / 16.0;  // until measured: the whole SRAM at 16 B/ns
}

void JobScheduler::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (!tracer_) return;
  for (const char* level : {"REALTIME", "HIGH", "NORMAL", "LOW"})
    queue_tracks_.push_back(tracer_->track("driver", std::string("queue ") + level));
  for (uint32_t ch = 0; ch < info_.channels; ++ch)
    channel_tracks_.push_back(tracer_->track("driver", "ch" + std::to_string(ch) + " jobs"));
}

uint64_t JobScheduler::running_ns(int uid) const {
  uint64_t ns = 0;
  for (const Slot& s : slots_)
    if (s.task && s.task->job->work.original_uid == uid) ns += now() - s.started_ns;
  return ns;
}

void JobScheduler::queue_stage(Job& job) {
  job.remaining = static_cast<uint32_t>(job.tasks[job.stage].size());
  job.stage_started = false;
  for (auto& t : job.tasks[job.stage]) {
    t.order = next_order_++;
    t.queued_ns = now();
    run_queues_[static_cast<uint32_t>(job.level)].push_back(&t);
  }
}

void JobScheduler::requeue(Task* task) {
  task->queued_ns = now();
  run_queues_[static_cast<uint32_t>(task->job->level)].push_front(task);
}

bool JobScheduler::runnable(const Task* task) const {
  return !paused_uids_.count(task->job->work.original_uid);
}

uint64_t JobScheduler::estimate_remaining_ns(const Task* task, uint32_t done) const {
  const double per = ns_per_descriptor_ > 0 ? ns_per_descriptor_ : kInitialNsPerDescriptor;
  return static_cast<uint64_t>(per * (task->count > done ? task->count - done : 0));
}

TaskView JobScheduler::view(const Task* task, uint32_t channel) const {
  const Job& job = *task->job;
  TaskView v;
  v.job = job.id;
  v.level = static_cast<uint32_t>(job.level);
  v.effective_priority = job.work.effective_priority;
  v.submit_ns = job.fence->submit_ns;
  v.order = task->order;
  const uint64_t in_system = now() - job.fence->submit_ns;
  v.waited_ns = in_system > job.fence->device_ns ? in_system - job.fence->device_ns : 0;
  if (channel < info_.channels) {
    const Slot& s = slots_[channel];
    const uint32_t done = hw_.regs.read32(regs::channel_base(channel) + regs::CH_PROGRESS);
    v.estimated_remaining_ns = estimate_remaining_ns(task, done);
    v.ran_ns = now() - s.started_ns;
    v.preempting = s.preempting;
  } else {
    v.estimated_remaining_ns = estimate_remaining_ns(task, task->resume_index);
    v.queued_wait_ns = now() - task->queued_ns;
  }
  v.now_ns = now();
  v.deadline_ns = job.request.deadline_ns;
  const double per = ns_per_descriptor_ > 0 ? ns_per_descriptor_ : kInitialNsPerDescriptor;
  uint64_t later = 0, total = 0;
  for (size_t st = 0; st < job.stage_descriptors.size(); ++st) {
    total += job.stage_descriptors[st];
    if (st > task->stage) later += job.stage_descriptors[st];
  }
  v.job_remaining_ns = v.estimated_remaining_ns + static_cast<uint64_t>(per * static_cast<double>(later));
  v.job_total_ns = std::max<uint64_t>(static_cast<uint64_t>(per * static_cast<double>(total)), 1);
  if (task->stage + 1 < job.tasks.size())
    v.next_stage_buffers = static_cast<uint32_t>(job.tasks[task->stage + 1].size());
  if (auto c = slowdown_.find(job.ctx); c != slowdown_.end()) {
    v.context_slowdown = c->second.slowdown;
    v.context_recent_jobs = std::max<uint32_t>(1, c->second.recent_jobs(now(), params_.rate_window_ns));
  }
  return v;
}

// A completed job's turnaround over its predicted length, against the best its context ever had: an
// app's own jobs calibrate the prediction, so a context whose jobs are always slower than predicted (fixed
// overheads) is not taken for a slowed one.
void JobScheduler::note_slowdown(const Job& job) {
  auto c = slowdown_.find(job.ctx);
  if (c == slowdown_.end() || params_.history <= 0) return;
  const double per = ns_per_descriptor_ > 0 ? ns_per_descriptor_ : kInitialNsPerDescriptor;
  double predicted = 0;
  for (uint32_t d : job.stage_descriptors) predicted += per * d;
  if (predicted <= 0) return;
  const double ratio = static_cast<double>(job.fence->end_ns - job.fence->submit_ns) / predicted;
  Slowdown& ctx = c->second;
  ctx.best_ratio = ctx.best_ratio > 0 ? std::min(ctx.best_ratio, ratio) : ratio;
  const double slowdown = ctx.best_ratio > 0 ? ratio / ctx.best_ratio : 1.0;
  ctx.slowdown += params_.history * (slowdown - ctx.slowdown);
}

void JobScheduler::dispatch() {
  if (!hooks_.may_dispatch()) return;
  for (;;) {
    std::vector<Task*> waiting;
    std::vector<TaskView> views;
    for (auto& q : run_queues_) {
      for (Task* t : q) {
        if (!runnable(t)) continue;
        waiting.push_back(t);
        views.push_back(view(t, UINT32_MAX));
      }
    }
    if (waiting.empty()) return;
    uint32_t free = info_.channels, free_count = 0;
    std::vector<TaskView> on_channels;  // of runnable jobs: the ones whose next stage may claim a channel
    for (uint32_t ch = 0; ch < info_.channels; ++ch) {
      if (!slots_[ch].task) {
        free = std::min(free, ch);
        ++free_count;
      } else if (scheduler_->may_hold() && runnable(slots_[ch].task)) {
        on_channels.push_back(view(slots_[ch].task, ch));
      }
    }
    if (free < info_.channels) {
      // The policy's first choice that it does not hold back for a running job's next stage.
      Task* t = nullptr;
      while (!views.empty() && !t) {
        const size_t i = scheduler_->pick(views);
        if (!scheduler_->hold(views[i], on_channels, free_count)) t = waiting[i];
        views.erase(views.begin() + static_cast<std::ptrdiff_t>(i));
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
      }
      if (!t) return;
      auto& q = run_queues_[static_cast<uint32_t>(t->job->level)];
      q.erase(std::find(q.begin(), q.end(), t));
      start(free, t);
      continue;
    }
    // Every channel is busy. Walk the waiting buffers in the policy's order; a channel already being
    // given up (a preemption in flight) is the next one's, otherwise it may preempt a running buffer.
    uint32_t in_flight = 0;
    for (const auto& s : slots_) in_flight += s.preempting ? 1 : 0;
    bool killed = false;
    while (!views.empty()) {
      const size_t i = scheduler_->pick(views);
      const TaskView candidate = views[i];
      views.erase(views.begin() + static_cast<std::ptrdiff_t>(i));
      if (in_flight > 0) {
        --in_flight;
        continue;
      }
      std::vector<TaskView> running;
      std::vector<uint32_t> channel_of;
      for (uint32_t ch = 0; ch < info_.channels; ++ch) {
        running.push_back(view(slots_[ch].task, ch));
        channel_of.push_back(ch);
      }
      const auto v = scheduler_->victim(candidate, running);
      if (!v) break;
      const uint32_t ch = channel_of[*v];
      // The channel it frees must go to the candidate: one the policy would hold back from it for a
      // running job's next stage would go to the next waiting buffer instead, which the candidate would
      // then preempt again, forever (found on a bursty 9-app mix: 517,774 kills in half a second).
      if (held_from_freed_channel(candidate, ch)) continue;
      const uint64_t done = hw_.regs.read32(regs::channel_base(ch) + regs::CH_PROGRESS);
      PreemptCosts costs;
      costs.save_restore = info_.save_restore;
      costs.checkpoint_ns = 2 * static_cast<uint64_t>(checkpoint_ns_estimate_);
      costs.kill_lost_ns =
          static_cast<uint64_t>((ns_per_descriptor_ > 0 ? ns_per_descriptor_ : kInitialNsPerDescriptor) *
                                static_cast<double>(done));
      const PreemptMechanism m = preemption_->choose(running[*v], candidate, costs);
      logger()->debug("job {} preempts job {} on channel {} by {}", candidate.job, running[*v].job, ch,
                      to_string(m));
      if (preempt(ch, m) == PreemptMechanism::KILL) {
        killed = true;
        break;  // a channel is free now: start over
      }
    }
    if (!killed) return;
  }
}

bool JobScheduler::held_from_freed_channel(const TaskView& candidate, uint32_t ch) const {
  if (!scheduler_->may_hold()) return false;
  std::vector<TaskView> others;
  for (uint32_t c = 0; c < info_.channels; ++c)
    if (c != ch && slots_[c].task && runnable(slots_[c].task)) others.push_back(view(slots_[c].task, c));
  return scheduler_->hold(candidate, others, 1);
}

void JobScheduler::start(uint32_t ch, Task* task) {
  Job& job = *task->job;
  Slot& s = slots_[ch];
  s = Slot{};
  s.task = task;
  s.started_ns = now();
  ++job.running;
  if (!job.stage_started) {
    job.stage_started = true;
    job.stage_start_ns = now();
  }
  if (job.fence->status == JobStatus::PENDING) {
    job.fence->status = JobStatus::RUNNING;
    job.fence->start_ns = now();
    job.work.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
    if (observer_) observer_->on_work_started(job.work, WorkStartReason::INITIAL);
  } else if (job.paused) {
    job.paused = false;
    ++st_->work_resumed;
    job.work.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
    if (observer_) observer_->on_work_started(job.work, WorkStartReason::RESUMED);
  }
  const uint32_t base = regs::channel_base(ch);
  uint32_t doorbell = regs::CH_DOORBELL_START;
  if (job.request.timing_only) doorbell |= regs::CH_DOORBELL_TIMING_ONLY;
  hw_.regs.write32(base + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(task->cmd_address));
  hw_.regs.write32(base + regs::CH_CMD_BASE_HI, static_cast<uint32_t>(task->cmd_address >> 32));
  hw_.regs.write32(base + regs::CH_CMD_COUNT, task->count);
  hw_.regs.write32(base + regs::CH_CMD_START, task->resume_index);
  if (task->saved_bytes) {
    hw_.regs.write32(base + regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(task->save_area));
    hw_.regs.write32(base + regs::CH_SAVE_BASE_HI, static_cast<uint32_t>(task->save_area >> 32));
    doorbell |= regs::CH_DOORBELL_RESTORE;
    ++st_->resumes;
    st_->restore_bytes += task->saved_bytes;
  }
  hw_.regs.write32(base + regs::CH_DOORBELL, doorbell);
  logger()->debug("job {} stage {} buffer {} {} on channel {} at descriptor {}", job.id, task->stage,
                  task->index, task->saved_bytes ? "resumed" : "started", ch, task->resume_index);
  if (tracer_)
    tracer_->span(queue_tracks_[static_cast<uint32_t>(job.level)], job.request.label, job.fence->submit_ns,
                  now() - job.fence->submit_ns, {{"job", job.id}, {"ctx", job.ctx}});
  hooks_.started();
}

PreemptMechanism JobScheduler::preempt(uint32_t ch, PreemptMechanism m) {
  Slot& s = slots_[ch];
  Task* t = s.task;
  ++st_->preemptions;
  ++t->job->fence->preemptions;  // per job too: the owner's accounting (the stat alone is device-wide)
  if (m == PreemptMechanism::CHECKPOINT && !t->save_area) {
    auto area = memory_.allocate(regs::kSaveAreaHeader + info_.sram_bytes, DeviceMemory::Pool::KERNEL);
    if (area) {
      t->save_area = *area;
    } else {
      logger()->warn("no kernel memory for a save area: killing instead");
      m = PreemptMechanism::KILL;
    }
  }
  switch (m) {
    case PreemptMechanism::CHECKPOINT: {
      ++st_->checkpoints;
      const uint32_t base = regs::channel_base(ch);
      hw_.regs.write32(base + regs::CH_SAVE_BASE_LO, static_cast<uint32_t>(t->save_area));
      hw_.regs.write32(base + regs::CH_SAVE_BASE_HI, static_cast<uint32_t>(t->save_area >> 32));
      hw_.regs.write32(base + regs::CH_CTRL, regs::CH_CTRL_PREEMPT);
      s.preempting = true;
      s.mechanism = m;
      s.preempt_ns = now();
      break;
    }
    case PreemptMechanism::KILL: {
      ++st_->kills;
      st_->killed_work_ns += static_cast<double>(now() - s.started_ns);
      abort_channel(ch);
      restart(t);
      if (t->job->running == 0) note_paused(*t->job);
      break;
    }
    case PreemptMechanism::DRAIN:
      ++st_->drains;
      s.preempting = true;
      s.mechanism = m;
      s.preempt_ns = now();
      break;
  }
  return m;
}

// Reset stops the channel at once: the hardware aborts in-flight work, clears CH_IRQ_STATUS and raises
// nothing afterwards; events the top half already recorded for the old buffer are dropped here.
void JobScheduler::abort_channel(uint32_t ch) {
  hw_.regs.write32(regs::channel_base(ch) + regs::CH_CTRL, regs::CH_CTRL_RESET);
  interrupts_.drop(ch);
  ++st_->channel_resets;
  leave_channel(ch);
}

void JobScheduler::restart(Task* task) {
  task->resume_index = 0;
  release_save_area(task);
  requeue(task);
}

void JobScheduler::leave_channel(uint32_t ch) {
  Slot& s = slots_[ch];
  if (!s.task) return;
  --s.task->job->running;
  s = Slot{};
}

}  // namespace npu::drv
