// ThermalRc: exact stepping against closed forms, an independent RK4 integration, steady state,
// conservation of energy and time constants.
#include "npu/sim/power/thermal_rc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "npu/common/config.h"

namespace npu::sim {
namespace {

ThermalConfig defaults() {
  cfg::Schema s;
  ThermalConfig c;
  c.declare(s);
  return c;
}

ThermalRc default_rc() {
  auto rc = ThermalRc::from_config(defaults());
  EXPECT_TRUE(rc) << rc.error();
  return std::move(rc).value();
}

TEST(ThermalRc, SingleNodeMatchesTheAnalyticStepResponse) {
  // One node, C = 0.5 J/K, R = 10 K/W: τ = RC = 5 s. From 25 °C with P = 2 W:
  //   T(t) = 25 + P·R·(1 − e^{−t/τ}) = 25 + 20·(1 − e^{−t/5}).
  // At t1 = 6 s the power drops to 0.5 W (steady 25 + 5 = 30 °C):
  //   T(t) = 30 + (T(t1) − 30)·e^{−(t − t1)/τ}.
  // Steps of uneven length exercise the exactness for piecewise-constant power.
  auto made = ThermalRc::create({{"die", 0.5, 10.0}}, 25.0);
  ASSERT_TRUE(made) << made.error();
  ThermalRc rc = std::move(made).value();
  auto analytic = [](double t) {
    const double t1 = 6.0;
    if (t <= t1) return 25.0 + 20.0 * (1.0 - std::exp(-t / 5.0));
    const double at_t1 = 25.0 + 20.0 * (1.0 - std::exp(-t1 / 5.0));
    return 30.0 + (at_t1 - 30.0) * std::exp(-(t - t1) / 5.0);
  };
  const std::array<double, 6> pattern = {1e-3, 0.25, 7e-6, 0.4, 0.05, 1.0};
  double t = 0, max_err = 0;
  size_t i = 0;
  while (t < 20.0 - 1e-12) {
    double dt = pattern[i++ % pattern.size()];
    if (t < 6.0 && t + dt > 6.0) dt = 6.0 - t;  // power changes only at step boundaries
    rc.step(dt, t < 6.0 - 1e-12 ? 2.0 : 0.5);
    t += dt;
    max_err = std::max(max_err, std::fabs(rc.junction_c() - analytic(t)));
  }
  std::printf("single-node max |T - T_analytic| = %.3g °C over %zu steps\n", max_err, i);
  RecordProperty("max_error_c", std::to_string(max_err));
  EXPECT_LT(max_err, 0.1);   // the requirement
  EXPECT_LT(max_err, 1e-9);  // what exactness gives
}

TEST(ThermalRc, SingleNodeTimeConstantIsRC) {
  auto made = ThermalRc::create({{"die", 0.5, 10.0}}, 25.0);
  ASSERT_TRUE(made);
  ThermalRc rc = std::move(made).value();
  ASSERT_EQ(rc.time_constants_s().size(), 1u);
  EXPECT_NEAR(rc.time_constants_s()[0], 5.0, 1e-12);
  // After one τ the rise is 1 − 1/e ≈ 63.2 % of P·R = 20 K.
  rc.step(5.0, 2.0);
  EXPECT_NEAR(rc.junction_c() - 25.0, 20.0 * (1.0 - std::exp(-1.0)), 1e-12);
}

TEST(ThermalRc, ThreeNodeSteadyStateIsPowerTimesSumOfResistances) {
  ThermalRc rc = default_rc();
  ASSERT_EQ(rc.size(), 3u);
  // Defaults: R = 4 + 6 + 5 = 15 K/W; P = 2 W: junction 25 + 30 = 55 °C, package 25 + 2·11 = 47 °C,
  // skin 25 + 2·5 = 35 °C. The slowest mode is a few hundred seconds; 20 000 s of 1 s steps settle it.
  for (int k = 0; k < 20000; ++k) rc.step(1.0, 2.0);
  EXPECT_NEAR(rc.junction_c(), 25.0 + 2.0 * 15.0, 1e-9);
  EXPECT_NEAR(rc.temperature_c(1), 47.0, 1e-9);
  EXPECT_NEAR(rc.temperature_c(2), 35.0, 1e-9);
  const auto ss = rc.steady_state_c(2.0);
  for (size_t n = 0; n < 3; ++n) EXPECT_NEAR(ss[n], rc.temperature_c(n), 1e-9);
}

TEST(ThermalRc, ThreeNodeMatchesAFineRungeKuttaIntegration) {
  // Independent reference: RK4 on C dθ/dt = −Gθ + P e₀ with h = 0.1 ms (hλ_max ≈ 8.4e-4, so RK4's
  // error is far below 1e-9 K). The exact model takes 1 ms steps. P = 3 W for 1 s, then 0.5 W for 1 s.
  const ThermalConfig c = defaults();
  ThermalRc rc = default_rc();
  const double cap[3] = {c.junction.capacity_j_per_k, c.package.capacity_j_per_k, c.skin.capacity_j_per_k};
  const double g[3] = {1 / c.junction.resistance_k_per_w, 1 / c.package.resistance_k_per_w,
                       1 / c.skin.resistance_k_per_w};
  auto deriv = [&](const std::array<double, 3>& th, double p) {
    return std::array<double, 3>{(p - g[0] * (th[0] - th[1])) / cap[0],
                                 (g[0] * (th[0] - th[1]) - g[1] * (th[1] - th[2])) / cap[1],
                                 (g[1] * (th[1] - th[2]) - g[2] * th[2]) / cap[2]};
  };
  std::array<double, 3> th{0, 0, 0};
  const double h = 1e-4;
  double max_err = 0;
  for (int ms = 0; ms < 2000; ++ms) {
    const double p = ms < 1000 ? 3.0 : 0.5;
    for (int k = 0; k < 10; ++k) {
      auto add = [](std::array<double, 3> a, const std::array<double, 3>& b, double f) {
        for (size_t n = 0; n < 3; ++n) a[n] += f * b[n];
        return a;
      };
      const auto k1 = deriv(th, p), k2 = deriv(add(th, k1, h / 2), p), k3 = deriv(add(th, k2, h / 2), p),
                 k4 = deriv(add(th, k3, h), p);
      for (size_t n = 0; n < 3; ++n) th[n] += h / 6 * (k1[n] + 2 * k2[n] + 2 * k3[n] + k4[n]);
    }
    rc.step(1e-3, p);
    for (size_t n = 0; n < 3; ++n) max_err = std::max(max_err, std::fabs(rc.temperature_c(n) - 25.0 - th[n]));
  }
  std::printf("three-node max |T - T_rk4| = %.3g °C (junction rose %.3f K)\n", max_err, th[0]);
  EXPECT_LT(max_err, 1e-8);
  EXPECT_GT(th[0], 1.0);  // the test heats something
}

TEST(ThermalRc, EnergyInjectedIsStoredOrLostToAmbient) {
  // ∫P dt = Σ C_i (T_i − T_amb) + ∫ (T_skin − T_amb)/R_skin dt, to rounding, through power changes.
  ThermalRc rc = default_rc();
  double injected = 0;
  for (int k = 0; k < 500; ++k) {
    const double p = (k / 50) % 2 ? 0.3 : 4.0;
    const double dt = k % 3 ? 0.1 : 2.5;
    rc.step(dt, p);
    injected += p * dt;
    ASSERT_NEAR(rc.stored_heat_j() + rc.heat_to_ambient_j(), injected, 1e-9 * injected) << "step " << k;
  }
  EXPECT_GT(rc.heat_to_ambient_j(), 0.0);
  EXPECT_GT(rc.stored_heat_j(), 0.0);
}

TEST(ThermalRc, TimeConstantsSatisfyTheTraceInvariantAndSpanTheNodes) {
  // Σ λ_k = trace(C⁻¹G) = Σ_i (g_{i−1} + g_i)/C_i, a check independent of the eigen-solver's vectors:
  // (0 + 0.25)/0.03 + (0.25 + 1/6)/3 + (1/6 + 0.2)/60 = 8.3333 + 0.13889 + 0.0061111 = 8.4783 1/s.
  const ThermalRc rc = default_rc();
  const auto tau = rc.time_constants_s();
  ASSERT_EQ(tau.size(), 3u);
  double sum = 0;
  for (double t : tau) sum += 1.0 / t;
  const double trace = 0.25 / 0.03 + (0.25 + 1.0 / 6) / 3.0 + (1.0 / 6 + 0.2) / 60.0;
  EXPECT_NEAR(sum, trace, 1e-12 * trace);
  // det(C⁻¹G) = det(G)/ΠC and det(G) of a grounded chain = Π g_i: 0.25 · (1/6) · 0.2 / (0.03 · 3 · 60).
  const double det = 0.25 * (1.0 / 6) * 0.2 / (0.03 * 3.0 * 60.0);
  EXPECT_NEAR(1.0 / (tau[0] * tau[1] * tau[2]), det, 1e-9 * det);
  // Fast junction (~0.1 s), slow skin (minutes).
  EXPECT_LT(tau[2], 0.2);
  EXPECT_GT(tau[0], 100.0);
}

TEST(ThermalRc, SplittingAStepChangesNothing) {
  // exp(A·10 s) = exp(A·1 ms)^10000 for constant power: one step and ten thousand agree.
  ThermalRc one = default_rc(), many = default_rc();
  ASSERT_TRUE(one.set_temperatures_c({60, 40, 30}));
  ASSERT_TRUE(many.set_temperatures_c({60, 40, 30}));
  one.step(10.0, 1.5);
  for (int k = 0; k < 10000; ++k) many.step(1e-3, 1.5);
  for (size_t n = 0; n < 3; ++n) EXPECT_NEAR(one.temperature_c(n), many.temperature_c(n), 1e-9);
}

TEST(ThermalRc, RejectsNonPositiveParametersNamingTheKey) {
  ThermalConfig c = defaults();
  c.package.capacity_j_per_k = 0;
  auto rc = ThermalRc::from_config(c);
  ASSERT_FALSE(rc);
  EXPECT_NE(rc.error().find("npu.thermal.package.capacity_j_per_k"), std::string::npos) << rc.error();
  EXPECT_FALSE(ThermalRc::create({}, 25.0));
  auto ok = ThermalRc::create({{"a", 1, 1}}, 25.0);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(ok->set_temperatures_c({1, 2}));
}

}  // namespace
}  // namespace npu::sim
