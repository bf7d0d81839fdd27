// The driver against the real simulated NPU (SystemC platform, one per test process): priority order,
// preemption by checkpoint and kill, isolation between contexts, hang recovery, a seeded property test
// over more than a thousand jobs with cancels and injected faults, and the thermal governor.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "../support/conv_tile.h"
#include "npu/drv/driver.h"
#include "npu/models/builder.h"
#include "npu/regmap/npu_regs.h"
#include "npu/system/system.h"

namespace {

using namespace npu;

std::unique_ptr<system::System> make_system(std::vector<std::string> overrides) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", overrides);
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  EXPECT_TRUE(sys.ok()) << sys.error();
  return std::move(*sys);
}

// A command buffer of `n` DMA_IN descriptors of `bytes` each from `bo`: work of a known, even pace.
std::vector<desc::Raw> dma_buffer(const drv::BufferObject& bo, uint32_t n, uint32_t bytes) {
  std::vector<desc::Raw> cmds;
  for (uint32_t i = 0; i < n; ++i) {
    desc::Dma d{};
    d.h = {desc::Opcode::DMA_IN, i};
    d.dev = bo.device_address;
    d.sram = 0;
    d.row_bytes = bytes;
    d.rows = 1;
    cmds.push_back(desc::encode(d));
  }
  return cmds;
}

drv::JobRequest one_buffer(std::vector<desc::Raw> cmds, std::string label, int job_priority = 0) {
  drv::JobRequest r;
  r.stages = {{std::move(cmds)}};
  r.label = std::move(label);
  r.job_priority = job_priority;
  return r;
}

drv::SchedulingConfig config_for(int uid, int app_priority) {
  drv::SchedulingConfig c;
  c.uid = uid;
  c.app_priority = app_priority;
  c.has_direct_access = true;
  return c;
}

uint64_t stat(system::System& s, const std::string& path) {
  const uint64_t* c = s.stats().find_counter(path);
  EXPECT_NE(c, nullptr) << path;
  return c ? *c : 0;
}

double value(system::System& s, const std::string& path) {
  const double* v = s.stats().find_value(path);
  EXPECT_NE(v, nullptr) << path;
  return v ? *v : 0;
}

// Records every work event; checks the lifecycle rules as they happen.
struct EventLog : drv::WorkObserver {
  std::map<drv::JobId, std::vector<std::string>> events;
  std::map<drv::JobId, int> terminal;
  std::vector<drv::JobId> completed_order;
  int idles = 0;
  void on_work_requested(const drv::WorkInfo& w) override { events[w.id].push_back("requested"); }
  void on_work_started(const drv::WorkInfo& w, drv::WorkStartReason r) override {
    events[w.id].push_back(std::string("started ") + drv::to_string(r));
  }
  void on_work_ended(const drv::WorkInfo& w, drv::WorkEndReason r) override {
    events[w.id].push_back(std::string("ended ") + drv::to_string(r));
    if (r != drv::WorkEndReason::PAUSED) ++terminal[w.id];
    if (r == drv::WorkEndReason::COMPLETED) completed_order.push_back(w.id);
  }
  void on_idle() override { ++idles; }
};

// With the only channel held by REALTIME work, jobs of every level queue up; they then run strictly by
// level, FIFO within a level, whatever order they were submitted in.
TEST(DriverOnNpu, StrictPriorityOrderUnderLoad) {
  auto sys = make_system({"npu.channels=1"});
  EventLog log;
  std::vector<drv::JobId> expected;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_work_observer(&log);
    const std::vector<std::pair<int, int>> uids{{1001, 0}, {1002, 200}, {1003, 500}, {1004, 900}};
    std::map<int, drv::ContextId> ctx;
    std::map<int, drv::BufferObject> bo;
    for (auto [uid, prio] : uids) {
      d.set_scheduling_config(config_for(uid, prio));
      ctx[uid] = *d.open_context(uid, uid);
      bo[uid] = *d.alloc_bo(ctx[uid], 4096);
    }
    // Long enough (2000 × 4 KiB DMAs ≈ 300 µs) to outlast the twelve 2 µs submit ioctls below.
    auto blocker = d.submit(ctx[1001], one_buffer(dma_buffer(bo[1001], 2000, 4096), "blocker"));
    ASSERT_TRUE(blocker.ok()) << blocker.error();
    // Submitted worst level first; each level three times.
    std::map<int, std::vector<drv::JobId>> by_level;
    for (int round = 0; round < 3; ++round) {
      for (auto it = uids.rbegin(); it != uids.rend(); ++it) {
        auto f = d.submit(ctx[it->first], one_buffer(dma_buffer(bo[it->first], 2, 1024), "j"));
        ASSERT_TRUE(f.ok()) << f.error();
        by_level[it->second].push_back((*f)->job_id);
      }
    }
    expected.push_back((*blocker)->job_id);
    for (auto& [prio, ids] : by_level) expected.insert(expected.end(), ids.begin(), ids.end());
    while (d.unfinished_jobs()) s.os().delay_ns(10'000);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(log.completed_order, expected);
  EXPECT_EQ(stat(*sys, "driver.preemption.count"), 0u) << "REALTIME work is never preempted";
}

// One channel, a long LOW job running; a REALTIME job arrives. It must start within one descriptor of
// the LOW job plus the context save (plus the driver's own interrupt/ioctl costs).
TEST(DriverOnNpu, HighPriorityPreemptsWithinOneDescriptorPlusContextSave) {
  auto sys = make_system({"npu.channels=1"});
  EventLog log;
  std::shared_ptr<drv::Fence> low, high;
  uint64_t solo_ns = 0;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_work_observer(&log);
    d.set_scheduling_config(config_for(2001, 900));
    d.set_scheduling_config(config_for(2002, 0));
    const auto lc = *d.open_context(2001, 1), hc = *d.open_context(2002, 2);
    const auto lbo = *d.alloc_bo(lc, 64 << 10), hbo = *d.alloc_bo(hc, 4096);
    // The pace of one LOW descriptor, measured alone: a 100-descriptor buffer.
    auto solo = d.submit(lc, one_buffer(dma_buffer(lbo, 100, 64 << 10), "solo"));
    d.wait(**solo);
    solo_ns = (*solo)->device_ns / 100;
    low = *d.submit(lc, one_buffer(dma_buffer(lbo, 400, 64 << 10), "low"));
    s.os().delay_ns(50 * solo_ns + 333);  // mid-descriptor, well into the buffer
    high = *d.submit(hc, one_buffer(dma_buffer(hbo, 4, 1024), "high"));
    d.wait(*high);
    d.wait(*low);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_EQ(low->status, drv::JobStatus::COMPLETED) << low->error;
  ASSERT_EQ(high->status, drv::JobStatus::COMPLETED) << high->error;
  EXPECT_EQ(stat(*sys, "driver.preemption.checkpoint"), 1u);
  EXPECT_EQ(stat(*sys, "driver.preemption.resumes"), 1u);
  EXPECT_EQ(low->preemptions, 1u) << "the preempted job's own fence counts it";
  EXPECT_EQ(high->preemptions, 0u);
  const uint64_t saved = stat(*sys, "driver.preemption.save_bytes");
  EXPECT_EQ(saved, 64u << 10) << "live SRAM = what the DMA buffer wrote";
  // Bound: the rest of the descriptor in flight (≤ solo_ns) + saving `saved` bytes at no less than
  // 16 B/ns through DRAM + 1 µs of DMA set-up slack + interrupt top half 0.5 µs + bottom half 1.5 µs +
  // the submit ioctl 2 µs + a few 20 ns register accesses (≤ 1 µs).
  const uint64_t bound = solo_ns + saved / 16 + 1000 + 500 + 1500 + 2000 + 1000;
  const uint64_t waited = high->start_ns - high->submit_ns;
  EXPECT_LE(waited, bound) << "descriptor " << solo_ns << " ns, saved " << saved << " B";
  EXPECT_GT(waited, 0u);
  const auto& ev = log.events[low->job_id];
  EXPECT_EQ(ev, (std::vector<std::string>{"requested", "started INITIAL", "ended PAUSED", "started RESUMED",
                                          "ended COMPLETED"}));
}

// running_ns: what a uid's buffers still on channels have run so far (a fence adds a buffer's cycles
// only when it ends), for accounting at an arbitrary instant such as the end of a scenario.
TEST(DriverOnNpu, RunningNsCountsBuffersStillOnChannels) {
  auto sys = make_system({"npu.channels=1"});
  std::shared_ptr<drv::Fence> job;
  uint64_t mid = 0, other = 0, elapsed = 0, after = 0;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_scheduling_config(config_for(2001, 0));
    const auto c = *d.open_context(2001, 1);
    const auto bo = *d.alloc_bo(c, 64 << 10);
    const uint64_t t0 = s.os().now_ns();
    job = *d.submit(c, one_buffer(dma_buffer(bo, 400, 64 << 10), "long"));
    s.os().delay_ns(200'000);  // 400 descriptors of 64 KiB take over a millisecond
    mid = d.running_ns(2001);
    other = d.running_ns(2002);
    elapsed = s.os().now_ns() - t0;
    d.wait(*job);
    after = d.running_ns(2001);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_EQ(job->status, drv::JobStatus::COMPLETED) << job->error;
  EXPECT_LE(mid, elapsed);
  EXPECT_GE(mid + 10'000, elapsed) << "only the submit ioctl and the dispatch come before the buffer runs";
  EXPECT_LT(mid, job->device_ns) << "still running at the sample";
  EXPECT_EQ(other, 0u);
  EXPECT_EQ(after, 0u);
}

// A compute job (quantised convolutions with weights loaded once per command buffer) checkpointed by a
// more urgent app and resumed later gives outputs identical to the CPU reference — as an uninterrupted
// run does (tests/e2e) — and so does a killed and restarted one.
struct PreemptedInference {
  hal::ExecutionResult low, high, ref;
  uint64_t checkpoints = 0, kills = 0, resumes = 0;
};

PreemptedInference run_preempted_inference(const std::string& mechanism) {
  auto sys = make_system({"driver.preemption=" + mechanism});
  models::ModelBuilder big(31), small(32);
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, mid_q{0.05f, 100};
  uint32_t x = big.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 56, 56, 64}, in_q);
  uint32_t h = big.conv_2d(x, 64, 3, 3, 1, 1, fx::FusedActivation::RELU, w_q, mid_q);
  big.mark_output(big.conv_2d(h, 64, 3, 3, 1, 1, fx::FusedActivation::RELU, w_q, mid_q));
  x = small.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, in_q);
  small.mark_output(small.conv_2d(x, 16, 3, 3, 1, 1, fx::FusedActivation::RELU, w_q, mid_q));
  auto big_in = big.random_inputs(), small_in = small.random_inputs();
  const auto big_model = big.take(), small_model = small.take();
  PreemptedInference r;
  auto end = sys->run([&](system::System& s) {
    s.driver().set_scheduling_config(config_for(3001, 900));
    s.driver().set_scheduling_config(config_for(3002, 0));
    auto& low_dev = s.npu_device(3001, 1);
    auto& high_dev = s.npu_device(3002, 2);
    auto lp = low_dev.prepare_model(big_model);
    auto hp = high_dev.prepare_model(small_model);
    ASSERT_TRUE(lp.status.ok() && hp.status.ok());
    bool low_done = false;
    s.os().spawn("low_app", [&] {
      r.low = lp.model->execute_synchronously(big_in, true);
      low_done = true;
    });
    s.os().delay_ns(60'000);  // the big model is well under way on all four channels
    r.high = hp.model->execute_synchronously(small_in, true);
    while (!low_done) s.os().delay_ns(10'000);
    r.ref = s.cpu_device().prepare_model(big_model).model->execute_synchronously(big_in, false);
  });
  EXPECT_TRUE(end.ok()) << end.error();
  r.checkpoints = stat(*sys, "driver.preemption.checkpoint");
  r.kills = stat(*sys, "driver.preemption.kill");
  r.resumes = stat(*sys, "driver.preemption.resumes");
  return r;
}

TEST(DriverOnNpu, CheckpointedJobResumesWithIdenticalOutputs) {
  const auto r = run_preempted_inference("checkpoint");
  ASSERT_TRUE(r.low.status.ok()) << r.low.status.message;
  ASSERT_TRUE(r.high.status.ok()) << r.high.status.message;
  EXPECT_GE(r.checkpoints, 1u);
  EXPECT_EQ(r.resumes, r.checkpoints);
  EXPECT_EQ(r.kills, 0u);
  for (const auto& [idx, want] : r.ref.outputs) EXPECT_EQ(r.low.outputs.at(idx).data, want.data) << idx;
}

TEST(DriverOnNpu, KilledJobRestartsAndCompletesWithIdenticalOutputs) {
  const auto r = run_preempted_inference("kill");
  ASSERT_TRUE(r.low.status.ok()) << r.low.status.message;
  EXPECT_GE(r.kills, 1u);
  EXPECT_EQ(r.checkpoints, 0u);
  for (const auto& [idx, want] : r.ref.outputs) EXPECT_EQ(r.low.outputs.at(idx).data, want.data) << idx;
}

// The system pauses a uid (the NPU manager does, under thermal pressure): its running work is
// checkpointed and reported PAUSED, nothing of it runs while paused, and it resumes (RESUMED) where it
// stopped once unpaused.
TEST(DriverOnNpu, PausedUidStopsAndResumesWhereItStopped) {
  auto sys = make_system({"npu.channels=1"});
  EventLog log;
  std::shared_ptr<drv::Fence> f;
  uint64_t paused_at = 0, resumed_at = 0;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_work_observer(&log);
    const auto ctx = *d.open_context(8001, 1);
    const auto bo = *d.alloc_bo(ctx, 16 << 10);
    f = *d.submit(ctx, one_buffer(dma_buffer(bo, 200, 16 << 10), "background"));
    s.os().delay_ns(100'000);
    d.set_uid_paused(8001, true);
    paused_at = s.os().now_ns();
    s.os().delay_ns(1'000'000);
    EXPECT_FALSE(f->signalled());
    resumed_at = s.os().now_ns();
    d.set_uid_paused(8001, false);
    d.wait(*f);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(f->status, drv::JobStatus::COMPLETED) << f->error;
  EXPECT_EQ(log.events[f->job_id], (std::vector<std::string>{"requested", "started INITIAL", "ended PAUSED",
                                                             "started RESUMED", "ended COMPLETED"}));
  EXPECT_EQ(stat(*sys, "driver.preemption.resumes"), 1u);
  EXPECT_GT(f->end_ns - resumed_at, 0u);
  EXPECT_GE(resumed_at - paused_at, 1'000'000u);
}

// Every way one context could reach another's memory or work is refused, and the victim's data is
// untouched.
TEST(DriverOnNpu, CrossContextAccessIsRefused) {
  auto sys = make_system({});
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    const auto a = *d.open_context(4001, 1), b = *d.open_context(4002, 2);
    const auto secret = *d.alloc_bo(a, 4096);
    const auto mine = *d.alloc_bo(b, 4096);
    const std::vector<uint8_t> pattern(4096, 0x5A);
    ASSERT_TRUE(d.write_bo(a, secret.handle, 0, pattern.data(), pattern.size()).ok());
    std::vector<uint8_t> buf(4096, 0);
    EXPECT_FALSE(d.read_bo(b, secret.handle, 0, buf.data(), 16).ok());
    EXPECT_FALSE(d.write_bo(b, secret.handle, 0, buf.data(), 16).ok());
    EXPECT_FALSE(d.free_bo(b, secret.handle).ok());
    // DMA descriptors naming the other context's memory, in and out, whole or straddling.
    auto in = dma_buffer(secret, 1, 64);
    EXPECT_FALSE(d.submit(b, one_buffer(in, "read theirs")).ok());
    desc::Dma out{};
    out.h = {desc::Opcode::DMA_OUT, 0};
    out.dev = secret.device_address;
    out.row_bytes = 64;
    out.rows = 1;
    EXPECT_FALSE(d.submit(b, one_buffer({desc::encode(out)}, "write theirs")).ok());
    out.dev = mine.device_address + 4096 - 32;  // straddles the end of its own buffer
    EXPECT_FALSE(d.submit(b, one_buffer({desc::encode(out)}, "straddle")).ok());
    out.dev = mine.device_address;
    out.rows = 2;
    out.dev_stride =
        static_cast<uint32_t>(secret.device_address - mine.device_address);  // 2nd row lands in theirs
    EXPECT_FALSE(d.submit(b, one_buffer({desc::encode(out)}, "stride into theirs")).ok());
    // Another context's job cannot be cancelled.
    auto job = d.submit(a, one_buffer(dma_buffer(secret, 20, 4096), "a's job"));
    ASSERT_TRUE(job.ok());
    EXPECT_FALSE(d.cancel(b, (*job)->job_id).ok());
    d.wait(**job);
    EXPECT_EQ((*job)->status, drv::JobStatus::COMPLETED);
    // A closed context is gone for everyone.
    ASSERT_TRUE(d.close_context(b).ok());
    EXPECT_FALSE(d.alloc_bo(b, 64).ok());
    ASSERT_TRUE(d.read_bo(a, secret.handle, 0, buf.data(), buf.size()).ok());
    EXPECT_EQ(buf, pattern) << "the victim's data is untouched";
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(stat(*sys, "driver.jobs.refused"), 4u);
}

// Arms a fault on `channel` for its next command buffer, through the debug register.
void inject(system::System& s, uint32_t channel, regs::FaultKind kind, uint32_t at_descriptor) {
  s.debug_registers().write32(regs::channel_base(channel) + regs::CH_FAULT_INJECT,
                              regs::CH_FAULT_INJECT_KIND.put(static_cast<uint32_t>(kind)) |
                                  regs::CH_FAULT_INJECT_INDEX.put(at_descriptor));
}

// A hang on channel 0 is detected by the watchdog, the channel reset and the buffer retried; another
// context's jobs on the other channel complete meanwhile.
TEST(DriverOnNpu, InjectedHangIsDetectedChannelResetAndOthersComplete) {
  auto sys = make_system(
      {"npu.channels=2", "driver.timeouts.job_ns=2000000", "driver.timeouts.watchdog_period_ns=100000"});
  std::shared_ptr<drv::Fence> victim;
  std::vector<std::shared_ptr<drv::Fence>> others;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    const auto a = *d.open_context(5001, 1), b = *d.open_context(5002, 2);
    const auto abo = *d.alloc_bo(a, 4096), bbo = *d.alloc_bo(b, 4096);
    inject(s, 0, regs::FaultKind::HANG, 3);
    victim = *d.submit(a, one_buffer(dma_buffer(abo, 10, 4096), "victim"));  // first free channel: 0
    for (int i = 0; i < 5; ++i)
      others.push_back(*d.submit(b, one_buffer(dma_buffer(bbo, 10, 4096), "other")));
    for (auto& f : others) d.wait(*f);
    d.wait(*victim);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  for (auto& f : others) {
    EXPECT_EQ(f->status, drv::JobStatus::COMPLETED) << f->error;
    EXPECT_LT(f->end_ns, victim->end_ns) << "the other context did not wait for the hung channel";
  }
  EXPECT_EQ(victim->status, drv::JobStatus::COMPLETED) << victim->error;
  EXPECT_EQ(stat(*sys, "driver.watchdog.hangs"), 1u);
  EXPECT_GE(victim->end_ns - victim->start_ns, 2'000'000u) << "it waited out the 2 ms timeout once";
}

// A buffer that overruns its timeout on every attempt (here: it simply needs longer than the 100 µs job
// timeout — 2000 DMAs of 4 KiB take ≈ 300 µs) is reset and retried, and its job fails once it has hung
// more than the hang limit (2 retries: 3 hangs).
TEST(DriverOnNpu, PersistentHangFailsTheJobAfterTheHangLimit) {
  auto sys = make_system({"npu.channels=1", "driver.timeouts.watchdog_period_ns=20000"});
  std::shared_ptr<drv::Fence> f, after;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    const auto a = *d.open_context(6001, 1);
    const auto bo = *d.alloc_bo(a, 4096);
    auto slow = one_buffer(dma_buffer(bo, 2000, 4096), "overrun");
    slow.timeout_ns = 100'000;
    f = *d.submit(a, std::move(slow));
    after = *d.submit(a, one_buffer(dma_buffer(bo, 10, 4096), "after"));
    d.wait(*f);
    d.wait(*after);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(f->status, drv::JobStatus::FAILED);
  EXPECT_NE(f->error.find("hung 3 times"), std::string::npos) << f->error;
  EXPECT_EQ(stat(*sys, "driver.watchdog.hangs"), 3u);
  EXPECT_EQ(after->status, drv::JobStatus::COMPLETED) << "the reset channel serves the next job";
}

// Seeded property test: four client threads submit 1200 jobs of random shape and priority, cancel some
// and suffer injected faults (hangs, DMA errors, ECC errors). Every job ends exactly once with exactly
// one terminal status, its fence agrees, no fence is left unsignalled, and once the clients close their
// contexts the driver's device memory is back where it started.
TEST(DriverOnNpu, PropertyEveryJobEndsExactlyOnceNoLeaks) {
  auto sys = make_system({"npu.channels=4", "driver.timeouts.job_ns=500000",
                          "driver.timeouts.watchdog_period_ns=50000", "driver.timeouts.hang_limit=1"});
  EventLog log;
  std::vector<std::shared_ptr<drv::Fence>> fences;
  uint64_t baseline = 0, after = 0;
  constexpr int kClients = 4, kJobsPerClient = 300;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_work_observer(&log);
    baseline = d.allocated_bytes();
    int finished = 0;
    for (int c = 0; c < kClients; ++c) {
      s.os().spawn("client", [&, c] {
        std::mt19937_64 rng(1000 + c);
        const int uid = 7000 + c;
        d.set_scheduling_config(config_for(uid, 100 * c));
        const auto ctx = *d.open_context(uid, c);
        const auto bo = *d.alloc_bo(ctx, 16 << 10);
        std::vector<std::shared_ptr<drv::Fence>> mine;
        for (int j = 0; j < kJobsPerClient; ++j) {
          drv::JobRequest r;
          const int stages = 1 + static_cast<int>(rng() % 3);
          for (int st = 0; st < stages; ++st) {
            auto& buffers = r.stages.emplace_back();
            const int n = 1 + static_cast<int>(rng() % 3);
            for (int b = 0; b < n; ++b) buffers.push_back(dma_buffer(bo, 1 + rng() % 6, 256 << (rng() % 6)));
          }
          r.job_priority = static_cast<int>(rng() % 400);
          r.label = "p";
          const uint32_t roll = rng() % 100;
          if (roll < 4)
            inject(s, rng() % 4, regs::FaultKind::HANG, rng() % 3);
          else if (roll < 8)
            inject(s, rng() % 4, regs::FaultKind::DMA_ERROR, rng() % 3);
          else if (roll < 11)
            inject(s, rng() % 4, regs::FaultKind::SRAM_ECC, rng() % 3);
          auto f = d.submit(ctx, std::move(r));
          ASSERT_TRUE(f.ok()) << f.error();
          mine.push_back(*f);
          fences.push_back(*f);
          if (rng() % 10 == 0) {
            const auto& victim = mine[rng() % mine.size()];
            (void)d.cancel(ctx, victim->job_id);  // may already have ended: then refused
          }
          s.os().delay_ns(rng() % 20'000);
        }
        for (auto& f : mine) d.wait(*f);
        ASSERT_TRUE(d.free_bo(ctx, bo.handle).ok());
        ASSERT_TRUE(d.close_context(ctx).ok());
        ++finished;
      });
    }
    while (finished < kClients) s.os().delay_ns(100'000);
    after = d.allocated_bytes();
  });
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_EQ(fences.size(), static_cast<size_t>(kClients * kJobsPerClient));
  std::map<drv::JobStatus, int> outcomes;
  for (const auto& f : fences) {
    ASSERT_TRUE(f->signalled()) << "job " << f->job_id;
    EXPECT_EQ(log.terminal[f->job_id], 1) << "job " << f->job_id;
    ++outcomes[f->status];
    const std::string last = log.events[f->job_id].back();
    const std::string want = f->status == drv::JobStatus::COMPLETED ? "ended COMPLETED"
                             : f->status == drv::JobStatus::FAILED  ? "ended FAILED"
                                                                    : "ended CANCELLED_USER";
    EXPECT_EQ(last, want) << "job " << f->job_id;
  }
  EXPECT_EQ(log.terminal.size(), fences.size());
  EXPECT_EQ(after, baseline) << "device memory leaked";
  EXPECT_GT(outcomes[drv::JobStatus::COMPLETED], 900);
  EXPECT_GT(outcomes[drv::JobStatus::FAILED], 10) << "faults were injected";
  EXPECT_GT(outcomes[drv::JobStatus::CANCELLED], 10);
  EXPECT_GT(stat(*sys, "driver.watchdog.hangs"), 0u);
  EXPECT_GT(stat(*sys, "driver.preemption.count"), 0u);
}

// The leak counters: contexts, buffer objects and unsignalled fences count what clients hold, and a
// closed context gives all of it back, its queued job cancelled. Injected allocation failures strike
// every k-th alloc_bo and are counted.
TEST(DriverOnNpu, LiveCountersAndInjectedAllocationFailures) {
  auto sys = make_system({"npu.channels=1"});
  size_t contexts = 0, bos = 0, fences = 0;
  std::vector<bool> allocs;
  std::shared_ptr<drv::Fence> queued;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    const auto a = *d.open_context(9101, 1), b = *d.open_context(9102, 2);
    const auto abo = *d.alloc_bo(a, 4096);
    (void)*d.alloc_bo(a, 4096);
    const auto bbo = *d.alloc_bo(b, 4096);
    auto running = *d.submit(b, one_buffer(dma_buffer(bbo, 50, 4096), "running"));
    queued = *d.submit(a, one_buffer(dma_buffer(abo, 50, 4096), "queued"));
    contexts = d.live_contexts();
    bos = d.live_bos();
    fences = d.unsignalled_fences();
    ASSERT_TRUE(d.close_context(a).ok());
    d.wait(*running);
    ASSERT_TRUE(d.free_bo(b, bbo.handle).ok());
    d.inject_alloc_failures(3);
    for (int i = 0; i < 6; ++i) {
      auto bo = d.alloc_bo(b, 4096);
      allocs.push_back(bo.ok());
      if (bo) {
        ASSERT_TRUE(d.free_bo(b, bo->handle).ok());
      }
    }
    d.inject_alloc_failures(0);
    EXPECT_EQ(d.injected_alloc_failures(), 2u);
    ASSERT_TRUE(d.close_context(b).ok());
    EXPECT_EQ(d.live_contexts(), 0u);
    EXPECT_EQ(d.live_bos(), 0u);
    EXPECT_EQ(d.unsignalled_fences(), 0u);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(contexts, 2u);
  EXPECT_EQ(bos, 3u);
  EXPECT_EQ(fences, 2u);
  EXPECT_EQ(queued->status, drv::JobStatus::CANCELLED);
  EXPECT_EQ(allocs, (std::vector<bool>{true, true, false, true, true, false}));
}

// Asynchronous completion: the callback runs exactly once per job, at the simulated time the fence is
// signalled, with the final status — for a completed job and for one cancelled while queued.
TEST(DriverOnNpu, CompletionCallbackRunsOnceWithTheFinalStatus) {
  auto sys = make_system({"npu.channels=1"});
  struct Call {
    drv::JobId id;
    drv::JobStatus status;
    uint64_t at_ns;
  };
  std::vector<Call> calls;
  std::shared_ptr<drv::Fence> done, cancelled;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    const auto ctx = *d.open_context(9001, 1);
    const auto bo = *d.alloc_bo(ctx, 4096);
    auto record = [&](const drv::Fence& f) { calls.push_back({f.job_id, f.status, s.os().now_ns()}); };
    auto first = one_buffer(dma_buffer(bo, 50, 4096), "first");
    first.on_complete = record;
    auto second = one_buffer(dma_buffer(bo, 50, 4096), "second");
    second.on_complete = record;
    done = *d.submit(ctx, std::move(first));
    cancelled = *d.submit(ctx, std::move(second));  // queued behind the first on the only channel
    ASSERT_TRUE(d.cancel(ctx, cancelled->job_id).ok());
    d.wait(*done);
    s.os().delay_ns(100'000);  // nothing may call back again
  });
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].id, cancelled->job_id);
  EXPECT_EQ(calls[0].status, drv::JobStatus::CANCELLED);
  EXPECT_EQ(calls[0].at_ns, cancelled->end_ns);
  EXPECT_EQ(calls[1].id, done->job_id);
  EXPECT_EQ(calls[1].status, drv::JobStatus::COMPLETED);
  EXPECT_EQ(calls[1].at_ns, done->end_ns);
}

// --- Thermal governor under a sustained full load ---------------------------------------------------
//
// A small, hot phone NPU: int8 MACs at 1 pJ (vs 0.09 pJ in the 7 nm preset) and small heat capacities so
// that tens of simulated seconds reach steady state: junction C 0.005 J/K, package 0.05 J/K, skin
// 0.25 J/K with skin → ambient 40 K/W (junction → ambient 4 + 6 + 40 = 50 K/W), ambient 40 °C.
// Four channels run timing-only 3×3 convolution tiles back to back: per tile 32·32 outputs × 64 channels
// × 3·3·256 taps = 151 M MACs = 590 k cycles on a 16×16 array, so ≈ 0.26 W of MACs per channel at 1 GHz,
// ≈ 1.4 W with SRAM traffic and leakage: 40 °C + 50 K/W · 1.4 W ≈ 110 °C unthrottled, far above the
// critical trip (95 °C; EMERGENCY at 100, SHUTDOWN at 105).
struct ThermalRun {
  double max_junction_c = 0, mean_power_w = 0;
  uint64_t dvfs_changes = 0, tiles = 0;
  uint64_t shutdowns = 0, failed_jobs = 0, refused_submits = 0, tiles_after_shutdown = 0;
  drv::ThermalSeverity worst = drv::ThermalSeverity::NONE;
  std::map<std::string, double> time_at_s;
};

ThermalRun sustained_full_load(const std::string& governor) {
  constexpr uint64_t kRunNs = 40'000'000'000ull;  // 40 simulated seconds
  constexpr uint32_t kTilesPerBuffer = 50;        // ≈ 30 ms at 1 GHz
  auto sys =
      make_system({"driver.thermal.governor=" + governor, "driver.thermal.poll_ns=20000000",
                   "npu.power.int8_mac_pj=1.0", "npu.thermal.ambient_c=40",
                   "npu.thermal.junction.capacity_j_per_k=0.005", "npu.thermal.package.capacity_j_per_k=0.05",
                   "npu.thermal.skin.capacity_j_per_k=0.25", "npu.thermal.skin.resistance_k_per_w=40"});
  struct Worst : drv::ThermalObserver {
    drv::ThermalSeverity worst = drv::ThermalSeverity::NONE;
    void on_thermal_severity(drv::ThermalSeverity s, double) override { worst = std::max(worst, s); }
  } observer;
  ThermalRun r;
  uint64_t end_ns = 0;
  auto end = sys->run([&](system::System& s) {
    auto& d = s.driver();
    d.set_thermal_observer(&observer);
    d.set_scheduling_config(config_for(9100, 100));
    const auto ctx = *d.open_context(9100, 1);
    std::vector<desc::Raw> tiles;
    for (uint32_t i = 0; i < kTilesPerBuffer; ++i) tiles.push_back(test::timing_conv_tile(i));
    while (s.os().now_ns() < kRunNs) {
      drv::JobRequest job;
      job.stages = {{tiles, tiles, tiles, tiles}};  // one buffer per channel
      job.timing_only = true;
      job.label = "hot";
      auto f = d.submit(ctx, std::move(job));
      if (!f.ok()) {
        // Only a thermal shutdown refuses this load; the client retries 10 ms later.
        ASSERT_NE(f.error().find("thermal shutdown"), std::string::npos) << f.error();
        ++r.refused_submits;
        s.os().delay_ns(10'000'000);
        continue;
      }
      d.wait(**f);
      if ((*f)->status == drv::JobStatus::FAILED) {
        ASSERT_NE((*f)->error.find("thermal shutdown"), std::string::npos) << (*f)->error;
        ++r.failed_jobs;
        continue;
      }
      ASSERT_EQ((*f)->status, drv::JobStatus::COMPLETED) << (*f)->error;
      r.tiles += 4 * kTilesPerBuffer;
      if (r.failed_jobs) r.tiles_after_shutdown += 4 * kTilesPerBuffer;
    }
    d.update_stats();
    end_ns = s.os().now_ns();
  });
  EXPECT_TRUE(end.ok()) << end.error();
  r.worst = observer.worst;
  r.max_junction_c = value(*sys, "npu.thermal.junction.max_c");
  r.mean_power_w = value(*sys, "npu.power.energy.total") * 1e-12 / (end_ns * 1e-9);
  r.dvfs_changes = stat(*sys, "driver.thermal.dvfs_changes");
  r.shutdowns = stat(*sys, "driver.thermal.shutdowns");
  for (const char* sev : {"none", "light", "moderate", "severe", "critical", "emergency", "shutdown"})
    r.time_at_s[sev] = value(*sys, std::string("driver.thermal.time_at.") + sev + "_ns") * 1e-9;
  std::cout << governor << ": max junction " << r.max_junction_c << " °C, mean power " << r.mean_power_w
            << " W, " << r.dvfs_changes << " DVFS changes, " << r.tiles << " tiles, worst severity "
            << drv::to_string(r.worst) << ", " << r.shutdowns << " thermal shutdowns (" << r.failed_jobs
            << " jobs failed, " << r.refused_submits << " submissions refused)\n";
  return r;
}

// Without a governor nothing holds the NPU back: the junction passes the critical trip (95 °C), the
// driver reports the escalation beyond it (EMERGENCY at 100 °C) and at SHUTDOWN (105 °C) the NPU halts:
// the job in flight fails, submissions are refused, and once the junction is below the critical trip
// work runs again — and heats it again, so it cycles.
TEST(DriverThermal, SustainedFullLoadWithoutGovernorHaltsAtShutdown) {
  const ThermalRun r = sustained_full_load("none");
  EXPECT_GT(r.max_junction_c, 105.0);
  EXPECT_EQ(r.worst, drv::ThermalSeverity::SHUTDOWN);
  EXPECT_EQ(r.dvfs_changes, 0u);
  EXPECT_GE(r.shutdowns, 1u);
  EXPECT_EQ(r.failed_jobs, r.shutdowns) << "one job in flight at each shutdown";
  EXPECT_GT(r.refused_submits, 0u);
  EXPECT_GT(r.tiles_after_shutdown, 0u) << "the NPU took work again once cool";
  // The halt caps the temperature: unthrottled the junction would settle near 110 °C.
  EXPECT_LT(r.max_junction_c, 108.0);
}

void expect_held_below_critical(const ThermalRun& r) {
  EXPECT_LT(r.max_junction_c, 95.0) << "critical trip";
  EXPECT_LT(r.worst, drv::ThermalSeverity::CRITICAL);
  EXPECT_EQ(r.time_at_s.at("critical") + r.time_at_s.at("emergency") + r.time_at_s.at("shutdown"), 0.0);
  EXPECT_GT(r.dvfs_changes, 0u) << "held by DVFS, not by luck";
  // Still working: at the slowest operating point (400 MHz) a tile takes 1.47 ms, so 40 s of four
  // channels is at least ≈ 108 k tiles; anything near that or above means the load was sustained.
  EXPECT_GT(r.tiles, 100'000u);
}

TEST(DriverThermal, StepWiseGovernorKeepsSustainedFullLoadBelowCritical) {
  expect_held_below_critical(sustained_full_load("step_wise"));
}

TEST(DriverThermal, PowerAllocatorGovernorKeepsSustainedFullLoadBelowCritical) {
  expect_held_below_critical(sustained_full_load("power_allocator"));
}

}  // namespace
