// Model JSON: round trip, side files, and the exact one-line error for each kind of mistake.
#include "npu/models/model_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace npu::models {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A conv model in the model JSON shape (AOSP conv_float: 3x3 input, 2x2 filter of 0.25).
json conv_doc() {
  return json::parse(R"({
    "operands": [
      {"type": "TENSOR_FLOAT32", "dimensions": [1, 3, 3, 1], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [1, 2, 2, 1], "lifetime": "CONSTANT_COPY",
       "data": [0.25, 0.25, 0.25, 0.25]},
      {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "data": [0]},
      {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 0},
      {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": [1]},
      {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": [0]},
      {"type": "TENSOR_FLOAT32", "dimensions": [1, 2, 2, 1], "lifetime": "SUBGRAPH_OUTPUT"}
    ],
    "operations": [{"type": "CONV_2D", "inputs": [0, 1, 2, 3, 3, 3, 3, 4, 4, 5], "outputs": [6]}],
    "inputIndexes": [0],
    "outputIndexes": [6]
  })");
}

std::string parse_error(const json& doc) {
  auto r = parse_model_json(doc, "m.json", "");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string("<parsed>") : r.error();
}

class ModelJsonFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("npusim_models_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST(ModelJson, ParsesTheSpecShape) {
  auto m = parse_model_json(conv_doc(), "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->main.operands.size(), 7u);
  const Operand& filter = m->main.operands[1];
  EXPECT_EQ(filter.type, OperandType::TENSOR_FLOAT32);
  EXPECT_EQ(filter.lifetime, Lifetime::CONSTANT_COPY);
  ASSERT_EQ(filter.data.size(), 16u);
  float f = 0;
  std::memcpy(&f, filter.data.data() + 12, 4);
  EXPECT_EQ(f, 0.25f);
  EXPECT_EQ(scalar_i32(m->main.operands[4]), 1);
  EXPECT_EQ(m->main.operations[0].type, OperationType::CONV_2D);
  EXPECT_EQ(m->main.operations[0].inputs.size(), 10u);
  EXPECT_EQ(m->main.input_indexes, std::vector<uint32_t>{0});
  EXPECT_EQ(m->main.output_indexes, std::vector<uint32_t>{6});
  EXPECT_FALSE(m->relax_computation_float32_to_float16);
}

// Every operand type, per-channel quantisation, referenced subgraphs and the relaxed flag survive
// to_json -> parse exactly (bytes included).
TEST(ModelJson, RoundTripIsExact) {
  json doc = json::parse(R"({
    "operands": [
      {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [2], "scale": 0.0078125, "zeroPoint": 128,
       "lifetime": "CONSTANT_COPY", "data": [0, 255]},
      {"type": "TENSOR_QUANT8_ASYMM_SIGNED", "dimensions": [2], "scale": 0.1, "zeroPoint": -5,
       "lifetime": "CONSTANT_REFERENCE", "data": [-128, 127]},
      {"type": "TENSOR_QUANT8_SYMM_PER_CHANNEL", "dimensions": [2, 1], "lifetime": "CONSTANT_COPY",
       "channelQuant": {"scales": [0.5, 0.25], "channelDim": 0}, "data": [-1, 3]},
      {"type": "TENSOR_FLOAT16", "dimensions": [3], "lifetime": "CONSTANT_COPY", "data": [1.5, -0.333251953125, 65504]},
      {"type": "TENSOR_FLOAT32", "dimensions": [4], "lifetime": "CONSTANT_COPY",
       "data": [0.1, -3.4028234663852886e38, "NaN", "-Infinity"]},
      {"type": "TENSOR_BOOL8", "dimensions": [3], "lifetime": "CONSTANT_COPY", "data": [true, false, 1]},
      {"type": "TENSOR_INT32", "dimensions": [2], "scale": 0.25, "lifetime": "CONSTANT_COPY",
       "data": [-2147483648, 2147483647]},
      {"type": "TENSOR_QUANT16_ASYMM", "dimensions": [1], "scale": 0.125, "zeroPoint": 65535,
       "lifetime": "CONSTANT_COPY", "data": [65535]},
      {"type": "UINT32", "lifetime": "CONSTANT_COPY", "data": 4294967295},
      {"type": "BOOL", "lifetime": "CONSTANT_COPY", "data": true},
      {"type": "FLOAT32", "lifetime": "CONSTANT_COPY", "data": 6},
      {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "subgraph": 0},
      {"type": "TENSOR_FLOAT32", "dimensions": [0, 4], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "lifetime": "SUBGRAPH_OUTPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "NO_VALUE"}
    ],
    "operations": [{"type": "WHILE", "inputs": [11, 11, 12], "outputs": [13]}],
    "inputIndexes": [12], "outputIndexes": [13],
    "relaxComputationFloat32toFloat16": true,
    "referenced": [{
      "operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                   {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
      "operations": [{"type": "RELU", "inputs": [0], "outputs": [1]}],
      "inputIndexes": [0], "outputIndexes": [1]}]
  })");
  auto m = parse_model_json(doc, "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  const json written = to_json(*m);
  auto again = parse_model_json(written, "again.json", "");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(to_json(*again), written);
  ASSERT_EQ(again->main.operands.size(), m->main.operands.size());
  for (size_t i = 0; i < m->main.operands.size(); ++i) {
    const Operand& a = m->main.operands[i];
    const Operand& b = again->main.operands[i];
    EXPECT_EQ(a.type, b.type) << i;
    EXPECT_EQ(a.dimensions, b.dimensions) << i;
    EXPECT_EQ(a.scale, b.scale) << i;
    EXPECT_EQ(a.zero_point, b.zero_point) << i;
    EXPECT_EQ(a.lifetime, b.lifetime) << i;
    EXPECT_EQ(a.data, b.data) << i;
    EXPECT_EQ(a.per_channel.has_value(), b.per_channel.has_value()) << i;
    EXPECT_EQ(a.subgraph, b.subgraph) << i;
  }
  EXPECT_TRUE(again->relax_computation_float32_to_float16);
  ASSERT_EQ(again->referenced.size(), 1u);
  EXPECT_EQ(again->referenced[0].operations[0].type, OperationType::RELU);
  // Floats print in their shortest form, not as widened doubles.
  EXPECT_EQ(written["operands"][4]["data"][0].dump(), "0.1");
  EXPECT_EQ(written["operands"][4]["data"][2], "NaN");
  EXPECT_EQ(written["operands"][3]["data"][2].dump(), "65504");
  EXPECT_EQ(written["operands"][2]["channelQuant"]["scales"].dump(), "[0.5,0.25]");
}

TEST_F(ModelJsonFiles, SaveAndLoadRoundTrip) {
  auto m = parse_model_json(conv_doc(), "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  const std::string path = (dir_ / "saved.json").string();
  ASSERT_TRUE(save_model_json(*m, path).ok());
  auto loaded = load_model_json(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(to_json(*loaded), to_json(*m));
  // Arrays of values stay on one line, so weight files remain readable.
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"data\": [0.25,0.25,0.25,0.25]"), std::string::npos) << text;
}

// Saved with the build that wrote it (as npusim's writers pass npu::build_json()), the model loads back the
// same; a "npusim" that is not an object is an error naming it.
TEST_F(ModelJsonFiles, TheBuildKeyIsWrittenAndSkipped) {
  auto m = parse_model_json(conv_doc(), "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  const std::string path = (dir_ / "stamped.json").string();
  const json build = {{"version", "9.9.9"}, {"git", "0123abc"}};
  ASSERT_TRUE(save_model_json(*m, path, build).ok());
  std::ifstream in(path);
  const json written = json::parse(in);
  EXPECT_EQ(written["npusim"], build);
  auto loaded = load_model_json(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(to_json(*loaded), to_json(*m));
  json bad = conv_doc();
  bad["npusim"] = 3;
  auto r = parse_model_json(bad, "m.json", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "m.json: $.npusim: expected the object naming the npusim build that wrote the file, got 3");
}

TEST_F(ModelJsonFiles, SideFileDataIsRelativeToTheModelFile) {
  // Two float32 values at offset 4 of a 12-byte side file.
  std::string blob(12, '\0');
  const float values[2] = {1.5f, -2.0f};
  std::memcpy(blob.data() + 4, values, 8);
  write("w.bin", blob);
  const std::string model_path = write("m.json", R"({
    "operands": [{"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "CONSTANT_COPY",
                  "data": {"file": "w.bin", "offset": 4, "length": 8}}],
    "operations": [], "inputIndexes": [], "outputIndexes": []})");
  auto m = load_model_json(model_path);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->main.operands[0].data.size(), 8u);
  float got[2];
  std::memcpy(got, m->main.operands[0].data.data(), 8);
  EXPECT_EQ(got[0], 1.5f);
  EXPECT_EQ(got[1], -2.0f);
}

TEST_F(ModelJsonFiles, SideFileErrors) {
  write("w.bin", std::string(12, '\0'));
  auto load = [&](const std::string& data) {
    const std::string p =
        write("m.json", R"({"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [2],
      "lifetime": "CONSTANT_COPY", "data": )" +
                            data + R"(}], "operations": [], "inputIndexes": [], "outputIndexes": []})");
    auto m = load_model_json(p);
    EXPECT_FALSE(m.ok());
    return m.ok() ? std::string() : m.error();
  };
  const std::string m = (dir_ / "m.json").string();
  EXPECT_EQ(load(R"({"file": "w.bin", "offset": 8, "length": 8})"),
            m + ": $.operands[0].data: side file \"w.bin\" has 12 bytes, cannot read 8 bytes at offset 8");
  EXPECT_EQ(load(R"({"file": "w.bin", "length": 4})"),
            m + ": $.operands[0].data.length: expected 8 (byte size of TENSOR_FLOAT32 [2]), got 4");
  EXPECT_EQ(load(R"({"file": "nope.bin"})"),
            m + ": $.operands[0].data.file: " + (dir_ / "nope.bin").string() +
                ": cannot open: No such file or directory");
  EXPECT_EQ(load(R"({"file": "w.bin", "size": 8})"),
            m + ": $.operands[0].data: unknown key \"size\" (expected one of: file, offset, length)");
  EXPECT_EQ(load(R"({"offset": 0})"), m + ": $.operands[0].data: missing required key \"file\"");
}

// Side files stay in the model's folder: `{"file": "/etc/passwd"}` was read as a bias and reached the
// outputs. Absolute paths, ".." escapes and links leading out are refused with one line naming the key;
// NPUSIM_SIDE_FILE_DIRS allows further folders explicitly; a subfolder is inside.
TEST_F(ModelJsonFiles, SideFilesAreConfinedToTheModelsFolder) {
  fs::create_directories(dir_ / "model" / "weights");
  fs::create_directories(dir_ / "elsewhere");
  const std::string blob(8, '\0');
  write("elsewhere/w.bin", blob);
  write("model/weights/w.bin", blob);
  fs::create_symlink(dir_ / "elsewhere" / "w.bin", dir_ / "model" / "link.bin");
  auto load = [&](const std::string& file) {
    const std::string p = write("model/m.json", R"({"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [2],
      "lifetime": "CONSTANT_COPY", "data": {"file": ")" +
                                                    file + R"("}}], "operations": [],
      "inputIndexes": [], "outputIndexes": []})");
    auto m = load_model_json(p);
    return m.ok() ? std::string() : m.error();
  };
  EXPECT_EQ(load("weights/w.bin"), "");
  const std::string m = (dir_ / "model" / "m.json").string();
  const std::string outside =
      "is outside the model's folder (" + (dir_ / "model").string() +
      "): side files are read from there only, or from a folder NPUSIM_SIDE_FILE_DIRS "
      "names";
  for (const std::string& file :
       {(dir_ / "elsewhere" / "w.bin").string(), std::string("../elsewhere/w.bin"),
        std::string("weights/../../elsewhere/w.bin"), std::string("link.bin"), std::string("/etc/passwd")})
    EXPECT_EQ(load(file), m + ": $.operands[0].data.file: \"" + file + "\" " + outside) << file;
  ::setenv("NPUSIM_SIDE_FILE_DIRS", ("/nonexistent:" + (dir_ / "elsewhere").string()).c_str(), 1);
  EXPECT_EQ(load("../elsewhere/w.bin"), "");
  EXPECT_EQ(load("link.bin"), "");
  ::unsetenv("NPUSIM_SIDE_FILE_DIRS");
}

TEST_F(ModelJsonFiles, FileLevelErrors) {
  const std::string missing = (dir_ / "missing.json").string();
  auto r = load_model_json(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), missing + ": cannot open: No such file or directory");

  const std::string bad = write("bad.json", "{\"operands\": [\n  {\"type\": x}]}");
  r = load_model_json(bad);
  ASSERT_FALSE(r.ok());
  // The parser's own message, with line and column (x is at line 2, column 12).
  EXPECT_EQ(r.error(),
            bad +
                ": not valid JSON: parse error at line 2, column 12: syntax error while parsing value - "
                "invalid literal; last read: '\"type\": x'");
  EXPECT_EQ(r.error().find('\n'), std::string::npos);
}

// Timing-only constants (LLM-sized weights): {"omitted": true} keeps the size, carries no bytes,
// survives to_json -> parse, and validates; anything but true is an error at its JSON path.
TEST(ModelJson, OmittedValuesRoundTrip) {
  json doc = conv_doc();
  doc["operands"][1]["data"] = json::parse(R"({"omitted": true})");
  auto m = parse_model_json(doc, "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  const Operand& filter = m->main.operands[1];
  EXPECT_TRUE(filter.values_omitted);
  EXPECT_TRUE(filter.data.empty());
  EXPECT_EQ(filter.byte_size(), 16u);
  const json written = to_json(*m);
  EXPECT_EQ(written["operands"][1]["data"], json::parse(R"({"omitted": true})"));
  auto again = parse_model_json(written, "again.json", "");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_TRUE(again->main.operands[1].values_omitted);
  EXPECT_EQ(to_json(*again), written);

  doc["operands"][1]["data"] = json::parse(R"({"omitted": false})");
  EXPECT_EQ(parse_error(doc), "m.json: $.operands[1].data.omitted: expected true, got false");
  doc["operands"][1]["data"] = json::parse(R"({"omitted": true, "file": "w.bin"})");
  EXPECT_EQ(parse_error(doc), "m.json: $.operands[1].data: unknown key \"file\" (expected one of: omitted)");
}

TEST(ModelJson, ErrorsNameTheFileAndJsonPath) {
  auto with = [](const std::function<void(json&)>& edit) {
    json d = conv_doc();
    edit(d);
    return parse_error(d);
  };
  EXPECT_EQ(with([](json& d) { d["operands"][3]["dimensions"] = json::parse(R"([1, "x"])"); }),
            "m.json: $.operands[3].dimensions[1]: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(with([](json& d) { d["operands"][0]["dimensions"][2] = -1; }),
            "m.json: $.operands[0].dimensions[2]: expected a non-negative integer, got -1");
  EXPECT_EQ(with([](json& d) { d["operands"][0]["type"] = "TENSOR_FLOAT"; }),
            "m.json: $.operands[0].type: expected an operand type name (e.g. TENSOR_FLOAT32), got "
            "\"TENSOR_FLOAT\"");
  EXPECT_EQ(with([](json& d) { d["operands"][0].erase("type"); }),
            "m.json: $.operands[0]: missing required key \"type\"");
  EXPECT_EQ(
      with([](json& d) { d["operands"][1]["shape"] = 1; }),
      "m.json: $.operands[1]: unknown key \"shape\" (expected one of: type, dimensions, scale, zeroPoint, "
      "lifetime, data, channelQuant, subgraph)");
  EXPECT_EQ(with([](json& d) { d["version"] = 1; }),
            "m.json: $: unknown key \"version\" (expected one of: operands, operations, inputIndexes, "
            "outputIndexes, "
            "relaxComputationFloat32toFloat16, referenced, extensionNameToPrefix, npusim)");
  EXPECT_EQ(
      with([](json& d) { d["operands"][0]["lifetime"] = "INPUT"; }),
      "m.json: $.operands[0].lifetime: expected one of SUBGRAPH_INPUT, SUBGRAPH_OUTPUT, TEMPORARY_VARIABLE, "
      "CONSTANT_COPY, CONSTANT_REFERENCE, NO_VALUE, SUBGRAPH, got \"INPUT\"");
  EXPECT_EQ(with([](json& d) { d["operands"][1]["data"] = json::parse("[0.25, 0.25, 0.25]"); }),
            "m.json: $.operands[1].data: expected 4 values (dimensions [1,2,2,1]), got 3");
  EXPECT_EQ(with([](json& d) { d["operands"][1]["data"][2] = "a"; }),
            "m.json: $.operands[1].data[2]: expected a number for TENSOR_FLOAT32, got \"a\"");
  EXPECT_EQ(
      with([](json& d) { d["operands"][4]["data"] = 2.5; }),
      "m.json: $.operands[4].data: expected an integer in [-2147483648, 2147483647] for INT32, got 2.5");
  EXPECT_EQ(with([](json& d) { d["operands"][4]["data"] = json::parse("[1, 2]"); }),
            "m.json: $.operands[4].data: expected 1 value (scalar), got 2");
  EXPECT_EQ(with([](json& d) { d["operations"][0]["type"] = "CONV"; }),
            "m.json: $.operations[0].type: expected an operation type name (e.g. CONV_2D), got \"CONV\"");
  EXPECT_EQ(with([](json& d) { d["operations"][0]["inputs"][9] = 4294967296; }),
            "m.json: $.operations[0].inputs[9]: expected an integer below 2^32, got 4294967296");
  EXPECT_EQ(with([](json& d) { d["operations"][0].erase("outputs"); }),
            "m.json: $.operations[0]: missing required key \"outputs\"");
  EXPECT_EQ(with([](json& d) { d["inputIndexes"] = "0"; }),
            "m.json: $.inputIndexes: expected an array of non-negative integers, got \"0\"");
  EXPECT_EQ(with([](json& d) { d.erase("outputIndexes"); }),
            "m.json: $: missing required key \"outputIndexes\"");
  EXPECT_EQ(with([](json& d) { d["relaxComputationFloat32toFloat16"] = 1; }),
            "m.json: $.relaxComputationFloat32toFloat16: expected true or false, got 1");
  EXPECT_EQ(with([](json& d) { d["operands"][0]["scale"] = "big"; }),
            "m.json: $.operands[0].scale: expected a finite number, got \"big\"");
  EXPECT_EQ(with([](json& d) { d["operands"][0]["zeroPoint"] = 4294967296; }),
            "m.json: $.operands[0].zeroPoint: expected a 32-bit integer, got 4294967296");
  EXPECT_EQ(with([](json& d) { d["operands"][0]["subgraph"] = 0; }),
            "m.json: $.operands[0].subgraph: only valid on operands of type SUBGRAPH");
  EXPECT_EQ(
      with([](json& d) {
        d["referenced"] = json::parse(R"([{"operands": [], "operations": [], "inputIndexes": [],
                                                             "outputIndexes": [], "extra": 1}])");
      }),
      "m.json: $.referenced[0]: unknown key \"extra\" (expected one of: operands, operations, inputIndexes, "
      "outputIndexes)");
  EXPECT_EQ(parse_error(json::array()), "m.json: $: expected an object, got []");
}

TEST(ModelJson, QuantValuesAreRangeChecked) {
  auto quant = [](const char* type, const char* data) {
    json d = json::parse(std::string(R"({"operands": [{"type": ")") + type +
                         R"(", "dimensions": [1], "scale": 0.5, "lifetime": "CONSTANT_COPY", "data": )" +
                         data + R"(}], "operations": [], "inputIndexes": [], "outputIndexes": []})");
    return parse_error(d);
  };
  EXPECT_EQ(
      quant("TENSOR_QUANT8_ASYMM", "[300]"),
      "m.json: $.operands[0].data[0]: expected an integer in [0, 255] for TENSOR_QUANT8_ASYMM, got 300");
  EXPECT_EQ(quant("TENSOR_QUANT8_ASYMM", "[-1]"),
            "m.json: $.operands[0].data[0]: expected an integer in [0, 255] for TENSOR_QUANT8_ASYMM, got -1");
  EXPECT_EQ(quant("TENSOR_QUANT8_ASYMM_SIGNED", "[128]"),
            "m.json: $.operands[0].data[0]: expected an integer in [-128, 127] for "
            "TENSOR_QUANT8_ASYMM_SIGNED, got 128");
  EXPECT_EQ(quant("TENSOR_QUANT16_SYMM", "[1.5]"),
            "m.json: $.operands[0].data[0]: expected an integer in [-32768, 32767] for TENSOR_QUANT16_SYMM, "
            "got 1.5");
  EXPECT_EQ(quant("TENSOR_BOOL8", "[2]"),
            "m.json: $.operands[0].data[0]: expected true, false, 0 or 1 for TENSOR_BOOL8, got 2");
  EXPECT_EQ(quant("TENSOR_FLOAT16", "[70000]"),
            "m.json: $.operands[0].data[0]: expected a number within +-65504 for TENSOR_FLOAT16, got 70000");
  EXPECT_EQ(
      quant("TENSOR_FLOAT32", "[1e39]"),
      "m.json: $.operands[0].data[0]: expected a number within +-3.4028235e38 for TENSOR_FLOAT32, got 1e+39");
}

}  // namespace
}  // namespace npu::models
