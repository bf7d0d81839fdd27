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
// each gate's int32 accumulator is bias + Σ_d (a_d − 128)(w_d − w_zp) over the row a = [input, previous
// output] and the gate's weights row w = [recurrent weights, input weights] position by position, as
// NNAPI's reference concatenates them (recurrent first) and its CTS vector confirms: with inputSize 2 and
// outputSize 4, input element 0 meets recurrent column 0, previous output 2 meets input column 0. It is
// rescaled by 4096 · bias_scale to Q3.12 and saturated to int16; input/forget/output gates are
// logistic(Q3.12) → Q0.15, the cell gate tanh(Q3.12) → Q0.15; the new cell state (Q4.11) is
// forget · c_prev + (input · cell gate) / 16 with saturation; the output is output_gate ·
// tanh(state rescaled to Q3.12), rounded down by 2^8 to int8 and offset by 128.
#include <algorithm>
#include <limits>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"
#include "q16_fixed_point.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

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
          // NNAPI's reference multiplies the row [input, previous output] by the weights row
          // [recurrent weights, input weights] position by position (see the file comment).
          const size_t depth = size_t{input_size} + output_size;
          for (size_t d = 0; d < depth; ++d) {
            const int32_t act = d < input_size ? x[size_t{b} * input_size + d]
                                               : h[size_t{b} * output_size + (d - input_size)];
            const int32_t w = d < output_size ? wh[size_t{c} * output_size + d]
                                              : wx[size_t{c} * input_size + (d - output_size)];
            acc = wrap_add(acc, int64_t{act - kActivationZeroPoint} * (w - w_zp));
          }
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
