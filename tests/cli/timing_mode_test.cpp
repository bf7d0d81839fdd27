// npu.timing.mode through the command line: a bad mode is one line naming the parameter (run and
// scenario), injected faults are met and recovered from the same way in both modes, and the scaled
// comparison (scripts/timing-compare --quick: the regress cases, two zoo models and two scenarios in both
// modes) stays within the published bounds: NPU cycles within 2 %, scenario ANTT, STP and fairness within
// 3 % and the same deadline misses. docs/sim.md "Fast mode" has the full table.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Output {
  int status = -1;
  std::string out;  // stdout and stderr
};

Output sh(const std::string& cmd) {
  Output r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const std::string kNpusim = NPUSIM_BIN;

TEST(TimingMode, RunRefusesAnUnknownModeInOneLine) {
  const auto r = sh(kNpusim +
                    " run --model zoo:mobilenet_v2_quant8 --set npu.functional=false --set "
                    "npu.timing.mode=loose");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("npu.timing.mode: expected one of \"exact\", \"fast\", got \"loose\""),
            std::string::npos)
      << r.out;
}

TEST(TimingMode, ScenarioRefusesABadQuantumInOneLine) {
  const auto r = sh(kNpusim + " scenario " NPUSIM_SOURCE_DIR
                              "/configs/scenarios/prema_mix.json --scale 0.01 "
                              "--set npu.timing.quantum_ns=-5");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("npu.timing.quantum_ns: expected a number in"), std::string::npos) << r.out;
}

// Regress cases are exact mode's figures: a case whose config selects fast mode is refused in one line
// naming the case and the parameter, and nothing is blessed; --allow-fast (scripts/timing-compare) runs it.
TEST(TimingMode, RegressRefusesACaseInFastMode) {
  const fs::path dir = fs::temp_directory_path() / ("regress_fast_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "case.json") << R"({"hw": ")" NPUSIM_SOURCE_DIR R"(/configs/npu/large.json",
    "set": ["npu.timing.mode=fast"], "model": {"example": "conv-float", "seed": 1}})";
  const auto r = sh(kNpusim + " regress " + dir.string() + " --bless");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("case.json: npu.timing.mode is \"fast\"; regress cases run in exact mode"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir / "expected.json"));
  // scripts/timing-compare's way in: --allow-fast runs it.
  const auto allowed = sh(kNpusim + " regress " + dir.string() + " --bless --allow-fast");
  EXPECT_EQ(allowed.status, 0) << allowed.out;
  EXPECT_TRUE(fs::exists(dir / "expected.json"));
  fs::remove_all(dir);
}

// A DMA error and a hang, injected from the config, strike the same way in both modes: the DMA error fails
// the job at the same descriptor, the hang is found by the watchdog, the channel reset and the job retried
// to completion; exit 4 (the run met faults) with the same fault counts.
TEST(TimingMode, InjectedFaultsStrikeAndRecoverTheSameInBothModes) {
  for (const std::string fault : {"dma_error", "hang"}) {
    nlohmann::json faults[2];
    std::string error[2];
    for (int fast = 0; fast < 2; ++fast) {
      const auto r =
          sh(kNpusim +
             " run --model zoo:mobilenet_v2_quant8 --set npu.functional=false --set "
             "npu.faults.kind=" +
             fault + " --set npu.faults.at_descriptor=5 --set npu.timing.mode=" + (fast ? "fast" : "exact") +
             " --json -q");
      EXPECT_EQ(r.status, 4) << fault << (fast ? " fast: " : " exact: ") << r.out;
      const auto brace = r.out.find('{');
      ASSERT_NE(brace, std::string::npos) << r.out;
      const auto j = nlohmann::json::parse(r.out.substr(brace), nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << r.out;
      error[fast] = j.value("error", "");
      faults[fast] = j["faults"];
    }
    EXPECT_EQ(faults[1], faults[0]) << fault;
    EXPECT_EQ(error[1], error[0]) << fault;
    if (fault == "hang") {
      EXPECT_EQ(error[0], "") << "the hang is recovered from";
      EXPECT_EQ(faults[0]["hangs"], 1);
    } else {
      EXPECT_NE(error[0].find("DMA fault at descriptor"), std::string::npos) << error[0];
      EXPECT_EQ(faults[0]["dma_faults"], 1);
    }
  }
}

double rel(const nlohmann::json& pair, const char* key) {
  const double e = pair["exact"][key].get<double>(), f = pair["fast"][key].get<double>();
  return e == 0 ? (f == 0 ? 0 : INFINITY) : std::fabs(f - e) / std::fabs(e);
}

TEST(TimingMode, ScaledComparisonStaysWithinTheBounds) {
  const fs::path out = fs::temp_directory_path() / ("timing_compare_" + std::to_string(getpid()) + ".json");
  const auto r = sh(std::string(NPUSIM_SOURCE_DIR "/scripts/timing-compare --build ") + NPUSIM_BUILD_ROOT +
                    " --quick --json " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  fs::remove(out);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_GE(j["regress"].size(), 4u);
  EXPECT_EQ(j["zoo"].size(), 2u);
  EXPECT_EQ(j["scenarios"].size(), 2u);
  for (const char* kind : {"regress", "zoo"})
    for (const auto& [name, pair] : j[kind].items()) {
      EXPECT_GT(pair["exact"]["npu_cycles"].get<double>(), 0) << name;
      EXPECT_LE(rel(pair, "npu_cycles"), 0.02) << kind << " " << name << ": " << pair.dump();
    }
  for (const auto& [name, pair] : j["scenarios"].items()) {
    for (const char* k : {"antt", "stp", "fairness"}) {
      ASSERT_TRUE(pair["exact"][k].is_number()) << name << " " << k;
      EXPECT_LE(rel(pair, k), 0.03) << name << " " << k << ": " << pair.dump();
    }
    EXPECT_EQ(pair["fast"]["deadline_misses"], pair["exact"]["deadline_misses"]) << name;
  }
}

}  // namespace
