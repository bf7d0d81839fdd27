// QUANTIZE kernel (NNAPI 1.2). NNAPI signature: input 0 a tensor of rank <= 4, TENSOR_FLOAT32 or
// TENSOR_FLOAT16; output TENSOR_QUANT8_ASYMM (TENSOR_QUANT8_ASYMM_SIGNED since 1.3) of the same shape
// with its own scale and zero point: q = clamp(round(x / scale) + zero_point) with the division in
// float and round half away from zero, as NNAPI's reference. NaN inputs give the zero point.
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class QuantizeKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::QUANTIZE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}); !r)
      return make_error(r.error());
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (!is_quant8(out[0].type))
      return make_error("output 0: expected TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED, got " +
                        std::string(models::to_string(out[0].type)));
    if (auto r = expect_output_type(out, 0, out[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    int32_t qmin = 0, qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const std::vector<float> x = read_floats(in[0]);
    std::vector<int32_t> q(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float r = std::round(x[i] / o.scale);
      // Clamp in float first: a huge quotient does not fit an int32.
      const float c = std::isnan(r) ? 0.0f
                                    : std::clamp(r, static_cast<float>(qmin - o.zero_point),
                                                 static_cast<float>(qmax - o.zero_point));
      q[i] = static_cast<int32_t>(c) + o.zero_point;
    }
    write_ints(o, q);
    return {};
  }
};

}  // namespace

const OperationKernel& quantize_kernel() {
  static const QuantizeKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
