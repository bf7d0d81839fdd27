// npusim as an installed tool: `cmake --install` lays out a tree that runs from any folder and can be
// moved, `--version` names the commit, `run --out DIR` leaves every result of a run in one folder, and a
// flag that would do nothing in its context is refused rather than ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/run_npusim.h"

namespace {

namespace fs = std::filesystem;
using npu::test::CliRun;
using npu::test::npusim;
using npu::testing::run_shell;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read(p)); }

// The commit the build was made from, as `git rev-parse` prints it ("unknown" outside a checkout).
std::string source_commit() {
  const CliRun r = run_shell("git -C " NPUSIM_SOURCE_DIR " rev-parse --short=12 HEAD", false);
  std::string hash = r.output.substr(0, r.output.find('\n'));
  return r.status == 0 && !hash.empty() ? hash : "unknown";
}

// Lines of a CSV file, header included.
size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(Install, InstalledTreeRunsFromAnEmptyFolderAndCanBeMoved) {
  const fs::path prefix = fs::absolute("prefix"), moved = fs::absolute("moved"),
                 empty = fs::absolute("empty");
  const CliRun install =
      run_shell(std::string(NPUSIM_CMAKE) + " --install " NPUSIM_BUILD_ROOT " --prefix " + prefix.string());
  ASSERT_EQ(install.status, 0) << install.output;
  const fs::path exe = prefix / "bin" / "npusim";
  ASSERT_TRUE(fs::is_regular_file(exe));
  EXPECT_TRUE(fs::is_regular_file(prefix / "share" / "npusim" / "configs" / "npu" / "default.json"));
  EXPECT_TRUE(fs::is_regular_file(prefix / "share" / "npusim" / "configs" / "scenarios" / "camera_llm.json"));
  EXPECT_TRUE(fs::is_regular_file(prefix / "share" / "doc" / "npusim" / "README.md"));

  const CliRun version = run_shell(exe.string() + " --version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.output.rfind("npusim 0.1.0 (git " + source_commit(), 0), 0u) << version.output;

  // The default hardware config is the installed copy, not the source tree's nor one in the folder.
  fs::create_directories(empty);
  const CliRun help = run_shell("cd " + empty.string() + " && " + exe.string() + " run --help");
  EXPECT_NE(help.output.find((prefix / "share/npusim/configs/npu/default.json").string()), std::string::npos)
      << help.output;

  // The README's must-show: a zoo model with no --hw, --inputs or --outputs, from an empty folder.
  const CliRun run = run_shell("cd " + empty.string() + " && " + exe.string() +
                               " run --model zoo:mobilenet_v2_quant8 --out r/");
  ASSERT_EQ(run.status, 0) << run.output;
  const fs::path r = empty / "r";
  for (const char* f :
       {"config.json", "summary.json", "stats.json", "layers.csv", "trace.json", "outputs.json"})
    EXPECT_TRUE(fs::is_regular_file(r / f)) << f;
  const auto summary = read_json(r / "summary.json");
  EXPECT_EQ(summary["npusim"]["git"].get<std::string>().rfind(source_commit(), 0), 0u) << summary.dump();
  EXPECT_EQ(summary["npusim"]["version"], "0.1.0");
  EXPECT_EQ(summary["model"], "zoo:mobilenet_v2_quant8");
  EXPECT_FALSE(summary["timing_only"].get<bool>());
  EXPECT_GT(summary["npu_cycles"].get<uint64_t>(), 0u);
  // MobileNet v2 (Sandler et al., table 2): the stem conv, 17 bottlenecks (the first without expansion:
  // dw + project = 2; the other 16: expand + dw + project = 48), 10 residual ADDs, the 1×1 conv to 1280,
  // average pool, reshape, the classifier and softmax = 1 + 2 + 48 + 10 + 1 + 1 + 1 + 1 + 1 = 66 operations,
  // one row each after the header.
  EXPECT_EQ(line_count(read(r / "layers.csv")), 1u + 66u);
  EXPECT_EQ(read_json(r / "config.json")["npu"]["channels"], 4);

  // Moved as a whole, the tree finds its own configs at the new place.
  fs::rename(prefix, moved);
  const CliRun moved_help =
      run_shell("cd " + empty.string() + " && " + (moved / "bin/npusim").string() + " run --help");
  EXPECT_NE(moved_help.output.find((moved / "share/npusim/configs/npu/default.json").string()),
            std::string::npos)
      << moved_help.output;
}

// From the build tree too, a command run in another folder finds the shipped default config.
TEST(Install, BuildTreeFindsItsConfigsFromAnyFolder) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r = npusim("run --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json");
  EXPECT_EQ(r.status, 0) << r.output;
  const CliRun help = npusim("run --help");
  EXPECT_NE(help.output.find(NPUSIM_SOURCE_DIR "/configs/npu/default.json"), std::string::npos)
      << help.output;
  // NPUSIM_DATA_DIR overrides both: a folder without configs/ is an error naming the missing file.
  const CliRun env =
      run_shell("NPUSIM_DATA_DIR=/nonexistent " NPUSIM_BIN
                " run --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json");
  EXPECT_NE(env.status, 0);
  EXPECT_NE(env.output.find("/nonexistent/configs/npu/default.json"), std::string::npos) << env.output;
}

// --out collects the run; a file named by its own flag goes where that flag says. The resolved
// config written there is itself a config giving the same resolved config.
TEST(Install, OutDirectoryAndIndividualFlags) {
  ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0);
  const CliRun r = npusim(
      "run --model conv-quant8.model.json --inputs conv-quant8.inputs.json --set npu.channels=2 --out run1 "
      "--stats own_stats.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file("own_stats.json"));
  EXPECT_FALSE(fs::exists("run1/stats.json"));
  const auto config = read_json("run1/config.json");
  EXPECT_EQ(config["npu"]["channels"], 2);  // --set applied
  const std::string csv = read("run1/layers.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "operation,type,where,cpu_reason,jobs,macs,output_type,output_dims,start_us,device_us,busy_us,"
            "energy_pj");
  // conv-quant8 is one CONV_2D: on the NPU, one job per channel.
  EXPECT_NE(csv.find("\n0,CONV_2D,npu,\"\",2,"), std::string::npos) << csv;

  const CliRun again = npusim(
      "run --hw run1/config.json --model conv-quant8.model.json --inputs "
      "conv-quant8.inputs.json --out run2");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(read_json("run2/config.json"), config);
  EXPECT_EQ(read_json("run2/outputs.json"), read_json("run1/outputs.json"));
  EXPECT_EQ(read_json("run2/summary.json")["npu_cycles"], read_json("run1/summary.json")["npu_cycles"]);
}

// The CPU reference device names itself; a zoo model without --inputs runs on the inputs `zoo write` writes.
TEST(Install, CpuDeviceNamedAndZooSeededInputs) {
  const CliRun cpu = npusim("run --model zoo:lstm_acoustic_float --device cpu --out c");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_EQ(cpu.output.find("on npusim-npu"), std::string::npos) << cpu.output;
  EXPECT_EQ(read_json("c/summary.json")["device"], "npusim-cpu");
  ASSERT_EQ(npusim("zoo write lstm_acoustic_float --dir z").status, 0);
  const CliRun given = npusim(
      "run --model zoo:lstm_acoustic_float --device cpu --inputs z/lstm_acoustic_float.inputs.json "
      "--outputs given.json");
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_EQ(read_json("given.json"), read_json("c/outputs.json"));
}

// Each of these once passed silently and did nothing.
TEST(IneffectiveFlags, AreRefusedNamingTheFlag) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string run = "run --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json ";
  struct Case {
    std::string args, message;
  } cases[] = {
      {run + "--stats-meta", "--stats-meta: has no effect without --stats or --out"},
      {run + "--waves w", "--waves: has no effect unless the compute core is the RTL"},
      {"--log bogus " + run, "--log: no log is named 'bogus'"},
      {"scenario " NPUSIM_SOURCE_DIR "/configs/scenarios/camera_llm.json --scale-thermal",
       "--scale-thermal: has no effect without --scale"},
      {"scenario " NPUSIM_SOURCE_DIR "/configs/scenarios/camera_llm.json --scale 0.01 --trace-descriptors",
       "--trace-descriptors: has no effect without --trace"},
  };
  for (const auto& c : cases) {
    const CliRun r = npusim(c.args);
    EXPECT_EQ(r.status, 1) << c.args;
    EXPECT_NE(r.output.find("npusim: " + c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  // Valid selectors still pass: a tag, a dotted component, "all".
  for (const char* log : {"driver", "npu.ch0", "driver.regs,compilation"})
    EXPECT_EQ(npusim(std::string("--log ") + log + " " + run).status, 0) << log;
}

}  // namespace
