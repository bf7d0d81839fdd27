// The load policies as pure decisions over hand-built service snapshots (no simulation): ranking,
// thermal back-off, pause hysteresis, aging and the AOSP budget rules. The thermal severity is driven
// directly here; tests/manager/npu_manager_test.cpp runs the policies inside the service.
#include "npu/mgr/policy.h"

#include <gtest/gtest.h>

namespace {

using namespace npu::mgr;

constexpr uint64_t kGiB = 1ull << 30, kMs = 1'000'000;

RequestView request(int uid, Importance imp, LoadPriority prio, RequestState state, uint64_t gib,
                    uint64_t arrival) {
  RequestView r;
  r.uid = uid;
  r.request = {static_cast<int64_t>(arrival + 1), SizeClass::LESS_THAN_1GB, prio};
  r.state = state;
  r.importance = imp;
  r.bytes = gib * kGiB;
  r.arrival = arrival;
  return r;
}

std::unique_ptr<LoadPolicy> policy(const std::string& name,
                                   const nlohmann::json& params = nlohmann::json::object()) {
  auto p = make_policy(name, params);
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(*p);
}

std::vector<Verdict> verdicts(const Decision& d) {
  std::vector<Verdict> v;
  for (const auto& r : d.rulings) v.push_back(r.verdict);
  return v;
}

TEST(ThermalPriorityPolicy, ForegroundNormalIsAdmittedFirst) {
  auto p = policy("THERMAL_PRIORITY");
  ServiceView v;
  v.capacity_bytes = 4 * kGiB;
  v.requests = {request(1, Importance::BACKGROUND, LoadPriority::NORMAL, RequestState::PENDING, 3, 0),
                request(2, Importance::FOREGROUND, LoadPriority::BACKGROUND, RequestState::PENDING, 3, 1),
                request(3, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::PENDING, 3, 2)};
  EXPECT_EQ(verdicts(p->evaluate(v)),
            (std::vector<Verdict>{Verdict::NOT_PRIORITIZED, Verdict::NOT_PRIORITIZED, Verdict::ADMIT}));
}

TEST(ThermalPriorityPolicy, HolderOutrankedAsksToUnloadAndTheWinnerWaits) {
  auto p = policy("THERMAL_PRIORITY");
  ServiceView v;
  v.capacity_bytes = 4 * kGiB;
  v.requests = {request(1, Importance::BACKGROUND, LoadPriority::NORMAL, RequestState::LOADED, 3, 0),
                request(2, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::PENDING, 3, 1)};
  const Decision d = p->evaluate(v);
  EXPECT_EQ(verdicts(d), (std::vector<Verdict>{Verdict::UNLOAD, Verdict::WAIT_FOR_UNLOAD}));
  EXPECT_EQ(d.rulings[0].reason, UnloadReason::MEMORY_PRESSURE);
  // While it unloads, its memory is still taken: the winner keeps waiting; an equal rank keeps the holder.
  v.requests[0].state = RequestState::UNLOADING;
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::WAIT_FOR_UNLOAD}));
  v.requests[0].importance = Importance::FOREGROUND;
  v.requests[0].state = RequestState::LOADED;
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::NOT_PRIORITIZED}));
}

TEST(ThermalPriorityPolicy, OpportunisticTakesOnlyMemoryNobodyWants) {
  auto p = policy("THERMAL_PRIORITY");
  ServiceView v;
  v.capacity_bytes = 4 * kGiB;
  v.requests = {request(1, Importance::CACHED, LoadPriority::NORMAL, RequestState::LOADED, 3, 0),
                request(2, Importance::FOREGROUND, LoadPriority::OPPORTUNISTIC, RequestState::PENDING, 2, 1),
                request(3, Importance::FOREGROUND, LoadPriority::OPPORTUNISTIC, RequestState::PENDING, 1, 2)};
  // Even a foreground opportunistic request never displaces a cached holder; the 1 GiB one fits beside it.
  EXPECT_EQ(verdicts(p->evaluate(v)),
            (std::vector<Verdict>{Verdict::KEEP, Verdict::NOT_PRIORITIZED, Verdict::ADMIT}));
  // And an opportunistic holder is the first to go for any other request.
  v.requests = {request(1, Importance::FOREGROUND, LoadPriority::OPPORTUNISTIC, RequestState::LOADED, 3, 0),
                request(2, Importance::CACHED, LoadPriority::BACKGROUND, RequestState::PENDING, 3, 1)};
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::UNLOAD, Verdict::WAIT_FOR_UNLOAD}));
}

TEST(ThermalPriorityPolicy, SevereUnloadsOpportunisticAndBackgroundHoldersForThermalReasons) {
  auto p = policy("THERMAL_PRIORITY");
  ServiceView v;
  v.capacity_bytes = 8 * kGiB;
  v.severity = ThermalSeverity::SEVERE;
  v.requests = {request(1, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::LOADED, 1, 0),
                request(2, Importance::VISIBLE, LoadPriority::OPPORTUNISTIC, RequestState::LOADED, 1, 1),
                request(3, Importance::BACKGROUND, LoadPriority::NORMAL, RequestState::LOADED, 1, 2),
                request(4, Importance::SERVICE, LoadPriority::NORMAL, RequestState::LOADED, 1, 3),
                request(5, Importance::CACHED, LoadPriority::NORMAL, RequestState::PENDING, 1, 4)};
  const Decision d = p->evaluate(v);
  EXPECT_EQ(verdicts(d), (std::vector<Verdict>{Verdict::KEEP, Verdict::UNLOAD, Verdict::UNLOAD, Verdict::KEEP,
                                               Verdict::NOT_PRIORITIZED}));
  EXPECT_EQ(d.rulings[1].reason, UnloadReason::THERMAL);
  EXPECT_EQ(d.rulings[2].reason, UnloadReason::THERMAL);
  EXPECT_EQ(d.paused_uids, std::set<int>{2});  // from MODERATE on, opportunistic-only holders pause
  // Below the unload level nothing is unloaded.
  v.severity = ThermalSeverity::MODERATE;
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::KEEP, Verdict::KEEP,
                                                            Verdict::KEEP, Verdict::ADMIT}));
}

// Pause at MODERATE, resume once the severity stayed at LIGHT or below for resumeHoldMs (1000 ms).
TEST(ThermalPriorityPolicy, PausedWorkResumesAfterCoolingWithHysteresis) {
  auto p = policy("THERMAL_PRIORITY");
  ServiceView v;
  v.capacity_bytes = 8 * kGiB;
  v.requests = {request(7, Importance::BACKGROUND, LoadPriority::OPPORTUNISTIC, RequestState::LOADED, 1, 0),
                request(8, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::LOADED, 1, 1),
                request(9, Importance::VISIBLE, LoadPriority::OPPORTUNISTIC, RequestState::PENDING, 1, 2)};
  auto at = [&](uint64_t ms, ThermalSeverity s) {
    v.now_ns = ms * kMs;
    v.severity = s;
    return p->evaluate(v);
  };
  EXPECT_TRUE(at(0, ThermalSeverity::LIGHT).paused_uids.empty());
  Decision d = at(100, ThermalSeverity::MODERATE);
  EXPECT_EQ(d.paused_uids, std::set<int>{7});
  EXPECT_EQ(d.rulings[2].verdict, Verdict::NOT_PRIORITIZED);  // no new opportunistic loads while hot
  d = at(1000, ThermalSeverity::LIGHT);  // cooling starts: still paused, look again at 2000 ms
  EXPECT_EQ(d.paused_uids, std::set<int>{7});
  EXPECT_EQ(d.reevaluate_at_ns, 2000 * kMs);
  d = at(1500, ThermalSeverity::MODERATE);  // heats up again: the hold restarts
  EXPECT_EQ(d.paused_uids, std::set<int>{7});
  EXPECT_EQ(at(1800, ThermalSeverity::NONE).reevaluate_at_ns, 2800 * kMs);
  EXPECT_EQ(at(2700, ThermalSeverity::NONE).paused_uids, std::set<int>{7});
  d = at(2800, ThermalSeverity::NONE);
  EXPECT_TRUE(d.paused_uids.empty());
  EXPECT_EQ(d.rulings[2].verdict, Verdict::ADMIT);
}

TEST(ThermalPriorityPolicy, AgingImprovesAWaitersRankStepByStep) {
  auto p = policy("THERMAL_PRIORITY", {{"agingStepMs", 100}});
  ServiceView v;
  v.capacity_bytes = 4 * kGiB;
  v.now_ns = 5000 * kMs;
  // A foreground holder (rank 0) and a cached BACKGROUND waiter (rank 4·2 + 1 = 9).
  v.requests = {
      request(1, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::LOADED, 3, 0),
      request(2, Importance::CACHED, LoadPriority::BACKGROUND, RequestState::NOT_PRIORITIZED, 3, 1)};
  v.requests[1].waited_ns = 950 * kMs;  // rank 9 − 9 = 0: ties keep the holder
  Decision d = p->evaluate(v);
  EXPECT_EQ(verdicts(d), (std::vector<Verdict>{Verdict::KEEP, Verdict::NOT_PRIORITIZED}));
  EXPECT_EQ(d.reevaluate_at_ns, v.now_ns + 50 * kMs);  // the next step
  v.requests[1].waited_ns = 1000 * kMs;                // rank −1
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::UNLOAD, Verdict::WAIT_FOR_UNLOAD}));
}

TEST(BudgetPolicy, AospDefaultsWeightsAndCancellation) {
  auto p = policy("BUDGET");  // weights 1/2/4, maxBudget 4
  ServiceView v;
  auto req = [](int uid, Importance imp, SizeClass size, RequestState st, uint64_t arrival) {
    RequestView r = request(uid, imp, LoadPriority::NORMAL, st, 1, arrival);
    r.request.size = size;
    return r;
  };
  v.requests = {req(1, Importance::BACKGROUND, SizeClass::BETWEEN_1GB_AND_2GB, RequestState::LOADED, 0),
                req(2, Importance::SERVICE, SizeClass::BETWEEN_1GB_AND_2GB, RequestState::PENDING, 1),
                req(3, Importance::CACHED, SizeClass::LESS_THAN_1GB, RequestState::PENDING, 2)};
  EXPECT_EQ(verdicts(p->evaluate(v)),
            (std::vector<Verdict>{Verdict::KEEP, Verdict::ADMIT, Verdict::NOT_PRIORITIZED}));
  // A foreground large model (weight 4) needs everything: the holders unload, the newcomer waits,
  // and a request that had been promised a place loses it: cancelled, as AOSP does.
  v.requests[1].state = RequestState::LOADED;
  v.requests[2].state = RequestState::WAIT_FOR_UNLOAD;
  v.requests.push_back(req(4, Importance::FOREGROUND, SizeClass::GREATER_THAN_2G, RequestState::PENDING, 3));
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::UNLOAD, Verdict::UNLOAD, Verdict::CANCEL,
                                                            Verdict::WAIT_FOR_UNLOAD}));
  // Custom weights: small models weigh 2, so two fill a budget of 4.
  auto q = policy("BUDGET", {{"modelSizeWeights", {{"LESS_THAN_1GB", 2}}}});
  v.requests = {req(1, Importance::FOREGROUND, SizeClass::LESS_THAN_1GB, RequestState::PENDING, 0),
                req(2, Importance::FOREGROUND, SizeClass::LESS_THAN_1GB, RequestState::PENDING, 1),
                req(3, Importance::FOREGROUND, SizeClass::LESS_THAN_1GB, RequestState::PENDING, 2)};
  EXPECT_EQ(verdicts(q->evaluate(v)),
            (std::vector<Verdict>{Verdict::ADMIT, Verdict::ADMIT, Verdict::NOT_PRIORITIZED}));
}

TEST(TurnTakingPolicy, TheUidThatCompletedWorkMostRecentlyGivesWay) {
  auto p = policy("TURN_TAKING");
  ServiceView v;
  v.requests = {
      request(1, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::LOADED, 1, 0),
      request(2, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::NOT_PRIORITIZED, 1, 1)};
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::NOT_PRIORITIZED}));
  v.last_completed_ns[1] = 40 * kMs;
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::UNLOAD, Verdict::WAIT_FOR_UNLOAD}));
  // A more important uid does not give way, whatever it completed.
  v.requests[1].importance = Importance::VISIBLE;
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::NOT_PRIORITIZED}));
}

TEST(StatusQuoPolicy, AdmitsEveryWaiterAndUnloadsNobody) {
  auto p = policy("STATUS_QUO");
  ServiceView v;
  v.capacity_bytes = 1 * kGiB;
  v.requests = {request(1, Importance::CACHED, LoadPriority::NORMAL, RequestState::LOADED, 3, 0),
                request(2, Importance::FOREGROUND, LoadPriority::NORMAL, RequestState::PENDING, 3, 1)};
  EXPECT_EQ(verdicts(p->evaluate(v)), (std::vector<Verdict>{Verdict::KEEP, Verdict::ADMIT}));
}

TEST(Policies, ParametersAreDeclaredAndCheckedByName) {
  const std::string e = explain_policies();
  EXPECT_NE(e.find("maxBudget = 4 [weight]"), std::string::npos) << e;
  EXPECT_NE(e.find("agingStepMs = 5000 [ms]"), std::string::npos) << e;
  auto bad = make_policy("BUDGET", {{"maxBudget", -3}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "setPolicy(BUDGET): $.maxBudget: expected an integer in [1, 4294967295], got -3");
  bad = make_policy("STATUS_QUO", {{"x", 1}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "setPolicy(STATUS_QUO): takes no parameters, got {\"x\":1}");
  bad = make_policy("THERMAL_PRIORITY", {{"resumeSeverity", "SEVERE"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "setPolicy(THERMAL_PRIORITY): need resumeSeverity < pauseSeverity <= unloadSeverity, got SEVERE, "
            "MODERATE, SEVERE");
}

}  // namespace
