// The TLM compute core: computes a tile with int8_tile_reference and charges the RTL-calibrated cycle
// formula (systolic_int8_tile_cycles) at the channel clock. Fast: one wait per tile, or none when the
// channel charges the cycles itself (compute_int8_tile).
#pragma once

#include "npu/sim/clock.h"
#include "npu/sim/core/compute_core.h"

namespace npu::sim {

class TlmComputeCore : public ComputeCore {
 public:
  TlmComputeCore(ArrayGeometry g, const ClockDomain& clock) : geometry_(g), clock_(clock) {}
  ArrayGeometry geometry() const override { return geometry_; }
  uint64_t run_int8_tile(const Int8TileCommand& cmd) override;
  std::optional<uint64_t> compute_int8_tile(const Int8TileCommand& cmd) override;
  const char* model_name() const override { return "tlm"; }

 private:
  ArrayGeometry geometry_;
  const ClockDomain& clock_;
  Int8WeightCache weights_;  // this channel's recent weight blocks, packed
};

}  // namespace npu::sim
