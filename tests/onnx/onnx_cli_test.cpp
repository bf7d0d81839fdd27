// `npusim import` and `npusim quantize` as users meet them: exit status, the report lines, one-line
// errors for bad files.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct CliRun {
  int status;
  std::string output;  // stdout + stderr
};

CliRun npusim(const std::string& args) {
  const std::string cmd = std::string(NPUSIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int rc = p ? pclose(p) : -1;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

const std::string kHw = std::string(" --hw ") + NPUSIM_SOURCE_DIR "/configs/npu/default.json";

TEST(OnnxCli, ImportOfAFileThatIsNotOnnxIsOneLine) {
  std::ofstream("junk.onnx") << "definitely not protobuf \x01\x02\x03";
  const CliRun r = npusim("import junk.onnx -o junk.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "npusim: junk.onnx: not a valid ONNX model (protobuf parse failed)\n");
}

TEST(OnnxCli, RunOfAMissingOnnxFileIsOneLine) {
  const CliRun r = npusim("run" + kHw + " --model none.onnx --inputs i.json --outputs o.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output.rfind("npusim: none.onnx: cannot open", 0), 0u) << r.output;
}

TEST(OnnxCli, QuantizeWritesAnInt8ModelAndReportsItsError) {
  ASSERT_EQ(npusim("example conv-float --dir .").status, 0);
  const CliRun r = npusim("quantize conv-float.model.json -o conv-int8.json --samples 2" + kHw);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("per-channel weights, 2 calibration samples"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("int8 placement  npu\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cosine"), std::string::npos) << r.output;
  std::ifstream q("conv-int8.json");
  std::string text((std::istreambuf_iterator<char>(q)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("TENSOR_QUANT8_SYMM_PER_CHANNEL"), std::string::npos);
}

// --json carries the figures of the text report (docs tables are generated from it).
TEST(OnnxCli, QuantizeJsonReportsPlacementLatencyAndAccuracy) {
  ASSERT_EQ(npusim("example conv-float --dir .").status, 0);
  const std::string cmd = std::string(NPUSIM_BIN) + " quantize conv-float.model.json -o conv-int8j.json" +
                          " --samples 2 --json" + kHw + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  ASSERT_EQ(pclose(p), 0) << out;
  const auto j = nlohmann::json::parse(out);  // stdout is the JSON document alone
  EXPECT_EQ(j.at("placement"), "npu");
  EXPECT_EQ(j.at("calibration_samples"), 2);
  EXPECT_EQ(j.at("weights"), "per-channel");
  EXPECT_GT(j.at("latency_us").get<uint64_t>(), 0u);
  EXPECT_GT(j.at("npu_cycles").get<uint64_t>(), 0u);
  const auto& acc = j.at("accuracy");
  EXPECT_GT(acc.at("elements").get<uint64_t>(), 0u);
  EXPECT_GT(acc.at("cosine").get<double>(), 0.9);
  EXPECT_LE(acc.at("cosine").get<double>(), 1.0 + 1e-9);
}

}  // namespace
