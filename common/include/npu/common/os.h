// The host runtime's services: time, sleeping, threads and wait queues. The driver runs on them (as a
// kernel does) and so do the user-space layers above it (the HAL's executor threads, the NPU manager,
// scenario apps), which is why they live below the driver, not in its hardware port.
//   implemented by: driver/port/sim (SystemC processes and simulated time); unit tests: fakes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace npu {

// A wait queue: a thread sleeps in wait() until another wakes it (always re-check the condition).
class WaitQueue {
 public:
  virtual ~WaitQueue() = default;
  virtual void wait() = 0;
  // Sleeps until woken or `timeout_ns` passed; returns false on timeout.
  virtual bool wait_for(uint64_t timeout_ns) = 0;
  virtual void wake_all() = 0;
};

// Kernel services: time, sleeping, threads. In the simulation, time is simulated time and threads are
// SystemC processes, so a run is deterministic.
class Os {
 public:
  virtual ~Os() = default;
  virtual uint64_t now_ns() const = 0;
  // Charges `ns` of CPU time (or sleeps) on the calling thread.
  virtual void delay_ns(uint64_t ns) = 0;
  virtual std::unique_ptr<WaitQueue> make_wait_queue() = 0;
  virtual void spawn(const std::string& name, std::function<void()> body) = 0;
};

}  // namespace npu
