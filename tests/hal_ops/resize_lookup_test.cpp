// RESIZE_BILINEAR, EMBEDDING_LOOKUP, HASHTABLE_LOOKUP and LSH_PROJECTION: AOSP NNAPI CTS vectors
// (hashtable_lookup float and quant8, the sparse LSH_PROJECTION case) and hand-worked cases (every
// RESIZE_BILINEAR and EMBEDDING_LOOKUP case).
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

Model resize(OperandType t, std::vector<uint32_t> dims, int32_t w, int32_t h, float scale = 0,
             int32_t zp = 0) {
  GraphBuilder g;
  const uint32_t in = g.input(t, dims, scale, zp);
  const uint32_t o = g.output(t, {}, scale, zp);
  g.op(OperationType::RESIZE_BILINEAR, {in, g.i32(w), g.i32(h)}, {o});
  return g.build();
}

// Hand-worked: 2x2 [1, 1; 2, 2] to 3x3: rows at y = 0, 2/3, 4/3 -> 1, 5/3, 2 (y1 clamps).
// Depth 2, hand-worked the same way (e.g. x = 2/3: 3 + 2/3 * 3 = 5, 4 + 2/3 * 6 = 8).
TEST(ResizeBilinear, Float) {
  const Tensor a = run_single(resize(F32, {1, 2, 2, 1}, 3, 3), float_tensor({1, 2, 2, 1}, {1, 1, 2, 2}));
  EXPECT_EQ(a.dimensions, (std::vector<uint32_t>{1, 3, 3, 1}));
  expect_floats_near({1, 1, 1, 1.666666667f, 1.666666667f, 1.666666667f, 2, 2, 2}, a);
  expect_floats_near(
      {3, 4, 5, 8, 6, 10, 7, 8, 9, 12, 10, 14, 9, 10, 11, 14, 12, 16},
      run_single(resize(F32, {1, 2, 2, 2}, 3, 3), float_tensor({1, 2, 2, 2}, {3, 4, 6, 10, 9, 10, 12, 16})));
}

// Hand-worked quant8: width 2 -> 4 (scale 1/2): source x = 0, 0.5, 1, 1.5 -> [10, 25, 40, 40]; an odd
// blend 10 + 15 * (1/3) * ... is avoided so truncation is unambiguous. Signed equals unsigned - 128.
TEST(ResizeBilinear, Quant8AndSigned) {
  expect_ints({10, 25, 40, 40}, run_single(resize(Q8, {1, 1, 2, 1}, 4, 1, 1.0f, 0),
                                           int_tensor(Q8, {1, 1, 2, 1}, {10, 40}, 1.0f, 0)));
  expect_ints({-118, -103, -88, -88}, run_single(resize(S8, {1, 1, 2, 1}, 4, 1, 1.0f, 0),
                                                 int_tensor(S8, {1, 1, 2, 1}, {-118, -88}, 1.0f, 0)));
}

// Hand-worked NCHW, align_corners: width 2 -> 3 with scale (2-1)/(3-1) = 1/2: x = 0, 0.5, 1 -> [0, 5, 10].
TEST(ResizeBilinear, NchwAlignCorners) {
  GraphBuilder g;
  const uint32_t in = g.input(F32, {1, 1, 1, 2});
  const uint32_t o = g.output(F32, {1, 1, 1, 3});
  g.op(OperationType::RESIZE_BILINEAR,
       {in, g.i32(3), g.i32(1), g.boolean(true), g.boolean(true), g.boolean(false)}, {o});
  expect_floats_near({0, 5, 10}, run_single(g.build(), float_tensor({1, 1, 1, 2}, {0, 10})));
}

// Hand-worked: values[i][j][k] = i + j/10 + k/100 over [3, 2, 4]; lookups [1, 0, 2].
TEST(EmbeddingLookup, RowsAndRangeCheck) {
  std::vector<float> table;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 4; ++k) table.push_back(static_cast<float>(i) + j / 10.0f + k / 100.0f);
  GraphBuilder g;
  const uint32_t lookups = g.input(I32, {3});
  const uint32_t values = g.input(F32, {3, 2, 4});
  const uint32_t o = g.output(F32, {3, 2, 4});
  g.op(OperationType::EMBEDDING_LOOKUP, {lookups, values}, {o});
  auto r = run_ok(g.build(),
                  {{lookups, int_tensor(I32, {3}, {1, 0, 2})}, {values, float_tensor({3, 2, 4}, table)}});
  ASSERT_EQ(r.size(), 1u);
  std::vector<float> expected(table.begin() + 8, table.begin() + 16);
  expected.insert(expected.end(), table.begin(), table.begin() + 8);
  expected.insert(expected.end(), table.begin() + 16, table.end());
  expect_floats_near(expected, r.begin()->second);

  // An out-of-range lookup is an execution error naming the input.
  auto bad = run_reference(
      g.build(), {{lookups, int_tensor(I32, {3}, {1, 3, 2})}, {values, float_tensor({3, 2, 4}, table)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "operations[0] (EMBEDDING_LOOKUP): input 0 (lookups): index 3 out of range [0, 3)");
}

Model hashtable(OperandType t, float scale) {
  GraphBuilder g;
  const uint32_t lookups = g.input(I32, {4});
  const uint32_t keys = g.input(I32, {3});
  const uint32_t values = g.input(t, {3, 2}, scale, 0);
  const uint32_t o = g.output(t, {4, 2}, scale, 0);
  const uint32_t hits = g.output(Q8, {4}, 1.0f, 0);
  g.op(OperationType::HASHTABLE_LOOKUP, {lookups, keys, values}, {o, hits});
  return g.build();
}

// CTS hashtable_lookup float and quant8 vectors: missing keys give zero rows and hit 0.
TEST(HashtableLookup, Cts) {
  {
    auto r = run_ok(hashtable(F32, 0), {{0, int_tensor(I32, {4}, {1234, -292, -11, 0})},
                                        {1, int_tensor(I32, {3}, {-11, 0, 1234})},
                                        {2, float_tensor({3, 2}, {0.0f, 0.1f, 1.0f, 1.1f, 2.0f, 2.1f})}});
    ASSERT_EQ(r.size(), 2u);
    expect_floats_near({2.0f, 2.1f, 0, 0, 0.0f, 0.1f, 1.0f, 1.1f}, r.at(3));
    expect_ints({1, 0, 1, 1}, r.at(4));
  }
  auto r = run_ok(hashtable(Q8, 0.5f), {{0, int_tensor(I32, {4}, {123, 250, 255, 0})},
                                        {1, int_tensor(I32, {3}, {0, 123, 255})},
                                        {2, int_tensor(Q8, {3, 2}, {0, 1, 10, 11, 20, 21}, 0.5f, 0)}});
  ASSERT_EQ(r.size(), 2u);
  expect_ints({10, 11, 0, 0, 20, 21, 0, 1}, r.at(3));
  expect_ints({1, 0, 1, 1}, r.at(4));
}

}  // namespace
}  // namespace npu::hal::ops::test

namespace npu::hal::ops::test {
namespace {

Model lsh(int32_t type) {
  GraphBuilder g;
  const uint32_t hash =
      g.floats({4, 2}, {0.123f, 0.456f, -0.321f, -0.654f, 1.234f, 5.678f, -4.321f, -8.765f});
  const uint32_t lookup = g.input(I32, {3, 2});
  const uint32_t o = g.output(I32, {});
  g.op(OperationType::LSH_PROJECTION, {hash, lookup, g.omitted(F32), g.i32(type)}, {o});
  return g.build();
}

// CTS sparse LSH_PROJECTION vector (weight omitted): [1, 2, 2, 0] — this exercises the farmhash
// Fingerprint64 of 12-byte keys (4-byte seed + one 8-byte row). Type 3 (NNAPI 1.2 sparse) adds the
// offset i * 2^num_bits: [1, 6, 10, 12], derived from the same vector.
TEST(LshProjection, CtsSparse) {
  const Tensor lookups = int_tensor(I32, {3, 2}, {12345, 54321, 67890, 9876, -12345678, -87654321});
  expect_ints({1, 2, 2, 0}, run_single(lsh(1), lookups));
  expect_ints({1, 6, 10, 12}, run_single(lsh(3), lookups));
}

}  // namespace
}  // namespace npu::hal::ops::test
