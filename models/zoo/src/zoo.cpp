// The zoo's name registry: names → builders, the "@N" size suffix, and "zoo:" model paths.
#include "npu/models/zoo.h"

#include <functional>
#include <string_view>

#include "npu/models/model_json.h"

namespace npu::models {
namespace {

constexpr uint32_t kDefaultResolution = 224;
constexpr uint32_t kDefaultPrompt = 256;
constexpr uint32_t kDefaultContext = 1024;
// Generous bounds on "@N" so a typo cannot ask for a terabyte-sized graph.
constexpr uint32_t kMaxResolution = 1024;
constexpr uint32_t kMaxContext = 32768;

// How a name's "@N" is read and the model built from it (N = 0: the default).
struct Recipe {
  ZooEntry entry;
  const char* size_meaning;  // nullptr: the model takes no "@N"
  std::function<Result<Model>(uint32_t n, uint64_t seed, bool values)> build;
};

Result<Model> vision(VisionNet net, bool quant8, uint32_t n, uint64_t seed, bool values) {
  const uint32_t res = n ? n : kDefaultResolution;
  if (res % 32 != 0 || res > kMaxResolution)
    return make_error("resolution " + std::to_string(res) + " must be a multiple of 32 up to " +
                      std::to_string(kMaxResolution));
  return build_vision(net, quant8, res, seed, values);
}

Result<Model> decoder(const DecoderShape& shape, bool prefill, uint32_t n, uint64_t seed, DecoderOps ops) {
  const uint32_t len = n ? n : prefill ? kDefaultPrompt : kDefaultContext;
  if (len > kMaxContext)
    return make_error(std::string(prefill ? "prompt" : "context") + " length " + std::to_string(len) +
                      " above the zoo's limit " + std::to_string(kMaxContext));
  return build_decoder(shape, prefill ? len : 1, len, seed, ops);
}

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> kRecipes = [] {
    std::vector<Recipe> r;
    auto add_vision = [&r](const char* stem, VisionNet net, const char* figures) {
      for (bool quant8 : {false, true}) {
        const std::string name = std::string(stem) + (quant8 ? "_quant8" : "_float");
        r.push_back({{name, "classifier",
                      std::string(quant8 ? "uint8 (per-tensor)" : "float32") +
                          ", 224x224x3 -> 1000 classes; " + figures,
                      false},
                     "input resolution (multiple of 32)",
                     [net, quant8](uint32_t n, uint64_t seed, bool values) {
                       return vision(net, quant8, n, seed, values);
                     }});
      }
    };
    add_vision("mobilenet_v1", VisionNet::MobileNetV1, "published 569 M MACs, 4.2 M parameters");
    add_vision("mobilenet_v2", VisionNet::MobileNetV2, "published 300 M MACs, 3.4 M parameters");
    add_vision("resnet18", VisionNet::ResNet18, "published 1.8 G MACs, 11.7 M parameters");
    r.push_back({{"lstm_acoustic_float", "acoustic",
                  "float32, one 10 ms frame: 40 features, 5 LSTMP layers (768 cells, 256 projection), 4000 "
                  "states; 9.2 M parameters",
                  false},
                 nullptr,
                 [](uint32_t, uint64_t seed, bool values) -> Result<Model> {
                   return build_lstm_acoustic(seed, values);
                 }});
    for (const DecoderShape& s : {decoder_shape_1b(), decoder_shape_3b(), decoder_shape_7b()}) {
      const std::string shape_text = std::to_string(s.layers) + " layers, hidden " +
                                     std::to_string(s.hidden) + ", " + std::to_string(s.heads) + "/" +
                                     std::to_string(s.kv_heads) + " heads, MLP " + std::to_string(s.ffn) +
                                     ", vocab " + std::to_string(s.vocab);
      for (const DecoderOps ops : {DecoderOps::LLM_EXTENSION, DecoderOps::NNAPI}) {
        const bool llm = ops == DecoderOps::LLM_EXTENSION;
        const std::string suffix = llm ? "" : "_nnapi";
        const std::string form = llm ? "com.npusim.llm extension; " : "NNAPI 1.3 operations only, no RoPE; ";
        r.push_back({{s.name + "_prefill" + suffix, "decoder",
                      "W8A8 timing-only, 256-token prompt (@N: prompt length); " + form + shape_text, true},
                     "prompt length",
                     [s, ops](uint32_t n, uint64_t seed, bool) { return decoder(s, true, n, seed, ops); }});
        r.push_back(
            {{s.name + "_decode" + suffix, "decoder",
              "W8A8 timing-only, one token at context 1024 (@N: context length); " + form + shape_text, true},
             "context length",
             [s, ops](uint32_t n, uint64_t seed, bool) { return decoder(s, false, n, seed, ops); }});
      }
    }
    return r;
  }();
  return kRecipes;
}

const Recipe* find_recipe(std::string_view base) {
  for (const Recipe& r : recipes())
    if (r.entry.name == base) return &r;
  return nullptr;
}

std::string known_names() {
  std::string s;
  for (const Recipe& r : recipes()) s += (s.empty() ? "" : ", ") + r.entry.name;
  return s;
}

}  // namespace

const std::vector<ZooEntry>& zoo_entries() {
  static const std::vector<ZooEntry> kEntries = [] {
    std::vector<ZooEntry> e;
    for (const Recipe& r : recipes()) e.push_back(r.entry);
    return e;
  }();
  return kEntries;
}

const ZooEntry* find_zoo_entry(const std::string& name) {
  const Recipe* r = find_recipe(std::string_view(name).substr(0, name.find('@')));
  return r ? &r->entry : nullptr;
}

Result<Model> zoo_model(const std::string& name, uint64_t seed, bool values) {
  const size_t at = name.find('@');
  const std::string base = name.substr(0, at);
  const Recipe* r = find_recipe(base);
  if (!r) return make_error("zoo: unknown model \"" + base + "\" (known: " + known_names() + ")");
  uint32_t n = 0;
  if (at != std::string::npos) {
    const std::string size = name.substr(at + 1);
    if (!r->size_meaning) return make_error("zoo: " + base + " takes no @size suffix");
    const bool digits =
        !size.empty() && size.size() <= 6 && size.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoul(size) == 0)
      return make_error("zoo: " + name + ": @" + size + " is not a positive " + r->size_meaning);
    n = static_cast<uint32_t>(std::stoul(size));
  }
  auto model = r->build(n, seed, values);
  if (!model) return make_error("zoo: " + name + ": " + model.error());
  return model;
}

Result<Model> load_model(const std::string& path_or_zoo_name, uint64_t seed) {
  constexpr std::string_view kPrefix = "zoo:";
  if (path_or_zoo_name.rfind(kPrefix, 0) == 0)
    return zoo_model(path_or_zoo_name.substr(kPrefix.size()), seed);
  return load_model_json(path_or_zoo_name);
}

}  // namespace npu::models
