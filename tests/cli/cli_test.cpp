// The npusim command line as users meet it: exit status and the one-line errors for bad input.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "../support/outputs_file.h"
#include "../support/run_npusim.h"
#include "../support/trace_check.h"

namespace {

using npu::test::CliRun;
using npu::test::npusim;

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const std::string kHw = std::string("--hw ") + NPUSIM_SOURCE_DIR "/configs/npu/default.json";

TEST(Cli, ExampleRunsAndMatchesReference) {
  ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model conv-quant8.model.json --inputs conv-quant8.inputs.json --outputs o.json "
                          "--stats s.json --check");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("NPU cycles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("10240 of 10240 elements within tolerance"), std::string::npos) << r.output;
  std::ifstream stats("s.json");
  EXPECT_TRUE(stats.good());
}

// Silent data corruption: an SRAM upset on hardware without ECC (npu.channel.sram.ecc=false, fault
// sram_ecc at descriptor 0: the first descriptor that reads SRAM, bit 7 of its first byte). The driver
// sees nothing, so only --check finds it: exit 3, naming the first element that differs. Which one is
// found here independently, from the outputs of the NPU run and of a CPU-device run of the same inputs.
// With ECC on (the default) the same upset is detected: an ERROR the driver reports (never exit 3).
TEST(Cli, CheckExitsThreeNamingTheFirstMismatchOfASilentSramUpset) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string io = " --model fc-quant8.model.json --inputs fc-quant8.inputs.json";
  const std::string upset = " --set npu.faults.kind=sram_ecc --set npu.faults.at_descriptor=0";
  ASSERT_EQ(npusim("run " + kHw + io + " --device cpu --outputs cpu.json").status, 0);
  const CliRun r =
      npusim("run " + kHw + io + upset + " --set npu.channel.sram.ecc=false --outputs npu.json --check");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_EQ(r.output.find("faults"), std::string::npos) << "an undetected upset is no fault to the driver\n"
                                                        << r.output;
  const auto npu_out = npu::testing::operands_of(nlohmann::json::parse(std::ifstream("npu.json")));
  const auto cpu_out = npu::testing::operands_of(nlohmann::json::parse(std::ifstream("cpu.json")));
  ASSERT_EQ(npu_out.size(), 1u);
  const std::string operand = cpu_out.begin().key();
  const auto& got = npu_out.at(operand);
  const auto& want = cpu_out.at(operand);
  ASSERT_EQ(got.size(), want.size());
  size_t first = 0, differing = 0;
  for (size_t i = got.size(); i-- > 0;)
    if (got[i] != want[i]) first = i, ++differing;
  ASSERT_GT(differing, 0u) << "the upset changed no output";
  const std::string named = "first mismatch  output operand " + operand + " element " +
                            std::to_string(first) + ": " + got[first].dump() + " on the device, " +
                            want[first].dump() + " by the CPU reference";
  EXPECT_NE(r.output.find(named), std::string::npos) << "expected: " << named << "\n" << r.output;
  const std::string count = std::to_string(got.size() - differing) + " of " + std::to_string(got.size()) +
                            " elements within tolerance";
  EXPECT_NE(r.output.find(count), std::string::npos) << count << "\n" << r.output;

  const CliRun with_ecc = npusim("run " + kHw + io + upset + " --outputs ecc.json --check");
  EXPECT_NE(with_ecc.status, 0) << with_ecc.output;
  EXPECT_NE(with_ecc.status, 3) << with_ecc.output;
  EXPECT_NE(with_ecc.output.find("SRAM ECC"), std::string::npos) << with_ecc.output;
}

// The quantised arithmetic itself, independently of the code: the NPU and the CPU reference share the
// requantisation helpers (npu/common/fixed_point.h), so their agreement proves tiling and lowering, not
// arithmetic. Here a quant8 FULLY_CONNECTED with hand-picked values is checked against NNAPI's definition
// worked by hand: acc = Σ (in − 128)(w − 128) + bias, out = clamp(acc · s_in · s_w / s_out + zp_out, 0,
// 255) rounded as TFLite's MultiplyByQuantizedMultiplier (which NNAPI's CTS follows): the multiplier
// 0.125 / 0.3 = 5/6 · 2^-1 is M = round(2^31 · 5/6) = 1789569707 with a right shift of 1, so acc · 5/6 is
// rounded to nearest first (SaturatingRoundingDoublingHighMul), then halved rounding half away from
// zero (RoundingDivideByPOT). s_in = 0.5, s_w = 0.25, bias scale 0.125 (= s_in · s_w, as NNAPI requires),
// s_out = 0.3, zp_out = 100; input (130, 126, 140, 128) → x = (2, −2, 12, 0):
//   unit  w − 128             Σ x·w   bias    acc   acc·5/6 → rounded   /2 → rounded   out
//   0     ( 3,    1,  −1, 0)     −8      3     −5    −4.167    −4        −2    −2        98
//   1     (10,    0,   5, 0)     80    −43     37    30.833    31        15.5   16       116 (one rounding of
//                                                                        15.417 would give 115)
//   2     (−20,   7,   3, 0)    −18    200    182   151.667   152        76    76       176
//   3     (100, −100, 100, 0)  1600      0   1600  1333.333  1333       666.5  667      255 (767 clamped)
//   4     (−100,  0, −100, 0) −1400      0  −1400 −1166.667 −1167      −583.5 −584       0 (−484 clamped)
//   5     ( 1,   −5,   0, 0)     12      2     14    11.667    12         6     6       106 (truncating: 105)
//   6     (−2,    1,   0, 0)     −6     −1     −7    −5.833    −6        −3    −3        97 (truncating: 98)
TEST(Cli, QuantisedFullyConnectedMatchesHandWorkedNnapiArithmetic) {
  write("fc.model.json", R"({"operands": [
    {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [1, 4], "scale": 0.5, "zeroPoint": 128, "lifetime": "SUBGRAPH_INPUT"},
    {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [7, 4], "scale": 0.25, "zeroPoint": 128, "lifetime": "CONSTANT_COPY",
     "data": [131, 129, 127, 128,  138, 128, 133, 128,  108, 135, 131, 128,  228, 28, 228, 128,
              28, 128, 28, 128,  129, 123, 128, 128,  126, 129, 128, 128]},
    {"type": "TENSOR_INT32", "dimensions": [7], "scale": 0.125, "zeroPoint": 0, "lifetime": "CONSTANT_COPY",
     "data": [3, -43, 200, 0, 0, 2, -1]},
    {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 0},
    {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [1, 7], "scale": 0.3, "zeroPoint": 100, "lifetime": "SUBGRAPH_OUTPUT"}],
   "operations": [{"type": "FULLY_CONNECTED", "inputs": [0, 1, 2, 3], "outputs": [4]}],
   "inputIndexes": [0], "outputIndexes": [4]})");
  write("fc.inputs.json", R"({"0": [130, 126, 140, 128]})");
  const nlohmann::json want = {{"4", {98, 116, 176, 255, 0, 106, 97}}};
  for (const std::string device : {"npu", "cpu"}) {
    const CliRun r = npusim("run " + kHw + " --model fc.model.json --inputs fc.inputs.json --device " +
                            device + " --outputs fc." + device + ".json");
    ASSERT_EQ(r.status, 0) << r.output;
    if (device == "npu") {
      EXPECT_NE(r.output.find("placement       npu\n"), std::string::npos) << r.output;
    }
    EXPECT_EQ(npu::testing::operands_of(nlohmann::json::parse(std::ifstream("fc." + device + ".json"))), want)
        << device;
  }
}

// Output paths are checked before simulating: a long scenario is not lost to a mistyped folder.
TEST(Cli, UnwritableOutputsAreRefusedBeforeTheRun) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r =
      npusim("run " + kHw +
             " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs unwritten.json"
             " --stats no_such_dir/s.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("no_such_dir/s.json: cannot write (no folder no_such_dir)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::ifstream("unwritten.json").good()) << "nothing ran, nothing written";
  const CliRun sc = npusim(std::string("scenario ") + NPUSIM_SOURCE_DIR "/configs/scenarios/camera_llm.json" +
                           " --scale 0.01 --report .");
  EXPECT_NE(sc.status, 0);
  EXPECT_EQ(lines(sc.output), 1) << sc.output;
  EXPECT_NE(sc.output.find(".: is a folder, not a file"), std::string::npos) << sc.output;
}

// `npusim SUB --help` explains SUB even though SUB's required arguments are missing.
TEST(Cli, SubcommandHelpNeedsNoArguments) {
  for (const auto& [args, expect] :
       std::vector<std::pair<std::string, std::string>>{{"run --help", "--model"},
                                                        {"scenario -h", "--compare"},
                                                        {"bench --help", "--iterations"},
                                                        {"zoo list --help", "List the zoo's models"},
                                                        {"--help", "Explain every subcommand"}}) {
    const CliRun r = npusim(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(expect), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(Cli, ExampleCreatesItsFolderOrSaysWhyNot) {
  const CliRun made = npusim("example fc-float --dir new/sub");
  EXPECT_EQ(made.status, 0) << made.output;
  EXPECT_TRUE(std::ifstream("new/sub/fc-float.model.json").good());
  write("a_file", "x");
  const CliRun r = npusim("example fc-float --dir a_file/sub");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("a_file/sub: cannot create the folder"), std::string::npos) << r.output;
}

// --stats-meta: the same tree with every leaf documented (unit and description from the registry).
TEST(Cli, StatsMetaDocumentsEveryLeaf) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string args =
      "run " + kHw + " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json";
  ASSERT_EQ(npusim(args + " --stats plain.json").status, 0);
  const CliRun r = npusim(args + " --stats meta.json --stats-meta");
  ASSERT_EQ(r.status, 0) << r.output;
  auto plain = nlohmann::json::parse(std::ifstream("plain.json"));
  auto meta = nlohmann::json::parse(std::ifstream("meta.json"));
  // Beside the tree, which build wrote the file (docs/sim.md): the same in both forms, not a statistic.
  ASSERT_TRUE(plain.contains("npusim"));
  EXPECT_EQ(meta["npusim"], plain["npusim"]);
  plain.erase("npusim");
  meta.erase("npusim");
  size_t leaves = 0;
  std::function<void(const nlohmann::json&, const nlohmann::json&, const std::string&)> walk =
      [&](const nlohmann::json& p, const nlohmann::json& m, const std::string& path) {
        if (!p.is_object()) {
          ++leaves;
          ASSERT_TRUE(m.is_object() && m.contains("value")) << path;
          EXPECT_EQ(m["value"], p) << path;
          EXPECT_TRUE(m["unit"].is_string()) << path;  // empty for counts and ratios
          EXPECT_FALSE(m["description"].get<std::string>().empty()) << path;
          return;
        }
        ASSERT_EQ(p.size(), m.size()) << path;
        for (const auto& [k, v] : p.items()) walk(v, m.at(k), path + "." + k);
      };
  walk(plain, meta, "");
  EXPECT_GT(leaves, 50u);
  EXPECT_EQ(meta["npu"]["ch0"]["macs"]["unit"], "MAC");
}

TEST(Cli, MissingModelFileIsOneLine) {
  const CliRun r = npusim("run " + kHw + " --model nope.json --inputs in.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("nope.json: cannot open"), std::string::npos) << r.output;
}

TEST(Cli, MalformedJsonNamesTheFile) {
  write("bad.json", "{\"operands\": [");
  const CliRun r = npusim("run " + kHw + " --model bad.json --inputs in.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("bad.json: not valid JSON"), std::string::npos) << r.output;
}

TEST(Cli, OperandIndexOutOfRangeIsNamed) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  std::ifstream in("fc-quant8.model.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\"outputs\": [");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"outputs\": [").size(), "\"outputs\": [99, ");
  text.erase(text.find("99, ") + 2, text.find(']', at) - (text.find("99, ") + 2));
  write("broken.json", text);
  const CliRun r =
      npusim("run " + kHw + " --model broken.json --inputs fc-quant8.inputs.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("broken.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("operand 99 out of range"), std::string::npos) << r.output;
}

TEST(Cli, ShapeMismatchIsNamed) {
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  std::ifstream in("fc-float.model.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The weights become [100, 255] while the input stays [4, 256].
  const auto at = text.find("[100,256]");
  ASSERT_NE(at, std::string::npos) << text.substr(0, 400);
  text.replace(at, 9, "[100,255]");
  write("shape.json", text);
  const CliRun r =
      npusim("run " + kHw + " --model shape.json --inputs fc-float.inputs.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("shape.json"), std::string::npos) << r.output;
}

TEST(Cli, BadOverrideNamesThePath) {
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model fc-float.model.json --inputs fc-float.inputs.json --outputs o.json "
                          "--set npu.channels=99");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("npu.channels"), std::string::npos) << r.output;
}

TEST(Cli, UnknownConfigKeyNamesTheJsonPath) {
  write("hw.json", "{\"npu\": {\"channel\": {\"sram\": {\"kb\": 4}}}}");
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  const CliRun r =
      npusim("run --hw hw.json --model fc-float.model.json --inputs fc-float.inputs.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("hw.json: $.npu.channel.sram.kb: unknown parameter"), std::string::npos)
      << r.output;
}

TEST(Cli, UnknownArgumentFails) {
  const CliRun r = npusim("run --frobnicate");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
}

TEST(Cli, ConfigExplainListsEveryParameter) {
  const CliRun r = npusim("config --explain");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("npu.channel.sram.kib = 512 [KiB]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npu.dram.bandwidth_gbps"), std::string::npos);
}

}  // namespace

namespace {

// docs/register_map.md is generated: it must be what `npusim regmap` prints today.
TEST(Cli, RegisterMapDocIsUpToDate) {
  const CliRun r = npusim("regmap");
  ASSERT_EQ(r.status, 0);
  std::ifstream in(NPUSIM_SOURCE_DIR "/docs/register_map.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(doc, r.output) << "regenerate with: build/tools/npusim regmap > docs/register_map.md";
}

}  // namespace

namespace {

// --trace writes Chrome trace-event JSON that Perfetto loads: a track per channel (command buffers), per
// engine of each channel (dma_in, compute, dma_out: a span per descriptor) and per driver run queue; every
// span well-formed (pid/tid named, ts non-decreasing per track, spans nested on each row).
TEST(Cli, TraceIsWellFormedWithChannelEngineAndQueueTracks) {
  ASSERT_EQ(npusim("example net-quant8 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model net-quant8.model.json --inputs net-quant8.inputs.json "
                          "--outputs o.json --trace t.json");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in("t.json");
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "t.json is not JSON";
  EXPECT_EQ(npu::test::trace_problems(doc), std::vector<std::string>{});
  const auto tracks = npu::test::trace_track_names(doc);
  for (const std::string t : {"npu.ch0", "npu.ch3", "npu.ch0.dma_in", "npu.ch0.compute", "npu.ch0.dma_out",
                              "npu.ch3.compute", "queue HIGH", "queue NORMAL", "queue LOW", "ch0 jobs"})
    EXPECT_TRUE(tracks.count(t)) << "no track " << t;
  // Spans by track name: descriptors on the engines, command buffers on the channel.
  std::map<std::pair<int, int>, std::string> name_of;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name")
      name_of[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  std::map<std::string, std::set<std::string>> spans;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X")
      spans[name_of[{e["pid"].get<int>(), e["tid"].get<int>()}]].insert(e["name"].get<std::string>());
  EXPECT_TRUE(spans["npu.ch0.compute"].count("CONV_INT8"));
  EXPECT_TRUE(spans["npu.ch0.dma_in"].count("DMA_IN"));
  EXPECT_TRUE(spans["npu.ch0.dma_out"].count("DMA_OUT"));
  EXPECT_FALSE(spans["npu.ch0"].empty()) << "command-buffer spans on the channel track";
  EXPECT_FALSE(spans["queue LOW"].empty()) << "job spans on the run queue of the HAL's default priority";
}

}  // namespace

namespace {

double json_number(const std::string& text, const std::string& key) {
  const auto at = text.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + key.size() + 3));
}

// One network on 1, 2 and 4 channels: identical outputs; the tiles of each layer are spread over the
// channels, so time on device falls (simulated time: deterministic). The stats report it: the speed-up
// is the ratio of hal.execution.device_us, and hal.execution.channel_parallelism = NPU busy cycles /
// elapsed device cycles is the channels working on average. Parallelism bounds the speed-up from above:
// channels that share DRAM stay busy longer for the same work (busy cycles B_n ≥ B_1), so
// parallelism_n / parallelism_1 = (B_n / B_1) · speed-up ≥ speed-up, and parallelism ≤ channels.
// Measured: 931 µs, 473 µs (1.97×), 252 µs (3.69×); parallelism 0.99, 1.97, 3.81.
TEST(Cli, MultiChannelSpeedupWithIdenticalOutputs) {
  ASSERT_EQ(npusim("example block-quant8 --dir .").status, 0);
  std::map<int, double> device_us, parallelism;
  std::map<int, std::string> outputs;
  for (int ch : {1, 2, 4}) {
    const std::string out = "block" + std::to_string(ch) + ".json";
    const std::string stats = "block" + std::to_string(ch) + ".stats.json";
    const CliRun r = npusim("run " + kHw +
                            " --model block-quant8.model.json --inputs block-quant8.inputs.json "
                            "--outputs " +
                            out + " --stats " + stats + " --json --set npu.channels=" + std::to_string(ch));
    ASSERT_EQ(r.status, 0) << r.output;
    device_us[ch] = json_number(r.output, "device_us");
    std::ifstream in(out);
    outputs[ch].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::ifstream s(stats);
    const nlohmann::json tree = nlohmann::json::parse(s, nullptr, false);
    ASSERT_FALSE(tree.is_discarded()) << stats;
    parallelism[ch] = tree["hal"]["execution"]["channel_parallelism"].get<double>();
  }
  EXPECT_EQ(outputs[1], outputs[2]);
  EXPECT_EQ(outputs[1], outputs[4]);
  std::printf(
      "device time: 1 ch %.0f us, 2 ch %.0f us (%.2fx), 4 ch %.0f us (%.2fx); "
      "channel_parallelism %.2f, %.2f, %.2f\n",
      device_us[1], device_us[2], device_us[1] / device_us[2], device_us[4], device_us[1] / device_us[4],
      parallelism[1], parallelism[2], parallelism[4]);
  EXPECT_GT(device_us[1] / device_us[2], 1.8);
  EXPECT_GT(device_us[1] / device_us[4], 3.3);
  EXPECT_NEAR(parallelism[1], 1.0, 0.02);
  for (int ch : {2, 4}) {
    // device_us is in whole µs: allow its rounding (half a µs each way).
    const double rounding = 0.5 / device_us[ch] + 0.5 / device_us[1];
    EXPECT_GE(parallelism[ch] / parallelism[1], device_us[1] / device_us[ch] * (1 - rounding))
        << ch << " channels";
    EXPECT_LE(parallelism[ch], ch) << ch << " channels";
  }
}

}  // namespace

#ifdef NPUSIM_WITH_RTL
namespace {

// The same quant8 convolution on the TLM core and on the verilated RTL core (co-simulated in
// SystemC): identical outputs and identical NPU cycles (the TLM formula is exact against the RTL,
// tests/rtl/calibration_test.cpp, and nothing else differs between the two runs).
TEST(Cli, RtlCoreMatchesTlmCore) {
  ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0);
  std::map<std::string, double> latency;
  std::map<std::string, std::string> outputs;
  for (const std::string core : {"tlm", "rtl"}) {
    const std::string out = "conv-" + core + ".json";
    const CliRun r = npusim("run " + kHw +
                            " --model conv-quant8.model.json --inputs conv-quant8.inputs.json "
                            "--outputs " +
                            out + " --json --set npu.channel.compute_core.model=" + core);
    ASSERT_EQ(r.status, 0) << r.output;
    latency[core] = json_number(r.output, "npu_cycles");
    std::ifstream in(out);
    outputs[core].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::printf("NPU cycles: tlm %.0f, rtl %.0f\n", latency["tlm"], latency["rtl"]);
  EXPECT_EQ(outputs["tlm"], outputs["rtl"]);
  EXPECT_EQ(latency["rtl"], latency["tlm"]);
}

TEST(Cli, RtlCoreWithoutBuildForGeometryIsOneLine) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json "
                          "--set npu.channel.compute_core.model=rtl --set npu.channel.array.rows=8 "
                          "--set npu.channel.array.cols=8");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("no verilated SystemC build"), std::string::npos) << r.output;
}

}  // namespace
#endif

namespace {

TEST(Cli, DevicesListsNpuAndCpu) {
  const CliRun r = npusim("devices " + kHw);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("npusim-npu           ACCELERATOR  npusim-npu hal"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npusim-npu-minimal   ACCELERATOR  npusim-npu hal"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npusim-cpu           CPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  TENSOR_QUANT8_ASYMM              exec_time "), std::string::npos) << r.output;
  // getSupportedExtensions as each device answers it: the full NPU runs com.npusim.llm, the minimal variant
  // and the CPU reference none (every device printed "none" before).
  const auto line_after = [&](const std::string& device) {
    const size_t at = r.output.find(device + " ");
    const size_t start = r.output.find('\n', at) + 1;
    return r.output.substr(start, r.output.find('\n', start) - start);
  };
  EXPECT_EQ(line_after("npusim-npu"), "  cache files: 1 model, 1 data; extensions: com.npusim.llm")
      << r.output;
  EXPECT_EQ(line_after("npusim-npu-minimal"), "  cache files: 1 model, 1 data; extensions: none") << r.output;
  EXPECT_EQ(line_after("npusim-cpu"), "  cache files: 0 model, 0 data; extensions: none") << r.output;
}

// Capabilities are measured in simulated time: a restart (another process) answers exactly the same.
TEST(Cli, DevicesAreIdenticalAcrossRuns) {
  const CliRun a = npusim("devices " + kHw);
  const CliRun b = npusim("devices " + kHw);
  ASSERT_EQ(a.status, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output.find("exec_time"), std::string::npos) << a.output;
}

TEST(Cli, GraphWritesGraphvizDot) {
  ASSERT_EQ(npusim("example net-quant8 --dir .").status, 0);
  const CliRun r = npusim("graph net-quant8.model.json -o net.dot");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in("net.dot");
  const std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(dot.rfind("digraph model {", 0), 0u) << dot;
  // Each box: its output on the title line, then the constants, left-aligned: weights and bias a line
  // each, the scalar parameters (padding code, strides, activation) together on one line.
  EXPECT_NE(dot.find("op0 [shape=box, label=\"0: CONV_2D → #3 TENSOR_QUANT8_ASYMM [1,32,32,32]\\lin1: const "
                     "TENSOR_QUANT8_ASYMM [32,3,3,3]\\lin2: const TENSOR_INT32 [32]\\lin3=1 in4=2 in5=2 "
                     "in6=1\\l\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("op3 [shape=box, label=\"3: FULLY_CONNECTED\\lin1: const TENSOR_QUANT8_ASYMM [10,4096]"),
            std::string::npos)
      << dot;
  // The graph input and output are nodes; the values between operations are the edges.
  EXPECT_NE(dot.find("  d0 -> op0;\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  op0 -> op1;\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  op3 -> d24;\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\\ninput\", style=bold"), std::string::npos) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  const CliRun missing = npusim("graph nope.json -o x.dot");
  EXPECT_NE(missing.status, 0);
  EXPECT_EQ(lines(missing.output), 1) << missing.output;
  EXPECT_NE(missing.output.find("nope.json: cannot open"), std::string::npos) << missing.output;
}

}  // namespace
