// Vendor extensions in the model layer: NNAPI's (prefix << 16) | code encoding, model JSON by name (never
// numbers) with a round trip, and validation naming an unknown extension, prefix or code.
#include "npu/models/extensions.h"

#include <gtest/gtest.h>

#include "npu/models/model_json.h"
#include "npu/models/validate.h"

namespace npu::models {
namespace {

using nlohmann::json;

// x [2, 4] → com.npusim.llm:RMS_NORM(x, gamma, 1e-5) → com.npusim.llm:MATMUL(y, y, transposed) [2, 2].
json llm_doc() {
  return json::parse(R"({
    "operands": [
      {"type": "TENSOR_FLOAT32", "dimensions": [2, 4], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [4], "lifetime": "CONSTANT_COPY", "data": [1, 1, 1, 1]},
      {"type": "FLOAT32", "lifetime": "CONSTANT_COPY", "data": 1e-5},
      {"type": "TENSOR_FLOAT32", "dimensions": [2, 4], "lifetime": "TEMPORARY_VARIABLE"},
      {"type": "BOOL", "lifetime": "CONSTANT_COPY", "data": true},
      {"type": "TENSOR_FLOAT32", "dimensions": [2, 2], "lifetime": "SUBGRAPH_OUTPUT"}
    ],
    "operations": [{"type": "com.npusim.llm:RMS_NORM", "inputs": [0, 1, 2], "outputs": [3]},
                   {"type": "com.npusim.llm:MATMUL", "inputs": [3, 3, 4], "outputs": [5]}],
    "inputIndexes": [0],
    "outputIndexes": [5]
  })");
}

std::string parse_error(const json& doc) {
  auto r = parse_model_json(doc, "m.json", "");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string("<parsed>") : r.error();
}

TEST(Extensions, EncodingIsPrefixAboveTheCode) {
  // NNAPI: 16 high bits the model's prefix, 16 low bits the type within the extension.
  EXPECT_EQ(static_cast<uint32_t>(extension_operation_type(1, 2)), 0x00010002u);
  EXPECT_EQ(static_cast<uint32_t>(extension_operation_type(0xABCD, 0x1234)), 0xABCD1234u);
  EXPECT_EQ(type_prefix(0xABCD1234u), 0xABCD);
  EXPECT_EQ(type_within_extension(0xABCD1234u), 0x1234);
  EXPECT_TRUE(is_extension_type(extension_operation_type(1, 0)));  // 0x10000 > BASE_MAX 0xFFFF
  EXPECT_FALSE(is_extension_type(OperationType::RANK));
  EXPECT_TRUE(valid_extension_name("com.npusim.llm"));
  EXPECT_FALSE(valid_extension_name("npusim"));          // needs a '.'
  EXPECT_FALSE(valid_extension_name("com.Npusim.llm"));  // lowercase only
  EXPECT_FALSE(valid_extension_name("com.npusim-llm"));
}

TEST(Extensions, JsonReadsNamesAssignsPrefixesAndRoundTrips) {
  auto m = parse_model_json(llm_doc(), "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  // No table in the file: the first extension used gets prefix 1.
  ASSERT_EQ(m->extension_name_to_prefix.size(), 1u);
  EXPECT_EQ(m->extension_name_to_prefix[0].name, "com.npusim.llm");
  EXPECT_EQ(m->extension_name_to_prefix[0].prefix, 1);
  EXPECT_EQ(static_cast<uint32_t>(m->main.operations[0].type), 0x00010000u);  // RMS_NORM = 0
  EXPECT_EQ(static_cast<uint32_t>(m->main.operations[1].type), 0x00010002u);  // MATMUL = 2
  EXPECT_EQ(operation_name(*m, m->main.operations[1].type), "com.npusim.llm:MATMUL");
  ASSERT_TRUE(validate_model(*m).ok()) << validate_model(*m).error();
  // Written by name with the table, and read back to the same values.
  const json out = to_json(*m);
  EXPECT_EQ(out["operations"][0]["type"], "com.npusim.llm:RMS_NORM");
  EXPECT_EQ(out["extensionNameToPrefix"], json::parse(R"([{"name": "com.npusim.llm", "prefix": 1}])"));
  auto again = parse_model_json(out, "again.json", "");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(to_json(*again), out);
  EXPECT_EQ(again->main.operations[1].type, m->main.operations[1].type);
}

TEST(Extensions, DeclaredPrefixIsKept) {
  json doc = llm_doc();
  doc["extensionNameToPrefix"] = json::parse(R"([{"name": "com.npusim.llm", "prefix": 4660}])");
  auto m = parse_model_json(doc, "m.json", "");
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(static_cast<uint32_t>(m->main.operations[1].type), 0x12340002u);
  EXPECT_EQ(to_json(*m)["extensionNameToPrefix"][0]["prefix"], 4660);
  EXPECT_EQ(to_json(*m)["operations"][1]["type"], "com.npusim.llm:MATMUL");
}

TEST(Extensions, JsonErrorsNameTheTypeAndTheExtension) {
  json doc = llm_doc();
  doc["operations"][0]["type"] = "com.example.foo:RMS_NORM";
  EXPECT_EQ(
      parse_error(doc),
      "m.json: $.operations[0].type: unknown extension \"com.example.foo\" in \"com.example.foo:RMS_NORM\" "
      "(this build knows com.npusim.llm)");
  doc = llm_doc();
  doc["operations"][0]["type"] = "com.npusim.llm:LAYER_NORM";
  EXPECT_EQ(
      parse_error(doc),
      "m.json: $.operations[0].type: extension com.npusim.llm has no operation \"LAYER_NORM\" (it defines "
      "RMS_NORM, ROPE, MATMUL)");
  doc = llm_doc();
  doc["operands"][2]["type"] = "com.npusim.llm:EPSILON";
  EXPECT_EQ(
      parse_error(doc),
      "m.json: $.operands[2].type: extension com.npusim.llm has no operand type \"EPSILON\" (it defines "
      "none: its operations take NNAPI's types)");
  doc = llm_doc();
  doc["extensionNameToPrefix"] = json::parse(R"([{"name": "com.other.ext", "prefix": 1}])");
  EXPECT_EQ(
      parse_error(doc),
      "m.json: $.operations[0].type: extension com.npusim.llm is not listed in $.extensionNameToPrefix");
  doc["extensionNameToPrefix"] = json::parse(R"([{"name": "com.npusim.llm", "prefix": 65536}])");
  EXPECT_EQ(parse_error(doc),
            "m.json: $.extensionNameToPrefix[0].prefix: expected a 16-bit prefix (at most 65535), got 65536");
  doc["extensionNameToPrefix"] = json::parse(R"([{"name": "com.npusim.llm", "code": 1}])");
  EXPECT_EQ(parse_error(doc),
            "m.json: $.extensionNameToPrefix[0]: unknown key \"code\" (expected one of: name, prefix)");
}

TEST(Extensions, ValidationNamesUnknownExtensionsPrefixesAndCodes) {
  Model m = *parse_model_json(llm_doc(), "m.json", "");
  auto error = [](const Model& x) {
    auto r = validate_model(x);
    return r.ok() ? std::string("<valid>") : r.error();
  };
  Model code = m;
  code.main.operations[1].type = extension_operation_type(1, 9);
  EXPECT_EQ(error(code), "operations[1]: type 0x00010009: extension com.npusim.llm has no operation 9");
  Model prefix = m;
  prefix.main.operations[0].type = extension_operation_type(3, 0);
  EXPECT_EQ(error(prefix),
            "operations[0]: type 0x00030000: prefix 3 is not declared in extensionNameToPrefix");
  Model unknown = m;
  unknown.extension_name_to_prefix.push_back({"com.example.foo", 2});
  EXPECT_EQ(
      error(unknown),
      "extensionNameToPrefix[1]: unknown extension \"com.example.foo\" (this build knows com.npusim.llm)");
  Model zero = m;
  zero.extension_name_to_prefix[0].prefix = 0;
  EXPECT_EQ(error(zero),
            "extensionNameToPrefix[0]: prefix 0 is reserved (types up to 0xFFFF are NNAPI's own)");
  Model twice = m;
  twice.extension_name_to_prefix.push_back({"com.npusim.llm", 2});
  EXPECT_EQ(error(twice), "extensionNameToPrefix[1]: extension com.npusim.llm is listed twice");
  Model name = m;
  name.extension_name_to_prefix[0].name = "LLM";
  EXPECT_EQ(
      error(name),
      "extensionNameToPrefix[0]: \"LLM\" is not an extension name (lowercase letters, digits, '.' and '_', "
      "with a '.')");
  Model operand = m;
  operand.main.operands[2].type = extension_operand_type(1, 0);
  EXPECT_EQ(error(operand), "operands[2]: type 0x00010000: extension com.npusim.llm has no operand type 0");
}

TEST(Extensions, UseExtensionOperationAddsTheLowestFreePrefix) {
  Model m;
  m.extension_name_to_prefix.push_back({"com.npusim.llm", 1});
  EXPECT_EQ(static_cast<uint32_t>(use_extension_operation(m, kLlmExtension, 1)), 0x00010001u);
  EXPECT_EQ(m.extension_name_to_prefix.size(), 1u);
  Model fresh;
  EXPECT_EQ(static_cast<uint32_t>(use_extension_operation(fresh, kLlmExtension, 2)), 0x00010002u);
  EXPECT_EQ(fresh.extension_name_to_prefix.size(), 1u);
  EXPECT_EQ(extensions_used(fresh), std::vector<std::string>{});  // no operation uses it yet
}

}  // namespace
}  // namespace npu::models
