// The sequence models of the zoo: an LSTM acoustic model (float, one frame per execution) and
// Llama-shaped transformer decoders (W8A8, timing-only weights), in two forms: with the NPU's vendor
// extension com.npusim.llm (RMS_NORM, ROPE, MATMUL) or with NNAPI 1.3's operations only.
#include <cmath>
#include <stdexcept>
#include <string>

#include "npu/models/builder.h"
#include "npu/models/zoo.h"

namespace npu::models {
namespace {

using fx::FusedActivation;

// --- LSTM acoustic model ------------------------------------------------------------------------
// A projected-LSTM (LSTMP, Sak et al. 2014) acoustic model of the kind MLTS's asr_float times:
// 40 log-mel features per 10 ms frame, 5 LSTMP layers of 768 cells projected to 256, a 4000-way
// softmax over context-dependent states. No peepholes, no CIFG; NNAPI's LSTM is one time step, so
// each execution is one frame and the states are graph inputs and outputs.
constexpr uint32_t kFeatures = 40, kLstmLayers = 5, kCells = 768, kProjection = 256, kStates = 4000;

}  // namespace

Model build_lstm_acoustic(uint64_t seed, bool values) {
  ModelBuilder b(seed, {WeightInit::HeUniform, !values});
  const OperandType f32 = OperandType::TENSOR_FLOAT32;
  uint32_t x = b.input(f32, {1, kFeatures});
  std::vector<uint32_t> state_outputs;
  for (uint32_t layer = 0; layer < kLstmLayers; ++layer) {
    const uint32_t in_size = b.operand(x).dimensions[1];
    std::vector<uint32_t> in{x};
    // 1-4 input-to-{input, forget, cell, output}, 5-8 recurrent-to-*: fan-in = input + recurrent.
    const double bound = std::sqrt(6.0 / (in_size + kProjection));
    for (int g = 0; g < 4; ++g) in.push_back(b.random_constant(f32, {kCells, in_size}, {}, -bound, bound));
    for (int g = 0; g < 4; ++g)
      in.push_back(b.random_constant(f32, {kCells, kProjection}, {}, -bound, bound));
    for (int p = 0; p < 3; ++p) in.push_back(b.no_value(f32));  // 9-11 no peepholes
    for (int g = 0; g < 4; ++g) in.push_back(b.random_constant(f32, {kCells}, {}, -0.05, 0.05));  // 12-15
    const double proj_bound = std::sqrt(6.0 / kCells);
    in.push_back(b.random_constant(f32, {kProjection, kCells}, {}, -proj_bound, proj_bound));  // 16
    in.push_back(b.no_value(f32));                                                             // 17
    in.push_back(b.input(f32, {1, kProjection}));  // 18 output state
    in.push_back(b.input(f32, {1, kCells}));       // 19 cell state
    in.push_back(b.constant_i32(4));               // 20 tanh
    in.push_back(b.constant_f32(0.0f));            // 21 no cell clip
    in.push_back(b.constant_f32(0.0f));            // 22 no proj clip
    const uint32_t scratch = b.tensor(f32, {1, kCells * 4});
    const uint32_t state_out = b.tensor(f32, {1, kProjection});
    const uint32_t cell_out = b.tensor(f32, {1, kCells});
    const uint32_t out = b.tensor(f32, {1, kProjection});
    b.operation(OperationType::LSTM, std::move(in), {scratch, state_out, cell_out, out});
    state_outputs.push_back(state_out);
    state_outputs.push_back(cell_out);
    x = out;
  }
  b.mark_output(b.softmax(b.fully_connected(x, kStates, FusedActivation::NONE), 1.0f));
  for (uint32_t s : state_outputs) b.mark_output(s);
  return b.take();
}

// --- Transformer decoders -----------------------------------------------------------------------
// Published configurations (the models' config.json): hidden size, layers, attention and key/value
// heads, MLP size, vocabulary.
// rope_theta and rms_norm_eps as published too.
DecoderShape decoder_shape_1b() {
  return {"decoder_1b", 16, 2048, 32, 8, 64, 8192, 128256, true, 500000.0f, 1e-5f};
}
DecoderShape decoder_shape_3b() {
  return {"decoder_3b", 28, 3072, 24, 8, 128, 8192, 128256, true, 500000.0f, 1e-5f};
}
DecoderShape decoder_shape_7b() {
  return {"decoder_7b", 32, 4096, 32, 32, 128, 11008, 32000, false, 10000.0f, 1e-5f};
}

namespace {

// W8A8 activation quantisation of the decoder (values are never computed: timing-only).
constexpr QuantParams kHidden{16.0f / 256, 128};
constexpr QuantParams kScores{64.0f / 256, 128};

QuantParams weight_q(uint32_t fan_in) { return {static_cast<float>(std::sqrt(6.0 / fan_in) / 127.0), 128}; }

class DecoderBuilder {
 public:
  DecoderBuilder(const DecoderShape& s, uint32_t tokens, uint32_t context, uint64_t seed, DecoderOps ops)
      : s_(s),
        tokens_(tokens),
        context_(context),
        llm_(ops == DecoderOps::LLM_EXTENSION),
        b_(seed, {WeightInit::HeUniform, true}) {}

  Model build() {
    const uint32_t ids = b_.input(OperandType::TENSOR_INT32, {tokens_});
    if (llm_) position_ = b_.input(OperandType::INT32, {});
    const uint32_t table = b_.random_constant(q8, {s_.vocab, s_.hidden}, kHidden, 0, 255);
    uint32_t x = b_.embedding_lookup(ids, table);
    std::vector<uint32_t> new_kv;
    for (uint32_t layer = 0; layer < s_.layers; ++layer) x = block(x, &new_kv);
    if (tokens_ > 1) x = b_.slice_rows(x, tokens_ - 1, tokens_);  // logits of the last token only
    x = rms_norm(x);
    const uint32_t logits = s_.tied_embeddings ? b_.fully_connected_with(x, table, kHidden) : fc(x, s_.vocab);
    b_.mark_output(logits);
    for (uint32_t kv : new_kv) b_.mark_output(kv);
    return b_.take();
  }

 private:
  static constexpr OperandType q8 = OperandType::TENSOR_QUANT8_ASYMM;

  uint32_t fc(uint32_t x, uint32_t units) {
    const uint32_t fan_in = b_.operand(x).dimensions[1];
    return b_.fully_connected(x, units, FusedActivation::NONE, weight_q(fan_in), kHidden);
  }

  // With the extension: RMS_NORM (epsilon as published). Standard: RMSNorm(x)·g = x / ‖x‖ · √hidden · g as
  // L2_NORMALIZATION, then MUL by a per-channel constant (no epsilon).
  uint32_t rms_norm(uint32_t x) {
    const uint32_t gamma = b_.random_constant(q8, {s_.hidden}, kHidden, 0, 255);
    if (llm_) return b_.rms_norm(x, gamma, s_.rms_norm_eps, kHidden);
    return b_.elementwise(OperationType::MUL, b_.l2_normalization(x), gamma, FusedActivation::NONE, kHidden);
  }

  // Attention of one key/value head's group of query heads: queries [tokens·group, head_dim] against the
  // cached keys [context, head_dim] and values. With the extension the queries are rotated (ROPE), the
  // keys are cached rotated, scores = MATMUL(q, keys, transposed) and the output MATMUL(probs, values)
  // with values [context, head_dim]. Standard: no rotation (NNAPI has none), FULLY_CONNECTED with the
  // caches as runtime weights, values transposed [head_dim, context].
  uint32_t attention_group(uint32_t normed) {
    const uint32_t group = s_.heads / s_.kv_heads, d = s_.head_dim;
    uint32_t q = fc(normed, group * d);
    if (llm_) q = b_.rope(q, position_, d, s_.rope_theta, kHidden);
    q = b_.reshape(q, {tokens_ * group, d});
    const uint32_t keys = b_.input(q8, {context_, d}, kHidden);
    const uint32_t values =
        llm_ ? b_.input(q8, {context_, d}, kHidden) : b_.input(q8, {d, context_}, kHidden);
    const uint32_t scores =
        llm_ ? b_.matmul(q, keys, true, kScores) : b_.fully_connected_with(q, keys, kScores);
    const uint32_t probs = b_.softmax(scores, static_cast<float>(1.0 / std::sqrt(d)));
    const uint32_t out =
        llm_ ? b_.matmul(probs, values, false, kHidden) : b_.fully_connected_with(probs, values, kHidden);
    return b_.reshape(out, {tokens_, group * d});
  }

  uint32_t block(uint32_t x, std::vector<uint32_t>* new_kv) {
    const uint32_t normed = rms_norm(x);
    std::vector<uint32_t> heads;
    for (uint32_t g = 0; g < s_.kv_heads; ++g) heads.push_back(attention_group(normed));
    const uint32_t attn = heads.size() == 1 ? heads[0] : b_.concatenation(heads, 1);
    if (llm_) {  // this step's keys (rotated, as the cache holds them) and values
      const uint32_t width = s_.kv_heads * s_.head_dim;
      new_kv->push_back(b_.rope(fc(normed, width), position_, s_.head_dim, s_.rope_theta, kHidden));
      new_kv->push_back(fc(normed, width));
    } else {
      new_kv->push_back(fc(normed, 2 * s_.kv_heads * s_.head_dim));  // this step's keys and values
    }
    const uint32_t h =
        b_.elementwise(OperationType::ADD, x, fc(attn, s_.hidden), FusedActivation::NONE, kHidden);
    const uint32_t n2 = rms_norm(h);
    const uint32_t gate = fc(n2, s_.ffn);
    const uint32_t up = fc(n2, s_.ffn);
    // SwiGLU: silu(gate)·up with silu(g) = g·logistic(g).
    const uint32_t silu =
        b_.elementwise(OperationType::MUL, gate, b_.logistic(gate), FusedActivation::NONE, kHidden);
    const uint32_t mixed = b_.elementwise(OperationType::MUL, silu, up, FusedActivation::NONE, kHidden);
    return b_.elementwise(OperationType::ADD, h, fc(mixed, s_.hidden), FusedActivation::NONE, kHidden);
  }

  const DecoderShape& s_;
  uint32_t tokens_, context_;
  bool llm_;
  uint32_t position_ = 0;  // INT32 graph input: the position of this step's first token
  ModelBuilder b_;
};

}  // namespace

Model build_decoder(const DecoderShape& shape, uint32_t tokens, uint32_t context, uint64_t seed,
                    DecoderOps ops) {
  if (tokens == 0 || context < tokens)
    throw std::invalid_argument("decoder step needs 0 < tokens <= context");
  if (shape.heads % shape.kv_heads != 0)
    throw std::invalid_argument("decoder heads must be a multiple of kv_heads");
  return DecoderBuilder(shape, tokens, context, seed, ops).build();
}

}  // namespace npu::models
