// RNN, SVDF and LSTM: hand-worked single-step cases (small enough to follow on paper; LSTM expectations
// are the gate equations written out with std::exp/std::tanh), signature errors, and the AOSP NNAPI CTS
// svdf_state vector (V1_0; a relaxed model, so compared with NNAPI's relaxed tolerance), and two
// TensorFlow Lite lstm_test.cc golden sequences (the float LSTM reference NNAPI's kernel derives from).
// No RNN vector from the CTS is used.
#include <cmath>

#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

// RNN: x [1, 2], W = I, R = 0.5 I, b [0.1, -0.1], h [2, 4] -> [1 + 1 + 0.1, 2 + 2 - 0.1] = [2.1, 3.9];
// with h [-10, 4] the first unit is 1 - 5 + 0.1 = -3.9, clamped to 0 by RELU.
TEST(Rnn, HandWorked) {
  for (bool negative : {false, true}) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 2});
    const uint32_t h = g.input(F32, {1, 2});
    const uint32_t hs = g.output(F32, {1, 2});
    const uint32_t out = g.output(F32, {1, 2});
    g.op(OperationType::RNN,
         {x, g.floats({2, 2}, {1, 0, 0, 1}), g.floats({2, 2}, {0.5f, 0, 0, 0.5f}),
          g.floats({2}, {0.1f, -0.1f}), h, g.i32(1)},
         {hs, out});
    auto r = run_ok(g.build(), {{x, float_tensor({1, 2}, {1, 2})},
                                {h, float_tensor({1, 2}, {negative ? -10.0f : 2.0f, 4.0f})}});
    ASSERT_EQ(r.size(), 2u);
    const std::vector<float> expected =
        negative ? std::vector<float>{0, 3.9f} : std::vector<float>{2.1f, 3.9f};
    expect_floats_near(expected, r.at(hs));
    expect_floats_near(expected, r.at(out));
  }
}

// SVDF: input [3, 1], weights_feature [[1, 1], [1, -1]] -> new state column [4, 2]; states
// f0 [1, 2, _] -> [1, 2, 4] and f1 [4, 5, _] -> [4, 5, 2]; weights_time [[1, 2, 3], [0, 0, 1]] give
// 1 + 4 + 12 = 17 and 2. Rank 1: units [17 + 0.5, 2 + 0]; rank 2: one unit 0.5 + 17 + 2 = 19.5. The
// state shifts left: [2, 4, 0, 5, 2, 0].
TEST(Svdf, HandWorked) {
  for (int32_t rank : {1, 2}) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 2});
    const uint32_t s = g.input(F32, {1, 6});
    const uint32_t so = g.output(F32, {1, 6});
    const uint32_t out = g.output(F32, {});
    const uint32_t bias = rank == 1 ? g.floats({2}, {0.5f, 0}) : g.floats({1}, {0.5f});
    g.op(OperationType::SVDF,
         {x, g.floats({2, 2}, {1, 1, 1, -1}), g.floats({2, 3}, {1, 2, 3, 0, 0, 1}), bias, s, g.i32(rank),
          g.i32(0)},
         {so, out});
    auto r =
        run_ok(g.build(), {{x, float_tensor({1, 2}, {3, 1})}, {s, float_tensor({1, 6}, {1, 2, 9, 4, 5, 6})}});
    ASSERT_EQ(r.size(), 2u);
    expect_floats_near({2, 4, 0, 5, 2, 0}, r.at(so));
    expect_floats_near(rank == 1 ? std::vector<float>{17.5f, 2} : std::vector<float>{19.5f}, r.at(out));
  }
}

// svdf_state (V1_0): 2 batches, 4 units, input size 3, memory 10, rank 1, no bias, one step from a
// non-zero state.
TEST(Svdf, CtsState) {
  const std::vector<float> wf{-0.31930989f, -0.36118156f, 0.0079667f,   0.37613347f,
                              0.22197971f,  0.12416199f,  0.27901134f,  0.27557442f,
                              0.3905206f,   -0.36137494f, -0.06634006f, -0.10640851f};
  const std::vector<float> wt{
      -0.31930989f, 0.37613347f,  0.27901134f,  -0.36137494f, -0.36118156f, 0.22197971f,  0.27557442f,
      -0.06634006f, 0.0079667f,   0.12416199f,  0.3905206f,   -0.10640851f, -0.0976817f,  0.15294972f,
      0.39635518f,  -0.02702999f, 0.39296314f,  0.15785322f,  0.21931258f,  0.31053296f,  -0.36916667f,
      0.38031587f,  -0.21580373f, 0.27072677f,  0.23622236f,  0.34936687f,  0.18174365f,  0.35907319f,
      -0.17493086f, 0.324846f,    -0.10781813f, 0.27201805f,  0.14324132f,  -0.23681851f, -0.27115166f,
      -0.01580888f, -0.14943552f, 0.15465137f,  0.09784451f,  -0.0337657f};
  std::vector<float> state_in(80, 0.0f);
  std::vector<float> state_out(80, 0.0f);
  for (int b = 0; b < 2; ++b) {
    const int o = b * 40;
    state_in[o + 8] = 0.119996f;
    state_in[o + 18] = -0.166701f;
    state_in[o + 28] = -0.44244f;
    state_in[o + 38] = 0.0805206f;
    state_out[o + 7] = 0.119996f;
    state_out[o + 8] = 0.542235f;
    state_out[o + 17] = -0.166701f;
    state_out[o + 18] = -0.40465f;
    state_out[o + 27] = -0.44244f;
    state_out[o + 28] = -0.706995f;
    state_out[o + 37] = 0.0805206f;
    state_out[o + 38] = 0.137515f;
  }
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 3});
  const uint32_t s = g.input(F32, {2, 40});
  const uint32_t so = g.output(F32, {2, 40});
  const uint32_t out = g.output(F32, {2, 4});
  g.op(OperationType::SVDF,
       {x, g.floats({4, 3}, wf), g.floats({4, 10}, wt), g.omitted(F32), s, g.i32(1), g.i32(0)}, {so, out});
  Model m = g.build();
  m.relax_computation_float32_to_float16 = true;
  auto r = run_ok(m, {{x, float_tensor({2, 3}, {0.14278367f, -1.64410412f, -0.75222826f, 0.14278367f,
                                                -1.64410412f, -0.75222826f})},
                      {s, float_tensor({2, 40}, state_in)}});
  ASSERT_EQ(r.size(), 2u);
  constexpr float kRelaxed = 5.0f * 0.0009765625f;  // NNAPI: relaxed fp32 atol = rtol
  auto near = [&](const std::vector<float>& e, const Tensor& t) {
    const std::vector<float> got = floats_of(t);
    ASSERT_EQ(got.size(), e.size());
    for (size_t i = 0; i < e.size(); ++i)
      EXPECT_LE(std::fabs(got[i] - e[i]), kRelaxed + kRelaxed * std::fabs(e[i])) << i;
  };
  near({0.068281f, -0.162217f, -0.152268f, 0.00323521f, 0.068281f, -0.162217f, -0.152268f, 0.00323521f},
       r.at(out));
  near(state_out, r.at(so));
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

struct LstmModel {
  Model model;
  uint32_t x, h, c, scratch, h_out, c_out, out;
};

// One unit, one input; every input weight w, recurrent weight r, biases b per gate (i, f, c, o).
LstmModel lstm(bool cifg, bool peephole, bool projection, float cell_clip, float proj_clip) {
  GraphBuilder g;
  LstmModel m{};
  m.x = g.input(F32, {1, 1});
  auto w = [&](float v) { return g.floats({1, 1}, {v}); };
  auto v1 = [&](float v) { return g.floats({1}, {v}); };
  const uint32_t none = g.omitted(F32);
  std::vector<uint32_t> in{m.x};
  in.push_back(cifg ? none : w(0.5f));                // 1 input-to-input
  in.push_back(w(1.0f));                              // 2 input-to-forget
  in.push_back(w(1.5f));                              // 3 input-to-cell
  in.push_back(w(-1.0f));                             // 4 input-to-output
  in.push_back(cifg ? none : w(0.25f));               // 5 recurrent-to-input
  in.push_back(w(0.5f));                              // 6 recurrent-to-forget
  in.push_back(w(-0.5f));                             // 7 recurrent-to-cell
  in.push_back(w(1.0f));                              // 8 recurrent-to-output
  in.push_back(peephole && !cifg ? v1(0.1f) : none);  // 9 cell-to-input
  in.push_back(peephole ? v1(0.2f) : none);           // 10 cell-to-forget
  in.push_back(peephole ? v1(0.3f) : none);           // 11 cell-to-output
  in.push_back(cifg ? none : v1(0.1f));               // 12 input gate bias
  in.push_back(v1(1.0f));                             // 13 forget gate bias
  in.push_back(v1(0.0f));                             // 14 cell bias
  in.push_back(v1(-0.2f));                            // 15 output gate bias
  in.push_back(projection ? w(2.0f) : none);          // 16 projection weights
  in.push_back(projection ? v1(0.5f) : none);         // 17 projection bias
  m.h = g.input(F32, {1, 1});
  m.c = g.input(F32, {1, 1});
  in.push_back(m.h);
  in.push_back(m.c);
  in.push_back(g.i32(4));
  in.push_back(g.floats({}, {cell_clip}, OperandType::FLOAT32));
  in.push_back(g.floats({}, {proj_clip}, OperandType::FLOAT32));
  m.scratch = g.output(F32, {});
  m.h_out = g.output(F32, {1, 1});
  m.c_out = g.output(F32, {1, 1});
  m.out = g.output(F32, {1, 1});
  g.op(OperationType::LSTM, in, {m.scratch, m.h_out, m.c_out, m.out});
  m.model = g.build();
  return m;
}

// The gate equations written out for x = 0.8, h = -0.6, c_prev = 1.5 with the weights above.
TEST(Lstm, HandWorkedVariants) {
  const float x = 0.8f, h = -0.6f, cp = 1.5f;
  for (int variant = 0; variant < 4; ++variant) {
    const bool cifg = variant == 1 || variant == 3;
    const bool peephole = variant >= 2;
    const bool projection = variant == 3;
    const float cell_clip = variant == 3 ? 1.0f : 0.0f;
    const float proj_clip = variant == 3 ? 0.7f : 0.0f;
    const float f = sigmoid(1.0f * x + 0.5f * h + (peephole ? 0.2f * cp : 0) + 1.0f);
    const float i = cifg ? 1 - f : sigmoid(0.5f * x + 0.25f * h + (peephole ? 0.1f * cp : 0) + 0.1f);
    const float cand = std::tanh(1.5f * x - 0.5f * h + 0.0f);
    float c = f * cp + i * cand;
    if (cell_clip > 0) c = std::fmax(-cell_clip, std::fmin(cell_clip, c));
    const float o = sigmoid(-1.0f * x + 1.0f * h + (peephole ? 0.3f * c : 0) - 0.2f);
    float y = o * std::tanh(c);
    if (projection) y = 2.0f * y + 0.5f;
    if (proj_clip > 0) y = std::fmax(-proj_clip, std::fmin(proj_clip, y));
    const LstmModel m = lstm(cifg, peephole, projection, cell_clip, proj_clip);
    auto r = run_ok(m.model, {{m.x, float_tensor({1, 1}, {x})},
                              {m.h, float_tensor({1, 1}, {h})},
                              {m.c, float_tensor({1, 1}, {cp})}});
    ASSERT_EQ(r.size(), 4u) << variant;
    EXPECT_EQ(r.at(m.scratch).dimensions, (std::vector<uint32_t>{1, cifg ? 3u : 4u}));
    expect_floats_near({c}, r.at(m.c_out));
    expect_floats_near({y}, r.at(m.h_out));
    expect_floats_near({y}, r.at(m.out));
  }
}

// TensorFlow Lite's lstm_test.cc golden vectors (n_input 2, n_cell = n_output 4, three steps with the
// states carried between executions): NoCifg_NoPeephole_NoProjection and Cifg_Peephole_NoProjection.
struct LstmGolden {
  bool cifg;
  std::vector<float> w_i, w_f, w_c, w_o, r_i, r_f, r_c, r_o, p_f, p_o, b_i;
  std::vector<float> golden;
};

void run_golden(const LstmGolden& v) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 2});
  const uint32_t none = g.omitted(F32);
  auto m = [&](const std::vector<float>& d, uint32_t cols) {
    return d.empty() ? none : g.floats({4, cols}, d);
  };
  auto vec = [&](const std::vector<float>& d) { return d.empty() ? none : g.floats({4}, d); };
  const uint32_t h = g.input(F32, {1, 4});
  const uint32_t c = g.input(F32, {1, 4});
  std::vector<uint32_t> in{x,
                           m(v.w_i, 2),
                           m(v.w_f, 2),
                           m(v.w_c, 2),
                           m(v.w_o, 2),
                           m(v.r_i, 4),
                           m(v.r_f, 4),
                           m(v.r_c, 4),
                           m(v.r_o, 4),
                           none,
                           vec(v.p_f),
                           vec(v.p_o),
                           vec(v.b_i),
                           vec({1, 1, 1, 1}),
                           vec({0, 0, 0, 0}),
                           vec({0, 0, 0, 0}),
                           none,
                           none,
                           h,
                           c,
                           g.i32(4),
                           g.floats({}, {0.0f}, OperandType::FLOAT32),
                           g.floats({}, {0.0f}, OperandType::FLOAT32)};
  const uint32_t scratch = g.output(F32, {});
  const uint32_t ho = g.output(F32, {1, 4});
  const uint32_t co = g.output(F32, {1, 4});
  const uint32_t out = g.output(F32, {1, 4});
  g.op(OperationType::LSTM, in, {scratch, ho, co, out});
  const Model model = g.build();
  const float inputs[3][2] = {{2, 3}, {3, 4}, {1, 1}};
  Tensor hs = float_tensor({1, 4}, {0, 0, 0, 0});
  Tensor cs = float_tensor({1, 4}, {0, 0, 0, 0});
  for (int step = 0; step < 3; ++step) {
    auto r = run_ok(model, {{x, float_tensor({1, 2}, {inputs[step][0], inputs[step][1]})}, {h, hs}, {c, cs}});
    ASSERT_EQ(r.size(), 4u);
    expect_floats_near(std::vector<float>(v.golden.begin() + 4 * step, v.golden.begin() + 4 * step + 4),
                       r.at(out));
    hs = r.at(ho);
    cs = r.at(co);
  }
}

LstmGolden golden_no_cifg() {
  return {false,
          {-0.45018822f, -0.02338299f, -0.0870589f, -0.34550029f, 0.04266912f, -0.15680569f, -0.34856534f,
           0.43890524f},
          {0.09701663f, 0.20334584f, -0.50592935f, -0.31343272f, -0.40032279f, 0.44781327f, 0.01387155f,
           -0.35593212f},
          {-0.50013041f, 0.1370284f, 0.11810488f, 0.2013163f, -0.20583314f, 0.44344562f, 0.22077113f,
           -0.29909778f},
          {-0.25065863f, -0.28290087f, 0.04613829f, 0.40525138f, 0.44272184f, 0.03897077f, -0.1556896f,
           0.19487578f},
          {-0.0063535f, -0.2042388f, 0.31454784f, -0.35746509f, 0.28902304f, 0.08183324f, -0.16555229f,
           0.02286911f, -0.13566875f, 0.03034258f, 0.48091322f, -0.12528998f, 0.24077177f, -0.51332325f,
           -0.33502164f, 0.10629296f},
          {-0.48684245f, -0.06655136f, 0.42224967f, 0.2112639f, 0.27654213f, 0.20864892f, -0.07646349f,
           0.45877004f, 0.00141793f, -0.14609534f, 0.36447752f, 0.09196436f, 0.28053468f, 0.01560611f,
           -0.20127171f, -0.01140004f},
          {-0.3407414f, 0.24443203f, -0.2078532f, 0.26320225f, 0.05695659f, -0.00123841f, -0.4744786f,
           -0.35869038f, -0.06418842f, -0.13502428f, -0.501764f, 0.22830659f, -0.46367589f, 0.26016325f,
           -0.03894562f, -0.16368064f},
          {0.43385774f, -0.17194885f, 0.2718237f, 0.09215671f, 0.24107647f, -0.39835793f, 0.18212086f,
           0.01301402f, 0.48572797f, -0.50656658f, 0.20047462f, -0.20607421f, -0.51818722f, -0.15390486f,
           0.0468148f, 0.39922136f},
          {},
          {},
          {0, 0, 0, 0},
          {-0.02973187f, 0.1229473f, 0.20885126f, -0.15358765f, -0.03716109f, 0.12507336f, 0.41193449f,
           -0.20860538f, -0.15053082f, 0.09120187f, 0.24278517f, -0.12222792f}};
}

LstmGolden golden_cifg_peephole() {
  return {true,
          {},
          {-0.55291498f, -0.42866567f, 0.13056988f, -0.3633365f, -0.22755712f, 0.28253698f, 0.24407166f,
           0.33826375f},
          {-0.49770179f, -0.27711356f, -0.09624726f, 0.05100781f, 0.04717243f, 0.48944736f, -0.38535351f,
           -0.17212132f},
          {0.10725588f, -0.02335852f, -0.55932593f, -0.09426838f, -0.44257352f, 0.54939759f, 0.01533556f,
           0.42751634f},
          {},
          {-0.13832897f, -0.0515101f, -0.2359007f, -0.16661474f, -0.14340827f, 0.36986142f, 0.23414481f,
           0.55899f, 0.10798943f, -0.41174671f, 0.17751795f, -0.34484994f, -0.35874045f, -0.11352962f,
           0.27268326f, 0.54058349f},
          {0.54066205f, -0.32668582f, -0.43562764f, -0.56094903f, 0.42957711f, 0.01841056f, -0.32764608f,
           -0.33027974f, -0.10826075f, 0.20675004f, 0.19069612f, -0.03026325f, -0.54532051f, 0.33003211f,
           0.44901288f, 0.21193194f},
          {0.41613156f, 0.42610586f, -0.16495961f, -0.5663873f, 0.30579174f, -0.05115908f, -0.33941799f,
           0.23364776f, 0.11178309f, 0.09481031f, -0.26424935f, 0.46261835f, 0.50248802f, 0.26114327f,
           -0.43736315f, 0.33149987f},
          {0.47485286f, -0.51955009f, -0.24458408f, 0.31544167f},
          {-0.17135078f, 0.82760304f, 0.85573703f, -0.77109635f},
          {},
          {-0.36444446f, -0.00352185f, 0.12886585f, -0.05163646f, -0.42312205f, -0.01218222f, 0.24201041f,
           -0.08124574f, -0.358325f, -0.04621704f, 0.21641694f, -0.06471302f}};
}

TEST(Lstm, TfliteGoldenVectors) {
  run_golden(golden_no_cifg());
  run_golden(golden_cifg_peephole());
}

// The 17 cell operands (LSTM inputs 1-17) of a golden case.
std::vector<uint32_t> golden_cell(GraphBuilder& g, const LstmGolden& v) {
  const uint32_t none = g.omitted(F32);
  auto m = [&](const std::vector<float>& d, uint32_t cols) {
    return d.empty() ? none : g.floats({4, cols}, d);
  };
  auto vec = [&](const std::vector<float>& d) { return d.empty() ? none : g.floats({4}, d); };
  return {m(v.w_i, 2),
          m(v.w_f, 2),
          m(v.w_c, 2),
          m(v.w_o, 2),
          m(v.r_i, 4),
          m(v.r_f, 4),
          m(v.r_c, 4),
          m(v.r_o, 4),
          none,
          vec(v.p_f),
          vec(v.p_o),
          vec(v.b_i),
          vec({1, 1, 1, 1}),
          vec({0, 0, 0, 0}),
          vec({0, 0, 0, 0}),
          none,
          none};
}

std::vector<float> golden_step(const LstmGolden& v, int step) {
  return std::vector<float>(v.golden.begin() + 4 * step, v.golden.begin() + 4 * step + 4);
}

// The TensorFlow Lite golden sequence as one UNIDIRECTIONAL_SEQUENCE_LSTM (batch major [1, 3, 2]): the
// three steps' outputs, and the final states equal the single-step LSTM's after three executions.
TEST(SequenceLstm, UnidirectionalTfliteGolden) {
  for (const LstmGolden& v : {golden_no_cifg(), golden_cifg_peephole()}) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1, 3, 2});
    std::vector<uint32_t> in{x};
    for (uint32_t o : golden_cell(g, v)) in.push_back(o);
    in.push_back(g.floats({1, 4}, {0, 0, 0, 0}));
    in.push_back(g.floats({1, 4}, {0, 0, 0, 0}));
    in.push_back(g.i32(4));
    in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
    in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
    in.push_back(g.boolean(false));
    const uint32_t y = g.output(F32, {});
    const uint32_t h = g.output(F32, {});
    const uint32_t c = g.output(F32, {});
    g.op(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, in, {y, h, c});
    auto r = run_ok(g.build(), {{x, float_tensor({1, 3, 2}, {2, 3, 3, 4, 1, 1})}});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r.at(y).dimensions, (std::vector<uint32_t>{1, 3, 4}));
    expect_floats_near(v.golden, r.at(y));
    expect_floats_near(golden_step(v, 2), r.at(h));
    EXPECT_EQ(r.at(c).dimensions, (std::vector<uint32_t>{1, 4}));
  }
}

// BIDIRECTIONAL_SEQUENCE_LSTM, time major, forward cell = the no-CIFG golden on x = (2,3), (3,4), (1,1);
// backward cell = the CIFG + peephole golden in parallel linking: it reads the auxiliary input, the
// same steps reversed, from t = 2 down to 0, so its outputs in time order are that golden's steps
// 2, 1, 0. Merged, each time step holds the forward then the backward 4 values.
TEST(SequenceLstm, BidirectionalTfliteGoldenParallelLinking) {
  const LstmGolden fwv = golden_no_cifg(), bwv = golden_cifg_peephole();
  for (bool merge : {false, true}) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {3, 1, 2});
    const uint32_t aux = g.input(F32, {3, 1, 2});
    std::vector<uint32_t> in{x};
    for (uint32_t o : golden_cell(g, fwv)) in.push_back(o);
    for (uint32_t o : golden_cell(g, bwv)) in.push_back(o);
    for (int k = 0; k < 4; ++k) in.push_back(g.floats({1, 4}, {0, 0, 0, 0}));
    in.push_back(aux);
    for (int k = 0; k < 8; ++k) in.push_back(g.omitted(F32));
    in.push_back(g.i32(4));
    in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
    in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
    in.push_back(g.boolean(merge));
    in.push_back(g.boolean(true));
    for (int k = 0; k < 8; ++k) in.push_back(g.omitted(F32));
    ASSERT_EQ(in.size(), 61u);
    std::vector<uint32_t> outs{g.output(F32, {})};
    if (!merge) outs.push_back(g.output(F32, {}));
    g.op(OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, in, outs);
    auto r = run_ok(g.build(), {{x, float_tensor({3, 1, 2}, {2, 3, 3, 4, 1, 1})},
                                {aux, float_tensor({3, 1, 2}, {1, 1, 3, 4, 2, 3})}});
    ASSERT_EQ(r.size(), outs.size());
    std::vector<float> bw_in_time;
    for (int step : {2, 1, 0}) {
      const auto s = golden_step(bwv, step);
      bw_in_time.insert(bw_in_time.end(), s.begin(), s.end());
    }
    if (!merge) {
      expect_floats_near(fwv.golden, r.at(outs[0]));
      expect_floats_near(bw_in_time, r.at(outs[1]));
    } else {
      std::vector<float> merged;
      for (int t = 0; t < 3; ++t) {
        merged.insert(merged.end(), fwv.golden.begin() + 4 * t, fwv.golden.begin() + 4 * t + 4);
        merged.insert(merged.end(), bw_in_time.begin() + 4 * t, bw_in_time.begin() + 4 * t + 4);
      }
      EXPECT_EQ(r.at(outs[0]).dimensions, (std::vector<uint32_t>{3, 1, 8}));
      expect_floats_near(merged, r.at(outs[0]));
    }
  }
}

// Layer-normalised LSTM (27 inputs), two units, one input x = 1 from zero states: every input weight
// column is [−1, 1], so every gate's pre-activation is [−1, 1]: mean 0, variance 1, normalised
// [−1, 1]/sqrt(1 + 1e−8). Layer-norm weights input 0.5, cell 2, output 1; output bias [0.5, 0], other
// biases 0: i = σ(∓0.5) = [0.377541, 0.622459], g = tanh(∓2) = ∓0.964028, c = i·g = [−0.363960,
// 0.600068], o = σ([−1 + 0.5, 1]) = [0.377541, 0.731059], h = o·tanh(c) = [−0.131647, 0.392650].
TEST(Lstm, LayerNormalisedHandWorked) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 1});
  const uint32_t none = g.omitted(F32);
  auto col = [&] { return g.floats({2, 1}, {-1, 1}); };
  auto rec = [&] { return g.floats({2, 2}, {0.3f, -0.2f, 0.1f, 0.4f}); };
  auto v2 = [&](float a, float b) { return g.floats({2}, {a, b}); };
  std::vector<uint32_t> in{x,
                           col(),
                           col(),
                           col(),
                           col(),
                           rec(),
                           rec(),
                           rec(),
                           rec(),
                           none,
                           none,
                           none,
                           v2(0, 0),
                           v2(0, 0),
                           v2(0, 0),
                           v2(0.5f, 0),
                           none,
                           none,
                           g.floats({1, 2}, {0, 0}),
                           g.floats({1, 2}, {0, 0}),
                           g.i32(4),
                           g.floats({}, {0.0f}, OperandType::FLOAT32),
                           g.floats({}, {0.0f}, OperandType::FLOAT32),
                           v2(0.5f, 0.5f),
                           v2(1, 1),
                           v2(2, 2),
                           v2(1, 1)};
  const uint32_t scratch = g.output(F32, {});
  const uint32_t h = g.output(F32, {1, 2});
  const uint32_t c = g.output(F32, {1, 2});
  const uint32_t out = g.output(F32, {1, 2});
  g.op(OperationType::LSTM, in, {scratch, h, c, out});
  auto r = run_ok(g.build(), {{x, float_tensor({1, 1}, {1})}});
  ASSERT_EQ(r.size(), 4u);
  expect_floats_near({-0.363960f, 0.600068f}, r.at(c));
  expect_floats_near({-0.131647f, 0.392650f}, r.at(out));
  // Layer-norm weights for some gates only.
  Model m = g.build();
  const uint32_t ln_cell = m.main.operations[0].inputs[25];
  m.main.operands[ln_cell].lifetime = Lifetime::NO_VALUE;
  m.main.operands[ln_cell].data.clear();
  EXPECT_EQ(validation_error(m),
            "operations[0] (LSTM): input 25 (cell layer norm weights): is required with layer normalisation");
}

TEST(SequenceLstm, ValidationNamesTheInput) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1, 3, 2});
  std::vector<uint32_t> in{x};
  for (uint32_t o : golden_cell(g, golden_no_cifg())) in.push_back(o);
  in.push_back(g.floats({1, 4}, {0, 0, 0, 0}));
  in.push_back(g.floats({1, 3}, {0, 0, 0}));  // cell state of the wrong width
  in.push_back(g.i32(4));
  in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
  in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
  in.push_back(g.boolean(false));
  g.op(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, in, {g.output(F32, {})});
  EXPECT_EQ(
      validation_error(g.build()),
      "operations[0] (UNIDIRECTIONAL_SEQUENCE_LSTM): input 19 (cell state in): expected shape [1, 4], got "
      "[1,3]");
}

TEST(Lstm, PartialCifgIsRejected) {
  LstmModel m = lstm(false, false, false, 0, 0);
  // Omit only the input-to-input weights.
  const uint32_t w = m.model.main.operations[0].inputs[1];
  m.model.main.operands[w].lifetime = Lifetime::NO_VALUE;
  m.model.main.operands[w].data.clear();
  EXPECT_EQ(
      validation_error(m.model),
      "operations[0] (LSTM): input 1 (input-to-input weights): inputs 1, 5 and 12 must be all present or "
      "all omitted (CIFG)");
}

}  // namespace
}  // namespace npu::hal::ops::test
