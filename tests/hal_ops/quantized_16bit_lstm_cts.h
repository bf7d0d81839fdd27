// NNAPI's CTS vector for QUANTIZED_16BIT_LSTM (quantized_lstm, NN HAL 1.2), shared by the kernel test
// (tests/hal_ops/quantized_lstm_test.cpp) and the two-device test (tests/hal/conformance_test.cpp): two
// batches, two inputs, four cells; weights scale 0.00408021 with zero point 100, biases weights scale / 128;
// activations scale 1/128 zero point 128, the cell state 1/2048.
#pragma once

#include <map>
#include <vector>

#include "test_models.h"

namespace npu::hal::ops::test {

struct Quantized16BitLstmCts {
  Model model;
  std::map<uint32_t, Tensor> inputs;
  uint32_t c_out = 0, h_out = 0;
  std::vector<int32_t> want_c, want_h;
};

inline Quantized16BitLstmCts quantized_16bit_lstm_cts() {
  constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
  constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;
  constexpr auto I32 = OperandType::TENSOR_INT32;
  const float act = 1.0f / 128, state = 1.0f / 2048, ws = 0.00408021f;
  GraphBuilder g;
  const uint32_t x = g.input(Q8, {2, 2}, act, 128);
  std::vector<uint32_t> ins{x};
  const std::vector<std::vector<int32_t>> wx{{146, 250, 235, 171, 10, 218, 171, 108},
                                             {24, 50, 132, 179, 158, 110, 3, 169},
                                             {133, 34, 29, 49, 206, 109, 54, 183},
                                             {195, 187, 11, 99, 109, 10, 218, 48}};
  const std::vector<std::vector<int32_t>> wh{
      {254, 206, 77, 168, 71, 20, 215, 6, 223, 7, 118, 225, 59, 130, 174, 26},
      {137, 240, 103, 52, 68, 51, 237, 112, 0, 220, 89, 23, 69, 4, 207, 253},
      {172, 60, 205, 65, 14, 0, 140, 168, 240, 223, 133, 56, 142, 64, 246, 216},
      {106, 214, 67, 23, 59, 158, 45, 3, 119, 132, 49, 205, 129, 218, 11, 98}};
  const std::vector<std::vector<int32_t>> bias{{-7876, 13488, -726, 32839},
                                               {9206, -46884, -11693, -38724},
                                               {39481, 48624, 48976, -21419},
                                               {-58999, -17050, -41852, -40538}};
  for (const auto& w : wx) ins.push_back(g.ints(Q8, {4, 2}, w, ws, 100));
  for (const auto& w : wh) ins.push_back(g.ints(Q8, {4, 4}, w, ws, 100));
  for (const auto& b : bias) ins.push_back(g.ints(I32, {4}, b, ws / 128.0f, 0));
  const uint32_t c_prev = g.input(Q16, {2, 4}, state, 0);
  const uint32_t h_prev = g.input(Q8, {2, 4}, act, 128);
  ins.push_back(c_prev);
  ins.push_back(h_prev);
  Quantized16BitLstmCts t;
  t.c_out = g.output(Q16, {2, 4}, state, 0);
  t.h_out = g.output(Q8, {2, 4}, act, 128);
  g.op(OperationType::QUANTIZED_16BIT_LSTM, ins, {t.c_out, t.h_out});
  t.model = g.build();
  t.inputs = {{x, int_tensor(Q8, {2, 2}, {166, 179, 50, 150}, act, 128)},
              {c_prev, int_tensor(Q16, {2, 4}, {876, 1034, 955, -909, 761, 1029, 796, -1036}, state, 0)},
              {h_prev, int_tensor(Q8, {2, 4}, {136, 150, 140, 115, 135, 152, 138, 112}, act, 128)}};
  t.want_c = {1485, 1177, 1373, -1023, 1019, 1355, 1097, -1235};
  t.want_h = {140, 151, 146, 112, 136, 156, 142, 112};
  return t;
}

}  // namespace npu::hal::ops::test
