// common/: the parameter schema, the stats tree and the fixed-point arithmetic everything shares.
#include <gtest/gtest.h>

#include <limits>

#include "../support/trace_check.h"
#include "npu/common/config.h"
#include "npu/common/fixed_point.h"
#include "npu/common/stats.h"
#include "npu/common/trace.h"

namespace {

using namespace npu;

struct Params {
  uint32_t channels;
  double mhz;
  std::string core;
  cfg::Schema schema;
  Params() {
    schema.u32("npu.channels", &channels, 4, "", "channels", 1, 16)
        .f64("npu.clock_mhz", &mhz, 1000.0, "MHz", "clock", 1, 5000)
        .choice("npu.core", &core, "tlm", {"tlm", "rtl"}, "core model");
  }
};

TEST(ConfigSchema, DefaultsOverlaysAndOverrides) {
  Params p;
  EXPECT_EQ(p.channels, 4u);
  ASSERT_TRUE(p.schema.apply(nlohmann::json::parse(R"({"npu": {"channels": 2}})"), "hw.json").ok());
  EXPECT_EQ(p.channels, 2u);
  EXPECT_EQ(p.mhz, 1000.0);
  ASSERT_TRUE(p.schema.set("npu.core=rtl").ok());
  EXPECT_EQ(p.core, "rtl");
  ASSERT_TRUE(p.schema.set("npu.clock_mhz=400.5").ok());
  EXPECT_EQ(p.mhz, 400.5);
}

// A run directory's config.json names the build that wrote it under "npusim"; read back as --hw the key is
// skipped, and anything but an object there is an error naming it.
TEST(ConfigSchema, TheBuildKeyIsSkipped) {
  Params p;
  ASSERT_TRUE(p.schema
                  .apply(nlohmann::json::parse(
                             R"({"npusim": {"version": "0.1.0", "git": "abc"}, "npu": {"channels": 2}})"),
                         "config.json")
                  .ok());
  EXPECT_EQ(p.channels, 2u);
  auto r = p.schema.apply(nlohmann::json::parse(R"({"npusim": "0.1.0"})"), "config.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "config.json: $.npusim: expected the object naming the npusim build that wrote the file, got "
            "\"0.1.0\"");
}

TEST(ConfigSchema, ErrorsNameTheJsonPathAndExpectation) {
  Params p;
  auto r = p.schema.apply(nlohmann::json::parse(R"({"npu": {"channels": 0}})"), "hw.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "hw.json: $.npu.channels: expected an integer in [1, 16], got 0");
  r = p.schema.apply(nlohmann::json::parse(R"({"npu": {"chanels": 2}})"), "hw.json");
  EXPECT_EQ(r.error(), "hw.json: $.npu.chanels: unknown parameter (did you mean npu.channels?)");
  r = p.schema.apply(nlohmann::json::parse(R"({"npu": 3})"), "hw.json");
  EXPECT_EQ(r.error(), "hw.json: $.npu: expected an object, got 3");
  r = p.schema.set("npu.core=vhdl");
  EXPECT_EQ(r.error(), "--set npu.core: expected one of \"tlm\", \"rtl\", got \"vhdl\"");
  EXPECT_FALSE(p.schema.set("nonsense").ok());
  EXPECT_EQ(p.channels, 4u) << "a rejected value leaves the parameter as it was";
}

// Bytes that are not UTF-8 in a --set value (or path) give an error, not a nlohmann exception from the
// message's dump(); the message is valid UTF-8 and a long value is cut on a character boundary.
TEST(ConfigSchema, SetValueThatIsNotUtf8IsAnErrorNotAnException) {
  Params p;
  const auto valid_utf8 = [](const std::string& s) {
    try {
      (void)nlohmann::json(s).dump();
      return true;
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  };
  for (const std::string& set : {std::string("npu.core=\xff\xfe"), std::string("npu.channels=\xc3"),
                                 std::string("npu.chan\xffnels=2"), std::string("\xff")}) {
    Result<void> r;
    ASSERT_NO_THROW(r = p.schema.set(set)) << set;
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(valid_utf8(r.error())) << r.error();
  }
  // 200 two-byte characters: cut to about 80 bytes, never inside a character.
  std::string long_value;
  for (int i = 0; i < 200; ++i) long_value += "\xc3\xa9";
  Result<void> r;
  ASSERT_NO_THROW(r = p.schema.set("npu.core=" + long_value));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(valid_utf8(r.error())) << r.error();
  EXPECT_LT(r.error().size(), 150u) << r.error();
  EXPECT_NE(r.error().find("\"\xc3\xa9\xc3\xa9"), std::string::npos) << r.error();
  EXPECT_EQ(p.core, "tlm");
}

TEST(ConfigSchema, ExplainListsDefaultUnitAndDescription) {
  Params p;
  EXPECT_NE(p.schema.explain().find("npu.clock_mhz = 1000 [MHz]  — clock"), std::string::npos);
}

TEST(StatsTree, NestsByDottedPath) {
  stats::Registry r;
  r.counter("npu.ch0.macs", "MAC", "macs") = 42;
  r.value("npu.dram.busy_ns", "ns", "busy") = 1.5;
  const auto j = r.to_json();
  EXPECT_EQ(j["npu"]["ch0"]["macs"], 42);
  EXPECT_EQ(j["npu"]["dram"]["busy_ns"], 1.5);
  EXPECT_EQ(r.to_json(true)["npu"]["ch0"]["macs"]["unit"], "MAC");
  EXPECT_THROW(r.counter("npu.ch0.macs", "", ""), std::logic_error);
}

// Spans recorded out of order and partly overlapping on one track (two jobs waiting in one queue): the
// file is time-ordered and the overlapping span moves to an overflow row, so Perfetto nests every row.
TEST(Trace, OverlappingSpansGetOverflowRowsAndTheFileIsTimeOrdered) {
  trace::Tracer t;
  const uint32_t q = t.track("driver", "queue NORMAL");
  t.span(q, "job 2", 50, 100);  // 50..150 partly overlaps job 1
  t.span(q, "job 1", 0, 100);   // 0..100, recorded later (at its end)
  t.span(q, "inner", 10, 20);   // nests in job 1
  t.instant(q, "mark", 5);
  t.counter("npu", "power_w", 0, 1.5);
  const auto doc = t.to_json();
  EXPECT_EQ(test::trace_problems(doc), std::vector<std::string>{});
  EXPECT_EQ(test::trace_track_names(doc), (std::set<std::string>{"queue NORMAL", "queue NORMAL (2)"}));
  std::vector<std::string> order;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] != "M") order.push_back(e["name"]);
  EXPECT_EQ(order, (std::vector<std::string>{"job 1", "power_w", "mark", "inner", "job 2"}));
  // The checker itself catches a partial overlap on one row.
  auto broken = doc;
  for (auto& e : broken["traceEvents"])
    if (e.value("name", "") == "job 2") e["tid"] = 1;
  EXPECT_EQ(test::trace_problems(broken).size(), 1u);
}

// TFLite's reference values: 0.5 = 2^30 · 2^(0 − 31) → (1073741824, 0); 1.5 = 0.75 · 2 → (1610612736, 1).
TEST(FixedPoint, QuantizeMultiplier) {
  auto q = fx::quantize_multiplier(0.5);
  EXPECT_EQ(q.multiplier, 1073741824);
  EXPECT_EQ(q.shift, 0);
  q = fx::quantize_multiplier(1.5);
  EXPECT_EQ(q.multiplier, 1610612736);
  EXPECT_EQ(q.shift, 1);
}

// 100 · 0.3 = 30; −7 · 0.3 = −2.1 → −2; 7 · 0.5 = 3.5 → 4 (the rounding nudge), while gemmlowp's
// negative nudge (1 − 2^30) makes −7 · 0.5 = (−3.5·2^31 − 2^30 + 1) / 2^31, truncated to −3.
// A huge left shift saturates the shifted accumulator (5 · 2^31 → INT32_MAX), then · 0.5 → 2^30.
TEST(FixedPoint, MultiplyRoundsLikeTflite) {
  EXPECT_EQ(fx::multiply_by_quantized_multiplier(100, fx::quantize_multiplier(0.3)), 30);
  EXPECT_EQ(fx::multiply_by_quantized_multiplier(-7, fx::quantize_multiplier(0.3)), -2);
  EXPECT_EQ(fx::multiply_by_quantized_multiplier(7, fx::quantize_multiplier(0.5)), 4);
  EXPECT_EQ(fx::multiply_by_quantized_multiplier(-7, fx::quantize_multiplier(0.5)), -3);
  EXPECT_EQ(fx::multiply_by_quantized_multiplier(5, {1 << 30, 100}), 1 << 30);
  EXPECT_EQ(fx::rounding_divide_by_pot(5, 1), 3);
  EXPECT_EQ(fx::rounding_divide_by_pot(-5, 1), -3);
}

// Found by fuzzing: a requantisation shift of INT32_MIN (read from SRAM) was negated, a signed overflow.
// Any shift past 31 either way acts as 31 does.
TEST(FixedPoint, ShiftsPastThirtyOneActAsThirtyOne) {
  const int32_t mult = 1 << 30;
  for (int32_t acc : {0, 1, -1, 12345, -12345, 1 << 30, std::numeric_limits<int32_t>::min()}) {
    const int32_t right = fx::multiply_by_quantized_multiplier(acc, {mult, -31});
    const int32_t left = fx::multiply_by_quantized_multiplier(acc, {mult, 31});
    for (int32_t s : {-32, -1000, std::numeric_limits<int32_t>::min()})
      EXPECT_EQ(fx::multiply_by_quantized_multiplier(acc, {mult, s}), right) << acc << " shift " << s;
    for (int32_t s : {32, 1000, std::numeric_limits<int32_t>::max()})
      EXPECT_EQ(fx::multiply_by_quantized_multiplier(acc, {mult, s}), left) << acc << " shift " << s;
  }
}

TEST(FixedPoint, ActivationRanges) {
  // RELU6 on scale 0.1, zero point 128: [128, 128 + 60].
  const auto r = fx::quantized_activation_range(fx::FusedActivation::RELU6, 0.1f, 128, 0, 255);
  EXPECT_EQ(r.lo, 128);
  EXPECT_EQ(r.hi, 188);
}

// Any scale, even 0 (a float tensor), NaN or one so small that 6/scale overflows, gives a defined range.
TEST(FixedPoint, ActivationRangeIsDefinedForAnyScale) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (float scale : {0.0f, -1.0f, nan, inf}) {
    for (auto act : {fx::FusedActivation::RELU, fx::FusedActivation::RELU6, fx::FusedActivation::RELU1}) {
      const auto r = fx::quantized_activation_range(act, scale, 3, -128, 127);
      EXPECT_EQ(r.lo, -128) << scale;
      EXPECT_EQ(r.hi, 127) << scale;
    }
  }
  // A tiny positive scale saturates: RELU6 on zero point 3 is [3, qmax], RELU1 the whole range.
  const auto r6 = fx::quantized_activation_range(fx::FusedActivation::RELU6, 1e-40f, 3, -128, 127);
  EXPECT_EQ(r6.lo, 3);
  EXPECT_EQ(r6.hi, 127);
  const auto r1 = fx::quantized_activation_range(fx::FusedActivation::RELU1, 1e-40f, 3, -128, 127);
  EXPECT_EQ(r1.lo, -128);
  EXPECT_EQ(r1.hi, 127);
  // A huge zero point with a normal scale stays within the type too.
  const auto rz = fx::quantized_activation_range(fx::FusedActivation::RELU6, 0.1f, 2147483600, 0, 255);
  EXPECT_EQ(rz.lo, 255);
  EXPECT_EQ(rz.hi, 255);
}

}  // namespace
