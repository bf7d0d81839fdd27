// Hang detection (timeout detection and recovery): a kernel thread that, while work runs, checks every
// watchdog period whether a command buffer has run past its timeout or a checkpoint request went
// unanswered; it resets the channel and retries the buffer from its start, or fails the job once it has
// hung more than the hang limit. Other channels and other contexts' jobs carry on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "npu/drv/driver.h"

namespace npu::drv {

class JobScheduler;
struct DriverStats;

class Watchdog {
 public:
  Watchdog(Os& os, KernelLock& lock, const Timeouts& timeouts, JobScheduler& jobs)
      : os_(os), lock_(lock), timeouts_(timeouts), jobs_(jobs) {}

  // Its wait queue; call at probe.
  void probe() { wake_ = os_.make_wait_queue(); }
  // Spawns the thread.
  void start();
  // A buffer went on a channel: the thread sleeps while no channel runs anything.
  void kick() { wake_->wake_all(); }
  void set_stats(DriverStats* stats) { st_ = stats; }

 private:
  uint64_t now() const { return os_.now_ns(); }
  void loop();
  void hang(uint32_t channel, const std::string& why);

  Os& os_;
  KernelLock& lock_;
  const Timeouts& timeouts_;
  JobScheduler& jobs_;
  std::unique_ptr<WaitQueue> wake_;
  DriverStats* st_ = nullptr;
};

}  // namespace npu::drv
