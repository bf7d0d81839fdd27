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

#include "../support/csv.h"
#include "../support/run_npusim.h"

namespace {

namespace fs = std::filesystem;
using npu::test::CliRun;
using npu::test::npusim;
using npu::testing::csv_fields;
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

size_t count_of(const std::vector<std::string>& v, const std::string& what) {
  return static_cast<size_t>(std::count(v.begin(), v.end(), what));
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
      screenshot("bench.html", fs::path(NPUSIM_SCREENSHOT_DIR) / "bench_report.png", "profile-a", 1400, 2800);
  EXPECT_EQ(png.width, 1400u);
  EXPECT_EQ(png.height, 2800u);
  EXPECT_GT(png.bytes, 4 * blank_png_bytes()) << "the screenshot shows more than a blank page";

  const std::string dom = rendered_dom("bench.html", "profile-b");
  // Four charts per iteration and two per operation (roofline, utilisation).
  EXPECT_NE(dom.find("data-charts-drawn=\"6\""), std::string::npos) << dom.substr(0, 2000);
  for (const char* id : {"latency", "histogram", "thermal", "error", "roofline", "utilisation"}) {
    const std::string svg = svg_of(dom, id);
    ASSERT_FALSE(svg.empty()) << id;
    EXPECT_GE(texts(svg, "tick y").size(), 3u) << id << ": value ticks";
    // fc-quant8 is one operation: one bar, one operation number under it.
    EXPECT_GE(texts(svg, "tick x").size(), std::string(id) == "utilisation" ? 1u : 2u) << id << ": x ticks";
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

// The scenario reports run camera_llm for 2 simulated seconds (--scale 0.2, as the README's example):
// camera frames, LLM sessions, preemptions. They used to run 0.01 (100 ms: three camera frames, no LLM
// request finished, and a zoomed window with nothing in it).
TEST(ReportScreenshots, ScenarioReportHasAxesLegendTripLinesAndCaptionsInside) {
  // On a terminal (a pseudo-terminal from script(1); the report goes to a file, stdout to /dev/null):
  // --compare ran almost two minutes without a word, and now counts its runs on stderr.
  const CliRun run =
      run_shell("script -qec '" NPUSIM_BIN " scenario " NPUSIM_SOURCE_DIR
                "/configs/scenarios/camera_llm.json --scale 0.2 --compare --report scenario.html "
                "2>&1 >/dev/null' /dev/null");
  ASSERT_EQ(run.status, 0) << run.output;
  // Six policies × (the shared run + each of the two apps alone).
  EXPECT_NE(run.output.find("npusim: scenario camera_llm [1/18]"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("[18/18]"), std::string::npos) << run.output;
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
  EXPECT_EQ(texts(svg_of(dom, "temperature"), "axis-label"),
            (std::vector<std::string>{"°C", "simulated time (ms)"}));
  EXPECT_EQ(texts(svg_of(dom, "clock"), "axis-label"),
            (std::vector<std::string>{"MHz", "simulated time (ms)"}));
  // The trip points: a 2 s run stays far below them, yet the lowest (light, 65 °C by default:
  // npusim config --explain) is drawn as a dashed line with its name, so the margin shows (a trip
  // point more than 10 °C above the run's peak used to be left out, and nothing checked the lines).
  const std::string temperature = svg_of(dom, "temperature");
  EXPECT_GE(count(temperature, "class=\"trip\""), 1u);
  const auto trip_labels = texts(temperature, "trip-label");
  EXPECT_EQ(trip_labels.size(), count(temperature, "class=\"trip\""));
  EXPECT_NE(std::find(trip_labels.begin(), trip_labels.end(), "trip point light 65 °C"), trip_labels.end())
      << temperature.substr(0, 3000);
  EXPECT_GE(texts(temperature, "tick y").size(), 3u);
  // Each trip line lies inside the plot (y from 10 to 200: the value axis stretches to reach it).
  const std::regex trip_line("<line [^>]*y1=\"([0-9.e+-]+)\"[^>]*class=\"trip\"");
  for (auto t = std::sregex_iterator(temperature.begin(), temperature.end(), trip_line);
       t != std::sregex_iterator(); ++t) {
    EXPECT_GE(std::stod((*t)[1]), 10.0 - 1e-6);
    EXPECT_LE(std::stod((*t)[1]), 200.0 + 1e-6);
  }
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
  // The latency distribution had no axes: a count axis (integer ticks, "requests") per app and the
  // latency axis (ms, log scale) with ticks under each row, both apps on one scale.
  const std::string latency = svg_of(dom, "latency");
  const auto latency_labels = texts(latency, "axis-label");
  EXPECT_EQ(count_of(latency_labels, "latency, arrival to end (ms, simulated; log scale)"), 2u);
  EXPECT_EQ(count_of(latency_labels, "requests"), 2u);
  const auto latency_x = texts(latency, "tick x");
  EXPECT_GE(latency_x.size(), 2u * 3u) << "three ticks or more under each of the two rows";
  for (size_t i = 1; i < latency_x.size() / 2; ++i)
    EXPECT_LT(std::stod(latency_x[i - 1]), std::stod(latency_x[i])) << "ascending values";
  const auto counts = texts(latency, "tick y");
  EXPECT_GE(counts.size(), 2u * 2u);
  for (const std::string& t : counts) EXPECT_EQ(t.find('.'), std::string::npos) << "request count tick " << t;
  // The latency caption lies inside its chart (it used to be cut off under the last row).
  ASSERT_TRUE(std::regex_search(latency, m, std::regex("height=\"(\\d+)\"")));
  const int height = std::stoi(m[1]);
  const std::regex caption("<text[^>]*y=\"([0-9.]+)\"[^>]*class=\"caption\"");
  int captions = 0;
  for (auto c = std::sregex_iterator(latency.begin(), latency.end(), caption); c != std::sregex_iterator();
       ++c) {
    ++captions;
    EXPECT_LT(std::stod((*c)[1]) + 4, height) << "caption at y " << (*c)[1] << " of " << height;
  }
  EXPECT_EQ(captions, 2) << "both apps (camera frames, LLM sessions) completed requests";

  // At 1400 px the page is no wider than the window: the --compare table scrolls inside its own box
  // (it used to push the whole page sideways).
  const std::string page = read("scenario.html");
  const size_t body_end = page.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  std::ofstream("widths.html")
      << page.substr(0, body_end)
      << "<script>document.body.dataset.widths = document.documentElement.scrollWidth + ' ' + "
         "document.documentElement.clientWidth + ' ' + document.getElementById('comparison').scrollWidth;"
         "</script>\n"
      << page.substr(body_end);
  const CliRun widths =
      run_shell(kChromium + "--user-data-dir=" + fs::absolute("profile-w").string() +
                    " --window-size=1400,1800 --dump-dom file://" + fs::absolute("widths.html").string(),
                false);
  ASSERT_TRUE(std::regex_search(widths.output, m, std::regex("data-widths=\"(\\d+) (\\d+) (\\d+)\"")))
      << widths.output.substr(0, 1000);
  EXPECT_LE(std::stoi(m[1]), std::stoi(m[2])) << "page width within the window";
  EXPECT_GT(std::stoi(m[3]), std::stoi(m[2]))
      << "the table is wider than the window: it needs the scroll box";
}

// Attribute `name` of every element of class `cls` inside `svg`, in document order.
std::vector<double> attribute_of(const std::string& svg, const std::string& cls, const std::string& name) {
  std::vector<double> out;
  const std::regex element("<[a-z]+ [^>]*class=\"" + cls + "\"[^>]*>");
  const std::regex attribute(name + "=\"([^\"]+)\"");
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), element); m != std::sregex_iterator(); ++m) {
    const std::string tag = m->str();
    std::smatch a;
    if (std::regex_search(tag, a, attribute)) out.push_back(std::stod(a[1]));
  }
  return out;
}

// The bench report had no per-operation view. Now a roofline (log-log: ops per DRAM byte against
// attained ops/s under the compute and DRAM roofs) with one point per NPU operation with MACs, and the
// MAC-array utilisation of each NPU operation. The oracle is `npusim run --out`'s layers.csv of the same
// model: which operations have MACs, DRAM bytes and a time, and each one's intensity (2 × MACs / DRAM
// bytes, static); the roofs are the default config's by hand: 4 channels × 16 × 16 MACs × 2 ops × 1 GHz
// = 2.048e12 ops/s, and 25.6 GB/s.
TEST(ReportScreenshots, BenchReportDrawsARooflinePointPerOperation) {
  const CliRun run = npusim("run --model zoo:mobilenet_v2_quant8@64 --out l");
  ASSERT_EQ(run.status, 0) << run.output;
  std::istringstream csv(read("l/layers.csv"));
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::vector<double> intensities;
  size_t timed_npu = 0, operations = 0;
  while (std::getline(csv, line)) {
    const auto f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    ++operations;
    if (f[column("where")] != "npu" || f[column("device_us")].empty()) continue;
    ++timed_npu;
    const double macs = std::stod(f[column("macs")]), bytes = std::stod(f[column("dram_bytes")]);
    if (macs > 0 && bytes > 0 && std::stod(f[column("device_us")]) > 0)
      intensities.push_back(2 * macs / bytes);
  }
  ASSERT_EQ(operations, 66u);
  ASSERT_GT(intensities.size(), 40u) << "MobileNet v2's convolutions";
  ASSERT_LT(intensities.size(), operations) << "the ADDs have no MACs";

  const CliRun bench =
      npusim("bench --model zoo:mobilenet_v2_quant8@64 --iterations 2 --report roofline.html --quiet");
  ASSERT_EQ(bench.status, 0) << bench.output;
  const Png png = screenshot("roofline.html", fs::path(NPUSIM_SCREENSHOT_DIR) / "bench_roofline.png",
                             "profile-r", 1400, 2800);
  EXPECT_EQ(png.height, 2800u);
  EXPECT_GT(png.bytes, 4 * blank_png_bytes()) << "the screenshot shows more than a blank page";
  const std::string dom = rendered_dom("roofline.html", "profile-s");
  EXPECT_NE(dom.find("data-charts-drawn=\"6\""), std::string::npos);

  const std::string roofline = svg_of(dom, "roofline");
  ASSERT_FALSE(roofline.empty());
  const auto labels = texts(roofline, "axis-label");
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0], "operational intensity (ops per byte of DRAM traffic, 1 MAC = 2 ops)");
  EXPECT_EQ(labels[1], "attained performance (ops/s, simulated)");
  EXPECT_NE(dom.find(">operational intensity (ops per byte of DRAM traffic, 1 MAC = 2 ops)<"),
            std::string::npos);
  EXPECT_GE(texts(roofline, "tick x").size(), 3u);
  EXPECT_GE(texts(roofline, "tick y").size(), 3u);
  const auto legend = texts(roofline, "legend");
  ASSERT_EQ(legend.size(), 3u);
  EXPECT_EQ(legend[0], "compute roof 2.05 Tops/s");
  EXPECT_EQ(legend[1], "DRAM roof 25.6 GB/s × intensity");
  // One point per operation with MACs: the count the chart records and the circles it drew.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(roofline, m, std::regex("data-points=\"(\\d+)\"")));
  EXPECT_EQ(std::stoul(m[1]), intensities.size());
  std::vector<double> x = attribute_of(roofline, "mark point", "data-intensity");
  const std::vector<double> y = attribute_of(roofline, "mark point", "data-ops-per-s");
  ASSERT_EQ(x.size(), intensities.size());
  ASSERT_EQ(y.size(), intensities.size());
  // Every point lies under both roofs: no operation beats the arrays' peak or moves its bytes faster
  // than the DRAM.
  const double peak = 4.0 * 16 * 16 * 2 * 1e9, bandwidth = 25.6e9;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_LE(y[i], peak * (1 + 1e-9)) << i;
    EXPECT_LE(y[i], bandwidth * x[i] * (1 + 1e-9)) << i;
    EXPECT_GT(y[i], 0.0) << i;
  }
  std::sort(x.begin(), x.end());
  std::sort(intensities.begin(), intensities.end());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], intensities[i], 1e-6 * intensities[i]) << i;
  // The operation types' colour legend above the roofline.
  EXPECT_NE(dom.find("<span class=\"legend-item\"><span class=\"swatch\""), std::string::npos);
  EXPECT_NE(dom.find(">CONV_2D</span>"), std::string::npos);

  // Utilisation: a bar per timed NPU operation, on a 0-100 % axis.
  const std::string utilisation = svg_of(dom, "utilisation");
  ASSERT_TRUE(std::regex_search(utilisation, m, std::regex("data-bars=\"(\\d+)\"")));
  EXPECT_EQ(std::stoul(m[1]), timed_npu);
  EXPECT_EQ(count(utilisation, "class=\"mark bar\""), timed_npu);
  EXPECT_EQ(texts(utilisation, "axis-label")[1], "MAC-array utilisation (%)");
  const auto percent = texts(utilisation, "tick y");
  ASSERT_FALSE(percent.empty());
  EXPECT_EQ(percent.front(), "0");
  EXPECT_EQ(percent.back(), "100");
}

// A long timeline could be neither zoomed nor read bar by bar. Every bar now names what it is, its start
// and duration on hover, and the time charts share a window that Ctrl+wheel, a drag and the range fields
// set, the ticks following it. The zoom is driven here as a user would: a copy of the page with a script
// appended that sends a Ctrl+wheel to the channel timeline, or fills in the range fields and clicks.
TEST(ReportScreenshots, ScenarioTimelinesZoomAndNameEachBar) {
  const CliRun run = npusim("scenario " NPUSIM_SOURCE_DIR
                            "/configs/scenarios/camera_llm.json --scale 0.2 --report zoom.html --quiet");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string page = read("zoom.html");
  const size_t body_end = page.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  auto with_script = [&](const std::string& file, const std::string& script) {
    std::ofstream(file) << page.substr(0, body_end) << "<script>\n"
                        << script << "\n</script>\n"
                        << page.substr(body_end);
  };
  const std::string whole = rendered_dom("zoom.html", "profile-z0");
  const auto whole_ticks = texts(svg_of(whole, "channels"), "tick x");
  ASSERT_GE(whole_ticks.size(), 5u);
  EXPECT_EQ(whole_ticks.front(), "0");
  // Hover text on every bar of the app and channel timelines: what, start, duration.
  for (const char* id : {"apps", "channels"}) {
    const std::string svg = svg_of(whole, id);
    const size_t bars = count(svg, "class=\"mark\"");
    EXPECT_GT(bars, 0u) << id;
    const std::regex title("<title>[^<]+: start [0-9.e+-]+ ms, duration [0-9.e+-]+ (ns|µs|ms|s)</title>");
    const size_t titles = static_cast<size_t>(
        std::distance(std::sregex_iterator(svg.begin(), svg.end(), title), std::sregex_iterator()));
    EXPECT_EQ(titles, bars) << id;
  }
  EXPECT_TRUE(std::regex_search(svg_of(whole, "apps"),
                                std::regex("<title>camera: job \\(request\\), submit to end: start ")));
  EXPECT_NE(svg_of(whole, "channels").find(": command buffer on ch0: start "), std::string::npos);

  // Ctrl+wheel up at the middle of the channel timeline's plot: a window about the middle of the run.
  with_script("wheel.html", R"JS(
const svg = document.getElementById('channels'), box = svg.getBoundingClientRect();
const x = box.left + box.width * (120 + (1200 - 140) / 2) / 1200;
for (let i = 0; i < 3; ++i)
  svg.dispatchEvent(new WheelEvent('wheel', {deltaY: -250, ctrlKey: true, clientX: x, clientY: box.top + 10,
                                             bubbles: true, cancelable: true}));
)JS");
  const std::string wheel = rendered_dom("wheel.html", "profile-z1");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(wheel, m, std::regex("data-view=\"([0-9.e+-]+) ([0-9.e+-]+)\"")));
  const double lo = std::stod(m[1]), hi = std::stod(m[2]);
  const double end = std::stod(whole_ticks.back()) * 1e6;  // ns, at least the last whole tick
  EXPECT_GT(lo, 0.0);
  EXPECT_LT(hi - lo, end / 5) << "three steps of e^-1 each: about 1/20 of the run";
  for (const char* id : {"apps", "channels", "temperature", "clock"}) {
    const auto ticks = texts(svg_of(wheel, id), "tick x");
    ASSERT_GE(ticks.size(), 3u) << id;
    EXPECT_NE(ticks, whole_ticks) << id << ": the axis follows the zoom";
    EXPECT_GT(std::stod(ticks.front()) * 1e6, lo - 1) << id;
    EXPECT_LT(std::stod(ticks.back()) * 1e6, hi + 1) << id;
  }
  // The zoomed window is not empty: about 100 ms of a 2 s run holds camera frames (one per 33.3 ms) and
  // their command buffers on the channels; its screenshot is kept for a reviewer.
  for (const char* id : {"apps", "channels"}) {
    const std::string svg = svg_of(wheel, id);
    ASSERT_TRUE(std::regex_search(svg, m, std::regex("data-marks=\"(\\d+)\""))) << id;
    EXPECT_GT(std::stoi(m[1]), 0) << id << ": bars inside the zoomed window";
  }
  const Png zoomed = screenshot("wheel.html", fs::path(NPUSIM_SCREENSHOT_DIR) / "scenario_zoomed.png",
                                "profile-z2", 1400, 1800);
  EXPECT_EQ(zoomed.width, 1400u);
  EXPECT_GT(zoomed.bytes, 4 * blank_png_bytes()) << "the zoomed screenshot shows more than a blank page";

  // The range fields: 900 … 1100 ms.
  with_script("range.html", R"JS(
document.getElementById('zoom-from').value = '900';
document.getElementById('zoom-to').value = '1100';
document.getElementById('zoom-apply').click();
)JS");
  const std::string range = rendered_dom("range.html", "profile-z3");
  EXPECT_NE(range.find("data-view=\"900000000 1100000000\""), std::string::npos);
  const auto range_ticks = texts(svg_of(range, "channels"), "tick x");
  ASSERT_FALSE(range_ticks.empty());
  EXPECT_EQ(range_ticks.front(), "900");
  EXPECT_EQ(range_ticks.back(), "1100");
  EXPECT_GE(range_ticks.size(), 5u);
  // 200 ms at 30 frames per second: six camera frames or so, drawn.
  const std::string range_apps = svg_of(range, "apps");
  ASSERT_TRUE(std::regex_search(range_apps, m, std::regex("data-marks=\"(\\d+)\"")));
  EXPECT_GT(std::stoi(m[1]), 0);
}

}  // namespace
