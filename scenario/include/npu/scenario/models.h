// The models scenario apps run, as the NPU sees them: resident weights (loaded into the weight memory
// when the manager approves), an activation arena, and the command-buffer program of each kind of
// request. Scenario runs are timing-only (JobRequest::timing_only): the NPU charges every cycle, byte and
// picojoule of the descriptors but moves no data, so long multi-tenant runs stay fast.
//   - Built-in small models are real quantised networks built with models::ModelBuilder (seeded) and
//     compiled by the HAL's own compiler (hal::compile_for_npu); their weights image is written at load.
//   - Decoders (LLM-shaped, 1B/3B/7B presets or a custom shape) are lowered here, from their shape only:
//     each layer is four int8 GEMMs (QKV, attention output, gate+up, down), each GEMM tiled to the
//     channel SRAM and split by output columns over the channels. Prefill runs M = prompt tokens through
//     every GEMM; a decode step runs M = 1 plus the output head. A pass is one job of one stage: each
//     channel's command buffer streams its slice of every layer in order, as NPU compilers emit one
//     command stream per core for a whole graph — so a non-preemptive scheduler really is blocked for a
//     whole token. Not modelled: the attention score/softmax work and KV-cache traffic (small next to
//     weight streaming at short contexts), the activation exchange between channels after each layer
//     (no inter-channel barrier in this NPU), weight double-buffering.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/scenario/scenario.h"

namespace npu::scenario {

// One request's work: a chain of stages, each a set of command buffers that may run in parallel.
struct Program {
  std::vector<std::vector<hal::NpuStep>> stages;
  uint64_t macs = 0;
  uint64_t descriptors() const;
};

struct RunnableModel {
  std::string name;
  uint64_t weight_bytes = 0;
  uint64_t arena_bytes = 0;
  std::vector<uint8_t> weights_image;  // written at load (built-ins); empty for decoders
  Program infer;                       // built-ins: one inference
  // Decoders: a prompt of P tokens runs as P / chunk jobs of `prefill` (chunk tokens each) and, when the
  // chunk does not divide P, one job of `prefill_tail` (the rest).
  Program prefill, prefill_tail, decode;
  uint32_t prefill_jobs = 0;  // full chunks
  // The largest command-buffer bytes any one job of this model needs (descriptors × 128 B): the driver
  // copies a job's buffers into its command-buffer space (driver.kernel_reserved_bytes) at submit.
  uint64_t max_job_command_bytes() const;
};

// Built-in names: vision-small, vision-large, assistant, and the decoder presets.
std::vector<std::string> model_names();
bool is_builtin_model(const std::string& name);
std::optional<DecoderShape> decoder_preset(const std::string& name);
// Resident weight bytes of a model spec (decoders from their shape; built-ins by building them).
uint64_t model_weight_bytes(const ModelSpec& spec);

// Builds the model for `target`; `prefill_tokens` sizes a decoder's prompt (0: none), run in jobs of at
// most `prefill_chunk_tokens` tokens.
Result<RunnableModel> build_model(const ModelSpec& spec, const hal::NpuTarget& target, uint32_t prefill_tokens,
                                  uint64_t seed, uint32_t prefill_chunk_tokens = 32);

// A timing-only int8 GEMM (M×K activations times K×N weights) tiled to the channel SRAM: one stage of up
// to target.channels command buffers. Weights are read from `weights_offset` (packed per N-block, K·N
// bytes in all), activations from and results to the arena at 0. Exposed for tests.
std::vector<hal::NpuStep> lower_gemm(uint32_t m, uint32_t k, uint32_t n, const hal::NpuTarget& target,
                                     uint64_t weights_offset);

}  // namespace npu::scenario
