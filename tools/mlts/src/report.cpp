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

// Drawing code: plain DOM calls into the four <svg> charts, axes with min/max labels. The data is
// bench_json() embedded in the page (with "<" escaped so it cannot close the script element).
constexpr const char* kScript = R"JS(
const NS = 'http://www.w3.org/2000/svg';
function el(parent, name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
function fmt(v) { return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3); }
// A chart frame: plot area 60..W-10 × 10..H-30, axis labels for the y range and x range.
function frame(svg, ylo, yhi, xlabel, ylabel) {
  const W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
  const g = el(svg, 'g', {class: 'drawn'});
  el(g, 'line', {x1: 60, y1: H - 30, x2: W - 10, y2: H - 30, stroke: '#444'});
  el(g, 'line', {x1: 60, y1: 10, x2: 60, y2: H - 30, stroke: '#444'});
  el(g, 'text', {x: 55, y: 16, 'text-anchor': 'end', 'font-size': 11}, fmt(yhi));
  el(g, 'text', {x: 55, y: H - 30, 'text-anchor': 'end', 'font-size': 11}, fmt(ylo));
  el(g, 'text', {x: (W + 50) / 2, y: H - 8, 'text-anchor': 'middle', 'font-size': 12}, xlabel);
  el(g, 'text', {x: 12, y: (H - 20) / 2, 'font-size': 12, transform: `rotate(-90 12 ${(H - 20) / 2})`,
                 'text-anchor': 'middle'}, ylabel);
  const span = yhi > ylo ? yhi - ylo : 1;
  return {g, W, H, y: v => H - 30 - (v - ylo) / span * (H - 45), x: (i, n) => 60 + (i + 0.5) * (W - 70) / n};
}
function series(svg, values, xlabel, ylabel, color) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (lo === hi) { lo = lo * 0.9; hi = hi * 1.1 + (hi === 0 ? 1 : 0); }
  const f = frame(svg, lo, hi, xlabel, ylabel);
  const pts = values.map((v, i) => `${f.x(i, values.length)},${f.y(v)}`).join(' ');
  el(f.g, 'polyline', {points: pts, fill: 'none', stroke: color, 'stroke-width': 2, class: 'mark'});
  values.forEach((v, i) => el(f.g, 'circle', {cx: f.x(i, values.length), cy: f.y(v), r: 3, fill: color, class: 'mark'}));
  return f.g;
}
function bars(svg, counts, lo, width, xlabel, ylabel) {
  const f = frame(svg, 0, Math.max(...counts), xlabel, ylabel);
  const bw = (f.W - 70) / counts.length;
  counts.forEach((c, i) => {
    const top = f.y(c);
    el(f.g, 'rect', {x: 60 + i * bw + 1, y: top, width: Math.max(bw - 2, 1), height: Math.max(f.H - 30 - top, 1),
                     fill: '#3a7bd5', class: 'mark'});
  });
  el(f.g, 'text', {x: 60, y: f.H - 18, 'font-size': 11}, fmt(lo));
  el(f.g, 'text', {x: f.W - 10, y: f.H - 18, 'text-anchor': 'end', 'font-size': 11}, fmt(lo + width * counts.length));
  return f.g;
}
function record(svg, g) {
  const b = g.getBBox();
  svg.setAttribute('data-marks', g.querySelectorAll('.mark').length);
  svg.setAttribute('data-drawn-size', `${Math.round(b.width)}x${Math.round(b.height)}`);
}
const it = DATA.iterations;
const lat = DATA.latency_us;
const charts = [
  ['latency', () => series(document.getElementById('latency'), it.map(x => x.latency_us), 'iteration', 'latency (us)', '#d1495b')],
  ['histogram', () => bars(document.getElementById('histogram'), lat.histogram, lat.min,
                           lat.bin_width || Math.max(lat.max * 0.01, 1e-3), 'latency (us)', 'iterations')],
  ['thermal', () => series(document.getElementById('thermal'), it.map(x => x.junction_c), 'iteration', 'junction (C)', '#edae49')],
];
// Timing-only models have no values, so no error against the reference.
if (DATA.accuracy)
  charts.push(['error', () => series(document.getElementById('error'), it.map(x => x.mse_sum), 'iteration', 'sum of MSE', '#00798c')]);
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
