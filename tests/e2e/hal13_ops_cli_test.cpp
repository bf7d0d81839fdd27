// The NN HAL 1.2/1.3 operations through the whole stack as a user runs them: tests/e2e/data/hal13_ops.json
// (29 operations: PRELU, HARD_SWISH, ELU, SIN, RESIZE_NEAREST_NEIGHBOR, CHANNEL_SHUFFLE, SLICE, SPLIT,
// SELECT, TILE, LOG_SOFTMAX, INSTANCE_NORMALIZATION, ARGMAX, EXPAND_DIMS, TOPK_V2, CAST, PAD_V2,
// REDUCE_PROD, LOGICAL_NOT/OR/AND, REDUCE_ALL/ANY, FILL, RANK in float32, and a quant8 PRELU ->
// HARD_SWISH -> RESIZE_NEAREST_NEIGHBOR -> CHANNEL_SHUFFLE chain) is run by `npusim run` on the CPU
// device and on the default NPU device. Operations the NPU does not lower fall back to CPU stages with
// the reason logged; the two devices' outputs files must be identical.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli.h"
#include "../support/outputs_file.h"

namespace {

using npu::testing::CliRun;

CliRun npusim(const std::string& args) {
  return npu::testing::run_shell(std::string(NPUSIM_BIN) + " " + args);
}

const std::string kHw = std::string("--hw ") + NPUSIM_SOURCE_DIR "/configs/npu/default.json";
const std::string kModel = std::string(" --model ") + NPUSIM_SOURCE_DIR "/tests/e2e/data/hal13_ops.json" +
                           " --inputs " + NPUSIM_SOURCE_DIR "/tests/e2e/data/hal13_ops.inputs.json";

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return nlohmann::json::parse(s.str(), nullptr, false);
}

TEST(Hal13OpsCli, CpuAndNpuDevicesAgree) {
  std::filesystem::remove("hal13.cpu.json");
  std::filesystem::remove("hal13.npu.json");
  const CliRun cpu = npusim("run " + kHw + " --device cpu" + kModel + " --outputs hal13.cpu.json");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_NE(cpu.output.find("placement       cpu"), std::string::npos) << cpu.output;
  const CliRun npu = npusim("--log compilation run " + kHw + kModel + " --outputs hal13.npu.json");
  ASSERT_EQ(npu.status, 0) << npu.output;
  EXPECT_NE(npu.output.find("placement       npu"), std::string::npos) << npu.output;
  // Every operation the NPU leaves to the CPU says why.
  for (const char* op : {"TOPK_V2", "INSTANCE_NORMALIZATION", "FILL", "RANK", "LOGICAL_AND"})
    EXPECT_NE(npu.output.find(std::string("(") + op + ") runs on the CPU: "), std::string::npos)
        << op << "\n"
        << npu.output;
  // ...and the ones it lowers do not leave it.
  for (const char* op : {"PRELU", "SELECT", "LOG_SOFTMAX", "SLICE", "HARD_SWISH"})
    EXPECT_EQ(npu.output.find(std::string("(") + op + ") runs on the CPU: "), std::string::npos)
        << op << "\n"
        << npu.output;
  const nlohmann::json c = npu::testing::operands_of(read_json("hal13.cpu.json"));
  const nlohmann::json n = npu::testing::operands_of(read_json("hal13.npu.json"));
  ASSERT_FALSE(c.is_discarded());
  ASSERT_EQ(c.size(), 11u);
  EXPECT_EQ(c, n);
  // Hand-checkable outputs. FILL of [2, 3] with 7; RANK of the [1, 4, 4, 2] PRELU result is 4;
  // cond OR NOT cond is all true; (cond OR NOT cond) AND cond has a true (cond[0]).
  EXPECT_EQ(c["59"], nlohmann::json::parse("[7, 7, 7, 7, 7, 7]"));
  EXPECT_EQ(c["62"], nlohmann::json::parse("[4]"));
  EXPECT_EQ(c["53"], nlohmann::json::parse("[true]"));
  EXPECT_EQ(c["56"], nlohmann::json::parse("[true]"));
  // ARGMAX over the channels of ELU(HARD_SWISH(PRELU(x))), all increasing for x > -1.5 and PRELU keeps
  // positives: pixel 0 x = [0, 1.933] -> 1; pixel 1 x = [2.956, 2.59] -> 0.
  ASSERT_TRUE(c["38"].is_array());
  EXPECT_EQ(c["38"][0], 1);
  EXPECT_EQ(c["38"][1], 0);
}

}  // namespace
