// Job lifecycle: validation and submission, cancellation, pausing, the end of a job (exactly once) and
// the WorkInfo events the scheduling HAL is built from.
#include <algorithm>
#include <cerrno>
#include <mutex>

#include "contexts.h"
#include "device_memory.h"
#include "driver_stats.h"
#include "npu/common/log.h"
#include "npu/drv/driver.h"
#include "npu/regmap/npu_regs.h"
#include "thermal_manager.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver"); }

}  // namespace

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

  auto job = std::make_shared<Job>();
  job->id = next_job_++;
  job->ctx = ctx;
  job->bos = std::move(used);
  job->tasks.resize(request.stages.size());
  job->stage_descriptors.assign(request.stages.size(), 0);
  for (uint32_t s = 0; s < request.stages.size(); ++s) {
    for (uint32_t b = 0; b < request.stages[s].size(); ++b) {
      const auto& cmds = request.stages[s][b];
      const uint64_t bytes = cmds.size() * desc::kDescriptorBytes;
      auto addr = memory_->allocate(bytes, DeviceMemory::Pool::KERNEL);
      if (!addr) {
        for (auto& stage : job->tasks)
          for (auto& t : stage) memory_->release(t.cmd_address);
        return refuse("command buffer space: " + addr.error(), addr.error_code());
      }
      hw_.memory.write(*addr, cmds.data(), bytes);
      Task t;
      t.job = job.get();
      t.stage = s;
      t.index = b;
      t.cmd_address = *addr;
      t.count = static_cast<uint32_t>(cmds.size());
      job->stage_descriptors[s] = std::max(job->stage_descriptors[s], t.count);
      job->tasks[s].push_back(t);
    }
  }
  const int eff = effective_priority(scheduling_config(work_uid), request.job_priority);
  job->level = queue_level_for(eff);
  job->fence = std::make_shared<Fence>();
  job->fence->job_id = job->id;
  job->fence->submit_ns = now();
  job->fence->effective_priority = eff;
  job->fence->waiters = os_.make_wait_queue();
  job->fence->stage_cycles.assign(request.stages.size(), 0);
  WorkInfo& w = job->work;
  w.id = job->id;
  w.group_id = request.group_id;
  w.uid = uid;
  w.debug_pid = (*c)->pid;
  w.original_uid = work_uid;
  w.debug_feature_id = request.debug_feature_id;
  w.job_priority = request.job_priority;
  w.effective_priority = eff;
  w.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
  job->request = std::move(request);
  job->request.stages.clear();  // the kernel copies are what runs
  jobs_[job->id] = job;
  ++st_->jobs_submitted;
  logger()->debug("job {} ({}) from uid {} queued at level {} (priority {}), {} stages", job->id,
                  job->request.label, work_uid, static_cast<uint32_t>(job->level), eff, job->tasks.size());
  if (work_observer_) work_observer_->on_work_requested(w);
  queue_stage(*job);
  auto fence = job->fence;
  dispatch();
  return fence;
}

Result<void> Driver::cancel(ContextId ctx, JobId id) {
  std::lock_guard guard(lock_);
  os_.delay_ns(cfg_.ioctl_ns);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->ctx != ctx)
    return make_error(
        "cancel: context " + std::to_string(ctx) + " has no unfinished job " + std::to_string(id), ENOENT);
  end_job(it->second, JobStatus::CANCELLED, WorkEndReason::CANCELLED_USER, "cancelled by the client");
  dispatch();
  return {};
}

void Driver::cancel_uid_work(int uid) {
  std::lock_guard guard(lock_);
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_)
    if (job->work.original_uid == uid) doomed.push_back(job);
  for (auto& job : doomed)
    end_job(job, JobStatus::CANCELLED, WorkEndReason::CANCELLED_SYSTEM, "cancelled by the system");
  dispatch();
}

void Driver::set_uid_paused(int uid, bool paused) {
  std::lock_guard guard(lock_);
  if (paused == static_cast<bool>(paused_uids_.count(uid))) return;
  if (!paused) {
    paused_uids_.erase(uid);
    dispatch();
    return;
  }
  paused_uids_.insert(uid);
  // Running work of the uid gives its channels up (checkpointed where the hardware can); started jobs
  // with nothing on a channel right now are paused at once.
  for (uint32_t ch = 0; ch < info_.channels; ++ch) {
    Slot& s = slots_[ch];
    if (s.task && !s.preempting && s.task->job->work.original_uid == uid)
      preempt(ch, info_.save_restore ? PreemptMechanism::CHECKPOINT : PreemptMechanism::KILL);
  }
  for (auto& [id, job] : jobs_)
    if (job->work.original_uid == uid && job->fence->status == JobStatus::RUNNING && job->running == 0)
      note_paused(*job);
  dispatch();
}

// The job has started and now has nothing on a channel because of preemption or a pause.
void Driver::note_paused(Job& job) {
  if (job.paused || job.fence->signalled()) return;
  job.paused = true;
  ++st_->work_paused;
  job.work.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
  if (work_observer_) work_observer_->on_work_ended(job.work, WorkEndReason::PAUSED);
}

void Driver::release_save_area(Task* task) {
  if (task->save_area) memory_->release(task->save_area);
  task->save_area = 0;
  task->saved_bytes = 0;
}

void Driver::end_job(std::shared_ptr<Job> job, JobStatus status, WorkEndReason reason,
                     const std::string& error) {
  // Queued tasks leave the run queues; running ones are aborted so they stop touching the job's buffers.
  for (auto& q : run_queues_)
    q.erase(std::remove_if(q.begin(), q.end(), [&](Task* t) { return t->job == job.get(); }), q.end());
  for (uint32_t ch = 0; ch < info_.channels; ++ch) {
    if (slots_[ch].task && slots_[ch].task->job == job.get()) abort_channel(ch);
  }
  for (auto& stage : job->tasks) {
    for (auto& t : stage) {
      memory_->release(t.cmd_address);
      release_save_area(&t);
    }
  }
  Fence& f = *job->fence;
  const bool never_started = f.status == JobStatus::PENDING;
  f.status = status;
  f.end_reason = reason;
  f.error = error;
  f.end_ns = now();
  if (never_started) f.start_ns = f.end_ns;
  if (status == JobStatus::COMPLETED) note_slowdown(*job);
  switch (status) {
    case JobStatus::COMPLETED:
      ++st_->jobs_completed;
      break;
    case JobStatus::FAILED:
      ++st_->jobs_failed;
      break;
    default:
      ++st_->jobs_cancelled;
      break;
  }
  job->work.timestamp_ms = static_cast<int64_t>(f.end_ns / 1'000'000);
  jobs_.erase(job->id);
  logger()->debug("job {} ended {} ({})", job->id, to_string(reason), error);
  if (work_observer_) work_observer_->on_work_ended(job->work, reason);
  f.waiters->wake_all();
  if (job->request.on_complete) job->request.on_complete(f);
  maybe_idle();
}

void Driver::maybe_idle() {
  if (jobs_.empty() && work_observer_) work_observer_->on_idle();
}

void Driver::wait(Fence& fence) {
  while (!fence.signalled()) fence.waiters->wait();
}

}  // namespace npu::drv
