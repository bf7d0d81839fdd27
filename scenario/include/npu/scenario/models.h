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
//     whole token. Attention is charged per pass for the context it sees: in every layer the scores
//     (queries against the K cache) and the weighted sum (against the V cache) as two more GEMMs whose
//     second operand streams from the KV cache in the arena, so a pass at a 2,048-token context reads
//     2,048 tokens of cache and does 2,048 tokens' attention MACs. Context is counted in whole KV blocks
//     (kKvBlockTokens, as paged KV caches allocate it). Not modelled: softmax and rotary embeddings
//     (elementwise), the activation exchange between channels after each layer (no inter-channel
//     barrier in this NPU), weight double-buffering.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/hal/prepared_program.h"
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
  uint32_t prefill_chunk = 0;
  // Decoders: the attention part of a pass of `m` tokens over a context of `blocks` KV blocks, keyed
  // {m, blocks}; a pass's job runs its weights' program, then this.
  std::map<std::pair<uint32_t, uint32_t>, Program> attention;
  // As the HAL loads it: the weights (sized only for decoders) and every non-empty program by name (infer,
  // prefill, prefill_tail, decode and attention_program(m, blocks)), run timing-only. The programs'
  // stages move into it (a 7B decoder's are large); their other fields stay.
  hal::PrecompiledModel take_precompiled();
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

// The name of RunnableModel::attention's program {m, blocks} in the precompiled model.
std::string attention_program(uint32_t m, uint32_t blocks);

// Tokens per KV-cache block: a pass's attention is charged for its context rounded up to whole blocks.
constexpr uint32_t kKvBlockTokens = 128;
inline uint32_t kv_blocks(uint64_t tokens) {
  return static_cast<uint32_t>((tokens + kKvBlockTokens - 1) / kKvBlockTokens);
}

// Builds the model for `target`; `prefill_tokens` sizes a decoder's prompt (0: none), run in jobs of at
// most `prefill_chunk_tokens` tokens, followed by `decode_tokens` one-token passes (which size the KV cache).
Result<RunnableModel> build_model(const ModelSpec& spec, const hal::NpuTarget& target,
                                  uint32_t prefill_tokens, uint64_t seed, uint32_t prefill_chunk_tokens = 32,
                                  uint32_t decode_tokens = 0);

// A timing-only int8 GEMM (M×K activations times K×N weights) tiled to the channel SRAM: one stage of up
// to target.channels command buffers. Weights are read from `weights_offset` (packed per N-block, K·N
// bytes in all), activations from and results to the arena at 0. Exposed for tests.
// `b_region`: where the K×N operand lives (the weights, or the KV cache in the arena).
std::vector<hal::NpuStep> lower_gemm(uint32_t m, uint32_t k, uint32_t n, const hal::NpuTarget& target,
                                     uint64_t weights_offset, hal::Region b_region = hal::Region::WEIGHTS);

}  // namespace npu::scenario
