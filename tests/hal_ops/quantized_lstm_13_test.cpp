// QUANTIZED_LSTM (NN HAL 1.3): hand-worked single steps from NNAPI's documented semantics, and
// validation. Shared scales: input 2^-7 (zero point −3), weights 2^-5, intermediate 2^-12, so every
// matrix product lands in Q3.12 unscaled (2^-7 · 2^-5 / 2^-12 = 1) and a bias raw value is Q3.12 too;
// cell state Q4.11 (scale 2^-11, so tanh(c) reads 4 integer bits); output state and hidden state 2^-7.
// sig and tanh below are the real functions; the kernel's 16-bit fixed point is within a raw step or
// two of them, and every worked value is at least 0.04 from a rounding boundary.
#include "op_test_util.h"
#include "quantized_lstm_13_model.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;

std::map<uint32_t, Tensor> run_qlstm(const QlstmSpec& s, const Qlstm& m, std::vector<int32_t> x,
                                     std::vector<int32_t> h_prev, std::vector<int32_t> c_prev) {
  return run_ok(m.model,
                {{m.x, int_tensor(S8, {s.batches, s.input_size}, x, s.x_scale, s.x_zp)},
                 {m.h_prev, int_tensor(S8, {s.batches, s.output_size}, h_prev, s.state_scale, s.state_zp)},
                 {m.c_prev, int_tensor(Q16, {s.batches, s.units}, c_prev, s.cell_scale, 0)}});
}

// Case A, one unit, no CIFG / peephole / projection / layer norm. x = 61 → x − zp = 64 (0.5);
// previous output 21 → 21 − 5 = 16 (0.125); previous cell 2048 (1.0).
//   input gate  0·64 + 0·16 + bias 0            = 0     → sig(0)       = 0.5      (16384)
//   forget gate 8·64 + 8·16 + 0                 = 640   → sig(0.15625) = 0.538983 (≈17661)
//   cell gate   32·64 + 0·16 + 0                = 2048  → tanh(0.5)    = 0.462117 (≈15143)
//   c = round(17661 · 2048 / 2^15) + round(16384 · 15143 / 2^19) = 1104 + 473 = 1577 (0.770020)
//   output gate 0 + 0 + bias 4096               = 4096  → sig(1.0)     = 0.731059
//   h = 0.731059 · tanh(0.770020) = 0.731059 · 0.646941 = 0.472952 → · 128 = 60.54 → 61, + zp 5 = 66.
TEST(QuantizedLstm, BasicCellHandWorked) {
  const QlstmSpec s = qlstm_basic_spec();
  const Qlstm m = qlstm_model(s);
  auto r = run_qlstm(s, m, {61}, {21}, {2048});
  ASSERT_EQ(r.size(), 3u);
  expect_ints({1577}, r.at(m.cell_out));
  expect_ints({66}, r.at(m.state_out));
  expect_ints({66}, r.at(m.output));
}

// Case B, two units, CIFG with peephole, projection to one output, cell clip 0.5 (1024 raw).
// x − zp = 64; previous output at its zero point (every recurrent product is 0); c_prev = (2048, −4096).
// Peephole weights 1024 at scale 2^-10 (1.0): they add c · 2^-11 · 2^-10 / 2^-12 = 2c raw.
//   forget (peephole reads c_prev): 2·2048 = 4096 → sig(1) = 0.731059 (≈23955);
//                                   2·−4096 = −8192 → sig(−2) = 0.119203 (≈3906)
//   input = 32767 − forget: ≈8812, ≈28861
//   cell gate 16·64 = 1024 → tanh(0.25) = 0.244919 (≈8025); −1024 → −8025
//   c = round(23955·2048/2^15) + round(8812·8025/2^19) = 1497 + 135 = 1632 → clipped to 1024;
//       round(3906·−4096/2^15) + round(28861·−8025/2^19) = −488 − 442 = −930
//   output (peephole reads the new c): 2·1024 = 2048 → sig(0.5) = 0.622459; 2·−930 = −1860 →
//                                      sig(−0.454102) = 0.388387
//   h = 0.622459 · tanh(0.5) = 0.287650 → 36.82 → 37, + hidden zp 3 = 40;
//       0.388387 · tanh(−0.454102) = −0.165167 → −21.14 → −21, + 3 = −18
//   projection (weights 32, −32 at 2^-5 = 1, −1; bias 256 at 2^-5 · 2^-7 = 2^-12):
//       acc = 32·(40 − 3) − 32·(−18 − 3) + 256 = 1184 + 672 + 256 = 2112, · 2^-5 · 2^-7 / 2^-7 = 66;
//       no clip: 66 + zp 5 = 71; clip 0.25 (32 raw): 32 + 5 = 37.
TEST(QuantizedLstm, CifgPeepholeProjectionClipHandWorked) {
  for (float clip : {0.0f, 0.25f}) {
    const QlstmSpec s = qlstm_cifg_projection_spec(clip);
    const Qlstm m = qlstm_model(s);
    auto r = run_qlstm(s, m, {61}, {5}, {2048, -4096});
    ASSERT_EQ(r.size(), 3u);
    expect_ints({1024, -930}, r.at(m.cell_out));
    expect_ints({clip > 0 ? 37 : 71}, r.at(m.state_out));
    expect_ints({clip > 0 ? 37 : 71}, r.at(m.output));
  }
}

// Case C, two units with layer normalisation (weights 1024 at 2^-10 = 1.0; a bias raw value b adds
// b · 2^-10 / 1024 = b · 2^-20), no projection (two outputs, hidden zero point 0 = state zero point 0).
// x − zp = 64; each gate's products for the two units differ, and two values normalise to −1 and +1:
//   input  (8, 0)·64  → (+1, −1) + bias 2^19 (0.5)  → (1.5, −0.5)  → sig: 0.817574, 0.377541
//   forget (0, 8)·64  → (−1, +1)                    → sig: 0.268941, 0.731059
//   cell   (−8, 8)·64 → (−1, +1)                    → tanh: −0.761594, 0.761594
//   output (0, 8)·64  → (−1, +1) + bias −2^19        → (−1.5, 0.5) → sig: 0.182426, 0.622459
//   c_prev (0, 2048): c = 0 + 0.817574·−0.761594·2048 = −1275.2 → −1275;
//                         0.731059·2048 + 0.377541·0.761594·2048 = 1497.2 + 588.9 → 1497 + 589 = 2086
//   h = 0.182426 · tanh(−0.622559) = −0.100864 → −12.91 → −13;  0.622459 · tanh(1.018555) = 0.478844 → 61.29
//   → 61
TEST(QuantizedLstm, LayerNormHandWorked) {
  QlstmSpec s;
  s.units = s.output_size = 2;
  s.state_zp = s.hidden_zp = 0;
  s.wx = {{{8, 0}, {0, 8}, {-8, 8}, {0, 8}}};
  s.wh = {{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}};
  s.bias = {{{1 << 19, 1 << 19}, {0, 0}, {0, 0}, {-(1 << 19), -(1 << 19)}}};
  s.layer_norm = {{{1024, 1024}, {1024, 1024}, {1024, 1024}, {1024, 1024}}};
  const Qlstm m = qlstm_model(s);
  auto r = run_qlstm(s, m, {61}, {0, 0}, {0, 2048});
  ASSERT_EQ(r.size(), 3u);
  // −1275.2 in real arithmetic sits 0.3 from a boundary; the 16-bit sigmoid and tanh are within about
  // 2^-13 of the real functions, which moves 1275 by up to 0.4, so the first unit is allowed one step.
  expect_ints({-1275, 2086}, r.at(m.cell_out), 1);
  expect_ints({-13, 61}, r.at(m.output));
}

TEST(QuantizedLstm, ValidationNamesTheInput) {
  {
    QlstmSpec s = qlstm_basic_spec();
    s.wx[1].clear();  // input-to-forget weights are required
    EXPECT_NE(validation_error(qlstm_model(s).model).find("input 2 (input_to_forget_weights)"),
              std::string::npos)
        << validation_error(qlstm_model(s).model);
  }
  {
    QlstmSpec s = qlstm_cifg_projection_spec(0);
    s.bias[0] = {0, 0};  // CIFG: no input gate bias
    EXPECT_NE(
        validation_error(qlstm_model(s).model).find("input 12 (input_gate_bias): must be omitted with CIFG"),
        std::string::npos)
        << validation_error(qlstm_model(s).model);
  }
  {
    QlstmSpec s = qlstm_basic_spec();
    s.cell_scale = 1.0f / 1000;  // not a power of two
    EXPECT_NE(
        validation_error(qlstm_model(s).model).find("input 19 (cell_state_in): scale must be a power of two"),
        std::string::npos)
        << validation_error(qlstm_model(s).model);
  }
  {
    QlstmSpec s = qlstm_cifg_projection_spec(0);
    s.projection.clear();
    s.projection_bias.clear();  // two units, one output: projection needed
    EXPECT_NE(validation_error(qlstm_model(s).model).find("input 16 (projection_weights): omitted"),
              std::string::npos)
        << validation_error(qlstm_model(s).model);
  }
  EXPECT_EQ(validation_error(qlstm_model(qlstm_basic_spec()).model), "");
}

}  // namespace
}  // namespace npu::hal::ops::test
