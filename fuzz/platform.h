// One simulated phone shared by every input of a fuzz target that needs the simulation (hal,
// driver_ioctl, registers): a SystemC kernel cannot be reset, so a process builds one System and each
// input runs on it as a host thread (System::run_another), paused, not stopped, in between.
//
// Reproducing an input standalone: each input opens its own driver context (or soft-resets the NPU)
// and releases everything it made before it returns; threads it left are unwound. What carries over
// from earlier inputs is simulated time, the DRAM bytes outside what an input writes, and the driver's
// counters, none of which an input's checks read, so a saved input fails alone as it failed in the run
// (fuzz_replay_<target> replays each file that way, one after another in one process, as the fuzzer).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bytes.h"
#include "npu/system/system.h"

namespace npu::fuzz {

inline system::System& platform() {
  static system::System* sys = [] {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // no banner per fuzzing process
    auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
    if (!cfg) {
      std::fprintf(stderr, "fuzz platform: %s\n", cfg.error().c_str());
      std::abort();
    }
    auto s = system::System::create(*cfg);
    if (!s) {
      std::fprintf(stderr, "fuzz platform: %s\n", s.error().c_str());
      std::abort();
    }
    return s->release();  // lives as long as the process: SystemC's objects outlive any teardown order
  }();
  return *sys;
}

// Runs `body` for one input; false when it did not finish within `limit_s` of simulated time (the
// harness bounds its own work well below that, so this is a hang worth a crash report).
inline bool run_input(const std::function<void(system::System&)>& body, double limit_s,
                      bool probe_driver = true) {
  auto r = platform().run_another(body, limit_s, probe_driver);
  if (!r) {
    std::fprintf(stderr, "fuzz platform: %s\n", r.error().c_str());
    return false;
  }
  return true;
}

}  // namespace npu::fuzz
