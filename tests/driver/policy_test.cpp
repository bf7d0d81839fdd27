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

TEST(SchedulingPolicy, RoundRobinTurnsByQueueEntryAndSlicesPerLevel) {
  auto p = make_scheduling_policy("rr");
  std::vector<TaskView> w{task(1, 0, 1), task(2, 3, 2), task(3, 1, 3)};
  w[0].queued_wait_ns = 100, w[1].queued_wait_ns = 900, w[2].queued_wait_ns = 900;
  EXPECT_EQ(p->pick(w), 1u) << "waited longest (ties: earlier order), level ignored";
  // Default slices: REALTIME 4 ms … LOW 0.5 ms. Only a buffer past its slice gives its channel up.
  std::vector<TaskView> running{task(4, 0, 1), task(5, 3, 2)};
  running[0].ran_ns = 3'000'000, running[1].ran_ns = 400'000;
  EXPECT_FALSE(p->victim(task(9, 3, 9), running)) << "both within their slices";
  running[1].ran_ns = 600'000;
  EXPECT_EQ(p->victim(task(9, 3, 9), running), 1u) << "LOW past its 0.5 ms slice";
  running[0].ran_ns = 5'000'000;
  EXPECT_EQ(p->victim(task(9, 3, 9), running), 0u) << "1 ms past its slice beats 0.1 ms";
  EXPECT_EQ(p->tick_ns(), 250'000u) << "half the shortest slice";
  SchedulerParams params;
  params.rr_quantum_ns = {8'000'000, 8'000'000, 8'000'000, 8'000'000};
  EXPECT_FALSE(make_scheduling_policy("rr", params)->victim(task(9, 3, 9), running))
      << "slices from the config";
}

TEST(SchedulingPolicy, EdfRunsEarliestDeadlineAndPreemptsLaterOnes) {
  auto p = make_scheduling_policy("edf");
  std::vector<TaskView> w{task(1, 0, 1), task(2, 3, 2), task(3, 2, 3)};
  w[1].deadline_ns = 5000, w[2].deadline_ns = 4000;
  EXPECT_EQ(p->pick(w), 2u) << "earliest deadline, whatever the level";
  w[1].deadline_ns = w[2].deadline_ns = 0;
  EXPECT_EQ(p->pick(w), 0u) << "no deadlines: by level";
  std::vector<TaskView> running{task(4, 0, 1), task(5, 3, 2)};
  running[0].deadline_ns = 9000;
  TaskView urgent = task(9, 3, 9);
  EXPECT_FALSE(p->victim(urgent, running)) << "without a deadline it waits";
  urgent.deadline_ns = 3000;
  EXPECT_EQ(p->victim(urgent, running), 1u) << "no deadline counts as the latest";
  running[1].deadline_ns = 2000;
  EXPECT_EQ(p->victim(urgent, running), 0u);
}

// The adaptive tests' clock: every snapshot is taken at kNow, and deadlines are written as kNow + slack.
constexpr uint64_t kNow = 10'000'000;

// A job that has waited `waited` ns, all of its time in the system so far (its tokens count that time).
void wait_for(TaskView& t, uint64_t waited) {
  t.waited_ns = waited;
  t.submit_ns = t.now_ns - waited;
}

TaskView job_view(uint64_t job, uint32_t level, uint64_t order, uint64_t job_remaining, uint64_t job_total,
                  uint64_t waited = 0, uint64_t due_in = 0) {
  TaskView t = task(job, level, order, job_remaining);
  t.now_ns = kNow;
  wait_for(t, waited);
  t.job_remaining_ns = job_remaining;
  t.job_total_ns = job_total;
  t.deadline_ns = due_in ? kNow + due_in : 0;
  return t;
}

// The adaptive tests set their own knobs (weights 2 / 1.5 / 1 / 0.5, candidate share 0.5, preempt ratio
// 1.5), so the hand-worked values below do not move when the shipped defaults are retuned.
SchedulerParams pinned() {
  SchedulerParams p;
  p.weight = {2.0, 1.5, 1.0, 0.5};
  p.candidate_share = 0.5;
  p.preempt_ratio = 1.5;
  p.deadline_stretch = 1.5;
  p.rate_window_ns = 0;  // ranked by remaining work alone; AdaptiveRanksByTheAppsDemand covers the rest
  return p;
}

TEST(SchedulingPolicy, AdaptiveShortestCandidateWithDeadlinesKeptBySlackStealing) {
  auto p = make_scheduling_policy("adaptive", pinned());
  // Nothing has waited yet. Tokens 2, 1, 0.5; the threshold is 0.5 × 2 = 1: jobs 1 and 2 are candidates by
  // tokens, job 3 because it has a deadline.
  std::vector<TaskView> w{job_view(1, 0, 1, 4000, 4000), job_view(2, 2, 2, 1000, 1000),
                          job_view(3, 3, 3, 50'000, 50'000, 0, /*due in*/ 90'000)};
  // The shortest candidate is job 2. Slack stealing: its 1 µs buffer then job 3, stretched by 1.5, ends
  // at 1.5 + 75 = 76.5 µs, before job 3's deadline of 90 µs.
  EXPECT_EQ(p->pick(w), 1u) << "short work passes a long deadline job with slack";
  w[2].deadline_ns = kNow + 76'000;  // 76.5 > 76: it would miss; alone (75 ≤ 76) it can still make it
  EXPECT_EQ(p->pick(w), 2u) << "the deadline job runs when passing it would break its deadline";
  w[2].deadline_ns = kNow + 70'000;  // 75 > 70: lost whatever runs, so it does not hold the others back
  EXPECT_EQ(p->pick(w), 1u);
  w[2].deadline_ns = kNow + 200'000;
  SchedulerParams always = pinned();
  always.deadline_stretch = 0;
  EXPECT_EQ(make_scheduling_policy("adaptive", always)->pick(w), 2u) << "stretch 0: deadline work first";
  // A short deadline job runs first by its length, though its tokens (0.5) are under the threshold.
  std::vector<TaskView> frame = w;
  frame.push_back(job_view(4, 3, 4, 500, 500, 0, 1'000'000));
  EXPECT_EQ(p->pick(frame), 3u);
  w[2].deadline_ns = 0;
  EXPECT_EQ(p->pick(w), 1u) << "the shortest candidate";
  w[1].level = 3;  // tokens 0.5 < 1: no longer a candidate, the longer REALTIME job runs
  EXPECT_EQ(p->pick(w), 0u);
  wait_for(w[1], 1000);  // one length waited: 0.5 × (1 + 1) = 1 reaches the threshold again
  EXPECT_EQ(p->pick(w), 1u);
  w[1] = job_view(2, 2, 2, 1000, 1000);
  // Waiting ages the LOW job: after 6 lengths its tokens are 0.5 × 7 = 3.5 (threshold 1.75: job 1 with 2
  // is still a candidate and shorter); after 8, 4.5 (threshold 2.25: it is the only candidate).
  wait_for(w[2], 300'000);
  EXPECT_EQ(p->pick(w), 0u);
  wait_for(w[2], 400'000);
  EXPECT_EQ(p->pick(w), 2u);
  SchedulerParams srpt = pinned();
  srpt.candidate_share = 0;
  EXPECT_EQ(make_scheduling_policy("adaptive", srpt)->pick(w), 1u) << "share 0: shortest remaining work";
  SchedulerParams hrrn = pinned();
  hrrn.candidate_share = 1;
  wait_for(w[2], 100'000);  // tokens 1.5 against 2 and 1
  EXPECT_EQ(make_scheduling_policy("adaptive", hrrn)->pick(w), 0u) << "share 1: the most tokens";
  // An app slowed more than others lately: its tokens are multiplied by its context's slowdown.
  std::vector<TaskView> apps{job_view(1, 0, 1, 4000, 4000), job_view(2, 0, 2, 1000, 1000)};
  EXPECT_EQ(p->pick(apps), 1u) << "tokens 2 and 2: both candidates, the shorter runs";
  apps[0].context_slowdown = 2.5;  // tokens 5: threshold 2.5, the other (2) is no candidate
  EXPECT_EQ(p->pick(apps), 0u);
  apps[0].context_slowdown = 1.9;  // tokens 3.8: threshold 1.9, both candidates again
  EXPECT_EQ(p->pick(apps), 1u);
  // 20 lengths waited: starved, ahead of all work without a deadline whatever the tokens.
  wait_for(w[2], 1'000'000);
  wait_for(w[0], 70'000);  // 17.5 lengths: tokens 2 × 18.5 = 37 against 0.5 × 21 = 10.5, not starved
  EXPECT_EQ(p->pick(w), 2u);
  // Tokens count a job's time in the system, not only its wait: a job that has run half of its 1 µs
  // (waited 0, 1 µs in the system: tokens 1.5 × (1 + 1) = 3) stays a candidate against one that waited
  // 12 µs of its 4 (1.5 × 4 = 6, threshold 3), and the shorter runs; by its wait alone (tokens 1.5) the
  // longer one would pass it at its next stage.
  std::vector<TaskView> stage{job_view(1, 1, 1, 500, 1000), job_view(2, 1, 2, 4000, 4000, 12'000)};
  stage[0].submit_ns = kNow - 1000;
  EXPECT_EQ(p->pick(stage), 0u);
  stage[0].submit_ns = kNow;
  EXPECT_EQ(p->pick(stage), 1u);
}

TEST(SchedulingPolicy, AdaptivePreemptsForDeadlinesFairnessAndClearGainsOnly) {
  auto p = make_scheduling_policy("adaptive", pinned());
  std::vector<TaskView> running{job_view(1, 3, 1, 100'000, 100'000), job_view(2, 2, 2, 3000, 3000)};
  // The first channel frees in 1.5 × 3 = 4.5 µs; the frame then needs 1.5 × 2 = 3: 7.5 µs > 5 µs.
  const TaskView frame = job_view(9, 0, 9, 2000, 2000, 0, 5000);
  EXPECT_EQ(p->victim(frame, running), 0u)
      << "deadline work that cannot wait takes the lowest level's channel";
  // Without a deadline, tokens 1 against running tokens 0.5 and 1: all candidates of one another, so only
  // the clear gain counts: 100000 ≥ 1.5 × 1000 (job 1), 3000 ≥ 1.5 × 1000 (job 2); the lower level gives way.
  EXPECT_EQ(p->victim(job_view(8, 2, 8, 1000, 1000), running), 0u);
  running[0].preempting = true;
  EXPECT_EQ(p->victim(job_view(8, 2, 8, 1000, 1000), running), 1u);
  EXPECT_FALSE(p->victim(job_view(8, 2, 8, 2500, 2500), running)) << "3000 < 1.5 × 2500: not worth it";
  // Deadline work with slack (4.5 + 3.75 µs of 1000 µs) needs only to be shorter: 2500 < 3000.
  EXPECT_EQ(p->victim(job_view(8, 2, 8, 2500, 2500, 0, 1'000'000), running), 1u);
  // Fairness: a waiting job with 4 × the running one's tokens takes its channel whatever its length
  // (tokens 1 × (1 + 3) = 4 against 1: the running job is not a candidate against it).
  EXPECT_EQ(p->victim(job_view(8, 2, 8, 2500, 2500, 7500), running), 1u);
  // A running job with more than twice the waiting one's tokens is never preempted by it.
  wait_for(running[1], 9000);  // tokens 4
  EXPECT_FALSE(p->victim(job_view(8, 2, 8, 10, 10), running));
  wait_for(running[1], 0);
  running[1].deadline_ns = kNow + 50'000;
  EXPECT_FALSE(p->victim(job_view(8, 0, 8, 10, 10), running)) << "never deadline work for work without one";
  EXPECT_EQ(p->victim(frame, running), 1u) << "deadline work that cannot wait: a later deadline gives way";
  // With slack (4.5 + 1.5 = 6 µs of 40): deadline work due earlier and shorter takes the channel of
  // deadline work that still makes its own after it (1.5 × (1 + 3) = 6 µs of 50).
  const TaskView earlier = job_view(10, 0, 10, 1000, 1000, 0, 40'000);
  EXPECT_EQ(p->victim(earlier, running), 1u);
  EXPECT_FALSE(p->victim(job_view(10, 0, 10, 1000, 1000, 0, 60'000), running)) << "not when due later";
  running[1].deadline_ns = kNow + 5500;  // 6 µs > 5.5: the running job would miss its own
  EXPECT_FALSE(p->victim(earlier, running));
  running[1].deadline_ns = kNow + 4000;
  EXPECT_FALSE(p->victim(frame, running)) << "not deadline work due earlier";
}

TEST(SchedulingPolicy, AdaptiveRanksByTheAppsDemand) {
  SchedulerParams params = pinned();
  params.rate_window_ns = 100'000'000;
  auto p = make_scheduling_policy("adaptive", params);
  // Two fresh 4 µs jobs with deadlines, both candidates: the one whose app submitted 1 job in the window
  // runs before the one whose app submitted 9 (rank 4000 · 4000 · √1 against 4000 · 4000 · √9), whatever
  // the order; with the window 0, the earlier one.
  std::vector<TaskView> w{job_view(1, 1, 1, 4000, 4000, 0, 1'000'000),
                          job_view(2, 1, 2, 4000, 4000, 0, 1'000'000)};
  w[0].context_recent_jobs = 9;
  EXPECT_EQ(p->pick(w), 1u);
  EXPECT_EQ(make_scheduling_policy("adaptive", pinned())->pick(w), 0u);
  // A running job of the busy app, half done (rank 2000 · 4000 · 3 = 24e6), gives its channel to a fresh
  // job of the quiet app (16e6, deadline work needs only to rank lower); one with 1 µs left (12e6) keeps it.
  std::vector<TaskView> running{job_view(3, 1, 3, 2000, 4000, 0, 2'000'000)};
  running[0].context_recent_jobs = 9;
  const TaskView quiet = job_view(4, 1, 4, 4000, 4000, 0, 1'000'000);
  EXPECT_EQ(p->victim(quiet, running), 0u);
  running[0].job_remaining_ns = 1000;
  EXPECT_FALSE(p->victim(quiet, running));
}

TEST(SchedulingPolicy, AdaptiveBackfillsOnlyWhatEndsBeforeABetterJobsNextStage) {
  auto p = make_scheduling_policy("adaptive", pinned());
  EXPECT_TRUE(p->may_hold());
  EXPECT_EQ(p->tick_ns(), 1'000'000u) << "waiting jobs weighed again every 1 ms while work runs";
  // Job 1 runs two buffers with 1 µs left each (5 µs of the job left); its next stage has 4 buffers. Two
  // channels are free. Job 2 (20 µs, fresh, NORMAL like job 1) ranks worse: 20000 against 5000.
  std::vector<TaskView> running{job_view(1, 2, 1, 5000, 8000), job_view(1, 2, 2, 5000, 8000)};
  for (auto& r : running) {
    r.estimated_remaining_ns = 1000;
    r.next_stage_buffers = 4;
  }
  TaskView chosen = job_view(2, 2, 3, 20'000, 20'000);
  chosen.estimated_remaining_ns = 3000;
  // Its 3 µs buffer would still run when job 1's stage ends, and job 1's 4 buffers need all 4 channels.
  EXPECT_TRUE(p->hold(chosen, running, 2));
  chosen.estimated_remaining_ns = 800;
  EXPECT_FALSE(p->hold(chosen, running, 2)) << "ends before job 1's stage does";
  chosen.estimated_remaining_ns = 3000;
  for (auto& r : running) r.next_stage_buffers = 3;
  EXPECT_FALSE(p->hold(chosen, running, 2)) << "job 1's next stage fits on its 2 channels and 1 free";
  for (auto& r : running) r.next_stage_buffers = 0;
  EXPECT_FALSE(p->hold(chosen, running, 2)) << "job 1 is in its last stage";
  for (auto& r : running) r.next_stage_buffers = 4;
  TaskView shorter = job_view(3, 2, 4, 4000, 4000);
  shorter.estimated_remaining_ns = 3000;
  EXPECT_FALSE(p->hold(shorter, running, 2)) << "ranks better than job 1 (4000 against 5000)";
  // Deadline work waits only while it keeps its deadline after job 1: 1.5 · (5 + 20) = 37.5 µs.
  chosen.deadline_ns = kNow + 30'000;
  EXPECT_FALSE(p->hold(chosen, running, 2));
  chosen.deadline_ns = kNow + 50'000;
  EXPECT_TRUE(p->hold(chosen, running, 2));
  running[0].preempting = running[1].preempting = true;
  EXPECT_FALSE(p->hold(chosen, running, 2)) << "job 1 is giving its channels up";
  SchedulerParams off = pinned();
  off.backfill = false;
  off.recheck_ns = 0;
  EXPECT_FALSE(make_scheduling_policy("adaptive", off)->may_hold());
  EXPECT_EQ(make_scheduling_policy("adaptive", off)->tick_ns(), 0u);
  EXPECT_FALSE(make_scheduling_policy("prema", pinned())->may_hold());
}

TEST(PreemptionPolicy, AdaptiveDrainsOnlyWhenTheDeadlineAllows) {
  auto p = make_preemption_policy("adaptive");
  PreemptCosts c;
  c.save_restore = true;
  c.checkpoint_ns = 4000;
  c.kill_lost_ns = 50'000;
  TaskView victim = task(1, 3, 1, /*remaining*/ 3000);
  TaskView frame = job_view(2, 0, 2, 2000, 2000);
  frame.now_ns = 100'000;
  frame.deadline_ns = 106'000;
  EXPECT_EQ(p->choose(victim, frame, c), PreemptMechanism::DRAIN) << "3 + 2 µs of 6 µs slack";
  frame.deadline_ns = 104'000;
  EXPECT_EQ(p->choose(victim, frame, c), PreemptMechanism::CHECKPOINT) << "draining would miss the deadline";
  c.kill_lost_ns = 1000;
  EXPECT_EQ(p->choose(victim, frame, c), PreemptMechanism::KILL) << "less lost than a checkpoint costs";
  victim.estimated_remaining_ns = 100'000;
  c.kill_lost_ns = 50'000;
  EXPECT_EQ(p->choose(victim, task(3, 0, 3), c), PreemptMechanism::CHECKPOINT);
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
