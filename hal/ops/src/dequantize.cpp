// DEQUANTIZE kernel. NNAPI signature: input 0 a tensor of rank <= 4 (QUANT8_ASYMM; QUANT8_SYMM and
// QUANT8_SYMM_PER_CHANNEL since 1.2; QUANT8_ASYMM_SIGNED since 1.3); output FLOAT32 (or FLOAT16, NNAPI
// 1.2) of the same shape: (q - zero_point) * scale, computed in float; per channel, q * scales[c] with c
// the element's coordinate along the operand's channelDim (zero point 0).
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class DequantizeKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::DEQUANTIZE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r = expect_type(
            in, 0, "input",
            {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_SYMM,
             OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    if (in[0].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL &&
        (in[0].per_channel == nullptr || in[0].per_channel->channel_dim >= in[0].dimensions.size()))
      return input_error(0, "input", "TENSOR_QUANT8_SYMM_PER_CHANNEL needs channelQuant parameters");
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (out[0].type != OperandType::TENSOR_FLOAT32 && out[0].type != OperandType::TENSOR_FLOAT16) {
      return make_error("output 0: expected TENSOR_FLOAT32 or TENSOR_FLOAT16, got " +
                        std::string(models::to_string(out[0].type)));
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<int32_t> q = read_ints(in[0]);
    std::vector<float> v(q.size());
    if (const models::PerChannelQuant* pc = in[0].per_channel;
        pc != nullptr && in[0].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const auto& dims = in[0].dimensions;
      uint64_t inner = 1;
      for (size_t k = pc->channel_dim + 1; k < dims.size(); ++k) inner *= dims[k];
      const uint64_t channels = dims[pc->channel_dim];
      if (pc->scales.size() != channels) return make_error("internal: per-channel scales do not match");
      for (size_t i = 0; i < q.size(); ++i)
        v[i] = static_cast<float>(q[i]) * pc->scales[(i / inner) % channels];
      write_floats(*out[0], v);
      return {};
    }
    for (size_t i = 0; i < q.size(); ++i) v[i] = static_cast<float>(q[i] - in[0].zero_point) * in[0].scale;
    write_floats(*out[0], v);
    return {};
  }
};

}  // namespace

const OperationKernel& dequantize_kernel() {
  static const DequantizeKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
