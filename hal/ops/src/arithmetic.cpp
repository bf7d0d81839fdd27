// ADD, SUB, MUL and DIV kernels (one file: one signature, broadcasting and activation; they differ in
// the element operation). NNAPI signature: inputs 0 and 1 tensors of the same type, rank <= 4,
// broadcast numpy-style from the trailing dimension (extents equal or 1), 2 fused activation; output
// of the broadcast shape. Types: TENSOR_FLOAT32/FLOAT16 for all; TENSOR_QUANT8_ASYMM(_SIGNED) for ADD,
// SUB and MUL (DIV has no quantised form); TENSOR_INT32 for all (NNAPI 1.3, activation must be NONE;
// ADD/SUB/MUL wrap modulo 2^32, DIV rounds toward negative infinity and gives 0 for a zero divisor).
// Quant8 follows NNAPI's reference (TFLite arithmetic):
//   ADD/SUB: both inputs minus their zero points, shifted left by 20 bits, rescaled by
//     in_scale / (2 * max(in1_scale, in2_scale)) (SUB negates the second multiplier, as NNAPI does, so
//     ties round as in its kernel), summed, rescaled by 2 * max / (2^20 * out_scale);
//   MUL: (q1 - zp1) * (q2 - zp2) rescaled by in1_scale * in2_scale / out_scale;
// each step multiply_by_quantized_multiplier; then + out_zp and the activation clamp.
#include <algorithm>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

enum class Arith { kAdd, kSub, kMul, kDiv };

int32_t int_op(Arith op, int32_t a, int32_t b) {
  const auto ua = static_cast<uint32_t>(a);
  const auto ub = static_cast<uint32_t>(b);
  switch (op) {
    case Arith::kAdd:
      return static_cast<int32_t>(ua + ub);
    case Arith::kSub:
      return static_cast<int32_t>(ua - ub);
    case Arith::kMul:
      return static_cast<int32_t>(ua * ub);
    case Arith::kDiv: {
      if (b == 0) return 0;
      if (a == std::numeric_limits<int32_t>::min() && b == -1) return a;  // wraps
      int32_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;  // floor
      return q;
    }
  }
  return 0;
}

float float_op(Arith op, float a, float b) {
  switch (op) {
    case Arith::kAdd:
      return a + b;
    case Arith::kSub:
      return a - b;
    case Arith::kMul:
      return a * b;
    case Arith::kDiv:
      return a / b;
  }
  return 0.0f;
}

class ArithmeticKernel final : public OperationKernel {
 public:
  ArithmeticKernel(models::OperationType type, Arith op) : type_(type), op_(op) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    auto t0 = op_ == Arith::kDiv
                  ? expect_type(
                        in, 0, "input1",
                        {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32})
                  : expect_type(in, 0, "input1",
                                {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                 OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                                 OperandType::TENSOR_INT32});
    if (!t0) return make_error(t0.error());
    if (auto r = expect_type(in, 1, "input2", {in[0].type}); !r) return make_error(r.error());
    auto act = int_param_in_range(in, 2, "fused activation", 0, 3);
    if (!act) return make_error(act.error());
    if (in[0].type == OperandType::TENSOR_INT32 && *act && **act != 0)
      return input_error(2, "fused activation", "must be NONE (0) for TENSOR_INT32");
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    for (size_t i = 0; i < 2; ++i) {
      if (auto r = expect_rank_at_most(in[i], i, i == 0 ? "input1" : "input2", 4); !r)
        return make_error(r.error());
    }
    if (!in[0].rank_known() || !in[1].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    auto shape = broadcast_shape(in[0].dimensions, in[1].dimensions);
    if (!shape) {
      return make_error("inputs " + models::dims_to_string(in[0].dimensions) + " and " +
                        models::dims_to_string(in[1].dimensions) + " cannot be broadcast together");
    }
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const auto act = static_cast<fx::FusedActivation>(int_param(in[2]).value_or(0));
    const std::vector<uint32_t>& shape = o.dimensions;
    const uint64_t total = o.element_count();
    // An operand of the output's own shape (no broadcast, the common case) is indexed directly.
    const bool a_full = in[0].dimensions == shape, b_full = in[1].dimensions == shape;
    auto ia = [&](uint64_t i) { return a_full ? i : broadcast_index(i, shape, in[0].dimensions); };
    auto ib = [&](uint64_t i) { return b_full ? i : broadcast_index(i, shape, in[1].dimensions); };
    if (in[0].type == OperandType::TENSOR_INT32) {
      const std::vector<int32_t> a = read_ints(in[0]);
      const std::vector<int32_t> b = read_ints(in[1]);
      std::vector<int32_t> r(total);
      for (uint64_t i = 0; i < total; ++i) r[i] = int_op(op_, a[ia(i)], b[ib(i)]);
      write_ints(o, r);
      return {};
    }
    if (!is_quant8(in[0].type)) {
      const std::vector<float> a = read_floats(in[0]);
      const std::vector<float> b = read_floats(in[1]);
      float lo = 0.0f;
      float hi = 0.0f;
      fx::float_activation_range(act, &lo, &hi);
      std::vector<float> r(total);
      for (uint64_t i = 0; i < total; ++i) {
        const float v = float_op(op_, a[ia(i)], b[ib(i)]);
        r[i] = v < lo ? lo : (v > hi ? hi : v);
      }
      write_floats(o, r);
      return {};
    }
    const std::vector<int32_t> a = read_ints(in[0]);
    const std::vector<int32_t> b = read_ints(in[1]);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range = fx::quantized_activation_range(act, o.scale, o.zero_point, qmin, qmax);
    std::vector<int32_t> r(total);
    if (op_ == Arith::kMul) {
      const fx::QuantizedMultiplier m = conv_multiplier(in[0].scale, in[1].scale, o.scale);
      for (uint64_t i = 0; i < total; ++i) {
        const int32_t prod = (a[ia(i)] - in[0].zero_point) * (b[ib(i)] - in[1].zero_point);
        r[i] = requantize(prod, m, o.zero_point, range);
      }
      write_ints(o, r);
      return {};
    }
    const AddSubRescale rs = add_sub_rescale(in[0].scale, in[1].scale, o.scale, op_ == Arith::kSub);
    for (uint64_t i = 0; i < total; ++i) {
      const int32_t x = (a[ia(i)] - in[0].zero_point) * (1 << rs.left_shift);
      const int32_t y = (b[ib(i)] - in[1].zero_point) * (1 << rs.left_shift);
      const int32_t sum =
          fx::multiply_by_quantized_multiplier(x, rs.a) + fx::multiply_by_quantized_multiplier(y, rs.b);
      r[i] = requantize(sum, rs.out, o.zero_point, range);
    }
    write_ints(o, r);
    return {};
  }

 private:
  models::OperationType type_;
  Arith op_;
};

}  // namespace

const OperationKernel& add_kernel() {
  static const ArithmeticKernel kernel(models::OperationType::ADD, Arith::kAdd);
  return kernel;
}
const OperationKernel& sub_kernel() {
  static const ArithmeticKernel kernel(models::OperationType::SUB, Arith::kSub);
  return kernel;
}
const OperationKernel& mul_kernel() {
  static const ArithmeticKernel kernel(models::OperationType::MUL, Arith::kMul);
  return kernel;
}
const OperationKernel& div_kernel() {
  static const ArithmeticKernel kernel(models::OperationType::DIV, Arith::kDiv);
  return kernel;
}

}  // namespace npu::hal::ops
