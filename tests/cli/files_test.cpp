// Files npusim writes and caches it reads back, as a careless or hostile user meets them:
// an output named by a symbolic link, a FIFO or a character device is written through (the link kept,
// the special file never replaced) or refused in one line; the capability cache of `npusim devices` is
// believed only under its MAC, and a rejected entry is one warning and a new measurement.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/run_npusim.h"

namespace {

using npu::test::CliRun;
namespace fs = std::filesystem;

using npu::testing::lines;
using npu::testing::read;

// Each case in a folder of its own (ctest may run them at once), with the example model there.
class CliFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::absolute(std::string("files_test_") +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " example conv-quant8 --dir .").status, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A shell command in the case's folder, stdout and stderr together (ctest's timeout stops a hang).
  CliRun sh(const std::string& cmd) const {
    return npu::testing::run_shell("(cd " + dir_.string() + " && " + cmd + ")");
  }
  // `npusim run` writing its outputs to `outputs`, stderr alone.
  CliRun run_to(const std::string& outputs) const {
    return sh(std::string(NPUSIM_BIN) +
              " run --hw " NPUSIM_SOURCE_DIR
              "/configs/npu/default.json --model conv-quant8.model.json --inputs "
              "conv-quant8.inputs.json --outputs " +
              outputs + " 2>&1 >/dev/null");
  }
  fs::path dir_;
};

// Before: the link was replaced by a regular file, the file it named left stale.
TEST_F(CliFiles, AnOutputNamedByASymlinkReplacesItsTargetAndKeepsTheLink) {
  fs::create_directories(dir_ / "results");
  std::ofstream(dir_ / "results" / "o.json") << "old\n";
  fs::create_symlink("results/o.json", dir_ / "o.json");
  const CliRun r = run_to("o.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir_ / "o.json"));
  EXPECT_EQ(fs::read_symlink(dir_ / "o.json"), "results/o.json");
  EXPECT_FALSE(
      nlohmann::json::parse(read((dir_ / "results" / "o.json").string()), nullptr, false).is_discarded());
  for (const auto& f : fs::directory_iterator(dir_ / "results"))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
}

TEST_F(CliFiles, ASymlinkToNothingIsRefused) {
  fs::create_symlink("missing/o.json", dir_ / "o.json");
  const CliRun r = run_to("o.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("o.json: cannot write: it is a symbolic link to a file that does not exist"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::is_symlink(dir_ / "o.json"));
}

// Before: the FIFO was replaced by a regular file. Now one line and the FIFO stays, or, with a reader,
// the outputs go down the pipe.
TEST_F(CliFiles, AFifoIsWrittenThroughOrRefusedNeverReplaced) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0600), 0);
  const CliRun lonely = run_to("pipe");
  EXPECT_EQ(lonely.status, 1) << lonely.output;
  EXPECT_EQ(lines(lonely.output), 1) << lonely.output;
  EXPECT_NE(lonely.output.find("pipe: cannot write: it is a FIFO with no reader"), std::string::npos)
      << lonely.output;
  EXPECT_TRUE(fs::is_fifo(dir_ / "pipe"));
  // A reader waiting on the pipe (opened before npusim writes: `cat` blocks in open until then).
  const CliRun read_through = sh("(cat pipe > got.json &) ; " + std::string(NPUSIM_BIN) +
                                 " run --hw " NPUSIM_SOURCE_DIR
                                 "/configs/npu/default.json --model conv-quant8.model.json --inputs "
                                 "conv-quant8.inputs.json --outputs pipe >/dev/null && sleep 1");
  EXPECT_EQ(read_through.status, 0) << read_through.output;
  EXPECT_TRUE(fs::is_fifo(dir_ / "pipe"));
  EXPECT_FALSE(nlohmann::json::parse(read((dir_ / "got.json").string()), nullptr, false).is_discarded())
      << read((dir_ / "got.json").string());
}

// `--outputs /dev/full` as root deleted the device node and left a JSON file in its place. Checked on
// device nodes of the case's own (made with mknod, so root only): /dev/full's numbers (1, 7) refuse the
// write in one line, /dev/null's (1, 3) take it; both stay character devices.
TEST_F(CliFiles, CharacterDevicesAreWrittenThroughNeverReplaced) {
  if (::mknod((dir_ / "full").c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0 ||
      ::mknod((dir_ / "null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod needs root";
  const CliRun full = run_to("full");
  EXPECT_EQ(full.status, 1) << full.output;
  EXPECT_EQ(lines(full.output), 1) << full.output;
  EXPECT_NE(full.output.find("full: cannot write: No space left on device"), std::string::npos)
      << full.output;
  EXPECT_TRUE(fs::is_character_file(dir_ / "full"));
  const CliRun null = run_to("null");
  EXPECT_EQ(null.status, 0) << null.output;
  EXPECT_TRUE(fs::is_character_file(dir_ / "null"));
  for (const auto& f : fs::directory_iterator(dir_))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
}

// The capability cache was plain JSON, believed if its "identity" matched: a forged file made `devices`
// print version FORGED, and a top-level array ended it with an uncaught exception. Now each entry is
// signed (the compilation cache's HMAC under the installation key): a top-level array, a forged entry (a
// byte of the real one changed), a truncated one and an entry of another installation (another key) are
// each one warning naming the file, then measured again and rewritten; the table is the measured one.
TEST_F(CliFiles, TheCapabilityCacheIsBelievedOnlyUnderItsMac) {
  const std::string env = "NPUSIM_CACHE_DIR=" + (dir_ / "cache").string() +
                          " NPUSIM_CACHE_KEY=" + (dir_ / "cache.key").string() + " ";
  const std::string devices = env + NPUSIM_BIN + " --log driver.regs devices";
  auto table = [](const std::string& out) {
    std::string t;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);)
      if (l.find("[driver.regs]") == std::string::npos && l.find("warning:") == std::string::npos)
        t += l + "\n";
    return t;
  };
  auto warnings = [](const std::string& out) {
    int n = 0;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) n += l.find("warning:") != std::string::npos;
    return n;
  };
  const CliRun first = sh(devices);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(warnings(first.output), 0) << first.output;
  std::string entry;
  for (const auto& f : fs::directory_iterator(dir_ / "cache"))
    if (f.path().filename().string().rfind("devices-", 0) == 0) entry = f.path().string();
  ASSERT_FALSE(entry.empty()) << "no devices-* file in the cache folder";
  const std::string genuine = read(entry);
  ASSERT_NE(genuine.find("npusim-npu"), std::string::npos);
  const CliRun cached = sh(devices);
  ASSERT_EQ(cached.status, 0) << cached.output;
  EXPECT_EQ(cached.output.find("[driver.regs]"), std::string::npos) << "a genuine entry is read back";
  EXPECT_EQ(table(cached.output), table(first.output));

  std::string forged = genuine;
  forged.replace(forged.find("npusim-npu"), 10, "FORGED-npu");
  struct Case {
    std::string name, content, reason;
  };
  const Case cases[] = {
      {"a top-level array", "[" + std::string(100, ' ') + "1]\n", "bad magic"},
      {"a forged entry", forged, "MAC mismatch"},
      {"a truncated entry", genuine.substr(0, 30), "truncated (30 bytes)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << c.content;
    const CliRun r = sh(devices);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(warnings(r.output), 1) << r.output;
    EXPECT_NE(r.output.find("npusim devices: warning: " + entry + ": "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.reason), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("; measuring again"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[driver.regs]"), std::string::npos) << "measured again";
    EXPECT_EQ(r.output.find("FORGED"), std::string::npos) << r.output;
    EXPECT_EQ(table(r.output), table(first.output));
    EXPECT_EQ(read(entry), genuine) << "rewritten";
  }
  // Another installation's key: the same bytes no longer verify.
  fs::remove(dir_ / "cache.key");
  const CliRun other = sh(devices);
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_NE(other.output.find("MAC mismatch"), std::string::npos) << other.output;
  EXPECT_EQ(table(other.output), table(first.output));
}

// A 200-byte model with a [65536, 65536] float input and npu.functional=false grew to 23.8 GB and was
// killed. The inputs and outputs are now checked against the memory budget before a buffer is allocated:
// here a [16384, 16384] float input and output (1 GiB each, 4 GiB with the DRAM's copies) under a 1 GiB
// budget, one line at once. The address-space cap keeps the case from taking the machine's memory on a
// build without the check.
TEST_F(CliFiles, InputsAndOutputsBeyondTheMemoryBudgetAreRefusedBeforeAllocating) {
  std::ofstream(dir_ / "big.model.json") << R"({"operands": [
      {"type": "TENSOR_FLOAT32", "dimensions": [16384, 16384], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [16384, 16384], "lifetime": "SUBGRAPH_OUTPUT"}],
    "operations": [{"type": "RELU", "inputs": [0], "outputs": [1]}], "inputIndexes": [0], "outputIndexes": [1]})";
  const std::string run = std::string(NPUSIM_BIN) + " run --hw " NPUSIM_SOURCE_DIR
                                                    "/configs/npu/default.json --model big.model.json "
                                                    "--set npu.functional=false";
  const std::string budget =
      "big.model.json: its inputs and outputs need at least 4.0 GiB of host memory (held by the host and in "
      "the "
      "simulated DRAM; the largest is input 0 (TENSOR_FLOAT32 [16384,16384], 1.0 GiB)), above the memory "
      "budget "
      "of 1.0 GiB (NPUSIM_MEMORY_LIMIT or --memory-limit)";
  for (const std::string& how : {"NPUSIM_MEMORY_LIMIT=1G " + run, run + " --memory-limit 1024M"}) {
    SCOPED_TRACE(how);
    const CliRun r = sh("(ulimit -v 3000000; " + how + " 2>&1 >/dev/null)");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_EQ(lines(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(budget), std::string::npos) << r.output;
  }
  const CliRun bad = sh(run + " --memory-limit 12X 2>&1 >/dev/null");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_EQ(lines(bad.output), 1) << bad.output;
  EXPECT_NE(bad.output.find("--memory-limit: \"12X\": expected a size such as 512M, 8G"), std::string::npos)
      << bad.output;
}

}  // namespace
