// The regression runner itself (`npusim regress`): a moved stat fails the case and is named with its
// path, expected and measured values and tolerance; --bless writes expected stats that then pass; a bad
// case file is one error naming the JSON path.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/run_npusim.h"

namespace {

using npu::test::CliRun;
using npu::test::npusim;

const std::string kCase = NPUSIM_SOURCE_DIR "/tests/regress/net-quant8-phone";

nlohmann::json read(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Two stats perturbed beyond their tolerance (busy cycles +10 % against 1 %, MACs by one against exact)
// and one within it: the case fails naming exactly the two, each with expected, got and tolerance.
TEST(Regress, MovedStatsFailTheCaseAndAreEachNamed) {
  nlohmann::json expected = read(kCase + "/expected.json");
  ASSERT_TRUE(expected.contains("stats")) << "tests/regress/net-quant8-phone/expected.json";
  auto& stats = expected["stats"];
  const double busy = stats["npu.ch0.busy_cycles"].get<double>();
  const uint64_t macs = stats["npu.ch0.macs"].get<uint64_t>();
  const double latency = stats["result.latency_us"].get<double>();
  ASSERT_GT(busy, 0);
  ASSERT_GT(macs, 0u);
  stats["npu.ch0.busy_cycles"] = static_cast<uint64_t>(busy * 1.1);
  stats["npu.ch0.macs"] = macs + 1;
  stats["result.latency_us"] = latency * 1.001;  // inside the default 1 %
  write("perturbed.json", expected.dump(2));

  const CliRun r = npusim("regress " + kCase + " --expected perturbed.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL, 2 of"), std::string::npos) << r.output;
  EXPECT_NE(
      r.output.find("npu.ch0.busy_cycles: expected " + std::to_string(static_cast<uint64_t>(busy * 1.1)) +
                    ", got " + std::to_string(static_cast<uint64_t>(busy))),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(rel 0.01, abs 1e-06)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npu.ch0.macs: expected " + std::to_string(macs + 1) + ", got " +
                          std::to_string(macs) + " (-"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("tolerance ±0 (rel 0, abs 0)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("result.latency_us"), std::string::npos) << "within tolerance: " << r.output;
  EXPECT_NE(r.output.find("re-bless: npusim regress"), std::string::npos) << r.output;
}

// A stat that vanished from the run and a changed output are named too.
TEST(Regress, MissingStatAndChangedOutputAreNamed) {
  nlohmann::json expected = read(kCase + "/expected.json");
  expected["stats"]["npu.ch0.no_such_stat"] = 3;
  expected["stats"]["result.outputs_fnv1a"] = "0000000000000000";
  write("missing.json", expected.dump(2));
  const CliRun r = npusim("regress " + kCase + " --expected missing.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("npu.ch0.no_such_stat: expected 3, missing from this run"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("result.outputs_fnv1a: expected \"0000000000000000\", got \""), std::string::npos)
      << r.output;
}

// --bless writes this run's stats (with the default tolerances when there were none); they then pass.
TEST(Regress, BlessWritesExpectedStatsThatPass) {
  std::remove("blessed.json");
  const CliRun b = npusim("regress " + kCase + " --bless --expected blessed.json");
  ASSERT_EQ(b.status, 0) << b.output;
  const nlohmann::json blessed = read("blessed.json");
  ASSERT_FALSE(blessed.is_discarded());
  EXPECT_TRUE(blessed["tolerances"].contains("default"));
  EXPECT_TRUE(blessed["stats"].contains("npu.ch0.busy_cycles"));
  EXPECT_EQ(blessed["stats"], read(kCase + "/expected.json")["stats"]) << "the checked-in case is up to date";
  const CliRun r = npusim("regress " + kCase + " --expected blessed.json");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

// Three checked-in cases lacked counters added after their last bless and still passed. With --complete
// (as ctest runs the cases) a stat of the run that expected.json lacks fails the case, named; without
// it the case passes and says how many are new.
TEST(Regress, CompleteFailsOnStatsTheExpectedFileLacks) {
  nlohmann::json expected = read(kCase + "/expected.json");
  ASSERT_EQ(expected["stats"].erase("driver.jobs.submitted"), 1u);
  write("incomplete.json", expected.dump(2));
  const CliRun strict = npusim("regress " + kCase + " --expected incomplete.json --complete");
  EXPECT_EQ(strict.status, 1) << strict.output;
  EXPECT_NE(strict.output.find(
                "1 stats of this run are not in incomplete.json (--complete):\n  driver.jobs.submitted\n"),
            std::string::npos)
      << strict.output;
  const CliRun lax = npusim("regress " + kCase + " --expected incomplete.json");
  EXPECT_EQ(lax.status, 0) << lax.output;
  EXPECT_NE(lax.output.find("(1 new stats not in incomplete.json; --bless to add them)"), std::string::npos)
      << lax.output;
}

TEST(Regress, BadCaseFileIsOneErrorNamingTheJsonPath) {
  const std::string dir = "bad-case";
  ::mkdir(dir.c_str(), 0755);
  write(dir + "/case.json", R"({"hw": "x.json", "model": {"example": "net-quant8", "sead": 1}})");
  CliRun r = npusim("regress " + dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output,
            "npusim regress: bad-case/case.json: $.model.sead: unknown key (example, seed, file, inputs)\n");
  write(dir + "/case.json",
        R"({"hw": ")" NPUSIM_SOURCE_DIR R"(/configs/npu/default.json", "model": {"example": "resnet"}})");
  r = npusim("regress " + dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad-case/case.json: $.model.example: example: unknown name \"resnet\""),
            std::string::npos)
      << r.output;
  r = npusim("regress " + dir + "-absent");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad-case-absent/case.json: cannot open"), std::string::npos) << r.output;
}

}  // namespace
