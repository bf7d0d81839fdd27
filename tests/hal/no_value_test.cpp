// Request arguments with no value (NNAPI RequestArgument::hasNoValue): an optional operation input that
// is a graph input may be left out at execution, on the CPU device and on the NPU device (whose CPU
// stages then see the operand as omitted); an input the operation needs is refused with INVALID_ARGUMENT
// naming the operation, its input and the operand. Expected values are worked by hand below.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../hal_ops/test_models.h"
#include "npu/models/io_json.h"
#include "npu/models/tensor.h"
#include "npu/system/system.h"

namespace {

using npu::hal::ops::test::float_tensor;
using npu::hal::ops::test::floats_of;
using npu::hal::ops::test::GraphBuilder;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;

// NNAPI's fp32 tolerance.
void expect_near(float want, const Tensor& got, const std::string& what) {
  const std::vector<float> v = floats_of(got);
  ASSERT_EQ(v.size(), 1u) << what;
  EXPECT_LE(std::fabs(v[0] - want), 1e-5 + 5 * 1.1920929e-7 * std::fabs(want)) << what << ": got " << v[0];
}

// One-unit, one-input LSTM (no CIFG) whose peephole weights (inputs 9-11) and projection weights and
// bias (16, 17) are graph inputs, so an execution may give them or leave them out. Weights per gate
// (input, forget, cell, output): input-to-* 0.5, 1, 1.5, -1; recurrent-to-* 0.25, 0.5, -0.5, 1;
// biases 0.1, 1, 0, -0.2; tanh activation, no clipping.
struct Lstm {
  Model model;
  uint32_t x, h, c, peep[3], proj_w, proj_b, h_out, c_out, out;
};

Lstm lstm_with_optional_inputs() {
  GraphBuilder g;
  Lstm m{};
  auto w = [&](float v) { return g.floats({1, 1}, {v}); };
  auto v1 = [&](float v) { return g.floats({1}, {v}); };
  m.x = g.input(F32, {1, 1});
  for (uint32_t& p : m.peep) p = g.input(F32, {1});
  m.proj_w = g.input(F32, {1, 1});
  m.proj_b = g.input(F32, {1});
  m.h = g.input(F32, {1, 1});
  m.c = g.input(F32, {1, 1});
  const std::vector<uint32_t> in{m.x,
                                 w(0.5f),
                                 w(1.0f),
                                 w(1.5f),
                                 w(-1.0f),
                                 w(0.25f),
                                 w(0.5f),
                                 w(-0.5f),
                                 w(1.0f),
                                 m.peep[0],
                                 m.peep[1],
                                 m.peep[2],
                                 v1(0.1f),
                                 v1(1.0f),
                                 v1(0.0f),
                                 v1(-0.2f),
                                 m.proj_w,
                                 m.proj_b,
                                 m.h,
                                 m.c,
                                 g.i32(4),
                                 g.floats({}, {0.0f}, OperandType::FLOAT32),
                                 g.floats({}, {0.0f}, OperandType::FLOAT32)};
  const uint32_t scratch = g.output(F32, {1, 4});
  m.h_out = g.output(F32, {1, 1});
  m.c_out = g.output(F32, {1, 1});
  m.out = g.output(F32, {1, 1});
  g.op(OperationType::LSTM, in, {scratch, m.h_out, m.c_out, m.out});
  m.model = g.build();
  return m;
}

npu::hal::TensorMap lstm_inputs(const Lstm& m, bool omit_optional) {
  const auto& ops = m.model.main.operands;
  npu::hal::TensorMap in{{m.x, float_tensor({1, 1}, {0.8f})},
                         {m.h, float_tensor({1, 1}, {-0.6f})},
                         {m.c, float_tensor({1, 1}, {1.5f})}};
  const float peep[3] = {0.1f, 0.2f, 0.3f};
  for (int i = 0; i < 3; ++i)
    in[m.peep[i]] =
        omit_optional ? npu::models::no_value_tensor(ops[m.peep[i]]) : float_tensor({1}, {peep[i]});
  in[m.proj_w] = omit_optional ? npu::models::no_value_tensor(ops[m.proj_w]) : float_tensor({1, 1}, {2.0f});
  in[m.proj_b] = omit_optional ? npu::models::no_value_tensor(ops[m.proj_b]) : float_tensor({1}, {0.5f});
  return in;
}

// SVDF (rank 1, 2 units, memory 3) with the bias a graph input. Input [3, 1], weights_feature
// [[1, 1], [1, -1]] give the new state column [4, 2]; states f0 [1, 2, 4], f1 [4, 5, 2] dotted with
// weights_time [1, 2, 3] and [0, 0, 1] give 17 and 2; plus the bias [0.5, 0] when given.
struct Svdf {
  Model model;
  uint32_t x, bias, state, state_out, out;
};

Svdf svdf_with_bias_input() {
  GraphBuilder g;
  Svdf m{};
  m.x = g.input(F32, {1, 2});
  m.bias = g.input(F32, {2});
  m.state = g.input(F32, {1, 6});
  m.state_out = g.output(F32, {1, 6});
  m.out = g.output(F32, {1, 2});
  g.op(OperationType::SVDF,
       {m.x, g.floats({2, 2}, {1, 1, 1, -1}), g.floats({2, 3}, {1, 2, 3, 0, 0, 1}), m.bias, m.state, g.i32(1),
        g.i32(0)},
       {m.state_out, m.out});
  m.model = g.build();
  return m;
}

npu::hal::ExecutionResult run_on(npu::hal::Device& dev, const Model& model, const npu::hal::TensorMap& in,
                                 std::string* placement = nullptr) {
  auto p = dev.prepare_model(model);
  EXPECT_TRUE(p.status.ok()) << p.status.message;
  if (!p.status.ok()) return {};
  if (placement) *placement = p.model->placement();
  return p.model->execute_synchronously(in, false);
}

void on_phone(const std::function<void(npu::system::System&)>& app) {
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run(app);
  ASSERT_TRUE(end.ok()) << end.error();
}

// x 0.8, h -0.6, c 1.5.
//  omitted (no peephole, no projection): f = σ(0.8 − 0.3 + 1) = σ(1.5) = 0.817574,
//    i = σ(0.4 − 0.15 + 0.1) = σ(0.35) = 0.586618, g = tanh(1.2 + 0.3) = 0.905148,
//    c = 0.817574·1.5 + 0.586618·0.905148 = 1.757338, o = σ(−0.8 − 0.6 − 0.2) = σ(−1.6) = 0.167982,
//    h = o·tanh(c) = 0.158273.
//  given (peephole 0.1, 0.2, 0.3; projection 2, bias 0.5): f = σ(1.5 + 0.3) = 0.858149,
//    i = σ(0.35 + 0.15) = 0.622459, c = 0.858149·1.5 + 0.622459·0.905148 = 1.850641,
//    o = σ(−1.6 + 0.3·1.850641) = 0.260223, h = 2·o·tanh(c) + 0.5 = 0.995365.
TEST(HalNoValue, LstmPeepholeAndProjectionOmittedAtExecution) {
  const Lstm m = lstm_with_optional_inputs();
  on_phone([&](npu::system::System& s) {
    for (bool npu : {false, true}) {
      npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
      const std::string where = npu ? "npu" : "cpu";
      for (bool omit : {true, false}) {
        std::string placement;
        auto r = run_on(dev, m.model, lstm_inputs(m, omit), &placement);
        ASSERT_TRUE(r.status.ok()) << where << ": " << r.status.message;
        if (npu) {
          EXPECT_EQ(placement, "npu + cpu (1 of 1 operations on the CPU)");
        }
        expect_near(omit ? 1.757338f : 1.850641f, r.outputs.at(m.c_out), where + " cell state");
        expect_near(omit ? 0.158273f : 0.995365f, r.outputs.at(m.out), where + " output");
        expect_near(omit ? 0.158273f : 0.995365f, r.outputs.at(m.h_out), where + " output state");
      }
    }
  });
}

TEST(HalNoValue, SvdfBiasOmittedAtExecution) {
  const Svdf m = svdf_with_bias_input();
  on_phone([&](npu::system::System& s) {
    for (bool npu : {false, true}) {
      npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
      for (bool omit : {true, false}) {
        npu::hal::TensorMap in{{m.x, float_tensor({1, 2}, {3, 1})},
                               {m.state, float_tensor({1, 6}, {1, 2, 9, 4, 5, 6})}};
        in[m.bias] = omit ? npu::models::no_value_tensor(m.model.main.operands[m.bias])
                          : float_tensor({2}, {0.5f, 0.0f});
        auto r = run_on(dev, m.model, in);
        ASSERT_TRUE(r.status.ok()) << r.status.message;
        const std::vector<float> out = floats_of(r.outputs.at(m.out));
        EXPECT_EQ(out, (omit ? std::vector<float>{17, 2} : std::vector<float>{17.5f, 2})) << npu;
        EXPECT_EQ(floats_of(r.outputs.at(m.state_out)), (std::vector<float>{2, 4, 0, 5, 2, 0})) << npu;
      }
    }
  });
}

// A required input (the input-to-forget weights, made a graph input) given no value, and a peephole set
// given only in part: refused on both devices, the message naming operation, input and operand.
TEST(HalNoValue, RequiredInputWithoutValueIsRejected) {
  Lstm m = lstm_with_optional_inputs();
  // Make input 2 (input-to-forget weights) a graph input.
  const uint32_t forget = m.model.main.operations[0].inputs[2];
  m.model.main.operands[forget].lifetime = npu::models::Lifetime::SUBGRAPH_INPUT;
  m.model.main.operands[forget].data.clear();
  m.model.main.input_indexes.push_back(forget);
  on_phone([&](npu::system::System& s) {
    for (bool npu : {false, true}) {
      npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
      auto in = lstm_inputs(m, false);
      in[forget] = npu::models::no_value_tensor(m.model.main.operands[forget]);
      auto r = run_on(dev, m.model, in);
      EXPECT_EQ(r.status.code, npu::hal::ErrorStatus::INVALID_ARGUMENT);
      EXPECT_EQ(r.status.message,
                "operations[0] (LSTM): input 2 (input-to-forget weights): is required but has no value "
                "(NO_VALUE) [no value in the request: operand " +
                    std::to_string(forget) + "]");
      in = lstm_inputs(m, false);
      in[forget] = float_tensor({1, 1}, {1.0f});
      in[m.peep[0]] = npu::models::no_value_tensor(m.model.main.operands[m.peep[0]]);
      r = run_on(dev, m.model, in);
      EXPECT_EQ(r.status.code, npu::hal::ErrorStatus::INVALID_ARGUMENT);
      EXPECT_EQ(r.status.message,
                "operations[0] (LSTM): input 9 (cell-to-input weights): is required with peephole "
                "connections [no value in the request: operand " +
                    std::to_string(m.peep[0]) + "]");
    }
  });
}

// An operation the NPU runs (ADD) reading an input given no value: ADD has no optional input, so the
// operation-level check refuses it before anything runs.
TEST(HalNoValue, NpuOperationInputWithoutValueIsRejected) {
  GraphBuilder g;
  const uint32_t a = g.input(F32, {4});
  const uint32_t b = g.input(F32, {4});
  const uint32_t out = g.output(F32, {4});
  g.op(OperationType::ADD, {a, b, g.i32(0)}, {out});
  const Model model = g.build();
  on_phone([&](npu::system::System& s) {
    std::string placement;
    auto r = run_on(
        s.npu_device(), model,
        {{a, float_tensor({4}, {1, 2, 3, 4})}, {b, npu::models::no_value_tensor(model.main.operands[b])}},
        &placement);
    EXPECT_EQ(placement, "npu");
    EXPECT_EQ(r.status.code, npu::hal::ErrorStatus::INVALID_ARGUMENT);
    EXPECT_EQ(
        r.status.message,
        "operations[0] (ADD): input 1 (input2): is required but has no value (NO_VALUE) [no value in the "
        "request: operand 1]");
  });
}

// A two-unit LSTM in its NN HAL 1.2 form (27 inputs) whose four layer-normalisation weights (inputs
// 23-26) are graph inputs, given in an inputs file or left out there with null. Peephole and projection
// are omitted in the model. x = 2, h = [0, 0], c = [1, -1]; input-to-* weights [2, 1] make the
// pre-activations (h = 0: the recurrent weights add nothing) input [2, 4], forget [-2, 2], cell
// [1, 0.5], output [2, -2]; biases input 0, forget [1, 1], cell 0, output 0.
//  null (no layer norm): i = σ([2, 4]) = [0.880797, 0.982014], f = σ([-1, 3]) = [0.268941, 0.952574],
//    g = tanh([1, 0.5]) = [0.761594, 0.462117], o = σ([2, -2]) = [0.880797, 0.119203],
//    c = f·c + i·g = [0.268941 + 0.670813, -0.952574 + 0.453806] = [0.939751, -0.498769],
//    h = o·tanh(c) = [0.647481, -0.054970].
//  given (weights input [1, 1], forget [0.5, 0.5], cell [1, 2], output [1, 1]): two values normalise to
//    ∓1 (their mean is midway, their deviation half the gap; the 1e-8 in the variance is below the
//    tolerance), then times the weights plus the bias: i σ([-1, 1]) = [0.268941, 0.731059],
//    f σ([-0.5, 0.5] + 1) = [0.622459, 0.817574], g tanh([1, -2]) = [0.761594, -0.964028],
//    o σ([1, -1]) = [0.731059, 0.268941], c = [0.622459 + 0.204824, -0.817574 - 0.704762]
//    = [0.827284, -1.522335], h = o·tanh(c) = [0.496400, -0.244496].
struct LayerNormLstm {
  Model model;
  uint32_t x, h, c, ln[4], h_out, c_out, out;
};

LayerNormLstm lstm_with_layer_norm_inputs() {
  GraphBuilder g;
  LayerNormLstm m{};
  m.x = g.input(F32, {1, 1});
  m.h = g.input(F32, {1, 2});
  m.c = g.input(F32, {1, 2});
  for (uint32_t& l : m.ln) l = g.input(F32, {2});
  auto col = [&](float a, float b) { return g.floats({2, 1}, {a, b}); };
  auto vec = [&](float a) { return g.floats({2}, {a, a}); };
  std::vector<uint32_t> in{m.x, col(1, 2), col(-1, 1), col(0.5f, 0.25f), col(1, -1)};
  for (int k = 0; k < 4; ++k) in.push_back(g.floats({2, 2}, {0.5f, -0.5f, 0.25f, 1}));
  for (int k = 0; k < 3; ++k) in.push_back(g.omitted(F32));
  for (float b : {0.0f, 1.0f, 0.0f, 0.0f}) in.push_back(vec(b));
  in.push_back(g.omitted(F32));
  in.push_back(g.omitted(F32));
  in.push_back(m.h);
  in.push_back(m.c);
  in.push_back(g.i32(4));
  in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
  in.push_back(g.floats({}, {0.0f}, OperandType::FLOAT32));
  for (uint32_t l : m.ln) in.push_back(l);
  const uint32_t scratch = g.output(F32, {1, 8});
  m.h_out = g.output(F32, {1, 2});
  m.c_out = g.output(F32, {1, 2});
  m.out = g.output(F32, {1, 2});
  g.op(OperationType::LSTM, in, {scratch, m.h_out, m.c_out, m.out});
  m.model = g.build();
  return m;
}

// The inputs file of the layer-norm LSTM: the weights given or null (`null_from`: the first of the four
// written as null, 4 for none).
nlohmann::json layer_norm_inputs_file(const LayerNormLstm& m, int null_from) {
  nlohmann::json doc = {
      {std::to_string(m.x), {2}}, {std::to_string(m.h), {0, 0}}, {std::to_string(m.c), {1, -1}}};
  const std::vector<float> w[4] = {{1, 1}, {0.5f, 0.5f}, {1, 2}, {1, 1}};
  for (int k = 0; k < 4; ++k)
    doc[std::to_string(m.ln[k])] = k >= null_from ? nlohmann::json(nullptr) : nlohmann::json(w[k]);
  return doc;
}

void expect_pair(const std::vector<float>& want, const Tensor& got, const std::string& what) {
  const std::vector<float> v = floats_of(got);
  ASSERT_EQ(v.size(), want.size()) << what;
  for (size_t k = 0; k < v.size(); ++k)
    EXPECT_LE(std::fabs(v[k] - want[k]), 1e-5 + 5 * 1.1920929e-7 * std::fabs(want[k]))
        << what << "[" << k << "]: got " << v[k] << ", want " << want[k];
}

TEST(HalNoValue, LstmLayerNormWeightsNullInTheInputsFile) {
  const LayerNormLstm m = lstm_with_layer_norm_inputs();
  on_phone([&](npu::system::System& s) {
    for (bool npu : {false, true}) {
      npu::hal::Device& dev = npu ? static_cast<npu::hal::Device&>(s.npu_device()) : s.cpu_device();
      const std::string where = npu ? "npu" : "cpu";
      for (bool omit : {true, false}) {
        auto in = npu::models::parse_io_json(layer_norm_inputs_file(m, omit ? 0 : 4), "in.json", m.model);
        ASSERT_TRUE(in.ok()) << in.error();
        EXPECT_EQ(in->at(m.ln[2]).has_no_value, omit);
        auto r = run_on(dev, m.model, *in);
        ASSERT_TRUE(r.status.ok()) << where << ": " << r.status.message;
        expect_pair(
            omit ? std::vector<float>{0.939751f, -0.498769f} : std::vector<float>{0.827284f, -1.522335f},
            r.outputs.at(m.c_out), where + " cell state");
        expect_pair(
            omit ? std::vector<float>{0.647481f, -0.054970f} : std::vector<float>{0.496400f, -0.244496f},
            r.outputs.at(m.out), where + " output");
        expect_pair(
            omit ? std::vector<float>{0.647481f, -0.054970f} : std::vector<float>{0.496400f, -0.244496f},
            r.outputs.at(m.h_out), where + " output state");
      }
      // The forget gate's weights given (so layer normalisation is on) and the output gate's null: refused,
      // naming input 26.
      auto in = npu::models::parse_io_json(layer_norm_inputs_file(m, 3), "in.json", m.model);
      ASSERT_TRUE(in.ok()) << in.error();
      auto r = run_on(dev, m.model, *in);
      EXPECT_EQ(r.status.code, npu::hal::ErrorStatus::INVALID_ARGUMENT) << where;
      EXPECT_EQ(r.status.message.rfind("operations[0] (LSTM): input 26 (", 0), 0u)
          << where << ": " << r.status.message;
      EXPECT_NE(
          r.status.message.find("is required with layer normalisation [no value in the request: operand " +
                                std::to_string(m.ln[3]) + "]"),
          std::string::npos)
          << where << ": " << r.status.message;
    }
  });
}

// The inputs file says "no value" with null; an expected-outputs file cannot.
TEST(HalNoValue, InputsFileNull) {
  const Svdf m = svdf_with_bias_input();
  const nlohmann::json doc = {{std::to_string(m.x), {3, 1}},
                              {std::to_string(m.bias), nullptr},
                              {std::to_string(m.state), {1, 2, 9, 4, 5, 6}}};
  auto in = npu::models::parse_io_json(doc, "in.json", m.model);
  ASSERT_TRUE(in.ok()) << in.error();
  EXPECT_TRUE(in->at(m.bias).has_no_value);
  EXPECT_FALSE(in->at(m.x).has_no_value);
  EXPECT_TRUE(npu::models::io_to_json(*in)[std::to_string(m.bias)].is_null());
  auto out = npu::models::parse_io_json({{std::to_string(m.out), nullptr}}, "out.json", m.model,
                                        npu::models::IoRole::Outputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "out.json: $[\"" + std::to_string(m.out) + "\"]: an expected output cannot be null");
}

}  // namespace
