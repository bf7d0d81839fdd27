// The command line in daily use: a run without --outputs, "did you mean" for mistyped names,
// shipped configs by name and from copies, run directories that are all-or-nothing, Ctrl-C on long
// commands, the device-memory hint, quantised example inputs, the two latency clocks, zoo list columns,
// `config --hw`, stats.txt and command.txt.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/run_npusim.h"

namespace {

namespace fs = std::filesystem;
using npu::test::CliRun;
using npu::test::npusim;

const std::string kConfigs = NPUSIM_SOURCE_DIR "/configs";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Files whose name starts with `prefix` in the current folder (the run directories' hidden siblings).
std::vector<std::string> entries_starting(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("."))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().filename().string());
  return out;
}

void example() { ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0); }
const std::string kIo = " --model conv-quant8.model.json --inputs conv-quant8.inputs.json";

// --- 1: a run without --outputs ------------------------------------------------------------------------

TEST(Daily, RunWithoutOutputsPrintsTheOutputsShapesAndSaysTheyWereNotWritten) {
  example();
  const CliRun r = npusim("run" + kIo);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "outputs         not written (give --outputs FILE or --out DIR"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "TENSOR_QUANT8_ASYMM [")) << "the outputs' shapes\n" << r.output;
  const CliRun j = npusim("run --json" + kIo);
  ASSERT_EQ(j.status, 0) << j.output;
  EXPECT_FALSE(nlohmann::json::parse(j.output).contains("outputs")) << "no file written\n" << j.output;
}

TEST(Daily, ABadModelIsBlamedBeforeAnyFlag) {
  std::ofstream("bad.model.json") << "{\"operands\": 3}";
  const CliRun r = npusim("run --model bad.model.json --stats-meta");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_TRUE(contains(r.output, "bad.model.json")) << r.output;
  EXPECT_FALSE(contains(r.output, "--stats-meta")) << r.output;
}

// --- 5: did you mean -----------------------------------------------------------------------------------

TEST(Daily, MistypedSubcommandAndParameterGetTheNearestName) {
  const CliRun sub = npusim("rnu --model zoo:x");
  EXPECT_EQ(sub.status, 2);
  EXPECT_EQ(lines(sub.output), 1) << sub.output;
  EXPECT_TRUE(contains(sub.output, "rnu: no such command (did you mean run?)")) << sub.output;
  const CliRun set = npusim("config --set npu.chanels=2");
  EXPECT_EQ(set.status, 1);
  EXPECT_EQ(lines(set.output), 1) << set.output;
  EXPECT_TRUE(contains(set.output, "unknown parameter \"npu.chanels\" (did you mean npu.channels?)") ||
              contains(set.output, "unknown parameter npu.chanels (did you mean npu.channels?)"))
      << set.output;
  std::ofstream("typo.json") << R"({"npu": {"chanels": 2}})";
  const CliRun file = npusim("config --hw typo.json");
  EXPECT_TRUE(contains(file.output, "(did you mean npu.channels?)")) << file.output;
}

// --- 4: shipped configs by name and from copies ---------------------------------------------------------

TEST(Daily, ShippedNamesResolveAndCopiesFallBackToTheShippedBase) {
  const CliRun large = npusim("config --hw large");
  ASSERT_EQ(large.status, 0) << large.output;
  const auto want = nlohmann::json::parse(npusim("config --hw " + kConfigs + "/npu/large.json").output);
  EXPECT_EQ(nlohmann::json::parse(large.output), want);
  // A preset copied elsewhere keeps its "base": "default.json" working.
  fs::create_directories("copies");
  fs::copy_file(kConfigs + "/npu/large.json", "copies/my_hw.json", fs::copy_options::overwrite_existing);
  const CliRun copy = npusim("config --hw copies/my_hw.json");
  ASSERT_EQ(copy.status, 0) << copy.output;
  EXPECT_EQ(nlohmann::json::parse(copy.output), want);
  // A copied scenario's "../npu/default.json" and a shipped scenario by name: both load (the bad --set is
  // refused after the hardware is found, before any run).
  fs::copy_file(kConfigs + "/scenarios/camera_llm.json", "copies/scene.json",
                fs::copy_options::overwrite_existing);
  for (const std::string& s : {std::string("copies/scene.json"), std::string("camera_llm")}) {
    const CliRun r = npusim("scenario " + s + " --set npu.chanels=2");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "unknown parameter")) << s << "\n" << r.output;
  }
  // A mistyped name says what is shipped.
  const CliRun typo = npusim("config --hw larg");
  EXPECT_EQ(typo.status, 1);
  EXPECT_TRUE(contains(typo.output,
                       "larg: no such file, nor a shipped npu config of that name (did you mean "
                       "large?) (shipped: default, edge-small, large)"))
      << typo.output;
}

// --- 2 and 13: run directories --------------------------------------------------------------------------

TEST(Daily, RunDirectoryHoldsOneRunOnlyWithStatsTextAndCommand) {
  example();
  ASSERT_EQ(npusim("run" + kIo + " --out d").status, 0);
  EXPECT_TRUE(fs::is_regular_file("d/outputs.json"));
  std::ofstream("d/notes.txt") << "mine";  // a user's file is kept
  // A failing execution: its summary, and no outputs.json of the run before.
  const CliRun failed = npusim("run" + kIo + " --set npu.faults.kind=dma_error --out d");
  EXPECT_EQ(failed.status, 4) << failed.output;
  EXPECT_FALSE(fs::exists("d/outputs.json")) << "the first run's outputs beside a failed summary";
  EXPECT_TRUE(nlohmann::json::parse(read("d/summary.json")).contains("error"));
  EXPECT_EQ(read("d/notes.txt"), "mine");
  // A run refused before it starts leaves the directory as it was and no sibling behind.
  const std::string before = read("d/summary.json");
  EXPECT_EQ(npusim("run" + kIo + " --set npu.channels=0 --out d").status, 1);
  EXPECT_EQ(read("d/summary.json"), before);
  EXPECT_TRUE(entries_starting(".d.partial").empty());
  // stats.txt: stats.json flat, one greppable line per leaf; command.txt: version and command line.
  ASSERT_EQ(npusim("run" + kIo + " --out d").status, 0);
  const auto stats = nlohmann::json::parse(read("d/stats.json"));
  const std::string text = read("d/stats.txt");
  const std::string cycles = std::to_string(stats["hal"]["execution"]["npu_cycles"].get<uint64_t>());
  EXPECT_TRUE(contains(text, "\nhal.execution.npu_cycles " + cycles + " cycles # ")) << text.substr(0, 400);
  const std::string command = read("d/command.txt");
  EXPECT_EQ(command.rfind("npusim ", 0), 0u) << command;
  EXPECT_TRUE(
      contains(command, " run --model conv-quant8.model.json --inputs conv-quant8.inputs.json --out d"))
      << command;
  EXPECT_TRUE(contains(read("d/summary.json"), "\"command\"")) << "the summary names the command too";
}

// --- 3: Ctrl-C ----------------------------------------------------------------------------------------

struct Stopped {
  int status = 0;
  std::string err;
};

// Starts npusim with `args`, waits until `ready()` holds (at most 60 s) and `after` more, sends SIGINT.
Stopped interrupt(const std::vector<std::string>& args, const std::function<bool()>& ready,
                  std::chrono::milliseconds after) {
  const std::string err_file = "stopped.err";
  const pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen(err_file.c_str(), "w", stderr);
    std::vector<char*> argv = {const_cast<char*>(NPUSIM_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(NPUSIM_BIN, argv.data());
    _exit(127);
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (!ready() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(after);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  return {status, read(err_file)};
}

void expect_interrupted(const Stopped& s, const std::string& what) {
  ASSERT_TRUE(WIFEXITED(s.status)) << what << ": killed by the signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(s.status), 130) << what << "\n" << s.err;
  EXPECT_EQ(lines(s.err), 1) << what << "\n" << s.err;
  EXPECT_TRUE(contains(s.err, "interrupted")) << what << "\n" << s.err;
}

TEST(Daily, CtrlCOnScenarioBenchAndStressSaysSoAndLeavesNothing) {
  auto staging = [] { return !entries_starting(".sc.partial").empty(); };
  const Stopped sc =
      interrupt({"scenario", "camera_llm", "--out", "sc"}, staging, std::chrono::milliseconds(800));
  expect_interrupted(sc, "scenario");
  EXPECT_FALSE(fs::exists("sc")) << "an interrupted scenario leaves no run directory";
  EXPECT_TRUE(entries_starting(".sc.partial").empty());

  const Stopped bench = interrupt(
      {"bench", "--model", "zoo:mobilenet_v2_quant8", "--iterations", "1000", "--report", "b.html"},
      [] { return true; }, std::chrono::milliseconds(1500));
  expect_interrupted(bench, "bench");
  EXPECT_FALSE(fs::exists("b.html"));

  const Stopped stress = interrupt(
      {"stress", "--cases", "inference", "--out", "st"},
      [] { return !entries_starting(".st.partial").empty(); }, std::chrono::milliseconds(800));
  expect_interrupted(stress, "stress");
  EXPECT_FALSE(fs::exists("st"));
  EXPECT_TRUE(entries_starting(".st.partial").empty());
}

// --- 10: device memory --------------------------------------------------------------------------------

TEST(Daily, DeviceMemoryExhaustedNamesASizeThatFits) {
  const CliRun r = npusim("run --model zoo:decoder_7b_decode");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_TRUE(contains(r.output, "device memory exhausted (")) << r.output;
  EXPECT_TRUE(contains(r.output, "(give the device more memory: --set npu.dram.size_mib=16384)")) << r.output;
}

// --- 7: quantised inputs ------------------------------------------------------------------------------

TEST(Daily, QuantizePrintsEachInputsScaleAndRunMakesValidExampleInputs) {
  ASSERT_EQ(npusim("example conv-float --dir .").status, 0);
  const CliRun q = npusim("quantize conv-float.model.json -o q.json --samples 2");
  ASSERT_EQ(q.status, 0) << q.output;
  const auto model = nlohmann::json::parse(read("q.json"));
  const uint32_t input = model["inputIndexes"][0].get<uint32_t>();
  EXPECT_TRUE(contains(q.output, "  input " + std::to_string(input))) << q.output;
  EXPECT_TRUE(contains(q.output, " zero point ")) << q.output;
  const CliRun r = npusim("run --model q.json --example-inputs --check");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "seeded example values (--example-inputs")) << r.output;
  EXPECT_EQ(npusim("run --model q.json").status, 1) << "without inputs of either kind";
}

// --- 9: the two latency clocks ------------------------------------------------------------------------

TEST(Daily, RunStatesTheCallLatencyThatBenchReports) {
  example();
  const CliRun r = npusim("run --json" + kIo);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto run = nlohmann::json::parse(r.output);
  const CliRun b = npusim("bench --json --iterations 1 --seed 1 --model conv-quant8.model.json");
  ASSERT_EQ(b.status, 0) << b.output;
  const auto bench = nlohmann::json::parse(b.output);
  const double call = run["call_latency_us"].get<double>();
  // The call is the time in driver plus the HAL call's 20 µs; the bench's first iteration is the same call.
  EXPECT_NEAR(call - run["latency_us"].get<double>(), 20.0, 0.6) << r.output;
  EXPECT_NEAR(bench["iterations"][0]["latency_us"].get<double>(), call, 0.01 * call) << b.output;
}

// --- 14: zoo list, config --------------------------------------------------------------------------------

TEST(Daily, ZooListColumnsLineUp) {
  const CliRun r = npusim("zoo list");
  ASSERT_EQ(r.status, 0);
  std::istringstream in(r.output);
  std::string line;
  size_t kind_at = std::string::npos;
  while (std::getline(in, line)) {
    const size_t gap = line.find(' ');
    const size_t at = line.find_first_not_of(' ', gap);
    if (kind_at == std::string::npos) kind_at = at;
    EXPECT_EQ(at, kind_at) << line;
  }
}

TEST(Daily, ConfigPrintsTheResolvedFileAndExplainTheCatalogue) {
  const CliRun c = npusim("config --hw " + kConfigs + "/npu/large.json --set npu.channels=2");
  ASSERT_EQ(c.status, 0) << c.output;
  const auto j = nlohmann::json::parse(c.output);
  EXPECT_EQ(j["npu"]["channels"], 2);
  // Usable as a --hw file itself.
  std::ofstream("resolved.json") << c.output;
  EXPECT_EQ(nlohmann::json::parse(npusim("config --hw resolved.json").output), j);
  const CliRun e = npusim("config --explain");
  EXPECT_TRUE(contains(e.output, "npu.channels = ")) << e.output.substr(0, 300);
  EXPECT_NE(c.output, e.output);
}

}  // namespace
