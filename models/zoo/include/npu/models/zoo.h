// The built-in model zoo: seeded, generated on demand (nothing is downloaded or stored). Reference
// architectures for benchmarks and scenarios, addressed by name ("mobilenet_v2_quant8"; on the CLI
// "--model zoo:mobilenet_v2_quant8"):
//   mobilenet_v1_{float,quant8}, mobilenet_v2_{float,quant8}, resnet18_{float,quant8}  224×224×3 → 1000
//     classes (softmax); "@N" picks another input resolution N (a multiple of 32), e.g. "@96" for tests.
//   lstm_acoustic_float  one 10 ms frame of a 5-layer projected-LSTM acoustic model (MLTS asr-style).
//   decoder_{1b,3b,7b}_{prefill,decode}  Llama-shaped transformer decoders, W8A8, timing-only (weights
//     are sizes only: Operand::values_omitted); "@N" sets the prompt length (prefill, default 256) or
//     the context length (decode, default 1024). They use the NPU's vendor extension com.npusim.llm
//     (RMS_NORM, ROPE, MATMUL); decoder_*_nnapi is the same decoder in NNAPI 1.3 operations only.
// The weights are random (He-uniform, so activations neither vanish nor saturate), not trained: the
// models have the published shapes, parameter counts and MACs, and classify nothing meaningfully.
// Accuracy figures computed with them compare a device against the CPU reference, not against labels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::models {

struct ZooEntry {
  std::string name;
  std::string kind;          // "classifier", "acoustic" or "decoder"
  std::string description;   // one line, with the published figures it reproduces
  bool timing_only = false;  // weights omitted: compile and time only, never compute
};

// Every model of the zoo, in listing order.
const std::vector<ZooEntry>& zoo_entries();

// Builds "name[@N]". Errors name the model and list the known names. With `values` false every weight
// tensor is sizes only (values_omitted), which is quick and enough for shapes and model_figures().
Result<Model> zoo_model(const std::string& name, uint64_t seed = 1, bool values = true);

// The entry of "name[@N]" (nullptr when unknown).
const ZooEntry* find_zoo_entry(const std::string& name);

// "zoo:NAME" builds a zoo model, anything else is read as a model JSON file.
Result<Model> load_model(const std::string& path_or_zoo_name, uint64_t seed = 1);

// --- Builders behind the names (for scenarios that need other sizes) -----------------------------

enum class VisionNet { MobileNetV1, MobileNetV2, ResNet18 };
// `quant8` selects TENSOR_QUANT8_ASYMM throughout (per-tensor scales), else TENSOR_FLOAT32.
Model build_vision(VisionNet net, bool quant8, uint32_t resolution, uint64_t seed, bool values = true);

Model build_lstm_acoustic(uint64_t seed, bool values = true);

// A Llama-style decoder: RMSNorm, rotary position embeddings, grouped-query attention, SwiGLU MLP,
// untied or tied embedding/LM head.
struct DecoderShape {
  std::string name;
  uint32_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  bool tied_embeddings = false;
  float rope_theta = 10000.0f;
  float rms_norm_eps = 1e-5f;
};
DecoderShape decoder_shape_1b();  // Llama 3.2 1B
DecoderShape decoder_shape_3b();  // Llama 3.2 3B
DecoderShape decoder_shape_7b();  // Llama 2 7B

// One step: `tokens` new tokens attending over `context` positions (context ≥ tokens). Prefill is
// tokens = context = prompt length; decode is tokens = 1, context = past + 1.
// LLM_EXTENSION (the zoo's decoder_*): RMS_NORM, ROPE on the queries and new keys, attention as MATMUL of
// the queries and the caches. Graph inputs: token ids [tokens] (TENSOR_INT32), the position of the first
// new token (INT32), then per layer and KV head a key cache [context, head_dim] (rotated keys) and a
// value cache [context, head_dim]. Graph outputs: the logits of the last token [1, vocab], then per layer
// the new keys [tokens, kv_heads·head_dim] (rotated) and values [tokens, kv_heads·head_dim] the runtime
// appends to its caches (the append itself is not part of the graph).
// NNAPI (decoder_*_nnapi): RMSNorm as L2_NORMALIZATION × gamma (no epsilon), no rotary embedding (NNAPI
// 1.3 has no operation for it), attention as FULLY_CONNECTED with the caches as runtime weights. Inputs:
// token ids, then per layer and KV head a key cache [context, head_dim] and a transposed value cache
// [head_dim, context]; outputs: the logits, then per layer the new keys and values [tokens,
// 2·kv_heads·head_dim].
enum class DecoderOps { LLM_EXTENSION, NNAPI };
Model build_decoder(const DecoderShape& shape, uint32_t tokens, uint32_t context, uint64_t seed,
                    DecoderOps ops = DecoderOps::LLM_EXTENSION);

}  // namespace npu::models
