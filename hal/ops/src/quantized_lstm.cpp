// QUANTIZED_LSTM kernel (NN HAL 1.3): one step of an LSTM cell on int8 activations and weights with a
// 16-bit cell state, optional CIFG, peephole, projection and layer normalisation.
// NNAPI signature (32 inputs, 3 outputs):
//   0 input [batches, inputSize] TENSOR_QUANT8_ASYMM_SIGNED;
//   1-4 input-to-{input, forget, cell, output} weights [numUnits, inputSize] TENSOR_QUANT8_SYMM
//       (1 optional: CIFG);
//   5-8 recurrent-to-{input, forget, cell, output} weights [numUnits, outputSize] TENSOR_QUANT8_SYMM
//       (5 optional: CIFG);
//   9-11 cell-to-{input, forget, output} (peephole) weights [numUnits] TENSOR_QUANT16_SYMM, optional;
//   12-15 {input, forget, cell, output} gate biases [numUnits] TENSOR_INT32 (12 absent with CIFG);
//   16 projection weights [outputSize, numUnits] TENSOR_QUANT8_SYMM, 17 projection bias [outputSize]
//      TENSOR_INT32, both optional;
//   18 previous output state [batches, outputSize] TENSOR_QUANT8_ASYMM_SIGNED;
//   19 previous cell state [batches, numUnits] TENSOR_QUANT16_SYMM, scale a power of two <= 2^-9 (log2 within
//   1e-3 of an integer, as NNAPI); 20-23 {input, forget, cell, output} layer-norm weights [numUnits]
//   TENSOR_QUANT16_SYMM, optional; 24 cell clip, 25 projection clip (FLOAT32, 0 = none); 26-29 the scale of
//   each gate's matrix products (the layer norm's input; Q3.12 = 2^-12 without layer norm); 30 hidden-state
//   zero point (INT32), 31 hidden-state scale (FLOAT32).
// Outputs: 0 output state [batches, outputSize] and 2 output (identical, TENSOR_QUANT8_ASYMM_SIGNED,
// quantised as input 18), 1 cell state [batches, numUnits] TENSOR_QUANT16_SYMM (as input 19).
//
// Arithmetic (TFLite's integer LSTM, which NNAPI's reference follows): each gate's pre-activation is an
// int16 at its intermediate scale: for the input and the previous output separately, the int32
// accumulator Σ w·(x − zp) is rescaled by x_scale·w_scale / intermediate and added with int16
// saturation; a peephole adds c·w_peephole rescaled by cell_scale·w_scale / intermediate. Without layer
// norm the gate bias (scale input·weights) joins the input accumulator; with it, the bias (scale
// layer-norm weights / 1024) is added after normalisation and the result is Q3.12. Gates: sigmoid of
// Q3.12 to Q0.15, the cell gate tanh; CIFG's input gate is 32767 − forget. New cell state =
// round(f·c / 2^15) + round(i·g / 2^(30 + cell_shift)) saturated to int16, then clipped. The hidden
// state is o · tanh(c) (c read with 15 + cell_shift integer bits), in Q0.30, rescaled to the hidden
// scale plus its zero point; with projection weights, out = W·(h − h_zp) + b rescaled by w·h_scale /
// out_scale plus out_zp, clipped to ±clip around the zero point; without, out = h (numUnits must
// equal outputSize).
// Where NNAPI's reference implementation departs from its own documentation we follow the documentation:
// gate biases are used without layer norm too, the input and forget peepholes read the previous cell
// state, the hidden zero point is added (not subtracted), the projection subtracts the hidden zero point,
// and the projection clip is in output units. Layer normalisation computes the inverse standard deviation
// in double precision (NNAPI's integer inverse square root agrees to within one int16 step).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"
#include "q16_fixed_point.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

constexpr size_t kInputs = 32;
constexpr size_t kInput = 0, kPrevOutput = 18, kPrevCell = 19;
constexpr size_t kCellClip = 24, kProjClip = 25, kIntermediate = 26, kHiddenZp = 30, kHiddenScale = 31;
// Gate order in every group of four inputs: input, forget, cell, output.
constexpr size_t kGateI = 0, kGateF = 1, kGateC = 2, kGateO = 3;

const char* const kRoles[kInputs] = {"input",
                                     "input_to_input_weights",
                                     "input_to_forget_weights",
                                     "input_to_cell_weights",
                                     "input_to_output_weights",
                                     "recurrent_to_input_weights",
                                     "recurrent_to_forget_weights",
                                     "recurrent_to_cell_weights",
                                     "recurrent_to_output_weights",
                                     "cell_to_input_weights",
                                     "cell_to_forget_weights",
                                     "cell_to_output_weights",
                                     "input_gate_bias",
                                     "forget_gate_bias",
                                     "cell_gate_bias",
                                     "output_gate_bias",
                                     "projection_weights",
                                     "projection_bias",
                                     "output_state_in",
                                     "cell_state_in",
                                     "input_layer_norm_weights",
                                     "forget_layer_norm_weights",
                                     "cell_layer_norm_weights",
                                     "output_layer_norm_weights",
                                     "cell_clip",
                                     "projection_clip",
                                     "input_intermediate_scale",
                                     "forget_intermediate_scale",
                                     "cell_intermediate_scale",
                                     "output_intermediate_scale",
                                     "hidden_state_zero_point",
                                     "hidden_state_scale"};

OperandType expected_type(size_t i) {
  if (i == kInput || i == kPrevOutput) return OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  if ((i >= 1 && i <= 8) || i == 16) return OperandType::TENSOR_QUANT8_SYMM;
  if ((i >= 12 && i <= 15) || i == 17) return OperandType::TENSOR_INT32;
  if (i == kHiddenZp) return OperandType::INT32;
  if (i >= kCellClip) return OperandType::FLOAT32;
  return OperandType::TENSOR_QUANT16_SYMM;  // 9-11, 19, 20-23
}

bool optional_input(size_t i) {
  return i == 1 || i == 5 || (i >= 9 && i <= 12) || i == 16 || i == 17 || (i >= 20 && i <= 23);
}

uint32_t extent(const OperandInfo& o, size_t d) { return o.dimensions.size() > d ? o.dimensions[d] : 0; }

Result<void> expect_shape(const OperandInfo& o, size_t i, std::vector<uint32_t> expected) {
  if (auto r = expect_rank(o, i, kRoles[i], expected.size()); !r) return r;
  if (o.dimensions.empty()) return {};
  for (size_t d = 0; d < expected.size(); ++d)
    if (o.dimensions[d] != 0 && expected[d] != 0 && o.dimensions[d] != expected[d])
      return input_error(i, kRoles[i],
                         "expected shape " + models::dims_to_string(expected) + ", got " +
                             models::dims_to_string(o.dimensions));
  return {};
}

// The nearest integer to log2(scale) when the scale is a power of two as NNAPI's reference tells one
// (TFLite's CheckedLog2: log2 computed in float, within 1e-3 of an integer), or nullopt. An exact test
// would refuse scales a model converter wrote as a rounded decimal (e.g. 0.00048828 for 2^-11).
std::optional<int> checked_log2(float scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return std::nullopt;
  const float l = std::log(scale) * (1.0f / std::log(2.0f));
  const float rounded = std::round(l);
  if (std::fabs(l - rounded) >= 1e-3f) return std::nullopt;
  return static_cast<int>(rounded);
}

int32_t sat16(int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, q16::kMin, q16::kMax)); }
int32_t sat8(int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, -128, 127)); }

class QuantizedLstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::QUANTIZED_LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != kInputs) return make_error("expected 32 inputs, got " + std::to_string(in.size()));
    for (size_t i = 0; i < kInputs; ++i) {
      if (in[i].omitted()) {
        if (!optional_input(i)) return input_error(i, kRoles[i], "is required but omitted");
        continue;
      }
      if (auto r = expect_type(in, i, kRoles[i], {expected_type(i)}); !r) return make_error(r.error());
    }
    auto present = [&](size_t i) { return !in[i].omitted(); };
    const bool cifg = !present(1);
    if (present(1) != present(5))
      return input_error(5, kRoles[5], "CIFG: input-to-input and recurrent-to-input weights go together");
    if (present(12) == cifg)
      return input_error(12, kRoles[12], cifg ? "must be omitted with CIFG" : "is required without CIFG");
    const bool peephole = present(10) || present(11) || present(9);
    if (peephole && (!present(10) || !present(11) || present(9) == cifg))
      return input_error(9, kRoles[9], "peephole weights: all of 9-11 (10-11 with CIFG) or none");
    const bool layer_norm = present(21) || present(22) || present(23) || present(20);
    if (layer_norm && (!present(21) || !present(22) || !present(23) || present(20) == cifg))
      return input_error(20, kRoles[20], "layer-norm weights: all of 20-23 (21-23 with CIFG) or none");
    if (present(17) && !present(16))
      return input_error(17, kRoles[17], "projection bias given without projection weights");

    const uint32_t batches = std::max(extent(in[kInput], 0), extent(in[kPrevOutput], 0));
    const uint32_t input_size = extent(in[kInput], 1);
    const uint32_t units = std::max(extent(in[4], 0), extent(in[kPrevCell], 1));
    const uint32_t output_size = std::max(extent(in[8], 1), extent(in[kPrevOutput], 1));
    if (auto r = expect_shape(in[kInput], kInput, {batches, input_size}); !r) return make_error(r.error());
    for (size_t i = 1; i <= 4; ++i)
      if (present(i))
        if (auto r = expect_shape(in[i], i, {units, input_size}); !r) return make_error(r.error());
    for (size_t i = 5; i <= 8; ++i)
      if (present(i))
        if (auto r = expect_shape(in[i], i, {units, output_size}); !r) return make_error(r.error());
    for (size_t i : {9u, 10u, 11u, 12u, 13u, 14u, 15u, 20u, 21u, 22u, 23u})
      if (present(i))
        if (auto r = expect_shape(in[i], i, {units}); !r) return make_error(r.error());
    if (present(16))
      if (auto r = expect_shape(in[16], 16, {output_size, units}); !r) return make_error(r.error());
    if (present(17))
      if (auto r = expect_shape(in[17], 17, {output_size}); !r) return make_error(r.error());
    if (auto r = expect_shape(in[kPrevOutput], kPrevOutput, {batches, output_size}); !r)
      return make_error(r.error());
    if (auto r = expect_shape(in[kPrevCell], kPrevCell, {batches, units}); !r) return make_error(r.error());
    if (!present(16) && units != 0 && output_size != 0 && units != output_size)
      return input_error(16, kRoles[16],
                         "omitted, so numUnits (" + std::to_string(units) + ") must equal outputSize (" +
                             std::to_string(output_size) + ")");

    const std::optional<int> cell_shift = checked_log2(in[kPrevCell].scale);
    if (!cell_shift || *cell_shift > -9)
      return input_error(
          kPrevCell, kRoles[kPrevCell],
          "scale must be a power of two no larger than 2^-9, got " + std::to_string(in[kPrevCell].scale));
    for (size_t i = 1; i <= 11; ++i)
      if (present(i) && !(in[i].scale > 0)) return input_error(i, kRoles[i], "scale must be positive");
    if (present(16) && !(in[16].scale > 0)) return input_error(16, kRoles[16], "scale must be positive");
    for (size_t i = 20; i <= 23; ++i)
      if (present(i) && !(in[i].scale > 0)) return input_error(i, kRoles[i], "scale must be positive");
    for (size_t i = kIntermediate; i < kIntermediate + 4; ++i) {
      const std::optional<float> s = float_param(in[i]);
      if (s && !(*s > 0) && !(cifg && i == kIntermediate))
        return input_error(i, kRoles[i], "must be positive");
    }
    for (size_t i : {kCellClip, kProjClip}) {
      const std::optional<float> c = float_param(in[i]);
      if (c && !(*c >= 0)) return input_error(i, kRoles[i], "must be >= 0");
    }
    if (const auto s = float_param(in[kHiddenScale]); s && !(*s > 0))
      return input_error(kHiddenScale, kRoles[kHiddenScale], "must be positive");
    if (const auto z = int_param(in[kHiddenZp]); z && (*z < -128 || *z > 127))
      return input_error(kHiddenZp, kRoles[kHiddenZp], "must be in [-128, 127]");

    if (auto r = expect_output_count(out, 3); !r) return make_error(r.error());
    for (size_t o : {0u, 2u}) {
      if (auto r = expect_output_type(out, o, OperandType::TENSOR_QUANT8_ASYMM_SIGNED); !r)
        return make_error(r.error());
      if (out[o].scale != in[kPrevOutput].scale || out[o].zero_point != in[kPrevOutput].zero_point)
        return make_error("output " + std::to_string(o) + ": scale and zero point must equal input 18's");
    }
    if (auto r = expect_output_type(out, 1, OperandType::TENSOR_QUANT16_SYMM); !r)
      return make_error(r.error());
    if (out[1].scale != in[kPrevCell].scale || out[1].zero_point != 0)
      return make_error("output 1: scale must equal input 19's, zero point 0");
    const std::vector<uint32_t> state{batches, output_size}, cell{batches, units};
    return std::vector<std::vector<uint32_t>>{state, cell, state};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto present = [&](size_t i) { return !in[i].omitted() && in[i].has_value(); };
    const uint32_t batches = in[kInput].dimensions[0];
    const uint32_t input_size = in[kInput].dimensions[1];
    const uint32_t units = in[kPrevCell].dimensions[1];
    const uint32_t output_size = in[kPrevOutput].dimensions[1];
    const bool cifg = !present(1);
    const bool peephole = present(10);
    const bool layer_norm = present(21);
    const int cell_shift = *checked_log2(in[kPrevCell].scale);
    const float cell_scale = in[kPrevCell].scale;

    const std::vector<int32_t> x = read_ints(in[kInput]);
    const std::vector<int32_t> h_prev = read_ints(in[kPrevOutput]);
    const std::vector<int32_t> c_prev = read_ints(in[kPrevCell]);
    const int32_t x_zp = in[kInput].zero_point, h_prev_zp = in[kPrevOutput].zero_point;
    const int32_t hidden_zp = *int_param(in[kHiddenZp]);
    const float hidden_scale = *float_param(in[kHiddenScale]);

    // Pre-activation of gate `g` for every batch and unit, as int16 at its intermediate scale, then
    // (layer norm) Q3.12. `cell` is the state the peephole reads.
    auto gate = [&](size_t g, const std::vector<int32_t>& cell) {
      const float inter = *float_param(in[kIntermediate + g]);
      const OperandInfo& wx = in[1 + g];
      const OperandInfo& wh = in[5 + g];
      const std::vector<int32_t> wxv = read_ints(wx), whv = read_ints(wh);
      const std::vector<int32_t> bias = read_ints(in[12 + g]);
      const auto qx = fx::quantize_multiplier(double{in[kInput].scale} * wx.scale / inter);
      const auto qh = fx::quantize_multiplier(double{in[kPrevOutput].scale} * wh.scale / inter);
      std::vector<int32_t> pre(uint64_t{batches} * units, 0);
      for (uint32_t b = 0; b < batches; ++b) {
        for (uint32_t u = 0; u < units; ++u) {
          int32_t acc_x = layer_norm ? 0 : bias[u];
          for (uint32_t k = 0; k < input_size; ++k)
            acc_x = wrap_add(acc_x, int64_t{wxv[u * input_size + k]} * (x[b * input_size + k] - x_zp));
          int32_t acc_h = 0;
          for (uint32_t k = 0; k < output_size; ++k)
            acc_h = wrap_add(acc_h,
                             int64_t{whv[u * output_size + k]} * (h_prev[b * output_size + k] - h_prev_zp));
          int32_t v = sat16(fx::multiply_by_quantized_multiplier(acc_x, qx));
          v = sat16(int64_t{v} + fx::multiply_by_quantized_multiplier(acc_h, qh));
          pre[b * units + u] = v;
        }
      }
      if (peephole && g != kGateC) {
        const OperandInfo& wc = in[9 + (g == kGateI ? 0 : g == kGateF ? 1 : 2)];
        const std::vector<int32_t> wcv = read_ints(wc);
        const auto qc = fx::quantize_multiplier(double{cell_scale} * wc.scale / inter);
        for (uint32_t b = 0; b < batches; ++b)
          for (uint32_t u = 0; u < units; ++u) {
            int32_t& v = pre[b * units + u];
            v = sat16(int64_t{v} + fx::multiply_by_quantized_multiplier(wcv[u] * cell[b * units + u], qc));
          }
      }
      if (layer_norm) {
        // y = (v − mean) / stddev · w_ln + bias, in Q3.12: the normalised value is held times 2^10, so
        // normalised · w_ln + bias is at scale w_ln_scale / 1024 (the bias's); rounded division by 1024
        // brings it to w_ln_scale, and w_ln_scale · 2^12 rescales it to Q3.12.
        const OperandInfo& ln = in[20 + g];
        const std::vector<int32_t> lnw = read_ints(ln);
        const auto q_ln = fx::quantize_multiplier(double{ln.scale} * 4096);
        for (uint32_t b = 0; b < batches; ++b) {
          double sum = 0, sum_sq = 0;
          for (uint32_t u = 0; u < units; ++u) {
            sum += pre[b * units + u];
            sum_sq += double{1} * pre[b * units + u] * pre[b * units + u];
          }
          const double mean = sum / units;
          const double var = std::max(sum_sq / units - mean * mean, 1e-8);
          const double inv_std = 1.0 / std::sqrt(var);
          for (uint32_t u = 0; u < units; ++u) {
            const auto normalised =
                static_cast<int64_t>(std::llround((pre[b * units + u] - mean) * inv_std * 1024.0));
            const int64_t scaled = normalised * lnw[u] + bias[u];
            const int32_t q = static_cast<int32_t>(std::clamp<int64_t>(
                (scaled >= 0 ? scaled + 512 : scaled - 512) / 1024, std::numeric_limits<int32_t>::min(),
                std::numeric_limits<int32_t>::max()));
            pre[b * units + u] = sat16(fx::multiply_by_quantized_multiplier(q, q_ln));
          }
        }
      }
      return pre;
    };
    auto sigmoid_all = [](std::vector<int32_t> v) {
      for (int32_t& e : v) e = q16::logistic(e);
      return v;
    };

    const std::vector<int32_t> f = sigmoid_all(gate(kGateF, c_prev));
    std::vector<int32_t> g = gate(kGateC, c_prev);
    for (int32_t& e : g) e = q16::tanh(e, 3);
    std::vector<int32_t> i_gate(f.size());
    if (cifg) {
      for (size_t k = 0; k < f.size(); ++k) i_gate[k] = q16::kMax - f[k];
    } else {
      i_gate = sigmoid_all(gate(kGateI, c_prev));
    }

    // New cell state.
    std::vector<int32_t> c(c_prev.size());
    const float cell_clip = *float_param(in[kCellClip]);
    const int32_t q_cell_clip =
        cell_clip > 0 ? static_cast<int32_t>(std::min(cell_clip / cell_scale, 32767.0f)) : 0;
    for (size_t k = 0; k < c.size(); ++k) {
      const int32_t kept = fx::rounding_divide_by_pot(f[k] * c_prev[k], 15);
      const int32_t added = fx::rounding_divide_by_pot(i_gate[k] * g[k], 30 + cell_shift);
      int32_t v = sat16(int64_t{kept} + added);
      if (q_cell_clip > 0) v = std::clamp(v, -q_cell_clip, q_cell_clip);
      c[k] = v;
    }
    const std::vector<int32_t> o = sigmoid_all(gate(kGateO, c));

    // Hidden state: o · tanh(c) in Q0.30, to the hidden scale.
    const auto q_hidden = fx::quantize_multiplier(std::ldexp(1.0, -30) / hidden_scale);
    std::vector<int32_t> h(c.size());
    for (size_t k = 0; k < c.size(); ++k)
      h[k] = sat8(
          int64_t{fx::multiply_by_quantized_multiplier(o[k] * q16::tanh(c[k], 15 + cell_shift), q_hidden)} +
          hidden_zp);

    std::vector<int32_t> result(uint64_t{batches} * output_size);
    if (present(16)) {
      const OperandInfo& wp = in[16];
      const std::vector<int32_t> wpv = read_ints(wp);
      const std::vector<int32_t> bp = present(17) ? read_ints(in[17]) : std::vector<int32_t>(output_size, 0);
      const float out_scale = in[kPrevOutput].scale;
      const auto qp = fx::quantize_multiplier(double{wp.scale} * hidden_scale / out_scale);
      const float proj_clip = *float_param(in[kProjClip]);
      const int32_t q_proj_clip =
          proj_clip > 0 ? static_cast<int32_t>(std::min(proj_clip / out_scale, 127.0f)) : 0;
      for (uint32_t b = 0; b < batches; ++b)
        for (uint32_t r = 0; r < output_size; ++r) {
          int32_t acc = bp[r];
          for (uint32_t u = 0; u < units; ++u)
            acc = wrap_add(acc, int64_t{wpv[r * units + u]} * (h[b * units + u] - hidden_zp));
          int32_t v = fx::multiply_by_quantized_multiplier(acc, qp);
          if (q_proj_clip > 0) v = std::clamp(v, -q_proj_clip, q_proj_clip);
          result[b * output_size + r] = sat8(int64_t{v} + h_prev_zp);
        }
    } else {
      result = h;
    }
    write_ints(*out[0], result);
    write_ints(*out[1], c);
    write_ints(*out[2], result);
    return {};
  }
};

}  // namespace

const OperationKernel& quantized_lstm_kernel() {
  static const QuantizedLstmKernel k;
  return k;
}

}  // namespace npu::hal::ops
