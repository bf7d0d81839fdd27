// The NPU scheduling HAL (android.hardware.npu IScheduling v1, AIDL-shaped): the system side — the
// NPU manager — tells it each uid's priority and access rights (SchedulingConfig), which it relays to
// the driver, and it reports the lifecycle of NPU work back through one ISchedulingCallback, built
// from the driver's WorkObserver events and delivered in order on the HAL's own callback thread.
//
// Facts kept from the public AOSP interface: priorities 0 (highest) … 1000 (lowest); invalid
// priorities and several configs for one uid are EX_ILLEGAL_ARGUMENT and change nothing; a uid
// without a config has the lowest priority, direct access and no attribution; WorkInfo.id increases
// monotonically (here: with every delivered event, so Requested < Started < Ended for one job);
// effectivePriority = uid priority + job priority (0 … 2000). Debouncing (DEBOUNCE_DURATION_MS = 50 in
// AOSP, a setCallback argument here, 0 = off): onWorkRequested is suppressed when a prior request of
// the same uid completed less than the debounce time ago, and then so is that work's INITIAL
// onWorkStarted; a COMPLETED onWorkEnded is held back until the debounce time passed without a new
// request of the uid (a new request folds it into the next work's end). PAUSED/RESUMED and ends
// other than COMPLETED are delivered at once; onIdle waits for held-back ends.
//
// Not modelled: binder threads and death notifications, more than one NPU (deviceNumber is 0), the
// vendor's own priority translation (the driver maps effective priorities to its four run-queue
// levels). The pause/cancel/weight-memory calls below are vendor extensions the NPU manager uses;
// they are not in the AOSP AIDL.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"
#include "npu/common/executor.h"
#include "npu/drv/driver.h"

namespace npu::hal {

using SchedulingConfig = drv::SchedulingConfig;
using WorkInfo = drv::WorkInfo;
using StartReason = drv::WorkStartReason;
using EndReason = drv::WorkEndReason;

inline constexpr int kMinPriority = drv::kHighestPriority;  // SchedulingConfig.MIN_PRIORITY
inline constexpr int kMaxPriority = drv::kLowestPriority;   // SchedulingConfig.MAX_PRIORITY
inline constexpr int kDebounceDurationMs = 50;              // ISchedulingCallback.DEBOUNCE_DURATION_MS

// Binder exception codes an IScheduling call can end with.
enum class BinderException { NONE, ILLEGAL_ARGUMENT };
inline constexpr enums::Entry<BinderException> kBinderExceptionNames[] = {
    {BinderException::NONE, "EX_NONE"}, {BinderException::ILLEGAL_ARGUMENT, "EX_ILLEGAL_ARGUMENT"}};
constexpr const auto& enum_table(BinderException) { return kBinderExceptionNames; }
inline const char* to_string(BinderException e) { return enums::to_string(e); }

struct AidlStatus {
  BinderException exception = BinderException::NONE;
  std::string message;  // names the offending config and field
  bool ok() const { return exception == BinderException::NONE; }
};

// android.hardware.npu ISchedulingCallback (oneway): called on the HAL's callback thread.
class SchedulingCallback {
 public:
  virtual ~SchedulingCallback() = default;
  virtual void on_idle() = 0;
  virtual void on_work_requested(const WorkInfo& info) = 0;
  virtual void on_work_started(const WorkInfo& info, StartReason reason) = 0;
  virtual void on_work_ended(const WorkInfo& info, EndReason reason) = 0;
};

struct SchedulingHalConfig {
  uint64_t call_ns = 10'000;          // one binder call from the framework into the HAL
  uint64_t callback_task_ns = 2'000;  // delivering one callback on the HAL's callback thread
};

// The checks setSchedulingConfigs/updateSchedulingConfigs apply: every priority in [0, 1000],
// min_priority ≤ max_priority, no uid twice. OK or ILLEGAL_ARGUMENT naming the config and field.
AidlStatus validate_scheduling_configs(const std::vector<SchedulingConfig>& configs);

class SchedulingHal : private drv::WorkObserver {
 public:
  // Registers as the driver's work observer and spawns the callback thread.
  SchedulingHal(drv::Driver& driver, SchedulingHalConfig cfg = {});
  ~SchedulingHal() override;
  SchedulingHal(const SchedulingHal&) = delete;
  SchedulingHal& operator=(const SchedulingHal&) = delete;

  // IScheduling. Called from simulated threads; each charges one binder call.
  // Replaces the whole table (uids not listed fall back to the no-config defaults).
  AidlStatus set_scheduling_configs(const std::vector<SchedulingConfig>& configs);
  // Adds or replaces the listed uids' configs.
  AidlStatus update_scheduling_configs(const std::vector<SchedulingConfig>& configs);
  // Sets, replaces (the old callback gets nothing more) or, with nullptr, clears the callback.
  AidlStatus set_callback(std::shared_ptr<SchedulingCallback> callback,
                          int debounce_duration_ms = kDebounceDurationMs);

  // Vendor extensions for the NPU manager.
  void set_uid_paused(int uid, bool paused) { driver_.set_uid_paused(uid, paused); }
  void cancel_uid_work(int uid) { driver_.cancel_uid_work(uid); }
  uint64_t weight_memory_bytes() const { return driver_.weight_memory_bytes(); }
  void set_thermal_observer(drv::ThermalObserver* observer) { driver_.set_thermal_observer(observer); }
  std::optional<SchedulingConfig> scheduling_config(int uid) const;
  drv::Os& os() { return driver_.os(); }

 private:
  enum class EventType { IDLE, REQUESTED, STARTED, ENDED };
  struct Event {
    EventType type = EventType::IDLE;
    WorkInfo info;
    StartReason start = StartReason::INITIAL;
    EndReason end = EndReason::COMPLETED;
  };
  struct Track {
    bool reported = false;  // its onWorkRequested reached the current callback (or was folded)
    bool folded = false;    // requested within a debounce window: continues the uid's earlier work
  };
  struct HeldEnd {
    Event event;
    uint64_t token = 0;
  };

  void on_work_requested(const WorkInfo& work) override;
  void on_work_started(const WorkInfo& work, StartReason reason) override;
  void on_work_ended(const WorkInfo& work, EndReason reason) override;
  void on_idle() override;

  void emit(Event event);
  void release_held_end(int uid, uint64_t token);
  void maybe_emit_idle();

  drv::Driver& driver_;
  SchedulingHalConfig cfg_;
  Executor callback_thread_;
  std::map<int, SchedulingConfig> configs_;
  std::shared_ptr<SchedulingCallback> callback_;
  uint64_t generation_ = 0;  // bumped by set_callback: events of older generations are dropped
  uint64_t debounce_ns_ = 0;
  std::map<drv::JobId, Track> tracks_;
  std::map<int, HeldEnd> held_ends_;  // per uid
  uint64_t next_token_ = 1;
  bool idle_held_ = false;
  int64_t next_event_id_ = 1;
};

}  // namespace npu::hal
