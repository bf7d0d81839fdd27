// Precompiled models (docs/hal.md, "Precompiled models"): loaded by NpuDevice::prepare_program into the
// weight memory, their named programs run as one driver job at the execution's priority, through the same
// job code as an NNAPI model's executions. All in simulated time.
#include "npu/hal/prepared_program.h"

#include "hal_test_util.h"
#include "npu/hal/device.h"

namespace npu::hal::test {
namespace {

// `model` compiled for `device`, every NPU stage of it as one program named "net".
PrecompiledModel precompile(NpuDevice& device, const models::Model& model) {
  auto program = compile_for_npu(model, device.target());
  EXPECT_TRUE(static_cast<bool>(program)) << program.error();
  PrecompiledModel p;
  p.name = "net";
  p.weights = program->weights;
  p.arena_bytes = program->arena_bytes;
  for (auto& stage : program->stages) {
    EXPECT_FALSE(stage.on_cpu) << stage.cpu_reason;
    p.programs["net"].push_back(stage.jobs);
  }
  return p;
}

// A precompiled model of `bytes` of weights (sized, not materialised) and one empty program "net".
PrecompiledModel weights_only(const std::string& name, uint64_t bytes) {
  PrecompiledModel p;
  p.name = name;
  p.weights = WeightsImage(false);
  p.weights.append(nullptr, bytes);
  p.arena_bytes = 4096;
  p.programs["net"] = {};
  return p;
}

// The same descriptors take the same NPU cycles whichever way they are loaded: an NNAPI model's execution
// and the precompiled model holding its compiled stages. Two programs in one execution are one job of
// both programs' stages; its effective priority is the uid's (no SchedulingConfig: 1000) plus the
// execution's job priority.
TEST(HalPreparedProgram, NamedProgramsRunAsOneJobAtTheExecutionsPriority) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    NpuDevice& device = s.npu_device(20001, 1001);
    auto nnapi = device.prepare_model(t.model);
    ASSERT_TRUE(nnapi.status.ok()) << nnapi.status.message;
    const auto reference = nnapi.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(reference.status.ok()) << reference.status.message;
    ASSERT_EQ(reference.jobs, 1u);

    PrecompiledModel p = precompile(device, t.model);
    const size_t stages = p.programs["net"].size();
    p.programs["again"] = p.programs["net"];
    auto [status, program] = device.prepare_program(p);
    ASSERT_TRUE(status.ok()) << status.message;
    ExecuteOptions o;
    o.job_priority = 7;
    const auto once = program->execute({"net"}, o, "once");
    ASSERT_TRUE(once.status.ok()) << once.status.message;
    EXPECT_EQ(once.device_cycles, reference.device_cycles);
    EXPECT_EQ(once.effective_priority, 1007);
    EXPECT_EQ(once.jobs, 1u);
    EXPECT_EQ(once.stages, stages);
    ASSERT_EQ(once.job_times.size(), 1u);
    EXPECT_LT(once.job_times[0].submit_ns, once.job_times[0].end_ns);
    EXPECT_EQ(program->in_flight(), nullptr);

    const auto twice = program->execute({"net", "again"}, {}, "twice");
    ASSERT_TRUE(twice.status.ok()) << twice.status.message;
    EXPECT_EQ(twice.jobs, 1u);
    EXPECT_EQ(twice.stages, 2 * stages);
    EXPECT_EQ(twice.device_cycles, 2 * reference.device_cycles);
    EXPECT_EQ(twice.effective_priority, 1500) << "no job priority: the MEDIUM default";
  });
}

// An NNAPI execution's job priority replaces its prepared model's Priority for that execution.
TEST(HalPreparedProgram, AnNnapiExecutionCarriesItsOwnJobPriority) {
  run_on_phone([](system::System& s) {
    auto t = conv_quant8();
    auto p = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(p.status.ok()) << p.status.message;
    Request request;
    request.inputs = t.inputs;
    ExecuteOptions o;
    o.job_priority = 3;
    const auto r = p.model->execute_synchronously(request, o);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(r.effective_priority, 1003);
    o.job_priority = 1001;
    const auto bad = p.model->execute_synchronously(request, o);
    EXPECT_EQ(bad.status.code, ErrorStatus::INVALID_ARGUMENT) << bad.status.message;
    EXPECT_NE(bad.status.message.find("job priority 1001"), std::string::npos) << bad.status.message;
  });
}

TEST(HalPreparedProgram, BadExecutionsAreInvalidArgumentsNamingWhatIsWrong) {
  run_on_phone([](system::System& s) {
    auto t = conv_quant8();
    NpuDevice& device = s.npu_device();
    auto [status, program] = device.prepare_program(precompile(device, t.model));
    ASSERT_TRUE(status.ok()) << status.message;
    const auto unknown = program->execute({"net", "nope"}, {}, "x");
    EXPECT_EQ(unknown.status.code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_EQ(unknown.status.message, "net has no program \"nope\"");
    EXPECT_EQ(unknown.jobs, 0u);
    const auto none = program->execute({}, {}, "x");
    EXPECT_EQ(none.status.code, ErrorStatus::INVALID_ARGUMENT) << none.status.message;
    ExecuteOptions o;
    o.job_priority = -1;
    EXPECT_EQ(program->execute({"net"}, o, "x").status.code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// Weights larger than the whole weight memory can never load (PERSISTENT, saying so); a shortage that may
// pass is TRANSIENT. Loading charges the copy of every weight byte, materialised or not.
TEST(HalPreparedProgram, WeightsLoadIntoTheWeightMemoryWithTheCopyCharged) {
  run_on_phone(
      [](system::System& s) {
        NpuDevice& device = s.npu_device();
        const PrecompiledModel huge = weights_only("huge", 65ull << 20);
        auto [refused, none] = device.prepare_program(huge);
        EXPECT_EQ(refused.code, ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) << refused.message;
        EXPECT_EQ(refused.message, "65 MiB of weights can never fit the NPU's 64 MiB weight memory");
        EXPECT_EQ(none, nullptr);

        const PrecompiledModel fits = weights_only("fits", 40ull << 20);
        s.driver().inject_alloc_failures(1);
        auto [shortage, later] = device.prepare_program(fits);
        EXPECT_EQ(shortage.code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << shortage.message;
        s.driver().inject_alloc_failures(0);
        const uint64_t t0 = s.os().now_ns();
        auto [ok, loaded] = device.prepare_program(fits);
        ASSERT_TRUE(ok.ok()) << ok.message;
        // 40 MiB at the host's 10 GB/s (host.memcpy_gbps): 4,194,304 ns, beside a 20 µs call and µs of
        // ioctls.
        const uint64_t took = s.os().now_ns() - t0;
        EXPECT_GE(took, 4'194'304u);
        EXPECT_LT(took, 4'194'304u + 100'000);
        // It sits in the weight memory: a second one does not fit beside it.
        auto [second, no] = device.prepare_program(fits);
        EXPECT_EQ(second.code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << second.message;
      },
      {"npu.weight_memory.mib=64"});
}

// FULLY_CONNECTED 2048 → 1024, quant8: 2 MiB of weights.
models::Model two_mib_fc() {
  models::ModelBuilder b(3);
  const uint32_t x = b.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 2048}, {0.02f, 128});
  b.mark_output(b.fully_connected(x, 1024, fx::FusedActivation::NONE, {0.01f, 120}, {0.1f, 128}));
  return b.take();
}

// An NNAPI model's weights go to the same weight memory: while a precompiled model fills it, the prepare
// is TRANSIENT; once that model is released it loads.
TEST(HalPreparedProgram, NnapiWeightsUseTheWeightMemory) {
  run_on_phone(
      [](system::System& s) {
        NpuDevice& device = s.npu_device();
        const PrecompiledModel filler = weights_only("filler", 3ull << 20);
        auto [ok, loaded] = device.prepare_program(filler);
        ASSERT_TRUE(ok.ok()) << ok.message;
        const models::Model m = two_mib_fc();
        auto busy = device.prepare_model(m);
        EXPECT_EQ(busy.status.code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << busy.status.message;
        loaded->release();
        auto after = device.prepare_model(m);
        EXPECT_TRUE(after.status.ok()) << after.status.message;
      },
      {"npu.weight_memory.mib=4"});
}

// NNAPI weights larger than the whole weight memory are streamed from the general pool instead and the
// model runs (as a 7B decoder's on a 16 GiB part with 6 GiB of weight memory).
TEST(HalPreparedProgram, NnapiWeightsThatCanNeverFitTheWeightMemoryUseTheGeneralPool) {
  run_on_phone(
      [](system::System& s) {
        const models::Model m = two_mib_fc();
        auto prepared = s.npu_device().prepare_model(m);
        ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
        auto run = prepared.model->execute_synchronously(random_inputs_for(m, 4), false);
        EXPECT_TRUE(run.status.ok()) << run.status.message;
        EXPECT_GT(run.device_cycles, 0u);
      },
      {"npu.weight_memory.mib=1"});
}

// A job the system cancels (the NPU manager revoking the uid's work) ends the execution as revoked, with
// the cycles the NPU spent on it; in flight, the job is visible.
TEST(HalPreparedProgram, AJobTheSystemCancelsIsRevoked) {
  run_on_phone([](system::System& s) {
    auto t = big_conv_quant8();
    NpuDevice& device = s.npu_device(20002, 1002);
    auto prepared = device.prepare_program(precompile(device, t.model));
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    PreparedProgram* program = prepared.program.get();
    ExecutionResult r;
    bool done = false;
    s.os().spawn("app", [&] {
      r = program->execute({"net"}, {}, "big");
      done = true;
    });
    s.os().delay_ns(60'000);
    ASSERT_NE(program->in_flight(), nullptr);
    s.driver().cancel_uid_work(20002);
    wait_until(s, [&] { return done; });
    EXPECT_EQ(r.status.code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_TRUE(r.revoked) << r.status.message;
    EXPECT_GT(r.device_cycles, 0u);
    EXPECT_EQ(program->in_flight(), nullptr);
  });
}

}  // namespace
}  // namespace npu::hal::test
