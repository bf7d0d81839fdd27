// The driver's pluggable decisions in isolation: scheduling policies, preemption mechanism choice and
// thermal governors are pure functions of their inputs (plus a governor's own history).
#include <gtest/gtest.h>

#include "npu/drv/sched_policy.h"
#include "npu/drv/thermal_governor.h"

namespace {

using namespace npu::drv;

TaskView task(uint64_t job, uint32_t level, uint64_t order, uint64_t remaining = 1000, uint64_t waited = 0) {
  TaskView t;
  t.job = job;
  t.level = level;
  t.order = order;
  t.estimated_remaining_ns = remaining;
  t.waited_ns = waited;
  return t;
}

TEST(SchedulingPolicy, UnknownNameIsRefused) {
  EXPECT_EQ(make_scheduling_policy("lottery"), nullptr);
  EXPECT_EQ(make_preemption_policy("teleport"), nullptr);
  for (const auto& n : scheduling_policy_names()) EXPECT_NE(make_scheduling_policy(n), nullptr) << n;
  for (const auto& n : preemption_policy_names()) EXPECT_NE(make_preemption_policy(n), nullptr) << n;
}

TEST(SchedulingPolicy, PriorityPicksBestLevelThenFifo) {
  auto p = make_scheduling_policy("priority");
  const std::vector<TaskView> w{task(1, 2, 5), task(2, 1, 9), task(3, 1, 7), task(4, 3, 1)};
  EXPECT_EQ(p->pick(w), 2u) << "level 1 beats 2 and 3; order 7 before 9";
}

TEST(SchedulingPolicy, PriorityPreemptsOnlyStrictlyWorseLevels) {
  auto p = make_scheduling_policy("priority");
  std::vector<TaskView> running{task(1, 2, 1), task(2, 3, 2), task(3, 3, 3)};
  EXPECT_EQ(p->victim(task(9, 1, 10), running), 2u) << "worst level, latest started";
  EXPECT_EQ(p->victim(task(9, 2, 10), running), 2u);
  EXPECT_FALSE(p->victim(task(9, 3, 10), running)) << "equal level never preempts";
  running[1].preempting = running[2].preempting = true;
  EXPECT_EQ(p->victim(task(9, 1, 10), running), 0u) << "the level-3 buffers are already leaving";
}

TEST(SchedulingPolicy, FcfsIgnoresPriorityAndNeverPreempts) {
  auto p = make_scheduling_policy("fcfs");
  const std::vector<TaskView> w{task(1, 0, 8), task(2, 3, 4)};
  EXPECT_EQ(p->pick(w), 1u);
  EXPECT_FALSE(p->victim(task(1, 0, 8), std::vector<TaskView>{task(2, 3, 4)}));
}

TEST(SchedulingPolicy, PremaRunsShortestCandidateAndLetsStarvedLowPriorityCompete) {
  auto p = make_scheduling_policy("prema");
  // Threshold = weight 9 (a HIGH job waits). Long high (tokens 9) and short high (9): shortest wins.
  std::vector<TaskView> w{task(1, 1, 1, 5000), task(2, 1, 2, 1000), task(3, 3, 3, 100)};
  EXPECT_EQ(p->pick(w), 1u);
  // The LOW job has waited 10× its predicted time: tokens 1·(1 + 10) = 11 ≥ 9, and it is the shortest.
  w[2].waited_ns = 1000;
  EXPECT_EQ(p->pick(w), 2u);
  // A HIGH candidate may preempt a NORMAL (weight 3) buffer, not another HIGH one.
  EXPECT_EQ(p->victim(task(5, 1, 9), std::vector<TaskView>{task(6, 1, 1), task(7, 2, 2)}), 1u);
  // A running NORMAL buffer whose tokens reached 9 (it was picked for them) keeps its channel: a kill
  // would requeue it as the pick again, and the same candidate would kill it again.
  EXPECT_FALSE(p->victim(task(5, 1, 9), std::vector<TaskView>{task(7, 2, 2, 1000, 2000)}))
      << "tokens 3·3 = 9";
  EXPECT_EQ(p->victim(task(5, 1, 9), std::vector<TaskView>{task(7, 2, 2, 1000, 1999)}), 0u) << "tokens < 9";
}

TEST(PreemptionPolicy, PredictiveDrainsKillsOrCheckpoints) {
  auto p = make_preemption_policy("predictive");
  PreemptCosts c;
  c.save_restore = true;
  c.checkpoint_ns = 4000;
  TaskView victim = task(1, 3, 1, /*remaining*/ 3000);
  c.kill_lost_ns = 50'000;
  EXPECT_EQ(p->choose(victim, task(2, 0, 2), c), PreemptMechanism::DRAIN)
      << "finishes before a checkpoint would";
  victim.estimated_remaining_ns = 100'000;
  c.kill_lost_ns = 1000;
  EXPECT_EQ(p->choose(victim, task(2, 0, 2), c), PreemptMechanism::KILL)
      << "less work lost than a checkpoint costs";
  c.kill_lost_ns = 50'000;
  EXPECT_EQ(p->choose(victim, task(2, 0, 2), c), PreemptMechanism::CHECKPOINT);
  c.save_restore = false;
  EXPECT_EQ(p->choose(victim, task(2, 0, 2), c), PreemptMechanism::KILL) << "no save/restore in hardware";
  EXPECT_EQ(make_preemption_policy("checkpoint")->choose(victim, task(2, 0, 2), c), PreemptMechanism::KILL);
}

ThermalSample sample(double temp, uint32_t opp, double power_mw = 2000) {
  ThermalSample s;
  s.temp_c = temp;
  s.opp = opp;
  s.power_mw = power_mw;
  s.trip_c = {60, 70, 80, 90};
  s.hysteresis_c = {2, 2, 2, 2};
  return s;
}

const std::vector<OppInfo> kOpps{{1000, 900}, {800, 800}, {600, 700}, {400, 600}};

TEST(ThermalGovernor, StepWiseThrottlesWhileHotAndRisingAndReleasesBelowHysteresis) {
  ThermalGovernorConfig cfg;  // control trip 1 = 70 °C
  std::string error;
  auto g = make_thermal_governor(cfg, kOpps, &error);
  ASSERT_NE(g, nullptr) << error;
  EXPECT_EQ(g->update(sample(65, 0)), 0u) << "below the control trip";
  EXPECT_EQ(g->update(sample(71, 0)), 1u) << "at/above and rising: one step slower";
  EXPECT_EQ(g->update(sample(72, 1)), 2u);
  EXPECT_EQ(g->update(sample(71, 2)), 2u) << "above but falling: hold";
  EXPECT_EQ(g->update(sample(69, 2)), 2u) << "below the trip but inside its 2 °C hysteresis: hold";
  EXPECT_EQ(g->update(sample(67.5, 2)), 1u) << "below 70 − 2 and falling: one step faster";
  EXPECT_EQ(g->update(sample(95, 1)), 3u) << "critical: slowest at once";
}

TEST(ThermalGovernor, PowerAllocatorPicksFastestPointWithinBudget) {
  ThermalGovernorConfig cfg;
  cfg.governor = "power_allocator";
  cfg.sustainable_power_mw = 1000;
  cfg.k_pu = cfg.k_po = 100;
  cfg.k_i = 0;
  std::string error;
  auto g = make_thermal_governor(cfg, kOpps, &error);
  ASSERT_NE(g, nullptr) << error;
  // At 70 °C (error 0) the budget is 1000 mW. Measured 2000 mW at opp0 = 400 leakage + 1600 dynamic.
  // opp1: 1600·0.8·(0.8/0.9)² + 400·(0.8/0.9) = 1011.4 + 355.6 = 1367 > 1000;
  // opp2: 1600·0.6·(0.7/0.9)² + 400·(0.7/0.9) = 580.7 + 311.1 = 891.8 ≤ 1000 → opp2.
  EXPECT_EQ(g->update(sample(70, 0)), 2u);
  // 10 °C cooler: budget 1000 + 100·10 = 2000 mW, opp0 itself fits.
  EXPECT_EQ(g->update(sample(60, 0)), 0u);
}

TEST(ThermalGovernor, NoneAndBadInput) {
  ThermalGovernorConfig cfg;
  std::string error;
  cfg.governor = "none";
  EXPECT_EQ(make_thermal_governor(cfg, kOpps, &error), nullptr);
  EXPECT_TRUE(error.empty());
  cfg.governor = "step_wise";
  EXPECT_EQ(make_thermal_governor(cfg, {}, &error), nullptr);
  EXPECT_NE(error.find("no DVFS operating points"), std::string::npos) << error;
}

}  // namespace
