// Prepared models (docs/hal.md, "Execution"): synchronous, asynchronous, fenced and burst executions; Timing;
// output shapes and OUTPUT_INSUFFICIENT_SIZE; priorities; deadlines; memory domains; several executions
// and prepared models at once; releasing everything a prepared model held. All in simulated time.
#include "hal_test_util.h"
#include "npu/hal/device.h"

namespace npu::hal::test {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(HalExecution, SynchronousTimingDriverAtLeastDeviceAndUnavailableOtherwise) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    auto timed = p.model->execute_synchronously(t.inputs, true);
    ASSERT_TRUE(timed.status.ok()) << timed.status.message;
    EXPECT_NE(timed.timing.time_on_device_us, kNoTiming);
    EXPECT_GT(timed.timing.time_on_device_us, 0u);
    EXPECT_GE(timed.timing.time_in_driver_us, timed.timing.time_on_device_us);
    std::printf("sync: on device %llu us, in driver %llu us\n",
                static_cast<unsigned long long>(timed.timing.time_on_device_us),
                static_cast<unsigned long long>(timed.timing.time_in_driver_us));
    expect_outputs_match(reference_outputs(s, t.model, t.inputs), timed.outputs);
    auto untimed = p.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(untimed.status.ok());
    EXPECT_EQ(untimed.timing.time_on_device_us, kNoTiming);
    EXPECT_EQ(untimed.timing.time_in_driver_us, kNoTiming);
    // An error (a missing input) with timing requested: unavailable too.
    auto failed = p.model->execute_synchronously(TensorMap{}, true);
    EXPECT_EQ(failed.status.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_EQ(failed.timing.time_on_device_us, kNoTiming);
    EXPECT_EQ(failed.timing.time_in_driver_us, kNoTiming);
  });
}

// A client whose driver context is gone (NpuDevice::close, as when its process died): its execution
// fails with GENERAL_FAILURE. It used to come back RESOURCE_EXHAUSTED_TRANSIENT ("activation arena:
// alloc_bo: no context"), which tells an app to retry later, forever, against a context that is not
// coming back (npusim stress, client-abandon on edge-small).
TEST(HalExecution, ExecutionAfterTheContextClosedIsAGeneralFailureNotOutOfMemory) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto& device = s.npu_device(12345, 678);
    auto p = device.prepare_model(t.model);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    ASSERT_TRUE(device.close().ok());
    const auto r = p.model->execute_synchronously(t.inputs, false);
    EXPECT_EQ(r.status.code, ErrorStatus::GENERAL_FAILURE)
        << to_string(r.status.code) << ": " << r.status.message;
    EXPECT_EQ(s.driver().live_contexts(), 0u);
  });
}

// The driver's errno decides the client's status: a shortage now (ENOMEM) may pass, so it is TRANSIENT; a
// buffer larger than the whole pool (ENOSPC) never fits, so it is PERSISTENT. On 48 MiB of device memory
// without a weight region (16 MiB kept for command buffers) a 6144x6144 FULLY_CONNECTED's 36 MiB of weights
// can never be loaded; the small model's can once the injected shortage stops.
TEST(HalExecution, DriverShortagesAreTransientOrPersistentByTheirErrno) {
  run_on_phone(
      [](system::System& s) {
        models::ModelBuilder b(3);
        const models::QuantParams q{0.02f, 128}, w_q{0.01f, 120}, out_q{0.05f, 100};
        const uint32_t in = b.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 6144}, q);
        b.mark_output(b.fully_connected(in, 6144, fx::FusedActivation::NONE, w_q, out_q));
        auto huge = s.npu_device().prepare_model(b.take());
        EXPECT_EQ(huge.status.code, ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
            << to_string(huge.status.code) << ": " << huge.status.message;
        EXPECT_NE(huge.status.message.find(drv::kOutOfDeviceMemory), std::string::npos)
            << huge.status.message;

        auto t = conv_fc_quant8();
        s.driver().inject_alloc_failures(1);
        auto refused = s.npu_device().prepare_model(t.model);
        EXPECT_EQ(refused.status.code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT)
            << to_string(refused.status.code) << ": " << refused.status.message;
        s.driver().inject_alloc_failures(0);
        auto p = s.npu_device().prepare_model(t.model);
        ASSERT_TRUE(p.status.ok()) << p.status.message;
        s.driver().inject_alloc_failures(1);  // the first execution's activation arena
        const auto r = p.model->execute_synchronously(t.inputs, false);
        EXPECT_EQ(r.status.code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT)
            << to_string(r.status.code) << ": " << r.status.message;
        s.driver().inject_alloc_failures(0);
        EXPECT_TRUE(p.model->execute_synchronously(t.inputs, false).status.ok()) << "the shortage passed";
      },
      {"npu.dram.size_mib=48", "npu.weight_memory.mib=0"});
}

TEST(HalExecution, AsynchronousCallbackRunsOnItsOwnThreadWithTheSameOutputs) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok());
    auto sync = p.model->execute_synchronously(t.inputs, false);
    std::optional<ExecutionResult> got;
    uint64_t returned_ns = 0, called_ns = 0;
    ExecuteOptions o;
    o.measure_timing = true;
    Request req;
    req.inputs = t.inputs;
    ASSERT_TRUE(p.model
                    ->execute_async(req, o,
                                    [&](ExecutionResult r) {
                                      called_ns = s.os().now_ns();
                                      got = std::move(r);
                                    })
                    .ok());
    returned_ns = s.os().now_ns();
    EXPECT_FALSE(got.has_value());  // the call returned before the execution ended
    wait_until(s, [&] { return got.has_value(); });
    ASSERT_TRUE(got->status.ok()) << got->status.message;
    EXPECT_GT(called_ns, returned_ns);
    EXPECT_GE(got->timing.time_in_driver_us, got->timing.time_on_device_us);
    EXPECT_EQ(got->outputs.at(t.model.main.output_indexes[0]).data,
              sync.outputs.at(t.model.main.output_indexes[0]).data);
    EXPECT_EQ(p.model->execute_async(req, o, nullptr).code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// executeFenced waits for its fences, returns a fence, and reports timingLaunched (from the call) and
// timingFenced (from the last fence): here the input fence is signalled 2 ms after the call.
TEST(HalExecution, FencedExecutionWaitsForFencesAndReportsBothTimings) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok());
    auto gate = std::make_shared<SyncFence>(s.os());
    s.os().spawn("signaller", [&] {
      s.os().delay_ns(2 * kMs);
      gate->signal({});
    });
    Request req;
    req.inputs = t.inputs;
    ExecuteOptions o;
    o.measure_timing = true;
    const uint64_t t0 = s.os().now_ns();
    auto f = p.model->execute_fenced(req, {gate}, o);
    ASSERT_TRUE(f.status.ok()) << f.status.message;
    ASSERT_TRUE(f.fence);
    EXPECT_FALSE(f.fence->signalled());
    ASSERT_TRUE(f.fence->wait().ok()) << f.fence->status().message;
    EXPECT_GT(s.os().now_ns() - t0, 2 * kMs);
    const auto& info = *f.info;
    EXPECT_GE(info.timing_launched.time_in_driver_us, 2000u);
    EXPECT_LT(info.timing_fenced.time_in_driver_us, info.timing_launched.time_in_driver_us);
    EXPECT_GE(info.timing_fenced.time_in_driver_us, info.timing_fenced.time_on_device_us);
    EXPECT_GT(info.timing_fenced.time_on_device_us, 0u);
    expect_outputs_match(reference_outputs(s, t.model, t.inputs), info.result.outputs);

    // A fence that signals an error fails the execution; its fence carries the error.
    auto bad = std::make_shared<SyncFence>(s.os());
    bad->signal({ErrorStatus::GENERAL_FAILURE, "upstream failed"});
    auto g = p.model->execute_fenced(req, {bad}, o);
    ASSERT_TRUE(g.status.ok());
    EXPECT_EQ(g.fence->wait().code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_NE(g.fence->status().message.find("upstream failed"), std::string::npos);
    EXPECT_EQ(g.info->timing_launched.time_in_driver_us, kNoTiming);
    EXPECT_EQ(p.model->execute_fenced(req, {nullptr}, o).status.code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// A burst's executions give the same outputs and skip the binder call (HalCosts: 20 µs → 3 µs).
TEST(HalExecution, BurstExecutionsMatchAndCostLessThanSynchronousCalls) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok());
    (void)p.model->execute_synchronously(t.inputs, false);  // warm: the arena exists
    Request req;
    req.inputs = t.inputs;
    uint64_t t0 = s.os().now_ns();
    auto sync = p.model->execute_synchronously(req, {});
    const uint64_t sync_ns = s.os().now_ns() - t0;
    auto burst = p.model->configure_execution_burst();
    for (int i = 0; i < 3; ++i) {
      t0 = s.os().now_ns();
      auto r = burst->execute(req, {});
      const uint64_t burst_ns = s.os().now_ns() - t0;
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(r.outputs.begin()->second.data, sync.outputs.begin()->second.data);
      // Same work on the device in a deterministic simulation: the only difference is the call's cost,
      // HalCosts::call_ns − burst_call_ns = 20 µs − 3 µs.
      const HalCosts costs;
      EXPECT_EQ(static_cast<int64_t>(sync_ns) - static_cast<int64_t>(burst_ns),
                static_cast<int64_t>(costs.call_ns - costs.burst_call_ns))
          << "burst execution " << i << ": " << burst_ns << " ns against " << sync_ns << " ns";
    }
  });
}

// Outputs of unknown dimensions: the shapes come back after execution.
TEST(HalExecution, OutputShapesAreReportedForUnknownDimensions) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto& g = t.model.main;
    g.operands[g.output_indexes[0]].dimensions = {0, 0};
    g.operands[g.operations[0].outputs[0]].dimensions = {};  // a temporary of unknown rank
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    EXPECT_EQ(p.model->placement(), "npu");  // shapes inferred at compile time
    auto r = p.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.output_shapes.size(), 1u);
    EXPECT_EQ(r.output_shapes[0].dimensions, (std::vector<uint32_t>{1, 10}));
    EXPECT_TRUE(r.output_shapes[0].is_sufficient);
    expect_outputs_match(reference_outputs(s, conv_fc_quant8().model, t.inputs), r.outputs);
  });
}

TEST(HalExecution, TooSmallOutputBufferIsOutputInsufficientSizeNamingTheOutput) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    const uint32_t out = t.model.main.output_indexes[0];
    Request req;
    req.inputs = t.inputs;
    req.output_capacity[out] = 9;  // needs 1×10 bytes
    for (Device* d : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      auto p = d->prepare_model(t.model);
      ASSERT_TRUE(p.status.ok());
      ExecuteOptions o;
      o.measure_timing = true;
      auto r = p.model->execute_synchronously(req, o);
      EXPECT_EQ(r.status.code, ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) << d->name();
      EXPECT_NE(
          r.status.message.find("output 0 (operand " + std::to_string(out) + ", [1,10]) needs 10 bytes"),
          std::string::npos)
          << r.status.message;
      ASSERT_EQ(r.output_shapes.size(), 1u);
      EXPECT_FALSE(r.output_shapes[0].is_sufficient);
      EXPECT_EQ(r.output_shapes[0].dimensions, (std::vector<uint32_t>{1, 10}));
      EXPECT_EQ(r.timing.time_in_driver_us, kNoTiming);
      Request enough = req;
      enough.output_capacity[out] = 10;
      EXPECT_TRUE(p.model->execute_synchronously(enough, o).status.ok()) << d->name();
    }
  });
}

// LOW/MEDIUM/HIGH become job priorities 1000/500/0; for a uid without a scheduling config the driver
// adds 1000, so the effective priorities are 2000/1500/1000.
TEST(HalExecution, PrioritiesMapOntoDriverJobPriorities) {
  run_on_phone([](system::System& s) {
    auto t = conv_quant8();
    const std::pair<Priority, int> expected[] = {
        {Priority::LOW, 2000}, {Priority::MEDIUM, 1500}, {Priority::HIGH, 1000}};
    for (const auto& [priority, effective] : expected) {
      PrepareOptions o;
      o.priority = priority;
      auto p = s.npu_device().prepare_model(t.model, o);
      ASSERT_TRUE(p.status.ok());
      EXPECT_EQ(p.model->priority(), priority);
      auto r = p.model->execute_synchronously(t.inputs, false);
      ASSERT_TRUE(r.status.ok());
      EXPECT_EQ(r.effective_priority, effective) << to_string(priority);
    }
  });
}

// On one channel busy with a long job, a HIGH model's execution queued after a LOW one's runs first.
TEST(HalExecution, HighPriorityExecutionOvertakesQueuedLowPriorityOne) {
  run_on_phone(
      [](system::System& s) {
        auto big = big_conv_quant8();
        auto small = conv_quant8();
        PrepareOptions low, high;
        low.priority = Priority::LOW;
        high.priority = Priority::HIGH;
        auto blocker = s.npu_device().prepare_model(big.model, low);
        auto low_p = s.npu_device().prepare_model(small.model, low);
        auto high_p = s.npu_device().prepare_model(small.model, high);
        ASSERT_TRUE(blocker.status.ok() && low_p.status.ok() && high_p.status.ok());
        Request big_req, small_req;
        big_req.inputs = big.inputs;
        small_req.inputs = small.inputs;
        uint64_t blocker_end = 0, low_end = 0, high_end = 0;
        auto at_end = [&](uint64_t* when) {
          return [&s, when](ExecutionResult r) {
            EXPECT_TRUE(r.status.ok()) << r.status.message;
            *when = s.os().now_ns();
          };
        };
        // The blocker's first convolution keeps the one channel busy for ≈ 29 M MACs / 256 MAC per
        // cycle ≈ 113 µs; both small executions are queued within it (each async call costs 20 µs).
        ASSERT_TRUE(blocker.model->execute_async(big_req, {}, at_end(&blocker_end)).ok());
        s.os().delay_ns(30'000);
        ASSERT_TRUE(low_p.model->execute_async(small_req, {}, at_end(&low_end)).ok());
        ASSERT_TRUE(high_p.model->execute_async(small_req, {}, at_end(&high_end)).ok());
        wait_until(s, [&] { return blocker_end && low_end && high_end; });
        std::printf("ends: blocker %llu, low %llu, high %llu ns\n",
                    static_cast<unsigned long long>(blocker_end), static_cast<unsigned long long>(low_end),
                    static_cast<unsigned long long>(high_end));
        EXPECT_LT(high_end, low_end);
      },
      {"npu.channels=1"});
}

TEST(HalExecution, DeadlinesMissedTransientAndPersistent) {
  run_on_phone([](system::System& s) {
    auto big = big_conv_quant8();
    // Preparation: a deadline the call alone overruns.
    PrepareOptions tight;
    tight.deadline = s.os().now_ns() + 1'000;
    auto missed = s.npu_device().prepare_model(big.model, tight);
    EXPECT_EQ(missed.status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << missed.status.message;
    EXPECT_EQ(missed.model, nullptr);

    auto p = s.npu_device().prepare_model(big.model);
    ASSERT_TRUE(p.status.ok());
    Request req;
    req.inputs = big.inputs;
    ExecuteOptions o;
    o.measure_timing = true;
    // A deadline that passes while the job runs: the job is cancelled, nothing is reported as timing.
    o.deadline = s.os().now_ns() + 50'000;  // the call and the input copy take ≈ 30 µs, the job ≈ 100 µs
    auto r = p.model->execute_synchronously(req, o);
    EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << r.status.message;
    EXPECT_EQ(r.timing.time_on_device_us, kNoTiming);
    EXPECT_LE(s.os().now_ns(), *o.deadline + 100'000);  // it did not wait for the job's end
    // Without a deadline it completes; its device time becomes the floor for hopeless deadlines.
    o.deadline.reset();
    auto full = p.model->execute_synchronously(req, o);
    ASSERT_TRUE(full.status.ok()) << full.status.message;
    expect_outputs_match(reference_outputs(s, big.model, big.inputs), full.outputs);
    o.deadline = s.os().now_ns() + 100'000;
    auto hopeless = p.model->execute_synchronously(req, o);
    EXPECT_EQ(hopeless.status.code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << hopeless.status.message;
    o.deadline = s.os().now_ns();  // already passed
    EXPECT_EQ(p.model->execute_synchronously(req, o).status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT);
    o.deadline.reset();
    o.loop_timeout_ns = kMaxLoopTimeoutNs + 1;
    EXPECT_EQ(p.model->execute_synchronously(req, o).status.code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// Memory domains: device buffers stay in device memory across executions; an execution whose input
// and output are buffers copies no byte between host and device, and one model's output buffer feeds
// the next model directly.
TEST(HalExecution, DeviceBuffersAreUsedInPlaceWithoutCopies) {
  run_on_phone([](system::System& s) {
    auto t = conv_quant8();
    NpuDevice& dev = s.npu_device();
    auto p = dev.prepare_model(t.model);
    ASSERT_TRUE(p.status.ok());
    const uint32_t in = t.model.main.input_indexes[0], out = t.model.main.output_indexes[0];
    auto host = p.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(host.status.ok());
    EXPECT_EQ(host.host_copy_bytes, 16u * 16 * 8 + 16u * 16 * 20);

    auto in_buf = dev.allocate(*p.model, in);
    auto out_buf = dev.allocate(*p.model, out);
    ASSERT_TRUE(in_buf.status.ok() && out_buf.status.ok()) << in_buf.status.message;
    ASSERT_TRUE(in_buf.buffer->copy_from(t.inputs.at(in)).ok());
    Request req;
    req.buffers = {{in, in_buf.buffer}, {out, out_buf.buffer}};
    for (int i = 0; i < 2; ++i) {
      auto r = p.model->execute_synchronously(req, {});
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(r.host_copy_bytes, 0u);
      EXPECT_TRUE(r.outputs.empty());
      ASSERT_EQ(r.output_shapes.size(), 1u);
      EXPECT_EQ(r.output_shapes[0].dimensions, (std::vector<uint32_t>{1, 16, 16, 20}));
    }
    models::Tensor value;
    ASSERT_TRUE(out_buf.buffer->copy_to(&value).ok());
    EXPECT_EQ(value.data, host.outputs.at(out).data);

    // Chaining: the output buffer is the input of a second model with a matching input.
    models::ModelBuilder b(5);
    const auto& o = t.model.main.operands[out];
    const uint32_t x = b.input(o.type, o.dimensions, {o.scale, o.zero_point});
    b.mark_output(b.conv_2d(x, 4, 1, 1, 1, 1, fx::FusedActivation::NONE, {0.01f, 120}, {0.1f, 128}));
    const models::Model second = b.take();
    auto p2 = dev.prepare_model(second);
    ASSERT_TRUE(p2.status.ok());
    Request chained;
    chained.buffers = {{second.main.input_indexes[0], out_buf.buffer}};
    auto r2 = p2.model->execute_synchronously(chained, {});
    ASSERT_TRUE(r2.status.ok()) << r2.status.message;
    EXPECT_EQ(r2.host_copy_bytes, 16u * 16 * 4);  // only the host output
    expect_outputs_match(reference_outputs(s, second, {{second.main.input_indexes[0], value}}), r2.outputs);

    // A buffer of the wrong shape, or from another device's context, is refused.
    Request wrong;
    wrong.inputs = t.inputs;
    wrong.buffers = {{out, in_buf.buffer}};
    EXPECT_EQ(p.model->execute_synchronously(wrong, {}).status.code, ErrorStatus::INVALID_ARGUMENT);
    auto other = s.npu_device(20000, 2).allocate(*p.model, in);
    ASSERT_TRUE(other.status.ok());
    Request foreign;
    foreign.buffers = {{in, other.buffer}};
    EXPECT_EQ(p.model->execute_synchronously(foreign, {}).status.code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// Three executions of one prepared model (each ≈ 100 µs on the NPU, launched 20 µs apart) and one of
// another are in flight at once; each gets the right outputs, and all started before any ended.
TEST(HalExecution, SeveralExecutionsAndPreparedModelsInFlight) {
  run_on_phone([](system::System& s) {
    auto t = big_conv_quant8();
    auto other = conv_fc_quant8(7);
    auto p = s.npu_device().prepare_model(t.model);
    auto q = s.npu_device().prepare_model(other.model);
    ASSERT_TRUE(p.status.ok() && q.status.ok());
    constexpr int kRuns = 3;
    std::vector<TensorMap> inputs;
    std::vector<std::optional<ExecutionResult>> results(kRuns + 1);
    std::vector<uint64_t> ends(kRuns + 1, 0);
    for (int i = 0; i < kRuns; ++i) inputs.push_back(random_inputs_for(t.model, 100 + i));
    const uint64_t before = s.driver().allocated_bytes();
    for (int i = 0; i <= kRuns; ++i) {
      Request req;
      req.inputs = i < kRuns ? inputs[i] : other.inputs;
      auto& model = i < kRuns ? *p.model : *q.model;
      ASSERT_TRUE(model
                      .execute_async(req, {},
                                     [&, i](ExecutionResult r) {
                                       ends[i] = s.os().now_ns();
                                       results[i] = std::move(r);
                                     })
                      .ok());
    }
    const uint64_t last_launch = s.os().now_ns();
    wait_until(s, [&] {
      for (const auto& r : results)
        if (!r) return false;
      return true;
    });
    // Each concurrent execution had an arena of its own: 3 of the big model's, 1 of the other's.
    const uint64_t arena = 56ull * 56 * 32 * 4;  // input + three outputs, 256-byte aligned already
    EXPECT_GE(s.driver().allocated_bytes() - before, 3 * arena);
    for (int i = 0; i <= kRuns; ++i) {
      ASSERT_TRUE(results[i]->status.ok()) << results[i]->status.message;
      const auto& model = i < kRuns ? t.model : other.model;
      expect_outputs_match(reference_outputs(s, model, i < kRuns ? inputs[i] : other.inputs),
                           results[i]->outputs);
      EXPECT_GT(ends[i], last_launch) << "execution " << i << " ended before the last one was launched";
    }
  });
}

// Releasing a prepared model (and the buffers allocated for it) frees every byte of device memory
// they held, arenas of concurrent executions included.
TEST(HalExecution, ReleasingAPreparedModelFreesEverythingItHeld) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    NpuDevice& dev = s.npu_device();
    // The context exists before the baseline so only the prepared model's memory is counted.
    (void)dev.prepare_model(conv_quant8().model);
    const uint64_t before = s.driver().allocated_bytes();
    {
      auto p = dev.prepare_model(t.model);
      ASSERT_TRUE(p.status.ok());
      auto buf = dev.allocate(*p.model, t.model.main.input_indexes[0]);
      ASSERT_TRUE(buf.status.ok());
      int done = 0;
      Request req;
      req.inputs = t.inputs;
      for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(p.model
                        ->execute_async(req, {},
                                        [&](ExecutionResult r) {
                                          EXPECT_TRUE(r.status.ok());
                                          ++done;
                                        })
                        .ok());
      wait_until(s, [&] { return done == 3; });
      EXPECT_GT(s.driver().allocated_bytes(), before);
    }
    EXPECT_EQ(s.driver().allocated_bytes(), before);
  });
}

}  // namespace
}  // namespace npu::hal::test
