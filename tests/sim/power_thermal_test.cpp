// Power, thermal and DVFS wired into the NPU, observed through its registers as a driver would: the
// sensor follows the analytic RC step response, trip points interrupt once per crossing with hysteresis,
// halving the clock doubles compute time and lowers power, energy per command buffer follows the
// per-action figures.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;
using Mat = std::array<std::array<double, 3>, 3>;

Mat mul(const Mat& a, const Mat& b) {
  Mat r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

// exp(M) by scaling and squaring of a Taylor series: an implementation independent of ThermalRc's
// eigen-decomposition, accurate to rounding for these small matrices.
Mat expm(Mat m) {
  int squarings = 0;
  double norm = 0;
  for (auto& row : m)
    for (double v : row) norm = std::max(norm, std::fabs(v));
  while (norm > 0.5) {
    norm /= 2;
    ++squarings;
  }
  const double scale = std::ldexp(1.0, -squarings);
  for (auto& row : m)
    for (double& v : row) v *= scale;
  Mat result{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, term = result;
  for (int n = 1; n < 30; ++n) {
    term = mul(term, m);
    for (auto& row : term)
      for (double& v : row) v /= n;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) result[i][j] += term[i][j];
  }
  for (int s = 0; s < squarings; ++s) result = mul(result, result);
  return result;
}

// Junction temperature of the default chain (ambient 25 °C; C = 0.03, 3, 60 J/K; R = 4, 6, 5 K/W) at time
// t after a power step P at the junction from ambient: θ(t) = θ_ss − exp(−C⁻¹G t) θ_ss, θ_ss = P·(15, 11, 5).
double analytic_junction_c(double p, double t) {
  const double c[3] = {0.03, 3.0, 60.0}, g[3] = {1 / 4.0, 1 / 6.0, 1 / 5.0};
  Mat a{};
  a[0][0] = -g[0] / c[0];
  a[0][1] = g[0] / c[0];
  a[1][0] = g[0] / c[1];
  a[1][1] = -(g[0] + g[1]) / c[1];
  a[1][2] = g[1] / c[1];
  a[2][1] = g[1] / c[2];
  a[2][2] = -(g[1] + g[2]) / c[2];
  for (auto& row : a)
    for (double& v : row) v *= t;
  const Mat e = expm(a);
  const double ss[3] = {p * 15, p * 11, p * 5};
  double decay = 0;
  for (int k = 0; k < 3; ++k) decay += e[0][k] * ss[k];
  return 25.0 + ss[0] - decay;
}

double therm_c(Firmware& fw, uint32_t reg) { return static_cast<int32_t>(fw.read32(reg)) / 1000.0; }

// A 2 W step into the junction (the thermal-runaway hook, with leakage off so the power is exactly the
// step) at t = 0; THERM_TEMP read right after samples at 1 ms … 3 s matches the closed-form solution of
// the three-node RC chain within 0.1 °C (in fact to the register's 1 m°C resolution).
TEST(Thermal, StepResponseInThePlatformMatchesTheAnalyticRcSolution) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.power.leakage_w=0"}), stats);
  Firmware fw("fw", npu);
  const std::vector<double> at_ms = {1, 5, 20, 100, 250, 500, 1000, 2000, 3000};
  std::vector<double> got;
  uint32_t power_mw = 0;
  sc_core::sc_spawn([&] {
    npu.inject_thermal_runaway(2.0);
    for (double t : at_ms) {
      // Samples land at whole milliseconds; read 1 µs after the one at t.
      sc_core::wait(sc_core::sc_time(t * 1000 + 1, sc_core::SC_US) - sc_core::sc_time_stamp());
      got.push_back(therm_c(fw, regs::THERM_TEMP));
    }
    power_mw = fw.read32(regs::PWR_POWER_MW);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  ASSERT_EQ(got.size(), at_ms.size());
  for (size_t i = 0; i < at_ms.size(); ++i) {
    const double want = analytic_junction_c(2.0, at_ms[i] / 1000.0);
    EXPECT_NEAR(got[i], want, 0.1) << "at " << at_ms[i] << " ms";
    EXPECT_NEAR(got[i], want, 0.0006) << "at " << at_ms[i] << " ms (register resolution)";
  }
  EXPECT_GT(got.back(), 33.0);  // 2 W · 4 K/W junction rise plus the package warming
  EXPECT_EQ(power_mw, 2000u);
}

// Trip 0 programmed through THERM_TRIP0 / THERM_HYST0 at 40 °C with 2 °C hysteresis. The test heats with
// 5 W and cools with 0 W, steering by THERM_TEMP: up past 40 (interrupt, bit 0), down to 39 (inside the
// band: nothing), up past 40 again (still armed off: nothing), down below 38 (re-armed: interrupt, bit 4),
// up past 40 (interrupt, bit 0). Three interrupts in all, each acknowledged through THERM_IRQ_STATUS.
TEST(Thermal, TripInterruptsOncePerCrossingRespectingHysteresis) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.power.leakage_w=0"}), stats);
  Firmware fw("fw", npu);
  std::vector<uint32_t> events;  // THERM_IRQ_STATUS at each interrupt
  bool done = false;
  sc_core::sc_spawn([&] {
    fw.write32(regs::THERM_TRIP(0), 40000);
    fw.write32(regs::THERM_HYST(0), 2000);
    fw.write32(regs::IRQ_MASK, regs::IRQ_THERMAL);
    auto steer = [&](double watts, auto reached) {
      npu.inject_thermal_runaway(watts);
      while (!reached(therm_c(fw, regs::THERM_TEMP))) sc_core::wait(1, sc_core::SC_MS);
    };
    steer(5.0, [](double t) { return t >= 40.5; });
    steer(0.0, [](double t) { return t <= 39.0; });
    steer(5.0, [](double t) { return t >= 40.5; });
    EXPECT_EQ(fw.read32(regs::THERM_TRIP_STATUS), regs::THERM_TRIP_ASSERTED.bit(0));
    steer(0.0, [](double t) { return t < 37.9; });
    EXPECT_EQ(fw.read32(regs::THERM_TRIP_STATUS), 0u);
    steer(5.0, [](double t) { return t >= 40.5; });
    sc_core::wait(10, sc_core::SC_MS);
    done = true;
    sc_core::sc_stop();
  });
  // The interrupt handler: records and acknowledges the thermal sources.
  sc_core::sc_spawn([&] {
    for (;;) {
      sc_core::wait(fw.irq.posedge_event());
      EXPECT_TRUE(fw.read32(regs::IRQ_STATUS) & regs::IRQ_THERMAL);
      const uint32_t bits = fw.read32(regs::THERM_IRQ_STATUS);
      events.push_back(bits);
      fw.write32(regs::THERM_IRQ_STATUS, bits);
      EXPECT_FALSE(fw.read32(regs::IRQ_STATUS) & regs::IRQ_THERMAL);
    }
  });
  sc_core::sc_start();
  ASSERT_TRUE(done);
  // Trip 0 up, trip 0 re-armed, trip 0 up again.
  EXPECT_EQ(events, (std::vector<uint32_t>{regs::THERM_IRQ_UP.bit(0), regs::THERM_IRQ_REARM.bit(0),
                                           regs::THERM_IRQ_UP.bit(0)}));
  EXPECT_EQ(*stats.find_counter("npu.thermal.trips.light.raised"), 2u);
}

// CONV tiles back to back in a timing-only command buffer (doorbell TIMING_ONLY), at opp0 (1000 MHz,
// 0.75 V) and after DVFS_OPP = 2 (set to 500 MHz, 0.62 V). A tile of M = 256 (16×16 pixels), K = 576
// (3×3×64), N = 64 on the 16×16 array: per 16-column block 36 chunks of P = max(256, 16) = 256 cycles,
// start_last = 2 + 35·256 = 8962, cycles = 8962 + 256 + 16 + 16 + 6 = 9256; four blocks: 37024 cycles.
// The CP fetches descriptor 0 (DRAM 100 ns + max(5 ns port, 128 B / 32 B per cycle) + 4 decode cycles):
// 109 ns at 1 GHz, 100 + 8 + 8 = 116 ns at 500 MHz; later fetches hide under the compute. With 64 tiles:
//   1000 MHz: 109 + 64 · 37024 ns = 2 369 645 ns;  500 MHz: 116 + 64 · 74048 ns = 4 739 188 ns,
// the compute part exactly doubled. Cycles (CH_CYCLES) are the same bar the fetch; power (the last 1 ms
// sensor period, all compute in both runs) drops with f·V² (dynamic) and V (leakage).
TEST(Dvfs, HalvingTheClockDoublesComputeTimeAndLowersPower) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.dvfs.opp2.mhz=500"}), stats);
  Firmware fw("fw", npu);
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_INT8, 0};
  c.in_h = c.in_w = 18;
  c.in_c = 64;
  c.kh = c.kw = 3;
  c.cout = 64;
  c.w_sram = 32768;
  c.bias_sram = 80000;
  c.quant_sram = 81000;
  c.out_sram = 90000;
  c.out_h = c.out_w = 16;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.clamp_lo = -128;
  c.clamp_hi = 127;
  const std::vector<desc::Raw> cmds(64, desc::encode(c));
  double t_full = 0, t_half = 0, mw_full = 0, mw_half = 0;
  uint64_t cyc_full = 0, cyc_half = 0, e_full = 0, e_half = 0;
  uint32_t dvfs_status = 0;
  uint64_t energy_uj = 0;
  auto run = [&](double* ns, uint64_t* cycles, uint64_t* energy) {
    fw.load(0, 0x1000, cmds);
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    fw.ring(0, regs::CH_DOORBELL_START | regs::CH_DOORBELL_TIMING_ONLY);
    sc_core::wait(fw.irq.posedge_event());
    *ns = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e9;
    EXPECT_EQ(fw.ch_reg(0, regs::CH_IRQ_STATUS), regs::CH_IRQ_DONE);
    fw.set_ch_reg(0, regs::CH_IRQ_STATUS, regs::CH_IRQ_DONE);
    *cycles = fw.cycles(0);
    *energy = fw.read64(regs::channel_base(0) + regs::CH_ENERGY_LO);
  };
  sc_core::sc_spawn([&] {
    fw.write32(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(0) | regs::IRQ_DVFS);
    run(&t_full, &cyc_full, &e_full);
    mw_full = fw.read32(regs::PWR_POWER_MW);  // the last sample period was all compute
    fw.write32(regs::DVFS_OPP, 2);
    while (!(fw.read32(regs::IRQ_STATUS) & regs::IRQ_DVFS)) sc_core::wait(fw.irq.posedge_event());
    fw.write32(regs::IRQ_STATUS, regs::IRQ_DVFS);
    dvfs_status = fw.read32(regs::DVFS_STATUS);
    run(&t_half, &cyc_half, &e_half);
    mw_half = fw.read32(regs::PWR_POWER_MW);
    energy_uj = fw.read64(regs::PWR_ENERGY_UJ_LO);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(dvfs_status, regs::DVFS_STATUS_POINT.put(2));  // and no transition pending
  // t0 is the doorbell's time and the line rises at completion: the spans are the arithmetic above.
  EXPECT_NEAR(t_full, 2369645, 1);
  EXPECT_NEAR(t_half, 4739188, 1);
  EXPECT_NEAR(t_half - 116, 2 * (t_full - 109), 1);
  EXPECT_EQ(cyc_full, 109u + 64u * 37024u);
  EXPECT_EQ(cyc_half, 58u + 64u * 37024u);  // 116 ns of fetch are 58 cycles at 2 ns
  EXPECT_GT(mw_full, 0);
  // PWR_ENERGY counts every pJ reported so far (both runs, fetches, leakage of the samples taken).
  EXPECT_EQ(energy_uj, static_cast<uint64_t>(*stats.find_value("npu.power.energy.total") / 1e6));
  EXPECT_GT(static_cast<double>(energy_uj),
            (static_cast<double>(e_full) + static_cast<double>(e_half)) / 1e6);
  EXPECT_LT(mw_half, mw_full);
  // Same actions, so dynamic energy scales with V² alone (DRAM energy of the 64 fetches is not scaled):
  // MAC + SRAM energy × (0.62 / 0.75)².
  const double dram_pj = 64 * 128 * 40.0;
  EXPECT_NEAR((static_cast<double>(e_half) - dram_pj) / (static_cast<double>(e_full) - dram_pj),
              (0.62 / 0.75) * (0.62 / 0.75), 1e-6);
}

// CH_ENERGY of a command buffer: per-action energies of the 7 nm preset (DRAM 40 pJ/B, SRAM 0.75 pJ/B).
// [DMA_IN 8192 B, DMA_OUT 8192 B, FENCE]: 3 fetches · 128 B · 40 + 2 · 8192 · (40 + 0.75) = 15 360 + 667 648
// = 683 008 pJ. The same command buffer timing-only costs the same.
TEST(Power, CommandBufferEnergyFollowsThePerActionFigures) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  uint64_t functional = 0, timing_only = 0;
  sc_core::sc_spawn([&] {
    const std::vector<desc::Raw> cmds{test::dma_in(0x100000, 0, 8192), test::dma_out(0x200000, 0, 8192),
                                      test::fence()};
    EXPECT_EQ(fw.run(0, 0x1000, cmds), regs::CH_IRQ_DONE);
    functional = fw.read64(regs::channel_base(0) + regs::CH_ENERGY_LO);
    EXPECT_EQ(fw.run(0, 0x1000, cmds, regs::CH_DOORBELL_START | regs::CH_DOORBELL_TIMING_ONLY),
              regs::CH_IRQ_DONE);
    timing_only = fw.read64(regs::channel_base(0) + regs::CH_ENERGY_LO);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(functional, 683008u);
  EXPECT_EQ(timing_only, 683008u);
  EXPECT_DOUBLE_EQ(*stats.find_value("npu.ch0.energy.dynamic"), 2 * 683008.0);
}

// With every channel idle the thermal monitor stops its clock, so sc_start() without a limit returns once
// the work is done; the samples it skipped are caught up on the next register read, on the same grid.
TEST(Thermal, AnIdleNpuLetsTheSimulationRunOutOfEvents) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  sc_core::sc_spawn([&] {
    std::vector<desc::Raw> cmds;
    for (int i = 0; i < 40; ++i) cmds.push_back(test::dma_in(0x100000, 0, 65536));
    EXPECT_EQ(fw.run(0, 0x1000, cmds), regs::CH_IRQ_DONE);
  });
  sc_core::sc_start();  // returns: nothing is left to happen
  const double end_ms = sc_core::sc_time_stamp().to_seconds() * 1e3;
  EXPECT_GT(end_ms, 0.1);
  EXPECT_LT(end_ms, 2.0);  // the last sample after the work, then the clock stops
  EXPECT_TRUE(npu.thermal().paused());
  EXPECT_GT(*stats.find_value("npu.thermal.junction.max_c"), 25.0);
}

}  // namespace
