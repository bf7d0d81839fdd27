// Hardware config files as users write them: the three presets, a preset plus overrides through "base",
// and one test per kind of bad input, each a single error naming the file (or --set) and the JSON path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "npu/system/system.h"

namespace {

using npu::system::load_system_config;

const std::string kPresets = NPUSIM_SOURCE_DIR "/configs/npu/";

// ctest runs the cases in parallel, each in its own process: every case writes its files into a
// directory of its own (the process moves there once), so that "hw.json" keeps its short name in errors.
void write(const std::string& path, const std::string& text) {
  static const bool in_own_dir = [] {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    const auto dir =
        std::filesystem::path("config_test_files") / (std::string(t->test_suite_name()) + "." + t->name());
    std::filesystem::create_directories(dir);
    std::filesystem::current_path(dir);
    return true;
  }();
  (void)in_own_dir;
  std::ofstream(path) << text;
}

// The error of loading `text` as hw.json (with `sets`); the test fails if it loads.
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  write("hw.json", text);
  auto r = load_system_config("hw.json", sets);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().find('\n'), std::string::npos) << "one line: " << r.error();
  return r.error();
}

TEST(Presets, PhoneClassDefault) {
  auto c = load_system_config(kPresets + "default.json", {});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->npu.channels, 4u);
  EXPECT_EQ(c->npu.channel.array_rows, 16u);
  EXPECT_DOUBLE_EQ(c->npu.clock_mhz(), 1000.0);
  EXPECT_EQ(c->npu.dram.size_mib, 12288u);
}

// edge-small and large state only what differs from default.json; the rest is inherited.
TEST(Presets, EdgeSmallIsThePhonePresetCutDown) {
  auto c = load_system_config(kPresets + "edge-small.json", {});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->npu.channels, 1u);
  EXPECT_EQ(c->npu.channel.array_cols, 8u);
  EXPECT_EQ(c->npu.channel.sram_kib, 128u);
  EXPECT_DOUBLE_EQ(c->npu.clock_mhz(), 400.0);
  EXPECT_DOUBLE_EQ(c->npu.dram.bandwidth_gbps, 6.4);
  EXPECT_EQ(c->npu.channel.dma_bytes_per_cycle, 32u) << "inherited from default.json";
  EXPECT_EQ(c->host.cpu_gmacs, 8.0) << "inherited from default.json";
}

TEST(Presets, LargeIsThePhonePresetGrown) {
  auto c = load_system_config(kPresets + "large.json", {});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->npu.channels, 8u);
  EXPECT_EQ(c->npu.channel.array_rows, 32u);
  EXPECT_DOUBLE_EQ(c->npu.clock_mhz(), 1200.0);
  EXPECT_EQ(c->npu.power.node, "5nm");
  EXPECT_DOUBLE_EQ(c->npu.dram.latency_ns, 100.0) << "inherited from default.json";
}

// A user config on top of a preset, then --set on top of that: later layers win.
TEST(Presets, UserConfigOnAPresetThenSetOverrides) {
  write("mine.json", R"({"base": ")" + kPresets + R"(large.json", "npu": {"channels": 2}})");
  auto c = load_system_config("mine.json", {"npu.channel.sram.kib=1024"});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->npu.channels, 2u);
  EXPECT_EQ(c->npu.channel.sram_kib, 1024u);
  EXPECT_EQ(c->npu.channel.array_rows, 32u);
}

TEST(ConfigErrors, UnknownKeyNamesItsJsonPath) {
  EXPECT_EQ(error_of(R"({"npu": {"dram": {"bandwith_gbps": 10}}})"),
            "hw.json: $.npu.dram.bandwith_gbps: unknown parameter (did you mean npu.dram.bandwidth_gbps?)");
}

TEST(ConfigErrors, WrongTypeNamesWhatWasExpected) {
  EXPECT_EQ(error_of(R"({"npu": {"channels": "four"}})"),
            "hw.json: $.npu.channels: expected an integer in [1, 16], got \"four\"");
}

TEST(ConfigErrors, OutOfRangeNamesTheRange) {
  EXPECT_EQ(error_of(R"({"npu": {"dram": {"bandwidth_gbps": 0}}})"),
            "hw.json: $.npu.dram.bandwidth_gbps: expected a number in [0.1, 10000], got 0");
}

TEST(ConfigErrors, ChoiceListsTheAllowedValues) {
  EXPECT_EQ(error_of(R"({"npu": {"power": {"node": "14nm"}}})"),
            "hw.json: $.npu.power.node: expected one of \"7nm\", \"5nm\", \"3nm\", got \"14nm\"");
}

TEST(ConfigErrors, ValueWhereAnObjectBelongs) {
  EXPECT_EQ(error_of(R"({"npu": {"channel": 3}})"), "hw.json: $.npu.channel: expected an object, got 3");
}

TEST(ConfigErrors, InvalidJsonNamesTheFile) {
  EXPECT_NE(error_of(R"({"npu": {"channels": 2,}})").find("hw.json: not valid JSON"), std::string::npos);
}

TEST(ConfigErrors, MissingFileIsNamed) {
  auto r = load_system_config("no-such-hw.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("no-such-hw.json: cannot open", 0), 0u) << r.error();
}

TEST(ConfigErrors, RuleAcrossParametersNamesTheKeyAtFault) {
  EXPECT_EQ(error_of(R"({"npu": {"dram": {"size_mib": 1024}, "weight_memory": {"mib": 2048}}})"),
            "hw.json: npu.weight_memory.mib: 2048 MiB must be below npu.dram.size_mib (1024 MiB)");
}

// A thermal runaway armed at a descriptor strikes through that channel: channel 9 of 4 overflowed the
// NPU's channel table. Armed by time it strikes no channel.
TEST(ConfigErrors, ThermalRunawayAtADescriptorNeedsAChannelThatExists) {
  EXPECT_EQ(error_of("{}", {"npu.faults.kind=thermal_runaway", "npu.faults.channel=9"}),
            "hw.json: npu.faults.channel: channel 9 does not exist (4 channels)");
  write("hw.json", "{}");
  EXPECT_TRUE(load_system_config("hw.json", {"npu.faults.kind=thermal_runaway", "npu.faults.channel=9",
                                             "npu.faults.trigger=time"})
                  .ok());
}

// A value nested deeper than any config needs (the outer object is level 1, so the 64th bracket is
// level 65, column 8 + 64), and a number no double holds: one error each.
TEST(ConfigErrors, DeepNestingAndHugeNumbersAreOneError) {
  const std::string deep = error_of("{\"npu\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_EQ(deep, "hw.json: not valid JSON: nested deeper than 64 levels (line 1, column 72)");
  EXPECT_EQ(error_of(R"({"npu": {"channels": 1e999}})"),
            "hw.json: not valid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(error_of("{}", {"npu.channels=" + std::string(1000, '[')}),
            "--set npu.channels: nested deeper than 64 levels (line 1, column 65)");
}

TEST(ConfigErrors, BadBaseIsNamed) {
  EXPECT_EQ(error_of(R"({"base": 7})"),
            "hw.json: $.base: expected the path of a config file (relative to this one), got 7");
  const std::string e = error_of(R"({"base": "absent.json"})");
  EXPECT_EQ(e.rfind("absent.json: cannot open", 0), 0u) << e;
  EXPECT_NE(e.find("(the base of hw.json)"), std::string::npos) << e;
}

TEST(ConfigErrors, BaseCycleIsRefused) {
  write("a.json", R"({"base": "b.json"})");
  write("b.json", R"({"base": "a.json"})");
  auto r = load_system_config("a.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "b.json: $.base: the bases make a cycle: a.json -> b.json -> a.json");
}

// A file naming itself by another spelling ("./self.json", "sub/../self.json") was followed until the path
// was too long: a 4.2 MB error line. Files are compared as the file system names them.
TEST(ConfigErrors, BaseNamingItselfIsOneShortLine) {
  write("self.json", R"({"base": "./self.json"})");
  std::filesystem::create_directories("sub");
  auto r = load_system_config("self.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "self.json: $.base: the bases make a cycle: self.json -> ./self.json");
  write("c.json", R"({"base": "sub/../d.json"})");
  write("d.json", R"({"base": "./c.json"})");
  r = load_system_config("c.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "sub/../d.json: $.base: the bases make a cycle: c.json -> sub/../d.json -> sub/.././c.json");
}

TEST(ConfigErrors, ErrorInABaseNamesThatFile) {
  write("base-bad.json", R"({"npu": {"channels": 0}})");
  EXPECT_EQ(error_of(R"({"base": "base-bad.json"})"),
            "base-bad.json: $.npu.channels: expected an integer in [1, 16], got 0 (the base of hw.json)");
}

TEST(SetErrors, UnknownPathIsNamed) {
  EXPECT_EQ(error_of("{}", {"npu.chanels=2"}),
            "--set npu.chanels=2: unknown parameter npu.chanels (did you mean npu.channels?) (see npusim "
            "config --explain)");
}

TEST(SetErrors, BadValueNamesWhatWasExpected) {
  EXPECT_EQ(error_of("{}", {"npu.channel.sram.kib=lots"}),
            "--set npu.channel.sram.kib: expected an integer in [16, 65536], got \"lots\"");
}

TEST(SetErrors, OutOfRangeValue) {
  EXPECT_EQ(error_of("{}", {"npu.channels=17"}),
            "--set npu.channels: expected an integer in [1, 16], got 17");
}

TEST(SetErrors, MissingEqualsSign) {
  EXPECT_EQ(error_of("{}", {"npu.channels"}), "--set npu.channels: expected path=value, e.g. npu.channels=2");
}

TEST(SetErrors, ObjectPathIsNotAParameter) {
  EXPECT_EQ(error_of("{}", {"npu.dram=1"}),
            "--set npu.dram=1: unknown parameter npu.dram (see npusim config --explain)");
}

// npu.timing (docs/sim.md "Fast mode"): exact unless asked; a bad mode or quantum is one line naming it.
TEST(Timing, ExactIsTheDefaultAndFastIsSelectable) {
  auto exact = load_system_config(kPresets + "default.json", {});
  ASSERT_TRUE(exact.ok()) << exact.error();
  EXPECT_EQ(exact->npu.timing.mode, "exact");
  EXPECT_FALSE(exact->npu.timing.fast());
  EXPECT_EQ(exact->npu.timing.quantum_ns, 1000.0);
  auto fast =
      load_system_config(kPresets + "default.json", {"npu.timing.mode=fast", "npu.timing.quantum_ns=250"});
  ASSERT_TRUE(fast.ok()) << fast.error();
  EXPECT_TRUE(fast->npu.timing.fast());
  EXPECT_EQ(fast->npu.timing.quantum_ns, 250.0);
}

TEST(Timing, UnknownModeIsRefusedNamingTheParameter) {
  EXPECT_EQ(error_of(R"({"npu": {"timing": {"mode": "loose"}}})"),
            "hw.json: $.npu.timing.mode: expected one of \"exact\", \"fast\", got \"loose\"");
  EXPECT_EQ(error_of("{}", {"npu.timing.mode=turbo"}),
            "--set npu.timing.mode: expected one of \"exact\", \"fast\", got \"turbo\"");
}

TEST(Timing, QuantumOutOfRangeIsRefusedWithTheRange) {
  EXPECT_EQ(error_of("{}", {"npu.timing.quantum_ns=0"}),
            "--set npu.timing.quantum_ns: expected a number in [1, 1e+06], got 0");
  EXPECT_EQ(error_of(R"({"npu": {"timing": "fast"}})"),
            "hw.json: $.npu.timing: expected an object, got \"fast\"");
}

}  // namespace
