// RtlComputeCore: the verilated SystemC model of the channel compute core behind the ComputeCore
// interface, so a channel configured with `compute_core.model = "rtl"` runs the real RTL.
//
// run_int8_tile (from an SC_THREAD, as the contract requires) drives the RTL's clock itself, one
// wait per half cycle, at the period clock_period() returns when the tile starts (so DVFS changes
// between tiles are followed), serves the RTL's SRAM ports from the command's buffers, and returns
// with simulated time advanced by exactly cycles x period. Reset happens in delta cycles at the first
// tile, so it costs no simulated time. About 2 us of host time per simulated cycle at 16x16 (measured
// by bench/rtl): meant for verification and waveforms, not for sweeps (the TLM core is the fast path).
//
// Not modelled: contention for the channel SRAM with DMA (the ports are served from the command's
// buffers without delay), the command-register bus. SystemC time resolution must be 1 ps (SystemC's
// default), the RTL's timeprecision. Calls must not overlap (the channel runs one tile at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "npu/sim/core/compute_core.h"

namespace npu::rtl {

class RtlComputeCore : public sc_core::sc_module, public sim::ComputeCore {
 public:
  // Throws std::invalid_argument (naming the geometry) if there is no SystemC build for `g`, or if
  // clock_period is empty. A non-empty `vcd_path` writes a VCD of the core's signals during tiles.
  RtlComputeCore(sc_core::sc_module_name name, sim::ArrayGeometry g,
                 std::function<sc_core::sc_time()> clock_period, std::string vcd_path = {});
  ~RtlComputeCore() override;

  sim::ArrayGeometry geometry() const override { return geometry_; }
  // Throws std::invalid_argument for a command the hardware cannot take (see TileRunner::run), for a
  // zero clock period, or when called while another tile is running on this core.
  uint64_t run_int8_tile(const sim::Int8TileCommand& cmd) override;
  const char* model_name() const override { return "rtl"; }

  class Impl;

 private:
  sim::ArrayGeometry geometry_;
  std::function<sc_core::sc_time()> clock_period_;
  std::unique_ptr<Impl> impl_;
  bool running_ = false;
};

// The geometries with a SystemC build: 4x4 and 16x16.
std::vector<sim::ArrayGeometry> rtl_compute_core_geometries();

// Factory for the channel's `"rtl"` compute core. Throws std::invalid_argument whose message names the
// geometry and lists the supported ones if there is no SystemC build for `g`. Call during elaboration.
std::unique_ptr<sim::ComputeCore> make_rtl_compute_core(sc_core::sc_module_name name, sim::ArrayGeometry g,
                                                        std::function<sc_core::sc_time()> clock_period,
                                                        std::string waves_path = {});

}  // namespace npu::rtl
