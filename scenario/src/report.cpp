#include "npu/scenario/report.h"

namespace npu::scenario {
namespace {

// Drawing code: reads `DATA`, appends SVG elements. Kept as one raw string so the page stays one file.
constexpr const char* kScript = R"JS(
const NS = 'http://www.w3.org/2000/svg';
function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const run = DATA.run, T = run.duration_s * 1e9;
const uidColor = {};
run.apps.forEach((a, i) => uidColor[a.uid] = COLORS[i % COLORS.length]);
function chart(id, rows, height) {
  const svg = document.getElementById(id);
  const W = 900, H = height || rows * 22 + 30;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', W); svg.setAttribute('height', H);
  return {svg, W, H, x: t => 120 + (W - 130) * t / T};
}
function lanes(id, names, spansOf) {
  const c = chart(id, names.length);
  names.forEach((n, i) => {
    el('text', {x: 4, y: 20 + i * 22 + 14, 'font-size': 12}, c.svg).textContent = n;
    for (const s of spansOf(i))
      el('rect', {x: c.x(s[0]), y: 20 + i * 22, width: Math.max(0.5, c.x(s[1]) - c.x(s[0])), height: 16,
                  fill: s[2], opacity: s[3] || 1}, c.svg);
  });
  c.svg.dataset.rendered = '1';
}
lanes('apps', run.apps.map(a => a.name), i => {
  const a = run.apps[i];
  return a.resident.map(s => [s[0], s[1], '#ddd']).concat(a.jobs.map(s => [s[0], s[1], uidColor[a.uid]]));
});
const channels = [...Array(run.channels).keys()];
lanes('channels', channels.map(c => 'ch' + c), c => run.channel_spans.filter(s => s[0] === c)
      .map(s => [s[1], s[2], uidColor[s[3]]]));
// Latency histograms (log-spaced bins), one row per app.
(function () {
  const c = chart('latency', 0, run.apps.length * 70 + 20);
  run.apps.forEach((a, i) => {
    const lat = a.requests.filter(r => !r[5]).map(r => (r[3] - r[1]) / 1e6);
    el('text', {x: 4, y: 20 + i * 70 + 30, 'font-size': 12}, c.svg).textContent = a.name;
    if (!lat.length) return;
    const lo = Math.log10(Math.max(1e-3, Math.min(...lat))), hi = Math.log10(Math.max(...lat)) + 1e-9;
    const bins = new Array(40).fill(0);
    lat.forEach(l => bins[Math.min(39, Math.floor((Math.log10(Math.max(l, 1e-3)) - lo) / (hi - lo + 1e-12) * 40))]++);
    const max = Math.max(...bins);
    bins.forEach((b, k) => el('rect', {x: 120 + k * 19, y: 20 + i * 70 + 60 - 55 * b / max, width: 17,
                                      height: 55 * b / max, fill: uidColor[a.uid]}, c.svg));
    el('text', {x: 120, y: 20 + i * 70 + 72, 'font-size': 10}, c.svg).textContent =
        `${Math.pow(10, lo).toFixed(2)} ms … ${Math.pow(10, hi).toFixed(2)} ms (log), n = ${lat.length}`;
  });
  c.svg.dataset.rendered = '1';
})();
// Temperature and clock over time.
function line(id, series, unit) {
  const c = chart(id, 0, 200);
  const all = series.flatMap(s => s.values);
  const lo = Math.min(...all), hi = Math.max(...all) + 1e-9;
  const y = v => 180 - 160 * (v - lo) / (hi - lo);
  series.forEach((s, i) => {
    el('polyline', {points: run.samples.map((p, k) => `${c.x(p[0])},${y(s.values[k])}`).join(' '),
                    fill: 'none', stroke: COLORS[i], 'stroke-width': 1.5}, c.svg);
    el('text', {x: 4, y: 40 + i * 16, 'font-size': 12, fill: COLORS[i]}, c.svg).textContent = s.name;
  });
  el('text', {x: 4, y: 195, 'font-size': 10}, c.svg).textContent = `${lo.toFixed(1)} … ${hi.toFixed(1)} ${unit}`;
  c.svg.dataset.rendered = '1';
}
line('temperature', [{name: 'junction °C', values: run.samples.map(p => p[1])},
                     {name: 'skin °C', values: run.samples.map(p => p[2])}], '°C');
line('clock', [{name: 'NPU MHz', values: run.samples.map(p => p[3])}], 'MHz');
)JS";

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else out += ch;
  }
  return out;
}

}  // namespace

std::string html_report(const RunResult& main_run, const std::vector<Metrics>& comparison) {
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim scenario " +
                     escape(main_run.scenario) + "</title>\n<style>body{font-family:sans-serif;margin:20px}"
                     "pre{background:#f6f6f6;padding:8px}svg{border:1px solid #ccc;display:block}</style></head><body>\n";
  html += "<h1>Scenario " + escape(main_run.scenario) + " — policy " + escape(main_run.policy) + "</h1>\n";
  html += "<h2>Comparison</h2>\n<pre id=\"comparison\">" + escape(comparison_table(comparison)) + "</pre>\n";
  for (const auto& m : comparison)
    if (m.policy == main_run.policy) html += "<h2>Apps</h2>\n<pre>" + escape(app_table(m)) + "</pre>\n";
  html += "<h2>Timeline per app (grey: model resident; colour: NPU jobs)</h2><svg class=\"chart\" id=\"apps\"></svg>\n";
  html += "<h2>Timeline per channel (colour: app)</h2><svg class=\"chart\" id=\"channels\"></svg>\n";
  html += "<h2>Latency distribution (arrival to end)</h2><svg class=\"chart\" id=\"latency\"></svg>\n";
  html += "<h2>Temperature</h2><svg class=\"chart\" id=\"temperature\"></svg>\n";
  html += "<h2>NPU clock</h2><svg class=\"chart\" id=\"clock\"></svg>\n";
  std::string data = nlohmann::json{{"run", main_run.to_json()}}.dump();
  // Keep "</script>" out of the embedded JSON.
  for (size_t p = 0; (p = data.find("</", p)) != std::string::npos; p += 3) data.replace(p, 2, "<\\/");
  html += "<script>\nconst DATA = " + data + ";\n" + kScript + "</script>\n</body></html>\n";
  return html;
}

}  // namespace npu::scenario
