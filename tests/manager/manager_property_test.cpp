// A seeded property test of the NPU manager on the whole simulated platform: random apps (size class,
// load priority, frame rate, frames per load, honouring unload requests or not, re-requesting) run
// the real flow while a random scenario changes app importance, thermal severity (directly and through
// the ThermalObserver), cancels pending requests, stops apps and switches policies. Whatever happens,
// every request ends exactly once (onModelLoadRequestComplete, its last callback), approvals and
// unload requests come at most once per request and in order, held memory never exceeds the NPU's
// weight memory, and once everything stopped and cooled nothing is held, pending or paused.
// One seed per process (each builds a SystemC platform).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "npu/mgr/managed_app.h"
#include "platform.h"

namespace {

using namespace npu;
using namespace npu::mgr;

constexpr uint64_t kMs = 1'000'000;

class ManagerProperty : public ::testing::TestWithParam<uint64_t> {};

// Checks one app's callbacks request by request.
void check_lifecycles(const ManagedApp& app) {
  struct Life {
    bool asked = false, approved = false, unload_asked = false;
    int completions = 0;
    bool after_completion = false;
  };
  std::map<int64_t, Life> lives;
  for (const auto& e : app.events()) {
    Life& l = lives[e.request_id];
    if (e.what == "requestCanLoadModel") l.asked = true;
    if (e.what.rfind("on", 0) != 0) continue;
    const std::string where = app.config().name + " request " + std::to_string(e.request_id) + ": " + e.what;
    EXPECT_TRUE(l.asked) << where << " for a request never made";
    if (l.completions > 0) l.after_completion = true;
    if (e.what == "onCanLoadModel CAN_LOAD_NOW") {
      EXPECT_FALSE(l.approved) << where << " twice";
      l.approved = true;
    } else if (e.what.rfind("onRequestUnloadModel", 0) == 0) {
      EXPECT_TRUE(l.approved) << where << " before approval";
      EXPECT_FALSE(l.unload_asked) << where << " twice";
      l.unload_asked = true;
    } else if (e.what.rfind("onModelLoadRequestComplete", 0) == 0) {
      ++l.completions;
    }
  }
  for (const auto& [id, l] : lives) {
    if (!l.asked) continue;
    EXPECT_EQ(l.completions, 1) << app.config().name << " request " << id;
    EXPECT_FALSE(l.after_completion) << app.config().name << " request " << id
                                     << ": a callback after its end";
  }
}

TEST_P(ManagerProperty, EveryRequestEndsExactlyOnce) {
  const uint64_t seed = GetParam();
  test::run_platform(
      {"npu.dram.size_mib=8192", "manager.weight_memory_mib=6144", "manager.unload_timeout_ms=100"},
      [seed](system::System& s) {
        std::mt19937_64 rng(seed);
        auto pick = [&rng](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
        auto svc_r = s.npu_service();
        ASSERT_TRUE(svc_r.ok()) << svc_r.error();
        NpuService& svc = **svc_r;
        const auto model = test::small_conv_model(seed);
        std::vector<std::unique_ptr<ManagedApp>> apps;
        for (int i = 0; i < 8; ++i) {
          ManagedAppConfig c;
          c.name = "app" + std::to_string(i);
          c.uid = 2000 + i;
          c.size = static_cast<SizeClass>(1 + pick(2) - (pick(4) == 0 ? 1 : 0));  // mostly 2 and 4 GiB
          c.priority = static_cast<LoadPriority>(pick(3));
          c.frames_per_load = static_cast<uint32_t>(pick(6));  // 0: until asked
          c.frame_period_ns = std::vector<uint64_t>{10 * kMs, 33'333'333, 100 * kMs}[pick(3)];
          c.honours_unload = pick(10) < 6;
          c.rerequest = pick(10) != 0;
          c.rerequest_delay_ns = pick(50) * kMs;
          c.max_requests = 2 + static_cast<uint32_t>(pick(7));
          svc.set_importance(c.uid, static_cast<Importance>(pick(5)));
          apps.push_back(
              std::make_unique<ManagedApp>(svc, s.npu_device(c.uid), model.model, model.inputs, c));
        }
        for (auto& a : apps) a->start();
        NpuManager admin(svc, 1000);
        const char* policies[] = {"THERMAL_PRIORITY", "BUDGET", "TURN_TAKING"};
        drv::ThermalObserver& observer = svc;
        while (s.os().now_ns() < 3000 * kMs) {
          s.os().delay_ns((5 + pick(25)) * kMs);
          ManagedApp& app = *apps[pick(apps.size())];
          switch (pick(10)) {
            case 0:
            case 1:
            case 2:
              svc.set_importance(app.config().uid, static_cast<Importance>(pick(5)));
              break;
            case 3:
              svc.set_thermal_severity(static_cast<ThermalSeverity>(pick(5)));
              break;
            case 4:
              observer.on_thermal_severity(static_cast<ThermalSeverity>(pick(5)), 80.0);
              break;
            case 5:
            case 6:
              app.cancel_pending();
              break;
            case 7:
              app.stop();
              break;
            case 8:
              ASSERT_TRUE(admin.set_policy(policies[pick(3)]).ok());
              break;
            default:
              break;  // quiet
          }
        }
        for (auto& a : apps) a->stop();
        svc.set_thermal_severity(ThermalSeverity::NONE);
        s.os().delay_ns(3000 * kMs);  // unloads, revocation timeouts and the resume hold all pass

        uint32_t requests = 0;
        for (const auto& a : apps) {
          EXPECT_TRUE(a->finished()) << a->config().name;
          EXPECT_FALSE(a->loaded()) << a->config().name;
          check_lifecycles(*a);
          requests += a->requests();
        }
        EXPECT_GT(requests, 16u);  // the scenario exercised the service
        EXPECT_EQ(svc.active_requests(), 0u);
        EXPECT_EQ(svc.held_bytes(), 0u);
        EXPECT_LE(svc.max_held_bytes(), svc.capacity_bytes());
        EXPECT_TRUE(svc.paused_uids().empty());
        const auto& st = s.stats();
        std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed),
                    st.to_json()["manager"].dump().c_str());
        EXPECT_EQ(*st.find_counter("manager.completions") + *st.find_counter("manager.cancellations"),
                  *st.find_counter("manager.requests"));
      });
}

INSTANTIATE_TEST_SUITE_P(Seeds, ManagerProperty, ::testing::Range<uint64_t>(1, 9));

}  // namespace
