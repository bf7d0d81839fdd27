// RESIZE_BILINEAR on the vector unit (its RESIZE_BILINEAR descriptor), NHWC, float32 and both quant8
// types, with NNAPI 1.3's align_corners and half_pixel_centers. Work is flat over output rows (all
// images' rows in order): a chunk's rows of one image need one contiguous band of input rows, found with
// the same desc::bilinear_taps the vector unit blends with, so a band always holds every tap. Scales come
// from the extents as the reference computes them (in / out, or (in − 1) / (out − 1) with aligned
// corners). NCHW and FLOAT16 stay on the CPU.
#include <cmath>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;

struct Plan {
  Nhwc in, out;
  float h_scale, w_scale;
  bool half_pixel;
  uint64_t band_rows_per_item;  // input rows one output row can add to a band, at most
};

float axis_scale(uint32_t in, uint32_t out, bool align_corners) {
  if (align_corners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return static_cast<float>(in) / static_cast<float>(out);
}

Result<Plan> plan(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  if (op.inputs.size() < 3 || op.inputs.size() > 6 || op.outputs.size() != 1)
    return make_error("expected 3 to 6 inputs and 1 output");
  const uint32_t x = op.inputs[0], y = op.outputs[0];
  if (auto r = unknown_dims_reason(m, {x, y}); !r.empty()) return make_error(r);
  const auto t = g.operands[x].type;
  if (t != OperandType::TENSOR_FLOAT32 && !is_quant8(t))
    return make_error("data type " + std::string(models::to_string(t)) + " is not supported on the NPU");
  if (g.operands[x].dimensions.size() != 4) return make_error("expected a 4-D input");
  bool flags[3] = {false, false, false};  // NCHW, align corners, half pixel centres
  for (size_t k = 3; k < op.inputs.size(); ++k) {
    const auto& f = g.operands[op.inputs[k]];
    if (!f.is_constant() || f.data.empty())
      return make_error("input " + std::to_string(k) + " must be a constant");
    flags[k - 3] = f.data[0] != 0;
  }
  if (flags[0]) return make_error("NCHW layout is not supported by the NPU's RESIZE_BILINEAR");
  Plan p{};
  p.in = nhwc_extents(g.operands[x], false);
  p.out = nhwc_extents(g.operands[y], false);
  if (p.in.h == 0 || p.in.w == 0 || p.out.h == 0 || p.out.w == 0 || p.in.c == 0)
    return make_error("empty image");
  p.h_scale = axis_scale(p.in.h, p.out.h, flags[1]);
  p.w_scale = axis_scale(p.in.w, p.out.w, flags[1]);
  p.half_pixel = flags[2];
  p.band_rows_per_item = static_cast<uint64_t>(std::ceil(p.h_scale)) + 1;
  return p;
}

FlatWork work_of(const Plan& p, uint32_t e) {
  FlatWork w;
  w.count = uint64_t{p.out.n} * p.out.h;
  w.bytes_per_item =
      (p.band_rows_per_item * p.in.w + p.out.w) * uint64_t{p.in.c} * e;  // input band share, output row
  return w;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto p = plan(m, index);
  if (!p) return p.error();
  return flat_fits(work_of(*p, elem_bytes(m.main.operands[m.main.operations[index].inputs[0]].type)), target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  auto p = plan(m, index);
  if (!p) return make_error(p.error());
  const uint32_t e = elem_bytes(g.operands[op.inputs[0]].type);
  const uint64_t row_in = uint64_t{p->in.w} * p->in.c * e, row_out = uint64_t{p->out.w} * p->out.c * e;
  desc::ResizeBilinear d{};
  d.h.opcode = desc::Opcode::RESIZE_BILINEAR;
  d.dtype = dtype_of(g.operands[op.inputs[0]].type);
  d.in_h = p->in.h, d.in_w = p->in.w, d.out_h = p->out.h, d.out_w = p->out.w, d.channels = p->in.c;
  d.h_scale = p->h_scale, d.w_scale = p->w_scale;
  d.half_pixel = p->half_pixel ? 1 : 0;
  const Source src = operand_source(m, op.inputs[0], prog);
  const uint64_t out_base = prog.arena.at(op.outputs[0]).offset;
  // Buffer: input bands (capacity · band_rows_per_item rows) | the chunk's output rows.
  auto body = [&](Emitter& emit, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity) {
    const uint64_t out_sram = buffer + capacity * p->band_rows_per_item * row_in;
    uint64_t in_sram = buffer;
    for (uint64_t item = first; item < first + items;) {
      const uint64_t image = item / p->out.h;
      const uint32_t oy0 = static_cast<uint32_t>(item % p->out.h);
      const uint32_t rows = static_cast<uint32_t>(std::min<uint64_t>(p->out.h - oy0, first + items - item));
      const int64_t lo = desc::bilinear_taps(oy0, p->h_scale, p->in.h, p->half_pixel).lo;
      const int64_t hi = desc::bilinear_taps(oy0 + rows - 1, p->h_scale, p->in.h, p->half_pixel).hi;
      const uint64_t band = static_cast<uint64_t>(hi - lo + 1);
      emit.dma(desc::Opcode::DMA_IN, src.region,
               src.offset + (image * p->in.h + static_cast<uint64_t>(lo)) * row_in, in_sram, band * row_in);
      desc::ResizeBilinear c = d;
      c.in_sram = static_cast<uint32_t>(in_sram);
      c.out_sram = static_cast<uint32_t>(out_sram + (item - first) * row_out);
      c.in_y0 = static_cast<uint32_t>(lo), c.in_rows = static_cast<uint32_t>(band);
      c.out_y0 = oy0, c.out_rows = rows;
      emit.op(c);
      in_sram += band * row_in;
      item += rows;
    }
    emit.dma(desc::Opcode::DMA_OUT, Region::ARENA, out_base + first * row_out, out_sram, items * row_out);
  };
  lower_flat(work_of(*p, e), target, jobs, nullptr, body);
  prog.tiles += jobs.size();
  return {};
}

}  // namespace

const Lowering& resize_bilinear_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
