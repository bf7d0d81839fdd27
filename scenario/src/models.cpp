#include "npu/scenario/models.h"

#include <algorithm>

#include "npu/models/builder.h"
#include "npu/regmap/descriptors.h"

namespace npu::scenario {
namespace {

using fx::FusedActivation;
using models::OperandType;

// Built-in small networks. Sizes are chosen so that, alone on the default 4-channel NPU, a camera
// frame takes a few ms (30 fps leaves most of the NPU free) and an assistant request about a ms.
struct Builtin {
  const char* name;
  const char* description;
  models::Model (*build)(uint64_t seed);
};

models::Model conv_net(uint64_t seed, uint32_t size, uint32_t width) {
  models::ModelBuilder b(seed);
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, mid_q{0.05f, 100}, out_q{0.1f, 128};
  uint32_t h = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, size, size, 16}, in_q);
  h = b.conv_2d(h, width, 3, 3, 1, 1, FusedActivation::RELU, w_q, mid_q);
  h = b.conv_2d(h, width, 3, 3, 1, 1, FusedActivation::RELU, w_q, mid_q);
  h = b.conv_2d(h, 2 * width, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
  h = b.conv_2d(h, 2 * width, 3, 3, 1, 1, FusedActivation::RELU, w_q, mid_q);
  h = b.conv_2d(h, 4 * width, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
  b.mark_output(b.conv_2d(h, 16, 1, 1, 1, 1, FusedActivation::NONE, w_q, out_q));  // per-position head
  return b.take();
}

models::Model mlp(uint64_t seed, uint32_t batch, uint32_t width, uint32_t layers) {
  models::ModelBuilder b(seed);
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, mid_q{0.05f, 100};
  uint32_t h = b.input(OperandType::TENSOR_QUANT8_ASYMM, {batch, width}, in_q);
  for (uint32_t i = 0; i < layers; ++i) h = b.fully_connected(h, width, FusedActivation::RELU, w_q, mid_q);
  b.mark_output(h);
  return b.take();
}

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> kBuiltins = {
      {"vision-small", "5 3x3 convolutions on 128x128x16 + a 1x1 head, 2.0 G MACs (camera frame)",
       [](uint64_t seed) { return conv_net(seed, 128, 64); }},
      {"vision-large", "5 3x3 convolutions on 160x160x16 + a 1x1 head, 3.1 G MACs (photo indexing)",
       [](uint64_t seed) { return conv_net(seed, 160, 64); }},
      {"assistant", "4 fully-connected 1024-wide layers on 64 tokens (assistant request)",
       [](uint64_t seed) { return mlp(seed, 64, 1024, 4); }},
  };
  return kBuiltins;
}

struct DecoderPreset {
  const char* name;
  DecoderShape shape;
};
// Llama-like shapes (int8 weights): ≈ 1.0 GB, 2.7 GB and 6.6 GB.
const std::vector<DecoderPreset>& decoder_presets() {
  static const std::vector<DecoderPreset> kPresets = {
      {"decoder-1b", {16, 2048, 8192, 4, 32000}},
      {"decoder-3b", {26, 3072, 8192, 2, 32000}},
      {"decoder-7b", {32, 4096, 11008, 1, 32000}},
  };
  return kPresets;
}

// Columns of a K-deep weight block that fit the SRAM beside `rows` activation rows (0: none).
uint64_t gemm_block_columns(uint32_t rows, uint32_t k, uint64_t sram) {
  const uint64_t act = uint64_t{rows} * k;
  return act + 4096 >= sram ? 0 : (sram - act - 4096) / (uint64_t{k} + rows + 12);
}

// Arena: activations in at 0 (M×K), results out after them (M×N).
uint64_t gemm_arena_bytes(uint32_t m, uint32_t k, uint32_t n) { return uint64_t{m} * k + uint64_t{m} * n; }

// Appends a GEMM to the one stage of `p`: buffer b of the GEMM goes to the end of channel b's buffer.
void append_gemm(Program* p, uint32_t m, uint32_t k, uint32_t n, const hal::NpuTarget& target,
                 uint64_t* weights_offset, uint64_t* arena, hal::Region b_region = hal::Region::WEIGHTS) {
  if (p->stages.empty()) p->stages.emplace_back();
  auto& buffers = p->stages.front();
  auto steps = lower_gemm(m, k, n, target, *weights_offset, b_region);
  if (buffers.size() < steps.size()) buffers.resize(steps.size());
  for (size_t b = 0; b < steps.size(); ++b) {
    hal::NpuStep& into = buffers[b];
    const auto base = static_cast<uint32_t>(into.commands.size());
    for (auto r : steps[b].relocations) into.relocations.push_back({r.descriptor + base, r.region});
    into.commands.insert(into.commands.end(), steps[b].commands.begin(), steps[b].commands.end());
    into.macs += steps[b].macs;
  }
  p->macs += uint64_t{m} * k * n;
  *weights_offset += uint64_t{k} * n;
  *arena = std::max(*arena, gemm_arena_bytes(m, k, n));
}

// One pass of `m` tokens through every layer; `head`: also the output projection (decode). One job of one
// stage: each channel streams its column slice of every GEMM, layer after layer (a tensor-parallel split
// as NPU compilers emit whole-graph command streams per core). The exchange of activations between
// channels after each layer is not modelled (this NPU has no inter-channel barrier; see models.h).
Program lower_decoder(const DecoderShape& d, uint32_t m, bool head, const hal::NpuTarget& target,
                      uint64_t* arena) {
  Program p;
  uint64_t w = 0;
  const uint32_t kv = d.hidden / d.kv_heads_ratio;
  for (uint32_t l = 0; l < d.layers; ++l) {
    append_gemm(&p, m, d.hidden, d.hidden + 2 * kv, target, &w, arena);  // Q, K, V projections
    append_gemm(&p, m, d.hidden, d.hidden, target, &w, arena);           // attention output
    append_gemm(&p, m, d.hidden, 2 * d.ffn, target, &w, arena);          // gate and up
    append_gemm(&p, m, d.ffn, d.hidden, target, &w, arena);              // down
  }
  if (head && d.vocab) append_gemm(&p, 1, d.hidden, d.vocab, target, &w, arena);
  return p;
}

// Attention of a pass of `m` tokens over `context` tokens, per layer, with the KV cache at `kv_base` in
// the arena (per layer: K then V, `kv_tokens` × kv width each). The query heads that share a KV head
// (kv_heads_ratio of them, grouped-query attention) are rows against the same cache, so per layer:
//   scores:  (m·ratio) × head_dim  times  head_dim × (context · kv_heads)  — reads the K cache
//   sum:     (m·ratio) × context   times  context × kv width               — reads the V cache
// Both are m · context · hidden MACs, the products of every head; the score matrix in and out is
// m · heads · context bytes. The activation arena (at 0) must hold (m·ratio) × (head_dim + context·kv_heads).
Program lower_attention(const DecoderShape& d, uint32_t m, uint64_t context, uint64_t kv_tokens,
                        uint64_t kv_base, const hal::NpuTarget& target, uint64_t* arena) {
  Program p;
  const uint32_t kv = d.kv_width(), kv_heads = kv / d.head_dim;
  const uint32_t rows = m * d.kv_heads_ratio, ctx = static_cast<uint32_t>(context);
  for (uint32_t l = 0; l < d.layers; ++l) {
    uint64_t k_cache = kv_base + uint64_t{l} * 2 * kv * kv_tokens,
             v_cache = k_cache + uint64_t{kv} * kv_tokens;
    append_gemm(&p, rows, d.head_dim, ctx * kv_heads, target, &k_cache, arena, hal::Region::ARENA);
    append_gemm(&p, rows, ctx, kv, target, &v_cache, arena, hal::Region::ARENA);
  }
  return p;
}

}  // namespace

uint64_t Program::descriptors() const {
  uint64_t n = 0;
  for (const auto& stage : stages)
    for (const auto& step : stage) n += step.commands.size();
  return n;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& b : builtins()) names.push_back(b.name);
  for (const auto& d : decoder_presets()) names.push_back(d.name);
  return names;
}

bool is_builtin_model(const std::string& name) {
  return std::any_of(builtins().begin(), builtins().end(), [&](const Builtin& b) { return name == b.name; });
}

std::optional<DecoderShape> decoder_preset(const std::string& name) {
  for (const auto& d : decoder_presets())
    if (name == d.name) return d.shape;
  return std::nullopt;
}

uint64_t model_weight_bytes(const ModelSpec& spec) {
  if (spec.is_decoder()) return spec.decoder.weight_bytes();
  auto m = build_model(spec, hal::NpuTarget{}, 0, 1);
  return m ? m->weight_bytes : 0;
}

std::vector<hal::NpuStep> lower_gemm(uint32_t m, uint32_t k, uint32_t n, const hal::NpuTarget& target,
                                     uint64_t weights_offset, hal::Region b_region) {
  const uint64_t sram = target.sram_bytes;
  const uint32_t cols = std::max<uint32_t>(target.array_cols, 1);
  // A quarter of the SRAM for an activation block of mb rows, the rest for one weight block of nb
  // columns (K·nb bytes), its bias and requantisation words (12 per column) and mb·nb results: whole
  // array widths when at least one fits, else as many columns as fit (a long K in a small SRAM; with
  // no room for one column even at one row, build_model refuses the model before lowering it).
  uint32_t mb = static_cast<uint32_t>(std::clamp<uint64_t>(sram / 4 / k, 1, m));
  uint64_t nb = gemm_block_columns(mb, k, sram);
  if (nb == 0) mb = 1, nb = gemm_block_columns(1, k, sram);
  nb = std::max<uint64_t>(nb >= cols ? nb / cols * cols : nb, 1);
  nb = std::min<uint64_t>(nb, n);
  const uint64_t act = uint64_t{mb} * k;
  const uint32_t n_blocks = static_cast<uint32_t>((n + nb - 1) / nb);
  const uint32_t buffers = std::min<uint32_t>(std::max<uint32_t>(target.channels, 1), n_blocks);
  const uint32_t w_sram = static_cast<uint32_t>((act + 63) / 64 * 64);
  const uint32_t bias_sram = static_cast<uint32_t>(w_sram + uint64_t{k} * nb);
  const uint32_t quant_sram = static_cast<uint32_t>(bias_sram + 4 * nb);
  const uint32_t out_sram = static_cast<uint32_t>(quant_sram + 8 * nb);

  std::vector<hal::NpuStep> steps(buffers);
  auto emit = [](hal::NpuStep& s, desc::Raw raw, std::optional<hal::Region> reloc) {
    if (reloc) s.relocations.push_back({static_cast<uint32_t>(s.commands.size()), *reloc});
    s.commands.push_back(raw);
  };
  uint32_t id = 0;
  for (uint32_t m0 = 0; m0 < m; m0 += mb) {
    const uint32_t rows = std::min(mb, m - m0);
    for (auto& s : steps) {
      emit(s, desc::encode(desc::Dma{{desc::Opcode::DMA_IN, id++}, uint64_t{m0} * k, 0, rows * k, 1, 0, 0}),
           hal::Region::ARENA);
      // From here on only the activation block is live between tiles: a checkpoint saves just that.
      desc::PreemptPoint pp{{desc::Opcode::PREEMPT_POINT, id++}, {0, 0, 0, 0}, {rows * k, 0, 0, 0}};
      emit(s, desc::encode(pp), std::nullopt);
    }
    for (uint32_t j = 0; j < n_blocks; ++j) {
      hal::NpuStep& s = steps[j % buffers];
      const uint32_t n0 = static_cast<uint32_t>(j * nb);
      const uint32_t w = static_cast<uint32_t>(std::min<uint64_t>(nb, n - n0));
      emit(s,
           desc::encode(desc::Dma{
               {desc::Opcode::DMA_IN, id++}, weights_offset + uint64_t{n0} * k, w_sram, k * w, 1, 0, 0}),
           b_region);
      desc::Conv c{};
      c.h = {desc::Opcode::CONV_INT8, id++};
      c.in_sram = 0, c.in_h = 1, c.in_w = rows, c.in_c = k;
      c.w_sram = w_sram, c.kh = 1, c.kw = 1, c.cout = w;
      c.bias_sram = bias_sram, c.quant_sram = quant_sram, c.out_sram = out_sram;
      c.out_h = 1, c.out_w = rows, c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
      c.clamp_lo = -128, c.clamp_hi = 127;
      emit(s, desc::encode(c), std::nullopt);
      s.macs += uint64_t{rows} * k * w;
      const uint64_t dev = uint64_t{m} * k + uint64_t{m0} * n + n0;
      emit(s, desc::encode(desc::Dma{{desc::Opcode::DMA_OUT, id++}, dev, out_sram, w, rows, n, w}),
           hal::Region::ARENA);
    }
  }
  return steps;
}

std::string attention_program(uint32_t m, uint32_t blocks) {
  return "attention m=" + std::to_string(m) + " blocks=" + std::to_string(blocks);
}

hal::PrecompiledModel RunnableModel::take_precompiled() {
  hal::PrecompiledModel p;
  p.name = name;
  if (weights_image.empty()) {
    p.weights = hal::WeightsImage(false);
    p.weights.append(nullptr, weight_bytes);
  } else {
    p.weights = hal::WeightsImage(weights_image);
  }
  p.arena_bytes = arena_bytes;
  p.timing_only = true;
  for (auto [program_name, program] : {std::pair<const char*, Program*>{"infer", &infer},
                                       {"prefill", &prefill},
                                       {"prefill_tail", &prefill_tail},
                                       {"decode", &decode}})
    if (!program->stages.empty()) p.programs[program_name] = std::move(program->stages);
  for (auto& [key, program] : attention)
    p.programs[attention_program(key.first, key.second)] = std::move(program.stages);
  return p;
}

uint64_t RunnableModel::max_job_command_bytes() const {
  uint64_t most = 0;
  for (const Program* p : {&infer, &prefill, &prefill_tail, &decode}) most = std::max(most, p->descriptors());
  uint64_t attention_most = 0;
  for (const auto& [key, p] : attention) attention_most = std::max(attention_most, p.descriptors());
  return (most + attention_most) * desc::kDescriptorBytes;
}

Result<RunnableModel> build_model(const ModelSpec& spec, const hal::NpuTarget& target,
                                  uint32_t prefill_tokens, uint64_t seed, uint32_t prefill_chunk_tokens,
                                  uint32_t decode_tokens) {
  RunnableModel r;
  r.name = spec.name;
  if (spec.is_decoder()) {
    const DecoderShape& d = spec.decoder;
    r.weight_bytes = d.weight_bytes();
    const uint32_t chunk = std::max<uint32_t>(prefill_chunk_tokens, 1);
    r.prefill_chunk = chunk;
    // Every pass of a session and the context it attends to: prompt chunks, then one token at a time.
    std::vector<std::pair<uint32_t, uint64_t>> passes;  // {tokens, context}
    r.prefill_jobs = prefill_tokens / chunk;
    for (uint32_t i = 0; i < r.prefill_jobs; ++i) passes.push_back({chunk, uint64_t{i + 1} * chunk});
    if (prefill_tokens % chunk) passes.push_back({prefill_tokens % chunk, prefill_tokens});
    for (uint32_t t = 0; t < decode_tokens; ++t) passes.push_back({1, uint64_t{prefill_tokens} + t + 1});
    // The KV cache is sized for the longest context in whole blocks.
    uint64_t kv_tokens = 0;
    for (const auto& [m, context] : passes)
      kv_tokens = std::max<uint64_t>(kv_tokens, uint64_t{kv_blocks(context)} * kKvBlockTokens);
    // Every GEMM needs one weight column of K bytes beside one activation row in the SRAM: this NPU has
    // no accumulation across K chunks to split a longer K.
    for (const auto& [what, k] : {std::pair<const char*, uint64_t>{"hidden", d.hidden},
                                  {"ffn", d.ffn},
                                  {"head_dim", d.head_dim},
                                  {"attended context", kv_tokens}})
      if (k && gemm_block_columns(1, static_cast<uint32_t>(k), target.sram_bytes) == 0)
        return make_error(spec.name + ": a GEMM with K = " + std::to_string(k) + " (" + what +
                          ") needs more than the channel's " + std::to_string(target.sram_bytes >> 10) +
                          " KiB of SRAM for one weight column beside one activation row");
    if (r.prefill_jobs) r.prefill = lower_decoder(d, chunk, false, target, &r.arena_bytes);
    if (prefill_tokens % chunk)
      r.prefill_tail = lower_decoder(d, prefill_tokens % chunk, false, target, &r.arena_bytes);
    r.decode = lower_decoder(d, 1, true, target, &r.arena_bytes);
    // The attention's activations, then the KV cache after them.
    for (const auto& [m, context] : passes) {
      const uint32_t rows = m * d.kv_heads_ratio;
      const auto ctx = static_cast<uint32_t>(uint64_t{kv_blocks(context)} * kKvBlockTokens);
      r.arena_bytes =
          std::max({r.arena_bytes, gemm_arena_bytes(rows, d.head_dim, ctx * (d.kv_width() / d.head_dim)),
                    gemm_arena_bytes(rows, ctx, d.kv_width())});
    }
    const uint64_t kv_base = (r.arena_bytes + 4095) / 4096 * 4096;
    uint64_t scratch = 0;
    for (const auto& [m, context] : passes) {
      const uint32_t blocks = kv_blocks(context);
      if (!r.attention.count({m, blocks}))
        r.attention[{m, blocks}] =
            lower_attention(d, m, uint64_t{blocks} * kKvBlockTokens, kv_tokens, kv_base, target, &scratch);
    }
    r.arena_bytes = kv_base + d.kv_cache_bytes(kv_tokens);
    return r;
  }
  auto it = std::find_if(builtins().begin(), builtins().end(),
                         [&](const Builtin& b) { return spec.name == b.name; });
  if (it == builtins().end()) return make_error("unknown model \"" + spec.name + "\"");
  auto program = hal::compile_for_npu(it->build(seed), target);
  if (!program) return make_error(spec.name + ": " + program.error());
  for (auto& stage : program->stages) {
    if (stage.on_cpu)
      return make_error(spec.name + ": operation " + std::to_string(stage.operation) +
                        " does not run on the NPU: " + stage.cpu_reason);
    for (const auto& step : stage.jobs) r.infer.macs += step.macs;
    r.infer.stages.push_back(std::move(stage.jobs));
  }
  r.weights_image = program->weights.bytes();
  r.weight_bytes = r.weights_image.size();
  r.arena_bytes = program->arena_bytes;
  return r;
}

}  // namespace npu::scenario
