// The NPU compiler: lowers the NPU-supported operations of a model to command-buffer descriptors.
// For each CONV_2D / FULLY_CONNECTED it tiles the output into (output-channel block × output-row band)
// tiles that fit the channel SRAM, packs weights (K × block, uint8 shifted to int8, zero-point terms
// folded into the bias) and per-channel requantisation parameters into one weights image, and places
// every non-constant operand in an activation arena (in the model's layout, row-major, no padding).
// Descriptors carry DMA addresses relative to the weights image or the arena; relocate() makes them
// absolute once the prepared model has its buffer objects. It does not run anything.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/regmap/descriptors.h"

namespace npu::hal {

// What the compiler needs to know of the hardware. A device's comes from the driver's device-info query
// (hal::target_for, device.h); these defaults, the phone-class preset's, serve compile-only tools and tests.
struct NpuTarget {
  uint32_t array_rows = 16;
  uint32_t array_cols = 16;
  uint64_t sram_bytes = 512 * 1024;
  uint32_t channels = 1;  // an operation's tiles are spread over this many parallel jobs
  // Timing of a channel, for the compiler's cost model (defaults: the phone-class preset).
  double clock_mhz = 1000;
  uint32_t dma_bytes_per_cycle = 32;  // per DMA engine
  uint32_t dma_setup_cycles = 16;
  uint32_t descriptor_fetch_cycles = 4;
  uint32_t queue_depth = 4;  // descriptors queued ahead per engine
  double dram_gbps = 25.6;   // shared by every channel
  double dram_latency_ns = 100;
  uint32_t fp32_macs_per_cycle = 64;
  uint32_t vector_pipeline_cycles = 8;
  // Operation types this device lowers at all (empty: every type the compiler can lower); the
  // "minimal" NPU device narrows it so the rest runs on the CPU.
  std::vector<models::OperationType> lowered_operations;
};

enum class Region : uint8_t { WEIGHTS, ARENA };

struct Relocation {
  uint32_t descriptor;
  Region region;
};

struct ArenaSlot {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// One job: a command buffer for one channel.
struct NpuStep {
  std::vector<desc::Raw> commands;
  std::vector<Relocation> relocations;
  uint64_t macs = 0;
};

// One operation. On the NPU its jobs run in parallel on different channels; an operation the NPU
// cannot run is a CPU stage: `cpu_model` is that operation alone, its inputs and outputs renumbered
// (cpu_inputs[i] / cpu_outputs[i] = original operand of the sub-model's i-th graph input / output).
// The next stage starts when the previous one ended.
// An IF or WHILE is a control-flow stage: the HAL interprets it on the host, running the prepared
// models of its referenced subgraphs (each compiled like any model) with the operation's operands.
struct Stage {
  uint32_t operation = 0;
  std::vector<NpuStep> jobs;
  // CONV_2D / FULLY_CONNECTED on the MAC array: the chosen tiling in words and the cost model's cycles
  // for its longest job (0: not a MAC-array stage).
  std::string tiling;
  uint64_t predicted_cycles = 0;
  bool control_flow = false;
  bool on_cpu = false;
  std::string cpu_reason;
  models::Model cpu_model;
  std::vector<uint32_t> cpu_inputs, cpu_outputs;
};

// The packed constants the NPU reads by DMA. A timing-only model's constants have no values, so its
// image is sized but not materialised (a 7B decoder's would be 7 GB of zeros); every offset and size is
// the same as with values, so descriptors and timing are too.
class WeightsImage {
 public:
  explicit WeightsImage(bool materialised = true) : materialised_(materialised) {}
  explicit WeightsImage(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)), size_(bytes_.size()) {}
  uint64_t size() const { return size_; }
  bool materialised() const { return materialised_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }  // empty unless materialised
  void align_to(uint64_t alignment);
  // Appends `n` bytes (ignored unless materialised) and returns their offset.
  uint64_t append(const void* data, uint64_t n);

 private:
  std::vector<uint8_t> bytes_;
  uint64_t size_ = 0;
  bool materialised_ = true;
};

struct Program {
  std::vector<Stage> stages;
  WeightsImage weights;
  bool timing_only = false;             // some constant has no values: runs give timing, not outputs
  std::map<uint32_t, ArenaSlot> arena;  // operand index → slot
  uint64_t arena_bytes = 0;
  uint64_t tiles = 0;
  uint32_t cpu_operations = 0;
  uint32_t control_flow_operations = 0;
};

// Why the NPU cannot run operation `index` (empty = it can). Reasons are data type, parameters
// or SRAM limits, in words.
std::string npu_unsupported_reason(const models::Model& model, uint32_t index, const NpuTarget& target);

// Compiles the main graph: every operation the NPU supports is lowered to descriptors, the others
// become CPU stages (the partitioning NNAPI's framework would do). Fails when an operand has unknown
// dimensions or an operation runs nowhere. A model with omitted constant values (timing-only) compiles
// to a timing-only program.
Result<Program> compile_for_npu(const models::Model& model, const NpuTarget& target);

// Operation `index` of the main graph as a one-operation model (constants kept, graph inputs = its
// non-constant inputs, graph outputs = its outputs), for running it alone on the CPU reference.
models::Model extract_operation(const models::Model& model, uint32_t index, std::vector<uint32_t>* inputs,
                                std::vector<uint32_t>* outputs);

// Rewrites the relative DMA addresses of `step` to absolute device addresses: `device_address(region,
// offset)` places each; the second form places the weights image and the arena as wholes.
std::vector<desc::Raw> relocate(const NpuStep& step,
                                const std::function<uint64_t(Region, uint64_t)>& device_address);
std::vector<desc::Raw> relocate(const NpuStep& step, uint64_t weights_base, uint64_t arena_base);

}  // namespace npu::hal
