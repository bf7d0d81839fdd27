// rtl_tile_bench: one seeded tile sequence per geometry, run
//   (1) on the verilated C++ compute core (TileRunner), cycle by cycle;
//   (2) through the TLM path: int8_tile_reference (the arithmetic) + systolic_int8_tile_cycles;
//   (3) through the TLM timing formula alone (timing-only mode moves no data);
//   (4) for 16x16, on the SystemC co-simulation wrapper (RtlComputeCore) inside sc_start.
// Prints RTL cycles per wall second and the TLM/RTL speed ratios. Wall-clock figures: noisy, never a test.
// Usage: rtl_tile_bench [tiles per geometry, default 200]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <systemc>
#include <vector>

#include "npu/rtl/rtl_compute_core.h"
#include "npu/rtl/tile_runner.h"
#include "npu/sim/core/systolic_timing.h"
#include "random_tile.h"

namespace {

using npu::rtl::testing::RandomTile;
using npu::sim::ArrayGeometry;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Sequence {
  std::vector<RandomTile> tiles;
  std::vector<std::vector<uint8_t>> outs;
  uint64_t macs = 0;
};

Sequence make_sequence(ArrayGeometry g, int count) {
  Sequence s;
  std::mt19937 rng(99);
  for (int i = 0; i < count; ++i) {
    // Conv-like tiles: M up to 512 output pixels, K up to 8 chunks, N = the full array width mostly.
    s.tiles.emplace_back(npu::rtl::testing::random_shape(g, rng, 512, 8 * g.rows), rng);
    s.outs.push_back(s.tiles.back().fresh_output());
    const auto sh = s.tiles.back().shape();
    s.macs += static_cast<uint64_t>(sh.m) * sh.k * sh.n;
  }
  return s;
}

// Repeats `body` (one pass over the sequence) until at least 0.3 s have passed; seconds per pass.
template <class F>
double time_per_pass(F body) {
  int passes = 0;
  const auto t0 = Clock::now();
  do {
    body();
    ++passes;
  } while (seconds_since(t0) < 0.3);
  return seconds_since(t0) / passes;
}

// The SystemC figure: one thread running the sequence on RtlComputeCore at 1 GHz.
class ScBench : public sc_core::sc_module {
 public:
  ScBench(sc_core::sc_module_name name, ArrayGeometry g, Sequence& seq) : sc_module(name), seq_(seq) {
    core_ = npu::rtl::make_rtl_compute_core("core", g, [] { return sc_core::sc_time(1, sc_core::SC_NS); });
    SC_THREAD(run);
  }
  uint64_t cycles = 0;

 private:
  SC_HAS_PROCESS(ScBench);
  void run() {
    for (size_t i = 0; i < seq_.tiles.size(); ++i)
      cycles += core_->run_int8_tile(seq_.tiles[i].command(seq_.outs[i].data()));
  }
  Sequence& seq_;
  std::unique_ptr<npu::sim::ComputeCore> core_;
};

}  // namespace

int sc_main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 200;
  std::printf("%-6s %6s %10s %9s %12s %12s %12s %10s %12s\n", "array", "tiles", "rtl_cycles", "rtl_s",
              "rtl_cyc/s", "tlm_s", "tlm/rtl", "timing_s", "timing/rtl");
  for (const auto g : npu::rtl::tile_runner_geometries()) {
    auto seq = make_sequence(g, count);
    auto runner = npu::rtl::make_tile_runner(g);
    uint64_t cycles = 0;
    const auto t0 = Clock::now();
    for (size_t i = 0; i < seq.tiles.size(); ++i)
      cycles += runner->run(seq.tiles[i].command(seq.outs[i].data()));
    const double rtl_s = seconds_since(t0);

    uint64_t sink = 0;
    const double tlm_s = time_per_pass([&] {
      for (size_t i = 0; i < seq.tiles.size(); ++i) {
        const auto cmd = seq.tiles[i].command(seq.outs[i].data());
        npu::sim::int8_tile_reference(cmd);
        sink += npu::sim::systolic_int8_tile_cycles(g, cmd.m, cmd.k, cmd.n);
      }
    });
    const double timing_s = time_per_pass([&] {
      for (const auto& t : seq.tiles)
        sink += npu::sim::systolic_int8_tile_cycles(g, t.shape().m, t.shape().k, t.shape().n);
    });
    std::printf("%2ux%-3u %6d %10llu %9.4f %12.3e %12.3e %12.1f %10.3e %12.0f\n", g.rows, g.cols, count,
                static_cast<unsigned long long>(cycles), rtl_s, static_cast<double>(cycles) / rtl_s, tlm_s,
                rtl_s / tlm_s, timing_s, rtl_s / timing_s);
    std::printf("       (%.1f MMAC in the sequence; TLM arithmetic %.2f ns/MAC; sink %llu)\n", seq.macs / 1e6,
                1e9 * tlm_s / static_cast<double>(seq.macs), static_cast<unsigned long long>(sink % 10));
  }

  // SystemC co-simulation, 16x16, same kind of sequence.
  const ArrayGeometry g{16, 16};
  auto seq = make_sequence(g, count);
  ScBench bench("bench", g, seq);
  const auto t0 = Clock::now();
  sc_core::sc_start();
  const double sc_s = seconds_since(t0);
  std::printf(
      "SystemC RtlComputeCore 16x16: %llu cycles in %.3f s: %.3e cycles/s, %.3f us per simulated cycle\n",
      static_cast<unsigned long long>(bench.cycles), sc_s, static_cast<double>(bench.cycles) / sc_s,
      1e6 * sc_s / static_cast<double>(bench.cycles));
  return 0;
}
