// Scenario files: every shipped scenario validates; bad input is one error naming the JSON path.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "npu/common/shipped.h"
#include "npu/scenario/models.h"
#include "npu/scenario/scenario.h"

namespace npu::scenario {
namespace {

using nlohmann::json;

json minimal() {
  return json::parse(R"({"name": "t", "duration_s": 1,
    "apps": [{"name": "cam", "uid": 10001, "model": "vision-small",
              "workload": {"type": "periodic", "period_ms": 33.3, "deadline_ms": 33.3}}]})");
}

std::string error_of(const json& doc) {
  auto s = parse_scenario(doc, "s.json", ".");
  return s.ok() ? std::string("(accepted)") : s.error();
}

TEST(ScenarioConfig, ShippedScenariosLoad) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(NPUSIM_SOURCE_DIR "/configs/scenarios")) {
    auto s = load_scenario(e.path().string());
    EXPECT_TRUE(s.ok()) << s.error();
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST(ScenarioConfig, MinimalDefaults) {
  auto s = parse_scenario(minimal(), "s.json", "/cfg");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->policy, "default");
  // "../npu/default.json" is not beside /cfg/s.json: the shipped default, as for a copied scenario.
  EXPECT_EQ(s->hardware, npu::shipped::data_dir() + "/configs/npu/default.json");
  // Beside the file it is used as written.
  auto beside = parse_scenario(minimal(), "s.json", NPUSIM_SOURCE_DIR "/configs/scenarios");
  ASSERT_TRUE(beside.ok()) << beside.error();
  EXPECT_EQ(beside->hardware, NPUSIM_SOURCE_DIR "/configs/scenarios/../npu/default.json");
  ASSERT_EQ(s->apps.size(), 1u);
  EXPECT_EQ(s->apps[0].importance.size(), 1u);
  EXPECT_EQ(s->apps[0].size_class, mgr::SizeClass::LESS_THAN_1GB);
}

TEST(ScenarioConfig, ErrorsNameTheJsonPath) {
  json d = minimal();
  d["apps"][0]["workload"]["period_ms"] = "fast";
  EXPECT_EQ(error_of(d), "s.json: $.apps[0].workload.period_ms: expected a number in [0.01, inf]");
  d = minimal();
  d["apps"][0]["workload"]["colour"] = 1;
  EXPECT_EQ(error_of(d), "s.json: $.apps[0].workload.colour: unknown key");
  d = minimal();
  d["apps"][0]["workload"]["type"] = "sometimes";
  EXPECT_EQ(
      error_of(d),
      "s.json: $.apps[0].workload.type: \"sometimes\" is not one of periodic, bursty, poisson, llm, batch");
  d = minimal();
  d["apps"].push_back(d["apps"][0]);
  d["apps"][1]["name"] = "other";
  EXPECT_EQ(error_of(d), "s.json: $.apps[1].uid: uid 10001 used twice");
  d = minimal();
  d["apps"][0]["model"] = "resnet-9000";
  EXPECT_NE(error_of(d).find("s.json: $.apps[0].model: unknown model \"resnet-9000\""), std::string::npos);
  d = minimal();
  d["policy"] = "lottery";
  EXPECT_EQ(error_of(d), "s.json: $.policy: \"lottery\" is not one of fcfs, hpf, prema, rr, edf, default");
  d = minimal();
  d["apps"][0]["importance"] = json::array({{{"at_s", 1}, {"importance", "FOREGROUND"}}});
  EXPECT_EQ(error_of(d), "s.json: $.apps[0].importance[0].at_s: the first change must be at 0");
  d = minimal();
  d.erase("duration_s");
  EXPECT_EQ(error_of(d), "s.json: $.duration_s: required");
  d = minimal();
  d["apps"][0]["model"] = {{"decoder", {{"layers", 2}, {"hidden", 100}, {"ffn", 64}}}};
  EXPECT_EQ(error_of(d), "s.json: $.apps[0].model.decoder.hidden: must be a multiple of 16");
  d = minimal();
  d["events"] = json::array({{{"type", "meteor"}, {"at_s", 1}, {"watts", 3}}});
  EXPECT_EQ(error_of(d), "s.json: $.events[0].type: \"meteor\" is not one of thermal_runaway");
  // Points in time past the end of the run would never happen.
  d = minimal();
  d["events"] = json::array({{{"type", "thermal_runaway"}, {"at_s", 2}, {"watts", 3}}});
  EXPECT_EQ(error_of(d), "s.json: $.events[0].at_s: 2 s is at or past the end of the run (duration_s 1)");
  d = minimal();
  d["apps"][0]["importance"] =
      json::array({{{"at_s", 0}, {"importance", "CACHED"}}, {{"at_s", 1.5}, {"importance", "FOREGROUND"}}});
  EXPECT_EQ(error_of(d),
            "s.json: $.apps[0].importance[1].at_s: 1.5 s is at or past the end of the run (duration_s 1)");
  d = minimal();
  d["apps"][0]["workload"]["start_s"] = 1;
  EXPECT_EQ(error_of(d),
            "s.json: $.apps[0].workload.start_s: 1 s is at or past the end of the run (duration_s 1)");
}

TEST(ScenarioConfig, UnreadableFiles) {
  auto s = load_scenario("/nonexistent/s.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "/nonexistent/s.json: cannot open: No such file or directory");
}

// Decoder presets: int8 weight bytes from the shape (per layer h·(h + 2·kv) + h² + 3·h·ffn, plus the
// head vocab·h). decoder-3b (kv = 3072/2): 26·(3072·6144 + 3072² + 3·3072·8192) + 32000·3072
// = 26·103 809 024 + 98 304 000 = 2 797 338 624 B > 2 GiB.
TEST(ScenarioModels, DecoderSizes) {
  EXPECT_EQ(decoder_preset("decoder-3b")->weight_bytes(), 2'797'338'624ull);
  EXPECT_GT(decoder_preset("decoder-3b")->weight_bytes(), 2ull << 30);
  EXPECT_LT(decoder_preset("decoder-1b")->weight_bytes(), 1200'000'000ull);
  EXPECT_GT(decoder_preset("decoder-7b")->weight_bytes(), 6'000'000'000ull);
}

// A GEMM lowered for timing: every MAC is issued exactly once and every weight byte is read once per
// activation block. 64×3072×1000 on 4 channels of 512 KiB: mb = 131072/3072 = 42 rows per block → 2
// blocks (42 + 22); nb = (524288 − 129024 − 4096) / (3072 + 42 + 12) = 125 → 112 columns → 9 blocks.
TEST(ScenarioModels, GemmTilingCoversEveryMac) {
  hal::NpuTarget t;  // 16×16 array, 512 KiB SRAM
  t.channels = 4;
  const auto steps = lower_gemm(64, 3072, 1000, t, 0);
  ASSERT_EQ(steps.size(), 4u);
  uint64_t macs = 0, weight_bytes = 0, convs = 0;
  for (const auto& s : steps) {
    macs += s.macs;
    for (const auto& r : s.relocations) {
      const auto d = desc::decode<desc::Dma>(s.commands[r.descriptor]);
      if (r.region == hal::Region::WEIGHTS) weight_bytes += uint64_t{d.row_bytes} * d.rows;
    }
    for (const auto& c : s.commands) convs += desc::decode<desc::Header>(c).opcode == desc::Opcode::CONV_INT8;
  }
  EXPECT_EQ(macs, 64ull * 3072 * 1000);
  EXPECT_EQ(weight_bytes, 2ull * 3072 * 1000);
  EXPECT_EQ(convs, 2u * 9u);
}

// The attention of a decoder pass is charged for its context. decoder-1b: 16 layers, hidden 2048,
// kv_heads_ratio 4 (kv width 512 = 4 KV heads of 128). A 2,048-token prompt in 32-token chunks, then
// two decode steps at contexts 2,049 and 2,050: 17 KV blocks of 128 tokens (2,176 tokens).
TEST(ScenarioModels, DecoderAttentionGrowsWithContext) {
  hal::NpuTarget t;
  t.channels = 4;
  ModelSpec spec;
  spec.name = "decoder-1b";
  spec.decoder = *decoder_preset("decoder-1b");
  auto m = build_model(spec, t, 2048, 1, 32, 2);
  ASSERT_TRUE(m.ok()) << m.error();
  // Prompt chunk i (1..64) sees 32·i tokens: ceil(32·i / 128) blocks, 1..16; the decode steps 17.
  std::vector<std::pair<uint32_t, uint32_t>> keys;
  for (const auto& [key, p] : m->attention) keys.push_back(key);
  std::vector<std::pair<uint32_t, uint32_t>> want{{1, 17}};
  for (uint32_t b = 1; b <= 16; ++b) want.push_back({32, b});
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
  // MACs per layer: scores and weighted sum, m · context · hidden each.
  //   decode at 17 blocks:  16 layers · 2 · 1 · 2176 · 2048  = 142,606,336
  //   last prompt chunk:    16 layers · 2 · 32 · 2048 · 2048 = 4,294,967,296
  //   first prompt chunk:   16 layers · 2 · 32 · 128 · 2048  = 268,435,456
  EXPECT_EQ(m->attention.at({1, 17}).macs, 142'606'336ull);
  EXPECT_EQ(m->attention.at({32, 16}).macs, 4'294'967'296ull);
  EXPECT_EQ(m->attention.at({32, 1}).macs, 268'435'456ull);
  // KV-cache bytes a decode step reads (the operand DMA before each CONV): per layer 2176 tokens of K and
  // of V, 512 bytes each: 16 · 2 · 2176 · 512 = 35,651,584.
  uint64_t cache_bytes = 0;
  for (const auto& stage : m->attention.at({1, 17}).stages)
    for (const auto& step : stage)
      for (const auto& r : step.relocations) {
        const bool operand =
            r.descriptor + 1 < step.commands.size() &&
            desc::decode<desc::Header>(step.commands[r.descriptor + 1]).opcode == desc::Opcode::CONV_INT8;
        if (!operand) continue;
        EXPECT_EQ(r.region, hal::Region::ARENA);
        const auto d = desc::decode<desc::Dma>(step.commands[r.descriptor]);
        cache_bytes += uint64_t{d.row_bytes} * d.rows;
      }
  EXPECT_EQ(cache_bytes, 35'651'584ull);
  // The arena holds the whole cache: 16 · 2 · 512 · 2176 bytes after the activations.
  EXPECT_GE(m->arena_bytes, 35'651'584ull);
  EXPECT_LT(m->arena_bytes, 35'651'584ull + (64ull << 20));
}

// decoder-3b's FFN down projection (K = 8192) on a 32x32 array with 256 KiB of SRAM: a whole array width
// of weights (8192 x 32 = 256 KiB) cannot fit, so a block takes as many columns as do. With mb = 8 rows
// (256 KiB / 4 / 8192): (262144 - 8·8192 - 4096) / (8192 + 8 + 12) = 23 columns. Every CONV's operands
// and results stay inside the SRAM, and every MAC is covered.
TEST(ScenarioModels, LongKGemmFitsASmallSramWithNarrowerBlocks) {
  hal::NpuTarget t;
  t.array_rows = t.array_cols = 32;
  t.sram_bytes = 256 * 1024;
  t.channels = 4;
  const auto steps = lower_gemm(32, 8192, 3072, t, 0);
  uint64_t macs = 0;
  for (const auto& s : steps) {
    macs += s.macs;
    for (const auto& c : s.commands) {
      if (desc::decode<desc::Header>(c).opcode != desc::Opcode::CONV_INT8) continue;
      const auto conv = desc::decode<desc::Conv>(c);
      EXPECT_EQ(conv.in_w, 8u);
      EXPECT_LE(conv.cout, 23u);
      EXPECT_LE(uint64_t{conv.out_sram} + uint64_t{conv.out_w} * conv.cout, t.sram_bytes);
    }
  }
  EXPECT_EQ(macs, 32ull * 8192 * 3072);
}

// Where not even one weight column fits beside one activation row, the model is refused before any run.
TEST(ScenarioModels, DecoderTooWideForTheSramIsRefusedNamingK) {
  hal::NpuTarget t;
  t.sram_bytes = 8 * 1024;
  ModelSpec spec;
  spec.name = "decoder-3b";
  spec.decoder = *decoder_preset("decoder-3b");
  auto m = build_model(spec, t, 32, 1, 32, 4);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("K = 3072 (hidden)"), std::string::npos) << m.error();
  EXPECT_NE(m.error().find("8 KiB of SRAM"), std::string::npos) << m.error();
}

}  // namespace
}  // namespace npu::scenario
