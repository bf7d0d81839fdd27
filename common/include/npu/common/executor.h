// A simulated thread that runs posted tasks one at a time, in order: immediately posted tasks in
// posting order, delayed tasks at their due time (ties in posting order). It is the java.util.concurrent
// Executor of the NPU manager's clients and the thread on which the scheduling HAL and the `npu`
// service deliver callbacks; a host-runtime service like Os, so it lives below the driver. Each task charges
// `task_cost_ns` of CPU time on the thread before it runs. Not modelled: CPU contention between threads
// (every executor has a core of its own), priorities.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "npu/common/os.h"

namespace npu {

class Executor {
 public:
  // Spawns the thread; it lives as long as the simulation (SystemC threads cannot be joined).
  Executor(Os& os, std::string name, uint64_t task_cost_ns = 5000);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  void post(std::function<void()> task) { post_after(0, std::move(task)); }
  // Runs `task` no earlier than `delay_ns` from now.
  void post_after(uint64_t delay_ns, std::function<void()> task);

  Os& os() { return os_; }
  const std::string& name() const { return name_; }
  uint64_t task_cost_ns() const { return task_cost_ns_; }
  size_t pending() const { return tasks_.size(); }

 private:
  void loop();

  Os& os_;
  std::string name_;
  uint64_t task_cost_ns_;
  uint64_t next_seq_ = 0;
  std::map<std::pair<uint64_t, uint64_t>, std::function<void()>> tasks_;  // (due ns, seq) → task
  std::unique_ptr<WaitQueue> wake_;
};

}  // namespace npu
