// Job lifecycle (JobScheduler): a validated job's submission, cancellation, pausing, the end of a job
// (exactly once) and the WorkInfo events the scheduling HAL is built from. Validation is the ioctl's
// (Driver::submit).
#include <algorithm>
#include <cerrno>

#include "device_memory.h"
#include "driver_stats.h"
#include "job_scheduler.h"
#include "npu/common/log.h"

namespace npu::drv {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("driver"); }

}  // namespace

void JobScheduler::open_context(ContextId ctx) { slowdown_[ctx] = Slowdown{}; }

void JobScheduler::close_context(ContextId ctx) {
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_)
    if (job->ctx == ctx) doomed.push_back(job);
  for (auto& job : doomed)
    end_job(job, JobStatus::CANCELLED, WorkEndReason::CANCELLED_USER, "context closed");
  slowdown_.erase(ctx);
}

Result<void> JobScheduler::bo_idle(ContextId ctx, BoHandle handle) const {
  // A buffer an unfinished job still reads or writes must outlive it: refuse rather than corrupt.
  for (const auto& [id, job] : jobs_) {
    if (job->ctx == ctx && job->bos.count(handle))
      return make_error(
          "buffer " + std::to_string(handle) + " is in use by unfinished job " + std::to_string(id), EBUSY);
  }
  return {};
}

Result<std::shared_ptr<Fence>> JobScheduler::submit(const Submitter& who, JobRequest request,
                                                    std::set<BoHandle> bos) {
  auto job = std::make_shared<Job>();
  job->id = next_job_++;
  job->ctx = who.ctx;
  job->bos = std::move(bos);
  job->tasks.resize(request.stages.size());
  job->stage_descriptors.assign(request.stages.size(), 0);
  for (uint32_t s = 0; s < request.stages.size(); ++s) {
    for (uint32_t b = 0; b < request.stages[s].size(); ++b) {
      const auto& cmds = request.stages[s][b];
      const uint64_t bytes = cmds.size() * desc::kDescriptorBytes;
      auto addr = memory_.allocate(bytes, DeviceMemory::Pool::KERNEL);
      if (!addr) {
        for (auto& stage : job->tasks)
          for (auto& t : stage) memory_.release(t.cmd_address);
        return make_error("command buffer space: " + addr.error(), addr.error_code());
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
  const int eff = who.effective_priority;
  job->level = queue_level_for(eff);
  job->fence = std::make_shared<Fence>();
  job->fence->job_id = job->id;
  job->fence->submit_ns = now();
  if (auto c = slowdown_.find(job->ctx); c != slowdown_.end())
    c->second.record_submit(now(), params_.rate_window_ns);
  job->fence->effective_priority = eff;
  job->fence->waiters = os_.make_wait_queue();
  job->fence->stage_cycles.assign(request.stages.size(), 0);
  WorkInfo& w = job->work;
  w.id = job->id;
  w.group_id = request.group_id;
  w.uid = who.uid;
  w.debug_pid = who.pid;
  w.original_uid = who.work_uid;
  w.debug_feature_id = request.debug_feature_id;
  w.job_priority = request.job_priority;
  w.effective_priority = eff;
  w.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
  job->request = std::move(request);
  job->request.stages.clear();  // the kernel copies are what runs
  jobs_[job->id] = job;
  ++st_->jobs_submitted;
  logger()->debug("job {} ({}) from uid {} queued at level {} (priority {}), {} stages", job->id,
                  job->request.label, who.work_uid, static_cast<uint32_t>(job->level), eff,
                  job->tasks.size());
  if (observer_) observer_->on_work_requested(w);
  queue_stage(*job);
  auto fence = job->fence;
  dispatch();
  return fence;
}

Result<void> JobScheduler::cancel(ContextId ctx, JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->ctx != ctx)
    return make_error(
        "cancel: context " + std::to_string(ctx) + " has no unfinished job " + std::to_string(id), ENOENT);
  end_job(it->second, JobStatus::CANCELLED, WorkEndReason::CANCELLED_USER, "cancelled by the client");
  dispatch();
  return {};
}

void JobScheduler::cancel_uid(int uid) {
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_)
    if (job->work.original_uid == uid) doomed.push_back(job);
  for (auto& job : doomed)
    end_job(job, JobStatus::CANCELLED, WorkEndReason::CANCELLED_SYSTEM, "cancelled by the system");
  dispatch();
}

void JobScheduler::set_uid_paused(int uid, bool paused) {
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
void JobScheduler::note_paused(Job& job) {
  if (job.paused || job.fence->signalled()) return;
  job.paused = true;
  ++st_->work_paused;
  job.work.timestamp_ms = static_cast<int64_t>(now() / 1'000'000);
  if (observer_) observer_->on_work_ended(job.work, WorkEndReason::PAUSED);
}

void JobScheduler::release_save_area(Task* task) {
  if (task->save_area) memory_.release(task->save_area);
  task->save_area = 0;
  task->saved_bytes = 0;
}

void JobScheduler::end_job(std::shared_ptr<Job> job, JobStatus status, WorkEndReason reason,
                           const std::string& error) {
  // Queued tasks leave the run queues; running ones are aborted so they stop touching the job's buffers.
  for (auto& q : run_queues_)
    q.erase(std::remove_if(q.begin(), q.end(), [&](Task* t) { return t->job == job.get(); }), q.end());
  for (uint32_t ch = 0; ch < info_.channels; ++ch) {
    if (slots_[ch].task && slots_[ch].task->job == job.get()) abort_channel(ch);
  }
  for (auto& stage : job->tasks) {
    for (auto& t : stage) {
      memory_.release(t.cmd_address);
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
  if (observer_) observer_->on_work_ended(job->work, reason);
  f.waiters->wake_all();
  if (job->request.on_complete) job->request.on_complete(f);
  maybe_idle();
}

void JobScheduler::maybe_idle() {
  if (jobs_.empty() && observer_) observer_->on_idle();
}

void JobScheduler::fail_job(JobId id, const std::string& error) {
  end_job(jobs_.at(id), JobStatus::FAILED, WorkEndReason::FAILED, error);
}

void JobScheduler::fail_all(const std::string& why) {
  log::get("driver.thermal")->error("{}; failing {} unfinished jobs", why, jobs_.size());
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_) doomed.push_back(job);
  for (auto& job : doomed) end_job(job, JobStatus::FAILED, WorkEndReason::FAILED, why);
}

}  // namespace npu::drv
