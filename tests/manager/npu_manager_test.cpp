// The NPU manager on the whole simulated platform: ManagedApps run the real flow (request → approval
// → HAL prepare → loaded → frames on the NPU → unload when asked) against the `npu` service with its
// default THERMAL_PRIORITY policy. Simulated time is deterministic, so times are asserted exactly;
// each comment shows the arithmetic. Costs: binder call 20 µs, executor task 5 µs, driver ioctl 2 µs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inference_runner.h"
#include "npu/mgr/managed_app.h"
#include "platform.h"

namespace {

using namespace npu;
using namespace npu::mgr;

constexpr uint64_t kUs = 1000, kMs = 1'000'000;

NpuService& service(system::System& s) {
  auto r = s.npu_service();
  EXPECT_TRUE(r.ok()) << r.error();
  return **r;
}

std::unique_ptr<ManagedApp> make_app(system::System& s, ManagedAppConfig c) {
  auto m = test::small_conv_model(static_cast<uint64_t>(c.uid));
  return std::make_unique<ManagedApp>(service(s), s.npu_device(c.uid), m.model, m.inputs, std::move(c));
}

ManagedAppConfig app_config(const std::string& name, int uid, SizeClass size,
                            LoadPriority priority = LoadPriority::NORMAL) {
  ManagedAppConfig c;
  c.name = name;
  c.uid = uid;
  c.size = size;
  c.priority = priority;
  return c;
}

// The two apps of the displacement scenarios: a background app (uid 1001) and a foreground app (uid
// 1002), each wanting a GREATER_THAN_2G model; `bg` may adjust the background app.
struct Giants {
  std::unique_ptr<ManagedApp> bg, fg;
};
Giants giants(system::System& s, const std::function<void(ManagedAppConfig&)>& bg = {}) {
  service(s).set_importance(1001, Importance::BACKGROUND);
  service(s).set_importance(1002, Importance::FOREGROUND);
  auto cfg_bg = app_config("bg", 1001, SizeClass::GREATER_THAN_2G);
  if (bg) bg(cfg_bg);
  return {make_app(s, cfg_bg), make_app(s, app_config("fg", 1002, SizeClass::GREATER_THAN_2G))};
}

// When `app` logged `what` for the n-th time (0 when never).
uint64_t time_of(const ManagedApp& app, const std::string& what, int n = 0) {
  for (const auto& e : app.events())
    if (e.what == what && n-- == 0) return e.at_ns;
  return 0;
}

void wait_until(system::System& s, uint64_t t_ns) {
  if (t_ns > s.os().now_ns()) s.os().delay_ns(t_ns - s.os().now_ns());
}

// 8 GiB of device memory (the apps' buffers fit), 6 GiB of it arbitrated as weight memory: room for one
// GREATER_THAN_2G model (4096 MiB) and a bit, not two.
const std::vector<std::string> kEightGiB{"npu.dram.size_mib=8192", "manager.weight_memory_mib=6144"};

TEST(NpuManager, ForegroundLargeModelDisplacesBackgroundGiant) {
  // The service arbitrates the driver's weight memory: the NPU's weight-memory region, 6 GiB in the
  // phone-class preset: one GREATER_THAN_2G model (4096 MiB) and a bit, not two.
  test::run_platform({}, [](system::System& s) {
    NpuService& svc = service(s);
    EXPECT_EQ(svc.capacity_bytes(), 6144ull << 20);
    auto [bg, fg] = giants(s);
    bg->start();
    // The background app loads and runs at 30 fps; the foreground request comes between two frames.
    wait_until(s, 50 * kMs);
    ASSERT_TRUE(bg->loaded());
    fg->start();
    wait_until(s, 200 * kMs);
    EXPECT_EQ(bg->callbacks(), (std::vector<std::string>{
                                   "onCanLoadModel CAN_LOAD_NOW", "onRequestUnloadModel MEMORY_PRESSURE",
                                   "onModelLoadRequestComplete COMPLETE", "onCanLoadModel NOT_PRIORITIZED"}));
    EXPECT_EQ(fg->callbacks(),
              (std::vector<std::string>{"onCanLoadModel WAIT_FOR_UNLOAD", "onCanLoadModel CAN_LOAD_NOW"}));
    const uint64_t asked = time_of(*fg, "requestCanLoadModel");
    const uint64_t unload_request = time_of(*bg, "onRequestUnloadModel MEMORY_PRESSURE");
    const uint64_t unloaded = time_of(*bg, "unloaded");
    const uint64_t complete = time_of(*bg, "onModelLoadRequestComplete COMPLETE");
    const uint64_t approved = time_of(*fg, "onCanLoadModel CAN_LOAD_NOW");
    EXPECT_EQ(asked, 50 * kMs);
    EXPECT_LT(unload_request, unloaded);
    EXPECT_LT(unloaded, complete);
    EXPECT_LT(unloaded, approved);
    // fg's binder call (20 µs) → bg executor task (5 µs) → bg frees its model's two buffers (2 × 2 µs
    // ioctl) → notifyModelUnloaded binder call (20 µs) → fg executor task (5 µs): 54 µs.
    EXPECT_EQ(unload_request - asked, 25 * kUs);
    EXPECT_EQ(unloaded - asked, 29 * kUs);
    EXPECT_EQ(approved - asked, 54 * kUs);
    EXPECT_TRUE(fg->loaded());
    EXPECT_GT(fg->frames_ok(), 0u);
    EXPECT_EQ(bg->frames_failed() + fg->frames_failed(), 0u);
    EXPECT_EQ(svc.held_bytes(), 4096ull << 20);
    EXPECT_LE(svc.max_held_bytes(), svc.capacity_bytes());
  });
}

TEST(NpuManager, CancelPendingRequestEndsCancelledWithoutApproval) {
  // One BETWEEN_1GB_AND_2GB model (2048 MiB) fits 3072 MiB, not two.
  test::run_platform({"manager.weight_memory_mib=3072"}, [](system::System& s) {
    NpuService& svc = service(s);
    svc.set_importance(1, Importance::FOREGROUND);
    svc.set_importance(2, Importance::BACKGROUND);
    auto a = make_app(s, app_config("a", 1, SizeClass::BETWEEN_1GB_AND_2GB));
    auto cfg_b = app_config("b", 2, SizeClass::BETWEEN_1GB_AND_2GB);
    cfg_b.rerequest = false;
    auto b = make_app(s, cfg_b);
    a->start();
    wait_until(s, 1 * kMs);
    b->start();
    wait_until(s, 10 * kMs);
    EXPECT_EQ(svc.state_of(2, 1), RequestState::NOT_PRIORITIZED);
    b->cancel_pending();
    wait_until(s, 20 * kMs);
    a->stop();  // memory frees up: b must not be approved, its request has ended
    wait_until(s, 100 * kMs);
    EXPECT_EQ(b->callbacks(), (std::vector<std::string>{"onCanLoadModel NOT_PRIORITIZED",
                                                        "onModelLoadRequestComplete CANCELLED"}));
    EXPECT_TRUE(b->finished());
    EXPECT_EQ(b->frames_ok(), 0u);
    EXPECT_FALSE(svc.state_of(2, 1).has_value());
    EXPECT_EQ(svc.active_requests(), 0u);
    EXPECT_EQ(svc.held_bytes(), 0u);
  });
}

// A holder that ignores onRequestUnloadModel is revoked when its timeout expires: its NPU work is
// cancelled (CANCELLED_SYSTEM), its memory reclaimed, its request ends CANCELLED, the waiter loads.
TEST(NpuManager, ClientIgnoringUnloadIsRevokedAfterItsTimeout) {
  auto overrides = kEightGiB;
  overrides.push_back("manager.unload_timeout_ms=200");
  test::run_platform(overrides, [](system::System& s) {
    NpuService& svc = service(s);
    auto [bg, fg] = giants(s, [](ManagedAppConfig& c) {
      c.honours_unload = false;
      c.rerequest = false;
    });
    bg->start();
    wait_until(s, 10 * kMs);
    fg->start();
    // Besides its frames, the background uid has a long job on the NPU when the timeout strikes.
    wait_until(s, 205 * kMs);
    test::InferenceRunner runner(s.driver(), 1001);
    auto long_job = runner.submit({0, -1, 1, 2000});
    ASSERT_TRUE(long_job.ok()) << long_job.error();
    wait_until(s, 400 * kMs);
    EXPECT_EQ(bg->callbacks(),
              (std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW", "onRequestUnloadModel MEMORY_PRESSURE",
                                        "onModelLoadRequestComplete CANCELLED"}));
    const uint64_t asked = time_of(*fg, "requestCanLoadModel");
    const uint64_t revoked = asked + 20 * kUs + 200 * kMs;
    // The request reaches the service after its 20 µs binder call; the timeout fires 200 ms later on
    // the service thread (5 µs task), which cancels bg's work — the driver resets the channel running
    // it, one 20 ns register write — and admits fg (5 µs executor task).
    EXPECT_EQ((*long_job)->status, drv::JobStatus::CANCELLED);
    EXPECT_EQ((*long_job)->end_reason, drv::WorkEndReason::CANCELLED_SYSTEM);
    EXPECT_EQ((*long_job)->end_ns, revoked + 5 * kUs + 20);
    EXPECT_EQ(time_of(*fg, "onCanLoadModel CAN_LOAD_NOW"), revoked + 10 * kUs + 20);
    EXPECT_TRUE(bg->finished());
    EXPECT_FALSE(bg->loaded());  // it noticed the revocation and released its model
    EXPECT_EQ(*s.stats().find_counter("manager.revocations"), 1u);
    EXPECT_EQ(svc.held_bytes(), 4096ull << 20);
  });
}

// Importance is ActivityManager's: changing it re-aligns the uid's scheduling config and re-ranks.
TEST(NpuManager, ImportanceChangeRealignsPriorityAndReranks) {
  test::run_platform(kEightGiB, [](system::System& s) {
    NpuService& svc = service(s);
    svc.set_importance(1001, Importance::BACKGROUND);
    svc.set_importance(1002, Importance::BACKGROUND);
    const drv::SchedulingConfig* c = s.driver().scheduling_config(1002);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->app_priority, 500);  // BACKGROUND band: 500, jobs 400…1000
    EXPECT_EQ(c->min_priority, 400);
    auto holder = make_app(s, app_config("holder", 1001, SizeClass::GREATER_THAN_2G));
    auto waiter = make_app(s, app_config("waiter", 1002, SizeClass::GREATER_THAN_2G));
    holder->start();
    wait_until(s, 5 * kMs);
    waiter->start();
    wait_until(s, 20 * kMs);
    EXPECT_EQ(waiter->callbacks(), std::vector<std::string>{"onCanLoadModel NOT_PRIORITIZED"});
    svc.set_importance(1002, Importance::FOREGROUND);  // the user opens the waiting app
    EXPECT_EQ(s.driver().scheduling_config(1002)->app_priority, 0);
    EXPECT_EQ(s.driver().scheduling_config(1002)->max_priority, 500);
    wait_until(s, 100 * kMs);
    ASSERT_GE(holder->callbacks().size(), 2u);
    EXPECT_EQ(holder->callbacks()[1], "onRequestUnloadModel MEMORY_PRESSURE");
    EXPECT_EQ(waiter->callbacks().back(), "onCanLoadModel CAN_LOAD_NOW");
    EXPECT_TRUE(waiter->loaded());
  });
}

// Priority alignment end to end: a background app's most urgent job (job priority 0) runs at 500 + 400
// = 900 and a foreground app's ordinary one (500) at 0 + 500 = 500: submitted later behind a busy NPU,
// the foreground job still runs first.
TEST(NpuManager, BackgroundUrgentJobCannotOvertakeForegroundWork) {
  test::run_platform({}, [](system::System& s) {
    NpuService& svc = service(s);
    svc.set_importance(1001, Importance::BACKGROUND);
    svc.set_importance(1002, Importance::FOREGROUND);
    test::InferenceRunner busy(s.driver(), 3000), bg(s.driver(), 1001), fg(s.driver(), 1002);
    auto blocker = busy.submit({0, -1, s.driver().channel_count(), 64});
    auto urgent = bg.submit({0});
    s.os().delay_ns(10 * kUs);
    auto ordinary = fg.submit({500});
    ASSERT_TRUE(blocker.ok() && urgent.ok() && ordinary.ok());
    EXPECT_EQ((*urgent)->effective_priority, 900);
    EXPECT_EQ((*ordinary)->effective_priority, 500);
    s.driver().wait(**urgent);
    s.driver().wait(**ordinary);
    EXPECT_LT((*ordinary)->start_ns, (*urgent)->start_ns);
  });
}

// Aging: a cached app's request gains a rank step per agingStepMs and after ten steps outranks a
// foreground holder (rank 0 against 4·2 + 1 − 10 = −1); the foreground app then waits and ages in turn.
TEST(NpuManager, AgingLetsALongWaiterDisplaceAForegroundHolder) {
  test::run_platform(kEightGiB, [](system::System& s) {
    NpuService& svc = service(s);
    NpuManager admin(svc, 1000);
    auto set = admin.set_policy("THERMAL_PRIORITY", {{"agingStepMs", 100}});
    ASSERT_TRUE(set.ok()) << set.error();
    svc.set_importance(1001, Importance::FOREGROUND);
    svc.set_importance(1002, Importance::CACHED);
    auto fg = make_app(s, app_config("fg", 1001, SizeClass::GREATER_THAN_2G));
    auto cached =
        make_app(s, app_config("cached", 1002, SizeClass::GREATER_THAN_2G, LoadPriority::BACKGROUND));
    fg->start();
    wait_until(s, 5 * kMs);
    cached->start();
    wait_until(s, 1500 * kMs);
    const uint64_t asked = time_of(*cached, "requestCanLoadModel");
    // Waiting since asked + 20 µs; the re-evaluation at the tenth step runs 5 µs after it on the
    // service thread, the unload request reaches fg 5 µs later.
    EXPECT_EQ(time_of(*fg, "onRequestUnloadModel MEMORY_PRESSURE") - asked, 1000 * kMs + 30 * kUs);
    EXPECT_GT(time_of(*cached, "onCanLoadModel CAN_LOAD_NOW"), asked + 1000 * kMs);
    // fg re-requested at once and needs two steps (0 − 2 < −1) to take the memory back.
    const uint64_t fg_again = time_of(*fg, "requestCanLoadModel", 1);
    EXPECT_EQ(time_of(*cached, "onRequestUnloadModel MEMORY_PRESSURE") - fg_again, 200 * kMs + 30 * kUs);
    EXPECT_EQ(time_of(*fg, "onCanLoadModel CAN_LOAD_NOW", 1) > fg_again, true);
    EXPECT_LE(svc.max_held_bytes(), svc.capacity_bytes());
  });
}

// A thermal spike with the default policy, the severity driven directly (as the thermal service or
// the driver's ThermalObserver reports it), so that every time is exact; thermal_e2e_test.cpp drives
// the same policy from real heat through the sensor and the driver. MODERATE pauses the opportunistic app's
// NPU work; after cooling to LIGHT it resumes only once 1000 ms (resumeHoldMs) passed. SEVERE asks the
// opportunistic and the background app to unload (THERMAL) and keeps them out until it cools; the foreground
// app runs on.
TEST(NpuManager, ThermalSpikePausesThenUnloadsOpportunisticWorkAndResumesAfterCooling) {
  test::run_platform(kEightGiB, [](system::System& s) {
    NpuService& svc = service(s);
    svc.set_importance(1, Importance::FOREGROUND);
    svc.set_importance(2, Importance::VISIBLE);
    svc.set_importance(3, Importance::BACKGROUND);
    auto f = make_app(s, app_config("f", 1, SizeClass::LESS_THAN_1GB));
    auto o = make_app(s, app_config("o", 2, SizeClass::LESS_THAN_1GB, LoadPriority::OPPORTUNISTIC));
    auto b = make_app(s, app_config("b", 3, SizeClass::LESS_THAN_1GB));
    for (auto* a : {f.get(), o.get(), b.get()}) a->start();
    wait_until(s, 100 * kMs);
    svc.set_thermal_severity(ThermalSeverity::MODERATE);
    EXPECT_EQ(svc.paused_uids(), std::set<int>{2});
    wait_until(s, 200 * kMs);
    svc.set_thermal_severity(ThermalSeverity::LIGHT);  // cooling starts at 200 ms
    // The re-evaluation timer fires at 1200 ms and runs 5 µs later on the service thread.
    wait_until(s, 1200 * kMs + 4 * kUs);
    EXPECT_EQ(svc.paused_uids(), std::set<int>{2});
    wait_until(s, 1200 * kMs + 6 * kUs);
    EXPECT_TRUE(svc.paused_uids().empty());
    for (const auto* a : {f.get(), o.get(), b.get()})
      EXPECT_EQ(a->callbacks(), std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW"}) << a->config().name;
    // A spike to SEVERE, reported through the ThermalObserver (handled 5 µs later on the service thread).
    wait_until(s, 1500 * kMs);
    drv::ThermalObserver& observer = svc;
    observer.on_thermal_severity(ThermalSeverity::SEVERE, 97.5);
    wait_until(s, 1600 * kMs);
    EXPECT_EQ(svc.thermal_severity(), ThermalSeverity::SEVERE);
    EXPECT_EQ(time_of(*o, "onRequestUnloadModel THERMAL"), 1500 * kMs + 10 * kUs);
    EXPECT_EQ(time_of(*b, "onRequestUnloadModel THERMAL"), 1500 * kMs + 10 * kUs);
    EXPECT_TRUE(f->loaded());
    svc.set_thermal_severity(ThermalSeverity::NONE);  // cooled at 1600 ms
    wait_until(s, 3000 * kMs);
    const std::vector<std::string> cycle{"onCanLoadModel CAN_LOAD_NOW", "onRequestUnloadModel THERMAL",
                                         "onModelLoadRequestComplete COMPLETE",
                                         "onCanLoadModel NOT_PRIORITIZED", "onCanLoadModel CAN_LOAD_NOW"};
    EXPECT_EQ(o->callbacks(), cycle);
    EXPECT_EQ(b->callbacks(), cycle);
    // The background app is back as soon as it is cool (5 µs executor task); the opportunistic one
    // only after the 1000 ms hold (timer at 2600 ms, 5 µs service task, 5 µs executor task).
    EXPECT_EQ(time_of(*b, "onCanLoadModel CAN_LOAD_NOW", 1), 1600 * kMs + 5 * kUs);
    EXPECT_EQ(time_of(*o, "onCanLoadModel CAN_LOAD_NOW", 1), 2600 * kMs + 10 * kUs);
    EXPECT_EQ(f->callbacks(), std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW"});
    EXPECT_EQ(*s.stats().find_counter("manager.thermal_unloads"), 2u);
    EXPECT_EQ(f->frames_failed() + o->frames_failed() + b->frames_failed(), 0u);
  });
}

TEST(NpuManager, StatusQuoAdmitsEverythingAtOnce) {
  test::run_platform(kEightGiB, [](system::System& s) {
    NpuService& svc = service(s);
    NpuManager admin(svc, 1000);
    ASSERT_TRUE(admin.set_policy("STATUS_QUO").ok());
    EXPECT_EQ(svc.policy_name(), "STATUS_QUO");
    std::vector<std::unique_ptr<ManagedApp>> apps;
    for (int i = 0; i < 3; ++i) {
      apps.push_back(
          make_app(s, app_config("app" + std::to_string(i), 1001 + i, SizeClass::GREATER_THAN_2G)));
      apps.back()->start();
    }
    wait_until(s, 10 * kMs);
    for (const auto& a : apps)
      EXPECT_EQ(a->callbacks(), std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW"});
    EXPECT_EQ(svc.held_bytes(), 3 * (4096ull << 20));  // over capacity: no arbitration, as before Android 17
  });
}

// BUDGET (weights 1, 2, 4): with maxBudget 2, two small models fit; a third from a more important app
// makes the least important holder unload, and the newcomer waits for it (WAIT_FOR_UNLOAD).
TEST(NpuManager, BudgetPolicyUnloadsTheLeastImportantHolder) {
  test::run_platform({}, [](system::System& s) {
    NpuService& svc = service(s);
    NpuManager admin(svc, 1000);
    ASSERT_TRUE(admin.set_policy("BUDGET", {{"maxBudget", 2}}).ok());
    svc.set_importance(1001, Importance::SERVICE);
    svc.set_importance(1002, Importance::CACHED);
    svc.set_importance(1003, Importance::FOREGROUND);
    auto a = make_app(s, app_config("a", 1001, SizeClass::LESS_THAN_1GB));
    auto b = make_app(s, app_config("b", 1002, SizeClass::LESS_THAN_1GB));
    auto c = make_app(s, app_config("c", 1003, SizeClass::LESS_THAN_1GB));
    a->start();
    b->start();
    wait_until(s, 10 * kMs);
    c->start();
    wait_until(s, 100 * kMs);
    EXPECT_EQ(a->callbacks(), std::vector<std::string>{"onCanLoadModel CAN_LOAD_NOW"});
    ASSERT_GE(b->callbacks().size(), 2u);
    EXPECT_EQ(b->callbacks()[1], "onRequestUnloadModel MEMORY_PRESSURE");
    EXPECT_EQ(c->callbacks(),
              (std::vector<std::string>{"onCanLoadModel WAIT_FOR_UNLOAD", "onCanLoadModel CAN_LOAD_NOW"}));
  });
}

// TURN_TAKING: one model at a time; between apps of equal importance, the one whose NPU work completed
// most recently gives way, so two foreground apps alternate.
TEST(NpuManager, TurnTakingAlternatesBetweenEqualApps) {
  test::run_platform({}, [](system::System& s) {
    NpuService& svc = service(s);
    NpuManager admin(svc, 1000);
    ASSERT_TRUE(admin.set_policy("TURN_TAKING").ok());
    svc.set_importance(1001, Importance::FOREGROUND);
    svc.set_importance(1002, Importance::FOREGROUND);
    auto cfg_a = app_config("a", 1001, SizeClass::LESS_THAN_1GB);
    auto cfg_b = app_config("b", 1002, SizeClass::LESS_THAN_1GB);
    // 10 fps: each frame's end reaches the service 50 ms later (debounce), before the next frame.
    cfg_a.frame_period_ns = cfg_b.frame_period_ns = 100 * kMs;
    auto a = make_app(s, cfg_a);
    auto b = make_app(s, cfg_b);
    a->start();
    wait_until(s, 1 * kMs);
    b->start();
    wait_until(s, 1000 * kMs);
    // a's first frame completes; 50 ms later the service hears it and b gets its turn, and so on.
    const auto ca = a->callbacks(), cb = b->callbacks();
    EXPECT_GE(std::count(ca.begin(), ca.end(), "onCanLoadModel CAN_LOAD_NOW"), 2);
    EXPECT_GE(std::count(cb.begin(), cb.end(), "onCanLoadModel CAN_LOAD_NOW"), 2);
    const uint64_t b_first = time_of(*b, "onCanLoadModel CAN_LOAD_NOW");
    const uint64_t a_second = time_of(*a, "onCanLoadModel CAN_LOAD_NOW", 1);
    EXPECT_LT(time_of(*a, "onCanLoadModel CAN_LOAD_NOW"), b_first);
    EXPECT_LT(b_first, a_second);
    EXPECT_LE(svc.max_held_bytes(), 1ull << 30);  // never two models at once
  });
}

// With tracing on, the timeline has a track per uid with each request's wait and hold.
TEST(NpuManager, TimelineShowsEachAppsRequests) {
  test::run_platform(
      kEightGiB,
      [](system::System& s) {
        auto [bg, fg] = giants(s);
        bg->start();
        wait_until(s, 50 * kMs);
        fg->start();
        wait_until(s, 100 * kMs);
        fg->stop();
        wait_until(s, 150 * kMs);
        ASSERT_NE(s.tracer(), nullptr);
        const nlohmann::json t = s.tracer()->to_json();
        std::vector<std::string> names;
        for (const auto& e : t["traceEvents"])
          if (e.value("ph", "") == "X" || e.value("ph", "") == "i") names.push_back(e.value("name", ""));
        auto has = [&](const std::string& n) {
          return std::find(names.begin(), names.end(), n) != names.end();
        };
        EXPECT_TRUE(has("request 1 waits"));
        EXPECT_TRUE(has("request 1 holds GREATER_THAN_2G"));
        EXPECT_TRUE(has("unload requested"));
        EXPECT_NE(t.dump().find("uid 1001"), std::string::npos);
      },
      true);
}

TEST(NpuManager, BadRequestsAndPoliciesAreRefusedWithOneClearError) {
  test::run_platform({"npu.weight_memory.mib=4080"}, [](system::System& s) {
    NpuService& svc = service(s);
    NpuManager admin(svc, 1000);
    auto r = admin.set_policy("FASTEST");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(
        r.error(),
        "setPolicy: unknown policy 'FASTEST' (known: STATUS_QUO, TURN_TAKING, BUDGET, THERMAL_PRIORITY)");
    r = admin.set_policy("BUDGET", {{"maxBudget", 0}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("maxBudget"), std::string::npos) << r.error();
    r = admin.set_policy("BUDGET", {{"modelSizeWeights", {{"HUGE", 3}}}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("modelSizeWeights.HUGE"), std::string::npos) << r.error();
    r = admin.set_policy("THERMAL_PRIORITY", {{"pauseSeverity", "SEVERE"}, {"unloadSeverity", "MODERATE"}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(svc.policy_name(), "THERMAL_PRIORITY");  // unchanged
    // A GREATER_THAN_2G model can never fit 4080 MiB: refused at once, no callback.
    auto cb_app = make_app(s, app_config("big", 1001, SizeClass::GREATER_THAN_2G));
    cb_app->start();
    wait_until(s, 1 * kMs);
    ASSERT_EQ(cb_app->events().size(), 3u);  // requestCanLoadModel, refused, finished
    EXPECT_EQ(cb_app->events()[1].what,
              "refused: requestCanLoadModel: uid 1001 request 1: size class GREATER_THAN_2G reserves 4096 "
              "MiB, more "
              "than the 4080 MiB of NPU weight memory");
  });
}

TEST(NpuManager, InvalidServiceConfigNamesTheBand) {
  test::run_platform({"manager.band.foreground.min_job_priority=900"}, [](system::System& s) {
    auto svc = s.npu_service();
    ASSERT_FALSE(svc.ok());
    EXPECT_EQ(svc.error(),
              "manager.band.foreground: schedulingConfigs[0] (uid 0): minPriority 900 is worse than "
              "maxPriority 500");
  });
}

}  // namespace
