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
// Powers of ten and roof values as text: 1k, 10M, 4.1T; below 1: 0.1, 0.01.
function si(v, sep = '') {
  for (const [u, name] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']])
    if (v >= u) return String(+(v / u).toPrecision(3)) + sep + name;
  return String(+v.toPrecision(3)) + sep;
}
// Colours of operation types, in order of first appearance (shared by the roofline and utilisation).
const TYPE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                     '#bcbd22', '#17becf'];
const typeColor = {};
for (const l of DATA.layers || [])
  if (l.where === 'npu' && !(l.type in typeColor))
    typeColor[l.type] = TYPE_COLORS[Object.keys(typeColor).length % TYPE_COLORS.length];
// Operations on the roofline: on the NPU with MACs, DRAM traffic and a time (log axes need all three > 0).
const plotted = (DATA.layers || []).filter(l => l.where === 'npu' && l.macs > 0 && l.dram_bytes > 0 && l.device_us > 0);
// Roofline on log-log axes: x = ops per DRAM byte, y = attained ops/s, the compute and bandwidth roofs.
function roofline(svg, roof) {
  const W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
  const L = 70, R = 10, T = 10, B = 40;
  const g = el(svg, 'g', {class: 'drawn'});
  const pts = plotted.map(l => ({l, x: 2 * l.macs / l.dram_bytes, y: 2 * l.macs / (l.device_us * 1e-6)}));
  const ridge = roof.peak_ops_per_s / roof.dram_bytes_per_s;
  const xs = pts.map(p => p.x).concat([ridge / 10, ridge * 10]);
  const ys = pts.map(p => p.y).concat([roof.peak_ops_per_s / 1e3]);
  const x0 = Math.floor(Math.log10(Math.min(...xs))), x1 = Math.ceil(Math.log10(Math.max(...xs)));
  const y0 = Math.floor(Math.log10(Math.min(...ys))), y1 = Math.ceil(Math.log10(roof.peak_ops_per_s * 1.01));
  const X = v => L + (Math.log10(v) - x0) / (x1 - x0) * (W - L - R);
  const Y = v => H - B - (Math.log10(v) - y0) / (y1 - y0) * (H - B - T);
  el(g, 'line', {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: '#444'});
  el(g, 'line', {x1: L, y1: T, x2: L, y2: H - B, stroke: '#444'});
  const xstep = Math.max(1, Math.ceil((x1 - x0) / 10)), ystep = Math.max(1, Math.ceil((y1 - y0) / 8));
  for (let k = x0; k <= x1; k += xstep) {
    el(g, 'line', {x1: X(10 ** k), y1: T, x2: X(10 ** k), y2: H - B + 5, stroke: '#eee'});
    el(g, 'text', {x: X(10 ** k), y: H - 24, 'text-anchor': 'middle', 'font-size': 11, class: 'tick x'}, si(10 ** k));
  }
  for (let k = y0; k <= y1; k += ystep) {
    el(g, 'line', {x1: L - 5, y1: Y(10 ** k), x2: W - R, y2: Y(10 ** k), stroke: '#eee'});
    el(g, 'text', {x: L - 8, y: Y(10 ** k) + 4, 'text-anchor': 'end', 'font-size': 11, class: 'tick y'}, si(10 ** k));
  }
  el(g, 'text', {x: (W + L) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 12, class: 'axis-label'},
     'operational intensity (ops per byte of DRAM traffic, 1 MAC = 2 ops)');
  el(g, 'text', {x: 14, y: (H - B + T) / 2, 'font-size': 12, transform: `rotate(-90 14 ${(H - B + T) / 2})`,
                 'text-anchor': 'middle', class: 'axis-label'}, 'attained performance (ops/s, simulated)');
  // The roofs, clipped to the plot area: bandwidth × intensity up to the ridge point, then the peak.
  const clip = el(el(svg, 'defs', {}), 'clipPath', {id: 'roofline-plot'});
  el(clip, 'rect', {x: L, y: T, width: W - L - R, height: H - B - T});
  const lo = 10 ** x0, hi = 10 ** x1;
  el(g, 'polyline', {points: `${X(lo)},${Y(roof.dram_bytes_per_s * lo)} ${X(ridge)},${Y(roof.peak_ops_per_s)}`,
                     fill: 'none', stroke: '#444', 'stroke-width': 2, 'stroke-dasharray': '6 3',
                     'clip-path': 'url(#roofline-plot)', class: 'roof'});
  el(g, 'polyline', {points: `${X(ridge)},${Y(roof.peak_ops_per_s)} ${X(hi)},${Y(roof.peak_ops_per_s)}`,
                     fill: 'none', stroke: '#444', 'stroke-width': 2, class: 'roof'});
  // Legend of the roofs in the top-left corner: above the bandwidth roof, where no operation can be.
  el(g, 'line', {x1: L + 10, y1: T + 14, x2: L + 34, y2: T + 14, stroke: '#444', 'stroke-width': 2});
  el(g, 'text', {x: L + 40, y: T + 18, 'font-size': 11, class: 'legend'},
     `compute roof ${si(roof.peak_ops_per_s, ' ')}ops/s`);
  el(g, 'line', {x1: L + 10, y1: T + 30, x2: L + 34, y2: T + 30, stroke: '#444', 'stroke-width': 2,
                 'stroke-dasharray': '6 3'});
  el(g, 'text', {x: L + 40, y: T + 34, 'font-size': 11, class: 'legend'},
     `DRAM roof ${si(roof.dram_bytes_per_s, ' ')}B/s × intensity`);
  el(g, 'circle', {cx: L + 22, cy: T + 46, r: 4, fill: '#888'});
  el(g, 'text', {x: L + 40, y: T + 50, 'font-size': 11, class: 'legend'},
     'an NPU operation (colour: type, legend above)');
  for (const p of pts)
    el(el(g, 'circle', {cx: X(p.x), cy: Y(p.y), r: 4, fill: typeColor[p.l.type], 'fill-opacity': 0.8,
                        class: 'mark point', 'data-intensity': p.x, 'data-ops-per-s': p.y}),
       'title', {}, `operation ${p.l.operation} ${p.l.type}: ${p.x.toPrecision(3)} ops/byte, ` +
                    `${si(p.y, ' ')}ops/s (${(100 * p.y / roof.peak_ops_per_s).toFixed(1)} % of the compute roof) ` +
                    `in ${p.l.device_us} µs`);
  svg.setAttribute('data-points', pts.length);
  return g;
}
// MAC-array utilisation of each NPU operation with a time, in execution order.
function utilisation(svg) {
  const rows = (DATA.layers || []).filter(l => l.where === 'npu' && l.array_utilisation !== undefined);
  const f = frame(svg, 0, 100, 'operation (index in the graph), in execution order', 'MAC-array utilisation (%)', true);
  const bw = (f.W - 80) / Math.max(1, rows.length);
  rows.forEach((l, i) => {
    const top = f.y(100 * l.array_utilisation);
    el(el(f.g, 'rect', {x: 70 + i * bw + (bw > 3 ? 0.5 : 0), y: top, width: Math.max(bw - (bw > 3 ? 1 : 0), 0.5),
                        height: Math.max(f.H - 40 - top, 0), fill: typeColor[l.type] || '#888', class: 'mark bar'}),
       'title', {}, `operation ${l.operation} ${l.type}: ${(100 * l.array_utilisation).toFixed(1)} % over ` +
                    `${l.busy_us} channel-µs (${l.macs} MACs)`);
  });
  if (rows.length) xticks(f, rows.length, i => String(rows[i].operation));
  svg.setAttribute('data-bars', rows.length);
  return f.g;
}
// The operation types' colours, once for both per-operation charts.
(function () {
  const legend = document.getElementById('layer-legend');
  if (!legend) return;
  for (const [type, color] of Object.entries(typeColor)) {
    const item = document.createElement('span');
    item.className = 'legend-item';
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = color;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(type));
    legend.appendChild(item);
  }
})();
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
charts.push(['roofline', () => roofline(document.getElementById('roofline'), DATA.roofline)],
            ['utilisation', () => utilisation(document.getElementById('utilisation'))]);
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
      "svg{border:1px solid #ddd;margin:0.5em}"
      ".legend-item{margin-right:1.5em;white-space:nowrap}.swatch{display:inline-block;width:12px;height:"
      "12px;"
      "margin-right:4px;vertical-align:middle}</style></head>\n<body>\n";
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
  html +=
      "<h2>Roofline per operation (first iteration)</h2>\n<p>One point per NPU operation with MACs: "
      "operational intensity = 2 &times; its MACs / the bytes its DMA moved between DRAM and SRAM; attained "
      "= "
      "2 &times; its MACs / its time on the device (first command buffer's start to the last one's end). "
      "Roofs: the MAC arrays' peak (channels &times; rows &times; columns &times; 2 ops &times; the "
      "configured clock) and the DRAM bandwidth &times; intensity. Operations without MACs (additions, "
      "average pooling, reshapes, softmax) have no intensity and are not drawn.</p>\n"
      "<div id=\"layer-legend\"></div>\n<svg id=\"roofline\" width=\"640\" height=\"420\"></svg>\n";
  html +=
      "<h2>MAC-array utilisation per operation (first iteration)</h2>\n<p>Its MACs over what the MAC "
      "arrays of its command buffers could do in their time at the configured clock (layers.csv's "
      "<code>array_utilisation</code>).</p>\n<svg id=\"utilisation\" width=\"640\" height=\"260\"></svg>\n";
  html += "<script>\nconst DATA = " + data + ";\n" + kScript + "</script>\n</body></html>\n";
  return html;
}

Result<void> write_bench_html(const BenchResult& r, const std::string& path) {
  return io::write_file_atomic(path, bench_html(r));
}

}  // namespace npu::mlts
