// QUANTIZED_16BIT_LSTM kernel (NNAPI 1.2): one step of a basic LSTM cell (no peephole, projection,
// layer norm or clipping) on 8-bit activations and weights with a 16-bit cell state.
// NNAPI signature (15 inputs, 2 outputs):
//   0 input [numBatches, inputSize] TENSOR_QUANT8_ASYMM, scale 1/128, zero point 128;
//   1-4 input-to-{input, forget, cell, output} weights [outputSize, inputSize] TENSOR_QUANT8_ASYMM,
//   5-8 recurrent-to-{input, forget, cell, output} weights [outputSize, outputSize] TENSOR_QUANT8_ASYMM,
//       all eight with one scale and one zero point;
//   9-12 {input, forget, cell, output} gate biases [outputSize] TENSOR_INT32, scale = weights scale / 128,
//        zero point 0;
//   13 previous cell state [numBatches, outputSize] TENSOR_QUANT16_SYMM, scale 1/2048, zero point 0;
//   14 previous output [numBatches, outputSize] TENSOR_QUANT8_ASYMM, scale 1/128, zero point 128.
// Outputs: 0 cell state out (as input 13), 1 output (as input 14).
// Arithmetic is NNAPI's reference (TFLite's LstmCell<4> on gemmlowp 16-bit fixed point), bit-exact:
// each gate's int32 accumulator (bias + Σ (x − 128)(w − w_zp) over input and previous output) is
// rescaled by 4096 · bias_scale to Q3.12 and saturated to int16; input/forget/output gates are
// logistic(Q3.12) → Q0.15, the cell gate tanh(Q3.12) → Q0.15; the new cell state (Q4.11) is
// forget · c_prev + (input · cell gate) / 16 with saturation; the output is output_gate ·
// tanh(state rescaled to Q3.12), rounded down by 2^8 to int8 and offset by 128.
#include <algorithm>
#include <limits>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// gemmlowp fixed point on int16 raw values; integer-bit counts are tracked by the caller.
namespace q16 {

constexpr int32_t kMin = std::numeric_limits<int16_t>::min();
constexpr int32_t kMax = std::numeric_limits<int16_t>::max();
constexpr int32_t kOneQ0 = kMax;  // "1" with 0 integer bits

int32_t wrap(int32_t v) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v))); }
int32_t saturate(int32_t v) { return std::clamp(v, kMin, kMax); }
int32_t add(int32_t a, int32_t b) { return wrap(a + b); }
int32_t sub(int32_t a, int32_t b) { return wrap(a - b); }
int32_t neg(int32_t a) { return wrap(-a); }

// (a * b * 2) >> 16 rounded to nearest; the single overflow case (-1 * -1) saturates.
int32_t mul(int32_t a, int32_t b) {
  if (a == kMin && b == kMin) return kMax;
  const int32_t ab = a * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (ab + nudge) / (1 << 15);
}

// x * 2^e, saturating for e > 0, rounding to nearest for e < 0.
int32_t mul_pot(int32_t x, int e) {
  if (e < 0) return fx::rounding_divide_by_pot(x, -e);
  return saturate(x * (1 << e));
}

// An int32 gemmlowp constant in 16-bit precision (rounded, as gemmlowp rescales its constants).
int32_t constant(int32_t raw32) { return fx::rounding_divide_by_pot(raw32, 16); }

// exp(a) for a in [-1/4, 0), Q0.15 in and out.
int32_t exp_quarter(int32_t a) {
  const int32_t constant_term = constant(1895147668);  // exp(-1/8)
  const int32_t one_third = constant(715827883);
  const int32_t x = add(a, 1 << 12);  // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = mul_pot(x4, -2);
  const int32_t poly = mul_pot(add(mul(add(x4_over_4, x3), one_third), x2), -1);
  return saturate(constant_term + mul(constant_term, add(x, poly)));
}

// exp(a) for a <= 0 given with `int_bits` integer bits; result Q0.15.
int32_t exp_negative(int32_t a, int int_bits) {
  const int frac_bits = 15 - int_bits;
  const int32_t one_quarter = 1 << (frac_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod = sub(a & mask, one_quarter);
  int32_t result = exp_quarter(mul_pot(a_mod, int_bits));
  const int32_t remainder = sub(a_mod, a);
  // exp(-1/4), exp(-1/2), exp(-1), exp(-2), exp(-4), exp(-8), exp(-16) in Q0.31, then to Q0.15.
  static constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308,
                                             39332535,   720401,     242};
  for (int e = -2; e <= 4; ++e) {
    if (int_bits > e && ((remainder >> (frac_bits + e)) & 1) != 0)
      result = mul(result, constant(kMultipliers[e + 2]));
  }
  if (a == 0) result = kOneQ0;
  return result;
}

// Newton-Raphson estimate of 2 / (1 + a) in Q2.13 for a in [0, 1] (Q0.15).
int32_t two_over_one_plus(int32_t a) {
  const int32_t sum = a + kOneQ0;
  const int32_t half_denominator = (sum + (sum >= 0 ? 1 : -1)) / 2;
  const int32_t c48_17 = constant(1515870810);
  const int32_t cneg32_17 = constant(-1010580540);
  int32_t x = add(c48_17, mul(half_denominator, cneg32_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t hx = mul(half_denominator, x);
    const int32_t one_minus = sub(1 << 13, hx);
    x = add(x, mul_pot(mul(x, one_minus), 2));
  }
  return x;
}

// logistic(a), a in Q3.12; result Q0.15.
int32_t logistic(int32_t a) {
  if (a == 0) return constant(1 << 30);  // 1/2
  const int32_t abs_a = a > 0 ? a : neg(a);
  const int32_t pos = mul_pot(two_over_one_plus(exp_negative(neg(abs_a), 3)), 1);
  return a > 0 ? pos : sub(kOneQ0, pos);
}

// tanh(a), a in Q3.12; result Q0.15.
int32_t tanh(int32_t a) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : neg(a);  // -|a|
  // (1 - e) / (1 + e) with e = exp(2n): 2n is the same raw value read with one more integer bit.
  const int32_t t = mul_pot(sub(two_over_one_plus(exp_negative(n, 4)), 1 << 13), 2);
  return a < 0 ? neg(t) : t;
}

}  // namespace q16

constexpr float kActivationScale = 1.0f / 128.0f;
constexpr int32_t kActivationZeroPoint = 128;
constexpr float kStateScale = 1.0f / 2048.0f;

const char* const kRoles[15] = {"input",
                                "input_to_input_weights",
                                "input_to_forget_weights",
                                "input_to_cell_weights",
                                "input_to_output_weights",
                                "recurrent_to_input_weights",
                                "recurrent_to_forget_weights",
                                "recurrent_to_cell_weights",
                                "recurrent_to_output_weights",
                                "input_gate_bias",
                                "forget_gate_bias",
                                "cell_gate_bias",
                                "output_gate_bias",
                                "prev_cell_state",
                                "prev_output"};

// Each known extent of `o` equals the expected one (0 = not known yet on either side).
Result<void> expect_dims(const OperandInfo& o, size_t index, std::vector<uint32_t> expected) {
  if (auto r = expect_rank(o, index, kRoles[index], expected.size()); !r) return r;
  if (o.dimensions.empty()) return {};
  for (size_t d = 0; d < expected.size(); ++d) {
    if (o.dimensions[d] != 0 && expected[d] != 0 && o.dimensions[d] != expected[d])
      return input_error(index, kRoles[index],
                         "expected shape " + models::dims_to_string(expected) + ", got " +
                             models::dims_to_string(o.dimensions));
  }
  return {};
}

Result<void> expect_quant(const OperandInfo& o, const std::string& what, float scale, int32_t zero_point) {
  if (o.scale != scale || o.zero_point != zero_point)
    return make_error(what + ": expected scale " + std::to_string(scale) + " and zero point " +
                      std::to_string(zero_point) + ", got " + std::to_string(o.scale) + " and " +
                      std::to_string(o.zero_point));
  return {};
}

uint32_t extent(const OperandInfo& o, size_t d) { return o.dimensions.size() > d ? o.dimensions[d] : 0; }

class Quantized16BitLstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::QUANTIZED_16BIT_LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 15) return make_error("expected 15 inputs, got " + std::to_string(in.size()));
    for (size_t i = 0; i < 15; ++i) {
      const OperandType t = i >= 9 && i <= 12 ? OperandType::TENSOR_INT32
                            : i == 13         ? OperandType::TENSOR_QUANT16_SYMM
                                              : OperandType::TENSOR_QUANT8_ASYMM;
      if (auto r = expect_type(in, i, kRoles[i], {t}); !r) return make_error(r.error());
    }
    const uint32_t batches = std::max(extent(in[0], 0), extent(in[14], 0));
    const uint32_t input_size = extent(in[0], 1);
    const uint32_t output_size = std::max(extent(in[1], 0), extent(in[14], 1));
    if (auto r = expect_dims(in[0], 0, {batches, input_size}); !r) return make_error(r.error());
    for (size_t i = 1; i <= 4; ++i)
      if (auto r = expect_dims(in[i], i, {output_size, input_size}); !r) return make_error(r.error());
    for (size_t i = 5; i <= 8; ++i)
      if (auto r = expect_dims(in[i], i, {output_size, output_size}); !r) return make_error(r.error());
    for (size_t i = 9; i <= 12; ++i)
      if (auto r = expect_dims(in[i], i, {output_size}); !r) return make_error(r.error());
    for (size_t i = 13; i <= 14; ++i)
      if (auto r = expect_dims(in[i], i, {batches, output_size}); !r) return make_error(r.error());

    if (auto r = expect_quant(in[0], input_name(0, kRoles[0]), kActivationScale, kActivationZeroPoint); !r)
      return make_error(r.error());
    if (auto r = expect_quant_scale(in[1], input_name(1, kRoles[1])); !r) return make_error(r.error());
    for (size_t i = 2; i <= 8; ++i) {
      if (in[i].scale != in[1].scale || in[i].zero_point != in[1].zero_point)
        return input_error(i, kRoles[i], "scale and zero point must equal input 1's");
    }
    const float bias_scale = in[1].scale / 128.0f;
    for (size_t i = 9; i <= 12; ++i) {
      if (!bias_scale_matches(kActivationScale, in[1].scale, in[i].scale) || in[i].zero_point != 0)
        return input_error(i, kRoles[i],
                           "expected scale " + std::to_string(bias_scale) +
                               " (weights scale / 128) and zero point 0, got " + std::to_string(in[i].scale) +
                               " and " + std::to_string(in[i].zero_point));
    }
    if (auto r = expect_quant(in[13], input_name(13, kRoles[13]), kStateScale, 0); !r)
      return make_error(r.error());
    if (auto r = expect_quant(in[14], input_name(14, kRoles[14]), kActivationScale, kActivationZeroPoint); !r)
      return make_error(r.error());

    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_QUANT16_SYMM); !r)
      return make_error(r.error());
    if (auto r = expect_output_type(out, 1, OperandType::TENSOR_QUANT8_ASYMM); !r)
      return make_error(r.error());
    if (auto r = expect_quant(out[0], "output 0 (cell_state_out)", kStateScale, 0); !r)
      return make_error(r.error());
    if (auto r = expect_quant(out[1], "output 1 (output)", kActivationScale, kActivationZeroPoint); !r)
      return make_error(r.error());
    const std::vector<uint32_t> shape{batches, output_size};
    return std::vector<std::vector<uint32_t>>{shape, shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint32_t batches = in[0].dimensions[0];
    const uint32_t input_size = in[0].dimensions[1];
    const uint32_t output_size = in[14].dimensions[1];
    const std::vector<int32_t> x = read_ints(in[0]);
    const std::vector<int32_t> h = read_ints(in[14]);
    const std::vector<int32_t> c_prev = read_ints(in[13]);
    const int32_t w_zp = in[1].zero_point;
    const fx::QuantizedMultiplier to_q3_12 = safe_multiplier(4096.0 * static_cast<double>(in[9].scale));

    // Gate pre-activations in Q3.12, gate order input, forget, cell, output (NNAPI's input order).
    std::vector<int32_t> pre(static_cast<size_t>(4) * batches * output_size);
    for (size_t g = 0; g < 4; ++g) {
      const std::vector<int32_t> wx = read_ints(in[1 + g]);
      const std::vector<int32_t> wh = read_ints(in[5 + g]);
      const std::vector<int32_t> bias = read_ints(in[9 + g]);
      for (uint32_t b = 0; b < batches; ++b) {
        for (uint32_t c = 0; c < output_size; ++c) {
          int32_t acc = bias[c];
          for (uint32_t i = 0; i < input_size; ++i)
            acc = wrap_add(acc, int64_t{x[size_t{b} * input_size + i] - kActivationZeroPoint} *
                                    (wx[size_t{c} * input_size + i] - w_zp));
          for (uint32_t j = 0; j < output_size; ++j)
            acc = wrap_add(acc, int64_t{h[size_t{b} * output_size + j] - kActivationZeroPoint} *
                                    (wh[size_t{c} * output_size + j] - w_zp));
          pre[(g * batches + b) * output_size + c] =
              q16::saturate(fx::multiply_by_quantized_multiplier(acc, to_q3_12));
        }
      }
    }

    const size_t n = size_t{batches} * output_size;
    std::vector<int32_t> state(n), output(n);
    for (size_t k = 0; k < n; ++k) {
      const int32_t input_gate = q16::logistic(pre[k]);
      const int32_t forget_gate = q16::logistic(pre[n + k]);
      const int32_t cell_gate = q16::tanh(pre[2 * n + k]);
      const int32_t output_gate = q16::logistic(pre[3 * n + k]);
      // Q0.15 · Q4.11 → Q4.11; Q0.15 · Q0.15 → Q0.15, rescaled to Q4.11 (÷ 2^4); saturating sum.
      const int32_t kept = q16::mul(forget_gate, c_prev[k]);
      const int32_t added = q16::mul_pot(q16::mul(input_gate, cell_gate), -4);
      state[k] = q16::saturate(kept + added);
      // Q4.11 → Q3.12 (× 2, saturating), tanh, times the output gate: Q0.15, then to 1/128 steps.
      const int32_t activation = q16::mul(output_gate, q16::tanh(q16::mul_pot(state[k], 1)));
      output[k] = std::clamp(fx::rounding_divide_by_pot(activation, 8), -128, 127) + kActivationZeroPoint;
    }
    write_ints(*out[0], state);
    write_ints(*out[1], output);
    return {};
  }
};

}  // namespace

const OperationKernel& quantized_16bit_lstm_kernel() {
  static const Quantized16BitLstmKernel k;
  return k;
}

}  // namespace npu::hal::ops
