// Debouncing of the scheduling HAL's callbacks (AOSP ISchedulingCallback.DEBOUNCE_DURATION_MS): a
// repetitive model reports one Requested/Started at its first frame and one Ended after the debounce
// time following its last frame, not one triple per frame. Runs on the whole simulated platform.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inference_runner.h"
#include "npu/hal/scheduling_hal.h"
#include "npu/system/system.h"
#include "platform.h"

namespace {

using namespace npu;

constexpr int kUid = 10200;

struct Delivered {
  std::string what;
  uint64_t at_ns;
  int64_t timestamp_ms;
};

struct Recorder : hal::SchedulingCallback {
  explicit Recorder(drv::Os& o) : os(o) {}
  drv::Os& os;
  std::vector<Delivered> events;
  void on_idle() override { events.push_back({"idle", os.now_ns(), -1}); }
  void on_work_requested(const hal::WorkInfo& i) override {
    events.push_back({"requested", os.now_ns(), i.timestamp_ms});
  }
  void on_work_started(const hal::WorkInfo& i, hal::StartReason r) override {
    events.push_back({std::string("started ") + drv::to_string(r), os.now_ns(), i.timestamp_ms});
  }
  void on_work_ended(const hal::WorkInfo& i, hal::EndReason r) override {
    events.push_back({std::string("ended ") + drv::to_string(r), os.now_ns(), i.timestamp_ms});
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : events) n.push_back(e.what);
    return n;
  }
};

void run(const std::function<void(system::System&, hal::SchedulingHal&)>& body) {
  test::run_platform({}, [&](system::System& s) { body(s, s.scheduling_hal()); });
}

// Runs `frames` frames at 30 fps from `start_ns`; returns when the last frame's execution returned.
uint64_t run_frames(system::System& s, hal::PreparedModel& m, const hal::TensorMap& in, int frames,
                    uint64_t start_ns) {
  const uint64_t period = 33'333'333;  // 30 fps
  for (int i = 0; i < frames; ++i) {
    const uint64_t due = start_ns + static_cast<uint64_t>(i) * period;
    if (due > s.os().now_ns()) s.os().delay_ns(due - s.os().now_ns());
    auto r = m.execute_synchronously(in, false);
    EXPECT_TRUE(r.status.ok()) << r.status.message;
  }
  return s.os().now_ns();
}

TEST(SchedulingDebounce, ThirtyFpsModelEndsOnceAfterTheDebounceTime) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto cb = std::make_shared<Recorder>(s.os());
    ASSERT_TRUE(hal.set_callback(cb, hal::kDebounceDurationMs).ok());
    auto cam = test::small_conv_model();
    auto prepared = s.npu_device(kUid).prepare_model(cam.model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    const uint64_t last_return = run_frames(s, *prepared.model, cam.inputs, 10, s.os().now_ns());
    s.os().delay_ns(200'000'000);
    EXPECT_EQ(cb->names(),
              (std::vector<std::string>{"requested", "started INITIAL", "ended COMPLETED", "idle"}));
    ASSERT_EQ(cb->events.size(), 4u);
    // The end arrives 50 ms after the last frame's job ended (a few µs before that frame's execution
    // returned, after copying the outputs back), nine frame periods after the first request.
    const uint64_t ended_at = cb->events[2].at_ns;
    EXPECT_GT(ended_at, last_return + 49'000'000);
    EXPECT_LT(ended_at, last_return + 51'000'000);
    EXPECT_GE(ended_at - cb->events[0].at_ns, 9 * 33'333'333ull + 50'000'000);
  });
}

TEST(SchedulingDebounce, WithoutDebounceEveryFrameReports) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto cb = std::make_shared<Recorder>(s.os());
    ASSERT_TRUE(hal.set_callback(cb, 0).ok());
    auto cam = test::small_conv_model();
    auto prepared = s.npu_device(kUid).prepare_model(cam.model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    run_frames(s, *prepared.model, cam.inputs, 10, s.os().now_ns());
    s.os().delay_ns(100'000'000);
    std::vector<std::string> want;
    for (int i = 0; i < 10; ++i)
      want.insert(want.end(), {"requested", "started INITIAL", "ended COMPLETED", "idle"});
    EXPECT_EQ(cb->names(), want);
  });
}

// The exact timing of a held-back end, with jobs whose end time the driver's fences give: two jobs
// 20 ms apart form one report; a job 60 ms after that (outside the window) starts a new one.
TEST(SchedulingDebounce, HeldEndFiresDebounceTimeAfterTheLastEnd) {
  run([](system::System& s, hal::SchedulingHal& hal) {
    auto cb = std::make_shared<Recorder>(s.os());
    ASSERT_TRUE(hal.set_callback(cb, 50).ok());
    test::InferenceRunner runner(s.driver(), kUid);
    auto a = runner.submit({});
    ASSERT_TRUE(a.ok());
    s.driver().wait(**a);
    s.os().delay_ns(20'000'000);
    auto b = runner.submit({});
    ASSERT_TRUE(b.ok());
    s.driver().wait(**b);
    s.os().delay_ns(60'000'000);
    auto c = runner.submit({});
    ASSERT_TRUE(c.ok());
    s.driver().wait(**c);
    s.os().delay_ns(100'000'000);
    EXPECT_EQ(cb->names(),
              (std::vector<std::string>{"requested", "started INITIAL", "ended COMPLETED", "idle",
                                        "requested", "started INITIAL", "ended COMPLETED", "idle"}));
    ASSERT_EQ(cb->events.size(), 8u);
    // Held end: timer at end + 50 ms, one 2 µs task to release it, one 2 µs task to deliver it.
    EXPECT_EQ(cb->events[2].at_ns, (*b)->end_ns + 50'000'000 + 2 * 2'000);
    EXPECT_EQ(cb->events[2].timestamp_ms, static_cast<int64_t>((*b)->end_ns / 1'000'000));
    EXPECT_EQ(cb->events[6].at_ns, (*c)->end_ns + 50'000'000 + 2 * 2'000);
    // The second report's request is c's: 60 ms after b's end, past the window.
    EXPECT_EQ(cb->events[4].timestamp_ms, static_cast<int64_t>((*c)->submit_ns / 1'000'000));
  });
}

}  // namespace
