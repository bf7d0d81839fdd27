// The channel's vector unit: depthwise convolution (DWCONV_*), elementwise (ELTWISE), unary (UNARY:
// activations, requantisation, table lookup), pooling (POOL), reductions (REDUCE), SOFTMAX, and the
// com.npusim.llm extension's RMS_NORM and ROPE descriptors, on operands already in the channel's
// SRAM. It is a functional and timing model with no SystemC process of its own: the channel's compute
// engine asks for the footprint (for its SRAM hazard scoreboard), calls execute() and then waits the
// returned cycles at the channel clock. Numerics follow NNAPI's reference exactly (the HAL's conformance
// tests run the same vectors on the NPU and the CPU device), RMS_NORM and ROPE the semantics in
// descriptors.h (no CPU reference: hand-worked tests); the cycle formulas are in vector_unit.cpp.
// Not modelled: lane-level pipelining hazards, SRAM bank conflicts of the vector unit's own accesses.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"

namespace npu::sim {

struct SramRange {
  uint32_t offset = 0;
  uint32_t bytes = 0;
};

// The SRAM a descriptor reads and writes; two descriptors with overlapping write/any ranges must not
// run out of order.
struct SramFootprint {
  std::vector<SramRange> reads, writes;
};

struct VectorUnitConfig {
  uint32_t lanes = 64;                // 8-bit elements per cycle for elementwise/unary/pool/reduce work
  uint32_t fp32_macs_per_cycle = 64;  // float MACs per cycle (CONV_FP32, DWCONV_FP32, float vector ops)
  uint32_t pipeline_cycles = 8;       // fixed latency per descriptor
};

enum class MacKind { NONE, INT8, FP32 };

struct VectorOpResult {
  regs::ChannelError error = regs::ChannelError::NONE;
  uint64_t cycles = 0;  // the time the descriptor occupies the vector unit, at the channel clock
  uint64_t macs = 0;    // multiply-accumulates (for stats and energy)
  MacKind mac_kind = MacKind::NONE;
  uint64_t sram_bytes = 0;  // SRAM bytes read plus written (for energy)
};

class VectorUnit {
 public:
  explicit VectorUnit(VectorUnitConfig cfg) : cfg_(cfg) {}

  // True for the opcodes this unit executes.
  static bool handles(desc::Opcode op);
  // Fills `fp` with the SRAM ranges `raw` reads and writes; BAD_DESCRIPTOR for fields out of range,
  // SRAM_OVERFLOW for a range beyond `sram_bytes`. Pure: no state changes.
  regs::ChannelError footprint(const desc::Raw& raw, uint64_t sram_bytes, SramFootprint* fp) const;
  // Executes `raw` on `sram` (functional = false: timing only, no byte of SRAM is read or written).
  // The caller has checked footprint() first.
  VectorOpResult execute(const desc::Raw& raw, uint8_t* sram, uint64_t sram_bytes, bool functional) const;

  const VectorUnitConfig& config() const { return cfg_; }

 private:
  VectorUnitConfig cfg_;
};

}  // namespace npu::sim
