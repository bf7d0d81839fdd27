// TileRunner: executes Int8TileCommands on the verilated C++ model of the channel compute core
// (rtl/npu_compute_core.sv), clock edge by clock edge, serving its SRAM-like ports straight from the
// command's buffers, and returns the cycles each tile took. It is the cycle reference the TLM formula
// (npu/sim/core/systolic_timing.h) is calibrated against, and the fast way to test the RTL bit-exactly.
//
// Not a SystemC module and no notion of time (see rtl_compute_core.h for the co-simulation wrapper);
// not thread-safe; one runner is one instance of the hardware and keeps its state between tiles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npu/sim/core/compute_core.h"

namespace npu::rtl {

class TileRunner {
 public:
  virtual ~TileRunner() = default;
  virtual sim::ArrayGeometry geometry() const = 0;
  // Runs one tile to completion and writes cmd.out. Returns the cycles from the clock edge that
  // samples start to the edge after which done is visible. Throws std::invalid_argument for a
  // command the hardware cannot take (n > cols, strides shorter than rows, null buffers, byte
  // offsets beyond 32 bits) and std::runtime_error if the RTL misbehaves (hang, out-of-range access).
  virtual uint64_t run(const sim::Int8TileCommand& cmd) = 0;
  // Cycles simulated so far, reset and idle cycles included.
  virtual uint64_t total_cycles() const = 0;
};

// The geometries (rows x cols) with a verilated C++ build: 4x4, 8x8, 16x16, 32x32 and 4x16.
std::vector<sim::ArrayGeometry> tile_runner_geometries();

// Builds a runner for `g`; throws std::invalid_argument naming the geometry if there is no C++ build
// for it. A non-empty `vcd_path` writes a VCD waveform of everything the runner simulates (time base:
// a nominal 1 GHz clock, 1000 ps per cycle); waveforms are off, and cost nothing, otherwise.
std::unique_ptr<TileRunner> make_tile_runner(sim::ArrayGeometry g, const std::string& vcd_path = {});

// Depth, in activation rows, of the core's int32 accumulator (RTL parameter ACC_DEPTH): tiles with
// more rows are executed in blocks of this many.
inline constexpr uint32_t kAccumulatorRows = 256;

}  // namespace npu::rtl
