// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL (NN HAL 1.2) on the CPU reference:
// hand-checked vectors with broadcasting, quantised inputs of different scales compared by real value,
// and the signature rules (same input types, TENSOR_BOOL8 output).
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

constexpr auto B8 = OperandType::TENSOR_BOOL8;

Model compare(OperationType op, OperandType t, std::vector<uint32_t> a, std::vector<uint32_t> b,
              std::vector<uint32_t> out, float sa = 0, int32_t za = 0, float sb = 0, int32_t zb = 0,
              OperandType out_type = B8) {
  GraphBuilder g;
  const uint32_t x = g.input(t, std::move(a), sa, za);
  const uint32_t y = g.input(t, std::move(b), sb, zb);
  const uint32_t o = g.output(out_type, std::move(out));
  g.op(op, {x, y}, {o});
  return g.build();
}

std::vector<int32_t> run2(const Model& m, const Tensor& a, const Tensor& b) {
  auto r = run_ok(m, {{0, a}, {1, b}});
  return r.empty() ? std::vector<int32_t>{} : ints_of(r.begin()->second);
}

// [1, 2, 3] against the scalar-like [2] (broadcast): each comparison's truth table.
TEST(Comparison, FloatBroadcastTruthTables) {
  const Tensor a = float_tensor({3}, {1, 2, 3});
  const Tensor b = float_tensor({1}, {2});
  const std::pair<OperationType, std::vector<int32_t>> cases[] = {
      {OperationType::EQUAL, {0, 1, 0}},   {OperationType::NOT_EQUAL, {1, 0, 1}},
      {OperationType::GREATER, {0, 0, 1}}, {OperationType::GREATER_EQUAL, {0, 1, 1}},
      {OperationType::LESS, {1, 0, 0}},    {OperationType::LESS_EQUAL, {1, 1, 0}}};
  for (const auto& [op, want] : cases) {
    SCOPED_TRACE(std::string(models::to_string(op)));
    EXPECT_EQ(run2(compare(op, F32, {3}, {1}, {3}), a, b), want);
  }
}

// 2-D broadcast of TENSOR_INT32: [[1], [5]] > [0, 3, 6] → [[1, 0, 0], [1, 1, 0]].
TEST(Comparison, Int32RowsAgainstColumns) {
  EXPECT_EQ(run2(compare(OperationType::GREATER, I32, {2, 1}, {3}, {2, 3}), int_tensor(I32, {2, 1}, {1, 5}),
                 int_tensor(I32, {3}, {0, 3, 6})),
            (std::vector<int32_t>{1, 0, 0, 1, 1, 0}));
}

// Quantised inputs compare real values: a (scale 0.5, zp 128) q [130, 134] = [1, 3];
// b (scale 1, zp 127) q [128, 129] = [1, 2]. EQUAL → [1, 0], GREATER → [0, 1] (raw q would say 130 > 128).
// Signed: the same with every zero point 128 lower.
TEST(Comparison, QuantisedComparesRealValues) {
  for (const OperandType t : {Q8, S8}) {
    const int32_t d = t == Q8 ? 0 : 128;
    const Tensor a = int_tensor(t, {2}, {130 - d, 134 - d}, 0.5f, 128 - d);
    const Tensor b = int_tensor(t, {2}, {128 - d, 129 - d}, 1.0f, 127 - d);
    EXPECT_EQ(run2(compare(OperationType::EQUAL, t, {2}, {2}, {2}, 0.5f, 128 - d, 1.0f, 127 - d), a, b),
              (std::vector<int32_t>{1, 0}));
    EXPECT_EQ(run2(compare(OperationType::GREATER, t, {2}, {2}, {2}, 0.5f, 128 - d, 1.0f, 127 - d), a, b),
              (std::vector<int32_t>{0, 1}));
  }
}

TEST(Comparison, BoolInputs) {
  EXPECT_EQ(run2(compare(OperationType::NOT_EQUAL, B8, {3}, {3}, {3}), int_tensor(B8, {3}, {1, 0, 1}),
                 int_tensor(B8, {3}, {1, 1, 0})),
            (std::vector<int32_t>{0, 1, 1}));
}

TEST(Comparison, SignatureErrors) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2});
  const uint32_t y = g.input(I32, {2});
  const uint32_t o = g.output(B8, {2});
  g.op(OperationType::LESS, {x, y}, {o});
  EXPECT_NE(validation_error(g.build()).find("input 1 (input2)"), std::string::npos);
  EXPECT_NE(validation_error(compare(OperationType::LESS, F32, {2}, {2}, {2}, 0, 0, 0, 0, F32))
                .find("TENSOR_BOOL8"),
            std::string::npos);
  EXPECT_NE(validation_error(compare(OperationType::LESS, F32, {2}, {3}, {3})).find("cannot be broadcast"),
            std::string::npos);
}

}  // namespace
}  // namespace npu::hal::ops::test
