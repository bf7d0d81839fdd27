// `npusim sweep` end to end on the shipped small sweep (configs/sweeps/small.json): every point x workload
// recorded; a second run gives identical rows; a run killed halfway (SIGKILL, or Ctrl-C's SIGINT) and
// resumed gives the same rows as an uninterrupted one; a failing workload records its error and the sweep
// goes on; CSV export; the HTML report's Pareto plots drawn in headless Chromium, with a screenshot.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "../support/run_npusim.h"
#include "npu/sweep/database.h"

namespace npu::sweep {
namespace {

using test::npusim;

const std::string kSmall = std::string(NPUSIM_SOURCE_DIR) + "/configs/sweeps/small.json";
const std::string kHw = " --hw " + std::string(NPUSIM_SOURCE_DIR) + "/configs/npu/default.json";

// The small sweep's design points, by hand: channels {1, 4} x square arrays {8, 16} x DRAM {6.4, 25.6}
// GB/s, over two workloads.
constexpr size_t kPoints = 8, kWorkloads = 2;

std::vector<std::string> rows_of(const std::string& path) {
  auto db = Database::open(path, {});
  if (!db) return {"cannot open " + path + ": " + db.error()};
  auto rows = db->rows();
  std::vector<std::string> out;
  for (const auto& r : *rows) out.push_back(r.to_json().dump());
  return out;
}

size_t row_count(const std::string& path) {
  auto db = Database::open(path, {});
  if (!db) return 0;
  auto rows = db->rows();
  return rows ? rows->size() : 0;
}

// Removes a database left by an earlier run of the tests in this folder (a rerun must start afresh).
void fresh(const std::string& db) {
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db + s);
}

// The uninterrupted run every other run is compared with (one per test process: tests run apart).
const std::vector<std::string>& reference_rows() {
  static const std::vector<std::string> rows = [] {
    fresh("ref.sqlite");
    auto r = npusim("sweep " + kSmall + " --db ref.sqlite -j 2 --quiet");
    EXPECT_EQ(r.status, 0) << r.output;
    return rows_of("ref.sqlite");
  }();
  return rows;
}

TEST(SweepCli, SmallSweepRecordsEveryPointIdenticallyTwice) {
  const auto& ref = reference_rows();
  ASSERT_EQ(ref.size(), kPoints * kWorkloads);
  std::set<std::string> designs;
  for (const auto& text : ref) {
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j["status"], "ok") << text;
    EXPECT_EQ(j["params"]["npu.channel.array.rows"], j["params"]["npu.channel.array.cols"]);
    EXPECT_GT(j["metrics"]["latency_p50_us"].get<double>(), 0) << text;
    EXPECT_GT(j["metrics"]["area_mm2"].get<double>(), 0) << text;
    EXPECT_EQ(j["command"].get<std::string>().rfind("npusim measure --hw ", 0), 0u);
    designs.insert(j["params"].dump());
  }
  EXPECT_EQ(designs.size(), kPoints);
  // Determinism: a second database from scratch holds the same rows.
  fresh("again.sqlite");
  auto r = npusim("sweep " + kSmall + " --db again.sqlite -j 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(rows_of("again.sqlite"), ref);
  // A rerun on a complete database runs nothing.
  r = npusim("sweep " + kSmall + " --db again.sqlite -j 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("16 already in again.sqlite, 0 to run"), std::string::npos) << r.output;
  EXPECT_EQ(rows_of("again.sqlite"), ref);
}

// Starts the sweep with one job at a time, waits until `rows` rows are in, sends `sig`; returns the exit
// status (waitpid) of the sweep.
int start_and_kill(const std::string& db, size_t rows, int sig) {
  fresh(db);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(NPUSIM_BIN, NPUSIM_BIN, "sweep", kSmall.c_str(), "--db", db.c_str(), "-j", "1", "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (row_count(db) < rows && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(SweepCli, KilledHalfwayAndResumedGivesTheSameRows) {
  const auto& ref = reference_rows();
  ASSERT_EQ(ref.size(), kPoints * kWorkloads);
  const int status = start_and_kill("killed.sqlite", ref.size() / 2, SIGKILL);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const size_t partial = row_count("killed.sqlite");
  EXPECT_GE(partial, ref.size() / 2);
  EXPECT_LT(partial, ref.size()) << "killed before the end";
  auto r = npusim("sweep " + kSmall + " --db killed.sqlite -j 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::to_string(partial) + " already in killed.sqlite"), std::string::npos)
      << r.output;
  EXPECT_EQ(rows_of("killed.sqlite"), ref);
}

TEST(SweepCli, CtrlCStopsCleanlyAndResumes) {
  const auto& ref = reference_rows();
  ASSERT_EQ(ref.size(), kPoints * kWorkloads);
  const int status = start_and_kill("stopped.sqlite", 3, SIGINT);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << "interrupted";
  const size_t partial = row_count("stopped.sqlite");
  EXPECT_GE(partial, 3u);
  EXPECT_LT(partial, ref.size());
  // Every row written is whole and failed none: the killed child left no row.
  for (const auto& text : rows_of("stopped.sqlite"))
    EXPECT_NE(text.find("\"status\":\"ok\""), std::string::npos) << text;
  auto r = npusim("sweep " + kSmall + " --db stopped.sqlite -j 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(rows_of("stopped.sqlite"), ref);
}

TEST(SweepCli, FailedPointRecordsItsErrorAndTheSweepGoesOn) {
  std::ofstream("fail.json") << R"({"name": "fail", "base": ")" << NPUSIM_SOURCE_DIR
                             << R"(/configs/npu/default.json",
    "axes": [{"param": "npu.channels", "values": [1, 2]}],
    "workloads": [{"name": "missing", "model": "no-such-model.json"},
                  {"name": "mnv2", "model": "zoo:mobilenet_v2_quant8", "mode": "timing", "iterations": 1}]})";
  fresh("fail.sqlite");
  auto r = npusim("sweep fail.json --db fail.sqlite -j 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("2 ok, 2 failed"), std::string::npos) << r.output;
  auto db = Database::open("fail.sqlite", {});
  ASSERT_TRUE(db.ok());
  auto rows = db->rows();
  ASSERT_EQ(rows->size(), 4u);
  for (const auto& row : *rows) {
    if (row.workload == "missing") {
      EXPECT_EQ(row.status, "failed");
      EXPECT_NE(row.error.find("no-such-model.json"), std::string::npos) << row.error;
      EXPECT_TRUE(row.metrics["latency_p50_us"].is_null());
    } else {
      EXPECT_EQ(row.status, "ok") << row.error;
    }
  }
  // A rerun skips the failed rows too, unless asked.
  r = npusim("sweep fail.json --db fail.sqlite --quiet");
  EXPECT_NE(r.output.find("4 already in"), std::string::npos) << r.output;
  r = npusim("sweep fail.json --db fail.sqlite --quiet --retry-failed");
  EXPECT_NE(r.output.find("2 already in fail.sqlite, 2 to run"), std::string::npos) << r.output;
}

TEST(SweepCli, BadSweepFileIsOneErrorWithItsPath) {
  std::ofstream("bad.json") << R"({"name": "bad", "base": ")" << NPUSIM_SOURCE_DIR
                            << R"(/configs/npu/default.json",
    "axes": [{"param": "npu.channels", "values": [1, 2]}], "constraints": ["npu.channels >"],
    "workloads": [{"name": "m", "model": "zoo:mobilenet_v2_quant8"}]})";
  auto r = npusim("sweep bad.json --db bad.sqlite");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output,
            "npusim: bad.json: $.constraints[0]: at offset 14: expected a number, a parameter or \"(\", got "
            "the end\n");
  EXPECT_FALSE(std::filesystem::exists("bad.sqlite"));
}

TEST(SweepCli, ExportCsvHasAHeaderAndARowPerRun) {
  ASSERT_EQ(reference_rows().size(), kPoints * kWorkloads);
  auto r = npusim("sweep --db ref.sqlite --export csv -o ref.csv");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in("ref.csv");
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("point,workload,npu.channels,npu.channel.array.rows,npu.channel.array.cols,"
                         "npu.dram.bandwidth_gbps,status,error,latency_p50_us,",
                         0),
            0u)
      << header;
  size_t lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, kPoints * kWorkloads);
}

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  return ss.str();
}

TEST(SweepCli, ReportParetoPlotRendersInHeadlessChromium) {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) GTEST_SKIP() << "chromium not installed";
  ASSERT_EQ(reference_rows().size(), kPoints * kWorkloads);
  auto r = npusim("sweep --db ref.sqlite --report report.html");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string html = std::filesystem::absolute("report.html").string();
  ASSERT_EQ(std::system(("chromium --headless --no-sandbox --disable-gpu --dump-dom file://" + html +
                         " > dom.html 2>/dev/null")
                            .c_str()),
            0);
  const std::string dom = slurp("dom.html");
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = dom.find(what, p)) != std::string::npos; ++p) ++n;
    return n;
  };
  // Two plots per workload, each drawn by the page's script.
  EXPECT_EQ(count("class=\"pareto\" viewBox"), 2 * kWorkloads);
  EXPECT_EQ(count("data-rendered=\"1\""), 2 * kWorkloads + 1);
  // The front, computed here from the database: designs no other design beats in latency, energy and
  // area at once. Each front design is a red circle in both of its workload's plots.
  auto db = Database::open("ref.sqlite", {});
  ASSERT_TRUE(db.ok());
  auto rows = *db->rows();
  size_t front = 0, all = 0;
  std::map<std::string, size_t> front_of;
  for (const auto& a : rows) {
    ++all;
    bool dominated = false;
    for (const auto& b : rows) {
      if (b.workload != a.workload) continue;
      const double la = a.metrics["latency_p50_us"], ea = a.metrics["energy_mj"], aa = a.metrics["area_mm2"];
      const double lb = b.metrics["latency_p50_us"], eb = b.metrics["energy_mj"], ab = b.metrics["area_mm2"];
      if (lb <= la && eb <= ea && ab <= aa && (lb < la || eb < ea || ab < aa)) dominated = true;
    }
    front += !dominated;
    front_of[a.workload] += !dominated;
  }
  EXPECT_GT(front, 0u);
  EXPECT_EQ(count("class=\"front\""), 2 * front);
  EXPECT_EQ(count("class=\"dominated\""), 2 * (all - front));
  // The same fronts as Markdown.
  auto md = npusim("sweep --db ref.sqlite --export pareto");
  ASSERT_EQ(md.status, 0) << md.output;
  for (const auto& [w, n] : front_of)
    EXPECT_NE(md.output.find("**" + w + "**: " + std::to_string(n) + " of " + std::to_string(kPoints) +
                             " designs on the front"),
              std::string::npos)
        << md.output;
  // Each plot names its axes: latency against energy, latency against area (the metrics' names carry
  // their units), as the sweep file's metrics call them.
  const std::regex axis("<text[^>]*class=\"axis\"[^>]*>([^<]*)</text>");
  std::map<std::string, size_t> axis_labels;
  for (auto m = std::sregex_iterator(dom.begin(), dom.end(), axis); m != std::sregex_iterator(); ++m)
    ++axis_labels[std::regex_replace((*m)[1].str(), std::regex(" \\(log\\)$"), "")];
  EXPECT_EQ(axis_labels["latency_p50_us"], 2 * kWorkloads) << "the x axis of both plots";
  EXPECT_EQ(axis_labels["energy_mj"], kWorkloads);
  EXPECT_EQ(axis_labels["area_mm2"], kWorkloads);
  // Each front design carries its point id in both plots.
  EXPECT_EQ(count("class=\"pid\""), 2 * front);
  // Tick labels are round numbers: on a linear axis equally spaced by 1, 2 or 5 times a power of ten and
  // multiples of that step (15.6, 15.8, ... or 15000, 20000), not the range cut in quarters (366, 8568,
  // 16771); on a log axis 1, 2 or 5 times powers of ten.
  auto one_two_five = [](double v) {
    const double m = v / std::pow(10.0, std::floor(std::log10(v)));
    return std::fabs(m - 1) < 1e-6 || std::fabs(m - 2) < 1e-6 || std::fabs(m - 5) < 1e-6;
  };
  auto round_ticks = [&](const std::vector<double>& v) {
    if (std::all_of(v.begin(), v.end(), [&](double t) { return t > 0 && one_two_five(t); })) return true;
    const double step = v[1] - v[0];
    if (!(step > 0) || !one_two_five(step)) return false;
    for (size_t i = 0; i < v.size(); ++i) {
      if (std::fabs(v[i] - v[0] - static_cast<double>(i) * step) > 1e-6 * step) return false;
      if (std::fabs(v[i] / step - std::round(v[i] / step)) > 1e-6) return false;
    }
    return true;
  };
  const std::regex tick("<text[^>]*class=\"tick\" data-axis=\"([xy])\"[^>]*>([^<]*)</text>");
  std::vector<std::vector<double>> axes;  // each axis's tick values, in the page's order
  std::string last_axis;
  for (auto m = std::sregex_iterator(dom.begin(), dom.end(), tick); m != std::sregex_iterator(); ++m) {
    if ((*m)[1].str() != last_axis) axes.emplace_back();
    last_axis = (*m)[1].str();
    axes.back().push_back(std::stod((*m)[2].str()));
  }
  EXPECT_EQ(axes.size(), 2 * 2 * kWorkloads) << "an x and a y axis per plot";
  for (const auto& v : axes) {
    ASSERT_GE(v.size(), 2u);
    std::string shown;
    for (double t : v) shown += std::to_string(t) + " ";
    EXPECT_TRUE(round_ticks(v)) << "ticks " << shown;
  }
  // Each plot's dashed front is a staircase (right along x, then down in value: SVG y grows), never a
  // zig-zag through the 3-D front's projection.
  const std::regex stairs("<path[^>]*d=\"([^\"]*)\"[^>]*class=\"staircase\"");
  size_t staircases = 0;
  for (auto m = std::sregex_iterator(dom.begin(), dom.end(), stairs); m != std::sregex_iterator(); ++m) {
    ++staircases;
    std::istringstream path(std::regex_replace((*m)[1].str(), std::regex("[MHV,]"), " "));
    double x = 0, y = 0;
    path >> x >> y;
    for (double nx = 0, ny = 0; path >> nx >> ny;) {
      EXPECT_GE(nx, x) << (*m)[1].str();
      EXPECT_GE(ny, y) << (*m)[1].str();
      x = nx;
      y = ny;
    }
  }
  EXPECT_GT(staircases, 0u);
  // The screenshot, kept in the build tree's screenshots/ with the other reports' for a reviewer; a page
  // with the plots compresses to far more than a blank one.
  std::filesystem::create_directories(NPUSIM_SCREENSHOT_DIR);
  const std::string png = std::string(NPUSIM_SCREENSHOT_DIR) + "/sweep_report.png";
  const std::string blank = std::filesystem::absolute("blank.png").string();
  std::ofstream("blank.html") << "<!DOCTYPE html><html><body></body></html>";
  for (const auto& [page, out] : {std::pair<std::string, std::string>{html, png},
                                  {std::filesystem::absolute("blank.html").string(), blank}}) {
    std::filesystem::remove(out);
    ASSERT_EQ(std::system(
                  ("chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,900 "
                   "--screenshot=" +
                   out + " file://" + page + " > /dev/null 2>&1")
                      .c_str()),
              0);
  }
  const std::string shot = slurp(png);
  ASSERT_GT(shot.size(), 8u);
  EXPECT_EQ(shot.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(shot.size(), 4 * slurp(blank).size()) << "the screenshot shows more than a blank page";
}

// A design where an app of the scenario cannot run (the LLM's command buffers do not fit beside a
// 256 KiB-SRAM design's many tiles) fails with the app's error instead of reporting the camera alone.
TEST(SweepCli, ScenarioWithAFailingAppFails) {
  auto r = npusim("measure" + kHw + " --scenario " + std::string(NPUSIM_SOURCE_DIR) +
                  "/configs/scenarios/camera_llm.json "
                  "--scale 0.2 --set npu.channel.sram.kib=256 --set npu.channel.array.rows=32 "
                  "--set npu.channel.array.cols=32 --json");
  EXPECT_EQ(r.status, 1) << r.output;
  // With 256 KiB of SRAM the 3B decoder's 32-token prompt chunk is 19 MiB of descriptors, more than the
  // driver's 16 MiB of command-buffer space: refused before the run, the file named once.
  EXPECT_NE(r.output.find("camera_llm.json: app \"llm\": one job of model decoder-3b needs"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("camera_llm.json: " NPUSIM_SOURCE_DIR), std::string::npos) << r.output;
  r = npusim("measure" + kHw + " --scenario " + std::string(NPUSIM_SOURCE_DIR) +
             "/configs/scenarios/camera_llm.json --scale 0.2 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["metrics"]["deadline_misses"], 0.0);
}

// Operations the design leaves to the CPU are counted: the NNAPI form of the 1B decoder keeps its 33 L2
// normalisations and 256 attention products (FULLY_CONNECTED on runtime weights) on the CPU, plus the
// fully-connected layers the compiler cannot tile (with 32x32 arrays, more of them in 256 KiB of SRAM than in
// 512).
TEST(SweepCli, MeasureCountsCpuOperations) {
  const std::string arrays = " --set npu.channel.array.rows=32 --set npu.channel.array.cols=32";
  auto big = npusim("measure" + kHw + " --model zoo:decoder_1b_decode_nnapi --iterations 1 --json" + arrays);
  auto small = npusim(
      "measure" + kHw +
      " --model zoo:decoder_1b_decode_nnapi --iterations 1 --set npu.channel.sram.kib=256 --json" + arrays);
  ASSERT_EQ(big.status, 0) << big.output;
  ASSERT_EQ(small.status, 0) << small.output;
  const double b = nlohmann::json::parse(big.output)["metrics"]["cpu_ops"],
               s = nlohmann::json::parse(small.output)["metrics"]["cpu_ops"];
  EXPECT_GE(b, 33 + 256);
  EXPECT_GT(s, b) << "less SRAM, more operations left to the CPU";
}

TEST(SweepCli, RunJsonAndStatsReportArea) {
  ASSERT_EQ(npusim("example conv-quant8 --dir m").status, 0);
  auto r = npusim("run --hw " + std::string(NPUSIM_SOURCE_DIR) +
                  "/configs/npu/default.json --model m/conv-quant8.model.json "
                  "--inputs m/conv-quant8.inputs.json --outputs m/out.json --stats m/stats.json --json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  // docs/area.md, default preset: 4 x 256 x 158 um2 + 4 x 0.5 MiB x 0.463 + 4 x 64 x 4307 um2
  // + 4 x 2 x 0.0124 + 25.6 x 0.123 mm2.
  const double want = 4 * 256 * 158e-6 + 4 * 0.5 * 0.463 + 4 * 64 * 4307e-6 + 4 * 2 * 0.0124 + 25.6 * 0.123;
  EXPECT_NEAR(j["area_mm2"].get<double>(), want, 1e-9);
  const auto stats = nlohmann::json::parse(slurp("m/stats.json"));
  EXPECT_NEAR(stats["npu"]["area"]["total_mm2"].get<double>(), want, 1e-9);
  EXPECT_NEAR(stats["npu"]["area"]["sram_mm2"].get<double>(), 4 * 0.5 * 0.463, 1e-9);
}

}  // namespace
}  // namespace npu::sweep
