#include "npu/drv/driver.h"

#include <algorithm>

#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

constexpr uint64_t kAlignment = 256;
uint64_t align_up(uint64_t v) { return (v + kAlignment - 1) & ~(kAlignment - 1); }

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

const char* to_string(JobStatus s) {
  switch (s) {
    case JobStatus::PENDING: return "PENDING";
    case JobStatus::RUNNING: return "RUNNING";
    case JobStatus::COMPLETED: return "COMPLETED";
    case JobStatus::FAILED: return "FAILED";
    case JobStatus::CANCELLED: return "CANCELLED";
  }
  return "?";
}

const char* to_string(WorkStartReason r) { return r == WorkStartReason::INITIAL ? "INITIAL" : "RESUMED"; }

const char* to_string(WorkEndReason r) {
  switch (r) {
    case WorkEndReason::COMPLETED: return "COMPLETED";
    case WorkEndReason::CANCELLED_USER: return "CANCELLED_USER";
    case WorkEndReason::CANCELLED_SYSTEM: return "CANCELLED_SYSTEM";
    case WorkEndReason::FAILED: return "FAILED";
    case WorkEndReason::PAUSED: return "PAUSED";
  }
  return "?";
}

const char* to_string(ThermalSeverity s) {
  switch (s) {
    case ThermalSeverity::NONE: return "NONE";
    case ThermalSeverity::LIGHT: return "LIGHT";
    case ThermalSeverity::MODERATE: return "MODERATE";
    case ThermalSeverity::SEVERE: return "SEVERE";
    case ThermalSeverity::CRITICAL: return "CRITICAL";
    case ThermalSeverity::EMERGENCY: return "EMERGENCY";
    case ThermalSeverity::SHUTDOWN: return "SHUTDOWN";
  }
  return "?";
}

Driver::Driver(Hardware hw, Os& os, DriverConfig cfg) : hw_(hw), os_(os), cfg_(std::move(cfg)) {}
Driver::~Driver() = default;

Result<void> Driver::probe() {
  auto log = logger();
  const uint32_t id = hw_.regs.read32(regs::NPU_ID);
  if (id != regs::kNpuIdValue) return make_error("probe: NPU_ID reads 0x" + std::to_string(id) + ", not an npusim NPU");
  hw_version_ = hw_.regs.read32(regs::NPU_VERSION);
  const uint32_t config = hw_.regs.read32(regs::NPU_CONFIG);
  channels_ = config & 0xFF;
  if (channels_ == 0 || channels_ > regs::kMaxChannels) return make_error("probe: NPU_CONFIG reports no channels");
  if (hw_.memory.size() <= cfg_.kernel_reserved_bytes) return make_error("probe: device memory too small");
  // The weight-memory region, when the hardware has one; otherwise weights share the general pool.
  const uint64_t mib = 1ull << 20;
  weight_lo_ = static_cast<uint64_t>(hw_.regs.read32(regs::WEIGHT_MEM_BASE_MIB)) * mib;
  weight_hi_ = weight_lo_ + static_cast<uint64_t>(hw_.regs.read32(regs::WEIGHT_MEM_MIB)) * mib;
  if (weight_hi_ == weight_lo_) {
    weight_lo_ = weight_hi_ = hw_.memory.size();
  } else if (weight_lo_ < cfg_.kernel_reserved_bytes || weight_hi_ > hw_.memory.size()) {
    return make_error("probe: weight memory region lies outside usable device memory");
  }
  hw_.regs.write32(regs::GLOBAL_CTRL, 1);
  hw_.regs.write32(regs::IRQ_MASK, (1u << channels_) - 1);
  running_.assign(channels_, nullptr);
  pending_irq_.assign(channels_, 0);
  bottom_half_wake_ = os_.make_wait_queue();
  if (tracer_) {
    for (const char* level : {"REALTIME", "HIGH", "NORMAL", "LOW"})
      queue_tracks_.push_back(tracer_->track("driver", std::string("queue ") + level));
    for (uint32_t ch = 0; ch < channels_; ++ch) channel_tracks_.push_back(tracer_->track("driver", "ch" + std::to_string(ch) + " jobs"));
  }
  hw_.irq.set_handler([this] { irq_handler(); });
  os_.spawn("npu_bottom_half", [this] { bottom_half(); });
  probed_ = true;
  log->info("probe: NPU version 0x{:08x}, {} channels, {}x{} arrays, {} KiB SRAM per channel", hw_version_,
            channels_, (config >> 8) & 0xFF, (config >> 16) & 0xFF, hw_.regs.read32(regs::NPU_SRAM_KIB));
  return {};
}

Result<ContextId> Driver::open_context(int uid, int pid) {
  os_.delay_ns(cfg_.ioctl_ns);
  if (!probed_) return make_error("open_context: device not probed");
  const ContextId id = next_ctx_++;
  contexts_[id] = Context{uid, pid, {}};
  logger()->debug("context {} opened for uid {} pid {}", id, uid, pid);
  return id;
}

Result<Driver::Context*> Driver::context(ContextId ctx) {
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return make_error("no context " + std::to_string(ctx));
  return &it->second;
}

Result<void> Driver::close_context(ContextId ctx) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto c = context(ctx);
  if (!c) return make_error(c.error());
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_)
    if (job->ctx == ctx) doomed.push_back(job);
  for (auto& job : doomed) end_job(job, JobStatus::CANCELLED, WorkEndReason::CANCELLED_USER, "context closed");
  for (auto& [h, b] : (*c)->bos) release(b.device_address);
  contexts_.erase(ctx);
  return {};
}

Result<uint64_t> Driver::allocate(uint64_t size, uint64_t lo, uint64_t hi) {
  size = align_up(std::max<uint64_t>(size, 1));
  uint64_t cursor = lo;
  for (auto it = allocations_.lower_bound(0); it != allocations_.end(); ++it) {
    const auto [addr, len] = *it;
    if (addr + len <= cursor) continue;
    if (addr >= hi || addr >= cursor + size) break;
    cursor = align_up(addr + len);
  }
  if (cursor + size > hi || cursor + size < cursor)
    return make_error("device memory exhausted (" + std::to_string(size) + " bytes)");
  allocations_[cursor] = size;
  return cursor;
}

void Driver::release(uint64_t address) { allocations_.erase(address); }

Result<BufferObject> Driver::alloc_bo(ContextId ctx, uint64_t size, bool weights) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto c = context(ctx);
  if (!c) return make_error("alloc_bo: " + c.error());
  if (size == 0) return make_error("alloc_bo: size 0");
  const bool region = weights && weight_hi_ > weight_lo_;
  auto addr = region ? allocate(size, weight_lo_, weight_hi_) : allocate(size, cfg_.kernel_reserved_bytes, weight_lo_);
  if (!addr) return make_error(std::string("alloc_bo: ") + (region ? "weight memory: " : "") + addr.error());
  BufferObject b{next_bo_++, *addr, size, region};
  (*c)->bos[b.handle] = b;
  return b;
}

Result<void> Driver::free_bo(ContextId ctx, BoHandle handle) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto b = bo(ctx, handle, 0, 0);
  if (!b) return make_error("free_bo: " + b.error());
  release((*b)->device_address);
  contexts_[ctx].bos.erase(handle);
  return {};
}

Result<BufferObject*> Driver::bo(ContextId ctx, BoHandle handle, uint64_t offset, uint64_t len) {
  auto c = context(ctx);
  if (!c) return make_error(c.error());
  auto it = (*c)->bos.find(handle);
  if (it == (*c)->bos.end()) return make_error("context " + std::to_string(ctx) + " owns no buffer " + std::to_string(handle));
  if (offset > it->second.size || len > it->second.size - offset)
    return make_error("range [" + std::to_string(offset) + ", +" + std::to_string(len) + ") outside buffer " +
                      std::to_string(handle) + " of " + std::to_string(it->second.size) + " bytes");
  return &it->second;
}

Result<void> Driver::write_bo(ContextId ctx, BoHandle handle, uint64_t offset, const void* src, uint64_t len) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto b = bo(ctx, handle, offset, len);
  if (!b) return make_error("write_bo: " + b.error());
  if (!hw_.memory.write((*b)->device_address + offset, src, len)) return make_error("write_bo: bus error");
  return {};
}

Result<void> Driver::read_bo(ContextId ctx, BoHandle handle, uint64_t offset, void* dst, uint64_t len) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto b = bo(ctx, handle, offset, len);
  if (!b) return make_error("read_bo: " + b.error());
  if (!hw_.memory.read((*b)->device_address + offset, dst, len)) return make_error("read_bo: bus error");
  return {};
}

Result<void> Driver::validate_commands(const Context& c, const std::vector<desc::Raw>& commands) const {
  auto inside_own_bo = [&](uint64_t addr, uint64_t len) {
    for (const auto& [h, b] : c.bos) {
      if (addr >= b.device_address && len <= b.size && addr - b.device_address <= b.size - len) return true;
    }
    return false;
  };
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto op = desc::opcode_of(commands[i]);
    if (static_cast<uint32_t>(op) >= desc::kOpcodeCount)
      return make_error("descriptor " + std::to_string(i) + ": unknown opcode " + std::to_string(static_cast<uint32_t>(op)));
    if (op != desc::Opcode::DMA_IN && op != desc::Opcode::DMA_OUT) continue;  // the rest touch only SRAM
    const auto d = desc::decode<desc::Dma>(commands[i]);
    if (d.rows == 0) continue;
    const uint64_t span = static_cast<uint64_t>(d.rows - 1) * d.dev_stride + d.row_bytes;
    if (!inside_own_bo(d.dev, span))
      return make_error("descriptor " + std::to_string(i) + ": DMA range 0x" + std::to_string(d.dev) + "+" +
                        std::to_string(span) + " is outside the context's buffers");
  }
  return {};
}

uint64_t Driver::weight_memory_bytes() const {
  if (!probed_) return 0;
  return weight_hi_ > weight_lo_ ? weight_hi_ - weight_lo_ : weight_lo_ - cfg_.kernel_reserved_bytes;
}

void Driver::set_scheduling_config(const SchedulingConfig& cfg) { sched_configs_[cfg.uid] = cfg; }
void Driver::clear_scheduling_configs() { sched_configs_.clear(); }

const SchedulingConfig* Driver::scheduling_config(int uid) const {
  auto it = sched_configs_.find(uid);
  return it == sched_configs_.end() ? nullptr : &it->second;
}

Result<std::shared_ptr<Fence>> Driver::submit(ContextId ctx, JobRequest request) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto c = context(ctx);
  if (!c) return make_error("submit: " + c.error());
  const int uid = (*c)->uid;
  const SchedulingConfig* own = scheduling_config(uid);
  if (own && !own->has_direct_access) return make_error("submit: uid " + std::to_string(uid) + " has no direct NPU access");
  int work_uid = uid;
  if (request.attributed_uid >= 0 && request.attributed_uid != uid) {
    if (!own || !own->can_attribute_other_uid)
      return make_error("submit: uid " + std::to_string(uid) + " may not attribute work to uid " +
                        std::to_string(request.attributed_uid));
    work_uid = request.attributed_uid;
  }
  if (request.job_priority < kHighestPriority || request.job_priority > kLowestPriority)
    return make_error("submit: job priority " + std::to_string(request.job_priority) + " outside [0, 1000]");
  if (request.stages.empty()) return make_error("submit: no stages");
  for (size_t s = 0; s < request.stages.size(); ++s) {
    if (request.stages[s].empty()) return make_error("submit: stage " + std::to_string(s) + " has no command buffers");
    for (size_t b = 0; b < request.stages[s].size(); ++b) {
      const auto& cmds = request.stages[s][b];
      const std::string where = "submit: stage " + std::to_string(s) + " buffer " + std::to_string(b);
      if (cmds.empty()) return make_error(where + ": empty command buffer");
      if (auto v = validate_commands(**c, cmds); !v) return make_error(where + ": " + v.error());
    }
  }

  auto job = std::make_shared<Job>();
  job->id = next_job_++;
  job->ctx = ctx;
  job->tasks.resize(request.stages.size());
  for (uint32_t s = 0; s < request.stages.size(); ++s) {
    for (uint32_t b = 0; b < request.stages[s].size(); ++b) {
      const auto& cmds = request.stages[s][b];
      const uint64_t bytes = cmds.size() * desc::kDescriptorBytes;
      auto addr = allocate(bytes, 0, cfg_.kernel_reserved_bytes);
      if (!addr) {
        for (auto& stage : job->tasks)
          for (auto& t : stage) release(t.cmd_address);
        return make_error("submit: command buffer space: " + addr.error());
      }
      hw_.memory.write(*addr, cmds.data(), bytes);
      job->tasks[s].push_back(Task{job.get(), s, b, *addr, static_cast<uint32_t>(cmds.size())});
    }
  }
  const int eff = effective_priority(scheduling_config(work_uid), request.job_priority);
  job->level = queue_level_for(eff);
  job->fence = std::make_shared<Fence>();
  job->fence->job_id = job->id;
  job->fence->submit_ns = os_.now_ns();
  job->fence->effective_priority = eff;
  job->fence->waiters = os_.make_wait_queue();
  WorkInfo& w = job->work;
  w.id = job->id;
  w.group_id = request.group_id;
  w.uid = uid;
  w.debug_pid = (*c)->pid;
  w.original_uid = work_uid;
  w.debug_feature_id = request.debug_feature_id;
  w.job_priority = request.job_priority;
  w.effective_priority = eff;
  w.timestamp_ms = static_cast<int64_t>(os_.now_ns() / 1'000'000);
  job->request = std::move(request);
  job->request.stages.clear();  // the kernel copies are what runs
  jobs_[job->id] = job;
  logger()->debug("job {} ({}) from uid {} queued at level {}, {} stages", job->id, job->request.label, work_uid,
                  static_cast<uint32_t>(job->level), job->tasks.size());
  if (work_observer_) work_observer_->on_work_requested(w);
  queue_stage(*job);
  auto fence = job->fence;
  dispatch();
  return fence;
}

void Driver::queue_stage(Job& job) {
  job.remaining = static_cast<uint32_t>(job.tasks[job.stage].size());
  job.stage_started = false;
  // Behind every task of equal or better effective priority: FIFO among equals.
  auto& q = run_queues_[static_cast<uint32_t>(job.level)];
  auto at = std::find_if(q.begin(), q.end(), [&](const Task* t) {
    return t->job->work.effective_priority > job.work.effective_priority;
  });
  for (auto& t : job.tasks[job.stage]) at = std::next(q.insert(at, &t));
}

Result<void> Driver::cancel(ContextId ctx, JobId id) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->ctx != ctx)
    return make_error("cancel: context " + std::to_string(ctx) + " has no unfinished job " + std::to_string(id));
  end_job(it->second, JobStatus::CANCELLED, WorkEndReason::CANCELLED_USER, "cancelled by the client");
  dispatch();
  return {};
}

void Driver::cancel_uid_work(int uid) {
  std::vector<std::shared_ptr<Job>> doomed;
  for (auto& [id, job] : jobs_)
    if (job->work.original_uid == uid) doomed.push_back(job);
  for (auto& job : doomed) end_job(job, JobStatus::CANCELLED, WorkEndReason::CANCELLED_SYSTEM, "cancelled by the system");
  dispatch();
}

void Driver::set_uid_paused(int uid, bool paused) {
  (void)uid;
  (void)paused;
  // Pausing needs preemption (issue 5): not yet wired.
}

void Driver::dispatch() {
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    if (running_[ch]) continue;
    Task* task = nullptr;
    for (auto& q : run_queues_) {
      if (!q.empty()) {
        task = q.front();
        q.pop_front();
        break;
      }
    }
    if (!task) return;
    running_[ch] = task;
    Job& job = *task->job;
    if (!job.stage_started) {
      job.stage_started = true;
      job.stage_start_ns = os_.now_ns();
    }
    if (job.fence->status == JobStatus::PENDING) {
      job.fence->status = JobStatus::RUNNING;
      job.fence->start_ns = os_.now_ns();
      job.work.timestamp_ms = static_cast<int64_t>(os_.now_ns() / 1'000'000);
      if (work_observer_) work_observer_->on_work_started(job.work, WorkStartReason::INITIAL);
    }
    const uint32_t base = regs::channel_base(ch);
    hw_.regs.write32(base + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(task->cmd_address));
    hw_.regs.write32(base + regs::CH_CMD_BASE_HI, static_cast<uint32_t>(task->cmd_address >> 32));
    hw_.regs.write32(base + regs::CH_CMD_COUNT, task->count);
    hw_.regs.write32(base + regs::CH_CMD_START, 0);
    hw_.regs.write32(base + regs::CH_DOORBELL,
                     regs::CH_DOORBELL_START | (job.request.timing_only ? regs::CH_DOORBELL_TIMING_ONLY : 0));
    logger()->debug("job {} stage {} buffer {} started on channel {}", job.id, task->stage, task->index, ch);
    if (tracer_)
      tracer_->span(queue_tracks_[static_cast<uint32_t>(job.level)], job.request.label, job.fence->submit_ns,
                    os_.now_ns() - job.fence->submit_ns, {{"job", job.id}, {"ctx", job.ctx}});
  }
}

// Top half: record which channels raised what, acknowledge, and defer the work.
void Driver::irq_handler() {
  os_.delay_ns(cfg_.irq_top_half_ns);
  const uint32_t pending = hw_.regs.read32(regs::IRQ_STATUS);
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    if (!((pending >> ch) & 1)) continue;
    const uint32_t base = regs::channel_base(ch);
    const uint32_t bits = hw_.regs.read32(base + regs::CH_IRQ_STATUS);
    hw_.regs.write32(base + regs::CH_IRQ_STATUS, bits);
    pending_irq_[ch] |= bits;
  }
  bottom_half_wake_->wake_all();
}

void Driver::bottom_half() {
  for (;;) {
    bool any = false;
    for (uint32_t ch = 0; ch < channels_; ++ch) {
      const uint32_t bits = pending_irq_[ch];
      if (!bits) continue;
      pending_irq_[ch] = 0;
      any = true;
      os_.delay_ns(cfg_.bottom_half_ns);
      if (bits & regs::CH_IRQ_ERROR) {
        const uint32_t status = hw_.regs.read32(regs::channel_base(ch) + regs::CH_STATUS);
        task_done(ch, JobStatus::FAILED, "channel " + std::to_string(ch) + " error " + std::to_string(status >> 8));
      } else if (bits & (regs::CH_IRQ_DONE | regs::CH_IRQ_PREEMPTED)) {
        task_done(ch, JobStatus::COMPLETED, "");
      }
    }
    if (any) {
      dispatch();
    } else {
      bottom_half_wake_->wait();
    }
  }
}

void Driver::task_done(uint32_t ch, JobStatus status, const std::string& error) {
  Task* task = running_[ch];
  if (!task) return;
  running_[ch] = nullptr;
  Job& job = *task->job;
  const uint32_t base = regs::channel_base(ch);
  const uint64_t cycles = hw_.regs.read32(base + regs::CH_CYCLES_LO) |
                          (static_cast<uint64_t>(hw_.regs.read32(base + regs::CH_CYCLES_HI)) << 32);
  job.fence->device_cycles += cycles;
  job.fence->energy_pj += hw_.regs.read32(base + regs::CH_ENERGY_LO) |
                          (static_cast<uint64_t>(hw_.regs.read32(base + regs::CH_ENERGY_HI)) << 32);
  if (tracer_)
    tracer_->span(channel_tracks_[ch], job.request.label, job.fence->start_ns, os_.now_ns() - job.fence->start_ns,
                  {{"job", job.id}, {"ctx", job.ctx}, {"status", to_string(status)}, {"cycles", cycles}});
  auto self = jobs_.at(job.id);
  if (status == JobStatus::FAILED) {
    logger()->warn("job {} failed on channel {}: {}", job.id, ch, error);
    end_job(self, JobStatus::FAILED, WorkEndReason::FAILED, error);
    return;
  }
  if (--job.remaining > 0) return;
  job.fence->device_ns += os_.now_ns() - job.stage_start_ns;
  if (job.stage + 1 < job.tasks.size()) {
    ++job.stage;
    queue_stage(job);
    return;
  }
  logger()->debug("job {} completed after {} cycles", job.id, job.fence->device_cycles);
  end_job(self, JobStatus::COMPLETED, WorkEndReason::COMPLETED, "");
}

void Driver::end_job(const std::shared_ptr<Job>& job, JobStatus status, WorkEndReason reason, const std::string& error) {
  // Queued tasks leave the run queues; running ones are reset so they stop touching the job's buffers.
  for (auto& q : run_queues_)
    q.erase(std::remove_if(q.begin(), q.end(), [&](Task* t) { return t->job == job.get(); }), q.end());
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    if (running_[ch] && running_[ch]->job == job.get()) {
      hw_.regs.write32(regs::channel_base(ch) + regs::CH_CTRL, regs::CH_CTRL_RESET);
      running_[ch] = nullptr;
      pending_irq_[ch] = 0;
    }
  }
  for (auto& stage : job->tasks)
    for (auto& t : stage) release(t.cmd_address);
  Fence& f = *job->fence;
  const bool never_started = f.status == JobStatus::PENDING;
  f.status = status;
  f.end_reason = reason;
  f.error = error;
  f.end_ns = os_.now_ns();
  if (never_started) f.start_ns = f.end_ns;
  job->work.timestamp_ms = static_cast<int64_t>(f.end_ns / 1'000'000);
  jobs_.erase(job->id);
  if (work_observer_) work_observer_->on_work_ended(job->work, reason);
  f.waiters->wake_all();
  maybe_idle();
}

void Driver::maybe_idle() {
  if (jobs_.empty() && work_observer_) work_observer_->on_idle();
}

void Driver::wait(Fence& fence) {
  while (!fence.signalled()) fence.waiters->wait();
}

}  // namespace npu::drv
