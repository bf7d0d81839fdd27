// The npusim command line as users meet it: exit status and the one-line errors for bad input.
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// Output paths are checked before simulating: a long scenario is not lost to a mistyped folder.
TEST(Cli, UnwritableOutputsAreRefusedBeforeTheRun) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs unwritten.json"
                          " --stats no_such_dir/s.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("no_such_dir/s.json: cannot write (no folder no_such_dir)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::ifstream("unwritten.json").good()) << "nothing ran, nothing written";
  const CliRun sc = npusim(std::string("scenario ") + NPUSIM_SOURCE_DIR "/configs/scenarios/camera_llm.json" +
                           " --scale 0.01 --report .");
  EXPECT_NE(sc.status, 0);
  EXPECT_EQ(lines(sc.output), 1) << sc.output;
  EXPECT_NE(sc.output.find(".: is a folder, not a file"), std::string::npos) << sc.output;
}

// `npusim SUB --help` explains SUB even though SUB's required arguments are missing.
TEST(Cli, SubcommandHelpNeedsNoArguments) {
  for (const auto& [args, expect] : std::vector<std::pair<std::string, std::string>>{
           {"run --help", "--model"},
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
  const std::string args = "run " + kHw + " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json";
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
  const CliRun r = npusim("run " + kHw + " --model broken.json --inputs fc-quant8.inputs.json --outputs o.json");
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
  const CliRun r = npusim("run " + kHw + " --model shape.json --inputs fc-float.inputs.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("shape.json"), std::string::npos) << r.output;
}

TEST(Cli, BadOverrideNamesThePath) {
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  const CliRun r = npusim("run " + kHw + " --model fc-float.model.json --inputs fc-float.inputs.json --outputs o.json "
                       "--set npu.channels=99");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("npu.channels"), std::string::npos) << r.output;
}

TEST(Cli, UnknownConfigKeyNamesTheJsonPath) {
  write("hw.json", "{\"npu\": {\"channel\": {\"sram\": {\"kb\": 4}}}}");
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  const CliRun r = npusim("run --hw hw.json --model fc-float.model.json --inputs fc-float.inputs.json --outputs o.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("hw.json: $.npu.channel.sram.kb: unknown parameter"), std::string::npos) << r.output;
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
  const CliRun r = npusim("run " + kHw + " --model net-quant8.model.json --inputs net-quant8.inputs.json "
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
    if (e["ph"] == "M" && e["name"] == "thread_name") name_of[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  std::map<std::string, std::set<std::string>> spans;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") spans[name_of[{e["pid"].get<int>(), e["tid"].get<int>()}]].insert(e["name"].get<std::string>());
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
    const CliRun r = npusim("run " + kHw + " --model block-quant8.model.json --inputs block-quant8.inputs.json "
                            "--outputs " + out + " --stats " + stats + " --json --set npu.channels=" +
                            std::to_string(ch));
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
  std::printf("device time: 1 ch %.0f us, 2 ch %.0f us (%.2fx), 4 ch %.0f us (%.2fx); "
              "channel_parallelism %.2f, %.2f, %.2f\n",
              device_us[1], device_us[2], device_us[1] / device_us[2], device_us[4], device_us[1] / device_us[4],
              parallelism[1], parallelism[2], parallelism[4]);
  EXPECT_GT(device_us[1] / device_us[2], 1.8);
  EXPECT_GT(device_us[1] / device_us[4], 3.3);
  EXPECT_NEAR(parallelism[1], 1.0, 0.02);
  for (int ch : {2, 4}) {
    // device_us is in whole µs: allow its rounding (half a µs each way).
    const double rounding = 0.5 / device_us[ch] + 0.5 / device_us[1];
    EXPECT_GE(parallelism[ch] / parallelism[1], device_us[1] / device_us[ch] * (1 - rounding)) << ch << " channels";
    EXPECT_LE(parallelism[ch], ch) << ch << " channels";
  }
}

}  // namespace

#ifdef NPUSIM_WITH_RTL
namespace {

// The same quant8 convolution on the TLM core and on the verilated RTL core (co-simulated in
// SystemC): identical outputs, simulated latency within 2%.
TEST(Cli, RtlCoreMatchesTlmCore) {
  ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0);
  std::map<std::string, double> latency;
  std::map<std::string, std::string> outputs;
  for (const std::string core : {"tlm", "rtl"}) {
    const std::string out = "conv-" + core + ".json";
    const CliRun r = npusim("run " + kHw + " --model conv-quant8.model.json --inputs conv-quant8.inputs.json "
                            "--outputs " + out + " --json --set npu.channel.compute_core.model=" + core);
    ASSERT_EQ(r.status, 0) << r.output;
    latency[core] = json_number(r.output, "npu_cycles");
    std::ifstream in(out);
    outputs[core].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::printf("NPU cycles: tlm %.0f, rtl %.0f\n", latency["tlm"], latency["rtl"]);
  EXPECT_EQ(outputs["tlm"], outputs["rtl"]);
  EXPECT_LE(std::abs(latency["rtl"] - latency["tlm"]), 0.02 * latency["tlm"]);
}

TEST(Cli, RtlCoreWithoutBuildForGeometryIsOneLine) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw + " --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json "
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
