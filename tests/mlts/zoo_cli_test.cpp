// `npusim zoo` and `npusim run --model zoo:NAME` as users meet them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"

namespace {

using npu::testing::CliRun;

CliRun npusim(const std::string& args) {
  return npu::testing::run_shell(std::string(NPUSIM_BIN) + " " + args);
}

const std::string kHw = std::string("--hw ") + NPUSIM_SOURCE_DIR "/configs/npu/default.json";

TEST(ZooCli, ListShowsEveryModelWithItsFigures) {
  const CliRun r = npusim("zoo list --json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto list = nlohmann::json::parse(r.output);
  ASSERT_EQ(list.size(), 19u);  // the decoders in two forms: decoder_* and decoder_*_nnapi
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& row : list) by_name[row["name"]] = row;
  // MobileNet v2 at 224: ≈ 300 M MACs (see tests/zoo for the arithmetic).
  EXPECT_NEAR(by_name["mobilenet_v2_quant8"]["macs"].get<double>(), 300e6, 9e6);
  EXPECT_TRUE(by_name["decoder_7b_decode"]["timing_only"].get<bool>());
  EXPECT_TRUE(by_name["decoder_7b_decode_nnapi"]["timing_only"].get<bool>());
  EXPECT_FALSE(by_name["resnet18_float"]["timing_only"].get<bool>());
  // The text form has one line per model plus the header.
  const CliRun text = npusim("zoo list");
  ASSERT_EQ(text.status, 0);
  EXPECT_EQ(std::count(text.output.begin(), text.output.end(), '\n'), 20);
}

TEST(ZooCli, RunAZooModelByName) {
  ASSERT_EQ(npusim("zoo write mobilenet_v1_quant8@32 --dir .").status, 0);
  const CliRun r = npusim("run " + kHw +
                          " --model zoo:mobilenet_v1_quant8@32 --inputs mobilenet_v1_quant8@32.inputs.json"
                          " --outputs o.json --check");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("output"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1000 of 1000 elements within tolerance"), std::string::npos) << r.output;
}

TEST(ZooCli, TimingOnlyModelsWriteNoInputs) {
  const CliRun r = npusim("zoo write decoder_1b_decode@8 --dir .");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("timing-only"), std::string::npos) << r.output;
  std::ifstream model("decoder_1b_decode@8.model.json");
  EXPECT_TRUE(model.good());
  // ... and `run` takes the written model as it is: it used to demand every graph input (257 of them
  // for the full decoder) although no file of them exists.
  const CliRun run = npusim("run " + kHw + " --model decoder_1b_decode@8.model.json --json");
  ASSERT_EQ(run.status, 0) << run.output;
  const auto summary = nlohmann::json::parse(run.output);
  EXPECT_EQ(summary["timing_only"], true);
  EXPECT_GT(summary["npu_cycles"].get<uint64_t>(), 0u);
}

// A model whose weights are sizes only: the NPU device runs it for timing and writes no outputs file
// (no made-up values); the CPU device, which computes, refuses it with one line naming the operand;
// --check has nothing to compare and says so.
TEST(ZooCli, TimingOnlyModelRunsForTimingOnTheNpuOnly) {
  std::ofstream("omitted.json") << R"({"operands": [
    {"type": "TENSOR_FLOAT32", "dimensions": [1, 3, 3, 1], "lifetime": "SUBGRAPH_INPUT"},
    {"type": "TENSOR_FLOAT32", "dimensions": [1, 2, 2, 1], "lifetime": "CONSTANT_COPY", "data": {"omitted": true}},
    {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "data": [0]},
    {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 0},
    {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 1},
    {"type": "TENSOR_FLOAT32", "dimensions": [1, 2, 2, 1], "lifetime": "SUBGRAPH_OUTPUT"}],
    "operations": [{"type": "CONV_2D", "inputs": [0, 1, 2, 3, 3, 3, 3, 4, 4, 3], "outputs": [5]}],
    "inputIndexes": [0], "outputIndexes": [5]})";
  std::ofstream("omitted.inputs.json") << R"({"0": [1, 2, 3, 4, 5, 6, 7, 8, 9]})";
  std::filesystem::remove("omitted.outputs.json");
  const std::string args =
      " --model omitted.json --inputs omitted.inputs.json --outputs omitted.outputs.json";
  const CliRun npu = npusim("run " + kHw + " --device npu" + args);
  EXPECT_EQ(npu.status, 0) << npu.output;
  EXPECT_NE(npu.output.find("outputs         none: a timing-only model"), std::string::npos) << npu.output;
  EXPECT_NE(npu.output.find("NPU cycles"), std::string::npos) << npu.output;
  EXPECT_FALSE(std::filesystem::exists("omitted.outputs.json"));
  const CliRun cpu = npusim("run " + kHw + " --device cpu" + args);
  EXPECT_EQ(cpu.status, 1) << cpu.output;
  EXPECT_EQ(std::count(cpu.output.begin(), cpu.output.end(), '\n'), 1) << cpu.output;
  EXPECT_NE(cpu.output.find("operands[1]: values omitted (a timing-only model)"), std::string::npos)
      << cpu.output;
  const CliRun check = npusim("run " + kHw + " --check" + args);
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_EQ(std::count(check.output.begin(), check.output.end(), '\n'), 1) << check.output;
  EXPECT_NE(check.output.find("--check: a timing-only model"), std::string::npos) << check.output;
}

TEST(ZooCli, UnknownZooModelIsOneLine) {
  const CliRun r = npusim("run " + kHw + " --model zoo:alexnet --inputs i.json --outputs o.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("npusim: zoo: unknown model \"alexnet\" (known: ", 0), 0u) << r.output;
}

}  // namespace
