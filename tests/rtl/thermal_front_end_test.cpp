// The verilated thermal-sensor front end: moving average, trip points with hysteresis, one interrupt
// per crossing, enable mask, write-1-to-clear, reset; and a seeded random sequence against a small
// C++ model of the same behaviour.
#include "npu/rtl/thermal_front_end.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

namespace npu::rtl {
namespace {

constexpr unsigned kWindow = ThermalFrontEnd::kWindow;

TEST(ThermalFrontEnd, FirstSampleFillsTheWindowThenAveragesTheLastEight) {
  ThermalFrontEnd fe;
  EXPECT_FALSE(fe.state().primed);
  fe.push_sample(100);
  EXPECT_TRUE(fe.state().primed);
  EXPECT_EQ(fe.state().last_sample, 100);
  EXPECT_EQ(fe.state().average, 100);  // not 100 / 8: the window starts full of the first reading
  fe.push_sample(108);
  EXPECT_EQ(fe.state().average, 101);  // (7 * 100 + 108) / 8
  fe.push_sample(103);
  EXPECT_EQ(fe.state().average, 101);  // (6 * 100 + 108 + 103) / 8 = 811 / 8, floored
  for (int i = 0; i < 8; ++i) fe.push_sample(200);
  EXPECT_EQ(fe.state().average, 200);  // the old samples have left the window
}

TEST(ThermalFrontEnd, TripsWithHysteresisAndOneInterruptPerCrossing) {
  ThermalFrontEndConfig cfg;
  cfg.warn_threshold = 200;
  cfg.crit_threshold = 300;
  cfg.hysteresis = 10;
  ThermalFrontEnd fe(cfg);
  fe.push_sample(150);
  EXPECT_FALSE(fe.state().warn);
  EXPECT_FALSE(fe.state().irq);

  for (int i = 0; i < 8; ++i) fe.push_sample(205);  // average climbs to 205 and crosses 200 once
  auto s = fe.state();
  EXPECT_TRUE(s.warn);
  EXPECT_FALSE(s.crit);
  EXPECT_EQ(s.irq_status, kThermalWarnRise);
  EXPECT_TRUE(s.irq);
  fe.clear_irq(kThermalWarnRise);
  EXPECT_FALSE(fe.state().irq);

  // Noise between 192 and 208 around the threshold: within the hysteresis, no new event.
  for (int i = 0; i < 40; ++i) fe.push_sample(i % 2 ? 192 : 208);
  s = fe.state();
  EXPECT_TRUE(s.warn);
  EXPECT_EQ(s.irq_status, 0);
  EXPECT_FALSE(s.irq);

  for (int i = 0; i < 8; ++i) fe.push_sample(189);  // below 200 - 10: clears once
  s = fe.state();
  EXPECT_FALSE(s.warn);
  EXPECT_EQ(s.irq_status, kThermalWarnFall);

  for (int i = 0; i < 8; ++i) fe.push_sample(320);  // crosses both trip points
  s = fe.state();
  EXPECT_TRUE(s.warn);
  EXPECT_TRUE(s.crit);
  EXPECT_EQ(s.irq_status, kThermalWarnFall | kThermalWarnRise | kThermalCritRise);
  fe.clear_irq(kThermalIrqAll);
  EXPECT_EQ(fe.state().irq_status, 0);
}

TEST(ThermalFrontEnd, EnableMaskGatesTheLevelNotTheStatus) {
  ThermalFrontEndConfig cfg;
  cfg.warn_threshold = 50;
  cfg.irq_enable = kThermalCritRise;  // warn events recorded but not signalled
  ThermalFrontEnd fe(cfg);
  fe.push_sample(60);
  EXPECT_EQ(fe.state().irq_status, kThermalWarnRise);
  EXPECT_FALSE(fe.state().irq);
  cfg.irq_enable = kThermalIrqAll;
  fe.configure(cfg);
  EXPECT_TRUE(fe.state().irq);  // level output: pending status shows as soon as it is enabled
}

TEST(ThermalFrontEnd, ResetClearsStateAndPrimesAgain) {
  ThermalFrontEndConfig cfg;
  cfg.warn_threshold = 50;
  ThermalFrontEnd fe(cfg);
  fe.push_sample(80);
  ASSERT_TRUE(fe.state().warn);
  fe.reset();
  auto s = fe.state();
  EXPECT_FALSE(s.primed);
  EXPECT_FALSE(s.warn);
  EXPECT_EQ(s.irq_status, 0);
  EXPECT_EQ(s.average, 0);
  fe.push_sample(20);
  EXPECT_EQ(fe.state().average, 20);  // primed again by the first sample after reset
  EXPECT_FALSE(fe.state().warn);
}

// The behaviour the RTL documents, in C++.
class ThermalModel {
 public:
  explicit ThermalModel(const ThermalFrontEndConfig& c) : cfg_(c) {}
  void push(uint16_t x) {
    if (!primed_) {
      ring_.fill(x);
      sum_ = static_cast<uint32_t>(x) * kWindow;
      primed_ = true;
    } else {
      sum_ = sum_ - ring_[ptr_] + x;
      ring_[ptr_] = x;
    }
    ptr_ = (ptr_ + 1) % kWindow;
    update(static_cast<uint16_t>(sum_ / kWindow));
  }
  uint16_t average() const { return static_cast<uint16_t>(sum_ / kWindow); }
  bool warn = false, crit = false;
  uint8_t status = 0;

 private:
  void update(uint16_t avg) {
    step(warn, avg, cfg_.warn_threshold, kThermalWarnRise, kThermalWarnFall);
    step(crit, avg, cfg_.crit_threshold, kThermalCritRise, kThermalCritFall);
  }
  void step(bool& trip, uint16_t avg, uint16_t thr, uint8_t rise, uint8_t fall) {
    const bool next = trip ? avg + cfg_.hysteresis >= thr : avg >= thr;
    if (next && !trip) status |= rise;
    if (!next && trip) status |= fall;
    trip = next;
  }
  ThermalFrontEndConfig cfg_;
  std::array<uint16_t, kWindow> ring_{};
  unsigned ptr_ = 0;
  uint32_t sum_ = 0;
  bool primed_ = false;
};

TEST(ThermalFrontEnd, RandomWalkMatchesModel) {
  ThermalFrontEndConfig cfg;
  cfg.warn_threshold = 2400;
  cfg.crit_threshold = 2800;
  cfg.hysteresis = 40;
  ThermalFrontEnd fe(cfg);
  ThermalModel model(cfg);
  std::mt19937 rng(2024);
  int temp = 2000, events = 0;
  for (int i = 0; i < 3000; ++i) {
    temp = std::clamp(temp + std::uniform_int_distribution<int>(-30, 32)(rng), 1500, 3200);
    const auto x = static_cast<uint16_t>(temp + std::uniform_int_distribution<int>(-25, 25)(rng));
    fe.push_sample(x);
    model.push(x);
    const auto s = fe.state();
    ASSERT_EQ(s.average, model.average()) << "sample " << i;
    ASSERT_EQ(s.warn, model.warn) << "sample " << i;
    ASSERT_EQ(s.crit, model.crit) << "sample " << i;
    ASSERT_EQ(s.irq_status, model.status) << "sample " << i;
    ASSERT_EQ(s.irq, s.irq_status != 0) << "sample " << i;
    if (s.irq_status != 0) {
      ++events;
      fe.clear_irq(s.irq_status);
      model.status = 0;
    }
  }
  EXPECT_GT(events, 2);  // the walk did cross the trip points
}

}  // namespace
}  // namespace npu::rtl
