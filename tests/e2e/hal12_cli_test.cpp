// NNAPI 1.2 operations through the whole stack as a user runs them: one small model with
// TRANSPOSE_CONV_2D → GROUPED_CONV_2D, an SVDF whose bias is left out at execution (`null` in the inputs
// file) and a UNIDIRECTIONAL_SEQUENCE_RNN, written as model and inputs JSON and run by `npusim run` on
// the CPU device and on the NPU device (which runs them as CPU stages and logs why). Every expected value
// is worked by hand below; both devices must give them.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../hal_ops/test_models.h"
#include "../support/private_work_dir.h"
#include "../support/run_npusim.h"
#include "npu/models/model_json.h"

namespace {

using npu::hal::ops::test::GraphBuilder;
using npu::models::OperandType;
using npu::models::OperationType;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
npu::test::PrivateWorkDir work_dir;

struct Ids {
  uint32_t x, grouped, svdf_x, svdf_bias, svdf_state, svdf_state_out, svdf_out, rnn_x, rnn_h, rnn_out;
};

// TRANSPOSE_CONV_2D, stride 1, no padding, of x = [1 2; 3 4] with filter channel 0 = [1 2; 3 4] (bias
// 0.5) and channel 1 = its negation (bias −0.5): channel 0 = [1 4 4; 6 20 16; 9 24 16] + 0.5, channel
// 1 = −(that). GROUPED_CONV_2D, 2 groups, 1×1 filters 2 and 3, bias 0 and 1: out0 = 2·t0, out1 = 3·t1 + 1.
// SVDF and RNN: the hand-worked cases of tests/hal/no_value_test.cpp and tests/hal_ops/sequence_test.cpp.
npu::models::Model build(Ids* id) {
  GraphBuilder g;
  id->x = g.input(F32, {1, 2, 2, 1});
  const uint32_t t = g.temp(F32, {1, 3, 3, 2});
  g.op(OperationType::TRANSPOSE_CONV_2D,
       {id->x, g.floats({2, 2, 2, 1}, {1, 2, 3, 4, -1, -2, -3, -4}), g.floats({2}, {0.5f, -0.5f}), g.i32(0), g.i32(0),
        g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0), g.boolean(false)},
       {t});
  id->grouped = g.output(F32, {1, 3, 3, 2});
  g.op(OperationType::GROUPED_CONV_2D,
       {t, g.floats({2, 1, 1, 1}, {2, 3}), g.floats({2}, {0, 1}), g.i32(2), g.i32(1), g.i32(1), g.i32(2), g.i32(0),
        g.boolean(false)},
       {id->grouped});
  id->svdf_x = g.input(F32, {1, 2});
  id->svdf_bias = g.input(F32, {2});
  id->svdf_state = g.input(F32, {1, 6});
  id->svdf_state_out = g.output(F32, {1, 6});
  id->svdf_out = g.output(F32, {1, 2});
  g.op(OperationType::SVDF,
       {id->svdf_x, g.floats({2, 2}, {1, 1, 1, -1}), g.floats({2, 3}, {1, 2, 3, 0, 0, 1}), id->svdf_bias,
        id->svdf_state, g.i32(1), g.i32(0)},
       {id->svdf_state_out, id->svdf_out});
  id->rnn_x = g.input(F32, {1, 3, 1});
  id->rnn_h = g.input(F32, {1, 1});
  id->rnn_out = g.output(F32, {1, 3, 1});
  g.op(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN,
       {id->rnn_x, g.floats({1, 1}, {1}), g.floats({1, 1}, {0.5f}), g.floats({1}, {0}), id->rnn_h, g.i32(0), g.i32(0)},
       {id->rnn_out});
  return g.build();
}

std::vector<float> floats(const nlohmann::json& j) { return j.get<std::vector<float>>(); }

void expect_near(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_LE(std::fabs(want[i] - got[i]), 1e-5 + 5 * 1.1920929e-7 * std::fabs(want[i])) << what << " [" << i << "]";
}

TEST(Hal12Cli, TransposeGroupedSvdfRnnOnBothDevices) {
  Ids id{};
  const npu::models::Model model = build(&id);
  ASSERT_TRUE(npu::models::save_model_json(model, "m.json").ok());
  nlohmann::json in;
  in[std::to_string(id.x)] = {1, 2, 3, 4};
  in[std::to_string(id.svdf_x)] = {3, 1};
  in[std::to_string(id.svdf_bias)] = nullptr;  // omitted at execution
  in[std::to_string(id.svdf_state)] = {1, 2, 9, 4, 5, 6};
  in[std::to_string(id.rnn_x)] = {1, 2, 3};
  in[std::to_string(id.rnn_h)] = {0};
  std::ofstream("in.json") << in.dump();
  const std::vector<float> t0{1.5f, 4.5f, 4.5f, 6.5f, 20.5f, 16.5f, 9.5f, 24.5f, 16.5f};
  std::vector<float> grouped;
  for (float v : t0) {
    grouped.push_back(2 * v);
    grouped.push_back(3 * -v + 1);
  }
  for (const std::string device : {"cpu", "npu"}) {
    const auto r = npu::test::npusim("--log compilation run --device " + device + " --model m.json --inputs in.json --outputs " +
                                     device + ".json --hw " NPUSIM_SOURCE_DIR "/configs/npu/default.json");
    ASSERT_EQ(r.status, 0) << r.output;
    if (device == "npu") {
      EXPECT_NE(r.output.find("placement       npu + cpu (4 of 4 operations on the CPU)"), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("operations[0] (TRANSPOSE_CONV_2D) runs on the CPU: TRANSPOSE_CONV_2D has no NPU lowering"),
                std::string::npos)
          << r.output;
    }
    nlohmann::json out;
    std::ifstream(device + ".json") >> out;
    expect_near(grouped, floats(out[std::to_string(id.grouped)]), device + " grouped");
    expect_near({17, 2}, floats(out[std::to_string(id.svdf_out)]), device + " svdf");
    expect_near({2, 4, 0, 5, 2, 0}, floats(out[std::to_string(id.svdf_state_out)]), device + " svdf state");
    expect_near({1, 2.5f, 4.25f}, floats(out[std::to_string(id.rnn_out)]), device + " rnn");
  }
}

}  // namespace
