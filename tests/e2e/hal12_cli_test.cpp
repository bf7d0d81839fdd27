// NNAPI 1.2 operations through the whole stack as a user runs them: a small model with
// TRANSPOSE_CONV_2D → GROUPED_CONV_2D, an SVDF whose bias is left out at execution (`null` in the inputs
// file) and a UNIDIRECTIONAL_SEQUENCE_RNN, written as model and inputs JSON and run by `npusim run` on
// the CPU device and on the NPU device (TRANSPOSE_CONV_2D and GROUPED_CONV_2D on the MAC array, the rest as
// CPU stages with the reason logged). Every expected value
// is worked by hand below; both devices must give them. A second model does the same for the detection
// family and RANDOM_MULTINOMIAL.
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
       {id->x, g.floats({2, 2, 2, 1}, {1, 2, 3, 4, -1, -2, -3, -4}), g.floats({2}, {0.5f, -0.5f}), g.i32(0),
        g.i32(0), g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0), g.boolean(false)},
       {t});
  id->grouped = g.output(F32, {1, 3, 3, 2});
  g.op(OperationType::GROUPED_CONV_2D,
       {t, g.floats({2, 1, 1, 1}, {2, 3}), g.floats({2}, {0, 1}), g.i32(2), g.i32(1), g.i32(1), g.i32(2),
        g.i32(0), g.boolean(false)},
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
       {id->rnn_x, g.floats({1, 1}, {1}), g.floats({1, 1}, {0.5f}), g.floats({1}, {0}), id->rnn_h, g.i32(0),
        g.i32(0)},
       {id->rnn_out});
  return g.build();
}

std::vector<float> floats(const nlohmann::json& j) { return j.get<std::vector<float>>(); }

void expect_near(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_LE(std::fabs(want[i] - got[i]), 1e-5 + 5 * 1.1920929e-7 * std::fabs(want[i]))
        << what << " [" << i << "]";
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
    const auto r = npu::test::npusim("--log compilation run --device " + device +
                                     " --model m.json --inputs in.json --outputs " + device +
                                     ".json --hw " NPUSIM_SOURCE_DIR "/configs/npu/default.json");
    ASSERT_EQ(r.status, 0) << r.output;
    if (device == "npu") {
      EXPECT_NE(r.output.find("placement       npu + cpu (2 of 4 operations on the CPU)"), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("operations[2] (SVDF) runs on the CPU: SVDF has no NPU lowering"),
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

// The detection family and RANDOM_MULTINOMIAL the same way, with the hand-worked cases of
// tests/hal_ops/detection_test.cpp: ROI_ALIGN (4 × 4 ramp, roi [0,0,4,4], 2 × 2 bins of 2 × 2 samples)
// → 5, 6.75, 12, 13.75; ROI_POOLING of roi [0,0,3,3] → 5, 7, 13, 15; AXIS_ALIGNED_BBOX_TRANSFORM of
// [0,0,10,10] by (0,0,0,0) and (0.1,−0.2,0,0) in a 20 × 20 image → [0,0,10,10], [1,0,11,8];
// HEATMAP_MAX_KEYPOINT of the quadratic peak → score 10 at (13.4, 22.8); DETECTION_POSTPROCESSING
// (regular NMS) → 0.9, 0.85, 0.7 with labels 0, 1, 1; RANDOM_MULTINOMIAL of logits (100, 0): class 1 has
// probability e^−100, so all 8 draws are 0.
TEST(Hal12Cli, DetectionFamilyOnBothDevices) {
  GraphBuilder g;
  const uint32_t ramp = g.input(F32, {1, 4, 4, 1});
  const uint32_t align = g.output(F32, {1, 2, 2, 1});
  const uint32_t pool = g.output(F32, {1, 2, 2, 1});
  g.op(OperationType::ROI_ALIGN,
       {ramp, g.floats({1, 4}, {0, 0, 4, 4}), g.ints(OperandType::TENSOR_INT32, {1}, {0}), g.i32(2), g.i32(2),
        g.floats({}, {1.0f}, OperandType::FLOAT32), g.floats({}, {1.0f}, OperandType::FLOAT32), g.i32(2),
        g.i32(2), g.boolean(false)},
       {align});
  g.op(OperationType::ROI_POOLING,
       {ramp, g.floats({1, 4}, {0, 0, 3, 3}), g.ints(OperandType::TENSOR_INT32, {1}, {0}), g.i32(2), g.i32(2),
        g.floats({}, {1.0f}, OperandType::FLOAT32), g.floats({}, {1.0f}, OperandType::FLOAT32),
        g.boolean(false)},
       {pool});
  const uint32_t deltas = g.input(F32, {1, 8});
  const uint32_t bbox = g.output(F32, {1, 8});
  g.op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM,
       {g.floats({1, 4}, {0, 0, 10, 10}), deltas, g.ints(OperandType::TENSOR_INT32, {1}, {0}),
        g.floats({1, 2}, {20, 20})},
       {bbox});
  const uint32_t heat = g.input(F32, {1, 3, 3, 1});
  const uint32_t kp_scores = g.output(F32, {1, 1});
  const uint32_t kp = g.output(F32, {1, 1, 2});
  g.op(OperationType::HEATMAP_MAX_KEYPOINT, {heat, g.floats({1, 4}, {10, 20, 16, 26}), g.boolean(false)},
       {kp_scores, kp});
  const uint32_t cls_scores = g.input(F32, {1, 3, 3});
  const uint32_t det_scores = g.output(F32, {1, 3});
  const uint32_t det_boxes = g.output(F32, {1, 3, 4});
  const uint32_t det_classes = g.output(OperandType::TENSOR_INT32, {1, 3});
  const uint32_t det_count = g.output(OperandType::TENSOR_INT32, {1});
  auto f = [&](float v) { return g.floats({}, {v}, OperandType::FLOAT32); };
  g.op(OperationType::DETECTION_POSTPROCESSING,
       {cls_scores, g.floats({1, 3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 5 * std::log(2.0f), 0}),
        g.floats({3, 4}, {5, 5, 10, 10, 6, 6, 10, 10, 25, 25, 10, 10}), f(10), f(10), f(5), f(5),
        g.boolean(true), g.i32(3), g.i32(1), g.i32(2), f(0.5f), f(0.5f), g.boolean(false)},
       {det_scores, det_boxes, det_classes, det_count});
  const uint32_t logits = g.input(F32, {1, 2});
  const uint32_t draws = g.output(OperandType::TENSOR_INT32, {1, 8});
  g.op(OperationType::RANDOM_MULTINOMIAL, {logits, g.i32(8), g.ints(OperandType::TENSOR_INT32, {2}, {5, 6})},
       {draws});
  const npu::models::Model model = g.build();
  ASSERT_TRUE(npu::models::save_model_json(model, "det.json").ok());
  nlohmann::json in;
  std::vector<float> r, hm;
  for (int i = 0; i < 16; ++i) r.push_back(static_cast<float>(i));
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) hm.push_back(10.0f - (x - 1.2f) * (x - 1.2f) - (y - 0.9f) * (y - 0.9f));
  in[std::to_string(ramp)] = r;
  in[std::to_string(deltas)] = {0, 0, 0, 0, 0.1, -0.2, 0, 0};
  in[std::to_string(heat)] = hm;
  in[std::to_string(cls_scores)] = {0, 0.9, 0.1, 0, 0.8, 0.85, 0, 0.2, 0.7};
  in[std::to_string(logits)] = {100, 0};
  std::ofstream("det.in.json") << in.dump();
  for (const std::string device : {"cpu", "npu"}) {
    const auto run = npu::test::npusim("--log compilation run --device " + device +
                                       " --model det.json --inputs det.in.json --outputs det." + device +
                                       ".json --hw " NPUSIM_SOURCE_DIR "/configs/npu/default.json");
    ASSERT_EQ(run.status, 0) << run.output;
    if (device == "npu") {
      EXPECT_NE(run.output.find("placement       npu + cpu (6 of 6 operations on the CPU)"),
                std::string::npos)
          << run.output;
      EXPECT_NE(run.output.find("(ROI_ALIGN) runs on the CPU: ROI_ALIGN has no NPU lowering"),
                std::string::npos)
          << run.output;
    }
    nlohmann::json out;
    std::ifstream("det." + device + ".json") >> out;
    expect_near({5, 6.75f, 12, 13.75f}, floats(out[std::to_string(align)]), device + " roi align");
    expect_near({5, 7, 13, 15}, floats(out[std::to_string(pool)]), device + " roi pooling");
    expect_near({0, 0, 10, 10, 1, 0, 11, 8}, floats(out[std::to_string(bbox)]), device + " bbox");
    ASSERT_EQ(floats(out[std::to_string(kp_scores)]).size(), 1u);
    EXPECT_NEAR(floats(out[std::to_string(kp_scores)])[0], 10.0f, 1e-4) << device;
    const auto pt = floats(out[std::to_string(kp)]);
    ASSERT_EQ(pt.size(), 2u);
    EXPECT_NEAR(pt[0], 13.4f, 1e-4) << device;
    EXPECT_NEAR(pt[1], 22.8f, 1e-4) << device;
    expect_near({0.9f, 0.85f, 0.7f}, floats(out[std::to_string(det_scores)]), device + " detection scores");
    EXPECT_EQ(out[std::to_string(det_classes)].get<std::vector<int32_t>>(), (std::vector<int32_t>{0, 1, 1}))
        << device;
    EXPECT_EQ(out[std::to_string(det_count)].get<std::vector<int32_t>>(), (std::vector<int32_t>{3}))
        << device;
    EXPECT_EQ(out[std::to_string(draws)].get<std::vector<int32_t>>(), std::vector<int32_t>(8, 0)) << device;
  }
}

}  // namespace
