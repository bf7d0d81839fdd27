// TRANSPOSE_CONV_2D with stride 1 on the MAC array, as the CONV_2D of the spatially flipped filter with
// paddings (f − 1 − pad) on each side: output row oy gathers in[oy + pad_top − fy]·filter[fy], which is
// the convolution tap k = f − 1 − fy of the flipped filter. The CPU reference sums the taps in that
// order (fy, fx descending, see hal/ops/src/transpose_conv_2d.cpp), so float results are identical, and
// quantised ones are exact integer sums either way. Not lowered: strides above 1 (an upsampling the
// array would need a zero-inserted input for), paddings beyond f − 1 (a cropped output), and whatever
// CONV_2D refuses.
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

Result<models::Model> as_dense_conv(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const size_t n = op.inputs.size();
  if (n != 9 && n != 11) return make_error("TRANSPOSE_CONV_2D with " + std::to_string(n) + " inputs");
  const bool implicit = n == 9;
  const size_t stride_at = implicit ? 5 : 7;
  for (size_t i = 3; i < n; ++i)
    if (!g.operands[op.inputs[i]].is_constant())
      return make_error("the output shape, paddings, strides, activation and layout must be constants");
  if (int_value(g.operands[op.inputs[stride_at]]) != 1 || int_value(g.operands[op.inputs[stride_at + 1]]) != 1)
    return make_error("strides above 1 (an upsampling) are not lowered");
  const auto& layout = g.operands[op.inputs[n - 1]];
  const bool nchw = !layout.data.empty() && layout.data[0] != 0;
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
    // SAME: head padding ((⌈O⌉ − 1) + f − O) / 2 at stride 1, i.e. (f − 1) / 2; VALID: none.
    if (int_value(g.operands[op.inputs[4]]) == 1) {
      top = (fh - 1) / 2;
      left = (fw - 1) / 2;
    }
  } else {
    left = int_value(g.operands[op.inputs[3]]);
    top = int_value(g.operands[op.inputs[5]]);
  }
  // The tails follow from the output extent: O = I − 1 + f − head − tail.
  const int64_t bottom = int64_t{ih} - 1 + fh - top - oh, right = int64_t{iw} - 1 + fw - left - ow;
  if (top < 0 || left < 0 || bottom < 0 || right < 0 || top > fh - 1 || bottom > fh - 1 || left > fw - 1 || right > fw - 1)
    return make_error("paddings outside [0, filter − 1] (a cropped or widened output) are not lowered");
  models::Operand flipped = f;
  if (!f.values_omitted) {
    const uint32_t es = models::element_size(f.type), oc_n = f.dimensions[0], ic = f.dimensions[3];
    for (uint32_t oc = 0; oc < oc_n; ++oc)
      for (uint32_t y = 0; y < fh; ++y)
        for (uint32_t x = 0; x < fw; ++x)
          std::memcpy(&flipped.data[((uint64_t{oc} * fh + (fh - 1 - y)) * fw + (fw - 1 - x)) * ic * es],
                      &f.data[((uint64_t{oc} * fh + y) * fw + x) * ic * es], uint64_t{ic} * es);
  }
  models::Model dense = m;
  auto& operands = dense.main.operands;
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
  operands.push_back(std::move(flipped));
  const auto filter = static_cast<uint32_t>(operands.size() - 1);
  const uint32_t one = constant_int(1);
  const models::Operation conv{
      OperationType::CONV_2D,
      {op.inputs[0], filter, op.inputs[2], constant_int(fw - 1 - left), constant_int(fw - 1 - right),
       constant_int(fh - 1 - top), constant_int(fh - 1 - bottom), one, one, op.inputs[n - 2], op.inputs[n - 1]},
      op.outputs};
  dense.main.operations[index] = conv;
  return dense;
}

std::string unsupported(const models::Model& m, uint32_t index, const NpuTarget& target) {
  auto dense = as_dense_conv(m, index);
  if (!dense) return dense.error();
  return npu_unsupported_reason(*dense, index, target);
}

Result<void> lower(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                   std::vector<NpuStep>& jobs) {
  auto dense = as_dense_conv(m, index);
  if (!dense) return make_error(dense.error());
  return lower_conv_operation(*dense, index, target, prog, jobs);
}

}  // namespace

const Lowering& transpose_conv_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
