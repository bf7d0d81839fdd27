// The cases of AOSP's VtsHalNpuSchedulingTargetTest, against our scheduling HAL on the whole simulated
// platform (system::System: NPU model, driver, HAL). Work is submitted the way the VTS tool does it:
// straight to the driver for a uid, with a job priority (InferenceRunner). Each case is its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inference_runner.h"
#include "npu/hal/scheduling_hal.h"
#include "npu/system/system.h"
#include "platform.h"

namespace {

using namespace npu;
using hal::BinderException;
using hal::EndReason;
using hal::SchedulingConfig;
using hal::StartReason;
using test::InferenceOptions;
using test::InferenceRunner;

constexpr int kUid = 10123;

enum class Kind { IDLE, REQUESTED, STARTED, ENDED };

struct Event {
  Kind kind;
  hal::WorkInfo info;
  int reason = -1;  // StartReason or EndReason
  uint64_t at_ns = 0;
};

// Records what the HAL delivers, for one uid (or every uid with uid_filter < 0), as the VTS callback does.
struct Recorder : hal::SchedulingCallback {
  Recorder(drv::Os& o, int filter) : os(o), uid_filter(filter) {}
  drv::Os& os;
  int uid_filter;
  std::vector<Event> events;

  void add(Kind k, const hal::WorkInfo& i, int reason) {
    if (k != Kind::IDLE && uid_filter >= 0 && i.uid != uid_filter) return;
    events.push_back({k, i, reason, os.now_ns()});
  }
  void on_idle() override { add(Kind::IDLE, {}, -1); }
  void on_work_requested(const hal::WorkInfo& i) override { add(Kind::REQUESTED, i, -1); }
  void on_work_started(const hal::WorkInfo& i, StartReason r) override {
    add(Kind::STARTED, i, static_cast<int>(r));
  }
  void on_work_ended(const hal::WorkInfo& i, EndReason r) override {
    add(Kind::ENDED, i, static_cast<int>(r));
  }
  std::vector<Kind> kinds(bool with_idle = false) const {
    std::vector<Kind> k;
    for (const auto& e : events)
      if (with_idle || e.kind != Kind::IDLE) k.push_back(e.kind);
    return k;
  }
};

SchedulingConfig config(int uid, int priority, bool direct = true, bool attribute = false) {
  SchedulingConfig c;
  c.uid = uid;
  c.app_priority = priority;
  c.has_direct_access = direct;
  c.can_attribute_other_uid = attribute;
  return c;
}

// Builds the default platform and runs `body` as a host thread with a scheduling HAL on its driver.
void run(const std::function<void(system::System&, hal::SchedulingHal&)>& body) {
  test::run_platform({}, [&](system::System& s) { body(s, s.scheduling_hal()); });
}

TEST(NpuSchedulingVts, SetSchedulingConfigs) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto st = hal.set_scheduling_configs({config(1001, 500)});
    ASSERT_TRUE(st.ok()) << st.message;
    ASSERT_NE(s.driver().scheduling_config(1001), nullptr);  // relayed to the driver
    EXPECT_EQ(s.driver().scheduling_config(1001)->app_priority, 500);
    // set replaces the whole table.
    ASSERT_TRUE(hal.set_scheduling_configs({config(1002, 100)}).ok());
    EXPECT_EQ(s.driver().scheduling_config(1001), nullptr);
    EXPECT_FALSE(hal.scheduling_config(1001).has_value());
    EXPECT_EQ(hal.scheduling_config(1002)->app_priority, 100);
  });
}

TEST(NpuSchedulingVts, SetSchedulingConfigsInvalidPriorityChangesNothing) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(1001, 500)}).ok());
    auto st = hal.set_scheduling_configs({config(1002, 10), config(1003, -1)});
    EXPECT_EQ(st.exception, BinderException::ILLEGAL_ARGUMENT);
    EXPECT_EQ(st.message, "schedulingConfigs[1] (uid 1003): appPriority -1 outside [0, 1000]");
    EXPECT_EQ(hal.set_scheduling_configs({config(1002, 1001)}).exception, BinderException::ILLEGAL_ARGUMENT);
    auto bounds = config(1002, 10);
    bounds.min_priority = 700;
    bounds.max_priority = 600;
    st = hal.update_scheduling_configs({bounds});
    EXPECT_EQ(st.exception, BinderException::ILLEGAL_ARGUMENT);
    EXPECT_EQ(st.message, "schedulingConfigs[0] (uid 1002): minPriority 700 is worse than maxPriority 600");
    // Nothing of the rejected calls was applied.
    EXPECT_EQ(s.driver().scheduling_config(1001)->app_priority, 500);
    EXPECT_EQ(s.driver().scheduling_config(1002), nullptr);
    EXPECT_EQ(s.driver().scheduling_config(1003), nullptr);
  });
}

TEST(NpuSchedulingVts, SetSchedulingConfigsDuplicateUid) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(1005, 300)}).ok());
    auto st = hal.set_scheduling_configs({config(1001, 0), config(1001, 1000)});
    EXPECT_EQ(st.exception, BinderException::ILLEGAL_ARGUMENT);
    EXPECT_EQ(st.message, "schedulingConfigs[1] (uid 1001): a config for this uid already appears at [0]");
    EXPECT_EQ(hal.update_scheduling_configs({config(1001, 0), config(1001, 1000)}).exception,
              BinderException::ILLEGAL_ARGUMENT);
    EXPECT_EQ(s.driver().scheduling_config(1001), nullptr);
    EXPECT_EQ(s.driver().scheduling_config(1005)->app_priority, 300);
  });
}

TEST(NpuSchedulingVts, UpdateSchedulingConfigs) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(1001, 500), config(1002, 600)}).ok());
    auto st = hal.update_scheduling_configs({config(1001, 200), config(1003, 700)});
    ASSERT_TRUE(st.ok()) << st.message;
    EXPECT_EQ(s.driver().scheduling_config(1001)->app_priority, 200);  // replaced
    EXPECT_EQ(s.driver().scheduling_config(1002)->app_priority, 600);  // kept
    EXPECT_EQ(s.driver().scheduling_config(1003)->app_priority, 700);  // added
  });
}

TEST(NpuSchedulingVts, SetReplaceAndClearCallback) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto first = std::make_shared<Recorder>(s.os(), kUid);
    auto second = std::make_shared<Recorder>(s.os(), kUid);
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(hal.set_callback(first, 0).ok());
    ASSERT_TRUE(runner.run({}).ok());
    s.os().delay_ns(1'000'000);
    EXPECT_EQ(first->kinds(), (std::vector<Kind>{Kind::REQUESTED, Kind::STARTED, Kind::ENDED}));
    ASSERT_TRUE(hal.set_callback(second, 0).ok());  // replaces: the first hears nothing more
    ASSERT_TRUE(runner.run({}).ok());
    s.os().delay_ns(1'000'000);
    EXPECT_EQ(first->events.size(), 4u);  // three work events and onIdle
    EXPECT_EQ(second->kinds(), (std::vector<Kind>{Kind::REQUESTED, Kind::STARTED, Kind::ENDED}));
    ASSERT_TRUE(hal.set_callback(nullptr).ok());  // clears
    ASSERT_TRUE(runner.run({}).ok());
    s.os().delay_ns(1'000'000);
    EXPECT_EQ(second->events.size(), 4u);
    EXPECT_EQ(hal.set_callback(second, -1).exception, BinderException::ILLEGAL_ARGUMENT);
  });
}

TEST(NpuSchedulingVts, RunInferenceStatusCallbacks) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    const int uid_priority = 250, job_priority = 500;
    ASSERT_TRUE(hal.set_scheduling_configs({config(kUid, uid_priority, true, true)}).ok());
    auto cb = std::make_shared<Recorder>(s.os(), kUid);
    ASSERT_TRUE(hal.set_callback(cb).ok());  // the AOSP debounce, 50 ms
    s.os().delay_ns(3'000'000);              // start at a non-zero millisecond
    const int64_t start_ms = static_cast<int64_t>(s.os().now_ns() / 1'000'000);
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(runner.run({job_priority}).ok());
    s.os().delay_ns(100'000'000);  // let the debounced end arrive
    ASSERT_EQ(cb->kinds(), (std::vector<Kind>{Kind::REQUESTED, Kind::STARTED, Kind::ENDED}));
    EXPECT_EQ(cb->events[1].reason, static_cast<int>(StartReason::INITIAL));
    EXPECT_EQ(cb->events[2].reason, static_cast<int>(EndReason::COMPLETED));
    int64_t last_ms = start_ms;
    int64_t last_id = -1;
    for (const auto& e : cb->events) {
      if (e.kind == Kind::IDLE) continue;
      EXPECT_EQ(e.info.job_priority, job_priority);
      EXPECT_GE(e.info.effective_priority, uid_priority);
      EXPECT_EQ(e.info.effective_priority, uid_priority + job_priority);
      EXPECT_EQ(e.info.uid, kUid);
      EXPECT_EQ(e.info.original_uid, kUid);
      EXPECT_GE(e.info.timestamp_ms, last_ms);
      EXPECT_GT(static_cast<int64_t>(e.info.id), last_id);
      last_ms = e.info.timestamp_ms;
      last_id = static_cast<int64_t>(e.info.id);
    }
    // onIdle follows the held-back end.
    EXPECT_EQ(cb->kinds(true).back(), Kind::IDLE);
  });
}

TEST(NpuSchedulingVts, RunInferenceEffectivePriority) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(kUid, 0)}).ok());
    auto cb = std::make_shared<Recorder>(s.os(), kUid);
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(runner.run({1000}).ok());
    ASSERT_TRUE(runner.run({0}).ok());
    s.os().delay_ns(1'000'000);
    std::vector<const Event*> requested;
    for (const auto& e : cb->events)
      if (e.kind == Kind::REQUESTED) requested.push_back(&e);
    ASSERT_EQ(requested.size(), 2u);
    EXPECT_EQ(requested[0]->info.job_priority, 1000);
    EXPECT_EQ(requested[1]->info.job_priority, 0);
    EXPECT_GT(requested[0]->info.effective_priority, requested[1]->info.effective_priority);
  });
}

// A uid without a config: lowest priority (1000 + job priority), direct access, no attribution.
TEST(NpuSchedulingVts, UidWithoutConfigGetsLowestPriority) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto cb = std::make_shared<Recorder>(s.os(), kUid);
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(runner.run({300}).ok());
    EXPECT_FALSE(runner.run({300, 42}).ok());
    s.os().delay_ns(1'000'000);
    ASSERT_FALSE(cb->events.empty());
    EXPECT_EQ(cb->events[0].info.effective_priority, 1300);
  });
}

// Both jobs queue behind a job that occupies every channel; the better priority finishes first although
// it was submitted later. The uid has no config (as in the AOSP case), so both land in the driver's
// LOW run queue (1000 + 500, 1000 + 250): the order within a queue follows effective priority.
TEST(NpuSchedulingVts, RunInferencesPrioritized) {
  run([](system::System& s, hal::SchedulingHal&) {
    InferenceRunner busy(s.driver(), 20000), runner(s.driver(), kUid);
    auto blocker = busy.submit({0, -1, s.driver().channel_count(), 64});
    ASSERT_TRUE(blocker.ok()) << blocker.error();
    auto last = runner.submit({1000});
    s.os().delay_ns(10'000);
    auto low = runner.submit({500});
    s.os().delay_ns(10'000);
    auto high = runner.submit({250});
    ASSERT_TRUE(last.ok() && low.ok() && high.ok());
    EXPECT_EQ((*high)->effective_priority, 1250);
    EXPECT_EQ((*low)->effective_priority, 1500);
    s.driver().wait(**last);
    s.driver().wait(**low);
    s.driver().wait(**high);
    EXPECT_EQ((*high)->status, drv::JobStatus::COMPLETED);
    EXPECT_EQ((*low)->status, drv::JobStatus::COMPLETED);
    EXPECT_LT((*high)->end_ns, (*low)->end_ns);
    EXPECT_LT((*low)->end_ns, (*last)->end_ns);
    EXPECT_GT((*high)->start_ns, (*blocker)->submit_ns);  // it really waited behind the busy NPU
  });
}

TEST(NpuSchedulingVts, RunInferenceFailsWithoutDirectAccess) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(kUid, 0, false, false)}).ok());
    auto cb = std::make_shared<Recorder>(s.os(), kUid);
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    InferenceRunner runner(s.driver(), kUid);
    auto r = runner.run({});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("has no direct NPU access"), std::string::npos) << r.error();
    s.os().delay_ns(1'000'000);
    EXPECT_TRUE(cb->events.empty());
  });
}

TEST(NpuSchedulingVts, RunInferenceFailsWithoutAttributeOtherUid) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(kUid, 0, true, false)}).ok());
    InferenceRunner runner(s.driver(), kUid);
    auto r = runner.run({0, 42});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("may not attribute work to uid 42"), std::string::npos) << r.error();
  });
}

// With canAttributeOtherUid the work runs; WorkInfo names the intermediary as uid and the app as
// originalUid, and the priority is the app's.
TEST(NpuSchedulingVts, AttributedWorkCarriesBothUids) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    ASSERT_TRUE(hal.set_scheduling_configs({config(kUid, 100, true, true), config(42, 600)}).ok());
    auto cb = std::make_shared<Recorder>(s.os(), -1);
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(runner.run({10, 42}).ok());
    s.os().delay_ns(1'000'000);
    ASSERT_FALSE(cb->events.empty());
    EXPECT_EQ(cb->events[0].info.uid, kUid);
    EXPECT_EQ(cb->events[0].info.original_uid, 42);
    EXPECT_EQ(cb->events[0].info.effective_priority, 610);
  });
}

// Priority alignment: a uid's job-priority bounds demote its "urgent" jobs; the effective priority
// is never better than the uid's own.
TEST(NpuSchedulingVts, JobPriorityBoundsDemoteUrgentJobs) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto background = config(kUid, 500);
    background.min_priority = 400;
    ASSERT_TRUE(hal.set_scheduling_configs({background}).ok());
    auto cb = std::make_shared<Recorder>(s.os(), kUid);
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    InferenceRunner runner(s.driver(), kUid);
    ASSERT_TRUE(runner.run({0}).ok());
    s.os().delay_ns(1'000'000);
    ASSERT_FALSE(cb->events.empty());
    EXPECT_EQ(cb->events[0].info.job_priority, 0);
    EXPECT_EQ(cb->events[0].info.effective_priority, 900);  // 500 + max(0, 400)
    EXPECT_EQ(drv::queue_level_for(900), drv::QueueLevel::LOW);
  });
}

}  // namespace
