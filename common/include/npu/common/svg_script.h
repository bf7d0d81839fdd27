// The drawing helpers every self-contained HTML report puts in front of its own script (the scenario
// and sweep reports): SVG element creation and round tick values. Written once so the reports' axes read
// alike.
#pragma once

namespace npu::report {

inline constexpr const char* kSvgScript = R"JS(
const NS = 'http://www.w3.org/2000/svg';
function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function text(attrs, parent, s) { const e = el('text', attrs, parent); e.textContent = s; return e; }
// Round tick values: steps of 1, 2 or 5 × 10^k, about `n` of them over [lo, hi].
function ticks(lo, hi, n) {
  const raw = (hi - lo) / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw) || 10 * mag;
  const out = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; ++i) out.push(+(i * step).toPrecision(12));
  return out;
}
)JS";

}  // namespace npu::report
