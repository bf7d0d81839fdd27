// Data-movement operations: CONCATENATION, PAD, TRANSPOSE, SQUEEZE, STRIDED_SLICE, MEAN,
// SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND. AOSP NNAPI CTS vectors (three
// MEAN, five float STRIDED_SLICE and one signed quant8, three SPACE_TO_BATCH_ND, one BATCH_TO_SPACE_ND
// quant8 and its signed twin) and hand-worked cases, each explained where it is not a CTS vector.
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// CONCATENATION, hand-worked: [[1,2,3],[4,5,6]] ++ [[7,8,9],[10,11,12]] along axis 1 interleaves rows;
// along axis 0 (and axis -2) it appends.
TEST(Concatenation, FloatAxes) {
  for (int32_t axis : {1, 0, -2}) {
    GraphBuilder g;
    const uint32_t a = g.input(F32, {2, 3});
    const uint32_t b = g.input(F32, {2, 3});
    const uint32_t o = g.output(F32, {});
    g.op(OperationType::CONCATENATION, {a, b, g.i32(axis)}, {o});
    auto r = run_ok(g.build(), {{a, float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                                {b, float_tensor({2, 3}, {7, 8, 9, 10, 11, 12})}});
    ASSERT_EQ(r.size(), 1u);
    const Tensor& t = r.begin()->second;
    if (axis == 1) {
      EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{2, 6}));
      expect_floats_near({1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12}, t);
    } else {
      EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{4, 3}));
      expect_floats_near({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, t);
    }
  }
}

// Hand-worked requantisation: in1 (0.5, 0) q [2, 4] = [1, 2]; in2 (1, 10) q [13] = 3; output (0.25, 0):
// round(q * 0.5/0.25) = [4, 8], round(13 * 4 - 10 * 4) = 12. An input with the output's parameters is
// copied; a signed copy of the same case equals the unsigned result minus 128.
TEST(Concatenation, Quant8Requantises) {
  for (OperandType t : {Q8, S8}) {
    const int32_t off = t == S8 ? -128 : 0;
    GraphBuilder g;
    const uint32_t a = g.input(t, {2}, 0.5f, off);
    const uint32_t b = g.input(t, {1}, 1.0f, 10 + off);
    const uint32_t c = g.input(t, {1}, 0.25f, off);
    const uint32_t o = g.output(t, {4}, 0.25f, off);
    g.op(OperationType::CONCATENATION, {a, b, c, g.i32(0)}, {o});
    auto r = run_ok(g.build(), {{a, int_tensor(t, {2}, {2 + off, 4 + off})},
                                {b, int_tensor(t, {1}, {13 + off})},
                                {c, int_tensor(t, {1}, {77 + off})}});
    ASSERT_EQ(r.size(), 1u);
    expect_ints({4 + off, 8 + off, 12 + off, 77 + off}, r.begin()->second);
  }
}

TEST(Concatenation, MismatchedExtentsAreRejected) {
  GraphBuilder g;
  const uint32_t a = g.input(F32, {2, 3});
  const uint32_t b = g.input(F32, {3, 3});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::CONCATENATION, {a, b, g.i32(1)}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (CONCATENATION): input 1 (input): extent 3 of dimension 0 differs from 2");
}

// PAD, hand-worked: [1, 2, 3, 1] padded by H (0, 2), W (1, 3): each
// input row becomes 0, row, 0, 0, 0 and two zero rows follow. Quantised padding is the zero point.
TEST(Pad, FloatAndQuant) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 2, 3, 1});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::PAD, {in, g.ints(I32, {4, 2}, {0, 0, 0, 2, 1, 3, 0, 0})}, {o});
  const Tensor t = run_single(g.build(), float_tensor({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{1, 4, 7, 1}));
  std::vector<float> expected(28, 0.0f);
  for (int x = 0; x < 3; ++x) {
    expected[1 + x] = static_cast<float>(1 + x);
    expected[7 + 1 + x] = static_cast<float>(4 + x);
  }
  expect_floats_near(expected, t);

  GraphBuilder q;
  const uint32_t qi = q.input(Q8, {2}, 0.5f, 3);
  const uint32_t qo = q.output(Q8, {5}, 0.5f, 3);
  q.op(OperationType::PAD, {qi, q.ints(I32, {1, 2}, {1, 2})}, {qo});
  expect_ints({3, 5, 6, 3, 3}, run_single(q.build(), int_tensor(Q8, {2}, {5, 6}, 0.5f, 3)));
}

// TRANSPOSE, hand-worked: [[1,2],[3,4]] with perm [1,0] -> [[1,3],[2,4]]; a [2,3] tensor without a
// permutation (NO_VALUE) reverses the dimensions: [[1,2,3],[4,5,6]] -> [[1,4],[2,5],[3,6]].
// A [1,2,3] tensor with perm [2,0,1] -> shape [3,1,2], element (k,0,i) = in(0,i,k).
TEST(Transpose, PermutationsAndDefault) {
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {2, 2});
    const uint32_t o = g.output(F32, {2, 2});
    g.op(OperationType::TRANSPOSE, {in, g.ints(I32, {2}, {1, 0})}, {o});
    expect_floats_near({1, 3, 2, 4}, run_single(g.build(), float_tensor({2, 2}, {1, 2, 3, 4})));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {2, 3});
    models::Operand none;
    none.type = I32;
    none.lifetime = Lifetime::NO_VALUE;
    Model m = g.build();
    m.main.operands.push_back(none);
    const auto perm = static_cast<uint32_t>(m.main.operands.size() - 1);
    models::Operand out;
    out.type = F32;
    out.lifetime = Lifetime::SUBGRAPH_OUTPUT;
    m.main.operands.push_back(out);
    const auto o = static_cast<uint32_t>(m.main.operands.size() - 1);
    m.main.output_indexes.push_back(o);
    m.main.operations.push_back({OperationType::TRANSPOSE, {in, perm}, {o}});
    const Tensor t = run_single(m, float_tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{3, 2}));
    expect_floats_near({1, 4, 2, 5, 3, 6}, t);
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {1, 2, 3}, 1.0f, 0);
    const uint32_t o = g.output(Q8, {}, 1.0f, 0);
    g.op(OperationType::TRANSPOSE, {in, g.ints(I32, {3}, {2, 0, 1})}, {o});
    const Tensor t = run_single(g.build(), int_tensor(Q8, {1, 2, 3}, {1, 2, 3, 4, 5, 6}, 1.0f, 0));
    EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{3, 1, 2}));
    expect_ints({1, 4, 2, 5, 3, 6}, t);
  }
}

TEST(Transpose, RejectsNonPermutation) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {2, 2});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::TRANSPOSE, {in, g.ints(I32, {2}, {1, 1})}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (TRANSPOSE): input 1 (permutation): is not a permutation of 0..1");
}

// NNAPI 1.1-1.3 give SQUEEZE and TRANSPOSE exactly two inputs (the second may be NO_VALUE, never left
// out), and RESHAPE an input of rank at most 4: each otherwise is rejected naming the input.
TEST(Transpose, SqueezeTransposeNeedTwoInputsReshapeRankFour) {
  for (const OperationType t : {OperationType::SQUEEZE, OperationType::TRANSPOSE}) {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 2});
    const uint32_t o = g.output(F32, {});
    g.op(t, {in}, {o});
    EXPECT_EQ(validation_error(g.build()), "operations[0] (" + std::string(models::to_string(t)) +
                                               "): expected 2 inputs (input 1 may be NO_VALUE), got 1");
  }
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 1, 3, 3});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::RESHAPE, {in, g.ints(I32, {1}, {9})}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (RESHAPE): input 0 (input): expected rank <= 4, got 5");
}

// SQUEEZE, hand-worked: [4, 1, 1, 2] squeezing dims [1, 2] -> [4, 2], data unchanged; with the dims input
// NO_VALUE every extent-1 dimension goes: [1, 3, 1] -> [3].
TEST(Squeeze, CtsAndDefault) {
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {4, 1, 1, 2});
    const uint32_t o = g.output(F32, {4, 2});
    g.op(OperationType::SQUEEZE, {in, g.ints(I32, {2}, {1, 2})}, {o});
    const std::vector<float> v{1.4f, 2.3f, 3.2f, 4.1f, 5.4f, 6.3f, 7.2f, 8.1f};
    expect_floats_near(v, run_single(g.build(), float_tensor({4, 1, 1, 2}, v)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 3, 1});
    const uint32_t o = g.output(F32, {});
    g.op(OperationType::SQUEEZE, {in, g.omitted(I32)}, {o});
    const Tensor t = run_single(g.build(), float_tensor({1, 3, 1}, {1, 2, 3}));
    EXPECT_EQ(t.dimensions, (std::vector<uint32_t>{3}));
  }
  GraphBuilder g;
  const uint32_t in = g.input(F32, {2, 1});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::SQUEEZE, {in, g.ints(I32, {1}, {0})}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (SQUEEZE): input 1 (squeeze dimensions): dimension 0 has extent 2, not 1");
}

struct SliceCase {
  std::vector<uint32_t> dims;
  std::vector<int32_t> begin, end, strides;
  int32_t begin_mask, end_mask, shrink_mask;
  std::vector<uint32_t> out_dims;
  std::vector<float> expected;
};

Tensor run_slice(const SliceCase& c, OperandType t, const std::vector<float>& input) {
  GraphBuilder g;
  const uint32_t in = g.input(t, c.dims, t == F32 ? 0.0f : 1.0f, t == S8 ? -128 : 0);
  const uint32_t o = g.output(t, {}, t == F32 ? 0.0f : 1.0f, t == S8 ? -128 : 0);
  const auto n = static_cast<uint32_t>(c.dims.size());
  g.op(OperationType::STRIDED_SLICE,
       {in, g.ints(I32, {n}, c.begin), g.ints(I32, {n}, c.end), g.ints(I32, {n}, c.strides),
        g.i32(c.begin_mask), g.i32(c.end_mask), g.i32(c.shrink_mask)},
       {o});
  if (t == F32) return run_single(g.build(), float_tensor(c.dims, input));
  std::vector<int32_t> q;
  for (float v : input) q.push_back(static_cast<int32_t>(v) + (t == S8 ? -128 : 0));
  return run_single(g.build(), int_tensor(t, c.dims, q, 1.0f, t == S8 ? -128 : 0));
}

// CTS STRIDED_SLICE vectors: four float cases, the V1_2 shrink-axis case, and the V1_3 signed quant8
// case (begin [1, 0], end [2, 2], end mask 2).
TEST(StridedSlice, CtsVectors) {
  const std::vector<SliceCase> cases = {
      {{4}, {1}, {3}, {1}, 0, 0, 0, {2}, {2, 3}},
      {{4}, {-5}, {3}, {1}, 0, 0, 0, {3}, {1, 2, 3}},
      {{2, 3}, {1, -1}, {2, -4}, {2, -1}, 0, 0, 0, {1, 3}, {6, 5, 4}},
      {{2, 3}, {0, 0}, {2, 3}, {2, 2}, 0, 0, 0, {1, 2}, {1, 3}},
      {{2, 3}, {0, 0}, {2, 3}, {1, 1}, 0, 0, 1, {3}, {1, 2, 3}},
  };
  for (const SliceCase& c : cases) {
    std::vector<float> input;
    for (uint32_t i = 0; i < (c.dims.size() == 1 ? 4u : 6u); ++i) input.push_back(static_cast<float>(i + 1));
    const Tensor t = run_slice(c, F32, input);
    EXPECT_EQ(t.dimensions, c.out_dims);
    expect_floats_near(c.expected, t);
  }
  const SliceCase s{{2, 3}, {1, 0}, {2, 2}, {1, 1}, 0, 2, 0, {1, 3}, {}};
  const Tensor t = run_slice(s, S8, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(t.dimensions, s.out_dims);
  expect_ints({-124, -123, -122}, t);
}

// CTS MEAN vectors (two float, one quant8). The quant8 case shows NNAPI's truncating division
// of raw values: (1+2+7+8+13+14+19+20)/8 = 10.5 -> 10.
TEST(Mean, CtsVectors) {
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 2, 2, 1});
    const uint32_t o = g.output(F32, {1, 2, 1});
    g.op(OperationType::MEAN, {in, g.ints(I32, {1}, {2}), g.i32(0)}, {o});
    expect_floats_near({1.5f, 3.5f}, run_single(g.build(), float_tensor({1, 2, 2, 1}, {1, 2, 3, 4})));
  }
  std::vector<float> f;
  std::vector<int32_t> q;
  for (int i = 1; i <= 24; ++i) {
    f.push_back(static_cast<float>(i));
    q.push_back(i);
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {4, 3, 2});
    const uint32_t o = g.output(F32, {2});
    g.op(OperationType::MEAN, {in, g.ints(I32, {4}, {1, 0, -3, -3}), g.i32(0)}, {o});
    expect_floats_near({12, 13}, run_single(g.build(), float_tensor({4, 3, 2}, f)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {4, 3, 2}, 0.8f, 5);
    const uint32_t o = g.output(Q8, {1, 3, 1}, 0.8f, 5);
    g.op(OperationType::MEAN, {in, g.ints(I32, {2}, {0, 2}), g.i32(1)}, {o});
    expect_ints({10, 12, 14}, run_single(g.build(), int_tensor(Q8, {4, 3, 2}, q, 0.8f, 5)));
  }
}

// SPACE_TO_BATCH_ND: three CTS vectors (two float; quant8 whose zero point 9 pads, as NNAPI 1.2
// specifies).
TEST(SpaceToBatchNd, CtsVectors) {
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 4, 4, 1});
    const uint32_t o = g.output(F32, {4, 2, 2, 1});
    g.op(OperationType::SPACE_TO_BATCH_ND, {in, g.ints(I32, {2}, {2, 2}), g.ints(I32, {2, 2}, {0, 0, 0, 0})},
         {o});
    std::vector<float> v;
    for (int i = 1; i <= 16; ++i) v.push_back(static_cast<float>(i));
    expect_floats_near({1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16},
                       run_single(g.build(), float_tensor({1, 4, 4, 1}, v)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 5, 2, 1});
    const uint32_t o = g.output(F32, {6, 2, 2, 1});
    g.op(OperationType::SPACE_TO_BATCH_ND, {in, g.ints(I32, {2}, {3, 2}), g.ints(I32, {2, 2}, {1, 0, 2, 0})},
         {o});
    expect_floats_near({0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 7, 0, 2, 0, 8, 0, 3, 0, 9, 0, 4, 0, 10},
                       run_single(g.build(), float_tensor({1, 5, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {1, 5, 2, 1}, 1.0f, 9);
    const uint32_t o = g.output(Q8, {6, 2, 2, 1}, 1.0f, 9);
    g.op(OperationType::SPACE_TO_BATCH_ND, {in, g.ints(I32, {2}, {3, 2}), g.ints(I32, {2, 2}, {1, 0, 2, 0})},
         {o});
    expect_ints(
        {9, 9, 9, 5, 9, 9, 9, 6, 9, 1, 9, 7, 9, 2, 9, 8, 9, 3, 9, 9, 9, 4, 9, 10},
        run_single(g.build(), int_tensor(Q8, {1, 5, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1.0f, 9)));
  }
}

// BATCH_TO_SPACE_ND: the CTS quant8 vector (and its V1_3 signed twin, zero point 0) and, hand-worked,
// the inverse of the first SPACE_TO_BATCH_ND vector: the four batches interleave back into 1..16.
TEST(BatchToSpaceNd, CtsAndInverse) {
  for (OperandType t : {Q8, S8}) {
    GraphBuilder q;
    const uint32_t qi = q.input(t, {4, 2, 2, 1}, 1.0f, 0);
    const uint32_t qo = q.output(t, {1, 4, 4, 1}, 1.0f, 0);
    q.op(OperationType::BATCH_TO_SPACE_ND, {qi, q.ints(I32, {2}, {2, 2})}, {qo});
    std::vector<int32_t> v;
    for (int i = 1; i <= 16; ++i) v.push_back(i);
    expect_ints({1, 5, 2, 6, 9, 13, 10, 14, 3, 7, 4, 8, 11, 15, 12, 16},
                run_single(q.build(), int_tensor(t, {4, 2, 2, 1}, v, 1.0f, 0)));
  }
  GraphBuilder g;
  const uint32_t in = g.input(F32, {4, 2, 2, 1});
  const uint32_t o = g.output(F32, {1, 4, 4, 1});
  g.op(OperationType::BATCH_TO_SPACE_ND, {in, g.ints(I32, {2}, {2, 2})}, {o});
  std::vector<float> expected;
  for (int i = 1; i <= 16; ++i) expected.push_back(static_cast<float>(i));
  expect_floats_near(expected, run_single(g.build(), float_tensor({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5,
                                                                                 7, 13, 15, 6, 8, 14, 16})));
}

// SPACE_TO_DEPTH / DEPTH_TO_SPACE, hand-worked: a 4x4 plane 1..16 with block 2 gathers each 2x2 block
// into depth in (dy, dx) order: (0,0) -> [1,2,5,6], (0,1) -> [3,4,7,8], (1,0) -> [9,10,13,14],
// (1,1) -> [11,12,15,16]; DEPTH_TO_SPACE undoes it. A [1,2,2,2] input with block 2 keeps its order
// in [1,1,1,8]. NCHW: a [1,1,2,2] plane becomes [1,4,1,1] [1,2,3,4].
TEST(SpaceToDepth, RoundTripAndNchw) {
  std::vector<float> plane;
  for (int i = 1; i <= 16; ++i) plane.push_back(static_cast<float>(i));
  const std::vector<float> depth{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16};
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 4, 4, 1});
    const uint32_t o = g.output(F32, {1, 2, 2, 4});
    g.op(OperationType::SPACE_TO_DEPTH, {in, g.i32(2)}, {o});
    expect_floats_near(depth, run_single(g.build(), float_tensor({1, 4, 4, 1}, plane)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 2, 2, 4});
    const uint32_t o = g.output(F32, {1, 4, 4, 1});
    g.op(OperationType::DEPTH_TO_SPACE, {in, g.i32(2)}, {o});
    expect_floats_near(plane, run_single(g.build(), float_tensor({1, 2, 2, 4}, depth)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(F32, {1, 2, 2, 2});
    const uint32_t o = g.output(F32, {1, 1, 1, 8});
    g.op(OperationType::SPACE_TO_DEPTH, {in, g.i32(2)}, {o});
    const std::vector<float> v{1.4f, 2.3f, 3.2f, 4.1f, 5.4f, 6.3f, 7.2f, 8.1f};
    expect_floats_near(v, run_single(g.build(), float_tensor({1, 2, 2, 2}, v)));
  }
  {
    GraphBuilder g;
    const uint32_t in = g.input(Q8, {1, 1, 2, 2}, 1.0f, 0);
    const uint32_t o = g.output(Q8, {1, 4, 1, 1}, 1.0f, 0);
    g.op(OperationType::SPACE_TO_DEPTH, {in, g.i32(2), g.boolean(true)}, {o});
    expect_ints({1, 2, 3, 4}, run_single(g.build(), int_tensor(Q8, {1, 1, 2, 2}, {1, 2, 3, 4}, 1.0f, 0)));
  }
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 3, 4, 1});
  const uint32_t o = g.output(F32, {});
  g.op(OperationType::SPACE_TO_DEPTH, {in, g.i32(2)}, {o});
  EXPECT_EQ(validation_error(g.build()),
            "operations[0] (SPACE_TO_DEPTH): input 0 (input): height 3 is not divisible by 2");
}

}  // namespace
}  // namespace npu::hal::ops::test
