// `npusim stress` and its classifier: a child that hangs comes out HANG, one that crashes CRASH, one whose
// check fails FAILURE, and the parent lives to print the summary; the default cases (scaled down) are all
// SUCCESS and --out writes the report; bad flags are one clear error.
#include "npu/mlts/stress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"

namespace {

using npu::mlts::classify;
using npu::mlts::run_child;
using npu::mlts::Verdict;
using npu::testing::CliRun;
using npu::testing::run_shell;

const std::string kStress =
    std::string(NPUSIM_BIN) + " stress --hw " + NPUSIM_SOURCE_DIR "/configs/npu/default.json";

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(StressClassifier, ASignalIsACrash) {
  const auto r = run_child({"/bin/sh", "-c", "echo partial; kill -SEGV $$"}, 10);
  const auto o = classify("crash", r, 10);
  EXPECT_EQ(o.verdict, Verdict::CRASH) << o.why;
  EXPECT_NE(o.why.find("signal 11"), std::string::npos) << o.why;
}

TEST(StressClassifier, OverTheWallLimitIsAHangAndIsKilled) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_child({"/bin/sh", "-c", "exec sleep 60"}, 0.5);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(classify("hang", r, 0.5).verdict, Verdict::HANG);
  EXPECT_LT(wall, 10.0) << "the watchdog did not kill the child";
}

TEST(StressClassifier, ExitStatusAndReportDecideSuccessOrFailure) {
  const std::string passing = R"({"case":"x","checks":[{"name":"held","passed":true}]})";
  const std::string failing = R"({"case":"x","checks":[{"name":"broke","passed":false,"detail":"1 != 2"}]})";
  EXPECT_EQ(classify("x", run_child({"/bin/sh", "-c", "echo '" + passing + "'"}, 10), 10).verdict,
            Verdict::SUCCESS);
  const auto bad_check = classify("x", run_child({"/bin/sh", "-c", "echo '" + failing + "'"}, 10), 10);
  EXPECT_EQ(bad_check.verdict, Verdict::FAILURE);
  EXPECT_NE(bad_check.why.find("broke (1 != 2)"), std::string::npos) << bad_check.why;
  EXPECT_EQ(classify("x", run_child({"/bin/sh", "-c", "echo '" + passing + "'; exit 3"}, 10), 10).verdict,
            Verdict::FAILURE);
  EXPECT_EQ(classify("x", run_child({"/bin/sh", "-c", "echo not json"}, 10), 10).verdict, Verdict::FAILURE);
  EXPECT_EQ(classify("x", run_child({"/nonexistent/binary"}, 10), 10).verdict, Verdict::FAILURE);
}

// The deliberate cases through the real command: the parent survives a hang and a crash and says so.
TEST(StressCli, DeliberateHangCrashAndFailureAreClassified) {
  const CliRun r = run_shell("NPUSIM_STRESS_TEST_CASES=1 " + kStress +
                             " --cases test-hang,test-crash,test-fail --timeout 2 --out stress_classifier");
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = nlohmann::json::parse(read("stress_classifier/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  ASSERT_EQ(j["cases"].size(), 3u);
  EXPECT_EQ(j["cases"][0]["verdict"], "HANG");
  EXPECT_EQ(j["cases"][1]["verdict"], "CRASH");
  EXPECT_EQ(j["cases"][2]["verdict"], "FAILURE");
  EXPECT_EQ(j["all_success"], false);
  EXPECT_NE(r.output.find("SUCCESS 0, FAILURE 1, HANG 1, CRASH 1"), std::string::npos) << r.output;
}

TEST(StressCli, ClassifierCasesAreHiddenWithoutTheVariable) {
  const CliRun r = run_shell("env -u NPUSIM_STRESS_TEST_CASES " + kStress + " --cases test-crash");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--cases: no stress case is named \"test-crash\""), std::string::npos) << r.output;
  const CliRun list = run_shell("env -u NPUSIM_STRESS_TEST_CASES " + kStress + " --list");
  EXPECT_EQ(list.status, 0);
  EXPECT_EQ(list.output.find("test-"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("client-abandon"), std::string::npos) << list.output;
}

TEST(StressCli, BadFlagsAreOneClearError) {
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"--cases inference,nope", "no stress case is named \"nope\""},
           {"--cases inference,inference", "\"inference\" is listed twice"},
           {"--scale 0", "--scale"},
           {"--timeout -1", "--timeout"},
           {"--set npu.channels=0", "npu.channels"},
           {"--hw /nonexistent.json", "/nonexistent.json"},
       }) {
    // No --hw of kStress's here: one of the cases names its own.
    const CliRun r = run_shell("(" + std::string(NPUSIM_BIN) + " stress " + args + " 2>&1 >/dev/null)");
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.output.find(want), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": " << r.output;
  }
}

// The soak runs in simulated time: the same seed gives the same counters, another seed other ones.
TEST(StressCli, SoakCountersAreDeterministic) {
  auto figures = [](const std::string& seed, const std::string& dir) {
    const CliRun r = run_shell(kStress + " --cases soak --soak 0.05 --seed " + seed + " --out " + dir);
    EXPECT_EQ(r.status, 0) << r.output;
    const auto j = nlohmann::json::parse(read(dir + "/summary.json"), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j["cases"][0]["figures"];
  };
  const auto first = figures("5", "soak_a"), again = figures("5", "soak_b"), other = figures("6", "soak_c");
  ASSERT_TRUE(first.contains("jobs_submitted")) << first.dump();
  EXPECT_EQ(first, again);
  EXPECT_NE(first["jobs_submitted"], other["jobs_submitted"]);
}

// Every default case, scaled down, is SUCCESS; the report pages are written.
TEST(StressCli, DefaultCasesScaledDownAreAllSuccess) {
  const CliRun r = run_shell(kStress + " --scale 0.05 --timeout 120 --out stress_default");
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(read("stress_default/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["all_success"], true) << r.output;
  EXPECT_EQ(j["cases"].size(), npu::mlts::stress_cases(false).size());
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "SUCCESS") << c.dump(1);
    EXPECT_FALSE(c["checks"].empty()) << c["name"];
  }
  const std::string html = read("stress_default/report.html");
  EXPECT_NE(html.find("client-abandon"), std::string::npos);
  EXPECT_NE(html.find("data-marks=\"10\""), std::string::npos) << "one wall-time bar per case";
}

}  // namespace
