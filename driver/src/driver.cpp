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

Driver::Driver(Hardware hw, Os& os, DriverConfig cfg) : hw_(hw), os_(os), cfg_(cfg) {}
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
  for (auto& q : run_queues_) {
    for (auto it = q.begin(); it != q.end();) {
      if ((*it)->ctx == ctx) {
        signal(*(*it)->fence, JobStatus::CANCELLED, "context closed");
        release((*it)->cmd_address);
        it = q.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [h, b] : (*c)->bos) release(b.device_address);
  contexts_.erase(ctx);
  return {};
}

Result<uint64_t> Driver::allocate(uint64_t size, bool kernel) {
  size = align_up(std::max<uint64_t>(size, 1));
  uint64_t cursor = kernel ? 0 : cfg_.kernel_reserved_bytes;
  const uint64_t limit = kernel ? cfg_.kernel_reserved_bytes : hw_.memory.size();
  for (const auto& [addr, len] : allocations_) {
    if (addr + len <= cursor) continue;
    if (addr >= limit) break;
    if (addr >= cursor + size) break;
    cursor = align_up(addr + len);
  }
  if (cursor + size > limit) return make_error("device memory exhausted (" + std::to_string(size) + " bytes)");
  allocations_[cursor] = size;
  return cursor;
}

void Driver::release(uint64_t address) { allocations_.erase(address); }

Result<BufferObject> Driver::alloc_bo(ContextId ctx, uint64_t size) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto c = context(ctx);
  if (!c) return make_error("alloc_bo: " + c.error());
  if (size == 0) return make_error("alloc_bo: size 0");
  auto addr = allocate(size, false);
  if (!addr) return make_error("alloc_bo: " + addr.error());
  BufferObject b{next_bo_++, *addr, size};
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
    switch (op) {
      case desc::Opcode::DMA_IN:
      case desc::Opcode::DMA_OUT: {
        const auto d = desc::decode<desc::Dma>(commands[i]);
        if (d.rows == 0) break;
        const uint64_t span = static_cast<uint64_t>(d.rows - 1) * d.dev_stride + d.row_bytes;
        if (!inside_own_bo(d.dev, span))
          return make_error("descriptor " + std::to_string(i) + ": DMA range 0x" + std::to_string(d.dev) +
                            "+" + std::to_string(span) + " is outside the context's buffers");
        break;
      }
      case desc::Opcode::NOP:
      case desc::Opcode::FENCE:
      case desc::Opcode::CONV_INT8:
      case desc::Opcode::CONV_FP32: break;  // touch only the channel's own SRAM
      default: return make_error("descriptor " + std::to_string(i) + ": unknown opcode " +
                                 std::to_string(static_cast<uint32_t>(op)));
    }
  }
  return {};
}

Result<std::shared_ptr<Fence>> Driver::submit(ContextId ctx, JobRequest request) {
  os_.delay_ns(cfg_.ioctl_ns);
  auto c = context(ctx);
  if (!c) return make_error("submit: " + c.error());
  if (request.commands.empty()) return make_error("submit: empty command buffer");
  if (auto v = validate_commands(**c, request.commands); !v) return make_error("submit: " + v.error());
  const uint64_t bytes = request.commands.size() * desc::kDescriptorBytes;
  auto addr = allocate(bytes, true);
  if (!addr) return make_error("submit: " + addr.error());
  hw_.memory.write(*addr, request.commands.data(), bytes);

  auto job = std::make_shared<Job>();
  job->id = next_job_++;
  job->ctx = ctx;
  job->cmd_address = *addr;
  job->fence = std::make_shared<Fence>();
  job->fence->job_id = job->id;
  job->fence->submit_ns = os_.now_ns();
  job->fence->waiters = os_.make_wait_queue();
  job->request = std::move(request);
  const auto level = queue_level_for(job->request.effective_priority);
  job->level = level;
  logger()->debug("job {} ({}) queued at level {}, {} descriptors", job->id, job->request.label,
                  static_cast<uint32_t>(level), job->request.commands.size());
  run_queues_[static_cast<uint32_t>(level)].push_back(job);
  auto fence = job->fence;
  dispatch();
  return fence;
}

void Driver::dispatch() {
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    if (running_[ch]) continue;
    std::shared_ptr<Job> job;
    for (auto& q : run_queues_) {
      if (!q.empty()) {
        job = q.front();
        q.pop_front();
        break;
      }
    }
    if (!job) return;
    running_[ch] = job;
    job->fence->status = JobStatus::RUNNING;
    job->fence->start_ns = os_.now_ns();
    job->fence->channel = ch;
    const uint32_t base = regs::channel_base(ch);
    hw_.regs.write32(base + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(job->cmd_address));
    hw_.regs.write32(base + regs::CH_CMD_BASE_HI, static_cast<uint32_t>(job->cmd_address >> 32));
    hw_.regs.write32(base + regs::CH_CMD_COUNT, static_cast<uint32_t>(job->request.commands.size()));
    hw_.regs.write32(base + regs::CH_DOORBELL, 1);
    logger()->debug("job {} started on channel {}", job->id, ch);
    if (tracer_)
      tracer_->span(queue_tracks_[static_cast<uint32_t>(job->level)], job->request.label, job->fence->submit_ns,
                    job->fence->start_ns - job->fence->submit_ns, {{"job", job->id}, {"ctx", job->ctx}});
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
        finish(ch, JobStatus::FAILED, "channel " + std::to_string(ch) + " error " + std::to_string(status >> 8));
      } else if (bits & regs::CH_IRQ_DONE) {
        finish(ch, JobStatus::COMPLETED, "");
      }
    }
    if (any) {
      dispatch();
    } else {
      bottom_half_wake_->wait();
    }
  }
}

void Driver::finish(uint32_t ch, JobStatus status, const std::string& error) {
  auto job = running_[ch];
  if (!job) return;
  running_[ch] = nullptr;
  const uint32_t base = regs::channel_base(ch);
  job->fence->device_cycles = hw_.regs.read32(base + regs::CH_CYCLES_LO) |
                              (static_cast<uint64_t>(hw_.regs.read32(base + regs::CH_CYCLES_HI)) << 32);
  release(job->cmd_address);
  if (tracer_)
    tracer_->span(channel_tracks_[ch], job->request.label, job->fence->start_ns, os_.now_ns() - job->fence->start_ns,
                  {{"job", job->id}, {"ctx", job->ctx}, {"status", to_string(status)}, {"cycles", job->fence->device_cycles}});
  logger()->debug("job {} {} on channel {} after {} cycles", job->id, to_string(status), ch,
                  job->fence->device_cycles);
  signal(*job->fence, status, error);
}

void Driver::signal(Fence& f, JobStatus status, const std::string& error) {
  f.status = status;
  f.error = error;
  f.end_ns = os_.now_ns();
  f.waiters->wake_all();
}

void Driver::wait(Fence& fence) {
  while (!fence.signalled()) fence.waiters->wait();
}

}  // namespace npu::drv
