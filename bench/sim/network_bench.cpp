// Whole-network simulation speed: a timing-only inference (npu.functional=false: every descriptor
// takes its time and energy, no data moves on the NPU) of ResNet-18- and MobileNetV2-sized int8
// networks from the zoo (resnet18_quant8, mobilenet_v2_quant8: 224×224×3 → 1000, random weights) on
// the phone-class preset, through the real HAL, driver and NPU. Prints the wall time of
// prepareModel and of the inference, the simulated time and NPU cycles, simulated cycles per wall second,
// and where the operations ran (operations without an NPU lowering run on the host CPU reference, whose
// wall time is part of the inference's). Wall-clock figures are machine-dependent: a benchmark, never
// a test. Target: a ResNet-18 inference in under 0.1 s of wall time.
//
// Beside the simulation it times the analytical floor of the same work: one plain loop over the compiled
// descriptors (compile_for_npu on the device's own target), each costed by its cycle formula alone (the
// array's tile formula per column block, DMA setup + bytes at the slower of engine and DRAM, the vector
// unit's timing-only cycles), summed per engine, a job taking its busiest engine, an operation its
// longest job. That loop is what the simulation would cost with no event kernel, queues or scoreboard;
// the bench prints both wall times and their ratio (the goal: the simulation within 3x of the loop).
// The inference is run several times (--runs, default 5) and the median and minimum quoted.
//
// Last, the event floor: what one SystemC wait per register access (the driver's thread waits out each
// access's bus time) and one per descriptor would cost, in lengths of the loop, at this machine's price
// of a wait, measured here with two threads alternating on 1 ns waits.
//
//   network_bench                       both networks, each in its own process (SystemC cannot restart)
//   network_bench NAME [--runs N] [--set k=v ...]  one zoo network, e.g. resnet18_quant8 --set npu.channels=1
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <systemc>
#include <vector>

#include "npu/hal/compiler.h"
#include "npu/models/zoo.h"
#include "npu/sim/core/systolic_timing.h"
#include "npu/sim/npu.h"
#include "npu/sim/vector_unit.h"
#include "npu/system/system.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The analytical floor of a program's NPU stages: each descriptor's own cycle formula, no interaction.
uint64_t analytical_cycles(const npu::hal::Program& program, const npu::hal::NpuTarget& t, uint32_t lanes) {
  using namespace npu;
  const sim::ArrayGeometry array{t.array_rows, t.array_cols};
  const sim::VectorUnit vector({lanes, t.fp32_macs_per_cycle, t.vector_pipeline_cycles});
  const double dram_cycles_per_byte = t.clock_mhz / 1000.0 / t.dram_gbps;  // cycles/ns ÷ bytes/ns
  uint64_t total = 0;
  for (const auto& stage : program.stages) {
    uint64_t stage_cycles = 0;
    for (const auto& job : stage.jobs) {
      uint64_t engine[3] = {0, 0, 0};  // dma_in, compute, dma_out
      for (const auto& raw : job.commands) {
        switch (desc::opcode_of(raw)) {
          case desc::Opcode::DMA_IN:
          case desc::Opcode::DMA_OUT: {
            const auto d = desc::decode<desc::Dma>(raw);
            const uint64_t bytes = uint64_t{d.rows} * d.row_bytes;
            if (!bytes) break;
            const uint64_t own = div_up(bytes, t.dma_bytes_per_cycle);
            const auto port = static_cast<uint64_t>(static_cast<double>(bytes) * dram_cycles_per_byte);
            engine[desc::opcode_of(raw) == desc::Opcode::DMA_IN ? 0 : 2] +=
                t.dma_setup_cycles + std::max(own, port);
            break;
          }
          case desc::Opcode::CONV_INT8: {
            const auto c = desc::decode<desc::Conv>(raw);
            const uint64_t m = uint64_t{c.out_h} * c.out_w, k = uint64_t{c.kh} * c.kw * c.in_c;
            for (uint64_t j0 = 0; j0 < c.cout; j0 += t.array_cols)
              engine[1] += sim::systolic_int8_tile_cycles(
                  array, static_cast<uint32_t>(m), static_cast<uint32_t>(k),
                  static_cast<uint32_t>(std::min<uint64_t>(t.array_cols, c.cout - j0)));
            break;
          }
          case desc::Opcode::CONV_FP32: {
            const auto c = desc::decode<desc::Conv>(raw);
            const uint64_t macs = uint64_t{c.out_h} * c.out_w * c.kh * c.kw * c.in_c * c.cout;
            engine[1] += div_up(macs, t.fp32_macs_per_cycle) + t.vector_pipeline_cycles;
            break;
          }
          case desc::Opcode::FILL:
            engine[1] += div_up(desc::decode<desc::Fill>(raw).bytes, lanes);
            break;
          default:
            if (sim::VectorUnit::handles(desc::opcode_of(raw)))
              engine[1] += vector.execute(raw, nullptr, 0, false).cycles;
            break;
        }
      }
      stage_cycles = std::max(stage_cycles, *std::max_element(engine, engine + 3));
    }
    total += stage_cycles;
  }
  return total;
}

// Wall seconds per SystemC wait: two threads each wait 1 ns `waits` times, so every wait is a switch.
double seconds_per_wait(int waits) {
  bool done = false;
  sc_core::sc_event finished;
  sc_core::sc_spawn([&] {
    for (int i = 0; i < waits; ++i) sc_core::wait(1, sc_core::SC_NS);
    done = true;
    finished.notify();
  });
  const auto t0 = Clock::now();
  for (int i = 0; i < waits; ++i) sc_core::wait(1, sc_core::SC_NS);
  if (!done) sc_core::wait(finished);
  return seconds_since(t0) / (2.0 * waits);
}

uint64_t counter(npu::system::System& s, const std::string& path) {
  const uint64_t* v = s.stats().find_counter(path);
  return v ? *v : 0;
}

// Descriptors completed on every channel and register accesses, so far.
std::pair<uint64_t, uint64_t> events_so_far(npu::system::System& s) {
  uint64_t descriptors = 0;
  for (uint32_t c = 0; c < s.config().npu.channels; ++c)
    descriptors += counter(s, "npu.ch" + std::to_string(c) + ".descriptors");
  return {descriptors, counter(s, "npu.mmio.reads") + counter(s, "npu.mmio.writes")};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int run_network(const std::string& name, std::vector<std::string> sets, int runs) {
  using namespace npu;
  const auto t_build = Clock::now();
  auto model = models::zoo_model(name, 1, true);
  if (!model) {
    std::fprintf(stderr, "network_bench: %s\n", model.error().c_str());
    return 1;
  }
  const double build_s = seconds_since(t_build);
  sets.insert(sets.begin(), "npu.functional=false");
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", sets);
  if (!cfg) {
    std::fprintf(stderr, "network_bench: %s\n", cfg.error().c_str());
    return 1;
  }
  auto sys = system::System::create(*cfg);
  if (!sys) {
    std::fprintf(stderr, "network_bench: %s\n", sys.error().c_str());
    return 1;
  }
  std::map<uint32_t, models::Tensor> inputs;
  for (uint32_t idx : model->main.input_indexes) {
    const auto& op = model->main.operands[idx];
    inputs[idx] = models::make_tensor(op, op.dimensions);  // zeros: timing-only ignores the values
  }
  double prepare_s = 0, execute_s = 0, execute_min_s = 0, loop_s = 0, loop_min_s = 0, wait_s = 0,
         wait_min_s = 0;
  uint64_t cycles_elapsed = 0, floor_cycles = 0, descriptors = 0, register_accesses = 0;
  std::string placement, error;
  hal::ExecutionResult result;
  auto end = (*sys)->run([&](system::System& s) {
    const auto t0 = Clock::now();
    auto prepared = s.npu_device().prepare_model(*model);
    prepare_s = seconds_since(t0);
    if (!prepared.status.ok()) {
      error = "prepareModel: " + prepared.status.message;
      return;
    }
    placement = prepared.model->placement();
    std::vector<double> walls;
    for (int i = 0; i < runs; ++i) {
      const uint64_t c0 = s.npu().cycle();
      const auto [d0, r0] = events_so_far(s);
      const auto t1 = Clock::now();
      result = prepared.model->execute_synchronously(inputs, true);
      walls.push_back(seconds_since(t1));
      // Later runs may differ from the first (weights already resident, the chip warmer): the figures
      // printed are the last run's.
      cycles_elapsed = s.npu().cycle() - c0;
      const auto [d1, r1] = events_so_far(s);
      descriptors = d1 - d0;
      register_accesses = r1 - r0;
      if (!result.status.ok()) error = "execute: " + result.status.message;
      if (!error.empty()) return;
    }
    execute_s = median(walls);
    execute_min_s = *std::min_element(walls.begin(), walls.end());
    // The same program the device runs (compiled again here, outside the timed loop).
    const auto& target = s.npu_device().target();
    auto program = hal::compile_for_npu(*model, target);
    if (!program) {
      error = "compile: " + program.error();
      return;
    }
    std::vector<double> loops;
    for (int i = 0; i < std::max(runs, 200); ++i) {  // ~0.1 ms each: many, for a steady median
      const auto t2 = Clock::now();
      floor_cycles = analytical_cycles(*program, target, s.config().npu.channel.vector_lanes);
      loops.push_back(seconds_since(t2));
    }
    loop_s = median(loops);
    loop_min_s = *std::min_element(loops.begin(), loops.end());
    std::vector<double> waits;
    for (int i = 0; i < 5; ++i) waits.push_back(seconds_per_wait(100000));
    wait_s = median(waits);
    wait_min_s = *std::min_element(waits.begin(), waits.end());
  });
  if (!end || !error.empty()) {
    std::fprintf(stderr, "network_bench: %s: %s\n", name.c_str(), end ? error.c_str() : end.error().c_str());
    return 1;
  }
  const auto& hw = (*sys)->config().npu;
  std::printf("%s on %u channels of %ux%u at %.0f MHz, timing-only\n", name.c_str(), hw.channels,
              hw.channel.array_rows, hw.channel.array_cols, hw.clock_mhz());
  std::printf("  placement        %s\n", placement.c_str());
  std::printf("  model build      %.3f s wall (random weights; not part of the figures below)\n", build_s);
  std::printf("  prepareModel     %.3f s wall\n", prepare_s);
  std::printf("  inference        %.4f s wall median of %d (min %.4f)   <- target < 0.1 s for ResNet-18\n",
              execute_s, runs, execute_min_s);
  std::printf(
      "  simulated        %llu us latency, %llu us on the NPU, %llu NPU cycles elapsed, %llu channel-busy "
      "cycles in %u command buffers\n",
      static_cast<unsigned long long>(result.timing.time_in_driver_us),
      static_cast<unsigned long long>(result.timing.time_on_device_us),
      static_cast<unsigned long long>(cycles_elapsed), static_cast<unsigned long long>(result.device_cycles),
      result.command_buffers);
  std::printf(
      "  speed            %.1f M simulated cycles per wall second (elapsed NPU clock / inference wall)\n",
      static_cast<double>(cycles_elapsed) / execute_s / 1e6);
  std::printf(
      "  analytical loop  %.5f s wall median (min %.5f), %llu cycles (busiest engine per job, no overlap "
      "between operations)\n",
      loop_s, loop_min_s, static_cast<unsigned long long>(floor_cycles));
  std::printf("  simulation/loop  %.1fx wall (median/median; min/min %.1fx)   <- target <= 3x\n",
              execute_s / loop_s, execute_min_s / loop_min_s);
  // In loop-lengths (median/median, then min/min): what one wait per register access, and per descriptor,
  // would add to the formulas' own cost (the loop).
  const auto in_loops = [&](uint64_t n) {
    return std::make_pair(wait_s * static_cast<double>(n) / loop_s,
                          wait_min_s * static_cast<double>(n) / loop_min_s);
  };
  const auto [regs_med, regs_min] = in_loops(register_accesses);
  const auto [descs_med, descs_min] = in_loops(descriptors);
  std::printf(
      "  event floor      %.0f ns per SystemC wait (median of 5; min %.0f); one wait per register access "
      "(%llu) is %.1fx the loop (min/min %.1fx), one per descriptor (%llu) %.1fx (%.1fx)\n",
      wait_s * 1e9, wait_min_s * 1e9, static_cast<unsigned long long>(register_accesses), regs_med, regs_min,
      static_cast<unsigned long long>(descriptors), descs_med, descs_min);
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    int status = 0;
    for (const char* name : {"resnet18_quant8", "mobilenet_v2_quant8"}) {
      const std::string cmd = std::string(argv[0]) + " " + name;
      status |= std::system(cmd.c_str());
    }
    return status ? 1 : 0;
  }
  std::vector<std::string> sets;
  int runs = 5;
  for (size_t i = 1; i < args.size(); i += 2) {
    if (i + 1 >= args.size() || (args[i] != "--set" && args[i] != "--runs")) {
      std::fprintf(
          stderr,
          "network_bench: unexpected argument %s (usage: network_bench [NAME [--runs N] [--set k=v]...])\n",
          args[i].c_str());
      return 2;
    }
    if (args[i] == "--runs") {
      runs = std::atoi(args[i + 1].c_str());
      if (runs < 1 || runs > 1000) {
        std::fprintf(stderr, "network_bench: --runs %s: expected a whole number from 1 to 1000\n",
                     args[i + 1].c_str());
        return 2;
      }
    } else {
      sets.push_back(args[i + 1]);
    }
  }
  return run_network(args[0], sets, runs);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
