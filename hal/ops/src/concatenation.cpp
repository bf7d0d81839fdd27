// CONCATENATION kernel. NNAPI signature: inputs 0..n-1 (n >= 1) tensors of one type (FLOAT32/FLOAT16/
// QUANT8_ASYMM(_SIGNED)) and rank 1..4 whose extents agree except along the axis, input n the axis
// (INT32 in [-rank, rank)); output of the same type with the axis extents summed. Quant8 inputs whose
// scale/zero point differ from the output's (allowed since NNAPI 1.2) are requantised as NNAPI's
// reference does (TFLite ConcatenationWithScaling): round(q * s_in/s_out - zp_in * s_in/s_out) + zp_out
// in float, clamped; equal parameters copy the bytes.
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class ConcatenationKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::CONCATENATION; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() < 2)
      return make_error("expected at least 2 inputs (tensors, axis), got " + std::to_string(in.size()));
    const size_t n = in.size() - 1;
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    for (size_t i = 1; i < n; ++i) {
      if (auto r = expect_type(in, i, "input", {in[0].type}); !r) return make_error(r.error());
    }
    auto axis = int_param_in_range(in, n, "axis", -4, 3);
    if (!axis) return make_error(axis.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    size_t rank = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!in[i].rank_known()) continue;
      const size_t r = in[i].dimensions.size();
      if (r < 1 || r > 4) return input_error(i, "input", "expected rank 1 to 4, got " + std::to_string(r));
      if (rank != 0 && r != rank)
        return input_error(i, "input", "rank " + std::to_string(r) + " differs from " + std::to_string(rank));
      rank = r;
    }
    if (rank == 0 || !*axis) return std::vector<std::vector<uint32_t>>{{}};
    const auto irank = static_cast<int32_t>(rank);
    if (**axis >= irank || **axis < -irank)
      return input_error(n, "axis", "out of range for rank " + std::to_string(rank));
    const auto a = static_cast<size_t>(**axis < 0 ? **axis + irank : **axis);
    std::vector<uint32_t> shape(rank, 0);
    uint64_t axis_sum = 0;
    bool axis_known = true;
    for (size_t i = 0; i < n; ++i) {
      if (!in[i].rank_known()) {
        axis_known = false;
        continue;
      }
      for (size_t k = 0; k < rank; ++k) {
        const uint32_t d = in[i].dimensions[k];
        if (k == a) continue;
        if (d != 0 && shape[k] != 0 && d != shape[k]) {
          return input_error(i, "input",
                             "extent " + std::to_string(d) + " of dimension " + std::to_string(k) +
                                 " differs from " + std::to_string(shape[k]));
        }
        if (d != 0) shape[k] = d;
      }
      if (in[i].dimensions[a] == 0) axis_known = false;
      axis_sum += in[i].dimensions[a];
    }
    if (axis_sum > 0xffffffffu) return input_error(n, "axis", "concatenated extent overflows");
    shape[a] = axis_known ? static_cast<uint32_t>(axis_sum) : 0;
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const size_t n = in.size() - 1;
    const auto rank = static_cast<int32_t>(o.dimensions.size());
    int32_t axis = int_param(in[n]).value_or(0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return make_error("internal: axis out of range");
    uint64_t outer = 1;
    uint64_t inner = 1;
    for (int32_t k = 0; k < rank; ++k) {
      if (k < axis) outer *= o.dimensions[static_cast<size_t>(k)];
      if (k > axis) inner *= o.dimensions[static_cast<size_t>(k)];
    }
    const uint32_t es = models::element_size(o.type);
    const uint64_t out_row = uint64_t{o.dimensions[static_cast<size_t>(axis)]} * inner;
    uint64_t offset = 0;
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t row = uint64_t{in[i].dimensions[static_cast<size_t>(axis)]} * inner;
      const std::vector<uint8_t>& src = *in[i].value;
      if (src.size() != outer * row * es || (offset + row) > out_row)
        return make_error("internal: concatenation size mismatch");
      const bool requant = is_quant8(o.type) && (in[i].scale != o.scale || in[i].zero_point != o.zero_point);
      const std::vector<int32_t> q = requant ? read_ints(in[i]) : std::vector<int32_t>{};
      const float scale = in[i].scale * (1.0f / o.scale);
      const float bias = -static_cast<float>(in[i].zero_point) * scale;
      for (uint64_t b = 0; b < outer; ++b) {
        const uint64_t dst = (b * out_row + offset) * es;
        if (!requant) {
          std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(b * row * es), row * es,
                      o.data.begin() + static_cast<std::ptrdiff_t>(dst));
          continue;
        }
        for (uint64_t j = 0; j < row; ++j) {
          const float v = std::round(static_cast<float>(q[b * row + j]) * scale + bias);
          const int32_t r = std::isfinite(v) ? static_cast<int32_t>(std::clamp(v, -1e9f, 1e9f)) : 0;
          o.data[dst + j] = static_cast<uint8_t>(std::clamp(r + o.zero_point, qmin, qmax));
        }
      }
      offset += row;
    }
    return {};
  }
};

}  // namespace

const OperationKernel& concatenation_kernel() {
  static const ConcatenationKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
