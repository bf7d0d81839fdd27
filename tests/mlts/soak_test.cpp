// The fault soak, scaled down: four tenants at three priorities on the default phone while hangs, DMA
// errors, ECC errors and thermal runaways strike at random (seeded). Every invariant of soak_violations
// holds, every kind of fault was injected and found, and nothing is left alive.
#include "npu/mlts/soak.h"

#include <gtest/gtest.h>

namespace {

TEST(FaultSoak, EveryJobEndsOnceNothingLeaksEveryFaultIsFound) {
  npu::mlts::SoakOptions o;
  o.hw = NPUSIM_SOURCE_DIR "/configs/npu/default.json";
  o.simulated_s = 0.2;
  o.seed = 7;
  auto c = npu::mlts::run_soak(o);
  ASSERT_TRUE(c.ok()) << c.error();
  std::printf("%s", npu::mlts::soak_table(*c).c_str());
  for (const auto& why : npu::mlts::soak_violations(*c)) ADD_FAILURE() << why;
  // The invariants again where they matter most, so a failure names the counter.
  EXPECT_EQ(c->jobs_submitted, c->jobs_completed + c->jobs_failed + c->jobs_cancelled);
  EXPECT_EQ(c->jobs_not_ended_once, 0u);
  EXPECT_EQ(c->output_mismatches, 0u);
  EXPECT_EQ(c->live_contexts + c->live_bos + c->unsignalled_fences + c->leaked_bytes, 0u);
  for (const char* kind : {"hang", "dma_error", "sram_ecc", "thermal_runaway"})
    EXPECT_GT(c->faults_injected[kind], 0u) << kind;
  EXPECT_GT(c->hangs_detected, 0u);
  EXPECT_GT(c->dma_faults, 0u);
  EXPECT_GT(c->sram_ecc_errors, 0u);
  EXPECT_GT(c->jobs_failed, 0u) << "DMA and ECC errors fail their jobs";
  EXPECT_GT(c->executions_ok, c->executions_failed) << "the load went on between the faults";
}

}  // namespace
