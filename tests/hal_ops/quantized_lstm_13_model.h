// A QUANTIZED_LSTM (NN HAL 1.3) one-operation model from per-gate raw values, shared by the kernel test
// (tests/hal_ops/quantized_lstm_13_test.cpp) and the two-device test (tests/hal/).
#pragma once

#include <array>
#include <vector>

#include "test_models.h"

namespace npu::hal::ops::test {

struct QlstmSpec {
  uint32_t batches = 1, input_size = 1, units = 1, output_size = 1;
  float x_scale = 1.0f / 128;
  int32_t x_zp = -3;
  float w_scale = 1.0f / 32;  // every input and recurrent weight
  // Gate order input, forget, cell, output; an empty vector is an omitted operand.
  std::array<std::vector<int32_t>, 4> wx, wh, bias, layer_norm;
  std::array<std::vector<int32_t>, 3> peephole;  // cell-to-{input, forget, output}
  float peephole_scale = 1.0f / 1024, layer_norm_scale = 1.0f / 1024;
  std::vector<int32_t> projection, projection_bias;
  float projection_scale = 1.0f / 32;
  float state_scale = 1.0f / 128;  // output state (input 18, outputs 0 and 2)
  int32_t state_zp = 5;
  float cell_scale = 1.0f / 2048;
  float cell_clip = 0, projection_clip = 0;
  float intermediate_scale = 1.0f / 4096;
  int32_t hidden_zp = 5;
  float hidden_scale = 1.0f / 128;
};

struct Qlstm {
  Model model;
  uint32_t x, h_prev, c_prev, state_out, cell_out, output;
};

inline Qlstm qlstm_model(const QlstmSpec& s) {
  constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  constexpr auto W8 = OperandType::TENSOR_QUANT8_SYMM;
  constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;
  constexpr auto I32 = OperandType::TENSOR_INT32;
  GraphBuilder g;
  Qlstm m{};
  std::vector<uint32_t> omitted_quant;
  auto tensor = [&](OperandType t, std::vector<uint32_t> dims, const std::vector<int32_t>& v, float scale) {
    if (!v.empty()) return g.ints(t, dims, v, scale, 0);
    const uint32_t i = g.omitted(t);
    if (t != I32) omitted_quant.push_back(i);  // validation wants a scale even on an omitted operand
    return i;
  };
  auto f32 = [&](float v) { return g.floats({}, {v}, OperandType::FLOAT32); };
  m.x = g.input(S8, {s.batches, s.input_size}, s.x_scale, s.x_zp);
  std::vector<uint32_t> ins{m.x};
  for (const auto& w : s.wx) ins.push_back(tensor(W8, {s.units, s.input_size}, w, s.w_scale));
  for (const auto& w : s.wh) ins.push_back(tensor(W8, {s.units, s.output_size}, w, s.w_scale));
  for (const auto& w : s.peephole) ins.push_back(tensor(Q16, {s.units}, w, s.peephole_scale));
  for (const auto& b : s.bias) ins.push_back(tensor(I32, {s.units}, b, 0.0f));
  ins.push_back(tensor(W8, {s.output_size, s.units}, s.projection, s.projection_scale));
  ins.push_back(tensor(I32, {s.output_size}, s.projection_bias, 0.0f));
  m.h_prev = g.input(S8, {s.batches, s.output_size}, s.state_scale, s.state_zp);
  m.c_prev = g.input(Q16, {s.batches, s.units}, s.cell_scale, 0);
  ins.push_back(m.h_prev);
  ins.push_back(m.c_prev);
  for (const auto& w : s.layer_norm) ins.push_back(tensor(Q16, {s.units}, w, s.layer_norm_scale));
  ins.push_back(f32(s.cell_clip));
  ins.push_back(f32(s.projection_clip));
  for (int k = 0; k < 4; ++k) ins.push_back(f32(s.intermediate_scale));
  ins.push_back(g.i32(s.hidden_zp));
  ins.push_back(f32(s.hidden_scale));
  m.state_out = g.output(S8, {s.batches, s.output_size}, s.state_scale, s.state_zp);
  m.cell_out = g.output(Q16, {s.batches, s.units}, s.cell_scale, 0);
  m.output = g.output(S8, {s.batches, s.output_size}, s.state_scale, s.state_zp);
  g.op(OperationType::QUANTIZED_LSTM, ins, {m.state_out, m.cell_out, m.output});
  m.model = g.build();
  for (uint32_t i : omitted_quant) m.model.main.operands[i].scale = 1.0f;
  return m;
}

// Case A of quantized_lstm_13_test.cpp (worked there): basic cell, one unit.
inline QlstmSpec qlstm_basic_spec() {
  QlstmSpec s;
  s.wx = {{{0}, {8}, {32}, {0}}};
  s.wh = {{{0}, {8}, {0}, {0}}};
  s.bias = {{{0}, {0}, {0}, {4096}}};
  return s;
}

// Case B (worked there): CIFG, peephole, projection, cell and projection clipping; two units.
inline QlstmSpec qlstm_cifg_projection_spec(float projection_clip) {
  QlstmSpec s;
  s.units = 2;
  s.wx = {{{}, {0, 0}, {16, -16}, {0, 0}}};
  s.wh = {{{}, {0, 0}, {0, 0}, {0, 0}}};
  s.bias = {{{}, {0, 0}, {0, 0}, {0, 0}}};
  s.peephole = {{{}, {1024, 1024}, {1024, 1024}}};
  s.projection = {32, -32};
  s.projection_bias = {256};
  s.cell_clip = 0.5f;
  s.projection_clip = projection_clip;
  s.hidden_zp = 3;
  return s;
}

}  // namespace npu::hal::ops::test
