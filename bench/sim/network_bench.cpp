// Whole-network simulation speed: a timing-only inference (npu.functional=false: every descriptor
// takes its time and energy, no data moves on the NPU) of ResNet-18- and MobileNetV2-sized int8
// networks from the zoo (resnet18_quant8, mobilenet_v2_quant8: 224×224×3 → 1000, random weights) on
// the phone-class preset, through the real HAL, driver and NPU. Prints the wall time of
// prepareModel and of the inference, the simulated time and NPU cycles, simulated cycles per wall second,
// and where the operations ran (operations without an NPU lowering run on the host CPU reference, whose
// wall time is part of the inference's). Wall-clock figures are machine-dependent: a benchmark, never
// a test. Target (issue 4): a ResNet-18 inference in under 0.1 s of wall time.
//
//   network_bench                       both networks, each in its own process (SystemC cannot restart)
//   network_bench NAME [--set k=v ...]  one zoo network, e.g. resnet18_quant8 --set npu.channels=1
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "npu/models/zoo.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int run_network(const std::string& name, std::vector<std::string> sets) {
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
  double prepare_s = 0, execute_s = 0;
  uint64_t cycles_elapsed = 0;
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
    const uint64_t c0 = s.npu().cycle();
    const auto t1 = Clock::now();
    result = prepared.model->execute_synchronously(inputs, true);
    execute_s = seconds_since(t1);
    cycles_elapsed = s.npu().cycle() - c0;
    if (!result.status.ok()) error = "execute: " + result.status.message;
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
  std::printf("  inference        %.4f s wall   <- target < 0.1 s for ResNet-18\n", execute_s);
  std::printf("  simulated        %llu us latency, %llu us on the NPU, %llu NPU cycles elapsed, %llu channel-busy "
              "cycles in %u jobs\n",
              static_cast<unsigned long long>(result.timing.time_in_driver_us),
              static_cast<unsigned long long>(result.timing.time_on_device_us),
              static_cast<unsigned long long>(cycles_elapsed), static_cast<unsigned long long>(result.device_cycles),
              result.npu_jobs);
  std::printf("  speed            %.1f M simulated cycles per wall second (elapsed NPU clock / inference wall)\n",
              static_cast<double>(cycles_elapsed) / execute_s / 1e6);
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
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] != "--set") {
      std::fprintf(stderr, "network_bench: unexpected argument %s (usage: network_bench [NAME [--set k=v]...])\n",
                   args[i].c_str());
      return 2;
    }
    sets.push_back(args[i + 1]);
  }
  return run_network(args[0], sets);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
