// PAD (NNAPI 1.1) and PAD_V2 (NNAPI 1.2) kernels. NNAPI signature: input 0 a tensor of rank 1..4
// (FLOAT32/FLOAT16; QUANT8_ASYMM since 1.2, QUANT8_ASYMM_SIGNED since 1.3), input 1 the paddings, a
// TENSOR_INT32 [rank, 2] of (before, after) pairs, each >= 0; output of the same type and quantisation with
// each extent grown by its pair. The padding value is 0 for floats and the zero point (real 0) for quantised
// tensors. PAD_V2 adds input 2, the padding value: FLOAT32 for TENSOR_FLOAT32, FLOAT16 for TENSOR_FLOAT16,
// and for quant8 an INT32 holding the quantised value itself (in the type's range, so [0, 255] unsigned and
// [-128, 127] signed: not shifted between the two, which is why NNAPI exempts PAD_V2 from the
// signed/unsigned equivalence).
#include <algorithm>
#include <cstring>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class PadKernel final : public OperationKernel {
 public:
  explicit PadKernel(bool v2) : v2_(v2) {}
  models::OperationType type() const override {
    return v2_ ? models::OperationType::PAD_V2 : models::OperationType::PAD;
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    const size_t n_in = v2_ ? 3 : 2;
    if (in.size() != n_in)
      return make_error("expected " + std::to_string(n_in) + " inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "paddings", {OperandType::TENSOR_INT32}); !r)
      return make_error(r.error());
    if (v2_) {
      const OperandType t = in[0].type;
      const OperandType st = t == OperandType::TENSOR_FLOAT32   ? OperandType::FLOAT32
                             : t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16
                                                                : OperandType::INT32;
      if (auto r = expect_type(in, 2, "pad_value", {st}); !r) return make_error(r.error());
      if (st == OperandType::INT32) {
        int32_t qmin = 0;
        int32_t qmax = 0;
        quant8_range(t, &qmin, &qmax);
        if (auto r = int_param_in_range(in, 2, "pad_value", qmin, qmax); !r) return make_error(r.error());
      }
    }
    if (auto r = expect_rank(in[1], 1, "paddings", 2); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!in[0].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const size_t rank = in[0].dimensions.size();
    if (rank < 1 || rank > 4)
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(rank));
    const auto& pd = in[1].dimensions;
    if (pd.size() == 2 && ((pd[0] != 0 && pd[0] != rank) || (pd[1] != 0 && pd[1] != 2)))
      return input_error(
          1, "paddings",
          "expected shape [" + std::to_string(rank) + ", 2], got " + models::dims_to_string(pd));
    const auto pads = int_tensor_value(in[1]);
    if (!pads) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(rank, 0)};
    if (pads->size() != rank * 2)
      return input_error(1, "paddings", "expected " + std::to_string(rank * 2) + " values");
    std::vector<uint32_t> shape(rank);
    for (size_t k = 0; k < rank; ++k) {
      const int32_t before = (*pads)[2 * k];
      const int32_t after = (*pads)[2 * k + 1];
      if (before < 0 || after < 0) return input_error(1, "paddings", "values must be >= 0");
      const uint64_t d = in[0].dimensions[k];
      const uint64_t e = d + static_cast<uint64_t>(before) + static_cast<uint64_t>(after);
      if (e > 0xffffffffu) return input_error(1, "paddings", "padded extent overflows");
      shape[k] = d == 0 ? 0 : static_cast<uint32_t>(e);
    }
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const auto& idims = in[0].dimensions;
    const std::vector<int32_t> pads = read_ints(in[1]);
    const size_t rank = idims.size();
    if (pads.size() != rank * 2 || o.dimensions.size() != rank) return make_error("internal: unprepared PAD");
    const std::vector<uint64_t> is = row_major_strides(idims);
    const std::vector<uint32_t>& od = o.dimensions;
    auto source = [&](uint64_t flat) {
      uint64_t src = 0;
      for (size_t k = rank; k-- > 0;) {
        const auto c = static_cast<int64_t>(flat % od[k]);
        flat /= od[k];
        const int64_t ic = c - pads[2 * k];
        if (ic < 0 || ic >= static_cast<int64_t>(idims[k])) return kFill;
        src += static_cast<uint64_t>(ic) * is[k];
      }
      return src;
    };
    if (!v2_) return gather_elements(in[0], o, source, is_quant8(o.type) ? o.zero_point : 0);
    // PAD_V2: the padding element is the scalar's value in the tensor's encoding.
    const uint32_t es = models::element_size(o.type);
    std::vector<uint8_t> fill(es, 0);
    if (is_quant8(o.type)) {
      fill[0] = static_cast<uint8_t>(int_param(in[2]).value_or(0));
    } else {
      std::memcpy(fill.data(), in[2].value->data(), std::min<size_t>(es, in[2].value->size()));
    }
    const uint64_t n_in = in[0].value->size() / es;
    for (uint64_t i = 0; i < o.data.size() / es; ++i) {
      const uint64_t s = source(i);
      if (s != kFill && s >= n_in) return make_error("internal: PAD_V2 source out of range");
      const uint8_t* from = s == kFill ? fill.data() : in[0].value->data() + s * es;
      std::memcpy(o.data.data() + i * es, from, es);
    }
    return {};
  }

 private:
  bool v2_;
};

}  // namespace

const OperationKernel& pad_kernel() {
  static const PadKernel kernel(false);
  return kernel;
}
const OperationKernel& pad_v2_kernel() {
  static const PadKernel kernel(true);
  return kernel;
}

}  // namespace npu::hal::ops
