// ThermalSensor: trip points raise once per upward crossing and re-arm only below the hysteresis band.
#include "npu/sim/power/thermal_sensor.h"

#include <gtest/gtest.h>

#include <vector>

#include "npu/common/config.h"

namespace npu::sim {
namespace {

// One trip at 70.000 °C with 2.000 °C hysteresis: raised at ≥ 70000 m°C, re-armed below 68000 m°C.
ThermalSensor one_trip(std::vector<TripEvent>* events) {
  auto s = ThermalSensor::create({{"hot", 70000, 2000}});
  EXPECT_TRUE(s) << s.error();
  ThermalSensor sensor = std::move(s).value();
  sensor.on_trip([events](const TripEvent& e) { events->push_back(e); });
  return sensor;
}

TEST(ThermalSensor, UpwardCrossingRaisesOnce) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  EXPECT_EQ(s.update(60.0), 0u);
  EXPECT_EQ(s.update(69.999), 0u);
  EXPECT_EQ(s.update(70.0), 1u);  // 70000 ≥ 70000
  EXPECT_EQ(s.update(71.0), 0u);  // still above: no second raise
  EXPECT_EQ(s.update(90.0), 0u);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].trip, 0u);
  EXPECT_EQ(events[0].name, "hot");
  EXPECT_EQ(events[0].temp_mc, 70000);
  EXPECT_EQ(s.raised_count(0), 1u);
  EXPECT_EQ(s.tripped(), 1u);
}

TEST(ThermalSensor, JitterInsideTheHysteresisBandDoesNotReraise) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  s.update(70.5);
  // 68.000 is threshold − hysteresis exactly: not below it, so the trip stays disarmed.
  for (double t : {69.0, 70.4, 68.001, 72.0, 68.0, 70.0, 69.5, 71.0}) EXPECT_EQ(s.update(t), 0u) << t;
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(s.tripped(), 1u);
}

TEST(ThermalSensor, FallingBelowTheBandRearms) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  s.update(71.0);
  s.update(67.999);  // 67999 < 68000: re-armed
  EXPECT_EQ(s.tripped(), 0u);
  EXPECT_EQ(s.update(69.9), 0u);
  EXPECT_EQ(s.update(70.2), 1u);
  EXPECT_EQ(events.size(), 2u);
  EXPECT_EQ(s.raised_count(0), 2u);
}

TEST(ThermalSensor, FourConfiguredTripsRaiseInOrderOnAJump) {
  cfg::Schema schema;
  ThermalConfig c;
  c.declare(schema);  // light 65, moderate 75, severe 85, critical 95 °C
  auto made = ThermalSensor::from_config(c);
  ASSERT_TRUE(made) << made.error();
  ThermalSensor s = std::move(made).value();
  ASSERT_EQ(s.num_trips(), 4u);
  EXPECT_EQ(s.trip(3).name, "critical");
  EXPECT_EQ(s.trip(3).threshold_mc, 95000);
  EXPECT_EQ(s.temp_mc(), 25000);  // reads ambient before the first sample
  std::vector<size_t> order;
  s.on_trip([&](const TripEvent& e) {
    order.push_back(e.trip);
    EXPECT_EQ(s.temp_mc(), e.temp_mc);  // the register already holds the sample
  });
  EXPECT_EQ(s.update(90.0), 0b0111u);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));
  // Cooling to 80 re-arms severe only (80 < 85 − 2); moderate and light stay tripped.
  s.update(80.0);
  EXPECT_EQ(s.tripped(), 0b0011u);
  EXPECT_EQ(s.update(96.0), 0b1100u);
}

TEST(ThermalSensor, PendingLatchesUntilAcknowledged) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  s.update(75.0);
  s.update(60.0);  // re-armed; the raise is still pending
  EXPECT_EQ(s.tripped(), 0u);
  EXPECT_EQ(s.pending(), 1u);
  s.acknowledge(1u);
  EXPECT_EQ(s.pending(), 0u);
}

TEST(ThermalSensor, TemperatureRegisterIsRoundedMilliCelsius) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  s.update(36.6004);
  EXPECT_EQ(s.temp_mc(), 36600);
  s.update(36.6006);
  EXPECT_EQ(s.temp_mc(), 36601);
  s.update(-10.25);
  EXPECT_EQ(s.temp_mc(), -10250);
}

TEST(ThermalSensor, TripsCanBeReprogrammedAndAreValidated) {
  std::vector<TripEvent> events;
  ThermalSensor s = one_trip(&events);
  ASSERT_TRUE(s.set_trip(0, 50000, 500));
  EXPECT_EQ(s.update(50.0), 1u);
  EXPECT_FALSE(s.set_trip(1, 50000, 500));
  EXPECT_FALSE(s.set_trip(0, 50000, -1));
  EXPECT_FALSE(ThermalSensor::create({{"bad", 1000, -5}}));
  EXPECT_FALSE(ThermalSensor::create(std::vector<TripPoint>(33, TripPoint{"t", 0, 0})));
}

}  // namespace
}  // namespace npu::sim
