#include "npu/drv/sched_policy.h"

#include <algorithm>
#include <tuple>

namespace npu::drv {
namespace {

// Preemptive highest-priority-first: the lowest level wins, then the best effective priority, FIFO
// among equals; a waiting buffer may take
// the channel of the running one with the worst level strictly below its own (the latest started
// among equals, which has the least work to lose).
class PriorityPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "priority"; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(std::min_element(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) {
                                 return std::tie(a.level, a.effective_priority, a.order) <
                                        std::tie(b.level, b.effective_priority, b.order);
                               }) -
                               waiting.begin());
  }
  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting || r.level <= candidate.level) continue;
      if (!best || std::tie(r.level, r.order) > std::tie(running[*best].level, running[*best].order)) best = i;
    }
    return best;
  }
};

// Non-preemptive first-come first-served: submit order, priorities ignored.
class FcfsPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "fcfs"; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(std::min_element(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) {
                                 return a.order < b.order;
                               }) -
                               waiting.begin());
  }
  std::optional<size_t> victim(const TaskView&, std::span<const TaskView>) const override { return std::nullopt; }
};

// PREMA (Choi and Rhu, HPCA 2020), in the driver's terms. A job's priority class weighs 9 (REALTIME and
// HIGH), 3 (NORMAL) or 1 (LOW). Its tokens grow with its normalised wait:
//     tokens = weight · (1 + waited / predicted remaining time)
// so a starving low-priority job eventually competes. The threshold is the highest weight among the
// waiting jobs; the candidates are those whose tokens reach it, and among them the shortest predicted
// job runs first (FIFO on ties). A candidate may preempt a running buffer of lower weight whose tokens
// have not reached the candidate's weight: one that has (a starving job picked because of its tokens)
// would be a candidate against it and keeps its channel. Without that rule a starved job picked onto a
// channel freed by a kill was killed again at once by the same candidate, forever (found by the PREMA
// mix scenario: millions of kills in two simulated seconds).
class PremaPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "prema"; }
  static double weight(uint32_t level) { return level <= 1 ? 9.0 : level == 2 ? 3.0 : 1.0; }
  static double tokens(const TaskView& t) {
    const double remaining = static_cast<double>(std::max<uint64_t>(t.estimated_remaining_ns, 1));
    return weight(t.level) * (1.0 + static_cast<double>(t.waited_ns) / remaining);
  }
  size_t pick(std::span<const TaskView> waiting) const override {
    double threshold = 0;
    for (const auto& t : waiting) threshold = std::max(threshold, weight(t.level));
    size_t best = waiting.size();
    for (size_t i = 0; i < waiting.size(); ++i) {
      if (tokens(waiting[i]) < threshold) continue;
      if (best == waiting.size() ||
          std::tie(waiting[i].estimated_remaining_ns, waiting[i].order) <
              std::tie(waiting[best].estimated_remaining_ns, waiting[best].order))
        best = i;
    }
    return best;
  }
  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting || weight(r.level) >= weight(candidate.level) || tokens(r) >= weight(candidate.level)) continue;
      if (!best || std::tie(r.level, r.order) > std::tie(running[*best].level, running[*best].order)) best = i;
    }
    return best;
  }
};

class FixedMechanism final : public PreemptionPolicy {
 public:
  FixedMechanism(const char* name, PreemptMechanism m) : name_(name), m_(m) {}
  const char* name() const override { return name_; }
  PreemptMechanism choose(const TaskView&, const TaskView&, const PreemptCosts& costs) const override {
    if (m_ == PreemptMechanism::CHECKPOINT && !costs.save_restore) return PreemptMechanism::KILL;
    return m_;
  }

 private:
  const char* name_;
  PreemptMechanism m_;
};

class PredictiveMechanism final : public PreemptionPolicy {
 public:
  const char* name() const override { return "predictive"; }
  PreemptMechanism choose(const TaskView& victim, const TaskView&, const PreemptCosts& costs) const override {
    if (victim.estimated_remaining_ns <= costs.checkpoint_ns) return PreemptMechanism::DRAIN;
    if (!costs.save_restore || costs.kill_lost_ns < costs.checkpoint_ns) return PreemptMechanism::KILL;
    return PreemptMechanism::CHECKPOINT;
  }
};

}  // namespace

const char* to_string(PreemptMechanism m) {
  switch (m) {
    case PreemptMechanism::CHECKPOINT: return "checkpoint";
    case PreemptMechanism::KILL: return "kill";
    case PreemptMechanism::DRAIN: return "drain";
  }
  return "?";
}

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const std::string& name) {
  if (name == "priority") return std::make_unique<PriorityPolicy>();
  if (name == "fcfs") return std::make_unique<FcfsPolicy>();
  if (name == "prema") return std::make_unique<PremaPolicy>();
  return nullptr;
}

std::unique_ptr<PreemptionPolicy> make_preemption_policy(const std::string& name) {
  if (name == "checkpoint") return std::make_unique<FixedMechanism>("checkpoint", PreemptMechanism::CHECKPOINT);
  if (name == "kill") return std::make_unique<FixedMechanism>("kill", PreemptMechanism::KILL);
  if (name == "drain") return std::make_unique<FixedMechanism>("drain", PreemptMechanism::DRAIN);
  if (name == "predictive") return std::make_unique<PredictiveMechanism>();
  return nullptr;
}

const std::vector<std::string>& scheduling_policy_names() {
  static const std::vector<std::string> names{"priority", "fcfs", "prema"};
  return names;
}

const std::vector<std::string>& preemption_policy_names() {
  static const std::vector<std::string> names{"checkpoint", "kill", "drain", "predictive"};
  return names;
}

}  // namespace npu::drv
