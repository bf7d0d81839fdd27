// The shape sweep: a seeded family of layer shapes (shape_family.h) each run alone as a quant8 model on
// one channel of a 32×32 array with near-ideal memory (anchor_layers.h), timing-only, through the real
// HAL, driver and NPU. Per shape it prints the simulated cycles (CH_CYCLES of the layer's command
// buffer), the ideal, the fold floor, SCALE-Sim's analytical WS and OS, the compiler's predicted cycles
// and the tiling; then the distribution over the MAC-array shapes with M ≥ 32 (within 1.10× the ideal,
// within 1.10× the fold floor, at or below WS) and the worst ten. Depthwise layers run on the vector
// unit (64 lanes: ideal MACs / 64); they are listed with that ideal and kept out of the array's figures.
//
//   shape_sweep_bench [--seed N] [--count N] [--memory ideal-dram|ideal-memory] [--set k=v]...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "anchor_layers.h"
#include "npu/models/builder.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "shape_family.h"

namespace {

struct Row {
  npu::anchor::LayerShape shape;
  npu::anchor::ShapeFigures fig;
  uint64_t cycles = 0, predicted = 0;
  std::string placement, tiling, error;
};

struct Options {
  uint64_t seed = 49;
  size_t count = 240;
  npu::anchor::Memory memory = npu::anchor::Memory::IDEAL_DRAM;
  std::vector<std::string> sets;
};

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

int run(const Options& o) {
  using namespace npu;
  std::vector<std::string> sets = anchor::near_ideal_overrides(o.memory);
  sets.push_back("npu.functional=false");
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", sets);
  if (!cfg) {
    std::fprintf(stderr, "shape_sweep_bench: %s\n", cfg.error().c_str());
    return 1;
  }
  auto sys = system::System::create(*cfg);
  if (!sys) {
    std::fprintf(stderr, "shape_sweep_bench: %s\n", sys.error().c_str());
    return 1;
  }
  const auto& hw = (*sys)->config().npu;
  const uint32_t rows = hw.channel.array_rows, cols = hw.channel.array_cols;
  std::vector<Row> table;
  for (const auto& s : anchor::shape_family(o.seed, o.count)) {
    Row r;
    r.shape = s;
    r.fig = anchor::shape_figures(s, rows, cols);
    table.push_back(r);
  }
  auto end = (*sys)->run([&](system::System& sy) {
    for (Row& r : table) {
      const auto model = anchor::shape_model(r.shape, 1, true);
      auto prepared = sy.npu_device().prepare_model(model);
      if (!prepared.status.ok()) {
        r.error = prepared.status.message;
        continue;
      }
      r.placement = prepared.model->placement();
      hal::TensorMap inputs;
      for (uint32_t idx : model.main.input_indexes)
        inputs[idx] = models::make_tensor(model.main.operands[idx], model.main.operands[idx].dimensions);
      auto e = prepared.model->execute_synchronously(inputs, false);
      if (!e.status.ok()) {
        r.error = e.status.message;
        continue;
      }
      r.cycles = e.device_cycles;
      const auto t = prepared.model->tilings();
      if (!t.empty()) {
        r.predicted = t.front().predicted_cycles;
        r.tiling = t.front().tiling;
      }
    }
  });
  if (!end) {
    std::fprintf(stderr, "shape_sweep_bench: %s\n", end.error().c_str());
    return 1;
  }
  std::printf("%s: shape family seed %llu, %zu shapes, one %ux%u channel, %u KiB SRAM; DMA %u B/cycle\n",
              anchor::to_string(o.memory), static_cast<unsigned long long>(o.seed), table.size(), rows, cols,
              hw.channel.sram_kib, hw.channel.dma_bytes_per_cycle);
  std::printf("%4s %-32s %6s %6s %6s %11s %11s %7s %11s %7s %11s %11s %11s %7s  %s\n", "#", "shape", "M", "K",
              "N", "cycles", "ideal", "/ideal", "fold", "/fold", "WS", "OS", "predicted", "/pred", "tiling");
  size_t i = 0;
  for (const Row& r : table) {
    ++i;
    const bool dw = r.shape.kind == anchor::ShapeKind::DEPTHWISE;
    // Depthwise: the vector unit's ideal (one MAC per lane per cycle).
    const uint64_t lanes = std::max(1u, hw.channel.vector_lanes);
    const uint64_t ideal = dw ? (r.shape.macs() + lanes - 1) / lanes : r.fig.ideal;
    std::printf(
        "%4zu %-32s %6llu %6llu %6llu %11llu %11llu %7.3f %11llu %7.3f %11llu %11llu %11llu %7.3f  %s\n", i,
        r.shape.name().c_str(), static_cast<unsigned long long>(r.shape.m()),
        static_cast<unsigned long long>(r.shape.k()), static_cast<unsigned long long>(r.shape.n()),
        static_cast<unsigned long long>(r.cycles), static_cast<unsigned long long>(ideal),
        ratio(r.cycles, ideal), static_cast<unsigned long long>(r.fig.fold_floor),
        ratio(r.cycles, r.fig.fold_floor), static_cast<unsigned long long>(r.fig.scalesim_ws),
        static_cast<unsigned long long>(r.fig.scalesim_os), static_cast<unsigned long long>(r.predicted),
        ratio(r.cycles, r.predicted),
        !r.error.empty()       ? ("error: " + r.error).c_str()
        : r.placement != "npu" ? ("placement " + r.placement).c_str()
        : dw                   ? "vector unit (ideal = MACs / lanes)"
                               : r.tiling.c_str());
  }
  // The MAC-array shapes with M ≥ 32 that ran on the NPU.
  std::vector<const Row*> arr;
  size_t dw = 0, small_m = 0, failed = 0;
  for (const Row& r : table) {
    if (!r.error.empty() || r.placement != "npu")
      ++failed;
    else if (r.shape.kind == anchor::ShapeKind::DEPTHWISE)
      ++dw;
    else if (r.shape.m() < 32)
      ++small_m;
    else
      arr.push_back(&r);
  }
  size_t in_ideal = 0, in_fold = 0, under_ws = 0, under_os = 0, pred_10 = 0;
  for (const Row* r : arr) {
    in_ideal += r->cycles * 10 <= r->fig.ideal * 11;
    in_fold += r->cycles * 10 <= r->fig.fold_floor * 11;
    under_ws += r->cycles <= r->fig.scalesim_ws;
    under_os += r->cycles <= r->fig.scalesim_os;
    const double pr = ratio(r->cycles, r->predicted);
    pred_10 += pr >= 0.9 && pr <= 1.1;
  }
  std::printf(
      "\n%zu shapes: %zu array shapes with M >= 32, %zu with M < 32, %zu depthwise (vector unit), %zu not on "
      "the NPU or failed\n",
      table.size(), arr.size(), small_m, dw, failed);
  std::printf(
      "M >= 32: %zu / %zu within 1.10x ideal, %zu / %zu within 1.10x fold floor, %zu / %zu <= SCALE-Sim WS, "
      "%zu / %zu <= OS, prediction within 10%% of simulated: %zu / %zu\n",
      in_ideal, arr.size(), in_fold, arr.size(), under_ws, arr.size(), under_os, arr.size(), pred_10,
      arr.size());
  auto worst = [&](const char* what, auto key) {
    std::vector<const Row*> v = arr;
    std::stable_sort(v.begin(), v.end(), [&](const Row* a, const Row* b) { return key(*a) > key(*b); });
    std::printf("\nworst ten by %s (M >= 32):\n", what);
    for (size_t j = 0; j < std::min<size_t>(10, v.size()); ++j)
      std::printf("  %-32s M %6llu K %6llu N %5llu  /ideal %6.3f  /fold %6.3f  /WS %6.3f  /pred %6.3f  %s\n",
                  v[j]->shape.name().c_str(), static_cast<unsigned long long>(v[j]->shape.m()),
                  static_cast<unsigned long long>(v[j]->shape.k()),
                  static_cast<unsigned long long>(v[j]->shape.n()), ratio(v[j]->cycles, v[j]->fig.ideal),
                  ratio(v[j]->cycles, v[j]->fig.fold_floor), ratio(v[j]->cycles, v[j]->fig.scalesim_ws),
                  ratio(v[j]->cycles, v[j]->predicted), v[j]->tiling.c_str());
  };
  worst("cycles / ideal", [](const Row& r) { return ratio(r.cycles, r.fig.ideal); });
  worst("cycles / fold floor", [](const Row& r) { return ratio(r.cycles, r.fig.fold_floor); });
  worst("cycles / SCALE-Sim WS", [](const Row& r) { return ratio(r.cycles, r.fig.scalesim_ws); });
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--count" && i + 1 < argc) {
      o.count = std::max(1ul, std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--memory" && i + 1 < argc) {
      const std::string m = argv[++i];
      if (m != "ideal-dram" && m != "ideal-memory") {
        std::fprintf(stderr, "shape_sweep_bench: --memory %s: expected ideal-dram or ideal-memory\n",
                     m.c_str());
        return 2;
      }
      o.memory = m == "ideal-dram" ? npu::anchor::Memory::IDEAL_DRAM : npu::anchor::Memory::IDEAL_MEMORY;
    } else if (a == "--set" && i + 1 < argc) {
      o.sets.push_back(argv[++i]);
    } else {
      std::fprintf(
          stderr,
          "shape_sweep_bench: unexpected argument %s (usage: shape_sweep_bench [--seed N] [--count N] "
          "[--memory ideal-dram|ideal-memory] [--set key=value]...)\n",
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
