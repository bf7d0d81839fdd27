// FULLY_CONNECTED conformance: AOSP NNAPI CTS V1_0 fully_connected_float / fully_connected_quant8 plus
// hand-worked cases for flattening, activations, signed quant8 and signature errors.
#include "npu/hal/ops/fully_connected.h"

#include <gtest/gtest.h>

#include "npu/hal/ops/reference_executor.h"
#include "test_models.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto I32 = OperandType::TENSOR_INT32;

Tensor run_one(const Model& m, const Tensor& input) {
  auto r = run_reference(m, {{m.main.input_indexes[0], input}});
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok() || r->empty()) return {};
  return r->begin()->second;
}

// fully_connected_float (V1_0): input [3,1], weights [[2]], bias [4]: 2x+4 -> [8, 68, 36].
TEST(FullyConnected, CtsFloat) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {3, 1});
  const uint32_t w = g.floats({1, 1}, {2});
  const uint32_t b = g.floats({1}, {4});
  const uint32_t out = g.output(F32, {3, 1});
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(0)}, {out});
  const Tensor r = run_one(g.build(), float_tensor({3, 1}, {2, 32, 16}));
  const std::vector<float> expected = {8, 68, 36};
  const std::vector<float> got = floats_of(r);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(fp32_close(expected[i], got[i])) << i;
}

// fully_connected_quant8 (V1_0): scales 0.5 / 0.5 / bias 0.25 / out 1: acc = 2x + 4, times 0.25:
// 2 -> 8*0.25 = 2, 32 -> 68*0.25 = 17, 16 -> 36*0.25 = 9.
TEST(FullyConnected, CtsQuant8) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {3, 1}, 0.5f, 0);
  const uint32_t w = g.ints(Q8, {1, 1}, {2}, 0.5f, 0);
  const uint32_t b = g.ints(I32, {1}, {4}, 0.25f);
  const uint32_t out = g.output(Q8, {3, 1}, 1.0f, 0);
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(0)}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(Q8, {3, 1}, {2, 32, 16}, 0.5f, 0))),
            (std::vector<int32_t>{2, 17, 9}));
}

// Signed variant of CtsQuant8 with every zero point shifted by -128: outputs shift by -128.
TEST(FullyConnected, SignedQuant8IsUnsignedMinus128) {
  GraphBuilder g;
  const uint32_t in = g.input(S8, {3, 1}, 0.5f, -128);
  const uint32_t w = g.ints(S8, {1, 1}, {2 - 128}, 0.5f, -128);
  const uint32_t b = g.ints(I32, {1}, {4}, 0.25f);
  const uint32_t out = g.output(S8, {3, 1}, 1.0f, -128);
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(0)}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(S8, {3, 1}, {2 - 128, 32 - 128, 16 - 128}, 0.5f, -128))),
            (std::vector<int32_t>{2 - 128, 17 - 128, 9 - 128}));
}

// Hand-worked: a [2,1,3] input flattens to batch 2 x input_size 3; weights [[1,2,3],[-1,0,1]], bias
// [0.5,-1], RELU: row0 (1,2,3): 1+4+9+0.5 = 14.5, -1+0+3-1 = 1; row1 (-1,-1,-1): -6+0.5 -> 0, 0-1 -> 0.
TEST(FullyConnected, FlattensHigherRankInputAndAppliesRelu) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {2, 1, 3});
  const uint32_t w = g.floats({2, 3}, {1, 2, 3, -1, 0, 1});
  const uint32_t b = g.floats({2}, {0.5f, -1});
  const uint32_t out = g.output(F32, {});
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(1)}, {out});
  const Tensor r = run_one(g.build(), float_tensor({2, 1, 3}, {1, 2, 3, -1, -1, -1}));
  EXPECT_EQ(r.dimensions, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(floats_of(r), (std::vector<float>{14.5f, 1, 0, 0}));
}

// Quantised RELU1 with nonzero zero points: input zp 10 scale 1, weights zp 3 scale 1, output scale 0.5
// zp 20. x = [14] (real 4), w = [5] (real 2): acc = 4*2 + bias(-1) = 7, multiplier 2 -> 14 + 20 = 34,
// clamped to RELU1's [20 + round(-1/0.5), 20 + round(1/0.5)] = [18, 22] -> 22.
TEST(FullyConnected, QuantRelu1Clamp) {
  GraphBuilder g;
  const uint32_t in = g.input(Q8, {1, 1}, 1.0f, 10);
  const uint32_t w = g.ints(Q8, {1, 1}, {5}, 1.0f, 3);
  const uint32_t b = g.ints(I32, {1}, {-1}, 1.0f);
  const uint32_t out = g.output(Q8, {1, 1}, 0.5f, 20);
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(2)}, {out});
  EXPECT_EQ(ints_of(run_one(g.build(), int_tensor(Q8, {1, 1}, {14}, 1.0f, 10))), (std::vector<int32_t>{22}));
}

TEST(FullyConnected, ParamsForLowering) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {4, 2, 3});
  const uint32_t w = g.floats({5, 6}, std::vector<float>(30, 1.0f));
  const uint32_t b = g.floats({5}, std::vector<float>(5, 0.0f));
  const uint32_t out = g.output(F32, {4, 5});
  g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(3)}, {out});
  const Model m = g.build();
  auto p = fully_connected_params(m.main, m.main.operations[0]);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->batch_size, 4u);
  EXPECT_EQ(p->input_size, 6u);
  EXPECT_EQ(p->num_units, 5u);
  EXPECT_EQ(p->activation, fx::FusedActivation::RELU6);
}

TEST(FullyConnected, ValidationErrors) {
  auto error_for = [](auto&& edit) {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {3, 2}, 0.5f, 0);
    const uint32_t w = g.ints(Q8, {1, 2}, {2, 2}, 0.5f, 0);
    const uint32_t b = g.ints(I32, {1}, {4}, 0.25f);
    const uint32_t out = g.output(Q8, {3, 1}, 1.0f, 0);
    g.op(OperationType::FULLY_CONNECTED, {in, w, b, g.i32(0)}, {out});
    Model m = g.build();
    edit(m);
    auto r = validate_operations(m);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string("<valid>") : r.error();
  };
  EXPECT_EQ(
      error_for([](Model& m) {
        m.main.operands[0].dimensions = {5, 1};
      }),
      "operations[0] (FULLY_CONNECTED): input 0 (input): element count 5 is not a multiple of input_size 2");
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[0].dimensions = {6}; }),
            "operations[0] (FULLY_CONNECTED): input 0 (input): expected rank 2 to 4, got 1");
  EXPECT_EQ(error_for([](Model& m) {
              m.main.operands[2].dimensions = {2};
              m.main.operands[2].data.resize(8);
            }),
            "operations[0] (FULLY_CONNECTED): input 2 (bias): has 2 elements, expected num_units 1");
  EXPECT_EQ(error_for([](Model& m) { m.main.operations[0].inputs.pop_back(); }),
            "operations[0] (FULLY_CONNECTED): expected 4 inputs, got 3");
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[1].type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED; }),
            "operations[0] (FULLY_CONNECTED): input 1 (weights): expected TENSOR_QUANT8_ASYMM, got "
            "TENSOR_QUANT8_ASYMM_SIGNED");
  EXPECT_EQ(error_for([](Model& m) { m.main.operands[2].scale = 0.26f; }),
            "operations[0] (FULLY_CONNECTED): input 2 (bias): scale 0.260000 must equal input scale * "
            "weights scale = "
            "0.250000");
}

}  // namespace
}  // namespace npu::hal::ops::test
