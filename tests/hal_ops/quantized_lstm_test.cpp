// QUANTIZED_16BIT_LSTM (NNAPI 1.2) on the CPU reference. Expected values are worked by hand below from
// NNAPI's documented semantics: gate pre-activations are Q3.12 (raw / 4096), gates Q0.15 (raw / 32768),
// the cell state Q4.11 (raw / 2048) and the output uint8 with scale 1/128 and zero point 128. The
// weights use scale 1/32, so the accumulator's rescale 4096 · (1/128 · 1/32) is exactly 1 and a gate's
// Q3.12 pre-activation is its raw accumulator, saturated to int16.
#include <gtest/gtest.h>

#include "op_test_util.h"
#include "quantized_16bit_lstm_cts.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr float kActScale = 1.0f / 128.0f;
constexpr float kStateScale = 1.0f / 2048.0f;
constexpr float kWeightScale = 1.0f / 32.0f;
constexpr float kBiasScale = 1.0f / 4096.0f;

struct LstmParams {
  uint32_t batches = 1, input_size = 1, output_size = 1;
  // Per gate (input, forget, cell, output): input and recurrent weights (raw uint8), biases (raw int32).
  std::vector<std::vector<int32_t>> wx, wh, bias;
  float input_scale = kActScale;
  int32_t recurrent_forget_zero_point = 128;
  float forget_bias_scale = kBiasScale;
};

// Graph inputs: input, previous cell state, previous output; weights and biases are constants.
Model lstm_model(const LstmParams& p) {
  GraphBuilder g;
  const uint32_t x = g.input(Q8, {p.batches, p.input_size}, p.input_scale, 128);
  std::vector<uint32_t> ins{x};
  for (size_t k = 0; k < 4; ++k)
    ins.push_back(g.ints(Q8, {p.output_size, p.input_size}, p.wx[k], kWeightScale, 128));
  for (size_t k = 0; k < 4; ++k)
    ins.push_back(g.ints(Q8, {p.output_size, p.output_size}, p.wh[k], kWeightScale,
                         k == 1 ? p.recurrent_forget_zero_point : 128));
  for (size_t k = 0; k < 4; ++k)
    ins.push_back(g.ints(I32, {p.output_size}, p.bias[k], k == 1 ? p.forget_bias_scale : kBiasScale, 0));
  const uint32_t c_prev = g.input(Q16, {p.batches, p.output_size}, kStateScale, 0);
  const uint32_t h_prev = g.input(Q8, {p.batches, p.output_size}, kActScale, 128);
  ins.push_back(c_prev);
  ins.push_back(h_prev);
  const uint32_t c_out = g.output(Q16, {p.batches, p.output_size}, kStateScale, 0);
  const uint32_t h_out = g.output(Q8, {p.batches, p.output_size}, kActScale, 128);
  g.op(OperationType::QUANTIZED_16BIT_LSTM, ins, {c_out, h_out});
  return g.build();
}

std::vector<Tensor> run_lstm(const Model& m, const Tensor& x, const Tensor& c_prev, const Tensor& h_prev) {
  std::map<uint32_t, Tensor> r = run_ok(
      m,
      {{m.main.input_indexes[0], x}, {m.main.input_indexes[1], c_prev}, {m.main.input_indexes[2], h_prev}});
  std::vector<Tensor> out;
  for (uint32_t idx : m.main.output_indexes) out.push_back(r.count(idx) ? r.at(idx) : Tensor{});
  return out;
}

TEST(Quantized16BitLstm, GatesAtZeroAndSaturatedHandWorked) {
  // Every weight equals its zero point (128), so only the biases reach the gates. Channel by channel
  // (biases input, forget, cell, output; B = 10^6 saturates the Q3.12 pre-activation to 32767 = 7.9998):
  //  ch0 (0, 0, B, 0), c_prev 2048 (1.0): i = f = o = σ(0) = 16384 (exactly 1/2), g = tanh(8) -> 32767.
  //      kept = (16384·2048·2 + 2^15) >> 16 = 1024; added = (16384·32767·2 + 2^15) >> 16 = 16384, / 16
  //      = 1024; state 2048 (exact). h = 0.5 · tanh(1.0) = 0.380797 -> 48.74/128 -> 49 + 128 = 177.
  //  ch1 (0, 0, 0, 0), c_prev -1001: g = tanh(0) = 0, kept = 0.5 · -1001 = -500.5, gemmlowp's rounding
  //      of a negative tie goes toward zero: -500. h = 0.5 · tanh(-500/2048) = -0.119701 -> -15.32 -> -15
  //      + 128 = 113.
  //  ch2 (0, 0, 0, 0), c_prev 1001: kept = 500.5 -> 501 (positive tie away from zero).
  //      h = 0.5 · tanh(501/2048) = 0.119932 -> 15.35 -> 15 + 128 = 143.
  //  ch3 (B, B, B, B), c_prev 32767: kept = σ(7.9998)·15.9995 = 0.999665·32767 ≈ 32756, added ≈
  //      2047 (1·0.999665/16): the sum saturates to 32767. h = 0.999665 · tanh(7.9998) = 0.999665 ->
  //      127.96 -> 128, clamped to 127 -> 255.
  constexpr int32_t B = 1000000;
  LstmParams p;
  p.output_size = 4;
  const std::vector<int32_t> w4(4, 128), wh16(16, 128);
  p.wx = {w4, w4, w4, w4};
  p.wh = {wh16, wh16, wh16, wh16};
  p.bias = {{0, 0, 0, B}, {0, 0, 0, B}, {B, 0, 0, B}, {0, 0, 0, B}};
  const auto y = run_lstm(lstm_model(p), int_tensor(Q8, {1, 1}, {200}, kActScale, 128),
                          int_tensor(Q16, {1, 4}, {2048, -1001, 1001, 32767}, kStateScale, 0),
                          int_tensor(Q8, {1, 4}, {10, 250, 128, 0}, kActScale, 128));
  ASSERT_EQ(y.size(), 2u);
  expect_ints({2048, -500, 501, 32767}, y[0]);
  expect_ints({177, 113, 143, 255}, y[1]);
}

TEST(Quantized16BitLstm, AccumulatorsFromInputAndPreviousOutputHandWorked) {
  // NNAPI's reference multiplies the row [x, h_prev] by the weights row [wh, wx] position by position
  // (as its CTS vector, Quantized16BitLstm.CtsVector, confirms). x = [192, 96] (centred 64, -32),
  // h_prev = [160] (centred 32), c_prev 1024 -> 0.5. Weight deltas from the zero point (scale 1/32, so a
  // delta of 32 is 1.0); row deltas [wh, wx0, wx1] against [64, -32, 32]:
  //  input gate:  [+32, +16, +32], bias 1024:  64·32 − 32·16 + 32·32 + 1024 = 3584 -> 0.875
  //  forget gate: [0, +64, 0],     bias 0:     −32·64 = −2048 -> −0.5
  //  cell gate:   [−32, 0, +64],   bias 0:     −64·32 + 32·64 = 0 -> 0
  //  output gate: [0, −32, 0],     bias −2048: 32·32 − 2048 = −1024 -> −0.25
  // i = σ(0.875), f = σ(−0.5) = 0.377541, g = tanh(0) = 0, o = σ(−0.25) = 0.437823.
  // c = f·0.5 + i·0 = 0.188771 -> 386.6 in 1/2048 steps (raw 387 ± 1 for the fixed-point gate);
  // h = o · tanh(386/2048) = 0.437823 · 0.186285 = 0.081560 -> 10.44 in 1/128 steps -> 10 + 128 = 138.
  LstmParams p;
  p.input_size = 2;
  p.wx = {{144, 160}, {192, 128}, {128, 192}, {96, 128}};
  p.wh = {{160}, {128}, {96}, {128}};
  p.bias = {{1024}, {0}, {0}, {-2048}};
  const auto y = run_lstm(lstm_model(p), int_tensor(Q8, {1, 2}, {192, 96}, kActScale, 128),
                          int_tensor(Q16, {1, 1}, {1024}, kStateScale, 0),
                          int_tensor(Q8, {1, 1}, {160}, kActScale, 128));
  ASSERT_EQ(y.size(), 2u);
  expect_ints({387}, y[0], 1);
  expect_ints({138}, y[1]);
}

TEST(Quantized16BitLstm, ValidationNamesTheInput) {
  LstmParams p;
  p.wx = {{128}, {128}, {128}, {128}};
  p.wh = {{128}, {128}, {128}, {128}};
  p.bias = {{0}, {0}, {0}, {0}};
  EXPECT_EQ(validation_error(lstm_model(p)), "");
  LstmParams bad_input = p;
  bad_input.input_scale = 1.0f / 64.0f;
  EXPECT_NE(validation_error(lstm_model(bad_input)).find("input 0 (input)"), std::string::npos);
  LstmParams bad_zero_point = p;
  bad_zero_point.recurrent_forget_zero_point = 100;
  EXPECT_NE(validation_error(lstm_model(bad_zero_point)).find("input 6 (recurrent_to_forget_weights)"),
            std::string::npos);
  LstmParams bad_bias = p;
  bad_bias.forget_bias_scale = 1.0f / 1024.0f;
  EXPECT_NE(validation_error(lstm_model(bad_bias)).find("input 10 (forget_gate_bias)"), std::string::npos);
}

// NNAPI's CTS vector (quantized_16bit_lstm_cts.h) on the kernel.
TEST(Quantized16BitLstm, CtsVector) {
  const auto cts = quantized_16bit_lstm_cts();
  auto r = run_ok(cts.model, cts.inputs);
  ASSERT_EQ(r.size(), 2u);
  expect_ints(cts.want_c, r.at(cts.c_out));
  expect_ints(cts.want_h, r.at(cts.h_out));
}

}  // namespace
}  // namespace npu::hal::ops::test
