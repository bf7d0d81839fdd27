// FILL and RANK kernels (NNAPI 1.3).
//   FILL: input 0 the output dimensions (1-D TENSOR_INT32, each >= 1), input 1 the value (FLOAT16,
//     FLOAT32 or INT32 scalar, matching the output: TENSOR_FLOAT16, TENSOR_FLOAT32 or TENSOR_INT32);
//     every output element is the value. The output shape is known once input 0's values are.
//   RANK: input 0 a tensor of any type; output an INT32 scalar, its rank.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class FillKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::FILL; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "dims", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "dims", 1); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    const OperandType t = out[0].type;
    OperandType st = OperandType::INT32;
    if (t == OperandType::TENSOR_FLOAT16)
      st = OperandType::FLOAT16;
    else if (t == OperandType::TENSOR_FLOAT32)
      st = OperandType::FLOAT32;
    else if (t != OperandType::TENSOR_INT32)
      return make_error("output 0: expected TENSOR_FLOAT16, TENSOR_FLOAT32 or TENSOR_INT32, got " +
                        std::string(models::to_string(t)));
    if (auto r = expect_type(in, 1, "value", {st}); !r) return make_error(r.error());
    const auto dims = int_tensor_value(in[0]);
    if (!dims) {
      const uint32_t rank = in[0].dimensions.empty() ? 0 : in[0].dimensions[0];
      return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(rank, 0)};
    }
    if (dims->empty()) return input_error(0, "dims", "must have at least one dimension");
    std::vector<uint32_t> shape;
    for (size_t k = 0; k < dims->size(); ++k) {
      if ((*dims)[k] < 1)
        return input_error(
            0, "dims", "dimension " + std::to_string(k) + " must be >= 1, got " + std::to_string((*dims)[k]));
      shape.push_back(static_cast<uint32_t>((*dims)[k]));
    }
    const auto n = known_product(shape);
    if (!n || *n > models::max_operand_bytes() / models::element_size(t))
      return input_error(0, "dims", "output of " + models::dims_to_string(shape) + " is too large");
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const uint32_t es = models::element_size(o.type);
    if (!in[1].has_value() || in[1].value->size() < es) return make_error("internal: FILL value unknown");
    for (size_t i = 0; i + es <= o.data.size(); i += es)
      for (uint32_t b = 0; b < es; ++b) o.data[i + b] = (*in[1].value)[b];  // scalar bytes, same encoding
    return {};
  }
};

class RankKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RANK; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input",
                             {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                              OperandType::TENSOR_QUANT8_SYMM, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
                              OperandType::TENSOR_QUANT16_ASYMM, OperandType::TENSOR_QUANT16_SYMM});
        !r)
      return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (out[0].type != OperandType::INT32)
      return make_error("output 0: expected INT32 (a scalar), got " +
                        std::string(models::to_string(out[0].type)));
    return std::vector<std::vector<uint32_t>>{{}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<int32_t> rank = {static_cast<int32_t>(in[0].dimensions.size())};
    write_ints(*out[0], rank);
    return {};
  }
};

}  // namespace

const OperationKernel& fill_kernel() {
  static const FillKernel kernel;
  return kernel;
}
const OperationKernel& rank_kernel() {
  static const RankKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
