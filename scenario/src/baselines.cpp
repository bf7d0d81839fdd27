#include "npu/scenario/baselines.h"

namespace npu::scenario {

const std::vector<Baseline>& baselines() {
  static const std::vector<Baseline> kBaselines = {
      {"fcfs",
       "non-preemptive first-come-first-served",
       {"driver.scheduler=fcfs", "driver.preemption=drain", "manager.policy=STATUS_QUO"}},
      {"hpf",
       "preemptive highest-priority-first, thermal-oblivious",
       {"driver.scheduler=priority", "driver.preemption=checkpoint", "manager.policy=STATUS_QUO"}},
      {"prema",
       "PREMA tokens, predictive preemption",
       {"driver.scheduler=prema", "driver.preemption=predictive", "manager.policy=STATUS_QUO"}},
      {"rr",
       "time-slicing round robin, per-level quanta, checkpoint at the end of a slice",
       {"driver.scheduler=rr", "driver.preemption=checkpoint", "manager.policy=STATUS_QUO"}},
      {"edf",
       "earliest deadline first, preemptive",
       {"driver.scheduler=edf", "driver.preemption=checkpoint", "manager.policy=STATUS_QUO"}},
      {"default",
       "shortest remaining work among fair candidates, deadlines kept by slack stealing; cheapest "
       "preemption per case; manager THERMAL_PRIORITY",
       {"driver.scheduler=adaptive", "driver.preemption=adaptive", "manager.policy=THERMAL_PRIORITY"}},
  };
  return kBaselines;
}

std::vector<std::string> baseline_names() {
  std::vector<std::string> names;
  for (const auto& b : baselines()) names.push_back(b.name);
  return names;
}

const Baseline* find_baseline(const std::string& name) {
  for (const auto& b : baselines())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace npu::scenario
