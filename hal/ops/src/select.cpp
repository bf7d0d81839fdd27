// SELECT kernel (NNAPI 1.2): output[i] = input0[i] ? input1[i] : input2[i]. NNAPI signature: input 0 a
// TENSOR_BOOL8, inputs 1 and 2 tensors of one type (TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32,
// TENSOR_QUANT8_ASYMM; TENSOR_QUANT8_ASYMM_SIGNED since 1.3), all three of the same shape (no
// broadcasting); output of that type and shape. Quant8 inputs and output may each have their own scale
// and zero point: a chosen value is requantised through float, (q - zp_in) * scale_in / scale_out rounded
// half away from zero plus zp_out, clamped — so signed results are the unsigned ones shifted by 128.
#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class SelectKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SELECT; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "condition", {OperandType::TENSOR_BOOL8}); !r)
      return make_error(r.error());
    if (auto r =
            expect_type(in, 1, "input1",
                        {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r)
      return make_error(r.error());
    if (auto r = expect_type(in, 2, "input2", {in[1].type}); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[1].type); !r) return make_error(r.error());
    for (size_t k = 1; k < 3; ++k)
      if (auto r = expect_quant_scale(in[k], input_name(k, k == 1 ? "input1" : "input2")); !r)
        return make_error(r.error());
    if (auto r = expect_quant_scale(out[0], "output 0"); !r) return make_error(r.error());
    std::vector<uint32_t> shape = in[0].dimensions;
    for (size_t k = 1; k < 3; ++k) {
      auto merged = merge_shapes(shape, in[k].dimensions);
      if (!merged)
        return input_error(k, k == 1 ? "input1" : "input2",
                           "shape " + models::dims_to_string(in[k].dimensions) + " differs from input 0's " +
                               models::dims_to_string(shape) + " (SELECT does not broadcast)");
      shape = *merged;
    }
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const std::vector<int32_t> cond = read_ints(in[0]);
    if (!is_quant8(o.type)) {
      return copy_selected(in, o, cond);  // exact element copies, no float round trip
    }
    const std::vector<int32_t> a = read_ints(in[1]);
    const std::vector<int32_t> b = read_ints(in[2]);
    std::vector<int32_t> q(cond.size());
    for (size_t i = 0; i < cond.size(); ++i) {
      const OperandInfo& src = cond[i] != 0 ? in[1] : in[2];
      const int32_t raw = cond[i] != 0 ? a[i] : b[i];
      q[i] =
          quantize_real(static_cast<double>(raw - src.zero_point) * src.scale, o.scale, o.zero_point, o.type);
    }
    write_ints(o, q);
    return {};
  }

 private:
  static Result<void> copy_selected(std::span<const OperandInfo> in, models::Tensor& o,
                                    const std::vector<int32_t>& cond) {
    const uint32_t es = models::element_size(o.type);
    for (size_t i = 0; i < cond.size(); ++i) {
      const std::vector<uint8_t>& src = *in[cond[i] != 0 ? 1 : 2].value;
      for (uint32_t b = 0; b < es; ++b) o.data[i * es + b] = src[i * es + b];
    }
    return {};
  }
};

}  // namespace

const OperationKernel& select_kernel() {
  static const SelectKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
