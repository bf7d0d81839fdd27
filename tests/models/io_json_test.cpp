// Inputs/outputs JSON: keys, counts, ranges, the object form for unknown shapes, and writing back.
#include "npu/models/io_json.h"

#include <gtest/gtest.h>

#include <cstring>

#include "npu/models/model_json.h"

namespace npu::models {
namespace {

using nlohmann::json;

// Graph inputs 0 (quant8 [2,2]) and 1 (float, unknown batch [0,3]); output 2 (float [2]).
Model io_model() {
  auto m = parse_model_json(json::parse(R"({
    "operands": [
      {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [2, 2], "scale": 0.5, "zeroPoint": 128, "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [0, 3], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}
    ],
    "operations": [{"type": "ADD", "inputs": [0, 1], "outputs": [2]}],
    "inputIndexes": [0, 1], "outputIndexes": [2]})"),
                            "m.json", "");
  EXPECT_TRUE(m.ok()) << m.error();
  return m.ok() ? std::move(m.value()) : Model{};
}

std::string io_error(const char* text, IoRole role = IoRole::Inputs) {
  const Model m = io_model();
  auto r = parse_io_json(json::parse(text), "in.json", m, role);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string("<parsed>") : r.error();
}

TEST(IoJson, ReadsFlatValuesAndTheObjectForm) {
  const Model m = io_model();
  auto r = parse_io_json(
      json::parse(R"({"0": [0, 128, 255, 7], "1": {"dimensions": [2, 3], "data": [1, 2, 3, 4, 5, 6.5]}})"),
      "in.json", m);
  ASSERT_TRUE(r.ok()) << r.error();
  const Tensor& q = r->at(0);
  EXPECT_EQ(q.type, OperandType::TENSOR_QUANT8_ASYMM);
  EXPECT_EQ(q.dimensions, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(q.data, (std::vector<uint8_t>{0, 128, 255, 7}));
  EXPECT_EQ(q.scale, 0.5f);
  EXPECT_EQ(q.zero_point, 128);
  const Tensor& f = r->at(1);
  EXPECT_EQ(f.dimensions, (std::vector<uint32_t>{2, 3}));
  ASSERT_EQ(f.data.size(), 24u);
  float last = 0;
  std::memcpy(&last, f.data.data() + 20, 4);
  EXPECT_EQ(last, 6.5f);
  // Written back: flat arrays, or with dimensions on request.
  EXPECT_EQ(io_to_json(*r).dump(), R"({"0":[0,128,255,7],"1":[1,2,3,4,5,6.5]})");
  EXPECT_EQ(io_to_json(*r, true)["1"].dump(), R"({"data":[1,2,3,4,5,6.5],"dimensions":[2,3]})");
}

// npusim stamps the files it writes with the build under "npusim" (npu::kBuildKey); reading one back
// skips it, and anything but an object there is an error naming the key.
TEST(IoJson, TheBuildKeyIsSkipped) {
  const Model m = io_model();
  auto r = parse_io_json(
      json::parse(
          R"({"npusim": {"version": "0.1.0", "git": "abc"}, "0": [0, 1, 2, 3], "1": {"dimensions": [1, 3], "data": [1, 2, 3]}})"),
      "in.json", m);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->size(), 2u);
  EXPECT_EQ(
      io_error(R"({"npusim": "0.1.0", "0": [0, 1, 2, 3], "1": {"dimensions": [1, 3], "data": [1, 2, 3]}})"),
      "in.json: $[\"npusim\"]: expected the object naming the npusim build that wrote the file, got "
      "\"0.1.0\"");
}

TEST(IoJson, Errors) {
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 3], "1": {"dimensions": [1, 3], "data": [1, 2, 3]}, "2": [1, 2]})"),
            "in.json: $[\"2\"]: operand 2 is not a graph input (graph inputs: 0, 1)");
  EXPECT_EQ(io_error(R"({"x": []})"), "in.json: $[\"x\"]: key must be an operand index (decimal integer)");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2]})"),
            "in.json: $[\"0\"]: expected 4 values for operand 0 (TENSOR_QUANT8_ASYMM [2,2]), got 3");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 300]})"),
            "in.json: $[\"0\"][3]: expected an integer in [0, 255] for TENSOR_QUANT8_ASYMM, got 300");
  EXPECT_EQ(
      io_error(R"({"0": [0, 1, 2, 3], "1": [1, 2, 3]})"),
      "in.json: $[\"1\"]: operand 1 has dimensions [0,3] with unknown extents; give {\"dimensions\": [...], "
      "\"data\": [...]}");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 3], "1": {"dimensions": [2, 4], "data": []}})"),
            "in.json: $[\"1\"].dimensions: dimensions [2,4] do not match operand 1's [0,3]");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 3], "1": {"dimensions": [1, 3], "data": [1, 2]}})"),
            "in.json: $[\"1\"].data: expected 3 values for operand 1 (TENSOR_FLOAT32 [1,3]), got 2");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 3]})"), "in.json: $: missing graph input 1 (graph inputs: 0, 1)");
  EXPECT_EQ(io_error(R"([1])"), "in.json: $: expected an object keyed by operand index, got [1]");
  EXPECT_EQ(io_error(R"({"0": [0, 1, 2, 3]})", IoRole::Outputs),
            "in.json: $[\"0\"]: operand 0 is not a graph output (graph outputs: 2)");
}

TEST(IoJson, OutputsFileMayListASubset) {
  const Model m = io_model();
  auto r = parse_io_json(json::parse(R"({"2": [0.5, -1]})"), "out.json", m, IoRole::Outputs);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->at(2).data.size(), 8u);
}

TEST(IoJson, MissingFileNamesIt) {
  auto r = load_io_json("/nonexistent/in.json", io_model());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "/nonexistent/in.json: cannot open: No such file or directory");
}

}  // namespace
}  // namespace npu::models
