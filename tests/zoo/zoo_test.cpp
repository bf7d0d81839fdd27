// The built-in zoo: every model validates (structure and NNAPI operation signatures), has the
// published architecture's size, and is deterministic in its seed.
#include "npu/models/zoo.h"

#include <gtest/gtest.h>

#include <cmath>

#include "npu/hal/device.h"
#include "npu/models/builder.h"
#include "npu/models/figures.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"

namespace npu::models {
namespace {

Model build(const std::string& name, uint64_t seed = 1, bool values = true) {
  auto m = zoo_model(name, seed, values);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error());
  return m.ok() ? std::move(m.value()) : Model{};
}

// |got / want − 1| ≤ tolerance.
::testing::AssertionResult within(double got, double want, double tolerance) {
  const double rel = std::fabs(got / want - 1.0);
  if (rel <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << got << " is " << rel * 100 << " % from " << want << " (allowed " << tolerance * 100 << " %)";
}

TEST(Zoo, EveryModelValidates) {
  for (const ZooEntry& e : zoo_entries()) {
    // Small sizes and weights as sizes only keep this test quick; the structure depends on neither
    // (determinism below builds the values).
    const std::string name = e.kind == "classifier" ? e.name + "@64"
                             : e.kind == "decoder"  ? e.name + "@16"
                                                    : e.name;
    const Model m = build(name, 1, false);
    auto structural = validate_model(m);
    EXPECT_TRUE(structural.ok()) << name << ": " << (structural.ok() ? "" : structural.error());
    const hal::Status signatures = hal::validate_for_prepare(m);
    EXPECT_TRUE(signatures.ok()) << name << ": " << signatures.message;
    EXPECT_EQ(e.timing_only, e.kind == "decoder") << name;
  }
}

// MobileNet v2 (Sandler et al., table 2) at 224: 300 M multiply-adds, 3.4 M parameters. Ours counts
// the 1×1/3×3 convolutions, depthwise filters and the 1280×1000 classifier plus one bias per channel
// (batch norm folded): 3.50 M parameters, 300.8 M MACs.
TEST(Zoo, MobileNetV2HasThePublishedSize) {
  for (const char* name : {"mobilenet_v2_float", "mobilenet_v2_quant8"}) {
    const ModelFigures f = model_figures(build(name));
    EXPECT_TRUE(within(f.macs, 300e6, 0.03)) << name;
    EXPECT_TRUE(within(f.parameters, 3.4e6, 0.04)) << name;
  }
}

// MobileNet v1 (Howard et al., table 1 and 2) at 224: 569 M mult-adds, 4.2 M parameters.
TEST(Zoo, MobileNetV1HasThePublishedSize) {
  const ModelFigures f = model_figures(build("mobilenet_v1_quant8"));
  EXPECT_TRUE(within(f.macs, 569e6, 0.01));
  EXPECT_TRUE(within(f.parameters, 4.2e6, 0.02));
}

// ResNet-18 (He et al., table 1): 1.8 G FLOPs (multiply-adds), 11.7 M parameters (torchvision:
// 11 689 512 with batch-norm scale and shift; folded, one bias per channel instead).
TEST(Zoo, ResNet18HasThePublishedSize) {
  const ModelFigures f = model_figures(build("resnet18_float", 1, false));
  EXPECT_TRUE(within(f.macs, 1.82e9, 0.01));
  EXPECT_TRUE(within(f.parameters, 11.69e6, 0.01));
}

// LSTMP acoustic model, per frame: layer 1 4·768·(40+256) + 4·768 biases + 256·768 projection
// = 1 108 992; layers 2-5 4·768·(256+256) + 3072 + 196 608 = 1 772 544 each; classifier
// 256·4000 + 4000 = 1 028 000; total 9 227 168. MACs are the weights without biases:
// 9 227 168 − 5·3072 − 4000 = 9 207 808.
TEST(Zoo, LstmAcousticModelSize) {
  const ModelFigures f = model_figures(build("lstm_acoustic_float", 1, false));
  EXPECT_EQ(f.parameters, 9227168u);
  EXPECT_EQ(f.macs, 9207808u);
}

// Llama 3.2 1B: embeddings 128256·2048 = 262.7 M (tied with the LM head); per layer q/o 2·2048²,
// k/v 2·512·2048, MLP 3·8192·2048, norms 2·2048 = 60.8 M; 16 layers → 1.236 B published ("1B").
// Llama 3.2 3B: 128256·3072 + 28·(2·3072² + 2·1024·3072 + 3·8192·3072 + 2·3072) = 3.213 B ("3B").
// Llama 2 7B: 2·32000·4096 (untied) + 32·(4·4096² + 3·11008·4096 + 2·4096) = 6.738 B ("7B").
// Ours adds the biases NNAPI's FULLY_CONNECTED requires (Llama has none; < 0.1 %).
TEST(Zoo, DecodersHaveThePublishedParameterCounts) {
  EXPECT_TRUE(within(model_figures(build("decoder_1b_decode@64")).parameters, 1.236e9, 0.01));
  EXPECT_TRUE(within(model_figures(build("decoder_3b_decode@64")).parameters, 3.213e9, 0.01));
  EXPECT_TRUE(within(model_figures(build("decoder_7b_decode@64")).parameters, 6.738e9, 0.01));
}

// A decode step reads every weight once: MACs ≈ parameters − embeddings (a lookup, no MACs; tied
// models use the table again as the LM head) + attention 2·heads·head_dim·context (two com.npusim.llm:MATMUL
// per KV head in the extension form, two FULLY_CONNECTED in the NNAPI form: the same products).
TEST(Zoo, DecoderStepMacs) {
  const DecoderShape s = decoder_shape_7b();
  const double linear = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 11008 * 4096) + 32000.0 * 4096;
  const double attention = 32.0 * 2 * s.heads * s.head_dim * 1024;
  const double head = 32000.0 * 4096;
  const double prefill_macs = 256 * (linear - head) + head + 32.0 * 2 * s.heads * s.head_dim * 256.0 * 256;
  for (const char* suffix : {"", "_nnapi"}) {
    const ModelFigures decode = model_figures(build(std::string("decoder_7b_decode") + suffix + "@1024"));
    EXPECT_TRUE(within(decode.macs, linear + attention, 1e-9)) << suffix;
    // Prefill of 256 tokens: 256× the per-token linear layers (LM head once) and 256×256 attention.
    const ModelFigures prefill = model_figures(build(std::string("decoder_7b_prefill") + suffix + "@256"));
    EXPECT_TRUE(within(prefill.macs, prefill_macs, 1e-9)) << suffix;
    // Same weights; in the NNAPI form the zero biases of the 32·32 FULLY_CONNECTED score products follow
    // the context length (MATMUL has no bias).
    EXPECT_EQ(decode.parameters - prefill.parameters, *suffix ? 32u * 32 * (1024 - 256) : 0u) << suffix;
  }
}

TEST(Zoo, DecoderWeightsAreSizesOnly) {
  const Model m = build("decoder_1b_prefill@8");
  uint64_t omitted_bytes = 0;
  for (const Operand& op : m.main.operands) {
    if (!op.values_omitted) continue;
    omitted_bytes += op.byte_size();
    EXPECT_TRUE(op.data.empty());
  }
  EXPECT_TRUE(within(omitted_bytes, 1.236e9, 0.01));  // uint8 weights, int32 biases
  // The JSON form keeps them as {"omitted": true} and reads back identically.
  const auto doc = to_json(m);
  auto again = parse_model_json(doc, "decoder.json", "");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(to_json(*again), doc);
}

TEST(Zoo, SameSeedSameBytesOtherSeedOtherWeights) {
  // Operand by operand (comparing the JSON text would spend seconds printing 3.5 M weights).
  auto same = [](const Model& x, const Model& y) {
    if (x.main.operands.size() != y.main.operands.size() ||
        x.main.operations.size() != y.main.operations.size())
      return false;
    for (size_t i = 0; i < x.main.operands.size(); ++i) {
      const Operand &p = x.main.operands[i], &q = y.main.operands[i];
      if (p.type != q.type || p.dimensions != q.dimensions || p.scale != q.scale ||
          p.zero_point != q.zero_point || p.lifetime != q.lifetime || p.data != q.data)
        return false;
    }
    for (size_t i = 0; i < x.main.operations.size(); ++i) {
      const Operation &p = x.main.operations[i], &q = y.main.operations[i];
      if (p.type != q.type || p.inputs != q.inputs || p.outputs != q.outputs) return false;
    }
    return true;
  };
  const Model a = build("mobilenet_v2_quant8@64", 7);
  EXPECT_TRUE(same(a, build("mobilenet_v2_quant8@64", 7)));
  EXPECT_FALSE(same(a, build("mobilenet_v2_quant8@64", 8)));
  const Model m = build("resnet18_float@64", 3, false);  // the inputs do not depend on the weights
  EXPECT_EQ(io_to_json(random_inputs(m, 5)), io_to_json(random_inputs(m, 5)));
  EXPECT_NE(io_to_json(random_inputs(m, 5)), io_to_json(random_inputs(m, 6)));
}

TEST(Zoo, NamesAndErrors) {
  EXPECT_EQ(zoo_entries().size(),
            19u);  // 7 vision and LSTM, 6 decoders in two forms (decoder_*, decoder_*_nnapi)
  EXPECT_NE(find_zoo_entry("mobilenet_v2_quant8@96"), nullptr);
  EXPECT_NE(find_zoo_entry("decoder_7b_prefill_nnapi@64"), nullptr);
  EXPECT_EQ(find_zoo_entry("mobilenet_v3"), nullptr);
  auto unknown = zoo_model("mobilenet_v3");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().rfind("zoo: unknown model \"mobilenet_v3\" (known: mobilenet_v1_float, ", 0), 0u)
      << unknown.error();
  auto bad = zoo_model("mobilenet_v2_float@100");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "zoo: mobilenet_v2_float@100: resolution 100 must be a multiple of 32 up to 1024");
  auto word = zoo_model("decoder_1b_decode@x");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.error(), "zoo: decoder_1b_decode@x: @x is not a positive context length");
  auto none = zoo_model("lstm_acoustic_float@3");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "zoo: lstm_acoustic_float takes no @size suffix");
  // "zoo:" selects the zoo; anything else is a file.
  auto via_path = load_model("zoo:mobilenet_v1_float@32");
  EXPECT_TRUE(via_path.ok());
  auto file = load_model("/nonexistent/m.json");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().find("/nonexistent/m.json"), std::string::npos);
}

}  // namespace
}  // namespace npu::models
