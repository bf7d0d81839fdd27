#include "npu/common/executor.h"

namespace npu {

Executor::Executor(Os& os, std::string name, uint64_t task_cost_ns)
    : os_(os), name_(std::move(name)), task_cost_ns_(task_cost_ns), wake_(os.make_wait_queue()) {
  os_.spawn(name_, [this] { loop(); });
}

void Executor::post_after(uint64_t delay_ns, std::function<void()> task) {
  tasks_.emplace(std::make_pair(os_.now_ns() + delay_ns, next_seq_++), std::move(task));
  wake_->wake_all();
}

void Executor::loop() {
  for (;;) {
    if (tasks_.empty()) {
      wake_->wait();
      continue;
    }
    const uint64_t due = tasks_.begin()->first.first;
    const uint64_t now = os_.now_ns();
    if (due > now) {
      // A task posted meanwhile may be due earlier: re-check on every wake-up.
      wake_->wait_for(due - now);
      continue;
    }
    auto task = std::move(tasks_.begin()->second);
    tasks_.erase(tasks_.begin());
    os_.delay_ns(task_cost_ns_);
    task();
  }
}

}  // namespace npu
