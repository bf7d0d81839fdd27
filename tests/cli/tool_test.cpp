// npusim as an installed tool: `cmake --install` lays out a tree that runs from any folder and can be
// moved, `--version` names the commit, `run --out DIR` leaves every result of a run in one folder, and a
// flag that would do nothing in its context is refused rather than ignored.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/csv.h"
#include "../support/run_npusim.h"

namespace {

namespace fs = std::filesystem;
using npu::test::CliRun;
using npu::test::npusim;
using npu::testing::csv_fields;
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

  // Shipped resources by name, and copies of shipped configs elsewhere: their relative "base" falls back
  // to the installed presets. The regression cases and fetch-models are installed too.
  const std::string in_empty = "cd " + empty.string() + " && " + (moved / "bin/npusim").string();
  EXPECT_TRUE(fs::is_regular_file(moved / "share/npusim/scripts/fetch-models"));
  EXPECT_TRUE(fs::is_regular_file(moved / "share/npusim/scripts/models.sha256"));
  fs::copy_file(moved / "share/npusim/configs/npu/large.json", empty / "my_hw.json");
  const CliRun copied = run_shell(in_empty + " config --hw my_hw.json");
  ASSERT_EQ(copied.status, 0) << copied.output;
  EXPECT_EQ(nlohmann::json::parse(copied.output),
            nlohmann::json::parse(run_shell(in_empty + " config --hw large").output));
  const CliRun regress = run_shell(in_empty + " regress conv-float-large");
  EXPECT_EQ(regress.status, 0) << regress.output;
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
  // The other commands that read the default config said "configs/npu/default.json: cannot open" too.
  ASSERT_EQ(npusim("example fc-float --dir .").status, 0);
  for (const std::string cmd : {"bench --model fc-quant8.model.json --iterations 1",
                                "quantize fc-float.model.json -o fc-q.json", "devices"}) {
    const CliRun other = run_shell("NPUSIM_CACHE_DIR=" + fs::absolute("cache-any-folder").string() + " " +
                                   NPUSIM_BIN + " " + cmd);
    EXPECT_EQ(other.status, 0) << cmd << "\n" << other.output;
    EXPECT_EQ(other.output.find("cannot open"), std::string::npos) << cmd << "\n" << other.output;
  }
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
            "operation,type,where,cpu_reason,command_buffers,tiles,macs,dram_bytes,output_type,output_dims,"
            "start_us,"
            "device_us,"
            "busy_us,compute_us,dma_in_us,dma_out_us,stall_us,array_utilisation,energy_pj");
  // conv-quant8 is one CONV_2D: on the NPU, one command buffer per channel.
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
  // The header described the NPU it did not use ("on npusim-cpu (4 channels, 16x16 tlm array, 1000 MHz)").
  // It names the host CPU's costs instead: host.cpu_gmacs and host.memcpy_gbps, 8 and 10 by default
  // (npusim config --explain).
  EXPECT_NE(cpu.output.find("npusim run: zoo:lstm_acoustic_float on npusim-cpu (CPU reference device: host "
                            "CPU at 8 GMAC/s, copies at 10 GB/s)\n"),
            std::string::npos)
      << cpu.output;
  EXPECT_EQ(cpu.output.find("channel"), std::string::npos) << cpu.output;
  EXPECT_EQ(cpu.output.find("array"), std::string::npos) << cpu.output;
  // host.* is what the CPU device's timing depends on: accepted, and the header follows it.
  const CliRun host =
      npusim("run --model zoo:lstm_acoustic_float --device cpu --set host.cpu_gmacs=4 --out h");
  ASSERT_EQ(host.status, 0) << host.output;
  EXPECT_NE(host.output.find("host CPU at 4 GMAC/s"), std::string::npos) << host.output;
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
      // The CPU reference device runs on the host: an NPU parameter changed nothing (it ran, exit 0).
      {run + "--device cpu --set npu.channels=2",
       "--set npu.channels=2: has no effect with --device cpu (the CPU reference device runs on the host; "
       "host.* sets its costs)"},
  };
  for (const auto& c : cases) {
    const CliRun r = npusim(c.args);
    EXPECT_EQ(r.status, 1) << c.args;
    EXPECT_NE(r.output.find("npusim: " + c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  // Valid selectors still pass: a tag, a dotted component, "all".
  for (const char* log : {"driver", "npu.ch0", "driver.regs,compilation"})
    EXPECT_EQ(npusim(std::string("--log ") + log + " " + run).status, 0) << log;
  // The environment variable is checked the same way (NPUSIM_LOG=bogus ran silently).
  const CliRun env = npu::testing::run_shell("NPUSIM_LOG=bogus " + std::string(NPUSIM_BIN) + " " + run);
  EXPECT_EQ(env.status, 1) << env.output;
  EXPECT_NE(env.output.find("npusim: NPUSIM_LOG: no log is named 'bogus'"), std::string::npos) << env.output;
  EXPECT_EQ(npu::testing::run_shell("NPUSIM_LOG=driver " + std::string(NPUSIM_BIN) + " " + run).status, 0);
}

// layers.csv had no tiles, no engine split, no DRAM bytes and no utilisation per operation.
TEST(Layers, TilesEngineTimeDramBytesAndUtilisationPerOperation) {
  const CliRun r = npusim("run --model zoo:mobilenet_v2_quant8 --out l");
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream csv(read("l/layers.csv"));
  std::string line;
  std::getline(csv, line);
  std::vector<std::string> header;
  for (std::stringstream h(line); std::getline(h, line, ',');) header.push_back(line);
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const auto stats = read_json("l/stats.json");
  uint64_t dram_bytes = 0, descriptors = 0, rows = 0;
  double compute_us = 0;
  while (std::getline(csv, line)) {
    // Split outside quotes (output_dims and cpu_reason are quoted).
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    ++rows;
    EXPECT_EQ(f[column("where")], "npu") << line;
    const uint64_t tiles = std::stoull(f[column("tiles")]);
    dram_bytes += std::stoull(f[column("dram_bytes")]);
    const double busy = std::stod(f[column("busy_us")]), compute = std::stod(f[column("compute_us")]);
    // Compute time exactly where there are compute tiles (a RESHAPE is DMA alone).
    EXPECT_EQ(compute > 0.0, tiles > 0) << line;
    if (f[column("type")] != "RESHAPE") {
      EXPECT_GT(tiles, 0u) << line;
    }
    EXPECT_LE(compute, busy + 1e-3) << line;
    EXPECT_NEAR(std::stod(f[column("stall_us")]), busy - compute, 2e-3) << line;
    compute_us += compute;
    const double util = std::stod(f[column("array_utilisation")]);
    EXPECT_GE(util, 0.0);
    EXPECT_LE(util, 1.0);
    if (f[column("type")] == "CONV_2D") {
      EXPECT_GT(util, 0.0) << line;
    }
  }
  EXPECT_EQ(rows, 66u);
  // Every DMA byte of the run is some operation's (DRAM also carries the 128-byte descriptor fetches).
  for (int c = 0; c < 4; ++c)
    descriptors += stats["npu"]["ch" + std::to_string(c)]["descriptors"].get<uint64_t>();
  EXPECT_EQ(dram_bytes + 128 * descriptors, stats["npu"]["dram"]["dma_bytes"].get<uint64_t>());
  // The engine time adds up to the compute engines' busy cycles (1 GHz: 1000 cycles per µs).
  double busy_cycles = 0;
  for (int c = 0; c < 4; ++c)
    busy_cycles += stats["npu"]["ch" + std::to_string(c)]["compute"]["busy_cycles"].get<double>();
  EXPECT_NEAR(compute_us * 1000, busy_cycles, busy_cycles * 0.01);
}

// scenario --compare ran for almost two minutes without a word. Progress goes to stderr on a terminal
// (here a pseudo-terminal from script(1)), never into a pipe, and --quiet silences it.
TEST(Progress, OnATerminalOnlyAndQuietSilencesIt) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string bench = std::string(NPUSIM_BIN) + " bench --model fc-quant8.model.json --iterations 3";
  const std::string scenario = std::string(NPUSIM_BIN) + " scenario " NPUSIM_SOURCE_DIR
                                                         "/configs/scenarios/camera_llm.json --scale 0.01";
  auto on_terminal = [](const std::string& cmd) {
    return run_shell("script -qec '" + cmd + " 2>&1 >/dev/null' /dev/null");
  };
  const CliRun b = on_terminal(bench);
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_NE(b.output.find("npusim: bench fc-quant8.model.json [1/6] iteration 1 of 3"), std::string::npos)
      << b.output;
  EXPECT_NE(b.output.find("[6/6] CPU reference 3 of 3"), std::string::npos) << b.output;
  const CliRun s = on_terminal(scenario);
  ASSERT_EQ(s.status, 0) << s.output;
  EXPECT_NE(s.output.find("npusim: scenario camera_llm [3/3] default: llm alone"), std::string::npos)
      << s.output;
  // Within each simulation, its share of the simulated time (camera_llm: 10 s scaled by 0.01).
  EXPECT_NE(s.output.find("[1/3] default: all apps (0 % of 0.1 s simulated)"), std::string::npos) << s.output;
  for (const std::string& quiet :
       {bench + " --quiet", scenario + " --quiet",
        std::string(NPUSIM_BIN) + " -q" + bench.substr(std::string(NPUSIM_BIN).size())}) {
    const CliRun q = on_terminal(quiet);
    EXPECT_EQ(q.status, 0) << quiet << "\n" << q.output;
    EXPECT_EQ(q.output.find("npusim:"), std::string::npos) << quiet << "\n" << q.output;
  }
  // Not a terminal: nothing on stderr.
  const CliRun piped = run_shell(bench + " 2>&1 >/dev/null", false);
  EXPECT_EQ(piped.output, "");
}

// Driver bring-up: register log lines had no time, the trace had no register or interrupt track.
TEST(DriverViews, TimestampedRegisterLogAndRegisterIrqTracks) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun r = npusim(
      "--log driver.regs run --model fc-quant8.model.json --inputs fc-quant8.inputs.json --outputs o.json "
      "--trace t.json");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::regex line(
      R"(^\[ *(\d+)\.(\d{3}) us\] \[driver\.regs\] (read |write) ([A-Z_0-9.]+) += 0x[0-9a-f]{8}$)");
  std::istringstream out(r.output);
  size_t register_lines = 0;
  double last_us = 0;
  for (std::string l; std::getline(out, l);) {
    std::smatch m;
    if (l.find("[driver.regs]") == std::string::npos) continue;
    ASSERT_TRUE(std::regex_match(l, m, line)) << l;
    const double us = std::stod(m[1].str() + "." + m[2].str());
    EXPECT_GE(us, last_us) << l;  // simulated time never runs backwards
    last_us = us;
    ++register_lines;
  }
  EXPECT_GT(register_lines, 10u);
  EXPECT_GT(last_us, 0.0);
  // The trace: a "registers" track with an instant per access and an "irq" track with handler spans.
  const auto trace = read_json("t.json");
  std::map<int64_t, std::string> names;
  for (const auto& e : trace["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
      names[e["tid"].get<int64_t>()] = e["args"]["name"];
  size_t accesses = 0, handlers = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (!e.contains("tid") || !names.count(e["tid"].get<int64_t>())) continue;
    const std::string& track = names[e["tid"].get<int64_t>()];
    if (track == "registers" && e["ph"] == "i") {
      ++accesses;
      EXPECT_TRUE(e["name"].get<std::string>().rfind("read ", 0) == 0 ||
                  e["name"].get<std::string>().rfind("write ", 0) == 0);
    }
    if (track == "irq" && e["ph"] == "X") ++handlers;
  }
  EXPECT_EQ(accesses, register_lines) << "one trace instant per logged register access";
  EXPECT_GT(handlers, 0u);
}

// `devices` re-measured the capabilities on every call (3-4.5 s). They are cached per hardware config and
// build: the second call reads the cache (no simulation: no register access at all), a changed config
// measures again, and a damaged cache file is measured over rather than trusted.
TEST(Devices, CapabilitiesCachedPerHardwareConfig) {
  const std::string env = "NPUSIM_CACHE_DIR=" + fs::absolute("cache").string() + " ";
  const std::string devices = env + NPUSIM_BIN + " --log driver.regs devices";
  const CliRun first = run_shell(devices);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("[driver.regs]"), std::string::npos) << "the first call measures";
  size_t files = 0;
  for (const auto& f : fs::directory_iterator("cache"))
    files += f.path().filename().string().rfind("devices-", 0) == 0;
  EXPECT_EQ(files, 1u);
  const CliRun second = run_shell(devices);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(second.output.find("[driver.regs]"), std::string::npos) << second.output;
  auto table = [](const std::string& out) {
    std::string t;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);)
      if (l.find("[driver.regs]") == std::string::npos && l.find("warning:") == std::string::npos)
        t += l + "\n";
    return t;
  };
  EXPECT_EQ(table(second.output), table(first.output));
  EXPECT_NE(table(first.output).find("npusim-npu-minimal"), std::string::npos);
  // Another hardware config: measured again, into a file of its own.
  const CliRun other = run_shell(devices + " --set npu.channels=2");
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_NE(other.output.find("[driver.regs]"), std::string::npos);
  files = 0;
  for (const auto& f : fs::directory_iterator("cache"))
    files += f.path().filename().string().rfind("devices-", 0) == 0;
  EXPECT_EQ(files, 2u);
  // Damaged files are not trusted.
  for (const auto& f : fs::directory_iterator("cache"))
    std::ofstream(f.path()) << "{\"identity\": \"x\", \"devices\": []}";
  const CliRun damaged = run_shell(devices);
  ASSERT_EQ(damaged.status, 0) << damaged.output;
  EXPECT_NE(damaged.output.find("[driver.regs]"), std::string::npos);
  EXPECT_NE(damaged.output.find("; measuring again"), std::string::npos) << damaged.output;
  EXPECT_EQ(table(damaged.output), table(first.output));
}

// `graph` used the model-JSON reader alone (zoo: and .onnx refused), escaped its own line breaks into a
// literal "\n" in every label, and drew each scalar parameter as a node of its own (MobileNet v2 came out
// at 31,224 × 15,371 px); then, with a node per value between operations and a line per parameter,
// still 669 × 19,720 px (dot -Tpng). Now: the loader every command uses, real line breaks, a box per
// operation with its output on the title line and its constants inside, values as edges.
TEST(Graph, ZooModelIsReadableWithConstantsInsideTheBoxes) {
  const CliRun r = npusim("graph zoo:mobilenet_v2_quant8 -o m.dot");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string dot = read("m.dot");
  EXPECT_EQ(dot.find("\\\\n"), std::string::npos) << "a label with an escaped (literal) line break";
  EXPECT_NE(dot.find("\\n"), std::string::npos);
  size_t operations = 0, operand_nodes = 0;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("->") != std::string::npos) continue;
    operations += line.find(" [shape=box") != std::string::npos;
    operand_nodes += line.rfind("  d", 0) == 0;
  }
  // MobileNet v2's 66 operations (see InstalledTreeRunsFromAnEmptyFolderAndCanBeMoved); one graph input
  // and one output are the only value nodes.
  EXPECT_EQ(operations, 66u);
  EXPECT_EQ(operand_nodes, 2u) << dot.substr(0, 2000);
  // The stem convolution (Sandler et al., table 2: 32 filters of 3×3 on the 224×224×3 image, stride 2):
  // its output on the title line, its weights and bias inside its box.
  EXPECT_NE(dot.find("0: CONV_2D → #3 TENSOR_QUANT8_ASYMM [1,112,112,32]\\lin1: const TENSOR_QUANT8_ASYMM "
                     "[32,3,3,3]\\lin2: const TENSOR_INT32 [32]\\l"),
            std::string::npos)
      << dot.substr(0, 2000);
}

// PNG size from its header (width, height).
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  if (png.size() < 24 || png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// The graph rendered by Graphviz (dot, scripts/install-deps) at a size one can scroll through and read.
// Bound: MobileNet v2 is a chain of 66 operations, one rank each, so its height grows with them; each
// rank may take at most 90 px at dot's 96 dpi (a four-line box of 10 pt text is about 60 px, plus the
// rank separation and an arrow): 66 × 90 = 5,940 px. The width stays within 1,000 px (the widest box, a
// title line of some 55 characters of 10 pt monospace, beside a residual edge). Main's node per value
// and line per parameter measured 669 × 19,720 px. Readable: every text is drawn at 9 pt or more (10 pt
// in the boxes, 9 pt for the input positions on edges) at scale 1, never shrunk to fit a page.
TEST(Graph, MobileNetV2RendersAtASaneSizeWithReadableText) {
  if (std::system("command -v dot > /dev/null 2>&1") != 0)
    GTEST_FAIL() << "Graphviz dot missing: scripts/install-deps";
  ASSERT_EQ(npusim("graph zoo:mobilenet_v2_quant8 -o render.dot").status, 0);
  ASSERT_EQ(run_shell("dot -Tpng render.dot -o render.png").status, 0);
  ASSERT_EQ(run_shell("dot -Tsvg render.dot -o render.svg").status, 0);
  const auto [width, height] = png_size(read("render.png"));
  EXPECT_GT(height, 66u * 40) << "one rank per operation, each box at least three text lines";
  EXPECT_LE(height, 66u * 90) << width << " x " << height;
  EXPECT_LE(width, 1000u) << width << " x " << height;
  const std::string svg = read("render.svg");
  EXPECT_NE(svg.find("transform=\"scale(1 1) "), std::string::npos) << "drawn at scale 1";
  const std::regex font("font-size=\"([0-9.]+)\"");
  size_t texts = 0;
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), font); m != std::sregex_iterator(); ++m) {
    ++texts;
    EXPECT_GE(std::stod((*m)[1]), 9.0);
  }
  // Every box line is a text: 66 titles at least.
  EXPECT_GT(texts, 66u * 2);
  EXPECT_NE(svg.find(">0: CONV_2D → #3 TENSOR_QUANT8_ASYMM [1,112,112,32]<"), std::string::npos);
}

// bench and graph read .onnx through the ONNX importer as run does (they used to parse it as JSON).
TEST(Graph, BenchAndGraphShareRunsModelLoader) {
  std::ofstream("junk.onnx") << "definitely not protobuf \x01\x02\x03";
  for (const char* cmd :
       {"run --model junk.onnx", "bench --model junk.onnx --iterations 1", "graph junk.onnx"}) {
    const CliRun r = npusim(cmd);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_EQ(r.output, "npusim: junk.onnx: not a valid ONNX model (protobuf parse failed)\n") << cmd;
  }
}

// Quantising an int8 model again used to succeed (cosine 0.78 against the float model it never had).
TEST(Quantize, RefusesAnAlreadyQuantisedModel) {
  const CliRun r = npusim("quantize zoo:mobilenet_v2_quant8 -o q.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output,
            "npusim: zoo:mobilenet_v2_quant8: the model is already quantised: no TENSOR_FLOAT32 operand to "
            "quantise "
            "(graph inputs: TENSOR_QUANT8_ASYMM)\n");
  EXPECT_FALSE(fs::exists("q.json"));
}

// Utilisation and bandwidth since time 0 over a 39 ms run said 1 % and 0.66 GB/s for an inference of
// 1.8 ms that moved 25.9 MB. The execution window (command buffers in flight) is reported beside them.
TEST(RunSummary, UtilisationAndBandwidthOverTheExecutionWindow) {
  const CliRun r = npusim("run --model zoo:mobilenet_v2_quant8 --out w --json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = nlohmann::json::parse(r.output);
  const auto stats = read_json("w/stats.json");
  const double window_ns = stats["npu"]["execution_window_ns"];
  const double dma_bytes = stats["npu"]["dram"]["dma_bytes"];
  const double end_ns = summary["simulated_end_s"].get<double>() * 1e9;
  // The window lies within the time on device (whole µs), and is far shorter than the run.
  EXPECT_GT(window_ns, 0.0);
  EXPECT_LE(window_ns, (summary["device_us"].get<double>() + 1) * 1000);
  EXPECT_LT(window_ns * 2, end_ns);
  EXPECT_DOUBLE_EQ(stats["npu"]["dram"]["window_bandwidth_gbps"].get<double>(), dma_bytes / window_ns);
  EXPECT_DOUBLE_EQ(summary["execution_window"]["dram_bandwidth_gbps"].get<double>(), dma_bytes / window_ns);
  EXPECT_DOUBLE_EQ(summary["whole_run"]["dram_bandwidth_gbps"].get<double>(),
                   stats["npu"]["dram"]["bandwidth_gbps"].get<double>());
  // Per channel: compute busy cycles over the window's cycles (1 GHz: one cycle per ns).
  double window_mean = 0;
  for (int c = 0; c < 4; ++c) {
    const auto& ch = stats["npu"]["ch" + std::to_string(c)];
    const double busy = ch["compute"]["busy_cycles"];
    EXPECT_NEAR(ch["window_utilisation"].get<double>(), busy / window_ns, 1e-3) << c;
    // The same busy cycles over the window instead of the whole run (1 GHz throughout).
    EXPECT_NEAR(ch["window_utilisation"].get<double>(), ch["utilisation"].get<double>() * end_ns / window_ns,
                1e-3 * ch["window_utilisation"].get<double>())
        << c;
    EXPECT_GT(ch["window_utilisation"].get<double>(), 2 * ch["utilisation"].get<double>()) << c;
    window_mean += ch["window_utilisation"].get<double>() / 4;
  }
  EXPECT_DOUBLE_EQ(summary["execution_window"]["compute_utilisation"].get<double>(), window_mean);
  const CliRun text = npusim("run --model zoo:mobilenet_v2_quant8 --out w2");
  EXPECT_NE(text.output.find("  execution window "), std::string::npos) << text.output;
}

// A run whose command buffer hung exited 0 with latency_us 2000018 and no word of the hang, the reset or
// the retry; and "258 jobs" counted command buffers where the driver counted 1 job.
TEST(RunSummary, HungRunExitsNonZeroNamingTheHang) {
  const CliRun r = npusim("run --model zoo:mobilenet_v2_quant8 --set npu.faults.kind=hang --out h");
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_NE(
      r.output.find("npusim: zoo:mobilenet_v2_quant8: the run met faults: 1 hang found by the watchdog"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the hung command buffer was reset and retried"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("in 258 command buffers"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("in 258 jobs"), std::string::npos) << r.output;
  const auto summary = read_json("h/summary.json");
  EXPECT_EQ(summary["faults"]["hangs"], 1);
  EXPECT_GE(summary["faults"]["channel_resets"].get<int>(), 1);
  EXPECT_EQ(summary["faults"]["jobs_failed"], 0);
  // One hang, under the hang limit (driver.timeouts.hang_limit = 2): one retry, none failed.
  EXPECT_EQ(summary["faults"]["retries"], 1);
  EXPECT_EQ(read_json("h/stats.json")["driver"]["watchdog"]["retries"], 1);
  EXPECT_NE(r.output.find("1 hang found by the watchdog, 1 retry, "), std::string::npos) << r.output;
  // Without a fault: exit 0 and no faults line.
  const CliRun clean = npusim("run --model zoo:mobilenet_v2_quant8 --out c");
  EXPECT_EQ(clean.status, 0) << clean.output;
  EXPECT_EQ(clean.output.find("faults"), std::string::npos) << clean.output;
}

// A DMA error or an uncorrectable SRAM ECC error fails the job (docs/driver.md, "Recovery"). `run` used to
// stop at "execute: GENERAL_FAILURE" with exit 1 and leave --out empty; now it exits 4 like any run
// that met a fault, names the fault in the summary and its JSON, and writes what it has: config,
// summary, stats, per-layer table and trace (no outputs: there are none).
TEST(RunSummary, DmaAndEccErrorsExitFourWithTheFaultInTheSummaryAndTheRunDirectory) {
  ASSERT_EQ(npusim("example conv-quant8 --dir .").status, 0);
  struct Case {
    const char* kind;
    const char* json_key;  // the summary's count of this error
    const char* stat;      // driver.errors.<stat>
    const char* text;      // in the faults line
    const char* error;     // the driver's error, as the summary quotes it
  } cases[] = {
      {"dma_error", "dma_faults", "dma_fault", "1 DMA fault, ", "DMA fault at descriptor"},
      {"sram_ecc", "sram_ecc_errors", "sram_ecc", "1 uncorrectable SRAM ECC error, ",
       "uncorrectable SRAM ECC error at descriptor"},
  };
  for (const auto& c : cases) {
    const std::string dir = std::string("f_") + c.kind;
    const CliRun r = npusim(
        "run --model conv-quant8.model.json --inputs conv-quant8.inputs.json --set "
        "npu.faults.kind=" +
        std::string(c.kind) + " --out " + dir);
    EXPECT_EQ(r.status, 4) << c.kind << "\n" << r.output;
    EXPECT_NE(r.output.find("npusim: conv-quant8.model.json: the run met faults: " + std::string(c.text)),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("  faults          " + std::string(c.text)), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 failed job"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("  failed          conv-quant8.model.json: execute: "), std::string::npos)
        << r.output;
    for (const char* f : {"config.json", "summary.json", "stats.json", "layers.csv", "trace.json"})
      EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / f)) << c.kind << ": " << f;
    EXPECT_FALSE(fs::exists(fs::path(dir) / "outputs.json")) << c.kind;
    const auto summary = read_json(fs::path(dir) / "summary.json");
    // The fault strikes once (npu.faults.*: one channel, one descriptor): one ERROR interrupt of that
    // code, the job it belonged to failed, nothing hung.
    EXPECT_EQ(summary["faults"][c.json_key], 1) << summary.dump(2);
    EXPECT_EQ(summary["faults"]["channel_errors"], 1);
    EXPECT_EQ(summary["faults"]["jobs_failed"], 1);
    EXPECT_EQ(summary["faults"]["hangs"], 0);
    EXPECT_EQ(summary["faults"]["retries"], 0);
    EXPECT_NE(summary.value("error", "").find(c.error), std::string::npos) << summary.dump(2);
    EXPECT_FALSE(summary.contains("outputs"));
    // A failed execution reports no timing (NNAPI's UINT64_MAX used to be printed as 18446744073709551615).
    EXPECT_TRUE(summary["latency_us"].is_null()) << summary.dump(2);
    EXPECT_EQ(r.output.find("18446744073709551615"), std::string::npos) << r.output;
    const auto stats = read_json(fs::path(dir) / "stats.json");
    EXPECT_EQ(stats["driver"]["errors"][c.stat], 1);
    EXPECT_EQ(stats["driver"]["jobs"]["failed"], 1);
    // --json prints the same summary with the same exit status.
    const CliRun j = npu::testing::run_shell(std::string(NPUSIM_BIN) +
                                                 " run --model conv-quant8.model.json --inputs "
                                                 "conv-quant8.inputs.json --outputs o.json --json --set "
                                                 "npu.faults.kind=" +
                                                 c.kind,
                                             false);
    EXPECT_EQ(j.status, 4) << j.output;
    const auto printed = nlohmann::json::parse(j.output, nullptr, false);
    ASSERT_FALSE(printed.is_discarded()) << j.output;
    EXPECT_EQ(printed["faults"], summary["faults"]);
  }
}

// One vocabulary: `run` printed "258 jobs" where the driver counted 1 job (the 258 were command buffers),
// and --json / the Python module called command buffers "npu_jobs". Each printed count, JSON key and
// stat now names the same thing: jobs as the driver counts them, command buffers as the channels do.
TEST(RunSummary, JobsStagesAndCommandBuffersAgreeWithTheStats) {
  // MobileNet v2 runs wholly on the NPU: one job, a stage per operation (66, as the layers.csv test
  // counts them).
  const CliRun r = npusim("run --model zoo:mobilenet_v2_quant8 --out v");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = read_json("v/summary.json");
  const auto stats = read_json("v/stats.json");
  EXPECT_FALSE(summary.contains("npu_jobs")) << "the old key for command buffers";
  uint64_t channel_buffers = 0;
  for (int c = 0; c < 4; ++c)
    channel_buffers += stats["npu"]["ch" + std::to_string(c)]["command_buffers"].get<uint64_t>();
  EXPECT_EQ(summary["jobs"], stats["driver"]["jobs"]["submitted"]);
  EXPECT_EQ(summary["jobs"], 1);
  EXPECT_EQ(summary["stages"], 66);
  EXPECT_EQ(summary["command_buffers"].get<uint64_t>(), channel_buffers);
  EXPECT_EQ(summary["jobs"], stats["hal"]["execution"]["jobs"]);
  EXPECT_EQ(summary["stages"], stats["hal"]["execution"]["stages"]);
  EXPECT_EQ(summary["command_buffers"], stats["hal"]["execution"]["command_buffers"]);
  // layers.csv: each operation's command buffers add up to the run's.
  std::istringstream csv(read("v/layers.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("operation,type,where,cpu_reason,command_buffers,", 0), 0u) << line;
  uint64_t per_operation = 0;
  while (std::getline(csv, line)) {
    // The fifth field; cpu_reason (the fourth) is quoted and empty on the NPU.
    std::stringstream f(line);
    std::string field;
    for (int i = 0; i < 5; ++i) std::getline(f, field, ',');
    per_operation += std::stoull(field);
  }
  EXPECT_EQ(per_operation, channel_buffers);
  const std::string counts = "submitted       1 job to the driver: 66 stages, " +
                             std::to_string(channel_buffers) + " command buffers";
  EXPECT_NE(r.output.find(counts), std::string::npos) << r.output;
}

// The run summary, the scenario metrics and the bench JSON named the build; stats.json, the Perfetto
// trace and `measure --json` (the sweep's rows) did not. Each names it now as the summary does.
TEST(Version, StatsTraceAndMeasureJsonNameTheBuild) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string model = "--model fc-quant8.model.json ";
  const CliRun r = npusim("run " + model + "--inputs fc-quant8.inputs.json --out v");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = read_json("v/summary.json");
  auto expect_build = [&](const nlohmann::json& made_by, const std::string& what) {
    ASSERT_TRUE(made_by.is_object()) << what;
    EXPECT_EQ(made_by.value("version", ""), "0.1.0") << what;
    EXPECT_EQ(made_by.value("git", "").rfind(source_commit(), 0), 0u) << what << ": " << made_by.dump();
    EXPECT_EQ(made_by, summary["npusim"]) << what;
  };
  expect_build(read_json("v/stats.json")["npusim"], "stats.json");
  expect_build(read_json("v/trace.json")["metadata"]["npusim"], "trace.json");
  const CliRun meta =
      npusim("run " + model + "--inputs fc-quant8.inputs.json --outputs o.json --stats m.json --stats-meta");
  ASSERT_EQ(meta.status, 0) << meta.output;
  expect_build(read_json("m.json")["npusim"], "stats.json with --stats-meta");
  // measure --json on stdout alone (what the sweep runner parses).
  const CliRun measured =
      npu::testing::run_shell(std::string(NPUSIM_BIN) + " measure " + model + "--iterations 1 --json", false);
  ASSERT_EQ(measured.status, 0) << measured.output;
  const auto m = nlohmann::json::parse(measured.output, nullptr, false);
  ASSERT_FALSE(m.is_discarded()) << measured.output;
  expect_build(m["npusim"], "measure --json");
  EXPECT_TRUE(m["metrics"].is_object());
}

// config.json, outputs.json and the model and inputs files npusim writes named no build. They name it now
// as the summary does, and each still reads back: config.json as --hw, the example's files as the model
// and inputs of a run.
TEST(Version, DataFilesNameTheBuildAndReadBack) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const std::string model = "--model fc-quant8.model.json --inputs fc-quant8.inputs.json ";
  const CliRun r = npusim("run " + model + "--out v --outputs o.json");
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json build = read_json("v/summary.json")["npusim"];
  ASSERT_TRUE(build.is_object()) << build.dump();
  EXPECT_EQ(build.value("git", "").rfind(source_commit(), 0), 0u) << build.dump();
  for (const char* f : {"v/config.json", "o.json", "fc-quant8.model.json", "fc-quant8.inputs.json"})
    EXPECT_EQ(read_json(f)["npusim"], build) << f;
  const CliRun again = npusim("run " + model + "--hw v/config.json --outputs o2.json");
  ASSERT_EQ(again.status, 0) << again.output;
  nlohmann::json first = read_json("o.json"), second = read_json("o2.json");
  EXPECT_EQ(first, second);
  ASSERT_EQ(npusim("zoo write lstm_acoustic_float --dir z").status, 0);
  EXPECT_EQ(read_json("z/lstm_acoustic_float.model.json")["npusim"], build);
  EXPECT_EQ(read_json("z/lstm_acoustic_float.inputs.json")["npusim"], build);
}

// `scenario` had no per-request table and no run directory (`--out` was an unknown option, exit 2).
// `--out DIR` writes the metrics (summary.json), jobs.csv, the report and the trace; jobs.csv has a row
// per request of every app, and its rows add up to the metrics: per app, rows = completed + dropped,
// dropped rows = dropped, missed + dropped rows = missed, the mean slowdown is the NTT and the
// nearest-rank median turnaround is p50. fcfs (non-preemptive) misses camera frames behind the LLM's
// jobs, so every outcome shows up; 2 simulated seconds (--scale 0.2) let the LLM load its 2.8 GB and
// finish a session.
TEST(ScenarioRunDirectory, JobsCsvAddsUpToTheMetrics) {
  const CliRun r = npusim("scenario " NPUSIM_SOURCE_DIR
                          "/configs/scenarios/camera_llm.json --policy fcfs --scale 0.2 --out s --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"summary.json", "jobs.csv", "report.html", "trace.json"})
    EXPECT_TRUE(fs::is_regular_file(fs::path("s") / f)) << f;
  const auto summary = read_json("s/summary.json");
  EXPECT_EQ(read_json("s/trace.json")["metadata"]["npusim"], summary["npusim"]);
  std::istringstream csv(read("s/jobs.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(
      line,
      "policy,app,uid,priority,model,workload,request,arrival_ms,start_ms,end_ms,turnaround_ms,isolated_ms,"
      "slowdown,deadline_ms,outcome,jobs,preemptions,device_us,energy_uj");
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  // ms with 6 decimals back to integer ns (exact).
  auto ns = [](const std::string& ms) {
    const size_t dot = ms.find('.');
    EXPECT_EQ(ms.size() - dot, 7u) << ms;
    return std::stoll(ms.substr(0, dot)) * 1000000 + std::stoll(ms.substr(dot + 1));
  };
  struct Tally {
    size_t rows = 0, dropped = 0, missed = 0, slowdowns = 0;
    double slowdown_sum = 0;
    std::vector<int64_t> turnaround_ns;
  };
  std::map<std::string, Tally> tally;  // by app
  while (std::getline(csv, line)) {
    const auto f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    EXPECT_EQ(f[column("policy")], "fcfs") << line;
    const std::string app = f[column("app")], outcome = f[column("outcome")];
    Tally& t = tally[app];
    ++t.rows;
    // camera_llm.json: the camera runs vision-small on 33.3 ms frames, one job each; the LLM runs
    // decoder-3b sessions of a 32-token prompt (one prefill chunk of prefill_chunk_tokens = 32) and 8
    // decoded tokens, one job each: 1 + 8 = 9 jobs.
    EXPECT_EQ(f[column("model")], app == "camera" ? "vision-small" : "decoder-3b") << line;
    EXPECT_EQ(f[column("workload")], app == "camera" ? "periodic" : "llm") << line;
    if (outcome == "dropped") {
      ++t.dropped;
      ++t.missed;
      EXPECT_EQ(f[column("end_ms")], "") << line;
      continue;
    }
    EXPECT_EQ(std::stoul(f[column("jobs")]), app == "camera" ? 1u : 9u) << line;
    const int64_t arrival = ns(f[column("arrival_ms")]), start = ns(f[column("start_ms")]),
                  end = ns(f[column("end_ms")]), turnaround = ns(f[column("turnaround_ms")]);
    EXPECT_LE(arrival, start) << line;
    EXPECT_LE(start, end) << line;
    EXPECT_EQ(turnaround, end - arrival) << line;
    t.turnaround_ns.push_back(turnaround);
    if (app == "camera") {
      ASSERT_FALSE(f[column("deadline_ms")].empty()) << line;
      const int64_t deadline = ns(f[column("deadline_ms")]);
      EXPECT_NEAR(static_cast<double>(deadline - arrival), 33.333333e6, 1.0)
          << line;  // deadline_ms 33.333333
      EXPECT_EQ(outcome, end > deadline ? "missed" : "met") << line;
    } else {
      EXPECT_EQ(outcome, "no_deadline") << line;
    }
    t.missed += outcome == "missed";
    if (!f[column("slowdown")].empty()) {
      const double iso = static_cast<double>(ns(f[column("isolated_ms")]));
      EXPECT_NEAR(std::stod(f[column("slowdown")]), static_cast<double>(turnaround) / iso, 1e-6) << line;
      t.slowdown_sum += std::stod(f[column("slowdown")]);
      ++t.slowdowns;
    }
    EXPECT_GT(std::stod(f[column("device_us")]), 0.0) << line;
    EXPECT_GT(std::stod(f[column("energy_uj")]), 0.0) << line;
  }
  ASSERT_EQ(summary["runs"].size(), 1u);
  const auto& run = summary["runs"][0];
  EXPECT_EQ(run["policy"], "fcfs");
  size_t apps_with_rows = 0;
  for (const auto& a : run["apps"]) {
    const std::string name = a["name"];
    Tally& t = tally[name];
    apps_with_rows += t.rows > 0;
    EXPECT_EQ(t.rows, a["completed"].get<size_t>() + a["dropped"].get<size_t>()) << name;
    EXPECT_EQ(t.dropped, a["dropped"].get<size_t>()) << name;
    EXPECT_EQ(t.missed, a["missed"].get<size_t>()) << name;
    if (t.slowdowns) {
      EXPECT_NEAR(t.slowdown_sum / t.slowdowns, a["ntt"].get<double>(), 1e-5) << name;
    }
    if (!t.turnaround_ns.empty()) {
      std::sort(t.turnaround_ns.begin(), t.turnaround_ns.end());
      // Nearest rank: the ceil(0.5 n)-th smallest.
      const size_t rank = (t.turnaround_ns.size() + 1) / 2;
      EXPECT_NEAR(static_cast<double>(t.turnaround_ns[rank - 1]) / 1e6, a["p50_ms"].get<double>(), 1e-6)
          << name;
    }
  }
  EXPECT_EQ(apps_with_rows, 2u) << "camera frames and at least one LLM session";
  EXPECT_GT(tally["camera"].missed, tally["camera"].dropped)
      << "fcfs makes some frames late, not only dropped";
}

// The docs once cited a section of a specification kept outside the repository, and comments cited
// tracker issues by number: the docs, sources and build files stand alone.
TEST(Docs, CiteNoDocumentOutsideTheRepository) {
  const fs::path root(NPUSIM_SOURCE_DIR);
  std::vector<fs::path> files = {root / "README.md"};
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name[0] == '.' || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file() &&
        (ext == ".md" || ext == ".cpp" || ext == ".h" || ext == ".py" || name == "CMakeLists.txt"))
      files.push_back(it->path());
  }
  ASSERT_GT(files.size(), 400u);
  // Spelled in pieces so that this file does not match itself.
  const std::regex outside(std::string(R"(\bSP)") + R"(EC\b|)" + "\u00a7" + R"(|\b[Ii]ssue [0-9]+)");
  for (const auto& f : files) {
    const std::string text = read(f);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(text, m, outside)) << f << ": " << m.str();
  }
}

// docs/models.md said the default device memory was 4 GiB while the shipped default config has 12 GiB.
TEST(Docs, ModelsDocStatesTheShippedDramSize) {
  const auto cfg = read_json(NPUSIM_SOURCE_DIR "/configs/npu/default.json");
  const unsigned gib = cfg["npu"]["dram"]["size_mib"].get<unsigned>() / 1024;
  const unsigned weight_gib = cfg["npu"]["weight_memory"]["mib"].get<unsigned>() / 1024;
  const std::string doc = read(NPUSIM_SOURCE_DIR "/docs/models.md");
  EXPECT_EQ(doc.find("default 4 GiB"), std::string::npos);
  EXPECT_NE(doc.find("default " + std::to_string(gib) + " GiB of device memory, " +
                     std::to_string(weight_gib) + " GiB of it weight memory"),
            std::string::npos);
}

}  // namespace
