// The NPU kernel driver API (the ioctl surface). Callers: the HAL (user space) and the scheduling HAL
// (system side) through these methods, from simulated host threads. Implemented by driver/src on top of
// hw.h only.
//
// Model: a client opens a context (uid, pid); it allocates buffer objects (BOs) in device memory that
// only it can touch; it submits jobs. A job is a chain of stages; a stage is a set of command buffers
// (descriptors whose DMA addresses must all lie inside the context's own BOs) that may run in parallel
// on different channels; stage k+1 starts when every command buffer of stage k completed. Each job
// returns a fence signalled exactly once when the job reaches a terminal status.
// Command buffers wait in per-priority run queues (four levels, as ivpu/amdxdna) and are dispatched to
// free channels by a pluggable scheduling policy (default: highest level first; within a level by
// effective priority, FIFO among equals, as AOSP's reference scheduling service keeps one heap ordered by
// effective priority). The effective priority of a job is its uid's SchedulingConfig priority plus the
// job's own priority (see effective_priority()).
//
// Observers (WorkObserver, ThermalObserver) are called from the driver's bottom half or from the
// calling thread of an ioctl, in simulated kernel context: they must not sleep; post work elsewhere.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npu/common/config.h"
#include "npu/common/enum_table.h"
#include "npu/common/result.h"
#include "npu/common/stats.h"
#include "npu/common/trace.h"
#include "npu/drv/hw.h"
#include "npu/drv/sched_policy.h"
#include "npu/drv/thermal_governor.h"
#include "npu/regmap/descriptors.h"

namespace npu::drv {

// Bumped with every driver change that users could observe; part of the HAL's getVersionString.
inline constexpr const char* kDriverVersion = "0.3.0";

using ContextId = uint32_t;
using BoHandle = uint32_t;
using JobId = uint64_t;

// Run-queue levels, as ivpu/amdxdna: REALTIME first.
enum class QueueLevel : uint32_t { REALTIME = 0, HIGH = 1, NORMAL = 2, LOW = 3 };
inline constexpr uint32_t kQueueLevels = 4;
// Maps an effective priority (0 = highest … 2000 = lowest) to a level; everything from 700 on is LOW.
QueueLevel queue_level_for(int effective_priority);

enum class JobStatus { PENDING, RUNNING, COMPLETED, FAILED, CANCELLED };
inline constexpr enums::Entry<JobStatus> kJobStatusNames[] = {{JobStatus::PENDING, "PENDING"},
                                                              {JobStatus::RUNNING, "RUNNING"},
                                                              {JobStatus::COMPLETED, "COMPLETED"},
                                                              {JobStatus::FAILED, "FAILED"},
                                                              {JobStatus::CANCELLED, "CANCELLED"}};
constexpr const auto& enum_table(JobStatus) { return kJobStatusNames; }
inline const char* to_string(JobStatus s) { return enums::to_string(s); }

// Priorities on the scheduling HAL's scale (android.hardware.npu SchedulingConfig.MIN_PRIORITY /
// MAX_PRIORITY). An effective priority is the sum of two of them, so it spans [0, 2000].
inline constexpr int kHighestPriority = 0;
inline constexpr int kLowestPriority = 1000;
inline constexpr int kLowestEffectivePriority = 2 * kLowestPriority;

// android.hardware.npu SchedulingConfig of one uid, relayed by the scheduling HAL. AOSP's parcelable
// has uid, priority (app_priority here), hasDirectAccess and canAttributeOtherUid; min/max_priority
// are this project's per-uid bounds on job priorities (AOSP: the constants 0 and 1000), which the
// NPU manager narrows to demote a background app's "urgent" jobs.
struct SchedulingConfig {
  int min_priority = kHighestPriority;  // best job priority the uid's jobs may have
  int max_priority = kLowestPriority;   // worst job priority the uid's jobs may have
  int uid = 0;
  int app_priority = kLowestPriority;    // the uid's own priority (foreground apps low numbers)
  bool has_direct_access = false;        // may submit work to the NPU at all
  bool can_attribute_other_uid = false;  // may submit work attributed to another uid
};

// Effective priority of a job of `job_priority` for a uid with `cfg`, as AOSP's WorkInfo defines it:
// the uid's priority plus the job priority, here with the job priority first clamped to the uid's
// [min_priority, max_priority]. nullptr (the uid has no config) counts as priority kLowestPriority
// with the full job range, as IScheduling prescribes. Range [0, 2000]; never better than the uid's own
// priority.
int effective_priority(const SchedulingConfig* cfg, int job_priority);

using Uuid = std::array<uint8_t, 16>;
struct Fence;

// android.hardware.npu WorkInfo: one per job ("work group").
struct WorkInfo {
  JobId id = 0;
  std::optional<Uuid> group_id;
  int uid = 0;  // the submitting uid (an intermediary when the work is attributed)
  int debug_pid = 0;
  int original_uid = 0;  // the app the work is done for (attributed_uid), else == uid
  std::optional<std::string> debug_feature_id;
  int job_priority = 0;
  int effective_priority = 0;
  int64_t timestamp_ms = 0;  // simulated time of the event
  int device_number = 0;
};

enum class WorkStartReason { INITIAL, RESUMED };
enum class WorkEndReason { COMPLETED, CANCELLED_USER, CANCELLED_SYSTEM, FAILED, PAUSED };
inline constexpr enums::Entry<WorkStartReason> kWorkStartReasonNames[] = {
    {WorkStartReason::INITIAL, "INITIAL"}, {WorkStartReason::RESUMED, "RESUMED"}};
inline constexpr enums::Entry<WorkEndReason> kWorkEndReasonNames[] = {
    {WorkEndReason::COMPLETED, "COMPLETED"},
    {WorkEndReason::CANCELLED_USER, "CANCELLED_USER"},
    {WorkEndReason::CANCELLED_SYSTEM, "CANCELLED_SYSTEM"},
    {WorkEndReason::FAILED, "FAILED"},
    {WorkEndReason::PAUSED, "PAUSED"}};
constexpr const auto& enum_table(WorkStartReason) { return kWorkStartReasonNames; }
constexpr const auto& enum_table(WorkEndReason) { return kWorkEndReasonNames; }
inline const char* to_string(WorkStartReason r) { return enums::to_string(r); }
inline const char* to_string(WorkEndReason r) { return enums::to_string(r); }

// Work lifecycle, per job: requested → started(INITIAL) → [ended(PAUSED) → started(RESUMED)]* →
// ended(COMPLETED | CANCELLED_USER | CANCELLED_SYSTEM | FAILED); a job cancelled or failed before it
// started goes requested → ended. on_idle when no job is queued or running any more.
class WorkObserver {
 public:
  virtual ~WorkObserver() = default;
  virtual void on_work_requested(const WorkInfo& work) = 0;
  virtual void on_work_started(const WorkInfo& work, WorkStartReason reason) = 0;
  virtual void on_work_ended(const WorkInfo& work, WorkEndReason reason) = 0;
  virtual void on_idle() = 0;
};

// Android thermal status levels, as the thermal governor derives them from the trip points.
enum class ThermalSeverity { NONE, LIGHT, MODERATE, SEVERE, CRITICAL, EMERGENCY, SHUTDOWN };
inline constexpr enums::Entry<ThermalSeverity> kThermalSeverityNames[] = {
    {ThermalSeverity::NONE, "NONE"},         {ThermalSeverity::LIGHT, "LIGHT"},
    {ThermalSeverity::MODERATE, "MODERATE"}, {ThermalSeverity::SEVERE, "SEVERE"},
    {ThermalSeverity::CRITICAL, "CRITICAL"}, {ThermalSeverity::EMERGENCY, "EMERGENCY"},
    {ThermalSeverity::SHUTDOWN, "SHUTDOWN"}};
constexpr const auto& enum_table(ThermalSeverity) { return kThermalSeverityNames; }
inline const char* to_string(ThermalSeverity s) { return enums::to_string(s); }

class ThermalObserver {
 public:
  virtual ~ThermalObserver() = default;
  virtual void on_thermal_severity(ThermalSeverity severity, double junction_c) = 0;
};

// Every alloc_bo error for lack of device memory says so in these words (code ENOMEM or ENOSPC).
inline constexpr const char* kOutOfDeviceMemory = "device memory exhausted";

struct BufferObject {
  BoHandle handle = 0;
  uint64_t device_address = 0;
  uint64_t size = 0;
  bool weights = false;  // placed in the weight-memory region
};

struct JobRequest {
  // stages[s][b]: command buffer b of stage s. Every command buffer must be non-empty.
  std::vector<std::vector<std::vector<desc::Raw>>> stages;
  int job_priority = 0;     // 0 = most urgent … 1000; combined with the uid's SchedulingConfig
  int attributed_uid = -1;  // ≥ 0: work on behalf of that uid (needs can_attribute_other_uid)
  std::optional<Uuid> group_id;
  std::optional<std::string> debug_feature_id;
  std::string label;        // for logs and traces
  uint64_t timeout_ns = 0;  // 0: Timeouts::job_ns
  // When the job should have ended (absolute simulated ns; 0: no deadline). A hint for deadline-aware
  // schedulers ("edf", "adaptive"); the driver never drops or fails a job for missing it.
  uint64_t deadline_ns = 0;
  bool timing_only = false;  // run for timing only: the hardware moves and computes no data
  // Asynchronous completion: called once, right after the fence is signalled, from the bottom half or
  // the ioctl that ended the job (kernel context: it must not sleep; post work to a thread instead).
  std::function<void(const Fence&)> on_complete;
};

// Signalled exactly once, when the job reaches a terminal status.
struct Fence {
  JobId job_id = 0;
  JobStatus status = JobStatus::PENDING;
  WorkEndReason end_reason = WorkEndReason::COMPLETED;  // meaningful once signalled
  std::string error;
  uint64_t submit_ns = 0, start_ns = 0, end_ns = 0;
  uint64_t device_ns = 0;      // Σ over stages of first dispatch → last completion
  uint64_t device_cycles = 0;  // Σ CH_CYCLES of its command buffers
  // Per stage: its longest command buffer's CH_CYCLES (summed over the buffer's dispatches).
  std::vector<uint64_t> stage_cycles;
  uint64_t energy_pj = 0;  // Σ CH_ENERGY of its command buffers
  uint32_t preemptions = 0;
  int effective_priority = 0;
  bool signalled() const {
    return status == JobStatus::COMPLETED || status == JobStatus::FAILED || status == JobStatus::CANCELLED;
  }
  std::unique_ptr<WaitQueue> waiters;
};

// Every timeout of the driver, in one place.
struct Timeouts {
  uint64_t job_ns = 2'000'000'000;  // a command buffer running longer than this is considered hung
  uint64_t watchdog_period_ns = 1'000'000;
  uint32_t hang_limit = 2;          // hangs of one command buffer that are retried before its job fails
  uint64_t preempt_ns = 1'000'000;  // a preempt request not honoured by then: the channel is reset
};

struct DriverConfig {
  uint64_t ioctl_ns = 2000;                      // CPU cost of one driver call
  uint64_t irq_top_half_ns = 500;                // CPU cost of the interrupt handler
  uint64_t bottom_half_ns = 1500;                // CPU cost of processing one channel event
  uint64_t kernel_reserved_bytes = 16ull << 20;  // device memory the driver keeps for command buffers
  Timeouts timeouts;
  std::string scheduler = "priority";     // SchedulingPolicy name (sched_policy.h)
  std::string preemption = "checkpoint";  // PreemptionPolicy name
  SchedulerParams sched;                  // knobs of the "rr" and "adaptive" schedulers
  ThermalGovernorConfig thermal;

  // Declares every driver parameter under `driver.` (the host.* CPU costs are declared by the system).
  void declare(cfg::Schema& schema);
};

// What the board says about the NPU that its registers do not (a device-tree node's properties, or a
// board file's platform data): the timing the compiler's cost model needs. The platform (npu::system)
// fills it when it binds the driver; the defaults are the phone-class preset's.
struct PlatformData {
  uint32_t dma_bytes_per_cycle = 32;  // per DMA engine
  uint32_t dma_setup_cycles = 16;
  uint32_t descriptor_fetch_cycles = 4;
  uint32_t queue_depth = 4;  // descriptors queued ahead per engine
  double dram_gbps = 25.6;   // shared by every channel
  double dram_latency_ns = 100;
  uint32_t fp32_macs_per_cycle = 64;
  uint32_t vector_pipeline_cycles = 8;
};

// The device-info query (GET_PARAM of Linux accel drivers): what probe() learned from the NPU's
// registers, plus the board's platform data. The HAL builds its compiler target from this alone.
struct DeviceInfo {
  uint32_t hw_version = 0;  // NPU_VERSION
  uint32_t channels = 0;    // NPU_CONFIG
  uint32_t array_rows = 0, array_cols = 0;
  uint64_t sram_bytes = 0;                    // per channel (NPU_SRAM_KIB)
  uint32_t vector_lanes = 0, sram_banks = 0;  // NPU_CONFIG2
  uint64_t dram_bytes = 0;                    // device memory
  uint64_t weight_memory_bytes = 0;           // WEIGHT_MEM_MIB (or the general pool without one)
  bool save_restore = false, functional = false, fault_injection = false;  // NPU_CAPS
  std::vector<OppInfo> opps;       // DVFS_OPPn_MHZ / _MV, fastest first; empty without a DVFS block
  uint32_t opp = 0;                // the operating point at probe (DVFS_STATUS)
  std::array<double, 4> trip_c{};  // THERM_TRIPn, °C: light, moderate, severe, critical (0 without DVFS)
  PlatformData platform;
  // The clock at probe, MHz (the board's nominal 1000 MHz without a DVFS block).
  double clock_mhz() const { return opp < opps.size() ? opps[opp].mhz : 1000.0; }
};

// The driver's big lock: a sleeping lock over a WaitQueue, held by every ioctl, the bottom half, the
// watchdog and the thermal thread while they read or change driver state. It is needed because every
// register and device-memory access takes simulated time, during which other kernel threads run.
class KernelLock {
 public:
  explicit KernelLock(Os& os) : wake_(os.make_wait_queue()) {}
  void lock() {
    while (held_) wake_->wait();
    held_ = true;
  }
  void unlock() {
    held_ = false;
    wake_->wake_all();
  }

 private:
  bool held_ = false;
  std::unique_ptr<WaitQueue> wake_;
};

// The facade over the driver's parts, each an object with its own state in driver/src: DeviceMemory
// (the allocator) and ContextTable (contexts, buffer objects), JobScheduler (jobs, run queues, channels,
// preemption, predictions, channel events), Watchdog (hang detection and recovery), ThermalManager
// (trips, governor, DVFS, severity, shutdown), Interrupts (top and bottom half). The driver itself keeps
// probe, the device info, the uids' scheduling configs and the ioctls' validation. The ioctls and system
// controls take the big lock and charge their CPU cost in simulated time.
class DeviceMemory;
class ContextTable;
class JobScheduler;
class Watchdog;
class ThermalManager;
class Interrupts;
struct DriverStats;

class Driver {
 public:
  // Called by the platform (npu::system::System) when it binds the driver to the hardware.
  Driver(Hardware hw, Os& os, DriverConfig cfg = {}, PlatformData platform = {});
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Identifies the NPU, resets it, enables interrupts, starts the bottom-half and watchdog threads (and
  // the thermal thread when the NPU has a DVFS block). Called by the platform once, before any client.
  Result<void> probe();
  uint32_t channel_count() const { return info_.channels; }
  // The device-info query; valid after probe() (all zero before). Takes no simulated time: it answers
  // from what probe read.
  const DeviceInfo& device_info() const { return info_; }
  uint32_t hw_version() const { return info_.hw_version; }
  // NPU_CAPS.functional: the hardware moves and computes data. Without it (a timing-only model of the
  // NPU) every job runs for timing alone and device memory never holds results.
  bool functional() const { return info_.functional; }
  // Device memory the driver keeps for command buffers (driver.kernel_reserved_bytes): a job's command
  // buffers are all placed there when it is submitted, so a job larger than it is refused.
  uint64_t command_space_bytes() const { return cfg_.kernel_reserved_bytes; }
  Os& os() { return os_; }

  // --- Client ioctls. Called by the HAL (hal::NpuDevice, prepared models, memory domains) and by tests
  // acting as a client, from simulated host threads. A failed call's error carries an errno code, as an
  // ioctl's return does; callers decide by it (Result::error_code), never by the message:
  //   ENODEV  not probed, or not this NPU       ENOENT  no such context, buffer or unfinished job
  //   EINVAL  bad argument or command buffer    EPERM   the uid may not submit (SchedulingConfig)
  //   ENOMEM  out of memory now (a free may help) ENOSPC  larger than the whole memory pool: never fits
  //   EBUSY   buffer in use by an unfinished job EAGAIN  halted by a thermal shutdown, try again later
  //   EIO     device memory bus error
  Result<ContextId> open_context(int uid, int pid);
  Result<void> close_context(ContextId ctx);  // frees the context's BOs; its jobs are cancelled

  // weights = true places the BO in the weight-memory region (RESOURCE_EXHAUSTED-style error when full).
  Result<BufferObject> alloc_bo(ContextId ctx, uint64_t size, bool weights = false);
  Result<void> free_bo(ContextId ctx, BoHandle bo);
  Result<void> write_bo(ContextId ctx, BoHandle bo, uint64_t offset, const void* src, uint64_t len);
  Result<void> read_bo(ContextId ctx, BoHandle bo, uint64_t offset, void* dst, uint64_t len);

  // Validates every command buffer against the context's BOs and the uid's scheduling config, queues
  // the job and returns its fence.
  Result<std::shared_ptr<Fence>> submit(ContextId ctx, JobRequest job);
  // Cancels a job of the context (CANCELLED_USER); a running one is stopped at its next descriptor.
  Result<void> cancel(ContextId ctx, JobId job);
  // Sleeps the calling thread until the fence is signalled.
  void wait(Fence& fence);

  // --- System-side controls. Called by the scheduling HAL (hal::SchedulingHal: configs, observers) and
  // the NPU manager's service (pause, cancel, weight memory), never by apps.
  void set_scheduling_config(const SchedulingConfig& cfg);
  void clear_scheduling_configs();
  const SchedulingConfig* scheduling_config(int uid) const;
  // Pauses every job done for `uid` (WorkInfo.original_uid; running ones are preempted: ended PAUSED)
  // or resumes them.
  void set_uid_paused(int uid, bool paused);
  // Cancels every job done for `uid` (WorkInfo.original_uid; CANCELLED_SYSTEM).
  void cancel_uid_work(int uid);
  // Bytes alloc_bo(..., weights = true) draws from: the weight-memory region, or the general pool when
  // the hardware has none; 0 before probe().
  uint64_t weight_memory_bytes() const;
  void set_work_observer(WorkObserver* observer);
  void set_thermal_observer(ThermalObserver* observer);
  ThermalSeverity thermal_severity() const;
  // True from reaching SHUTDOWN severity until the junction is back below the critical trip.
  bool thermal_halted() const;

  // --- Observability. Called by the platform and tools (npusim, tests).
  // Records queue waits per run-queue level and jobs per channel (nullptr = off). Call before probe().
  void set_tracer(trace::Tracer* tracer) { tracer_ = tracer; }
  // Registers the driver's statistics under `driver.` in `stats`. Call before probe(); without it the
  // driver keeps them in a registry of its own.
  void set_stats(stats::Registry* stats) { stats_ = stats; }
  // Device memory in use (kernel + buffer objects), for leak checks.
  uint64_t allocated_bytes() const;
  size_t unfinished_jobs() const;
  // What clients hold open right now, for leak checks after every client has gone: contexts, buffer
  // objects over all contexts, and fences handed out by submit() that are not signalled yet.
  size_t live_contexts() const;
  size_t live_bos() const;
  size_t unsignalled_fences() const;
  // Fault injection for stress tests: from now on every `every`-th alloc_bo fails as if device memory
  // were full (0 turns it off). Error paths that allocate several buffers must free what they got.
  void inject_alloc_failures(uint32_t every);
  uint64_t injected_alloc_failures() const;
  // Channel-nanoseconds the command buffers done for `uid` that are on channels right now have run so
  // far. A fence adds a buffer's cycles only when it ends, so accounting at an arbitrary instant (the end
  // of a scenario) needs this for the buffers still running.
  uint64_t running_ns(int uid) const;
  // Brings time-integrated statistics (time at each thermal severity) up to now, before dumping stats.
  void update_stats();

 private:
  Hardware hw_;
  Os& os_;
  DriverConfig cfg_;
  KernelLock lock_;
  DeviceInfo info_;
  bool probed_ = false;
  std::map<int, SchedulingConfig> sched_configs_;

  // The parts (driver/src), in the order their constructors take each other.
  std::unique_ptr<DeviceMemory> memory_;
  std::unique_ptr<ContextTable> contexts_;
  std::unique_ptr<ThermalManager> thermal_;
  std::unique_ptr<Interrupts> interrupts_;
  std::unique_ptr<JobScheduler> jobs_;
  std::unique_ptr<Watchdog> watchdog_;

  stats::Registry* stats_ = nullptr;
  std::unique_ptr<stats::Registry> own_stats_;
  std::unique_ptr<DriverStats> st_;
  trace::Tracer* tracer_ = nullptr;
};

}  // namespace npu::drv
