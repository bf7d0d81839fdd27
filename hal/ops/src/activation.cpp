// LOGISTIC, TANH and FLOOR kernels (one file: element-wise functions of one input with the same shape
// out). NNAPI signature: input 0 a tensor of rank <= 4; output of the same type and shape.
// Types: LOGISTIC FLOAT32/FLOAT16/QUANT8_ASYMM(_SIGNED); TANH FLOAT32/FLOAT16, QUANT8_ASYMM since 1.2,
// QUANT8_ASYMM_SIGNED since 1.3; FLOOR FLOAT32/FLOAT16.
// Quant8 output parameters are fixed by NNAPI: LOGISTIC scale 1/256, zero point 0 (signed -128); TANH
// scale 1/128, zero point 128 (signed 0). The quantised arithmetic is NNAPI's reference, bit-exact
// (TFLite reference_ops::Logistic/Tanh on gemmlowp fixed point): the centred input is rescaled to Q4.27
// by in_scale * 2^27 (multiplier > 1 form), inputs beyond the representable radius saturate, the
// function is evaluated in fixed point (exp_on_negative_values + Newton-Raphson reciprocal) and the
// Q0.31 result is rounded to the output (>> 23 for 1/256, >> 24 for 1/128, 256 -> 255). Signed inputs
// are computed as the unsigned value + 128 and shifted back, so the two agree up to that offset.
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// gemmlowp-style fixed point on raw int32 values; the integer-bit count is tracked by the caller.
namespace gl {

int32_t mul(int32_t a, int32_t b) { return fx::saturating_rounding_doubling_high_mul(a, b); }
int32_t add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// x * 2^e with saturation (e > 0) or rounding (e < 0), as SaturatingRoundingMultiplyByPOT.
int32_t mul_pot(int32_t x, int e) {
  if (e < 0) return fx::rounding_divide_by_pot(x, -e);
  const int64_t v = static_cast<int64_t>(x) * (int64_t{1} << e);
  if (v > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (v < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

constexpr int32_t kOneQ0 = std::numeric_limits<int32_t>::max();  // "1" with 0 integer bits

// exp(a) for a in [-1/4, 0), Q0.31 in and out.
int32_t exp_quarter(int32_t a) {
  const int32_t constant_term = 1895147668;  // exp(-1/8)
  const int32_t one_third = 715827883;
  const int32_t x = add(a, 1 << 28);  // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = mul_pot(x4, -2);
  const int32_t poly = mul_pot(add(mul(add(x4_over_4, x3), one_third), x2), -1);
  return add(constant_term, mul(constant_term, add(x, poly)));
}

// exp(a) for a <= 0 given in Q(int_bits).(31-int_bits); result Q0.31.
int32_t exp_negative(int32_t a, int int_bits) {
  const int frac_bits = 31 - int_bits;
  const int32_t one_quarter = 1 << (frac_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod = sub(a & mask, one_quarter);
  int32_t result = exp_quarter(mul_pot(a_mod, int_bits));
  const int32_t remainder = sub(a_mod, a);
  static constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308,
                                             39332535,   720401,     242};
  for (int e = -2; e <= 4; ++e) {
    if (int_bits > e && ((remainder >> (frac_bits + e)) & 1) != 0) result = mul(result, kMultipliers[e + 2]);
  }
  if (int_bits > 5 && a < -(1 << (36 - int_bits))) result = 0;
  if (a == 0) result = kOneQ0;
  return result;
}

// Newton-Raphson estimate of 2 / (1 + a) in Q2.29 for a in [0, 1] (Q0.31).
int32_t two_over_one_plus(int32_t a) {
  const int64_t sum = int64_t{a} + kOneQ0;
  const auto half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int32_t c48_17 = 1515870810;
  const int32_t cneg32_17 = -1010580540;
  int32_t x = add(c48_17, mul(half_denominator, cneg32_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t hx = mul(half_denominator, x);
    const int32_t one_minus = sub(1 << 29, hx);
    x = add(x, mul_pot(mul(x, one_minus), 2));
  }
  return x;
}

// logistic(a), a in Q4.27; result Q0.31.
int32_t logistic(int32_t a) {
  if (a == 0) return 1 << 30;
  const int32_t abs_a = a > 0 ? a : -a;
  // 1 / (1 + exp(-|a|)): the Q2.29 estimate of 2/(1+e) reinterpreted as Q1.30 of 1/(1+e), to Q0.31.
  const int32_t pos = mul_pot(two_over_one_plus(exp_negative(-abs_a, 4)), 1);
  return a > 0 ? pos : sub(kOneQ0, pos);
}

// tanh(a), a in Q4.27; result Q0.31.
int32_t tanh(int32_t a) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : -a;  // -|a|
  // (1 - e) / (1 + e) with e = exp(2n): 2n is the same raw value read as Q5.26.
  const int32_t t = mul_pot(sub(two_over_one_plus(exp_negative(n, 5)), 1 << 29), 2);
  return a < 0 ? -t : t;
}

}  // namespace gl

enum class Func { kLogistic, kTanh, kFloor };

class ActivationKernel final : public OperationKernel {
 public:
  ActivationKernel(models::OperationType type, Func f) : type_(type), f_(f) {}

  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1) return make_error("expected 1 input, got " + std::to_string(in.size()));
    auto t = f_ == Func::kFloor
                 ? expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16})
                 : expect_type(in, 0, "input", kFloatAndQuant8);
    if (!t) return make_error(t.error());
    if (auto r = expect_rank_at_most(in[0], 0, "input", 4); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (is_quant8(in[0].type)) {
      const bool sig = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      const float scale = f_ == Func::kLogistic ? 1.0f / 256.0f : 1.0f / 128.0f;
      const int32_t zp = f_ == Func::kLogistic ? (sig ? -128 : 0) : (sig ? 0 : 128);
      if (out[0].scale != scale || out[0].zero_point != zp) {
        return make_error(std::string("output 0: quant8 ") + std::string(models::to_string(type_)) +
                          " needs scale 1/" + (f_ == Func::kLogistic ? "256" : "128") + " and zeroPoint " +
                          std::to_string(zp));
      }
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    if (!is_quant8(in[0].type)) {
      std::vector<float> v = read_floats(in[0]);
      for (float& x : v) {
        switch (f_) {
          case Func::kLogistic:
            x = 1.0f / (1.0f + std::exp(-x));
            break;
          case Func::kTanh:
            x = std::tanh(x);
            break;
          case Func::kFloor:
            x = std::floor(x);
            break;
        }
      }
      write_floats(o, v);
      return {};
    }
    const int32_t offset = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
    constexpr int kInputIntegerBits = 4;
    const fx::QuantizedMultiplier qm = safe_multiplier(static_cast<double>(in[0].scale) *
                                                       static_cast<double>(1 << (31 - kInputIntegerBits)));
    // CalculateInputRadius: the largest centred input whose rescaled value stays below 2^4 in Q4.27.
    const double max_rescaled = 1.0 * ((1 << kInputIntegerBits) - 1) *
                                static_cast<double>(int64_t{1} << (31 - kInputIntegerBits)) /
                                std::ldexp(1.0, std::max(0, qm.shift));
    const auto radius = static_cast<int64_t>(std::floor(max_rescaled));
    const int32_t zp = in[0].zero_point + offset;
    std::vector<int32_t> v = read_ints(in[0]);
    for (int32_t& q : v) {
      const int32_t centred = q + offset - zp;
      int32_t r = 0;
      if (centred <= -radius) {
        r = 0;
      } else if (centred >= radius) {
        r = 255;
      } else {
        const int32_t x = fx::multiply_by_quantized_multiplier(centred, qm);
        if (f_ == Func::kLogistic) {
          r = fx::rounding_divide_by_pot(gl::logistic(x), 23);
        } else {
          r = fx::rounding_divide_by_pot(gl::tanh(x), 24) + 128;
        }
        if (r > 255) r = 255;
        if (r < 0) r = 0;
      }
      q = r - offset;
    }
    write_ints(o, v);
    return {};
  }

 private:
  models::OperationType type_;
  Func f_;
};

}  // namespace

const OperationKernel& logistic_kernel() {
  static const ActivationKernel kernel(models::OperationType::LOGISTIC, Func::kLogistic);
  return kernel;
}
const OperationKernel& tanh_kernel() {
  static const ActivationKernel kernel(models::OperationType::TANH, Func::kTanh);
  return kernel;
}
const OperationKernel& floor_kernel() {
  static const ActivationKernel kernel(models::OperationType::FLOOR, Func::kFloor);
  return kernel;
}

}  // namespace npu::hal::ops
