#include "npu/scenario/report.h"

#include "npu/common/svg_script.h"

namespace npu::scenario {
namespace {

// Drawing code: reads `DATA`, appends SVG elements. Kept as one raw string so the page stays one file.
constexpr const char* kScript = R"JS(
// Hover text of a mark.
function hover(e, s) { el('title', {}, e).textContent = s; return e; }
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const run = DATA.run, T = run.duration_s * 1e9;
const uidColor = {}, uidName = {};
run.apps.forEach((a, i) => { uidColor[a.uid] = COLORS[i % COLORS.length]; uidName[a.uid] = a.name; });
// Time unit for the run's length: ms below 10 s, else s.
const TU = T < 10e9 ? {name: 'ms', ns: 1e6} : {name: 's', ns: 1e9};
const LEFT = 120, RIGHT = 20, W = 1200;
// The time window every time chart shows (ns). Ctrl+wheel, a drag, the range fields and "Whole run"
// change it; each time chart then redraws itself (its ticks too) from `redraws`.
const view = {lo: 0, hi: T};
const redraws = [];
function chart(id, height) {
  const svg = document.getElementById(id);
  const H = height;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', W); svg.setAttribute('height', H);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  return {svg, W, H, x: t => LEFT + (W - LEFT - RIGHT) * (t - view.lo) / (view.hi - view.lo)};
}
// A time as text in the run's unit, and a duration in the unit that suits it.
function at(ns) { return `${+(ns / TU.ns).toPrecision(6)} ${TU.name}`; }
function duration(ns) {
  return ns >= 1e9 ? `${+(ns / 1e9).toPrecision(4)} s` : ns >= 1e6 ? `${+(ns / 1e6).toPrecision(4)} ms`
       : ns >= 1e3 ? `${+(ns / 1e3).toPrecision(4)} µs` : `${ns} ns`;
}
// The time axis under a chart: ticks with values (of the visible window) and the unit.
function timeAxis(c, y) {
  el('line', {x1: LEFT, y1: y, x2: c.W - RIGHT, y2: y, stroke: '#444'}, c.svg);
  for (const v of ticks(view.lo / TU.ns, view.hi / TU.ns, 10)) {
    const x = c.x(v * TU.ns);
    if (x < LEFT - 0.5 || x > c.W - RIGHT + 0.5) continue;
    el('line', {x1: x, y1: y, x2: x, y2: y + 5, stroke: '#444'}, c.svg);
    text({x, y: y + 17, 'font-size': 11, 'text-anchor': 'middle', class: 'tick x'}, c.svg, String(v));
  }
  text({x: (LEFT + c.W - RIGHT) / 2, y: y + 34, 'font-size': 12, 'text-anchor': 'middle', class: 'axis-label'},
       c.svg, `simulated time (${TU.name})`);
}
// The plot area as a clip path, so lines cut at the window's edges.
function clipTo(c, id, top, bottom) {
  const clip = el('clipPath', {id: 'clip-' + id}, el('defs', {}, c.svg));
  el('rect', {x: LEFT, y: top, width: c.W - LEFT - RIGHT, height: bottom - top}, clip);
  return `url(#clip-${id})`;
}
// Spans as bars, one lane per name; span = [start ns, end ns, colour, opacity, what it is].
function lanes(id, names, spansOf) {
  const draw = () => {
    const c = chart(id, names.length * 22 + 20 + 45);
    names.forEach((n, i) => {
      text({x: 4, y: 20 + i * 22 + 14, 'font-size': 12}, c.svg, n);
      for (const s of spansOf(i)) {
        if (s[1] < view.lo || s[0] > view.hi) continue;
        const x0 = Math.max(LEFT, c.x(s[0])), x1 = Math.min(c.W - RIGHT, c.x(s[1]));
        hover(el('rect', {x: x0, y: 20 + i * 22, width: Math.max(0.5, x1 - x0), height: 16, fill: s[2],
                          opacity: s[3] || 1, class: 'mark'}, c.svg),
              `${s[4]}: start ${at(s[0])}, duration ${duration(s[1] - s[0])}`);
      }
    });
    timeAxis(c, 20 + names.length * 22 + 4);
    c.svg.dataset.rendered = '1';
    c.svg.dataset.marks = c.svg.querySelectorAll('.mark').length;
  };
  redraws.push(draw);
  draw();
  zoomable(document.getElementById(id));
}
// Sets the window (clamped to the run, at least 1 µs) and redraws every time chart.
function setView(lo, hi) {
  const least = Math.min(T, 1000);
  lo = Math.max(0, Math.min(lo, T)); hi = Math.max(0, Math.min(hi, T));
  if (hi - lo < least) {
    const mid = (lo + hi) / 2;
    lo = Math.max(0, Math.min(mid - least / 2, T - least)); hi = lo + least;
  }
  view.lo = lo; view.hi = hi;
  redraws.forEach(draw => draw());
  document.getElementById('zoom-from').value = +(lo / TU.ns).toPrecision(6);
  document.getElementById('zoom-to').value = +(hi / TU.ns).toPrecision(6);
  document.body.dataset.view = `${lo} ${hi}`;
}
// The time under a pointer's clientX over a time chart (the <svg> may be scaled to the page's width).
function timeAt(svg, clientX) {
  const r = svg.getBoundingClientRect();
  const f = ((clientX - r.left) * W / r.width - LEFT) / (W - LEFT - RIGHT);
  return view.lo + Math.min(1, Math.max(0, f)) * (view.hi - view.lo);
}
// Ctrl+wheel (a trackpad pinch) zooms at the pointer; a drag selects the window; double-click: whole run.
function zoomable(svg) {
  svg.addEventListener('wheel', e => {
    if (!e.ctrlKey) return;  // a plain wheel scrolls the page
    e.preventDefault();
    const t = timeAt(svg, e.clientX), k = Math.exp(Math.max(-2, Math.min(2, e.deltaY / 250)));
    setView(t - (t - view.lo) * k, t + (view.hi - t) * k);
  }, {passive: false});
  let from = null, band = null;
  const svgX = clientX => { const r = svg.getBoundingClientRect(); return (clientX - r.left) * W / r.width; };
  svg.addEventListener('mousedown', e => { from = e.clientX; e.preventDefault(); });
  svg.addEventListener('mousemove', e => {
    if (from === null) return;
    if (!band) band = el('rect', {y: 0, height: svg.viewBox.baseVal.height, fill: '#3a7bd5', opacity: 0.15}, svg);
    const a = svgX(from), b = svgX(e.clientX);
    band.setAttribute('x', Math.min(a, b)); band.setAttribute('width', Math.abs(b - a));
  });
  svg.addEventListener('mouseup', e => {
    if (from === null) return;
    const a = timeAt(svg, from), b = timeAt(svg, e.clientX), moved = Math.abs(e.clientX - from);
    from = null;
    if (band) { band.remove(); band = null; }
    if (moved > 3) setView(Math.min(a, b), Math.max(a, b));
  });
  svg.addEventListener('mouseleave', () => { from = null; if (band) { band.remove(); band = null; } });
  svg.addEventListener('dblclick', () => setView(0, T));
}
(function () {
  document.getElementById('zoom-unit').textContent = TU.name;
  document.getElementById('zoom-apply').addEventListener('click', () => {
    const lo = parseFloat(document.getElementById('zoom-from').value) * TU.ns;
    const hi = parseFloat(document.getElementById('zoom-to').value) * TU.ns;
    if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) setView(lo, hi);
  });
  document.getElementById('zoom-reset').addEventListener('click', () => setView(0, T));
  document.getElementById('zoom-from').value = 0;
  document.getElementById('zoom-to').value = +(T / TU.ns).toPrecision(6);
})();
// Colour legend: one entry per app.
(function () {
  const legend = document.getElementById('legend');
  run.apps.forEach(a => {
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.innerHTML = `<span class="swatch" style="background:${uidColor[a.uid]}"></span>`;
    item.appendChild(document.createTextNode(a.name));
    legend.appendChild(item);
  });
  const resident = document.createElement('span');
  resident.className = 'legend-item';
  resident.innerHTML = '<span class="swatch" style="background:#ddd"></span>model resident (per-app timeline)';
  legend.appendChild(resident);
})();
lanes('apps', run.apps.map(a => a.name), i => {
  const a = run.apps[i];
  return a.resident.map(s => [s[0], s[1], '#ddd', 1, `${a.name}: model resident`])
      .concat(a.jobs.map(s => [s[0], s[1], uidColor[a.uid], 1, `${a.name}: job (${s[2]}), submit to end`]));
});
function channelLanes(id, r) {
  const channels = [...Array(r.channels).keys()];
  lanes(id, channels.map(c => 'ch' + c), c => r.channel_spans.filter(s => s[0] === c)
        .map(s => [s[1], s[2], uidColor[s[3]], 1, `${uidName[s[3]] || 'uid ' + s[3]}: command buffer on ch${c}`]));
}
channelLanes('channels', run);
(DATA.others || []).forEach((r, i) => channelLanes('channels-' + i, r));
// Latency histograms, one row per app on one shared log-scaled latency axis (so rows compare): 40
// log-spaced bins, each row with its own count axis (integers), the latency axis under every row, and
// the bin range and counts written under it.
(function () {
  const rowH = 150, barTop = 14, barH = 60, c = chart('latency', run.apps.length * rowH + 10);
  const latencies = run.apps.map(a => a.requests.filter(r => !r[5]).map(r => (r[3] - r[1]) / 1e6));
  const every = latencies.flat();
  // (No completed request at all: the rows say so and the range is never used.)
  let lo = every.length ? Math.log10(Math.max(1e-3, Math.min(...every))) : 0;
  let hi = every.length ? Math.log10(Math.max(1e-3, Math.max(...every))) : 1;
  if (hi - lo < 0.1) { const mid = (lo + hi) / 2; lo = mid - 0.05; hi = mid + 0.05; }  // one value: ±12 %
  const x = ms => LEFT + (c.W - LEFT - RIGHT) * (Math.log10(Math.max(ms, 1e-3)) - lo) / (hi - lo);
  // Ticks at 1, 2 and 5 × 10^k inside the range; a range narrower than that gets linear round ticks.
  let xticks = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); ++k)
    for (const m of [1, 2, 5]) {
      const v = +(m * Math.pow(10, k)).toPrecision(6);
      if (Math.log10(v) >= lo - 1e-9 && Math.log10(v) <= hi + 1e-9) xticks.push(v);
    }
  if (xticks.length < 3) xticks = ticks(Math.pow(10, lo), Math.pow(10, hi), 4).filter(v => v > 0);
  run.apps.forEach((a, i) => {
    const lat = latencies[i], top = 10 + i * rowH, base = top + barTop + barH;
    text({x: 4, y: top + barTop + 30, 'font-size': 12}, c.svg, a.name);
    if (!lat.length) {
      text({x: LEFT, y: top + barTop + 30, 'font-size': 11}, c.svg, 'no completed requests');
      return;
    }
    const bins = new Array(40).fill(0);
    lat.forEach(l => bins[Math.min(39, Math.max(0, Math.floor((Math.log10(Math.max(l, 1e-3)) - lo) / (hi - lo) * 40)))]++);
    const max = Math.max(...bins), bw = (c.W - LEFT - RIGHT) / 40;
    // Count axis: integer ticks from 0 to the tallest bin.
    el('line', {x1: LEFT, y1: top + barTop, x2: LEFT, y2: base, stroke: '#444'}, c.svg);
    for (const v of ticks(0, max, 3).filter(Number.isInteger)) {
      const y = base - barH * v / max;
      el('line', {x1: LEFT - 4, y1: y, x2: c.W - RIGHT, y2: y, stroke: '#eee'}, c.svg);
      text({x: LEFT - 7, y: y + 4, 'font-size': 11, 'text-anchor': 'end', class: 'tick y'}, c.svg, String(v));
    }
    text({x: LEFT - 40, y: top + barTop + barH / 2 + 4, 'font-size': 11, 'text-anchor': 'middle', class: 'axis-label',
          transform: `rotate(-90 ${LEFT - 40} ${top + barTop + barH / 2 + 4})`}, c.svg, 'requests');
    bins.forEach((b, k) => hover(el('rect', {x: LEFT + k * bw, y: base - barH * b / max, width: bw - 2,
                                             height: barH * b / max, fill: uidColor[a.uid], class: 'mark'}, c.svg),
                                 `${b} request${b === 1 ? '' : 's'}`));
    // Latency axis: log scale, ticks with values in ms.
    el('line', {x1: LEFT, y1: base, x2: c.W - RIGHT, y2: base, stroke: '#444'}, c.svg);
    for (const v of xticks) {
      el('line', {x1: x(v), y1: base, x2: x(v), y2: base + 5, stroke: '#444'}, c.svg);
      text({x: x(v), y: base + 17, 'font-size': 11, 'text-anchor': 'middle', class: 'tick x'}, c.svg, String(v));
    }
    text({x: (LEFT + c.W - RIGHT) / 2, y: base + 33, 'font-size': 12, 'text-anchor': 'middle', class: 'axis-label'},
         c.svg, 'latency, arrival to end (ms, simulated; log scale)');
    const least = Math.min(...lat), most = Math.max(...lat);
    text({x: LEFT, y: base + 52, 'font-size': 11, class: 'caption'}, c.svg,
         `${a.name}: ${lat.length} completed request${lat.length === 1 ? '' : 's'}, ` +
         `latency ${+least.toPrecision(4)} ms … ${+most.toPrecision(4)} ms, tallest bin ${max}`);
  });
  c.svg.dataset.rendered = '1';
})();
// Temperature and clock over time, with a value axis; temperature also draws the trip points.
function line(id, series, unit, marks) {
  const draw = () => {
    const c = chart(id, 260);
    const all = series.flatMap(s => s.values).concat((marks || []).map(m => m.v));
    let lo = Math.min(...all), hi = Math.max(...all);
    if (hi - lo < 1) { lo -= 0.5; hi += 0.5; }
    const top = 10, bottom = 200;
    const y = v => bottom - (bottom - top) * (v - lo) / (hi - lo);
    const clip = clipTo(c, id, 0, bottom);
    el('line', {x1: LEFT, y1: top, x2: LEFT, y2: bottom, stroke: '#444'}, c.svg);
    for (const v of ticks(lo, hi, 5)) {
      el('line', {x1: LEFT - 5, y1: y(v), x2: c.W - RIGHT, y2: y(v), stroke: '#eee'}, c.svg);
      text({x: LEFT - 8, y: y(v) + 4, 'font-size': 11, 'text-anchor': 'end', class: 'tick y'}, c.svg, String(v));
    }
    text({x: 14, y: (top + bottom) / 2, 'font-size': 12, 'text-anchor': 'middle', class: 'axis-label',
          transform: `rotate(-90 14 ${(top + bottom) / 2})`}, c.svg, unit);
    for (const m of marks || []) {
      el('line', {x1: LEFT, y1: y(m.v), x2: c.W - RIGHT, y2: y(m.v), stroke: '#c00', 'stroke-dasharray': '6 4',
                  class: 'trip'}, c.svg);
      text({x: c.W - RIGHT - 4, y: y(m.v) - 3, 'font-size': 10, 'text-anchor': 'end', fill: '#c00',
            class: 'trip-label'}, c.svg, `trip point ${m.name} ${m.v} ${unit}`);
    }
    series.forEach((s, i) => {
      hover(el('polyline', {points: run.samples.map((p, k) => `${c.x(p[0])},${y(s.values[k])}`).join(' '),
                            fill: 'none', stroke: COLORS[i], 'stroke-width': 1.5, class: 'series', 'clip-path': clip},
               c.svg), s.name);
      text({x: LEFT + 10 + i * 140, y: top + 14, 'font-size': 12, fill: COLORS[i], class: 'legend'}, c.svg, s.name);
    });
    timeAxis(c, bottom + 4);
    c.svg.dataset.rendered = '1';
    c.svg.dataset.series = series.length;
  };
  redraws.push(draw);
  draw();
  zoomable(document.getElementById(id));
}
// Trip points far above the run's temperatures would squash the curves: draw the lowest (how far the run
// stayed from the first throttling step) and any other within 10 °C of the run's peak.
const temps = run.samples.flatMap(p => [p[1], p[2]]), peak = Math.max(...temps);
const trips = run.trip_points_c || [], lowestTrip = Math.min(...trips.map(t => t.c));
line('temperature', [{name: 'junction', values: run.samples.map(p => p[1])},
                     {name: 'skin', values: run.samples.map(p => p[2])}], '°C',
     trips.filter(t => t.c === lowestTrip || t.c <= peak + 10).map(t => ({name: t.name, v: t.c})));
line('clock', [{name: 'NPU clock', values: run.samples.map(p => p[3])}], 'MHz');
document.body.dataset.chartsDrawn = document.querySelectorAll('svg[data-rendered]').length;
)JS";

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '&')
      out += "&amp;";
    else
      out += ch;
  }
  return out;
}

}  // namespace

std::string html_report(const RunResult& main_run, const std::vector<Metrics>& comparison,
                        const std::vector<RunResult>& other_runs) {
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim scenario " +
      escape(main_run.scenario) +
      "</title>\n<style>body{font-family:sans-serif;margin:20px}"
      "pre{background:#f6f6f6;padding:8px;overflow-x:auto;max-width:100%}svg{border:1px solid "
      "#ccc;display:block;"
      "max-width:100%;height:auto}.legend-item{margin-right:1.5em;white-space:nowrap}"
      ".swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}"
      "#zoom{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ccc;z-index:1}"
      "#zoom input{width:7em}svg.chart{user-select:none}</style></head><body>\n";
  html += "<h1>Scenario " + escape(main_run.scenario) + " — policy " + escape(main_run.policy) + "</h1>\n";
  html += "<h2>Comparison</h2>\n<pre id=\"comparison\">" + escape(comparison_table(comparison)) + "</pre>\n";
  for (const auto& m : comparison)
    if (m.policy == main_run.policy) html += "<h2>Apps</h2>\n<pre>" + escape(app_table(m)) + "</pre>\n";
  html +=
      "<div id=\"zoom\">Time charts: Ctrl+wheel over one zooms at the pointer, a drag across one selects "
      "a window, a double-click shows the whole run; or from <input id=\"zoom-from\" type=\"number\" "
      "step=\"any\"> to <input id=\"zoom-to\" type=\"number\" step=\"any\"> <span id=\"zoom-unit\">"
      "</span> <button id=\"zoom-apply\">Show</button> <button id=\"zoom-reset\">Whole run</button>. "
      "Hover a bar for what it is, its start and its duration.</div>\n"
      "<h2>Timeline per app (grey: model resident; colour: driver jobs)</h2>\n<div id=\"legend\"></div>\n"
      "<svg class=\"chart\" id=\"apps\"></svg>\n";
  html +=
      "<h2>Timeline per channel (command buffers; colour: app)</h2><svg class=\"chart\" "
      "id=\"channels\"></svg>\n";
  for (size_t i = 0; i < other_runs.size(); ++i)
    html += "<h2>Timeline per channel under policy " + escape(other_runs[i].policy) +
            "</h2><svg class=\"chart\" id=\"channels-" + std::to_string(i) + "\"></svg>\n";
  html += "<h2>Latency distribution (arrival to end)</h2><svg class=\"chart\" id=\"latency\"></svg>\n";
  html += "<h2>Temperature</h2><svg class=\"chart\" id=\"temperature\"></svg>\n";
  html += "<h2>NPU clock</h2><svg class=\"chart\" id=\"clock\"></svg>\n";
  nlohmann::json others = nlohmann::json::array();
  for (const auto& r : other_runs)
    others.push_back(
        {{"policy", r.policy}, {"channels", r.channels}, {"channel_spans", r.to_json()["channel_spans"]}});
  std::string data = nlohmann::json{{"run", main_run.to_json()}, {"others", others}}.dump();
  // Keep "</script>" out of the embedded JSON.
  for (size_t p = 0; (p = data.find("</", p)) != std::string::npos; p += 3) data.replace(p, 2, "<\\/");
  html +=
      "<script>\nconst DATA = " + data + ";\n" + report::kSvgScript + kScript + "</script>\n</body></html>\n";
  return html;
}

}  // namespace npu::scenario
