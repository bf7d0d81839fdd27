// The anchor comparison: each layer of scalesim_v2_layers.csv as a quant8 model on one channel of a 32×32
// array with near-ideal memory (anchor_layers.h lists the overrides), through the real HAL, driver and
// NPU, timing-only. Per layer it prints the simulated NPU cycles (CH_CYCLES: doorbell to completion of the
// layer's command buffer), the ideal (MACs / 1024), their ratio, SCALE-Sim v2's weight-stationary figure
// and ours over it, and the wall time of prepareModel and of one execution (median of --repeat runs);
// then the totals (all layers, and those with M ≥ 32, where the array can be kept full), and the seven
// layers as one model (one driver job) with its wall time. Wall-clock figures are machine-dependent: a
// benchmark, never a test (tests/hal/anchor_cycles_test.cpp pins the cycles).
//
//   anchor_bench                      both memory setups, each in its own process (SystemC cannot restart)
//   anchor_bench --memory ideal-dram|ideal-memory [--csv FILE] [--repeat N] [--functional] [--set k=v]...
//
// The memory setups are described in anchor_layers.h (ideal-dram keeps the preset's 32 B/cycle DMA
// engines; ideal-memory widens them too). --set applies after them; --functional runs with weights and
// values (and checks nothing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "anchor_layers.h"
#include "npu/models/builder.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// The wall time SCALE-Sim v2 took for the seven layers (recorded when this bench was written; not
// measured here), the reference of the "seven layers as one batch" speed-up.
constexpr double kScaleSimSevenLayersSeconds = 39.0;

struct Measured {
  uint64_t cycles = 0;
  double prepare_s = 0, execute_s = 0;
  std::string tiling;
  bool ok = false;
};

struct Options {
  npu::anchor::Memory memory = npu::anchor::Memory::IDEAL_DRAM;
  std::string csv = NPUSIM_SOURCE_DIR "/bench/anchor/scalesim_v2_layers.csv";
  int repeat = 5;
  bool functional = false;
  std::vector<std::string> sets;
};

Measured measure(npu::system::System& s, const npu::models::Model& model, int repeat, bool functional,
                 std::string* error) {
  using namespace npu;
  Measured m;
  const auto t0 = Clock::now();
  auto prepared = s.npu_device().prepare_model(model);
  m.prepare_s = seconds_since(t0);
  if (!prepared.status.ok()) {
    *error = "prepareModel: " + prepared.status.message;
    return m;
  }
  std::map<uint32_t, models::Tensor> inputs =
      functional ? models::random_inputs(model, 1) : std::map<uint32_t, models::Tensor>{};
  if (!functional)
    for (uint32_t idx : model.main.input_indexes) {
      const auto& op = model.main.operands[idx];
      inputs[idx] = models::make_tensor(op, op.dimensions);  // zeros: timing-only ignores the values
    }
  std::vector<double> walls;
  for (int i = 0; i < repeat; ++i) {
    const auto t1 = Clock::now();
    auto r = prepared.model->execute_synchronously(inputs, false);
    walls.push_back(seconds_since(t1));
    if (!r.status.ok()) {
      *error = "execute: " + r.status.message;
      return m;
    }
    if (i == 0) m.cycles = r.device_cycles;
  }
  m.execute_s = median(walls);
  m.ok = true;
  return m;
}

int run(const Options& o) {
  using namespace npu;
  auto layers = anchor::read_anchor_layers(o.csv);
  if (!layers) {
    std::fprintf(stderr, "anchor_bench: %s\n", layers.error().c_str());
    return 1;
  }
  std::vector<std::string> sets = anchor::near_ideal_overrides(o.memory);
  if (!o.functional) sets.push_back("npu.functional=false");
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", sets);
  if (!cfg) {
    std::fprintf(stderr, "anchor_bench: %s\n", cfg.error().c_str());
    return 1;
  }
  auto sys = system::System::create(*cfg);
  if (!sys) {
    std::fprintf(stderr, "anchor_bench: %s\n", sys.error().c_str());
    return 1;
  }
  std::vector<Measured> per_layer;
  Measured batch;
  std::string error;
  auto end = (*sys)->run([&](system::System& s) {
    for (const auto& l : *layers) {
      per_layer.push_back(
          measure(s, anchor::anchor_model(l, 1, !o.functional), o.repeat, o.functional, &error));
      if (!per_layer.back().ok) {
        error = l.name + ": " + error;
        return;
      }
    }
    batch = measure(s, anchor::anchor_batch_model(*layers, 1, !o.functional), o.repeat, o.functional, &error);
    if (!batch.ok) error = "the seven layers as one model: " + error;
  });
  if (!end || !error.empty()) {
    std::fprintf(stderr, "anchor_bench: %s\n", end ? error.c_str() : end.error().c_str());
    return 1;
  }
  const auto& hw = (*sys)->config().npu;
  std::printf(
      "%s: anchor layers (%s) on %u channel(s) of %ux%u, %u KiB SRAM, at %.0f MHz; DRAM %.0f GB/s, %.0f ns; "
      "DMA %u B/cycle, %u setup cycles; %s; wall = median of %d\n",
      anchor::to_string(o.memory), o.csv.c_str(), hw.channels, hw.channel.array_rows, hw.channel.array_cols,
      hw.channel.sram_kib, hw.clock_mhz(), hw.dram.bandwidth_gbps, hw.dram.latency_ns,
      hw.channel.dma_bytes_per_cycle, hw.channel.dma_setup_cycles,
      o.functional ? "functional" : "timing-only", o.repeat);
  std::printf("%-14s %6s %10s %10s %7s %12s %7s %11s %11s\n", "layer", "M", "cycles", "ideal", "/ideal",
              "SCALE-Sim WS", "/WS", "prepare ms", "execute ms");
  uint64_t total = 0, ideal = 0, ws = 0, total32 = 0, ideal32 = 0;
  double exec_s = 0;
  for (size_t i = 0; i < layers->size(); ++i) {
    const auto& l = (*layers)[i];
    const auto& m = per_layer[i];
    std::printf("%-14s %6llu %10llu %10llu %7.3f %12llu %7.3f %11.3f %11.3f\n", l.name.c_str(),
                static_cast<unsigned long long>(l.gemm_m), static_cast<unsigned long long>(m.cycles),
                static_cast<unsigned long long>(l.ideal_cycles),
                static_cast<double>(m.cycles) / static_cast<double>(l.ideal_cycles),
                static_cast<unsigned long long>(l.scalesim_ws),
                static_cast<double>(m.cycles) / static_cast<double>(l.scalesim_ws), m.prepare_s * 1e3,
                m.execute_s * 1e3);
    total += m.cycles;
    ideal += l.ideal_cycles;
    ws += l.scalesim_ws;
    exec_s += m.execute_s;
    if (l.gemm_m >= 32) {
      total32 += m.cycles;
      ideal32 += l.ideal_cycles;
    }
  }
  std::printf("%-14s %6s %10llu %10llu %7.3f %12llu %7.3f %11s %11.3f\n", "total", "",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(ideal),
              static_cast<double>(total) / static_cast<double>(ideal), static_cast<unsigned long long>(ws),
              static_cast<double>(total) / static_cast<double>(ws), "", exec_s * 1e3);
  std::printf("%-14s %6s %10llu %10llu %7.3f   <- target <= 1.10\n", "total M>=32", "",
              static_cast<unsigned long long>(total32), static_cast<unsigned long long>(ideal32),
              static_cast<double>(total32) / static_cast<double>(ideal32));
  std::printf(
      "one model of all %zu layers (one job): %llu cycles; prepareModel %.3f ms, execution %.3f ms wall "
      "(%.0fx SCALE-Sim's %.0f s, recorded, not measured here)\n",
      layers->size(), static_cast<unsigned long long>(batch.cycles), batch.prepare_s * 1e3,
      batch.execute_s * 1e3, kScaleSimSevenLayersSeconds / batch.execute_s, kScaleSimSevenLayersSeconds);
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc == 1) {
    int status = 0;
    for (const char* m : {"ideal-dram", "ideal-memory"}) {
      const std::string cmd = std::string(argv[0]) + " --memory " + m;
      status |= std::system(cmd.c_str());
      std::printf("\n");
      std::fflush(stdout);
    }
    return status ? 1 : 0;
  }
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--memory" && i + 1 < argc) {
      const std::string m = argv[++i];
      if (m != "ideal-dram" && m != "ideal-memory") {
        std::fprintf(stderr, "anchor_bench: --memory %s: expected ideal-dram or ideal-memory\n", m.c_str());
        return 2;
      }
      o.memory = m == "ideal-dram" ? npu::anchor::Memory::IDEAL_DRAM : npu::anchor::Memory::IDEAL_MEMORY;
    } else if (a == "--csv" && i + 1 < argc) {
      o.csv = argv[++i];
    } else if (a == "--repeat" && i + 1 < argc) {
      o.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--set" && i + 1 < argc) {
      o.sets.push_back(argv[++i]);
    } else if (a == "--functional") {
      o.functional = true;
    } else {
      std::fprintf(
          stderr,
          "anchor_bench: unexpected argument %s (usage: anchor_bench [--memory "
          "ideal-dram|ideal-memory] [--csv FILE] [--repeat N] [--functional] [--set key=value]...)\n",
          a.c_str());
      return 2;
    }
  }
  return run(o);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
