// The scheduling baselines a scenario can run under, by name. Each is a combination of the driver's
// scheduling and preemption policies and the NPU manager's load policy, applied as hardware-config
// overrides (driver.scheduler, driver.preemption, manager.policy):
//   fcfs     non-preemptive first-come-first-served; the manager lets everybody load (STATUS_QUO)
//   hpf      preemptive highest-priority-first (checkpoint); STATUS_QUO: priority-aware, thermal-oblivious
//   prema    PREMA token scheduling with predictive preemption; STATUS_QUO
//   rr       time-slicing round robin with per-level quanta (checkpoint at the end of a slice); STATUS_QUO
//   edf      preemptive earliest deadline first (checkpoint); STATUS_QUO
//   default  the platform as shipped: the driver's adaptive scheduler (the shortest remaining work among fair
//            candidates, starvation-bounded, deadlines kept by slack stealing) with adaptive
//            preemption (drain / kill / checkpoint by predicted cost), under the manager's thermal- and
//            priority-aware THERMAL_PRIORITY
#pragma once

#include <string>
#include <vector>

namespace npu::scenario {

struct Baseline {
  std::string name;
  std::string description;
  std::vector<std::string> overrides;  // `path=value` hardware-config overrides
};

const std::vector<Baseline>& baselines();
std::vector<std::string> baseline_names();
const Baseline* find_baseline(const std::string& name);

}  // namespace npu::scenario
