// TRANSPOSE_CONV_2D on the MAC array as CONV_2Ds of the spatially flipped filter.
// Stride 1: one CONV_2D with paddings (f − 1 − pad) on each side: output row oy gathers
// in[oy + pad_top − fy]·filter[fy], which is the convolution tap k = f − 1 − fy of the flipped filter.
// Stride s > 1 (an upsampling): split by output phase. Output rows oy ≡ py (mod s) read only the filter
// rows fy ≡ (py + pad_top) (mod s), so phase py is a stride-1 transposed convolution of the whole input
// with that sub-filter (every s-th row) and head padding ⌊(py + pad_top) / s⌋, and likewise for columns:
// s_h·s_w dense CONV_2Ds, none of them multiplying an inserted zero, each storing its rows and columns
// into every s-th pixel of the output (lower::OutputView). Job j of the stage runs job j of every phase.
// The CPU reference sums the taps of an output in that order (fy, fx descending over the taps that
// reach it, see hal/ops/src/transpose_conv_2d.cpp), so float results are identical, and quantised ones
// are exact integer sums either way. A phase whose head padding passes its taps starts its window that
// many input rows or columns in (OutputView's skip). Not lowered: a phase that no filter tap reaches (a
// filter smaller than the stride), an output wider than the taps reach (outputs of bias alone), and
// whatever CONV_2D refuses.
#include <algorithm>
#include <cstring>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::Lifetime;
using models::OperandType;
using models::OperationType;

int32_t int_value(const models::Operand& o) {
  int32_t v = 0;
  if (o.data.size() >= 4) std::memcpy(&v, o.data.data(), 4);
  return v;
}

// Head padding of implicit padding, from the output extent (NNAPI's rule, as the CPU reference).
int64_t implicit_head(int32_t scheme, int64_t out, int64_t stride, int64_t filter) {
  if (scheme != 1) return 0;
  const int64_t n = (out + stride - 1) / stride;
  const int64_t span = (n - 1) * stride + filter;
  return span > out ? (span - out) / 2 : 0;
}

// One output phase along one axis: its taps fy = first + k·stride (k < taps), the stride-1 head padding
// and tail padding of its transposed convolution, and its output extent.
struct AxisPhase {
  uint32_t first, taps, out;
  int64_t head, tail;
};

AxisPhase axis_phase(uint32_t phase, int64_t pad, uint32_t stride, uint32_t filter, uint32_t in,
                     uint32_t out) {
  AxisPhase a{};
  const int64_t q = int64_t{phase} + pad;
  a.first = static_cast<uint32_t>(q % stride);
  a.head = q / stride;
  a.taps = a.first < filter ? (filter - a.first + stride - 1) / stride : 0;
  a.out = out > phase ? (out - phase + stride - 1) / stride : 0;
  a.tail = int64_t{in} - 1 + a.taps - a.head - a.out;  // O = I − 1 + taps − head − tail
  return a;
}

struct Phase {
  models::Model dense;  // the operation replaced by its CONV_2D (the output operand's extents the phase's)
  OutputView view;
  bool scattered;  // stored through `view` (strided, or skipping into the input)
};

Result<std::vector<Phase>> phases(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const size_t n = op.inputs.size();
  if (n != 9 && n != 11) return make_error("TRANSPOSE_CONV_2D with " + std::to_string(n) + " inputs");
  const bool implicit = n == 9;
  const size_t stride_at = implicit ? 5 : 7;
  for (size_t i = 3; i < n; ++i)
    if (!g.operands[op.inputs[i]].is_constant())
      return make_error("the output shape, paddings, strides, activation and layout must be constants");
  const int32_t sw = int_value(g.operands[op.inputs[stride_at]]),
                sh = int_value(g.operands[op.inputs[stride_at + 1]]);
  if (sw < 1 || sh < 1) return make_error("strides must be positive");
  const auto& layout = g.operands[op.inputs[n - 1]];
  const bool nchw = !layout.data.empty() && layout.data[0] != 0;
  const bool strided = sw > 1 || sh > 1;
  const auto& in = g.operands[op.inputs[0]];
  const auto& f = g.operands[op.inputs[1]];
  const auto& out = g.operands[op.outputs[0]];
  if (!f.is_constant()) return make_error("filter and bias must be constants for the NPU");
  if (in.dimensions.size() != 4 || f.dimensions.size() != 4 || out.dimensions.size() != 4)
    return make_error("shapes must be rank 4");
  const uint32_t fh = f.dimensions[1], fw = f.dimensions[2];
  const uint32_t ih = in.dimensions[nchw ? 2 : 1], iw = in.dimensions[nchw ? 3 : 2];
  const uint32_t oh = out.dimensions[nchw ? 2 : 1], ow = out.dimensions[nchw ? 3 : 2];
  int64_t top = 0, left = 0;
  if (implicit) {
    const int32_t scheme = int_value(g.operands[op.inputs[4]]);
    top = implicit_head(scheme, oh, sh, fh);
    left = implicit_head(scheme, ow, sw, fw);
  } else {
    left = int_value(g.operands[op.inputs[3]]);
    top = int_value(g.operands[op.inputs[5]]);
  }
  if (top < 0 || left < 0) return make_error("negative paddings are not lowered");
  std::vector<Phase> result;
  const uint32_t es = models::element_size(f.type), oc_n = f.dimensions[0], ic = f.dimensions[3];
  for (uint32_t py = 0; py < static_cast<uint32_t>(sh); ++py) {
    const AxisPhase y = axis_phase(py, top, static_cast<uint32_t>(sh), fh, ih, oh);
    for (uint32_t px = 0; px < static_cast<uint32_t>(sw); ++px) {
      const AxisPhase x = axis_phase(px, left, static_cast<uint32_t>(sw), fw, iw, ow);
      if (y.out == 0 || x.out == 0) continue;  // an output smaller than the stride: no such pixels
      const std::string where =
          strided ? " (output phase " + std::to_string(py) + "," + std::to_string(px) + ")" : "";
      if (y.taps == 0 || x.taps == 0)
        return make_error("no filter tap reaches an output phase (a filter smaller than the stride)" + where);
      // A negative tail means outputs no tap reaches (bias alone); a tail past the taps only leaves the
      // last input rows unread (CONV_2D tail 0), a head past them the first (OutputView's skip).
      if (y.tail < 0 || x.tail < 0)
        return make_error("an output wider than the filter reaches is not lowered" + where);
      // The phase's sub-filter (every stride-th tap from `first`), spatially flipped.
      models::Operand sub = f;
      sub.dimensions = {oc_n, y.taps, x.taps, ic};
      if (!f.values_omitted) {
        sub.data.assign(uint64_t{oc_n} * y.taps * x.taps * ic * es, 0);
        for (uint32_t oc = 0; oc < oc_n; ++oc)
          for (uint32_t ky = 0; ky < y.taps; ++ky)
            for (uint32_t kx = 0; kx < x.taps; ++kx) {
              const uint32_t fy = y.first + ky * static_cast<uint32_t>(sh),
                             fx = x.first + kx * static_cast<uint32_t>(sw);
              std::memcpy(
                  &sub.data[((uint64_t{oc} * y.taps + (y.taps - 1 - ky)) * x.taps + (x.taps - 1 - kx)) * ic *
                            es],
                  &f.data[((uint64_t{oc} * fh + fy) * fw + fx) * ic * es], uint64_t{ic} * es);
            }
      }
      const int64_t skip_y = std::max<int64_t>(0, y.head - (y.taps - 1)),
                    skip_x = std::max<int64_t>(0, x.head - (x.taps - 1));
      Phase p{m,
              OutputView{static_cast<uint32_t>(sh), static_cast<uint32_t>(sw), py, px, oh, ow,
                         static_cast<uint32_t>(skip_y), static_cast<uint32_t>(skip_x)},
              strided || skip_y > 0 || skip_x > 0};
      auto& operands = p.dense.main.operands;
      auto constant_int = [&](int64_t v) {
        models::Operand o;
        o.type = OperandType::INT32;
        o.lifetime = Lifetime::CONSTANT_COPY;
        o.data.resize(4);
        const auto v32 = static_cast<int32_t>(v);
        std::memcpy(o.data.data(), &v32, 4);
        operands.push_back(std::move(o));
        return static_cast<uint32_t>(operands.size() - 1);
      };
      operands.push_back(std::move(sub));
      const auto filter = static_cast<uint32_t>(operands.size() - 1);
      if (strided) {  // the CONV_2D sees the phase's extents; its stores scatter into the real output
        auto& o = operands[op.outputs[0]];
        o.dimensions = nchw ? std::vector<uint32_t>{o.dimensions[0], o.dimensions[1], y.out, x.out}
                            : std::vector<uint32_t>{o.dimensions[0], y.out, x.out, o.dimensions[3]};
      }
      const uint32_t one = constant_int(1);
      const models::Operation conv{
          OperationType::CONV_2D,
          {op.inputs[0], filter, op.inputs[2], constant_int(std::max<int64_t>(0, x.taps - 1 - x.head)),
           constant_int(std::max<int64_t>(0, x.taps - 1 - x.tail)),
           constant_int(std::max<int64_t>(0, y.taps - 1 - y.head)),
           constant_int(std::max<int64_t>(0, y.taps - 1 - y.tail)), one, one, op.inputs[n - 2],
           op.inputs[n - 1]},
          op.outputs};
      p.dense.main.operations[index] = conv;
      result.push_back(std::move(p));
    }
  }
  if (result.empty()) return make_error("empty output");
  return result;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto ps = phases(m, index);
  if (!ps) return ps.error();
  for (const Phase& p : *ps)
    if (auto r = npu_unsupported_reason(p.dense, index, target); !r.empty()) return r;
  return "";
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  auto ps = phases(m, index);
  if (!ps) return make_error(ps.error());
  for (const Phase& p : *ps) {
    std::vector<NpuStep> one;
    if (auto r = lower_conv_operation(p.dense, index, target, prog, one, p.scattered ? &p.view : nullptr); !r)
      return r;
    if (jobs.size() < one.size()) jobs.resize(one.size());
    for (size_t j = 0; j < one.size(); ++j) {
      NpuStep& into = jobs[j];
      NpuStep& from = one[j];
      // One FENCE ends each command buffer: the phases' own are dropped and one kept after the last.
      if (!into.commands.empty()) into.commands.pop_back();
      const auto base = static_cast<uint32_t>(into.commands.size());
      for (const Relocation& r : from.relocations)
        into.relocations.push_back({r.descriptor + base, r.region});
      into.commands.insert(into.commands.end(), from.commands.begin(), from.commands.end());
      into.macs += from.macs;
    }
  }
  return {};
}

}  // namespace

const Lowering& transpose_conv_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
