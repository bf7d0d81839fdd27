#include "npu/sweep/report.h"

#include <algorithm>
#include <map>
#include <set>

#include "npu/common/svg_script.h"

namespace npu::sweep {
namespace {

using nlohmann::json;

bool has(const SweepMeta& m, const std::string& metric) {
  return std::find(m.metrics.begin(), m.metrics.end(), metric) != m.metrics.end();
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

// Inline JSON inside <script>: "</" would close the element.
std::string script_json(const json& j) {
  std::string s = j.dump();
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/')
      o += "<\\";
    else
      o += s[i];
  }
  return o;
}

const char* kScript = R"JS(
const D = JSON.parse(document.getElementById('data').textContent);
function fmt(v) { const a = Math.abs(v); return v == null ? '' : a >= 1e7 || (a < 0.01 && v != 0) ? v.toExponential(2) :
  a >= 100 ? Math.round(v).toString() : (+v.toPrecision(4)).toString(); }
function scale(vals, lo, hi) { let a = Math.min(...vals), b = Math.max(...vals);
  const log = a > 0 && b / a > 20; if (log) { a = Math.log10(a); b = Math.log10(b); }
  if (a == b) { a -= 1; b += 1; } const pad = (b - a) * 0.06; a -= pad; b += pad;
  const f = v => lo + ((log ? Math.log10(v) : v) - a) / (b - a) * (hi - lo); f.log = log; f.a = a; f.b = b; return f; }
// Tick values a reader can read: the shared round ticks (linear), or the powers of ten (log, with 2 and 5
// between them when the range spans less than two decades), inside the axis's range.
function axisTicks(s) {
  if (!s.log) return ticks(s.a, s.b, 4);
  const out = [], per = s.b - s.a < 2 ? [1, 2, 5] : [1];
  for (let e = Math.floor(s.a); e <= Math.ceil(s.b); e++) for (const m of per) {
    const v = m * Math.pow(10, e), u = Math.log10(v); if (u >= s.a && u <= s.b) out.push(v); }
  return out;
}
// The points of `pts` no other point beats in both x and y (this projection's own front), by x.
function front2d(pts, xk, yk) {
  const by = [...pts].sort((a, b) => a[xk] - b[xk] || a[yk] - b[yk]);
  const out = []; let best = Infinity;
  for (const p of by) if (p[yk] < best) { out.push(p); best = p[yk]; }
  return out;
}
function plot(svg, pts, xk, yk, xl, yl) {
  const W = 460, H = 320, L = 64, R = 28, T = 12, B = 44;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`); svg.setAttribute('width', W); svg.setAttribute('height', H);
  el('rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fafafa', stroke: '#999'}, svg);
  const sx = scale(pts.map(p => p[xk]), L, W - R), sy = scale(pts.map(p => p[yk]), H - B, T);
  for (const [s, horiz] of [[sx, true], [sy, false]]) for (const v of axisTicks(s)) {
    const q = horiz ? sx(v) : sy(v);
    const t = el('text', horiz ? {x: q, y: H - B + 14, 'text-anchor': 'middle', class: 'tick', 'data-axis': 'x'}
                               : {x: L - 4, y: q + 4, 'text-anchor': 'end', class: 'tick', 'data-axis': 'y'}, svg);
    t.textContent = fmt(v); }
  el('text', {x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis'}, svg).textContent = xl + (sx.log ? ' (log)' : '');
  const yt = el('text', {x: 14, y: (T + H - B) / 2, 'text-anchor': 'middle', class: 'axis', transform: `rotate(-90 14 ${(T + H - B) / 2})`}, svg);
  yt.textContent = yl + (sy.log ? ' (log)' : '');
  // The staircase of this projection's own front: a design on the 3-D front may be beaten in these two
  // metrics alone (it wins on the third), so a line through the 3-D front would zig-zag.
  const stairs = front2d(pts, xk, yk);
  let d = `M${sx(stairs[0][xk])},${sy(stairs[0][yk])}`;
  for (const p of stairs.slice(1)) d += ` H${sx(p[xk])} V${sy(p[yk])}`;
  if (stairs.length > 1) el('path', {d: d, fill: 'none', stroke: '#d62728', 'stroke-dasharray': '4 3', class: 'staircase'}, svg);
  for (const p of pts) { const c = el('circle', {cx: sx(p[xk]), cy: sy(p[yk]), r: p.front ? 5 : 3.5,
      fill: p.front ? '#d62728' : '#1f77b4', 'fill-opacity': p.front ? 0.95 : 0.45, class: p.front ? 'front' : 'dominated'}, svg);
    el('title', {}, c).textContent = `point ${p.point}: ${p.label}\n${xl} ${fmt(p[xk])}, ${yl} ${fmt(p[yk])}, area ${fmt(p.area)} mm2`;
    // Front designs carry their point id, the key of the table below the plots.
    if (p.front) el('text', {x: sx(p[xk]) + 6, y: sy(p[yk]) - 6, class: 'pid'}, svg).textContent = p.point; }
  svg.setAttribute('data-rendered', '1');
}
for (const w of D.workloads) {
  const pts = w.points;
  if (!pts.length) continue;
  plot(document.getElementById('le-' + w.id), pts, 'lat', 'energy', D.latency, 'energy_mj');
  plot(document.getElementById('la-' + w.id), pts, 'lat', 'area', D.latency, 'area_mm2');
}
// Sortable table: click a header; numbers sort numerically, empty cells last.
document.querySelectorAll('table.sortable th').forEach((th, col) => th.addEventListener('click', () => {
  const tb = th.closest('table').tBodies[0], rows = [...tb.rows], dir = th.dataset.dir == 'asc' ? -1 : 1;
  th.closest('tr').querySelectorAll('th').forEach(h => delete h.dataset.dir); th.dataset.dir = dir > 0 ? 'asc' : 'desc';
  const key = r => { const t = r.cells[col].textContent; const n = parseFloat(t); return t === '' ? null : isNaN(n) ? t : n; };
  rows.sort((a, b) => { const x = key(a), y = key(b); if (x === null) return 1; if (y === null) return -1;
    return (typeof x == 'number' && typeof y == 'number' ? x - y : String(x).localeCompare(String(y))) * dir; });
  rows.forEach(r => tb.appendChild(r)); }));
document.body.setAttribute('data-rendered', '1');
)JS";

std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v.get<double>());
    return b;
  }
  return v.is_string() ? escape(v.get<std::string>()) : v.dump();
}

}  // namespace

std::string latency_metric(const SweepMeta& m) {
  for (const char* k : {"latency_p50_us", "latency_mean_us", "latency_p99_us"})
    if (has(m, k)) return k;
  return "";
}

std::vector<size_t> pareto_front(const std::vector<Row>& rows, const std::string& workload,
                                 const std::string& lat) {
  std::vector<size_t> cand;
  auto val = [&](size_t i, const char* k) { return rows[i].metrics[k].get<double>(); };
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.workload != workload || r.status != "ok") continue;
    if (!r.metrics.contains(lat) || !r.metrics[lat].is_number() || !r.metrics.contains("energy_mj") ||
        !r.metrics["energy_mj"].is_number() || !r.metrics.contains("area_mm2") ||
        !r.metrics["area_mm2"].is_number())
      continue;
    cand.push_back(i);
  }
  std::vector<size_t> front;
  for (size_t i : cand) {
    bool dominated = false;
    for (size_t j : cand) {
      if (i == j) continue;
      const double li = rows[i].metrics[lat].get<double>(), lj = rows[j].metrics[lat].get<double>();
      const bool le =
          lj <= li && val(j, "energy_mj") <= val(i, "energy_mj") && val(j, "area_mm2") <= val(i, "area_mm2");
      const bool lt =
          lj < li || val(j, "energy_mj") < val(i, "energy_mj") || val(j, "area_mm2") < val(i, "area_mm2");
      if (le && lt) {
        dominated = true;
        break;
      }
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::string pareto_markdown(const SweepMeta& meta, const std::vector<Row>& rows) {
  const std::string lat = latency_metric(meta);
  if (lat.empty() || !has(meta, "energy_mj") || !has(meta, "area_mm2"))
    return "The sweep did not record a latency metric, energy_mj and area_mm2: no Pareto front.\n";
  std::vector<std::string> workloads;
  for (const auto& r : rows)
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end())
      workloads.push_back(r.workload);
  std::string out;
  for (const auto& w : workloads) {
    auto front = pareto_front(rows, w, lat);
    size_t ok = 0;
    for (const auto& r : rows) ok += r.workload == w && r.status == "ok";
    std::sort(front.begin(), front.end(), [&](size_t a, size_t b) {
      return rows[a].metrics[lat].get<double>() < rows[b].metrics[lat].get<double>();
    });
    out += "**" + w + "**: " + std::to_string(front.size()) + " of " + std::to_string(ok) +
           " designs on the front\n\n| point |";
    for (const auto& a : meta.axes) out += " " + a + " |";
    out += " " + lat + " | energy_mj | area_mm2 |\n|---|";
    for (size_t i = 0; i < meta.axes.size() + 3; ++i) out += "---|";
    out += "\n";
    for (size_t i : front) {
      out += "| " + std::to_string(rows[i].point) + " |";
      for (const auto& a : meta.axes) out += " " + cell(rows[i].params[a]) + " |";
      for (const char* m : {lat.c_str(), "energy_mj", "area_mm2"}) {
        char b[32];
        std::snprintf(b, sizeof b, "%.5g", rows[i].metrics[m].get<double>());
        out += std::string(" ") + b + " |";
      }
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::string html_report(const SweepMeta& meta, const std::vector<Row>& rows) {
  const std::string lat = latency_metric(meta);
  std::vector<std::string> workloads;
  for (const auto& r : rows)
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end())
      workloads.push_back(r.workload);
  size_t ok = 0;
  for (const auto& r : rows) ok += r.status == "ok";
  json data = {{"latency", lat}, {"workloads", json::array()}};
  std::string body;
  body += "<h1>Sweep " + escape(meta.name) + "</h1>\n<p>" + std::to_string(rows.size()) + " rows (" +
          std::to_string(ok) + " ok, " + std::to_string(rows.size() - ok) + " failed) over " +
          std::to_string(workloads.size()) + " workload" + (workloads.size() == 1 ? "" : "s") + "; axes: ";
  for (size_t i = 0; i < meta.axes.size(); ++i)
    body += (i ? ", " : "") + std::string("<code>") + escape(meta.axes[i]) + "</code>";
  body += ".</p>\n";
  const bool can_pareto = !lat.empty() && has(meta, "energy_mj") && has(meta, "area_mm2");
  body += "<h2>Pareto fronts</h2>\n";
  if (!can_pareto)
    body += "<p>The sweep did not record a latency metric, energy_mj and area_mm2: no Pareto front.</p>\n";
  for (size_t w = 0; w < workloads.size() && can_pareto; ++w) {
    const auto front = pareto_front(rows, workloads[w], lat);
    const std::set<size_t> on(front.begin(), front.end());
    json wj = {{"id", w}, {"name", workloads[w]}, {"points", json::array()}};
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      if (r.workload != workloads[w] || r.status != "ok" || !r.metrics[lat].is_number() ||
          !r.metrics["energy_mj"].is_number() || !r.metrics["area_mm2"].is_number())
        continue;
      std::string label;
      for (const auto& a : meta.axes) label += (label.empty() ? "" : " ") + a + "=" + r.params[a].dump();
      wj["points"].push_back({{"point", r.point},
                              {"label", label},
                              {"lat", r.metrics[lat]},
                              {"energy", r.metrics["energy_mj"]},
                              {"area", r.metrics["area_mm2"]},
                              {"front", on.count(i) > 0}});
    }
    body += "<h3>" + escape(workloads[w]) + "</h3>\n<p>" + std::to_string(front.size()) + " of " +
            std::to_string(wj["points"].size()) + " designs on the front (red, with their point ids; " + lat +
            ", energy_mj and area_mm2 all minimised; the dashed staircase is each plot's own two-metric "
            "front).</p>\n<div class=\"plots\"><svg id=\"le-" +
            std::to_string(w) + "\" class=\"pareto\"></svg><svg id=\"la-" + std::to_string(w) +
            "\" class=\"pareto\"></svg></div>\n";
    body += "<table><tr><th>point</th>";
    for (const auto& a : meta.axes) body += "<th>" + escape(a) + "</th>";
    body += "<th>" + lat + "</th><th>energy_mj</th><th>area_mm2</th></tr>\n";
    std::vector<size_t> sorted = front;
    std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
      return rows[a].metrics[lat].get<double>() < rows[b].metrics[lat].get<double>();
    });
    for (size_t i : sorted) {
      body += "<tr><td>" + std::to_string(rows[i].point) + "</td>";
      for (const auto& a : meta.axes) body += "<td>" + cell(rows[i].params[a]) + "</td>";
      body += "<td>" + cell(rows[i].metrics[lat]) + "</td><td>" + cell(rows[i].metrics["energy_mj"]) +
              "</td><td>" + cell(rows[i].metrics["area_mm2"]) + "</td></tr>\n";
    }
    body += "</table>\n";
    data["workloads"].push_back(wj);
  }
  // Sensitivity: for each axis, the mean of a metric at each of its values (over the other axes' points);
  // the ratio of the largest to the smallest mean says how much that axis moves the metric.
  body +=
      "<h2>Sensitivity</h2>\n<p>Per axis and workload: largest over smallest mean of the metric across the "
      "axis's values (1.00 = no effect), mean over every other axis. Main effects only: interactions do "
      "not show.</p>\n<table><tr><th>axis</th><th>workload</th>";
  std::vector<std::string> sens_metrics;
  for (const auto& m : meta.metrics)
    if (m == lat || m == "energy_mj" || m == "area_mm2" || m == "latency_p99_us" || m == "utilisation")
      sens_metrics.push_back(m);
  for (const auto& m : sens_metrics) body += "<th>" + m + "</th>";
  body += "</tr>\n";
  for (const auto& a : meta.axes) {
    for (const auto& w : workloads) {
      body += "<tr><td>" + escape(a) + "</td><td>" + escape(w) + "</td>";
      for (const auto& m : sens_metrics) {
        std::map<std::string, std::pair<double, unsigned>> by_value;
        for (const auto& r : rows) {
          if (r.workload != w || r.status != "ok" || !r.metrics[m].is_number()) continue;
          auto& acc = by_value[r.params[a].dump()];
          acc.first += r.metrics[m].get<double>();
          ++acc.second;
        }
        double lo = 0, hi = 0;
        bool first = true;
        for (const auto& [v, acc] : by_value) {
          (void)v;
          const double mean = acc.first / acc.second;
          lo = first ? mean : std::min(lo, mean);
          hi = first ? mean : std::max(hi, mean);
          first = false;
        }
        char b[32];
        if (by_value.size() < 2 || lo <= 0)
          std::snprintf(b, sizeof b, "-");
        else
          std::snprintf(b, sizeof b, "%.2f", hi / lo);
        body += std::string("<td>") + b + "</td>";
      }
      body += "</tr>\n";
    }
  }
  body +=
      "</table>\n<h2>All rows</h2>\n<p>Click a header to sort. Each row's command reproduces it.</p>\n"
      "<table class=\"sortable\"><thead><tr><th>point</th><th>workload</th>";
  for (const auto& a : meta.axes) body += "<th>" + escape(a) + "</th>";
  body += "<th>status</th>";
  for (const auto& m : meta.metrics) body += "<th>" + escape(m) + "</th>";
  body += "<th>command</th></tr></thead><tbody>\n";
  for (const auto& r : rows) {
    body += "<tr><td>" + std::to_string(r.point) + "</td><td>" + escape(r.workload) + "</td>";
    for (const auto& a : meta.axes) body += "<td>" + cell(r.params[a]) + "</td>";
    body += "<td" +
            std::string(r.status == "ok" ? "" : " class=\"failed\" title=\"" + escape(r.error) + "\"") + ">" +
            escape(r.status) + "</td>";
    for (const auto& m : meta.metrics) body += "<td>" + cell(r.metrics[m]) + "</td>";
    body += "<td><code>" + escape(r.command) + "</code></td></tr>\n";
  }
  body += "</tbody></table>\n";
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npusim sweep " + escape(meta.name) +
         "</title>\n<style>body{font:14px sans-serif;margin:20px}table{border-collapse:collapse;margin:8px 0}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee;cursor:pointer}"
         "code{font-size:11px;text-align:left}td.failed{color:#b00}.plots{display:flex;gap:16px}"
         "svg text{font:11px sans-serif}svg text.axis{font-weight:bold}svg "
         "text.pid{font-size:9px;fill:#7a1a1a}</style></head>\n<body>\n" +
         body + "<script type=\"application/json\" id=\"data\">" + script_json(data) + "</script>\n<script>" +
         report::kSvgScript + kScript + "</script>\n</body></html>\n";
}

}  // namespace npu::sweep
