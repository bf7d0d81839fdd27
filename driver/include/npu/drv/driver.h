// The NPU kernel driver API (the ioctl surface). Callers: the HAL (user space) through these methods,
// from simulated host threads. Implemented by driver/src on top of hw.h only.
//
// Model: a client opens a context (uid, pid); it allocates buffer objects (BOs) in device memory that
// only it can touch; it submits jobs — a command buffer of descriptors whose DMA addresses must all lie
// inside its own BOs — at a priority; each job returns a fence signalled when the job ends. Jobs wait in
// per-priority run queues and are dispatched to free channels, highest level first, FIFO within a level.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/common/trace.h"
#include "npu/drv/hw.h"
#include "npu/regmap/descriptors.h"

namespace npu::drv {

// Bumped with every driver change that users could observe; part of the HAL's getVersionString.
inline constexpr const char* kDriverVersion = "0.2.0";

using ContextId = uint32_t;
using BoHandle = uint32_t;

// Run-queue levels, as ivpu/amdxdna: REALTIME first.
enum class QueueLevel : uint32_t { REALTIME = 0, HIGH = 1, NORMAL = 2, LOW = 3 };
inline constexpr uint32_t kQueueLevels = 4;
// Maps an effective priority (0 = highest … 1000 = lowest, the scheduling HAL's scale) to a level.
QueueLevel queue_level_for(int effective_priority);

enum class JobStatus { PENDING, RUNNING, COMPLETED, FAILED, CANCELLED };
const char* to_string(JobStatus s);

struct BufferObject {
  BoHandle handle = 0;
  uint64_t device_address = 0;
  uint64_t size = 0;
};

struct JobRequest {
  std::vector<desc::Raw> commands;
  int effective_priority = 500;
  std::string label;  // for logs and traces
};

// Signalled exactly once, when the job reaches a terminal status.
struct Fence {
  uint64_t job_id = 0;
  JobStatus status = JobStatus::PENDING;
  std::string error;
  uint64_t submit_ns = 0, start_ns = 0, end_ns = 0;
  uint64_t device_cycles = 0;  // CH_CYCLES of the channel that ran it
  uint32_t channel = 0;
  bool signalled() const { return status == JobStatus::COMPLETED || status == JobStatus::FAILED ||
                                  status == JobStatus::CANCELLED; }
  std::unique_ptr<WaitQueue> waiters;
};

struct DriverConfig {
  uint64_t ioctl_ns = 2000;        // CPU cost of one driver call
  uint64_t irq_top_half_ns = 500;  // CPU cost of the interrupt handler
  uint64_t bottom_half_ns = 1500;  // CPU cost of processing one channel event
  uint64_t kernel_reserved_bytes = 16ull << 20;  // device memory the driver keeps for command buffers
};

class Driver {
 public:
  Driver(Hardware hw, Os& os, DriverConfig cfg = {});
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Identifies the NPU, resets it, enables interrupts, starts the bottom-half thread.
  Result<void> probe();
  uint32_t channel_count() const { return channels_; }
  uint32_t hw_version() const { return hw_version_; }
  Os& os() { return os_; }

  Result<ContextId> open_context(int uid, int pid);
  Result<void> close_context(ContextId ctx);  // frees the context's BOs; its queued jobs are cancelled

  Result<BufferObject> alloc_bo(ContextId ctx, uint64_t size);
  Result<void> free_bo(ContextId ctx, BoHandle bo);
  Result<void> write_bo(ContextId ctx, BoHandle bo, uint64_t offset, const void* src, uint64_t len);
  Result<void> read_bo(ContextId ctx, BoHandle bo, uint64_t offset, void* dst, uint64_t len);

  // Validates the command buffer against the context's BOs, queues the job and returns its fence.
  Result<std::shared_ptr<Fence>> submit(ContextId ctx, JobRequest job);
  // Sleeps the calling thread until the fence is signalled.
  void wait(Fence& fence);
  // Records queue waits per run-queue level and jobs per channel (nullptr = off). Call before probe().
  void set_tracer(trace::Tracer* tracer) { tracer_ = tracer; }

 private:
  struct Context {
    int uid = 0, pid = 0;
    std::map<BoHandle, BufferObject> bos;
  };
  struct Job {
    uint64_t id = 0;
    QueueLevel level = QueueLevel::NORMAL;
    ContextId ctx = 0;
    JobRequest request;
    uint64_t cmd_address = 0;  // kernel copy of the command buffer
    std::shared_ptr<Fence> fence;
  };

  Result<Context*> context(ContextId ctx);
  Result<BufferObject*> bo(ContextId ctx, BoHandle handle, uint64_t offset, uint64_t len);
  Result<void> validate_commands(const Context& c, const std::vector<desc::Raw>& commands) const;
  Result<uint64_t> allocate(uint64_t size, bool kernel);
  void release(uint64_t address);
  void irq_handler();
  void bottom_half();
  void dispatch();
  void finish(uint32_t channel, JobStatus status, const std::string& error);
  void signal(Fence& f, JobStatus status, const std::string& error);

  Hardware hw_;
  Os& os_;
  DriverConfig cfg_;
  uint32_t channels_ = 0;
  uint32_t hw_version_ = 0;
  bool probed_ = false;

  std::map<ContextId, Context> contexts_;
  ContextId next_ctx_ = 1;
  BoHandle next_bo_ = 1;
  uint64_t next_job_ = 1;

  // First-fit allocator over device memory: address → size of each allocation.
  std::map<uint64_t, uint64_t> allocations_;

  std::array<std::deque<std::shared_ptr<Job>>, kQueueLevels> run_queues_;
  std::vector<std::shared_ptr<Job>> running_;  // per channel
  std::vector<uint32_t> pending_irq_;          // per channel, recorded by the top half
  std::unique_ptr<WaitQueue> bottom_half_wake_;
  trace::Tracer* tracer_ = nullptr;
  std::vector<uint32_t> queue_tracks_, channel_tracks_;
};

}  // namespace npu::drv
