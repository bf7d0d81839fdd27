// UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN on the CPU reference: one-unit cells small
// enough to step through by hand (worked in the comments), both layouts, the auxiliary-input modes,
// merged outputs, final states, float16, and validation errors naming the input at fault.
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// One unit, one input: W = 1, R = 0.5, b = 0. Batch 0: x = 1, 2, 3 from h = 0 → 1, 2 + 0.5 = 2.5,
// 3 + 1.25 = 4.25. Batch 1 with RELU: x = −1, 0, 4 → relu(−1) = 0, 0, 4.
Model uni_rnn(OperandType t, bool time_major, int32_t act, bool final_state) {
  GraphBuilder g;
  const uint32_t x = g.input(t, time_major ? std::vector<uint32_t>{3, 2, 1} : std::vector<uint32_t>{2, 3, 1});
  const uint32_t h = g.input(t, {2, 1});
  const uint32_t y = g.output(t, {});
  std::vector<uint32_t> outs{y};
  if (final_state) outs.push_back(g.output(t, {2, 1}));
  g.op(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN,
       {x, g.floats({1, 1}, {1}, t), g.floats({1, 1}, {0.5f}, t), g.floats({1}, {0}, t), h, g.i32(act),
        g.i32(time_major ? 1 : 0)},
       outs);
  return g.build();
}

TEST(SequenceRnn, UnidirectionalBothLayouts) {
  for (OperandType t : {F32, F16}) {
    // Batch-major: [b0: 1 2 3, b1: −1 0 4]; time-major interleaves the batches per step.
    auto r = run_ok(uni_rnn(t, false, 1, true), {{0, float_tensor({2, 3, 1}, {1, 2, 3, -1, 0, 4}, t)},
                                                 {1, float_tensor({2, 1}, {0, 0}, t)}});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r.begin()->second.dimensions, (std::vector<uint32_t>{2, 3, 1}));
    expect_floats_near({1, 2.5f, 4.25f, 0, 0, 4}, r.begin()->second);
    expect_floats_near({4.25f, 4}, r.rbegin()->second);
    r = run_ok(uni_rnn(t, true, 1, false),
               {{0, float_tensor({3, 2, 1}, {1, -1, 2, 0, 3, 4}, t)}, {1, float_tensor({2, 1}, {0, 0}, t)}});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r.begin()->second.dimensions, (std::vector<uint32_t>{3, 2, 1}));
    expect_floats_near({1, 0, 2.5f, 0, 4.25f, 4}, r.begin()->second);
  }
  // No activation, batch 1 from h = 2: −1 + 1 = 0, 0 + 0 = 0, 4.
  auto r = run_ok(uni_rnn(F32, false, 0, false),
                  {{0, float_tensor({2, 3, 1}, {1, 2, 3, -1, 0, 4})}, {1, float_tensor({2, 1}, {0, 2})}});
  expect_floats_near({1, 2.5f, 4.25f, 0, 0, 4}, r.begin()->second);
}

// Forward cell as above (W 1, R 0.5, b 0), backward cell W 2, R 0, b 1, one batch, x = 1, 2, 3 (time
// major). Forward 1, 2.5, 4.25; backward runs t = 2, 1, 0: 2·3 + 1 = 7, 5, 3 (reported at their t:
// 3, 5, 7). Cross-linking, aux = 10, 20, 30 with forward aux weight 0.1 and backward −0.1: forward
// 1 + 1 = 2, 2 + 2 + 1 = 5, 3 + 3 + 2.5 = 8.5; backward t2 6 + 1 − 3 = 4, t1 4 + 1 − 2 = 3, t0 2 + 1 − 1 = 2.
// Parallel linking (aux, no weights): the backward cell reads aux: 61, 41, 21 → [21, 41, 61].
enum class Aux { None, Cross, Parallel };

Model bi_rnn(OperandType t, bool merge, Aux aux, bool states) {
  GraphBuilder g;
  const uint32_t x = g.input(t, {3, 1, 1});
  const uint32_t hf = g.input(t, {1, 1});
  const uint32_t hb = g.input(t, {1, 1});
  const uint32_t a = aux == Aux::None ? g.omitted(t) : g.floats({3, 1, 1}, {10, 20, 30}, t);
  const uint32_t fa = aux == Aux::Cross ? g.floats({1, 1}, {0.1f}, t) : g.omitted(t);
  const uint32_t ba = aux == Aux::Cross ? g.floats({1, 1}, {-0.1f}, t) : g.omitted(t);
  std::vector<uint32_t> outs{g.output(t, {})};
  if (!merge) outs.push_back(g.output(t, {}));
  if (states) {
    outs.push_back(g.output(t, {}));
    outs.push_back(g.output(t, {}));
  }
  g.op(OperationType::BIDIRECTIONAL_SEQUENCE_RNN,
       {x, g.floats({1, 1}, {1}, t), g.floats({1, 1}, {0.5f}, t), g.floats({1}, {0}, t), hf,
        g.floats({1, 1}, {2}, t), g.floats({1, 1}, {0}, t), g.floats({1}, {1}, t), hb, a, fa, ba, g.i32(0),
        g.boolean(true), g.boolean(merge)},
       outs);
  return g.build();
}

std::vector<Tensor> run_bi(const Model& m, OperandType t) {
  auto r = run_ok(m, {{0, float_tensor({3, 1, 1}, {1, 2, 3}, t)},
                      {1, float_tensor({1, 1}, {0}, t)},
                      {2, float_tensor({1, 1}, {0}, t)}});
  std::vector<Tensor> outs;
  for (uint32_t idx : m.main.output_indexes) outs.push_back(r.count(idx) ? r.at(idx) : Tensor{});
  return outs;
}

TEST(SequenceRnn, Bidirectional) {
  for (OperandType t : {F32, F16}) {
    auto o = run_bi(bi_rnn(t, false, Aux::None, true), t);
    ASSERT_EQ(o.size(), 4u);
    expect_floats_near({1, 2.5f, 4.25f}, o[0]);
    expect_floats_near({3, 5, 7}, o[1]);
    expect_floats_near({4.25f}, o[2]);
    expect_floats_near({3}, o[3]);
    o = run_bi(bi_rnn(t, true, Aux::None, false), t);
    ASSERT_EQ(o.size(), 1u);
    EXPECT_EQ(o[0].dimensions, (std::vector<uint32_t>{3, 1, 2}));
    expect_floats_near({1, 3, 2.5f, 5, 4.25f, 7}, o[0]);
  }
  auto o = run_bi(bi_rnn(F32, false, Aux::Cross, false), F32);
  expect_floats_near({2, 5, 8.5f}, o[0]);
  expect_floats_near({2, 3, 4}, o[1]);
  o = run_bi(bi_rnn(F32, false, Aux::Parallel, false), F32);
  expect_floats_near({1, 2.5f, 4.25f}, o[0]);
  expect_floats_near({21, 41, 61}, o[1]);
}

TEST(SequenceRnn, ValidationNamesTheInput) {
  Model m = uni_rnn(F32, false, 1, false);
  m.main.operands[m.main.operations[0].inputs[6]].data = {2, 0, 0, 0};
  EXPECT_EQ(
      validation_error(m),
      "operations[0] (UNIDIRECTIONAL_SEQUENCE_RNN): input 6 (time major): expected a value in [0, 1], got 2");
  m = uni_rnn(F32, false, 1, false);
  m.main.operands[m.main.operations[0].inputs[2]].dimensions = {2, 2};
  m.main.operands[m.main.operations[0].inputs[2]].data.resize(16);
  EXPECT_EQ(
      validation_error(m),
      "operations[0] (UNIDIRECTIONAL_SEQUENCE_RNN): input 2 (recurrent weights): expected shape [1, 1], got "
      "[2,2]");
  // Cross-linking weights on one side only.
  m = bi_rnn(F32, false, Aux::Cross, false);
  const uint32_t ba = m.main.operations[0].inputs[11];
  m.main.operands[ba].lifetime = Lifetime::NO_VALUE;
  m.main.operands[ba].data.clear();
  EXPECT_EQ(
      validation_error(m),
      "operations[0] (BIDIRECTIONAL_SEQUENCE_RNN): input 11 (backward auxiliary weights): the auxiliary "
      "weights must be both present or both omitted");
}

}  // namespace
}  // namespace npu::hal::ops::test
