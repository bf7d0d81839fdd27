#include "npu/mlts/report.h"

#include "npu/common/file_io.h"

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

// Drawing code: plain DOM calls into the <svg> charts. Axes carry round tick values (true values, never
// offsets), value axes of latencies and counts start at zero so a small step looks small, counts are
// integers. The data is bench_json() embedded in the page (with "<" escaped so it cannot close the
// script element).
constexpr const char* kScript = R"JS(
const NS = 'http://www.w3.org/2000/svg';
function el(parent, name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
// A tick value as text: integers without decimals, others with as many digits as the step needs.
function fmt(v, step) {
  if (Number.isInteger(v)) return String(v);
  const digits = step ? Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9))) : 3;
  return v.toFixed(digits);
}
// Round ticks over [lo, hi]: steps of 1, 2 or 5 × 10^k (at least 1 when `integer`).
function ticks(lo, hi, n, integer) {
  const raw = (hi - lo) / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  let step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw) || 10 * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return {values: out, step};
}
// A chart frame: plot area 70..W-10 × 10..H-40, y ticks over [ylo, yhi] and the axis titles.
function frame(svg, ylo, yhi, xlabel, ylabel, integer) {
  const W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
  const t = ticks(ylo, yhi, 5, integer);
  ylo = Math.min(ylo, t.values[0]);
  yhi = Math.max(yhi, t.values[t.values.length - 1]);
  const g = el(svg, 'g', {class: 'drawn'});
  const span = yhi > ylo ? yhi - ylo : 1;
  const y = v => H - 40 - (v - ylo) / span * (H - 50);
  el(g, 'line', {x1: 70, y1: H - 40, x2: W - 10, y2: H - 40, stroke: '#444'});
  el(g, 'line', {x1: 70, y1: 10, x2: 70, y2: H - 40, stroke: '#444'});
  for (const v of t.values) {
    el(g, 'line', {x1: 65, y1: y(v), x2: W - 10, y2: y(v), stroke: '#eee'});
    el(g, 'text', {x: 62, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, class: 'tick y'}, fmt(v, t.step));
  }
  el(g, 'text', {x: (W + 60) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 12, class: 'axis-label'}, xlabel);
  el(g, 'text', {x: 14, y: (H - 30) / 2, 'font-size': 12, transform: `rotate(-90 14 ${(H - 30) / 2})`,
                 'text-anchor': 'middle', class: 'axis-label'}, ylabel);
  return {g, W, H, y, x: (i, n) => 70 + (i + 0.5) * (W - 80) / n};
}
// Tick labels under the x axis at positions `at` (indices of n slots) reading `label(i)`.
function xticks(f, n, label) {
  const t = ticks(0, n - 1, 10, true);
  for (const i of t.values)
    el(f.g, 'text', {x: f.x(i, n), y: f.H - 24, 'text-anchor': 'middle', 'font-size': 11, class: 'tick x'}, label(i));
}
// One value per iteration; `zero`: the value axis starts at 0.
function series(svg, values, xlabel, ylabel, color, zero) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (zero) lo = Math.min(0, lo);
  if (lo === hi) { hi = hi === 0 ? 1 : hi + Math.abs(hi) * 0.1; lo = zero ? lo : lo - (hi - lo); }
  const f = frame(svg, lo, hi, xlabel, ylabel, false);
  const pts = values.map((v, i) => `${f.x(i, values.length)},${f.y(v)}`).join(' ');
  el(f.g, 'polyline', {points: pts, fill: 'none', stroke: color, 'stroke-width': 2, class: 'series'});
  values.forEach((v, i) => el(el(f.g, 'circle', {cx: f.x(i, values.length), cy: f.y(v), r: 3, fill: color, class: 'mark'}),
                              'title', {}, `iteration ${i + 1}: ${v}`));
  xticks(f, values.length, i => String(i + 1));
  return f.g;
}
function bars(svg, counts, lo, width, xlabel, ylabel) {
  const f = frame(svg, 0, Math.max(...counts), xlabel, ylabel, true);
  const bw = (f.W - 80) / counts.length;
  counts.forEach((c, i) => {
    const top = f.y(c);
    el(el(f.g, 'rect', {x: 70 + i * bw + 1, y: top, width: Math.max(bw - 2, 1), height: Math.max(f.H - 40 - top, 0),
                        fill: '#3a7bd5', class: 'mark'}),
       'title', {}, `${fmt(lo + width * i)} … ${fmt(lo + width * (i + 1))}: ${c} iteration${c === 1 ? '' : 's'}`);
  });
  const edges = ticks(lo, lo + width * counts.length, 6, false);
  for (const v of edges.values) {
    const x = 70 + (v - lo) / (width * counts.length) * (f.W - 80);
    if (x < 69 || x > f.W - 9) continue;
    el(f.g, 'text', {x, y: f.H - 24, 'text-anchor': 'middle', 'font-size': 11, class: 'tick x'}, fmt(v, edges.step));
  }
  return f.g;
}
function record(svg, g) {
  const b = g.getBBox();
  svg.setAttribute('data-marks', g.querySelectorAll('.mark').length);
  svg.setAttribute('data-series', g.querySelectorAll('.series').length);
  svg.setAttribute('data-drawn-size', `${Math.round(b.width)}x${Math.round(b.height)}`);
}
const it = DATA.iterations;
const lat = DATA.latency_us;
const charts = [
  ['latency', () => series(document.getElementById('latency'), it.map(x => x.latency_us), 'iteration',
                           'latency (µs, simulated)', '#d1495b', true)],
  ['histogram', () => bars(document.getElementById('histogram'), lat.histogram, lat.min,
                           lat.bin_width || Math.max(lat.max * 0.01, 1e-3), 'latency (µs, simulated)', 'iterations')],
  ['thermal', () => series(document.getElementById('thermal'), it.map(x => x.junction_c), 'iteration',
                           'junction (°C)', '#edae49', false)],
];
// Timing-only models have no values, so no error against the reference.
if (DATA.accuracy)
  charts.push(['error', () => series(document.getElementById('error'), it.map(x => x.mse_sum), 'iteration',
                                     'sum of MSE', '#00798c', true)]);
for (const [id, draw] of charts) record(document.getElementById(id), draw());
document.body.setAttribute('data-charts-drawn', charts.length);
)JS";

}  // namespace

std::string bench_html(const BenchResult& r) {
  std::string data = bench_json(r).dump();
  // "</script>" inside the data would end the script element early.
  for (size_t at = data.find('<'); at != std::string::npos; at = data.find('<', at + 6))
    data.replace(at, 1, "\\u003c");
  std::string table = bench_table(r);
  std::string html;
  html +=
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim bench: " + escape_html(r.model) +
      "</title>\n<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em}"
      "svg{border:1px solid #ddd;margin:0.5em}</style></head>\n<body>\n";
  html += "<h1>npusim bench: " + escape_html(r.model) + "</h1>\n";
  html +=
      "<p>Latency is simulated time (deterministic); host wall times are not. Accuracy compares the NPU "
      "device with the CPU reference on the same seeded inputs.</p>\n";
  html += "<pre id=\"table\">" + escape_html(table) + "</pre>\n";
  html += "<h2>Latency per iteration</h2>\n<svg id=\"latency\" width=\"640\" height=\"260\"></svg>\n";
  html += "<h2>Latency histogram</h2>\n<svg id=\"histogram\" width=\"640\" height=\"260\"></svg>\n";
  html +=
      "<h2>Junction temperature per iteration</h2>\n<svg id=\"thermal\" width=\"640\" "
      "height=\"260\"></svg>\n";
  if (!r.timing_only)
    html +=
        "<h2>Error against the CPU reference per iteration</h2>\n<svg id=\"error\" width=\"640\" "
        "height=\"260\"></svg>\n";
  html += "<script>\nconst DATA = " + data + ";\n" + kScript + "</script>\n</body></html>\n";
  return html;
}

Result<void> write_bench_html(const BenchResult& r, const std::string& path) {
  return io::write_file_atomic(path, bench_html(r));
}

}  // namespace npu::mlts
