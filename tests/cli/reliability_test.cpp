// Hostile and broken input through the command line, as a CI gate or a driver engineer meets it: each
// case is one clear error on stderr with a non-zero exit, never a crash, hang or silent wrong answer.
// Covered: a fault on a channel that does not exist, JSON nested 80,000 deep, numbers out of range,
// folders, FIFOs and /dev/zero given as files, scenario limits, timing-only runs (npu.functional=false
// and models whose weights are sizes) and a write that fails half-way (the file size limit standing in
// for a full disk).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/run_npusim.h"

namespace {

using npu::test::CliRun;
using npu::test::npusim;
namespace fs = std::filesystem;

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
using npu::testing::lines;
using npu::testing::read;

const std::string kHw = std::string("--hw ") + NPUSIM_SOURCE_DIR "/configs/npu/default.json";
const std::string kScenario = NPUSIM_SOURCE_DIR "/configs/scenarios/camera_llm.json";
// Room for npusim itself (SystemC, the libraries, thread stacks) but not for a 40 MB JSON file parsed.
constexpr uint64_t kMemoryCapKib = 400 * 1024;

// `npusim args` under a 60 s watchdog (a hang fails the test instead of timing it out), with only
// stderr kept: the errors must go there.
CliRun npusim_stderr(const std::string& args) {
  return npu::testing::run_shell("(timeout 60 " + std::string(NPUSIM_BIN) + " " + args + " 2>&1 >/dev/null)");
}

// One line on stderr containing `want`, exit status 1.
void expect_one_error(const std::string& args, const std::string& want) {
  SCOPED_TRACE(args);
  const CliRun r = npusim_stderr(args);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
}

struct Example {
  std::string model = "conv-quant8.model.json", inputs = "conv-quant8.inputs.json";
  Example() { EXPECT_EQ(npusim("example conv-quant8 --dir .").status, 0); }
  std::string run(const std::string& model, const std::string& inputs, const std::string& hw = kHw) const {
    return "run " + hw + " --model " + model + " --inputs " + inputs + " --outputs o.json";
  }
};

// The config check exempted thermal_runaway from the channel range and the NPU indexed the channel:
// a heap overflow (SIGSEGV). A runaway armed by time strikes no channel, so any channel number is fine.
TEST(CliReliability, ThermalRunawayOnAChannelThatDoesNotExistIsRefused) {
  Example e;
  expect_one_error(
      e.run(e.model, e.inputs) + " --set npu.faults.kind=thermal_runaway --set npu.faults.channel=9",
      "npu.faults.channel: channel 9 does not exist (4 channels)");
  const CliRun timed = npusim(e.run(e.model, e.inputs) +
                              " --set npu.faults.kind=thermal_runaway --set npu.faults.channel=9"
                              " --set npu.faults.trigger=time --set npu.faults.at_time_us=1");
  EXPECT_EQ(timed.status, 0) << timed.output;
}

// 80,000 levels: the error path printed the whole value recursively (stack overflow).
TEST(CliReliability, DeeplyNestedJsonIsOneErrorInEveryReader) {
  Example e;
  write("deep.json", std::string(80000, '[') + std::string(80000, ']'));
  write("deep_obj.json", "{\"npu\": " + std::string(80000, '[') + std::string(80000, ']') + "}");
  const std::string want = "not valid JSON: nested deeper than 64 levels (line 1, column 65)";
  expect_one_error(e.run("deep.json", e.inputs), "deep.json: " + want);
  expect_one_error(e.run(e.model, "deep.json"), "deep.json: " + want);
  expect_one_error(e.run(e.model, e.inputs, "--hw deep.json"), "deep.json: " + want);
  expect_one_error(e.run(e.model, e.inputs, "--hw deep_obj.json"),
                   "deep_obj.json: not valid JSON: nested deeper");
  expect_one_error("scenario deep.json", "deep.json: " + want);
  expect_one_error(e.run(e.model, e.inputs) + " --set npu.channels=" + std::string(80000, '['),
                   "--set npu.channels: nested deeper than 64 levels");
}

// 1e999 does not fit a double: nlohmann throws out_of_range, which escaped to SystemC (E549 on stdout,
// nothing on stderr).
TEST(CliReliability, NumberOutOfRangeIsOneErrorInEveryReader) {
  Example e;
  write("hw.json", R"({"npu": {"channels": 1e999}})");
  write("in.json", R"({"0": [1e999]})");
  auto model = nlohmann::json::parse(read(e.model));
  std::string text = model.dump();
  text.replace(text.find("\"scale\":"), 8, "\"scale\":1e999,\"x\":");
  write("m.json", text);
  std::string sc = read(kScenario);
  sc.replace(sc.find("\"duration_s\":"), 13, "\"duration_s\": 1e999, \"x\":");
  write("sc.json", sc);
  const std::string want = "not valid JSON: number overflow parsing '1e999'";
  expect_one_error(e.run(e.model, e.inputs, "--hw hw.json"), "hw.json: " + want);
  expect_one_error(e.run(e.model, "in.json"), "in.json: " + want);
  expect_one_error(e.run("m.json", e.inputs), "m.json: " + want);
  expect_one_error("scenario sc.json", "sc.json: " + want);
}

// /dev/zero was read until memory ran out (3.8 GB in a minute), a FIFO waited for a writer forever.
TEST(CliReliability, FoldersFifosAndDevicesAreNotFiles) {
  Example e;
  ASSERT_EQ(::mkfifo("fifo", 0600), 0);
  fs::create_directories("folder");
  expect_one_error(e.run("/dev/zero", e.inputs),
                   "/dev/zero: cannot open: it is a character device, not a regular file");
  expect_one_error(e.run(e.model, "/dev/zero"), "/dev/zero: cannot open: it is a character device");
  expect_one_error(e.run(e.model, e.inputs, "--hw /dev/zero"),
                   "/dev/zero: cannot open: it is a character device");
  expect_one_error(e.run("fifo", e.inputs), "fifo: cannot open: it is a FIFO, not a regular file");
  expect_one_error(e.run(e.model, "fifo"), "fifo: cannot open: it is a FIFO, not a regular file");
  expect_one_error("scenario fifo", "fifo: cannot open: it is a FIFO, not a regular file");
  expect_one_error("scenario folder", "folder: cannot open: it is a folder, not a file");
  expect_one_error(e.run("folder", e.inputs), "folder: cannot open: it is a folder, not a file");
  // A side file of weights: a FIFO there hung too.
  auto model = nlohmann::json::parse(read(e.model));
  for (auto& op : model["operands"])
    if (op.contains("data") && op["data"].is_array() && op["data"].size() > 100) {
      op["data"] = {{"file", "fifo"}};
      break;
    }
  write("side.json", model.dump());
  expect_one_error(e.run("side.json", e.inputs), "fifo: cannot open: it is a FIFO, not a regular file");
}

// 500 decoder apps, or 3,600 s at 8 kHz, took gigabytes and minutes even scaled down.
TEST(CliReliability, ScenarioLimitsNameTheLimit) {
  auto base = nlohmann::json::parse(read(kScenario));
  base["hardware"]["config"] = NPUSIM_SOURCE_DIR "/configs/npu/default.json";
  auto many = base;
  auto app = base["apps"][0];
  many["apps"] = nlohmann::json::array();
  for (int i = 0; i < 33; ++i) {
    app["name"] = "app" + std::to_string(i);
    app["uid"] = 20000 + i;
    many["apps"].push_back(app);
  }
  write("many.json", many.dump());
  expect_one_error("scenario many.json", "many.json: $.apps: 33 apps, above the limit of 32");
  auto fast = base;
  fast["duration_s"] = 3600;
  fast["apps"] =
      nlohmann::json::array({nlohmann::json{{"name", "fast"},
                                            {"uid", 20001},
                                            {"model", "vision-small"},
                                            {"workload", {{"type", "poisson"}, {"rate_hz", 8000}}}}});
  write("fast.json", fast.dump());
  expect_one_error(
      "scenario fast.json --scale 0.001",
      "fast.json: $.apps[0].workload: the workloads ask for about 28800000 requests up to this app "
      "(28800000 from it) in 3600 s, above the limit of 2000000 per scenario (rate x duration)");
  auto events = base;
  events["events"] = nlohmann::json::array();
  for (int i = 0; i < 1001; ++i)
    events["events"].push_back({{"type", "thermal_runaway"}, {"at_s", 1}, {"watts", 1}});
  write("events.json", events.dump());
  expect_one_error("scenario events.json", "events.json: $.events: 1001 events, above the limit of 1000");
}

// npu.functional=false computes nothing: the run is timing-only. It wrote all-zero outputs, said
// "timing_only": false and reported a MISMATCH under --check (exit 3).
TEST(CliReliability, FunctionalFalseIsATimingOnlyRun) {
  Example e;
  expect_one_error(e.run(e.model, e.inputs) + " --set npu.functional=false --check",
                   "--check: timing-only hardware (npu.functional=false) gives no values to compare");
  EXPECT_FALSE(fs::exists("o.json")) << "refused before running";
  const CliRun r = npusim(e.run(e.model, e.inputs) + " --set npu.functional=false --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["timing_only"], true);
  EXPECT_FALSE(j.contains("outputs"));
  EXPECT_GT(j["npu_cycles"].get<uint64_t>(), 0u);
  EXPECT_FALSE(fs::exists("o.json")) << "no outputs are written";
  // No inputs file needed either; the text summary says why there are no outputs.
  const CliRun bare = npusim("run " + kHw + " --model " + e.model + " --set npu.functional=false");
  EXPECT_EQ(bare.status, 0) << bare.output;
  EXPECT_NE(bare.output.find("outputs         none: timing-only hardware (npu.functional=false)"),
            std::string::npos)
      << bare.output;
  // A functional run still needs inputs (its outputs are optional: without --outputs only their shapes
  // are printed).
  expect_one_error("run " + kHw + " --model " + e.model,
                   "--inputs is required (or --example-inputs for seeded values; only a timing-only run or "
                   "a zoo: model needs none)");
}

// A model whose weights are sizes only runs without an inputs file (the zoo writes none for them).
TEST(CliReliability, TimingOnlyModelNeedsNoInputs) {
  Example e;
  auto model = nlohmann::json::parse(read(e.model));
  for (auto& op : model["operands"])
    if (op.value("lifetime", "") == "CONSTANT_COPY" && op["data"].is_array() && op["data"].size() > 100)
      op["data"] = {{"omitted", true}};
  write("sizes.json", model.dump());
  const CliRun r = npusim("run " + kHw + " --model sizes.json --json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["timing_only"], true);
  expect_one_error("run " + kHw + " --model sizes.json --check", "sizes.json: --check: a timing-only model");
}

// x = x · 1 while x <= n: a WHILE that never ends. NNAPI's loop timeout (--loop-timeout-ms, simulated
// time) fails the run with MISSED_DEADLINE_TRANSIENT on both devices; above 15 s is a bad argument.
TEST(CliReliability, AnEndlessWhileFailsAfterTheLoopTimeout) {
  write("endless.json", R"({"operands": [
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"},
  {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "subgraph": 0},
  {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "subgraph": 1}],
 "operations": [{"type": "WHILE", "inputs": [3, 4, 0, 1], "outputs": [2]}],
 "inputIndexes": [0, 1], "outputIndexes": [2],
 "referenced": [
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
   "operations": [{"type": "LESS_EQUAL", "inputs": [0, 1], "outputs": [2]}],
   "inputIndexes": [0, 1], "outputIndexes": [2]},
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "data": [1]},
                {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 0}],
   "operations": [{"type": "MUL", "inputs": [0, 3, 4], "outputs": [2]}],
   "inputIndexes": [0, 1], "outputIndexes": [2]}]})");
  write("endless.inputs.json", R"({"0": [1], "1": [2]})");
  for (const char* device : {"npu", "cpu"}) {
    SCOPED_TRACE(device);
    const std::string args = "run " + kHw +
                             " --model endless.json --inputs endless.inputs.json --outputs o.json --device " +
                             device + " --loop-timeout-ms ";
    expect_one_error(args + "1", "MISSED_DEADLINE_TRANSIENT");
    expect_one_error(args + "1", "longer than its timeout of 1000000 ns");
    const CliRun over = npusim_stderr(args + "15001");
    EXPECT_EQ(over.status, 2) << over.output;
  }
}

// `npusim args` under a virtual memory cap of `kib` KiB: its exit status, stdout and stderr apart.
struct SplitRun {
  int status = 0;
  std::string out, err;
};
SplitRun npusim_capped(const std::string& args, uint64_t kib) {
  const CliRun r = npu::testing::run_shell("(ulimit -v " + std::to_string(kib) + "; timeout 60 " +
                                           std::string(NPUSIM_BIN) + " " + args + " >cap.out 2>cap.err)");
  return {r.status, read("cap.out"), read("cap.err")};
}

// The top-level guard, entry point by entry point: a 40 MB JSON file (valid, 20 M numbers) given as the
// model, hardware config, scenario or sweep file runs the host out of memory under `ulimit -v` while it
// is parsed. std::bad_alloc escaped sc_main and SystemC printed "Error: (E549) uncaught exception:
// std::bad_alloc" on stdout with exit 1; now one line on stderr, nothing on stdout, exit status 5.
TEST(CliReliability, AnEscapedExceptionIsOneLineOnStderrAndExitStatus5AtEveryEntryPoint) {
  {
    std::ofstream big("big.json");
    big << "[";
    for (int i = 0; i < 20'000'000; ++i) big << "0,";
    big << "0]";
  }
  for (const std::string& args :
       {"run " + kHw + " --model big.json", "bench " + kHw + " --model big.json --iterations 1",
        std::string("devices --hw big.json"), std::string("scenario big.json"),
        std::string("sweep big.json --list")}) {
    SCOPED_TRACE(args);
    const SplitRun r = npusim_capped(args, kMemoryCapKib);
    EXPECT_EQ(r.status, 5) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("npusim: out of host memory", 0), 0u) << r.err;
  }
  // With memory to spare the same file is an ordinary bad input: exit 1, not the escaped-error status.
  const CliRun spare = npusim_stderr("devices --hw big.json");
  EXPECT_EQ(spare.status, 1) << spare.output;
  EXPECT_EQ(lines(spare.output), 1) << spare.output;
}

// A full disk: the writer said "npusim: " with nothing after it and left a truncated file under the
// final name. The process file-size limit (SIGXFSZ ignored) makes the same write() fail with EFBIG.
TEST(CliReliability, AFailedWriteNamesTheFileAndLeavesTheOldOneWhole) {
  Example e;
  write("o.json", "previous outputs\n");
  const CliRun r = npu::testing::run_shell("(trap '' XFSZ; ulimit -f 4; " + std::string(NPUSIM_BIN) + " " +
                                           e.run(e.model, e.inputs) + " 2>&1 >/dev/null)");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("o.json: cannot write: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(read("o.json"), "previous outputs\n");
  for (const auto& f : fs::directory_iterator("."))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos)
        << "temporary left: " << f.path();
  // Without the limit the same run replaces the file whole.
  const CliRun ok = npusim(e.run(e.model, e.inputs));
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_FALSE(nlohmann::json::parse(read("o.json"), nullptr, false).is_discarded());
}

}  // namespace
