// TRANSPOSE_CONV_2D and GROUPED_CONV_2D (NNAPI 1.2) on the CPU reference: hand-worked vectors (the
// arithmetic is in the comments), every operand type NNAPI gives them (float32, float16, quant8 asymm,
// quant8 asymm signed, per-channel filters), NCHW, both padding forms, the signed = unsigned − 128
// equivalence, and validation errors naming the parameter at fault.
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto PC = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;

// ---- TRANSPOSE_CONV_2D ---------------------------------------------------------------------------

// Input 2×2 [1 2; 3 4], one channel; filter 2×2 [f00 f01; f10 f11] = [1 2; 3 4]; bias 0.5.
// Stride 1, no padding: out[oy][ox] = Σ in[iy][ix]·f[oy − iy][ox − ix] over 3×3:
//   (0,0) 1·1 = 1        (0,1) 1·2 + 2·1 = 4        (0,2) 2·2 = 4
//   (1,0) 1·3 + 3·1 = 6  (1,1) 1·4 + 2·3 + 3·2 + 4·1 = 20   (1,2) 2·4 + 4·2 = 16
//   (2,0) 3·3 = 9        (2,1) 3·4 + 4·3 = 24       (2,2) 4·4 = 16        (+ 0.5 each)
// Padding 1 on every side leaves the centre, 20.5. Implicit SAME with output shape [1, 2, 2, 1]:
// ⌈2/1⌉ = 2, span (2 − 1)·1 + 2 = 3 > 2 → head (3 − 2)/2 = 0: the top-left 2×2, [1.5, 4.5, 6.5, 20.5].
Model transpose_model(OperandType t, const std::vector<int32_t>& pads, std::vector<uint32_t> out_dims,
                      int32_t stride = 1, bool implicit = false, int32_t scheme = 1) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1});
  const uint32_t f = g.floats({1, 2, 2, 1}, {1, 2, 3, 4}, t);
  const uint32_t b = g.floats({1}, {0.5f}, t);
  const uint32_t y = g.output(t, std::move(out_dims));
  std::vector<uint32_t> in{x, f, b};
  if (implicit) {
    in.push_back(g.ints(I32, {4}, {1, 2, 2, 1}));
    in.push_back(g.i32(scheme));
  } else {
    for (int32_t p : pads) in.push_back(g.i32(p));
  }
  in.push_back(g.i32(stride));
  in.push_back(g.i32(stride));
  in.push_back(g.i32(0));
  in.push_back(g.boolean(false));
  g.op(OperationType::TRANSPOSE_CONV_2D, in, {y});
  return g.build();
}

TEST(TransposeConv2D, FloatExplicitAndImplicitPadding) {
  for (OperandType t : {F32, F16}) {
    const Tensor x = float_tensor({1, 2, 2, 1}, {1, 2, 3, 4}, t);
    const Tensor full = run_single(transpose_model(t, {0, 0, 0, 0}, {1, 3, 3, 1}), x);
    EXPECT_EQ(full.dimensions, (std::vector<uint32_t>{1, 3, 3, 1}));
    expect_floats_near({1.5f, 4.5f, 4.5f, 6.5f, 20.5f, 16.5f, 9.5f, 24.5f, 16.5f}, full);
    expect_floats_near({20.5f}, run_single(transpose_model(t, {1, 1, 1, 1}, {1, 1, 1, 1}), x));
    expect_floats_near({1.5f, 4.5f, 6.5f, 20.5f},
                       run_single(transpose_model(t, {}, {1, 2, 2, 1}, 1, true), x));
    // VALID: no head padding either; the output shape tensor still bounds the output.
    expect_floats_near({1.5f, 4.5f, 6.5f, 20.5f},
                       run_single(transpose_model(t, {}, {1, 2, 2, 1}, 1, true, 2), x));
  }
}

// Output shape unknown in the model: inferred from the parameters (explicit) or the shape tensor.
TEST(TransposeConv2D, InfersOutputShape) {
  const Tensor x = float_tensor({1, 2, 2, 1}, {1, 2, 3, 4});
  EXPECT_EQ(run_single(transpose_model(F32, {0, 1, 0, 0}, {0, 0, 0, 0}, 2), x).dimensions,
            (std::vector<uint32_t>{1, 4, 3, 1}));  // 2·(2 − 1) + 2 = 4 rows, 4 − 1 = 3 columns
  EXPECT_EQ(run_single(transpose_model(F32, {}, {0, 0, 0, 0}, 1, true), x).dimensions,
            (std::vector<uint32_t>{1, 2, 2, 1}));
}

// Stride 2 without overlap: out[2·iy + fy][2·ix + fx] = in[iy][ix]·f[fy][fx] + 0.5.
// Quant8: input scale 0.5 zp 128 (q = 2·v + 128), filter scale 0.25 zp 100 (q = 4·f + 100), bias
// scale 0.125 (0.5 → 4), output scale 0.5 zp 10: acc = (2v)(4f) + 4, ×0.125/0.5 = 0.25 exactly → 2vf + 1,
// + 10: q = 2·v·f + 11. Rows: v = 1: f 1..4 → 13 15 | 17 19; v = 2 → 15 19 | 23 27; v = 3 → 17 23 | 29 35;
// v = 4 → 19 27 | 35 43. Signed: every zero point and value − 128 gives the same results − 128.
Model transpose_quant(OperandType t, int32_t shift, bool per_channel) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 2, 2, 1}, 0.5f, 128 - shift);
  const uint32_t f =
      per_channel
          ? g.per_channel({1, 2, 2, 1}, {4, 8, 12, 16}, {0.25f})
          : g.ints(t, {1, 2, 2, 1}, {104 - shift, 108 - shift, 112 - shift, 116 - shift}, 0.25f, 100 - shift);
  const uint32_t b = g.ints(I32, {1}, {4}, 0.125f, 0);
  const uint32_t y = g.output(t, {1, 4, 4, 1}, 0.5f, 10 - shift);
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, f, b, g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(2), g.i32(2), g.i32(0), g.boolean(false)},
       {y});
  return g.build();
}

TEST(TransposeConv2D, Quant8AsymmSignedAndPerChannel) {
  const std::vector<int32_t> want{13, 15, 15, 19, 17, 19, 23, 27, 17, 23, 19, 27, 29, 35, 35, 43};
  for (bool per_channel : {false, true}) {
    const Tensor u = run_single(transpose_quant(Q8, 0, per_channel),
                                int_tensor(Q8, {1, 2, 2, 1}, {130, 132, 134, 136}, 0.5f, 128));
    expect_ints(want, u);
    const Tensor s = run_single(transpose_quant(S8, 128, per_channel),
                                int_tensor(S8, {1, 2, 2, 1}, {2, 4, 6, 8}, 0.5f, 0));
    std::vector<int32_t> shifted;
    for (int32_t v : ints_of(u)) shifted.push_back(v - 128);
    expect_ints(shifted, s);
  }
}

// NCHW with two output channels: channel 1's filter is channel 0's times −1, bias −0.5 → −(…) − 0.5;
// the output is [n, c, h, w].
TEST(TransposeConv2D, NchwTwoChannels) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 1, 2, 2});
  const uint32_t y = g.output(F32, {1, 2, 3, 3});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {x, g.floats({2, 2, 2, 1}, {1, 2, 3, 4, -1, -2, -3, -4}), g.floats({2}, {0.5f, -0.5f}), g.i32(0),
        g.i32(0), g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0), g.boolean(true)},
       {y});
  expect_floats_near({1.5f, 4.5f, 4.5f, 6.5f, 20.5f, 16.5f, 9.5f, 24.5f, 16.5f, -1.5f, -4.5f, -4.5f, -6.5f,
                      -20.5f, -16.5f, -9.5f, -24.5f, -16.5f},
                     run_single(g.build(), float_tensor({1, 1, 2, 2}, {1, 2, 3, 4})));
}

TEST(TransposeConv2D, ValidationNamesTheParameter) {
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 2, 2, 1});
    const uint32_t y = g.output(F32, {});
    g.op(OperationType::TRANSPOSE_CONV_2D,
         {x, g.floats({1, 2, 2, 1}, {1, 2, 3, 4}), g.floats({1}, {0}), g.ints(I32, {4}, {2, 2, 2, 1}),
          g.i32(1), g.i32(1), g.i32(1), g.i32(0), g.boolean(false)},
         {y});
    EXPECT_EQ(validation_error(g.build()),
              "operations[0] (TRANSPOSE_CONV_2D): input 3 (output shape): batches 2 and depth 1 must be the "
              "input's batches 1 and depth_out 1");
  }
  EXPECT_EQ(
      validation_error(transpose_model(F32, {3, 3, 0, 0}, {})),
      "operations[0] (TRANSPOSE_CONV_2D): input 3 (padding left): the paddings leave no output (height 3, "
      "width -3)");
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 2, 2, 1});
    const uint32_t y = g.output(F32, {});
    g.op(OperationType::TRANSPOSE_CONV_2D, {x, g.floats({1, 2, 2, 1}, {1, 2, 3, 4}), g.floats({1}, {0})},
         {y});
    EXPECT_EQ(
        validation_error(g.build()),
        "operations[0] (TRANSPOSE_CONV_2D): expected 9 inputs (implicit padding, output shape tensor) or "
        "11 inputs (explicit padding), got 3");
  }
  EXPECT_EQ(validation_error(transpose_model(F32, {0, 0, 0, 0}, {}, 0)),
            "operations[0] (TRANSPOSE_CONV_2D): input 7 (stride width): expected a value >= 1, got 0");
}

// ---- GROUPED_CONV_2D -----------------------------------------------------------------------------

// Input 3×3×2: channel 0 = [1 2 3; 4 5 6; 7 8 9], channel 1 = 10× that. Two groups of one channel:
// output channel 0 reads channel 0 with filter [1 0; 0 1] (x[y][x] + x[y+1][x+1]); output channel 1 reads
// channel 1 with [0 1; 0 0] (x[y][x+1]). VALID: channel 0 = 1+5 = 6, 2+6 = 8, 4+8 = 12, 5+9 = 14;
// channel 1 = 20, 30, 50, 60. SAME (3×3, padding only at the tail: total 1, head 0) adds the last
// column/row: channel 0 (0,2) = 3, (1,2) = 6, (2,0) = 7, (2,1) = 8, (2,2) = 9; channel 1 (0,2) = 0,
// (1,2) = 0, (2,0) = 80, (2,1) = 90, (2,2) = 0.
std::vector<float> grouped_input() {
  std::vector<float> v;
  for (int i = 1; i <= 9; ++i) {
    v.push_back(static_cast<float>(i));
    v.push_back(static_cast<float>(10 * i));
  }
  return v;
}

Model grouped_model(OperandType t, bool implicit, std::vector<uint32_t> out_dims, int32_t groups = 2) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {1, 3, 3, 2});
  const uint32_t y = g.output(t, std::move(out_dims));
  std::vector<uint32_t> in{x, g.floats({2, 2, 2, 1}, {1, 0, 0, 1, 0, 1, 0, 0}, t), g.floats({2}, {0, 0}, t)};
  if (implicit) {
    in.push_back(g.i32(1));
  } else {
    for (int k = 0; k < 4; ++k) in.push_back(g.i32(0));
  }
  for (int32_t v : {1, 1, groups, 0}) in.push_back(g.i32(v));
  in.push_back(g.boolean(false));
  g.op(OperationType::GROUPED_CONV_2D, in, {y});
  return g.build();
}

TEST(GroupedConv2D, FloatValidAndSame) {
  for (OperandType t : {F32, F16}) {
    const Tensor x = float_tensor({1, 3, 3, 2}, grouped_input(), t);
    expect_floats_near({6, 20, 8, 30, 12, 50, 14, 60}, run_single(grouped_model(t, false, {1, 2, 2, 2}), x));
    expect_floats_near({6, 20, 8, 30, 3, 0, 12, 50, 14, 60, 6, 0, 7, 80, 8, 90, 9, 0},
                       run_single(grouped_model(t, true, {1, 3, 3, 2}), x));
  }
}

// 1×1 input [1, 2, 3, 4], two groups of two channels, four outputs: oc0 = [1 0]·[1 2] = 1,
// oc1 = [1 1]·[1 2] = 3, oc2 = [1 −1]·[3 4] = −1, oc3 = [0 2]·[3 4] = 8, bias 0.5 on oc3 → 8.5.
// Quant8: input scale 1 zp 128 (q = v + 128); per-channel filter scales 0.5, 0.5, 0.25, 0.25 (q = f / s);
// bias scales follow input·filter (0.5 on oc3 at scale 0.25 → 2); output scale 0.5 zp 100: q = 2·v + 100
// → 102, 106, 98, 117. The multipliers 0.5/0.5 = 1 and 0.25/0.5 = 0.5 are exact.
TEST(GroupedConv2D, Quant8PerChannelSignedEqualsUnsigned) {
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 1, 1, 4});
    const uint32_t y = g.output(F32, {1, 1, 1, 4});
    g.op(OperationType::GROUPED_CONV_2D,
         {x, g.floats({4, 1, 1, 2}, {1, 0, 1, 1, 1, -1, 0, 2}), g.floats({4}, {0, 0, 0, 0.5f}), g.i32(2),
          g.i32(1), g.i32(1), g.i32(2), g.i32(0), g.boolean(false)},
         {y});
    expect_floats_near({1, 3, -1, 8.5f}, run_single(g.build(), float_tensor({1, 1, 1, 4}, {1, 2, 3, 4})));
  }
  std::vector<int32_t> unsigned_out;
  for (OperandType t : {Q8, S8}) {
    const int32_t shift = t == S8 ? 128 : 0;
    GraphBuilder g;
    const uint32_t x = g.input(t, {1, 1, 1, 4}, 1.0f, 128 - shift);
    const uint32_t y = g.output(t, {1, 1, 1, 4}, 0.5f, 100 - shift);
    g.op(OperationType::GROUPED_CONV_2D,
         {x, g.per_channel({4, 1, 1, 2}, {2, 0, 2, 2, 4, -4, 0, 8}, {0.5f, 0.5f, 0.25f, 0.25f}),
          g.ints(I32, {4}, {0, 0, 0, 2}), g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(0), g.boolean(false)},
         {y});
    const Tensor out = run_single(
        g.build(),
        int_tensor(t, {1, 1, 1, 4}, {129 - shift, 130 - shift, 131 - shift, 132 - shift}, 1.0f, 128 - shift));
    if (t == Q8) {
      expect_ints({102, 106, 98, 117}, out);
      unsigned_out = ints_of(out);
    } else {
      expect_ints({102 - 128, 106 - 128, 98 - 128, 117 - 128}, out);
    }
  }
  EXPECT_EQ(unsigned_out.size(), 4u);
}

// Same-type quant8 filter: the VALID case above with input scale 1 zp 0 and filter scale 1 zp 1
// (q = f + 1), bias scale 1, output scale 1 zp 0: results 6, 20, … up to 60 (under 255).
TEST(GroupedConv2D, Quant8AsymmFilter) {
  for (OperandType t : {Q8, S8}) {
    const int32_t shift = t == S8 ? 128 : 0;
    GraphBuilder g;
    const uint32_t x = g.input(t, {1, 3, 3, 2}, 1.0f, -shift);
    const uint32_t y = g.output(t, {1, 2, 2, 2}, 1.0f, -shift);
    std::vector<int32_t> f{1, 0, 0, 1, 0, 1, 0, 0};
    for (int32_t& v : f) v = v + 1 - shift;
    g.op(OperationType::GROUPED_CONV_2D,
         {x, g.ints(t, {2, 2, 2, 1}, f, 1.0f, 1 - shift), g.ints(I32, {2}, {0, 0}, 1.0f), g.i32(0), g.i32(0),
          g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(2), g.i32(0), g.boolean(false)},
         {y});
    std::vector<int32_t> xs;
    for (float v : grouped_input()) xs.push_back(static_cast<int32_t>(v) - shift);
    std::vector<int32_t> want{6, 20, 8, 30, 12, 50, 14, 60};
    for (int32_t& v : want) v -= shift;
    expect_ints(want, run_single(g.build(), int_tensor(t, {1, 3, 3, 2}, xs, 1.0f, -shift)));
  }
}

TEST(GroupedConv2D, NchwMatchesNhwc) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 2, 3, 3});
  const uint32_t y = g.output(F32, {1, 2, 2, 2});
  g.op(OperationType::GROUPED_CONV_2D,
       {x, g.floats({2, 2, 2, 1}, {1, 0, 0, 1, 0, 1, 0, 0}), g.floats({2}, {0, 0}), g.i32(2), g.i32(1),
        g.i32(1), g.i32(2), g.i32(0), g.boolean(true)},
       {y});
  std::vector<float> nchw;
  for (int c = 0; c < 2; ++c)
    for (int i = 1; i <= 9; ++i) nchw.push_back(static_cast<float>(c ? 10 * i : i));
  expect_floats_near({6, 8, 12, 14, 20, 30, 50, 60}, run_single(g.build(), float_tensor({1, 2, 3, 3}, nchw)));
}

TEST(GroupedConv2D, ValidationNamesTheParameter) {
  EXPECT_EQ(
      validation_error(grouped_model(F32, false, {}, 3)),
      "operations[0] (GROUPED_CONV_2D): input 1 (filter): depth_out 2 is not a multiple of the 3 groups");
  EXPECT_EQ(
      validation_error(grouped_model(F32, false, {}, 1)),
      "operations[0] (GROUPED_CONV_2D): input 1 (filter): depth_group 1 times 1 groups does not give the "
      "input depth 2");
  EXPECT_EQ(validation_error(grouped_model(F32, false, {}, 0)),
            "operations[0] (GROUPED_CONV_2D): input 9 (number of groups): expected a value >= 1, got 0");
}

}  // namespace
}  // namespace npu::hal::ops::test
