// Long fault soak; exit 1 when an invariant failed (the counters say which), 2 on bad arguments.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>

#include "npu/mlts/soak.h"

int sc_main(int argc, char* argv[]) {
  npu::mlts::SoakOptions o;
  o.hw = NPUSIM_SOURCE_DIR "/configs/npu/default.json";
  o.simulated_s = 5.0;
  try {
    if (argc > 1) o.simulated_s = std::stod(argv[1]);
    if (argc > 2) o.seed = std::stoull(argv[2]);
    if (argc > 3) o.tenants = static_cast<uint32_t>(std::stoul(argv[3]));
  } catch (const std::exception&) {
    std::fprintf(stderr, "usage: soak_bench [SIMULATED_SECONDS [SEED [TENANTS]]]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto c = npu::mlts::run_soak(o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!c) {
    std::fprintf(stderr, "soak_bench: %s\n", c.error().c_str());
    return 1;
  }
  std::printf("fault soak: %.3g s simulated, seed %llu, %u tenants\n", o.simulated_s,
              static_cast<unsigned long long>(o.seed), o.tenants);
  std::fputs(npu::mlts::soak_table(*c).c_str(), stdout);
  std::printf("  %-24s %.1f s\n", "wall", wall);
  const auto bad = npu::mlts::soak_violations(*c);
  for (const auto& why : bad) std::printf("  VIOLATED: %s\n", why.c_str());
  std::printf("%s\n", bad.empty() ? "all invariants held" : "invariants failed");
  return bad.empty() ? 0 : 1;
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
