// Sweep files: validation errors name the file and JSON path; grids, ranges, seeded random and Latin
// hypercube samples and constraints expand to the points they should; constraint expressions; the area
// model's arithmetic for the shipped presets against docs/area.md's per-unit figures.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "npu/sweep/area.h"
#include "npu/sweep/expr.h"
#include "npu/sweep/spec.h"

namespace npu::sweep {
namespace {

using nlohmann::json;

const std::string kConfigs = std::string(NPUSIM_SOURCE_DIR) + "/configs/npu";

json base_doc() {
  return json::parse(R"({"name": "t", "base": "default.json",
    "axes": [{"param": "npu.channels", "values": [1, 2]}],
    "workloads": [{"name": "m", "model": "zoo:mobilenet_v2_quant8"}]})");
}

std::string error_of(const json& doc) {
  auto s = parse_sweep(doc, "s.json", kConfigs);
  return s ? std::string("(no error)") : s.error();
}

TEST(SweepSpec, ErrorsNameTheJsonPath) {
  json d = base_doc();
  d["axes"][0]["param"] = "npu.chanels";
  EXPECT_EQ(error_of(d),
            "s.json: $.axes[0].param: unknown parameter \"npu.chanels\" (see npusim config --explain)");
  d = base_doc();
  d["axes"][0]["values"] = json::array({1, 99});
  EXPECT_NE(error_of(d).find(
                "s.json: $.axes[0].values[1]: --set npu.channels: expected an integer in [1, 16], got 99"),
            std::string::npos)
      << error_of(d);
  d = base_doc();
  d["constraints"] = json::array({"npu.channels <= "});
  EXPECT_NE(error_of(d).find("s.json: $.constraints[0]: at offset 16:"), std::string::npos) << error_of(d);
  d = base_doc();
  d["constraints"] = json::array({"npu.channels <= npu.bogus * 2"});
  EXPECT_EQ(
      error_of(d),
      "s.json: $.constraints[0]: \"npu.bogus\" is not a numeric parameter (see npusim config --explain)");
  d = base_doc();
  d["metrics"] = json::array({"latency_p50_us", "speed"});
  EXPECT_EQ(error_of(d).rfind("s.json: $.metrics[1]: unknown metric \"speed\"", 0), 0u) << error_of(d);
  d = base_doc();
  d["workloads"][0]["mode"] = "fast";
  EXPECT_EQ(error_of(d), "s.json: $.workloads[0].mode: expected \"functional\" or \"timing\", got \"fast\"");
  d = base_doc();
  d["workloads"][0]["scale"] = 0.5;
  EXPECT_EQ(error_of(d), "s.json: $.workloads[0].scale: only for scenario workloads");
  d = base_doc();
  d["axes"][0] = json::parse(R"({"param": "npu.dram.bandwidth_gbps", "min": 1, "max": 8})");
  EXPECT_EQ(error_of(d),
            "s.json: $.axes[0]: a min/max axis needs \"sample\" (a grid needs values or a range)");
  d = base_doc();
  d["axes"][0] =
      json::parse(R"({"param": "npu.dram.bandwidth_gbps", "log": {"from": 0, "to": 8, "count": 3}})");
  EXPECT_EQ(error_of(d), "s.json: $.axes[0].log: a log range needs from and to > 0");
  d = base_doc();
  d["bogus"] = 1;
  EXPECT_EQ(error_of(d).rfind("s.json: $.bogus: unknown key", 0), 0u) << error_of(d);
  d = base_doc();
  d["workloads"].push_back(d["workloads"][0]);
  EXPECT_EQ(error_of(d), "s.json: $.workloads[1].name: \"m\" is used twice");
}

// Found by fuzzing: a parameter path holding ~ or / went into a JSON pointer unescaped: "~" threw from
// the parser and "npu/channels" aliased npu.channels. Both are unknown parameters.
TEST(SweepSpec, TildeAndSlashInAParameterPathAreUnknownParameters) {
  for (const std::string bad : {"npu/channels", "npu.~channels", "npu~1channels", "npu.chan~nels", "~"}) {
    json d = base_doc();
    d["axes"][0]["param"] = bad;
    std::string e;
    ASSERT_NO_THROW(e = error_of(d)) << bad;
    EXPECT_EQ(e, "s.json: $.axes[0].param: unknown parameter \"" + bad + "\" (see npusim config --explain)");
  }
}

TEST(SweepSpec, GridWithConstraint) {
  json d = base_doc();
  d["axes"] = json::parse(R"([{"param": "npu.channel.array.rows", "values": [8, 16, 32]},
                               {"param": "npu.channel.array.cols", "values": [8, 16, 32]},
                               {"param": "npu.channels", "values": [1, 2, 4, 8]}])");
  // Square arrays with at most 4096 MACs in all.
  d["constraints"] = json::array({"npu.channel.array.rows == npu.channel.array.cols",
                                  "npu.channels * npu.channel.array.rows * npu.channel.array.cols <= 4096"});
  auto s = parse_sweep(d, "s.json", kConfigs);
  ASSERT_TRUE(s.ok()) << s.error();
  auto e = expand(*s);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->candidates, 36u);
  // Counted by hand: square arrays 8x8, 16x16, 32x32 with 1, 2, 4 or 8 channels; 8 x 64 and 8 x 256 MACs
  // fit, 8 x 1024 = 8192 does not: 4 + 4 + 3.
  EXPECT_EQ(e->points.size(), 11u);
  std::set<std::string> seen;
  for (const auto& p : e->points) {
    EXPECT_EQ(p.values[0].second, p.values[1].second);
    EXPECT_LE(p.values[2].second.get<int>() * p.values[0].second.get<int>() * p.values[1].second.get<int>(),
              4096);
    EXPECT_TRUE(seen.insert(p.config_digest).second) << "points differ in their config";
  }
  EXPECT_EQ(e->rejected.size(), 25u);
}

TEST(SweepSpec, RangesLinearAndLog) {
  json d = base_doc();
  d["axes"] = json::parse(R"([{"param": "npu.dram.bandwidth_gbps", "log": {"from": 4, "to": 64, "count": 5}},
                               {"param": "npu.channel.sram.kib", "linear": {"from": 128, "to": 512, "count": 4}}])");
  auto s = parse_sweep(d, "s.json", kConfigs);
  ASSERT_TRUE(s.ok()) << s.error();
  std::vector<double> bw;
  for (const auto& v : s->axes[0].values) bw.push_back(v.get<double>());
  ASSERT_EQ(bw.size(), 5u);
  const double want_bw[] = {4, 8, 16, 32, 64};  // ratio (64/4)^(1/4) = 2
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(bw[i], want_bw[i], 1e-9);
  ASSERT_EQ(s->axes[1].values.size(), 4u);
  EXPECT_EQ(s->axes[1].values, (std::vector<json>{128, 256, 384, 512}));  // integer parameter: integers
  auto e = expand(*s);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->points.size(), 20u);
}

TEST(SweepSpec, LatinHypercubeFillsEveryStratumAndIsSeeded) {
  json d = base_doc();
  d["axes"] = json::parse(R"([{"param": "npu.dram.bandwidth_gbps", "min": 10, "max": 30},
                               {"param": "npu.dram.latency_ns", "min": 50, "max": 250}])");
  d["sample"] = json::parse(R"({"method": "latin_hypercube", "count": 10, "seed": 7})");
  auto s = parse_sweep(d, "s.json", kConfigs);
  ASSERT_TRUE(s.ok()) << s.error();
  auto e = expand(*s);
  ASSERT_TRUE(e.ok()) << e.error();
  ASSERT_EQ(e->points.size(), 10u);
  for (size_t axis = 0; axis < 2; ++axis) {
    const double lo = axis ? 50 : 10, hi = axis ? 250 : 30;
    std::set<int> strata;
    for (const auto& p : e->points) {
      const double x = p.values[axis].second.get<double>();
      ASSERT_GE(x, lo);
      ASSERT_LE(x, hi);
      strata.insert(std::min(9, static_cast<int>((x - lo) / (hi - lo) * 10)));
    }
    EXPECT_EQ(strata.size(), 10u) << "one sample in each tenth of axis " << axis;
  }
  auto again = expand(*s);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(again->points[i].values, e->points[i].values) << "same seed, same points";
  d["sample"]["seed"] = 8;
  auto other = expand(*parse_sweep(d, "s.json", kConfigs));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->points[0].values, e->points[0].values);
}

TEST(SweepSpec, RandomSamplesStayInRangeAndRoundIntegers) {
  json d = base_doc();
  d["axes"] = json::parse(R"([{"param": "npu.channel.sram.kib", "min": 64, "max": 1024, "scale": "log"},
                               {"param": "npu.channel.compute_core.model", "values": ["tlm"]}])");
  d["sample"] = json::parse(R"({"method": "random", "count": 12, "seed": 3})");
  auto s = parse_sweep(d, "s.json", kConfigs);
  ASSERT_TRUE(s.ok()) << s.error();
  auto e = expand(*s);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_LE(e->points.size(), 12u);
  EXPECT_GE(e->points.size(), 2u);
  for (const auto& p : e->points) {
    ASSERT_TRUE(p.values[0].second.is_number_integer());
    EXPECT_GE(p.values[0].second.get<int>(), 64);
    EXPECT_LE(p.values[0].second.get<int>(), 1024);
    EXPECT_EQ(p.values[1].second, "tlm");
  }
}

TEST(SweepExpr, PrecedenceAndFunctions) {
  auto lookup = [](const std::string& p) -> std::optional<double> {
    if (p == "a.b") return 3;
    if (p == "c") return 4;
    return std::nullopt;
  };
  auto v = [&](const std::string& text) {
    auto e = Expr::parse(text);
    EXPECT_TRUE(e.ok()) << text << ": " << (e ? "" : e.error());
    auto r = e->evaluate(lookup);
    EXPECT_TRUE(r.ok()) << text;
    return r.ok() ? *r : NAN;
  };
  EXPECT_EQ(v("1 + 2 * 3"), 7);
  EXPECT_EQ(v("(1 + 2) * 3"), 9);
  EXPECT_EQ(v("a.b * c <= 12"), 1);
  EXPECT_EQ(v("a.b * c < 12"), 0);
  EXPECT_EQ(v("a.b == 3 && c != 4 || 1"), 1);
  EXPECT_EQ(v("!(a.b == 3)"), 0);
  EXPECT_EQ(v("-a.b + max(c, 10) - min(2, 1) % 5"), 6);
  EXPECT_EQ(v("c / 8"), 0.5);
  auto e = Expr::parse("a.b * c + c");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->parameters(), (std::vector<std::string>{"a.b", "c"}));
  EXPECT_FALSE(Expr::parse("1 +").ok());
  EXPECT_FALSE(Expr::parse("(1").ok());
  EXPECT_FALSE(Expr::parse("1 $ 2").ok());
  auto div = Expr::parse("1 / (c - 4)");
  ASSERT_TRUE(div.ok());
  EXPECT_EQ(div->evaluate(lookup).error(), "division by zero");
  auto unknown = Expr::parse("x + 1");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->evaluate(lookup).ok());
}

// Each way of nesting (parentheses, unary operators, a chain of terms) is accepted at kMaxExprDepth
// levels and refused one past it with the offset; 200,000 parentheses and a sum of 1,000,000 terms are
// one error, not a stack overflow (both crashed `npusim sweep F --list` before the bound).
TEST(SweepExpr, NestingIsBoundedAtTheDocumentedDepth) {
  const auto lookup = [](const std::string&) -> std::optional<double> { return 1.0; };
  auto parens = [](size_t n) { return std::string(n, '(') + "1" + std::string(n, ')'); };
  auto sum = [](size_t terms) {
    std::string s = "1";
    for (size_t i = 1; i < terms; ++i) s += "+1";
    return s;
  };
  auto unary = [](size_t n) { return std::string(n, '-') + "1"; };
  const size_t limit = kMaxExprDepth;
  auto at_limit = Expr::parse(parens(limit));
  ASSERT_TRUE(at_limit.ok()) << at_limit.error();
  EXPECT_EQ(*at_limit->evaluate(lookup), 1.0);
  auto chain = Expr::parse(sum(limit + 1));  // 256 operators
  ASSERT_TRUE(chain.ok()) << chain.error();
  EXPECT_EQ(*chain->evaluate(lookup), static_cast<double>(limit + 1));
  auto negations = Expr::parse(unary(limit));
  ASSERT_TRUE(negations.ok()) << negations.error();
  EXPECT_EQ(*negations->evaluate(lookup), 1.0);  // an even number of minus signs
  for (const std::string& past : {parens(limit + 1), sum(limit + 2), unary(limit + 1), parens(200'000),
                                  sum(1'000'000), "max(" + parens(limit) + ", 1)"}) {
    auto e = Expr::parse(past);
    ASSERT_FALSE(e.ok()) << past.size();
    EXPECT_NE(e.error().find("nested deeper than 256 levels"), std::string::npos) << e.error();
    EXPECT_EQ(e.error().rfind("at offset ", 0), 0u) << e.error();
  }
}

// docs/area.md: the per-unit figures (7 nm: 158 um2 per int8 MAC, 0.463 mm2/MiB SRAM, 4307 um2 per fp32
// MAC, 0.0124 mm2 per 32 B/cycle DMA engine, 0.123 mm2 per GB/s of DRAM PHY; 5 nm: 88, 0.360, 2393, 0.0069,
// 0.0816) times each preset's units, computed here by hand, and the totals the document prints.
TEST(SweepArea, ShippedPresetsMatchTheDocumentedArithmetic) {
  struct Case {
    const char* file;
    double mac, sram, vec, dma, phy;
    double documented_total;  // docs/area.md, rounded to 3 decimals
  } cases[] = {
      // edge-small: 1 x 8x8, 128 KiB, 16 fp32 MACs, 32 B/cycle DMA, 6.4 GB/s, 7 nm
      {"edge-small.json", 1 * 64 * 158e-6, 1 * 0.125 * 0.463, 1 * 16 * 4307e-6, 1 * 2 * 0.0124, 6.4 * 0.123,
       0.949},
      // default: 4 x 16x16, 512 KiB, 64 fp32 MACs, 32 B/cycle, 25.6 GB/s, 7 nm
      {"default.json", 4 * 256 * 158e-6, 4 * 0.5 * 0.463, 4 * 64 * 4307e-6, 4 * 2 * 0.0124, 25.6 * 0.123,
       5.438},
      // large: 8 x 32x32, 2 MiB, 256 fp32 MACs, 32 B/cycle, 68 GB/s, 5 nm
      {"large.json", 8 * 1024 * 88e-6, 8 * 2 * 0.360, 8 * 256 * 2393e-6, 8 * 2 * 0.0069, 68 * 0.0816, 17.041},
  };
  for (const auto& c : cases) {
    auto cfg = system::load_system_config(kConfigs + "/" + c.file, {});
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    const auto a = design_area(*cfg);
    EXPECT_NEAR(a.mac_array_mm2, c.mac, 1e-9) << c.file;
    EXPECT_NEAR(a.sram_mm2, c.sram, 1e-9) << c.file;
    EXPECT_NEAR(a.vector_mm2, c.vec, 1e-9) << c.file;
    EXPECT_NEAR(a.dma_mm2, c.dma, 1e-9) << c.file;
    EXPECT_NEAR(a.dram_phy_mm2, c.phy, 1e-9) << c.file;
    EXPECT_NEAR(a.total_mm2(), c.mac + c.sram + c.vec + c.dma + c.phy, 1e-9) << c.file;
    EXPECT_NEAR(a.total_mm2(), c.documented_total, 5e-4) << c.file;
  }
}

// Each per-unit figure is a config parameter: set, it replaces the node preset's figure for that block
// only; a negative value (the default) keeps the preset.
TEST(SweepArea, PerUnitFiguresAreConfigParameters) {
  auto base = system::load_system_config(kConfigs + "/default.json", {});
  ASSERT_TRUE(base.ok()) << base.error();
  const auto preset = design_area(*base);
  auto cfg = system::load_system_config(
      kConfigs + "/default.json",
      {"npu.area.int8_mac_um2=100", "npu.area.sram_mm2_per_mib=1", "npu.area.fp32_mac_um2=1000",
       "npu.area.dma_mm2_per_32b=0.5", "npu.area.dram_phy_mm2_per_gbps=0"});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  const auto a = design_area(*cfg);
  EXPECT_NEAR(a.mac_array_mm2, 4 * 256 * 100e-6, 1e-12);
  EXPECT_NEAR(a.sram_mm2, 4 * 0.5 * 1.0, 1e-12);
  EXPECT_NEAR(a.vector_mm2, 4 * 64 * 1000e-6, 1e-12);
  EXPECT_NEAR(a.dma_mm2, 4 * 2 * 0.5, 1e-12);
  EXPECT_EQ(a.dram_phy_mm2, 0.0);

  auto one = system::load_system_config(kConfigs + "/default.json", {"npu.area.sram_mm2_per_mib=2"});
  ASSERT_TRUE(one.ok()) << one.error();
  const auto b = design_area(*one);
  EXPECT_NEAR(b.sram_mm2, 4.0, 1e-12);
  EXPECT_EQ(b.mac_array_mm2, preset.mac_array_mm2);
  EXPECT_EQ(b.dram_phy_mm2, preset.dram_phy_mm2);

  auto bad = system::load_system_config(kConfigs + "/default.json", {"npu.area.fp32_mac_um2=-5"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("npu.area.fp32_mac_um2"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace npu::sweep
