// Devices (docs/hal.md, "Devices"): names, types, version strings, measured capabilities, supported
// operations with reasons, model validation at prepareModel, partitioning between the NPU and the CPU, and
// the CPU fallback when preparation fails.
#include "npu/hal/device.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>

#include "hal_test_util.h"

namespace npu::hal::test {
namespace {

using models::Lifetime;
using models::OperandType;
using models::OperationType;
using Variant = NpuDevice::Variant;

TEST(HalDevices, NamesTypesAndVersionStrings) {
  run_on_phone([](system::System& s) {
    NpuDevice& npu = s.npu_device();
    NpuDevice& minimal = s.npu_device(10000, 1000, Variant::MINIMAL);
    CpuDevice& cpu = s.cpu_device();
    EXPECT_EQ(npu.name(), "npusim-npu");
    EXPECT_EQ(minimal.name(), "npusim-npu-minimal");
    EXPECT_EQ(cpu.name(), "npusim-cpu");
    EXPECT_EQ(npu.type(), DeviceType::ACCELERATOR);
    EXPECT_EQ(minimal.type(), DeviceType::ACCELERATOR);
    EXPECT_EQ(cpu.type(), DeviceType::CPU);
    // The version names the driver version and the digest of the driver sources built in.
    const std::string digest = driver_source_digest();
    ASSERT_EQ(digest.size(), 12u);
    EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(npu.version_string().find(std::string("driver ") + drv::kDriverVersion + "+" + digest),
              std::string::npos)
        << npu.version_string();
    EXPECT_NE(cpu.version_string().find(digest), std::string::npos);
    ASSERT_EQ(npu.supported_extensions().size(), 1u);  // com.npusim.llm (tests/hal/llm_extension_test.cpp)
    EXPECT_EQ(npu.supported_extensions()[0].name, "com.npusim.llm");
    EXPECT_TRUE(minimal.supported_extensions().empty());
    EXPECT_TRUE(cpu.supported_extensions().empty());
    EXPECT_EQ(npu.number_of_cache_files_needed(), std::make_pair(1u, 1u));
    EXPECT_EQ(cpu.number_of_cache_files_needed(), std::make_pair(0u, 0u));
  });
}

// Measured on the reference workloads (simulated time, so a run in another process gives the same
// answer: Cli.DevicesAreIdenticalAcrossRuns); asked again, a device answers exactly the same. Every
// figure is finite and positive, and float and quant8 differ (they were measured, not defaulted).
TEST(HalDevices, CapabilitiesAreMeasuredOnceAndStable) {
  run_on_phone([](system::System& s) {
    NpuDevice& npu = s.npu_device();
    const uint64_t t0 = s.os().now_ns();
    const Capabilities a = npu.capabilities();
    const uint64_t measuring_ns = s.os().now_ns() - t0;
    EXPECT_GT(measuring_ns, 0u);  // the workloads really ran in simulated time
    const uint64_t t1 = s.os().now_ns();
    const Capabilities b = npu.capabilities();
    EXPECT_EQ(s.os().now_ns(), t1);  // remembered, not measured again
    ASSERT_EQ(a.operand_performance.size(), b.operand_performance.size());
    std::map<std::string, PerformanceInfo> by_type;
    for (size_t i = 0; i < a.operand_performance.size(); ++i) {
      const auto& [type, pa] = a.operand_performance[i];
      const auto& pb = b.operand_performance[i].second;
      EXPECT_EQ(type, b.operand_performance[i].first);
      EXPECT_EQ(pa.exec_time, pb.exec_time) << type;
      EXPECT_EQ(pa.power_usage, pb.power_usage) << type;
      EXPECT_TRUE(std::isfinite(pa.exec_time) && pa.exec_time > 0 && pa.exec_time < FLT_MAX) << type;
      EXPECT_TRUE(std::isfinite(pa.power_usage) && pa.power_usage > 0 && pa.power_usage < FLT_MAX) << type;
      by_type[type] = pa;
      std::printf("capability %-32s exec_time %.4f power_usage %.4f\n", type.c_str(), pa.exec_time,
                  pa.power_usage);
    }
    std::printf("measuring took %.1f us simulated\n", measuring_ns / 1000.0);
    ASSERT_TRUE(by_type.count("TENSOR_FLOAT32") && by_type.count("TENSOR_QUANT8_ASYMM"));
    EXPECT_NE(by_type["TENSOR_FLOAT32"].exec_time, by_type["TENSOR_QUANT8_ASYMM"].exec_time);
    // The NPU beats the CPU reference (1.0) in time and energy on every tensor type, by the figures
    // docs/hal.md documents for the default config, to its precision: float32 0.163 / 0.230, quant8
    // (asymmetric and signed) 0.0767 / 0.0931 (simulated, so deterministic).
    auto rounded = [](float v, double unit) { return std::lround(static_cast<double>(v) / unit); };
    for (const auto& [type, p] : by_type) {
      if (type.rfind("TENSOR_", 0) != 0) continue;
      EXPECT_LT(p.exec_time, 1.0f) << type;
      EXPECT_LT(p.power_usage, 1.0f) << type;
    }
    EXPECT_EQ(rounded(by_type["TENSOR_FLOAT32"].exec_time, 1e-3), 163);
    EXPECT_EQ(rounded(by_type["TENSOR_FLOAT32"].power_usage, 1e-3), 230);
    for (const char* q8 : {"TENSOR_QUANT8_ASYMM", "TENSOR_QUANT8_ASYMM_SIGNED"}) {
      ASSERT_TRUE(by_type.count(q8)) << q8;
      EXPECT_EQ(rounded(by_type[q8].exec_time, 1e-4), 767) << q8;
      EXPECT_EQ(rounded(by_type[q8].power_usage, 1e-4), 931) << q8;
    }
    // Control flow is measured too (the NPU interprets it on the host: finite, slower than the CPU).
    EXPECT_TRUE(a.while_performance.exec_time > 1.0f && a.while_performance.exec_time < FLT_MAX);
    EXPECT_TRUE(a.if_performance.exec_time > 1.0f && a.if_performance.exec_time < FLT_MAX);
    // The CPU is the reference.
    for (const auto& [type, p] : s.cpu_device().capabilities().operand_performance) {
      EXPECT_EQ(p.exec_time, 1.0f) << type;
      EXPECT_EQ(p.power_usage, 1.0f) << type;
    }
  });
}

TEST(HalDevices, SupportedOperationsSayWhyNot) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    std::vector<bool> full, minimal, cpu;
    ASSERT_TRUE(s.npu_device().supported_operations(t.model, &full).ok());
    NpuDevice& min_dev = s.npu_device(10000, 1000, Variant::MINIMAL);
    ASSERT_TRUE(min_dev.supported_operations(t.model, &minimal).ok());
    ASSERT_TRUE(s.cpu_device().supported_operations(t.model, &cpu).ok());
    EXPECT_EQ(full, (std::vector<bool>{true, true}));
    EXPECT_EQ(minimal, (std::vector<bool>{true, false}));
    EXPECT_EQ(cpu, (std::vector<bool>{true, true}));
    EXPECT_EQ(min_dev.unsupported_reason(t.model, 1), "this device does not lower FULLY_CONNECTED");
    // A real reason on the full device: a data type the NPU has no MAC path for.
    models::Model m = t.model;
    m.main.operations[1].type = OperationType::LSH_PROJECTION;
    std::vector<bool> flags;
    EXPECT_FALSE(s.npu_device().supported_operations(m, &flags).ok());  // and invalid: no such signature
  });
}

// A model the minimal device only half supports runs its CONV_2D on the NPU and its FULLY_CONNECTED
// on the CPU in between, with outputs identical to the CPU reference.
TEST(HalDevices, PartitionedModelRunsPartlyOnNpuPartlyOnCpu) {
  run_on_phone([](system::System& s) {
    auto t = conv_fc_quant8();
    auto prepared = s.npu_device(10000, 1000, Variant::MINIMAL).prepare_model(t.model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    EXPECT_EQ(prepared.model->placement(), "npu + cpu (1 of 2 operations on the CPU)");
    auto r = prepared.model->execute_synchronously(t.inputs, true);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_GT(r.device_cycles, 0u);
    EXPECT_GT(r.command_buffers, 0u);
    expect_outputs_match(reference_outputs(s, t.model, t.inputs), r.outputs);
  });
}

// Preparation that cannot produce an NPU program (an input of unknown size) falls back to the CPU
// for the whole model, as NNAPI's framework does.
TEST(HalDevices, PreparationFailureFallsBackToCpuForTheWholeModel) {
  run_on_phone([](system::System& s) {
    auto t = conv_quant8();
    t.model.main.operands[t.model.main.input_indexes[0]].dimensions = {1, 0, 0, 8};
    t.model.main.operands[t.model.main.output_indexes[0]].dimensions = {1, 0, 0, 20};
    auto prepared = s.npu_device().prepare_model(t.model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    EXPECT_EQ(prepared.model->placement().rfind("cpu (fallback: ", 0), 0u) << prepared.model->placement();
    auto r = prepared.model->execute_synchronously(t.inputs, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(r.command_buffers, 0u);
    ASSERT_EQ(r.output_shapes.size(), 1u);
    EXPECT_EQ(r.output_shapes[0].dimensions, (std::vector<uint32_t>{1, 16, 16, 20}));
    auto model = conv_quant8().model;
    expect_outputs_match(reference_outputs(s, model, t.inputs), r.outputs);
  });
}

// prepareModel validates every rule and answers INVALID_ARGUMENT with the reason.
TEST(HalDevices, InvalidModelsAreRejectedWithTheReason) {
  struct Case {
    const char* what;
    std::function<void(models::Model&)> corrupt;
    const char* expect;  // a piece of the message
  };
  const std::vector<Case> cases = {
      {"operation input index", [](models::Model& m) { m.main.operations[0].inputs[0] = 999; },
       "out of range"},
      {"operand type code", [](models::Model& m) { m.main.operands[0].type = static_cast<OperandType>(77); },
       "invalid operand type code 77"},
      {"filter rank",
       [](models::Model& m) {
         m.main.operands[1].dimensions = {20, 3, 24};
       },
       "operations[0] (CONV_2D)"},
      {"lifetime",
       [](models::Model& m) {
         m.main.operands[m.main.input_indexes[0]].lifetime = Lifetime::TEMPORARY_VARIABLE;
       },
       "has lifetime TEMPORARY_VARIABLE, expected SUBGRAPH_INPUT"},
      {"quant scale", [](models::Model& m) { m.main.operands[0].scale = 0.0f; }, "needs scale > 0"},
      {"zero point", [](models::Model& m) { m.main.operands[0].zero_point = 300; },
       "zeroPoint 300 out of range"},
      {"stride parameter",
       [](models::Model& m) {
         auto& stride = m.main.operands[m.main.operations[0].inputs[4]];
         const int32_t zero = 0;
         std::memcpy(stride.data.data(), &zero, 4);
       },
       "operations[0] (CONV_2D)"},
      {"graph outputs", [](models::Model& m) { m.main.output_indexes.clear(); }, "no outputs"},
  };
  run_on_phone([&](system::System& s) {
    for (const auto& c : cases) {
      auto m = conv_quant8().model;
      c.corrupt(m);
      auto r = s.npu_device().prepare_model(m);
      EXPECT_EQ(r.status.code, ErrorStatus::INVALID_ARGUMENT) << c.what;
      EXPECT_EQ(r.model, nullptr) << c.what;
      EXPECT_NE(r.status.message.find(c.expect), std::string::npos) << c.what << ": " << r.status.message;
      std::vector<bool> flags;
      EXPECT_EQ(s.npu_device().supported_operations(m, &flags).code, ErrorStatus::INVALID_ARGUMENT) << c.what;
    }
  });
}

// NNAPI preparation deadlines. TRANSIENT: the deadline passed before the call was served or while
// preparing (no model; a retry with more time may succeed). PERSISTENT: the device knows beforehand it
// cannot make it (less time left than validation takes, or less than this device ever needed for this
// model), and answers at once without doing the work.
TEST(HalDevices, PreparationDeadlinesTransientAndPersistent) {
  run_on_phone([](system::System& s) {
    NpuDevice& npu = s.npu_device();
    const TestModel big = big_conv_quant8();
    const uint64_t call = npu.hal_costs().call_ns;
    const uint64_t validate = 1'000 * big.model.main.operations.size();
    PrepareOptions o;

    uint64_t t0 = s.os().now_ns();
    o.deadline = t0 + call + validate - 1;
    auto r = npu.prepare_model(big.model, o);
    EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << r.status.message;
    EXPECT_NE(r.status.message.find("alone takes"), std::string::npos) << r.status.message;
    EXPECT_EQ(r.model, nullptr);
    EXPECT_EQ(s.os().now_ns() - t0, call);  // answered without validating or compiling

    // Never prepared here before: a deadline just after validation is tried and passes while compiling.
    t0 = s.os().now_ns();
    o.deadline = t0 + call + validate + 1'000;
    r = npu.prepare_model(big.model, o);
    EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << r.status.message;
    EXPECT_EQ(r.model, nullptr);
    EXPECT_GT(s.os().now_ns(), *o.deadline);

    t0 = s.os().now_ns();
    auto unbounded = npu.prepare_model(big.model);
    ASSERT_TRUE(unbounded.status.ok()) << unbounded.status.message;
    const uint64_t needed = s.os().now_ns() - t0;
    EXPECT_GT(needed, call + validate);

    // Less than it ever needed: PERSISTENT at once. Exactly that: prepared.
    t0 = s.os().now_ns();
    o.deadline = t0 + needed - 1;
    r = npu.prepare_model(big.model, o);
    EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << r.status.message;
    EXPECT_NE(r.status.message.find("never prepared this model in less than " + std::to_string(needed)),
              std::string::npos)
        << r.status.message;
    EXPECT_EQ(s.os().now_ns() - t0, call);
    // Host time reads in whole nanoseconds of a clock that device-side transfers leave at fractions of
    // one, so the same preparation can read 1 ns longer; a nanosecond more than it ever needed is enough.
    t0 = s.os().now_ns();
    o.deadline = t0 + needed + 1;
    r = npu.prepare_model(big.model, o);
    EXPECT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_NE(r.model, nullptr);

    // Another model has no history: the same short budget is tried, not refused.
    const TestModel other = big_conv_quant8(2);
    t0 = s.os().now_ns();
    o.deadline = t0 + needed - 1;
    r = npu.prepare_model(other.model, o);
    EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << r.status.message;
    EXPECT_GT(s.os().now_ns() - t0, call + validate);
  });
}

}  // namespace
}  // namespace npu::hal::test
