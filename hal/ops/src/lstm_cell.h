// The float LSTM cell shared by LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM
// (internal to npu_hal_ops): where one cell's operands sit in an operation's inputs, their NNAPI checks
// (CIFG, peephole, projection, layer normalisation, auxiliary input weights), and one time step.
//
// One step, per batch row, gates g ∈ {input, forget, cell, output}:
//   pre_g = W_g·x + [A_g·aux] + R_g·h_prev + [p_g ∘ c] (peephole: c_prev for input/forget, the new cell
//           for output); without layer normalisation the bias is the accumulator's start, with it
//   pre_g = LN(pre_g)·ln_g + b_g, LN(v) = (v − mean(v)) / sqrt(var(v) + 1e−8) over the units.
//   f = σ(pre_f), i = CIFG ? 1 − f : σ(pre_i), g = act(pre_c), c = clip(f·c_prev + i·g, cell_clip),
//   o = σ(pre_o), h = o·act(c), y = projection ? clip(P·h + pb, proj_clip) : h.
// act: 0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid; clips of 0 are off. Float arithmetic only.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace npu::hal::ops::detail {

// Input positions of one cell's operands (kNone = not in this operation).
inline constexpr size_t kNone = ~size_t{0};
struct LstmCellLayout {
  std::array<size_t, 4> input_weights, recurrent_weights, bias;  // gates input, forget, cell, output
  std::array<size_t, 3> peephole;                                // cell-to-input, -forget, -output
  size_t projection_weights, projection_bias;
  size_t output_state, cell_state;
  std::array<size_t, 4> layer_norm{kNone, kNone, kNone, kNone};
  std::array<size_t, 4> aux_weights{kNone, kNone, kNone, kNone};
  const char* prefix = "";  // "forward " / "backward " in the bidirectional operation's messages
};

// What the checks found: extents (0 = unknown) and which optional parts are present.
struct LstmCellShape {
  uint32_t units = 0, output_size = 0;
  bool cifg = false, peephole = false, projection = false, layer_norm = false, aux = false;
};

// NNAPI's rules for one cell: types `t`, input size `input_size` and batch `batch` (0 = unknown),
// `aux_size` of the auxiliary input (0 = unknown; only read when the layout has aux weights).
Result<LstmCellShape> check_lstm_cell(std::span<const OperandInfo> in, const LstmCellLayout& l,
                                      models::OperandType t, uint32_t input_size, uint32_t batch,
                                      bool aux_input_present, uint32_t aux_size);

// The cell's weights read out of the inputs (execution), with the step parameters.
struct LstmCell {
  LstmCellShape shape;
  uint64_t input_size = 0, aux_size = 0;
  std::array<std::vector<float>, 4> w, a, r, b, ln;
  std::array<std::vector<float>, 3> p;
  std::vector<float> proj_w, proj_b;
  int32_t activation = 4;
  float cell_clip = 0.0f, proj_clip = 0.0f;
};
Result<LstmCell> read_lstm_cell(std::span<const OperandInfo> in, const LstmCellLayout& l, uint64_t input_size,
                                uint64_t aux_size, int32_t activation, float cell_clip, float proj_clip);

// One step for `batch` rows: x [batch, input_size], aux [batch, aux_size] (empty without aux weights),
// h [batch, output_size] and c [batch, units] updated in place; `gates` (nullable) receives the gate
// values input, cell, forget, output ([batch, units] each, input left out with CIFG) for LSTM's scratch.
void lstm_step(const LstmCell& cell, uint64_t batch, std::span<const float> x, std::span<const float> aux,
               std::vector<float>* h, std::vector<float>* c, std::vector<float>* gates);

}  // namespace npu::hal::ops::detail
