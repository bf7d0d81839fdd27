// The per-layer table of one run: a row per operation of the main graph with where it ran (NPU, CPU
// stage, control flow) and why, its command buffers and MACs as the NPU compiler lowered it for this
// hardware, its output shape, and — from the run's Perfetto trace — when its command buffers ran on the
// channels. The compiler is deterministic, so compiling the model again for the same target gives the program
// the device ran. Timing comes only from NPU command buffers: CPU stages and models with IF/WHILE get none.
// It does not simulate anything.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/hal/compiler.h"
#include "npu/models/model.h"

namespace npu::tools {

struct LayerRow {
  uint32_t operation = 0;
  std::string type;              // CONV_2D, ...
  std::string where;             // "npu", "cpu" or "control_flow"
  std::string cpu_reason;        // why not on the NPU (where == "cpu")
  uint32_t command_buffers = 0;  // of its stage: one per channel used
  uint64_t macs = 0;             // multiply-accumulates the NPU jobs perform
  uint32_t tiles = 0;            // compute descriptors (array, vector or pooling tiles) of its NPU jobs
  uint64_t dram_bytes = 0;       // bytes its DMA descriptors move between device memory and SRAM (in + out)
  std::string output_type;       // of the first output
  std::vector<uint32_t> output_dims;
  bool timed = false;      // the fields below are known
  double start_us = 0;     // first command buffer start, simulated µs from the start of the run
  double device_us = 0;    // first start → last end of its command buffers
  double busy_us = 0;      // Σ command-buffer durations (channel-µs)
  uint64_t energy_pj = 0;  // Σ command-buffer energy
  // Engine time inside its command buffers (channel-µs, from the trace's descriptor spans): the compute
  // engine, each DMA engine, and `stall_us`, command-buffer time the compute engine was not computing
  // (waiting for data or dependencies).
  double compute_us = 0, dma_in_us = 0, dma_out_us = 0, stall_us = 0;
  // MACs over what the MAC arrays of its command buffers could do in their time (0 for no MACs).
  double array_utilisation = 0;
};

// `trace`: Tracer::to_json() of the run (nullptr: no timing). `target`: the full NPU device's compiler
// target (hal::target_for of the driver's device info), or with `on_cpu_device` the CPU reference device
// ran the model (every row "cpu", no jobs, MACs or timing).
std::vector<LayerRow> layer_table(const models::Model& model, const hal::NpuTarget& target,
                                  const nlohmann::json* trace, bool on_cpu_device = false);

}  // namespace npu::tools
