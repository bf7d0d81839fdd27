// The HTML reports of `npusim bench` and `npusim scenario` looked at as a reader does: each page is
// rendered by headless Chromium into a PNG kept in the build tree (NPUSIM_SCREENSHOT_DIR) for a reviewer,
// and the DOM Chromium leaves after the page's script ran is checked for what used to be missing: tick
// values and units on every axis, a zero baseline and integer counts in the bench charts, a colour
// legend, the series each chart draws, a channel timeline per policy under --compare, and a latency
// caption inside its chart.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/run_npusim.h"

namespace {

namespace fs = std::filesystem;
using npu::test::CliRun;
using npu::test::npusim;
using npu::testing::run_shell;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kChromium =
    "chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update "
    "--disable-sync --no-first-run --hide-scrollbars ";

// The DOM after the page's scripts ran (a fresh profile each time).
std::string rendered_dom(const fs::path& page, const std::string& profile) {
  const CliRun r = run_shell(kChromium + "--user-data-dir=" + fs::absolute(profile).string() +
                                 " --dump-dom file://" + fs::absolute(page).string(),
                             false);
  EXPECT_EQ(r.status, 0) << "is Debian's chromium installed (scripts/install-deps)?";
  return r.output;
}

struct Png {
  uint32_t width = 0, height = 0;
  size_t bytes = 0;
};

// Screenshot of `page` at width × height into `png`; its size from the PNG header.
Png screenshot(const fs::path& page, const fs::path& png, const std::string& profile, int width, int height) {
  fs::create_directories(png.parent_path());
  fs::remove(png);
  const CliRun r = run_shell(kChromium + "--user-data-dir=" + fs::absolute(profile).string() +
                                 " --window-size=" + std::to_string(width) + "," + std::to_string(height) +
                                 " --screenshot=" + png.string() + " file://" + fs::absolute(page).string(),
                             false);
  EXPECT_EQ(r.status, 0);
  const std::string s = read(png);
  Png p;
  p.bytes = s.size();
  if (s.size() < 24 || s.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0 ||
      s.compare(12, 4, "IHDR") != 0)
    return p;
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3]));
  };
  p.width = be32(16);
  p.height = be32(20);
  return p;
}

// The opening tag and body of <svg id="id"> in a DOM dump.
std::string svg_of(const std::string& dom, const std::string& id) {
  const size_t at = dom.find("<svg id=\"" + id + "\"") != std::string::npos
                        ? dom.find("<svg id=\"" + id + "\"")
                        : dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t start = dom.rfind("<svg", at);
  const size_t end = dom.find("</svg>", at);
  return end == std::string::npos ? "" : dom.substr(start, end - start);
}

// Texts of the <text> elements with class `cls` inside `svg`.
std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::regex re("<text[^>]*class=\"" + cls + "\"[^>]*>([^<]*)</text>");
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), re); m != std::sregex_iterator(); ++m)
    out.push_back((*m)[1]);
  return out;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// A blank page's screenshot: a page with charts compresses to several times more.
size_t blank_png_bytes() {
  std::ofstream("blank.html") << "<!DOCTYPE html><html><body></body></html>";
  return screenshot("blank.html", fs::absolute("blank.png"), "profile-blank", 1400, 1800).bytes;
}

TEST(ReportScreenshots, BenchReportHasTicksZeroBaselineAndIntegerCounts) {
  ASSERT_EQ(npusim("example fc-quant8 --dir .").status, 0);
  const CliRun bench = npusim("bench --model fc-quant8.model.json --iterations 6 --report bench.html");
  ASSERT_EQ(bench.status, 0) << bench.output;
  const Png png =
      screenshot("bench.html", fs::path(NPUSIM_SCREENSHOT_DIR) / "bench_report.png", "profile-a", 1400, 1800);
  EXPECT_EQ(png.width, 1400u);
  EXPECT_EQ(png.height, 1800u);
  EXPECT_GT(png.bytes, 4 * blank_png_bytes()) << "the screenshot shows more than a blank page";

  const std::string dom = rendered_dom("bench.html", "profile-b");
  EXPECT_NE(dom.find("data-charts-drawn=\"4\""), std::string::npos) << dom.substr(0, 2000);
  for (const char* id : {"latency", "histogram", "thermal", "error"}) {
    const std::string svg = svg_of(dom, id);
    ASSERT_FALSE(svg.empty()) << id;
    EXPECT_GE(texts(svg, "tick y").size(), 3u) << id << ": value ticks";
    EXPECT_GE(texts(svg, "tick x").size(), 2u) << id << ": x ticks";
    EXPECT_EQ(texts(svg, "axis-label").size(), 2u) << id;
  }
  // One series per line chart, one mark per iteration.
  for (const char* id : {"latency", "thermal", "error"}) {
    const std::string svg = svg_of(dom, id);
    EXPECT_NE(svg.find("data-series=\"1\""), std::string::npos) << id;
    EXPECT_NE(svg.find("data-marks=\"6\""), std::string::npos) << id;
  }
  // Latency from zero: a 36 → 38 µs step is not drawn as a cliff (the axis used to run 35.92 … 37.92).
  const auto latency_ticks = texts(svg_of(dom, "latency"), "tick y");
  ASSERT_FALSE(latency_ticks.empty());
  EXPECT_EQ(latency_ticks.front(), "0");
  EXPECT_EQ(texts(svg_of(dom, "latency"), "axis-label")[1], "latency (µs, simulated)");
  // Iteration counts read as integers ("4", never "4.00").
  for (const std::string& t : texts(svg_of(dom, "histogram"), "tick y"))
    EXPECT_EQ(t.find('.'), std::string::npos) << "histogram count tick " << t;
  // Iterations are numbered 1..6 under the latency chart.
  const auto iterations = texts(svg_of(dom, "latency"), "tick x");
  EXPECT_EQ(iterations.front(), "1");
  EXPECT_EQ(iterations.back(), "6");
}

TEST(ReportScreenshots, ScenarioReportHasTimeAxesLegendAndCaptionsInside) {
  const CliRun run =
      npusim("scenario " NPUSIM_SOURCE_DIR
             "/configs/scenarios/camera_llm.json --scale 0.01 --compare --report scenario.html");
  ASSERT_EQ(run.status, 0) << run.output;
  const Png png = screenshot("scenario.html", fs::path(NPUSIM_SCREENSHOT_DIR) / "scenario_report.png",
                             "profile-c", 1400, 1800);
  EXPECT_EQ(png.width, 1400u);
  EXPECT_GT(png.bytes, 4 * blank_png_bytes()) << "the screenshot shows more than a blank page";

  const std::string dom = rendered_dom("scenario.html", "profile-d");
  // Five charts of the main policy and, under --compare, a channel timeline for each of the five other
  // policies (only the main one used to be drawn).
  EXPECT_NE(dom.find("data-charts-drawn=\"10\""), std::string::npos) << dom.substr(0, 2000);
  for (const char* policy : {"fcfs", "hpf", "prema", "rr", "edf"})
    EXPECT_NE(dom.find(std::string("Timeline per channel under policy ") + policy), std::string::npos)
        << policy;
  // Every timeline, temperature and clock chart has a time axis with ticks and its unit.
  for (const char* id : {"apps", "channels", "channels-0", "channels-2", "temperature", "clock"}) {
    const std::string svg = svg_of(dom, id);
    ASSERT_FALSE(svg.empty()) << id;
    const auto ticks = texts(svg, "tick x");
    EXPECT_GE(ticks.size(), 5u) << id;
    if (!ticks.empty()) {
      EXPECT_EQ(ticks.front(), "0") << id;
    }
    const auto labels = texts(svg, "axis-label");
    EXPECT_NE(std::find(labels.begin(), labels.end(), "simulated time (ms)"), labels.end()) << id;
  }
  // Temperature and clock have value ticks and units; temperature draws junction and skin.
  for (const char* id : {"temperature", "clock"})
    EXPECT_GE(texts(svg_of(dom, id), "tick y").size(), 3u) << id;
  EXPECT_NE(svg_of(dom, "temperature").find("data-series=\"2\""), std::string::npos);
  EXPECT_NE(svg_of(dom, "clock").find("data-series=\"1\""), std::string::npos);
  // The colour legend: one entry per app (camera, llm) and the resident-model grey.
  EXPECT_EQ(count(dom, "class=\"legend-item\""), 3u);
  EXPECT_NE(dom.find(">camera</span>"), std::string::npos);
  // The channel timeline drew the camera's command buffers.
  std::smatch m;
  const std::string channels = svg_of(dom, "channels");
  ASSERT_TRUE(std::regex_search(channels, m, std::regex("data-marks=\"(\\d+)\"")));
  EXPECT_GT(std::stoi(m[1]), 0);
  // The latency caption lies inside its chart (it used to be cut off under the last row).
  const std::string latency = svg_of(dom, "latency");
  ASSERT_TRUE(std::regex_search(latency, m, std::regex("height=\"(\\d+)\"")));
  const int height = std::stoi(m[1]);
  const std::regex caption("<text[^>]*y=\"([0-9.]+)\"[^>]*class=\"caption\"");
  int captions = 0;
  for (auto c = std::sregex_iterator(latency.begin(), latency.end(), caption); c != std::sregex_iterator();
       ++c) {
    ++captions;
    EXPECT_LT(std::stod((*c)[1]) + 4, height) << "caption at y " << (*c)[1] << " of " << height;
  }
  EXPECT_EQ(captions, 1) << "one app (camera) completed requests";
}

}  // namespace
