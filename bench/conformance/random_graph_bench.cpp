// Runs COUNT (default 100,000) seeded random graphs on the NPU device and the CPU reference and prints
// how many agreed and how many did not; failing graphs go to $NPUSIM_RANDOM_GRAPH_DIR (default
// random_graph_failures/ in the working directory) as model + inputs JSON for `npusim run`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <systemc>

#include "random_graph.h"

int sc_main(int argc, char* argv[]) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  const uint64_t first = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  const char* env = std::getenv("NPUSIM_RANDOM_GRAPH_DIR");
  const std::string dir = env ? env : "random_graph_failures";
  std::filesystem::create_directories(dir);
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  if (!cfg.ok()) {
    std::fprintf(stderr, "random_graph_bench: %s\n", cfg.error().c_str());
    return 2;
  }
  auto sys = npu::system::System::create(*cfg);
  if (!sys.ok()) {
    std::fprintf(stderr, "random_graph_bench: %s\n", sys.error().c_str());
    return 2;
  }
  uint64_t passed = 0, failed = 0;
  const auto start = std::chrono::steady_clock::now();
  auto end = (*sys)->run(
      [&](npu::system::System& s) {
        for (uint64_t seed = first; seed < first + count; ++seed) {
          const std::string problem = npu::hal::test::check_random_graph(s, seed, dir);
          if (problem.empty()) {
            ++passed;
          } else {
            ++failed;
            if (failed <= 20) std::printf("FAIL %s\n", problem.c_str());
          }
        }
      },
      1e9);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!end.ok()) {
    std::fprintf(stderr, "random_graph_bench: simulation ended: %s\n", end.error().c_str());
    return 2;
  }
  std::printf("random graphs: %llu run (seeds %llu..%llu), %llu passed, %llu failed, %.1f s\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + count - 1), static_cast<unsigned long long>(passed),
              static_cast<unsigned long long>(failed), seconds);
  return failed == 0 ? 0 : 1;
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
