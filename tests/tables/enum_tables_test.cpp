// Every enum that has a string form (configs, the CLI, JSON, logs) and every pluggable family, checked
// through their tables: names round-trip and are unique, an unknown name's error lists every valid name,
// the names are the ones outputs and docs have always used, each factory row constructs an object and
// the schema offers exactly the table's names for the family's config key.
#include <gtest/gtest.h>

#include "../support/enum_table_checks.h"
#include "npu/common/config.h"
#include "npu/common/factory_table.h"
#include "npu/drv/driver.h"
#include "npu/drv/sched_policy.h"
#include "npu/drv/thermal_governor.h"
#include "npu/hal/scheduling_hal.h"
#include "npu/hal/types.h"
#include "npu/mgr/npu_service.h"
#include "npu/mgr/policy.h"
#include "npu/mlts/stress.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/scenario/scenario.h"
#include "npu/sim/channel.h"
#include "npu/sim/npu.h"
#include "npu/sim/power/power_config.h"
#include "npu/system/system.h"

namespace {

using namespace npu;
using Names = std::vector<std::string>;

template <class E>
void expect_table(const std::string& what, const Names& expected) {
  test::expect_sound_enum_table<E>(what);
  EXPECT_EQ(enums::names<E>(), expected) << what << ": outputs, docs and configs use these exact names";
}

TEST(EnumTables, Driver) {
  expect_table<drv::JobStatus>("job status", {"PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"});
  expect_table<drv::WorkStartReason>("work start reason", {"INITIAL", "RESUMED"});
  expect_table<drv::WorkEndReason>("work end reason",
                                   {"COMPLETED", "CANCELLED_USER", "CANCELLED_SYSTEM", "FAILED", "PAUSED"});
  expect_table<drv::ThermalSeverity>(
      "thermal severity", {"NONE", "LIGHT", "MODERATE", "SEVERE", "CRITICAL", "EMERGENCY", "SHUTDOWN"});
  expect_table<drv::PreemptMechanism>("preemption mechanism", {"checkpoint", "kill", "drain"});
}

TEST(EnumTables, Hal) {
  expect_table<hal::ErrorStatus>(
      "error status", {"NONE", "DEVICE_UNAVAILABLE", "GENERAL_FAILURE", "OUTPUT_INSUFFICIENT_SIZE",
                       "INVALID_ARGUMENT", "MISSED_DEADLINE_TRANSIENT", "MISSED_DEADLINE_PERSISTENT",
                       "RESOURCE_EXHAUSTED_TRANSIENT", "RESOURCE_EXHAUSTED_PERSISTENT"});
  expect_table<hal::DeviceType>("device type", {"OTHER", "CPU", "GPU", "ACCELERATOR"});
  expect_table<hal::Priority>("priority", {"LOW", "MEDIUM", "HIGH"});
  expect_table<hal::BinderException>("binder exception", {"EX_NONE", "EX_ILLEGAL_ARGUMENT"});
}

TEST(EnumTables, Manager) {
  expect_table<mgr::SizeClass>("size class", {"LESS_THAN_1GB", "BETWEEN_1GB_AND_2GB", "GREATER_THAN_2G"});
  expect_table<mgr::LoadPriority>("load priority", {"NORMAL", "BACKGROUND", "OPPORTUNISTIC"});
  expect_table<mgr::LoadStatus>("load status", {"CAN_LOAD_NOW", "WAIT_FOR_UNLOAD", "NOT_PRIORITIZED"});
  expect_table<mgr::RequestStatus>("request status", {"CANCELLED", "COMPLETE"});
  expect_table<mgr::UnloadReason>("unload reason", {"MEMORY_PRESSURE", "THERMAL"});
  expect_table<mgr::Importance>("importance", {"FOREGROUND", "VISIBLE", "SERVICE", "BACKGROUND", "CACHED"});
  expect_table<mgr::RequestState>(
      "request state", {"PENDING", "WAIT_FOR_UNLOAD", "NOT_PRIORITIZED", "APPROVED", "LOADED", "UNLOADING"});
  expect_table<mgr::Verdict>("verdict",
                             {"KEEP", "ADMIT", "WAIT_FOR_UNLOAD", "NOT_PRIORITIZED", "CANCEL", "UNLOAD"});
}

TEST(EnumTables, SimScenarioAndTools) {
  expect_table<sim::Engine>("engine", {"dma_in", "compute", "dma_out"});
  expect_table<sim::DataType>("data type", {"int8", "fp16", "fp32"});
  expect_table<scenario::WorkloadKind>("workload", {"periodic", "bursty", "poisson", "llm", "batch"});
  expect_table<mlts::Verdict>("stress verdict", {"SUCCESS", "FAILURE", "HANG", "CRASH"});
}

TEST(EnumTables, RegisterMapAndDescriptors) {
  expect_table<regs::FaultKind>("fault kind", {"none", "hang", "dma_error", "sram_ecc", "thermal_runaway"});
  expect_table<desc::Opcode>(
      "opcode",
      {"NOP",         "DMA_IN",        "DMA_OUT",  "CONV_INT8", "CONV_FP32",  "FENCE",   "DWCONV_INT8",
       "DWCONV_FP32", "ELTWISE",       "UNARY",    "POOL",      "REDUCE",     "SOFTMAX", "FILL",
       "BARRIER",     "PREEMPT_POINT", "RMS_NORM", "ROPE",      "DMA_GATHER", "SELECT",  "RESIZE_BILINEAR"});
  EXPECT_EQ(desc::kOpcodeCount, enums::names<desc::Opcode>().size());
  EXPECT_STREQ(desc::opcode_name(desc::Opcode::PREEMPT_POINT), "PREEMPT_POINT");
  EXPECT_STREQ(desc::opcode_name(static_cast<desc::Opcode>(desc::kOpcodeCount)), "UNKNOWN");
  sim::NpuConfig cfg;
  cfg::Schema s;
  cfg.declare(s);
  EXPECT_EQ(s.choices("npu.faults.kind"), enums::names<regs::FaultKind>());
}

TEST(EnumTables, ThinWrappersAgreeWithTheTables) {
  EXPECT_STREQ(mgr::to_string(mgr::Importance::CACHED), "CACHED");
  EXPECT_STREQ(drv::to_string(drv::PreemptMechanism::KILL), "kill");
  EXPECT_STREQ(hal::to_string(hal::DeviceType::ACCELERATOR), "ACCELERATOR");
  EXPECT_STREQ(scenario::to_string(scenario::WorkloadKind::LLM), "llm");
  EXPECT_STREQ(hal::to_string(static_cast<hal::DeviceType>(0)), "?") << "outside the table";
}

cfg::Schema driver_schema() {
  static drv::DriverConfig cfg;
  cfg::Schema s;
  cfg.declare(s);
  return s;
}

TEST(FactoryTables, SchedulingPolicies) {
  const Names names = drv::scheduling_policy_names();
  EXPECT_EQ(names, (Names{"priority", "fcfs", "prema", "rr", "edf", "adaptive"}));
  for (const auto& n : names) {
    auto p = drv::make_scheduling_policy(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(p->name(), n);
  }
  EXPECT_EQ(drv::make_scheduling_policy("lottery"), nullptr);
  EXPECT_EQ(driver_schema().choices("driver.scheduler"), names);
}

TEST(FactoryTables, PreemptionPolicies) {
  const Names names = drv::preemption_policy_names();
  EXPECT_EQ(names, (Names{"checkpoint", "kill", "drain", "predictive", "adaptive"}));
  for (const auto& n : names) {
    auto p = drv::make_preemption_policy(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(p->name(), n);
  }
  EXPECT_EQ(drv::make_preemption_policy("teleport"), nullptr);
  EXPECT_EQ(driver_schema().choices("driver.preemption"), names);
}

TEST(FactoryTables, ThermalGovernors) {
  const Names names = drv::thermal_governor_names();
  EXPECT_EQ(names, (Names{"step_wise", "power_allocator", "none"}));
  const std::vector<drv::OppInfo> opps = {{1000, 800}, {500, 600}};
  for (const auto& n : names) {
    drv::ThermalGovernorConfig cfg;
    cfg.governor = n;
    std::string error;
    auto g = drv::make_thermal_governor(cfg, opps, &error);
    EXPECT_TRUE(error.empty()) << n << ": " << error;
    if (n == "none") {
      EXPECT_EQ(g, nullptr) << "none: the driver keeps the operating point";
    } else {
      ASSERT_NE(g, nullptr) << n;
      EXPECT_EQ(g->name(), n);
    }
  }
  drv::ThermalGovernorConfig cfg;
  cfg.governor = "bang_bang";
  std::string error;
  EXPECT_EQ(drv::make_thermal_governor(cfg, opps, &error), nullptr);
  EXPECT_EQ(error, "thermal governor: unknown governor \"bang_bang\"");
  EXPECT_EQ(driver_schema().choices("driver.thermal.governor"), names);
}

TEST(FactoryTables, ManagerPolicies) {
  const Names names = mgr::policy_names();
  EXPECT_EQ(names, (Names{"STATUS_QUO", "TURN_TAKING", "BUDGET", "THERMAL_PRIORITY"}));
  for (const auto& n : names) {
    auto p = mgr::make_policy(n, nlohmann::json::object());
    ASSERT_TRUE(p.ok()) << n << ": " << p.error();
    EXPECT_EQ((*p)->name(), n);
  }
  const auto bad = mgr::make_policy("FASTEST", nlohmann::json::object());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "unknown policy 'FASTEST' (known: STATUS_QUO, TURN_TAKING, BUDGET, THERMAL_PRIORITY)");
  mgr::ServiceConfig cfg;
  cfg::Schema s;
  cfg.declare(s);
  EXPECT_EQ(s.choices("manager.policy"), names);
}

TEST(FactoryTables, ComputeCores) {
  const Names names = factory::names(system::compute_cores());
  EXPECT_EQ(names, (Names{"tlm", "rtl"}));
  system::SystemConfig cfg;
  cfg::Schema s;
  cfg.declare(s);
  EXPECT_EQ(s.choices("npu.channel.compute_core.model"), names);
  sim::NpuConfig sim_only;
  cfg::Schema sim_schema;
  sim_only.declare(sim_schema);
  EXPECT_EQ(sim_schema.choices("npu.channel.compute_core.model"), Names{"tlm"}) << "sim/ alone has no RTL";

  // Every row builds a core that reports its own name (without rtl/ in the build, "rtl" says so).
  const sim::ClockDomain clock(1000);
  const auto make = sim::compute_core_factory(system::compute_cores());
  for (const auto& n : names) {
    sim::ChannelConfig ch = cfg.npu.channel;
    ch.compute_core = n;
    std::string error;
    auto core = make(n + "_core", ch, clock, &error);
    if (!core) {
      EXPECT_EQ(error, "npu.channel.compute_core.model: \"" + n + "\" is not available in this build");
      continue;
    }
    EXPECT_STREQ(core->model_name(), n.c_str());
    EXPECT_EQ(core->geometry().rows, ch.array_rows);
  }
  sim::ChannelConfig ch = cfg.npu.channel;
  ch.compute_core = "gate_level";
  std::string error;
  EXPECT_EQ(make("x_core", ch, clock, &error), nullptr);
  EXPECT_EQ(test::listed_names(error), names) << error;
}

}  // namespace
