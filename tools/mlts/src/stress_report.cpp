// `npusim stress`'s outputs: the text summary, the JSON and a self-contained HTML page (no scripts: the
// wall-time bars are drawn as static SVG, so the page reads the same anywhere).
#include <algorithm>
#include <cstdio>

#include "npu/mlts/stress.h"

namespace npu::mlts {
namespace {

std::string escape_html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

const char* verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::SUCCESS:
      return "#2e7d32";
    case Verdict::FAILURE:
      return "#c62828";
    case Verdict::HANG:
      return "#ef6c00";
    case Verdict::CRASH:
      return "#6a1b9a";
  }
  return "#000";
}

}  // namespace

std::string stress_table(const StressRun& run) {
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line, "npusim stress: %zu cases, scale %g, seed %llu, wall limit %.0f s per case\n",
      run.cases.size(), run.options.scale, static_cast<unsigned long long>(run.options.seed), run.timeout_s);
  out += line;
  std::snprintf(line, sizeof line, "  %-22s %-8s %8s  %s\n", "case", "verdict", "wall s", "checks");
  out += line;
  uint32_t counts[4] = {0, 0, 0, 0};
  for (const auto& c : run.cases) {
    ++counts[static_cast<int>(c.verdict)];
    std::string checks;
    if (c.report) {
      size_t held = 0;
      for (const auto& k : c.report->checks) held += k.passed;
      checks = std::to_string(held) + "/" + std::to_string(c.report->checks.size()) + " held";
    }
    if (!c.why.empty()) checks += (checks.empty() ? "" : ": ") + c.why;
    std::snprintf(line, sizeof line, "  %-22s %-8s %8.1f  %s\n", c.name.c_str(), to_string(c.verdict),
                  c.wall_s, checks.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "  SUCCESS %u, FAILURE %u, HANG %u, CRASH %u; %.1f s wall\n", counts[0],
                counts[1], counts[2], counts[3], run.wall_s);
  out += line;
  return out;
}

nlohmann::json stress_json(const StressRun& run) {
  nlohmann::json j = {
      {"scale", run.options.scale},      {"seed", run.options.seed}, {"soak_s", run.options.soak_s},
      {"timeout_s", run.timeout_s},      {"wall_s", run.wall_s},     {"all_success", run.all_success()},
      {"cases", nlohmann::json::array()}};
  for (const auto& c : run.cases) {
    nlohmann::json cj = {
        {"name", c.name}, {"verdict", to_string(c.verdict)}, {"why", c.why}, {"wall_s", c.wall_s}};
    if (c.report) {
      cj["checks"] = c.report->to_json()["checks"];
      cj["figures"] = c.report->figures;
    }
    j["cases"].push_back(cj);
  }
  return j;
}

std::string stress_html(const StressRun& run) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim stress</title><style>"
      "body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
      ".v{color:#fff;font-weight:bold}.fail{color:#c62828}pre{margin:0;font-size:.85em}"
      "</style></head><body>\n<h1>npusim stress</h1>\n";
  uint32_t counts[4] = {0, 0, 0, 0};
  double longest = 0;
  for (const auto& c : run.cases) {
    ++counts[static_cast<int>(c.verdict)];
    longest = std::max(longest, c.wall_s);
  }
  h += "<p>" + std::to_string(run.cases.size()) + " cases, scale " + format("%g", run.options.scale) +
       ", seed " + std::to_string(run.options.seed) + ", wall limit " + format("%.0f", run.timeout_s) +
       " s per case: SUCCESS " + std::to_string(counts[0]) + ", FAILURE " + std::to_string(counts[1]) +
       ", HANG " + std::to_string(counts[2]) + ", CRASH " + std::to_string(counts[3]) + "; " +
       format("%.1f", run.wall_s) + " s wall.</p>\n";
  // Wall time per case, one bar each.
  const int bar_h = 18, label_w = 170, chart_w = 420;
  h += "<svg id=\"wall\" width=\"" + std::to_string(label_w + chart_w + 60) + "\" height=\"" +
       std::to_string(bar_h * static_cast<int>(run.cases.size()) + 10) + "\" data-marks=\"" +
       std::to_string(run.cases.size()) + "\">\n";
  for (size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    const int y = static_cast<int>(i) * bar_h + 4;
    const int w = longest > 0 ? static_cast<int>(chart_w * c.wall_s / longest) : 0;
    h += "<text x=\"0\" y=\"" + std::to_string(y + 13) + "\" font-size=\"12\">" + escape_html(c.name) +
         "</text>";
    h += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
         std::to_string(std::max(w, 1)) + "\" height=\"" + std::to_string(bar_h - 4) + "\" fill=\"" +
         verdict_colour(c.verdict) + "\"/>";
    h += "<text x=\"" + std::to_string(label_w + w + 4) + "\" y=\"" + std::to_string(y + 13) +
         "\" font-size=\"12\">" + format("%.1f s", c.wall_s) + "</text>\n";
  }
  h +=
      "</svg>\n<table><tr><th>case</th><th>verdict</th><th>wall s</th><th>checks</th><th>figures</th></tr>\n";
  for (const auto& c : run.cases) {
    h += "<tr><td>" + escape_html(c.name) +
         "</td><td class=\"v\" style=\"background:" + verdict_colour(c.verdict) + "\">" +
         to_string(c.verdict) + "</td><td>" + format("%.1f", c.wall_s) + "</td><td>";
    if (!c.why.empty()) h += "<div class=\"fail\">" + escape_html(c.why) + "</div>";
    if (c.report)
      for (const auto& k : c.report->checks)
        h += std::string(k.passed ? "&#10003; " : "<span class=\"fail\">&#10007;</span> ") +
             escape_html(k.name) +
             (k.detail.empty() ? "" : " <small>(" + escape_html(k.detail) + ")</small>") + "<br>";
    h += "</td><td><pre>" + (c.report ? escape_html(c.report->figures.dump(1)) : std::string()) +
         "</pre></td></tr>\n";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace npu::mlts
