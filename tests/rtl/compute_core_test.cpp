// SystemC co-simulation of the RTL compute core (RtlComputeCore): bit-exact outputs, simulated time
// advanced by exactly cycles x period, the period read per tile (DVFS), coexistence with other
// modules, the factory's errors. Every case that calls sc_start must run in its own process (a SystemC
// kernel cannot be restarted): ctest does that, one process per case (gtest_discover_tests).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "npu/rtl/rtl_compute_core.h"
#include "npu/rtl/tile_runner.h"
#include "npu/sim/core/systolic_timing.h"
#include "random_tile.h"

namespace npu::rtl {
namespace {

using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;
using testing::RandomTile;
using testing::TileShape;

struct TileRecord {
  uint64_t cycles = 0;
  sc_time period, before, after;
  bool bit_exact = false;
};

// A channel stand-in: one SC_THREAD runs the tiles back to back, changing the clock period between
// them as a DVFS controller would, then stops the simulation.
class TestBench : public sc_core::sc_module {
 public:
  TestBench(sc_core::sc_module_name name, sim::ArrayGeometry g, std::vector<TileShape> shapes,
            std::vector<sc_time> periods, std::string vcd_path = {})
      : sc_module(name), shapes_(std::move(shapes)), periods_(std::move(periods)) {
    core_ = make_rtl_compute_core(
        "core", g, [this] { return period_; }, std::move(vcd_path));
    SC_THREAD(run);
  }

  std::vector<TileRecord> records;
  sim::ComputeCore& core() { return *core_; }

 private:
  SC_HAS_PROCESS(TestBench);

  void run() {
    std::mt19937 rng(77);
    sc_core::wait(3, SC_NS);  // start at a non-zero time, off any clock grid
    for (size_t i = 0; i < shapes_.size(); ++i) {
      period_ = periods_[i % periods_.size()];
      const RandomTile tile(shapes_[i], rng);
      auto out = tile.fresh_output();
      TileRecord r;
      r.period = period_;
      r.before = sc_core::sc_time_stamp();
      r.cycles = core_->run_int8_tile(tile.command(out.data()));
      r.after = sc_core::sc_time_stamp();
      r.bit_exact = out == tile.reference_output();
      records.push_back(r);
      sc_core::wait(1, SC_NS);  // idle time between tiles
    }
    sc_core::sc_stop();
  }

  std::vector<TileShape> shapes_;
  std::vector<sc_time> periods_;
  sc_time period_;
  std::unique_ptr<sim::ComputeCore> core_;
};

// Another module in the same simulation: a free-running clock and a counter on it.
class Ticker : public sc_core::sc_module {
 public:
  explicit Ticker(sc_core::sc_module_name name) : sc_module(name), clk_("clk", 7, SC_NS) {
    SC_METHOD(tick);
    sensitive << clk_.posedge_event();
    dont_initialize();
  }
  uint64_t ticks = 0;

 private:
  SC_HAS_PROCESS(Ticker);
  void tick() { ++ticks; }
  sc_core::sc_clock clk_;
};

bool kernel_already_used() { return sc_core::sc_get_status() != sc_core::SC_ELABORATION; }

constexpr const char* kKernelUsed =
    "SystemC kernel already used in this process: run each case alone (ctest)";

void expect_tiles_ok(const TestBench& tb, sim::ArrayGeometry g, const std::vector<TileShape>& shapes) {
  ASSERT_EQ(tb.records.size(), shapes.size());
  auto runner = make_tile_runner(g);
  std::mt19937 rng(77);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& r = tb.records[i];
    const auto& s = shapes[i];
    SCOPED_TRACE("tile " + std::to_string(i) + ": m=" + std::to_string(s.m) + " k=" + std::to_string(s.k) +
                 " n=" + std::to_string(s.n) + " period " + r.period.to_string());
    EXPECT_TRUE(r.bit_exact);
    // Simulated time advanced by exactly cycles x period.
    EXPECT_EQ(r.after - r.before, r.period * static_cast<double>(r.cycles));
    EXPECT_EQ((r.after - r.before).value(), r.cycles * r.period.value());
    // The same cycles as the plain C++ build and as the TLM formula.
    const RandomTile tile(s, rng);
    auto out = tile.fresh_output();
    EXPECT_EQ(r.cycles, runner->run(tile.command(out.data())));
    EXPECT_EQ(r.cycles, sim::systolic_int8_tile_cycles(g, s.m, s.k, s.n));
  }
}

TEST(RtlComputeCore, Array4x4BitExactAndTimeAdvance) {
  if (kernel_already_used()) GTEST_SKIP() << kKernelUsed;
  const std::vector<TileShape> shapes = {{5, 7, 3}, {1, 0, 4}, {33, 18, 4}, {300, 9, 2}, {12, 4, 4}};
  TestBench tb("tb", {4, 4}, shapes, {sc_time(1, SC_NS)});
  EXPECT_STREQ(tb.core().model_name(), "rtl");
  EXPECT_EQ(tb.core().geometry().rows, 4u);
  sc_core::sc_start();
  expect_tiles_ok(tb, {4, 4}, shapes);
}

TEST(RtlComputeCore, Array16x16FollowsPeriodChangeBetweenTiles) {
  if (kernel_already_used()) GTEST_SKIP() << kKernelUsed;
  // 1 GHz, then 800 MHz (1250 ps), then an odd period (1001 ps: halves of 500 + 501 ps), then 1 GHz.
  const std::vector<sc_time> periods = {sc_time(1, SC_NS), sc_time(1250, SC_PS), sc_time(1001, SC_PS)};
  const std::vector<TileShape> shapes = {{64, 40, 16}, {64, 40, 16}, {20, 17, 9}, {3, 50, 16}};
  Ticker ticker("ticker");
  TestBench tb("tb", {16, 16}, shapes, periods);
  sc_core::sc_start();
  expect_tiles_ok(tb, {16, 16}, shapes);
  ASSERT_EQ(tb.records.size(), 4u);
  // Same tile at two clocks: same cycles, times in the ratio of the periods (232 cycles, see
  // calibration_test.cpp: 232 ns at 1 GHz, 290 ns at 800 MHz).
  EXPECT_EQ(tb.records[0].cycles, 232u);
  EXPECT_EQ(tb.records[1].cycles, 232u);
  EXPECT_EQ(tb.records[0].after - tb.records[0].before, sc_time(232, SC_NS));
  EXPECT_EQ(tb.records[1].after - tb.records[1].before, sc_time(290, SC_NS));
  // The other module kept running while the RTL was clocked from the bench's thread.
  const auto end = tb.records.back().after;
  EXPECT_GE(ticker.ticks, static_cast<uint64_t>(end / sc_time(7, SC_NS)) - 1);
}

TEST(RtlComputeCore, WritesWaveformOnRequest) {
  if (kernel_already_used()) GTEST_SKIP() << kKernelUsed;
  const std::string path = ::testing::TempDir() + "npu_rtl_compute_core.vcd";
  {
    const std::vector<TileShape> shapes = {{6, 9, 4}};
    TestBench tb("tb", {4, 4}, shapes, {sc_time(2, SC_NS)}, path);
    sc_core::sc_start();
    expect_tiles_ok(tb, {4, 4}, shapes);
  }
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 20, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_NE(text.find("o_wr_data"), std::string::npos);
  EXPECT_NE(text.find("#3000"), std::string::npos);  // first rising edge at 3 ns, in ps
  std::remove(path.c_str());
}

TEST(RtlComputeCore, FactoryRejectsGeometryWithoutSystemCBuild) {
  if (kernel_already_used()) GTEST_SKIP() << kKernelUsed;
  try {
    make_rtl_compute_core("core8", {8, 8}, [] { return sc_time(1, SC_NS); });
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("8x8"), std::string::npos) << what;
    EXPECT_NE(what.find("16x16"), std::string::npos) << what;  // lists what is built
  }
  EXPECT_THROW(RtlComputeCore("direct", {32, 32}, [] { return sc_time(1, SC_NS); }), std::invalid_argument);
  // Elaboration continues normally after the failed attempts.
  auto core = make_rtl_compute_core("core4", {4, 4}, [] { return sc_time(1, SC_NS); });
  EXPECT_EQ(core->geometry().cols, 4u);
}

}  // namespace
}  // namespace npu::rtl
