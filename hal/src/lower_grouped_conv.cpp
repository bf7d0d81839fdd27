// GROUPED_CONV_2D on the MAC array, as the CONV_2D whose filter covers every input channel with zero
// weights outside each output channel's group (block diagonal): the array runs the compiler's CONV_2D
// lowering unchanged, at num_groups times the MACs of the grouped operation. Numerics equal the CPU
// reference's: quantised, an out-of-group weight is the filter's zero point (0 per channel), so its
// term (a − za)(w − zw) is exactly 0 in the int32 sum; float, the in-group products are added in the
// same (fy, fx, ic) order with ±0 terms between them, which change no finite sum (inf/NaN inputs would
// make those terms NaN). Not lowered: what CONV_2D is not (e.g. float16, a filter that is not constant).
#include <cstring>

#include "lowering.h"

namespace npu::hal::lower {
namespace {

using models::OperandType;
using models::OperationType;

// The model with operation `index` rewritten as that CONV_2D (the expanded filter appended as a new
// constant operand, the number-of-groups input dropped); operand indices are otherwise unchanged, so
// arena slots and the other operations are the same.
Result<models::Model> as_dense_conv(const models::Model& m, uint32_t index) {
  const auto& g = m.main;
  const auto& op = g.operations[index];
  const size_t n = op.inputs.size();
  if (n != 9 && n != 12) return make_error("GROUPED_CONV_2D with " + std::to_string(n) + " inputs");
  const size_t groups_at = n == 9 ? 6 : 9;
  const auto& groups_operand = g.operands[op.inputs[groups_at]];
  const auto& layout = g.operands[op.inputs[n - 1]];
  if (!groups_operand.is_constant() || groups_operand.data.size() < 4 || !layout.is_constant() ||
      layout.data.empty())
    return make_error("the number of groups and the layout must be constants");
  int32_t groups = 0;
  std::memcpy(&groups, groups_operand.data.data(), 4);
  const bool nchw = layout.data[0] != 0;
  const auto& in = g.operands[op.inputs[0]];
  const auto& f = g.operands[op.inputs[1]];
  if (!f.is_constant()) return make_error("filter and bias must be constants for the NPU");
  if (in.dimensions.size() != 4 || f.dimensions.size() != 4 || groups <= 0)
    return make_error("shapes must be rank 4");
  const uint32_t in_c = in.dimensions[nchw ? 1 : 3], out_c = f.dimensions[0], dg = f.dimensions[3];
  const uint64_t taps = uint64_t{f.dimensions[1]} * f.dimensions[2];
  if (uint64_t{dg} * static_cast<uint32_t>(groups) != in_c || out_c % static_cast<uint32_t>(groups) != 0)
    return make_error("filter depth times groups must give the input depth");
  const uint32_t ocg = out_c / static_cast<uint32_t>(groups);
  const uint32_t es = models::element_size(f.type);
  models::Operand dense = f;
  dense.dimensions[3] = in_c;
  if (!f.values_omitted) {
    // A weight of "zero": 0.0, or the zero point of a per-tensor quantised filter (0 per channel).
    const bool zp_fill =
        f.type == OperandType::TENSOR_QUANT8_ASYMM || f.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    dense.data.assign(uint64_t{out_c} * taps * in_c * es, zp_fill ? static_cast<uint8_t>(f.zero_point) : 0);
    for (uint32_t oc = 0; oc < out_c; ++oc)
      for (uint64_t t = 0; t < taps; ++t)
        std::memcpy(&dense.data[((oc * taps + t) * in_c + uint64_t{oc / ocg} * dg) * es],
                    &f.data[(oc * taps + t) * dg * es], uint64_t{dg} * es);
  }
  models::Model out = m;
  out.main.operands.push_back(std::move(dense));
  models::Operation conv{OperationType::CONV_2D, op.inputs, op.outputs};
  conv.inputs[1] = static_cast<uint32_t>(out.main.operands.size() - 1);
  conv.inputs.erase(conv.inputs.begin() + static_cast<std::ptrdiff_t>(groups_at));
  out.main.operations[index] = std::move(conv);
  return out;
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

const Lowering& grouped_conv_lowering() {
  static const Lowering l{unsupported, lower};
  return l;
}

}  // namespace npu::hal::lower
