#include "npu/hal/compilation_cache.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "npu/common/file_io.h"
#include "npu/hal/ops/control_flow.h"
#include "npu/hal/signed_file.h"
#include "npu/models/model_json.h"

namespace npu::hal {
namespace {

constexpr char kModelMagic[8] = {'N', 'P', 'U', 'S', 'I', 'M', 'M', 'C'};
constexpr char kDataMagic[8] = {'N', 'P', 'U', 'S', 'I', 'M', 'D', 'C'};
// 2: constants as raw bytes; 3: the subgraphs' programs too; 4: word-parallel checksums; 5: the target's
// timing and each stage's tiling; 6: an HMAC-SHA-256 in place of the checksums.
constexpr uint32_t kFormatVersion = 6;
constexpr size_t kMacBytes = 32;
constexpr size_t kHeaderBytes = 8 + 4 + 8 + kMacBytes;  // magic, format version, payload bytes, MAC
// A cache file is at most this large (the weights of the zoo's largest runnable model are ~50 MB).
constexpr uint64_t kMaxCacheFileBytes = 4ull << 30;

using Digest = std::array<uint8_t, 32>;

// HMAC-SHA-256 over a sequence of byte ranges, through OpenSSL's EVP_MAC.
class Hmac {
 public:
  explicit Hmac(const CacheKey& key) {
    mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    ctx_ = mac_ ? EVP_MAC_CTX_new(mac_) : nullptr;
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                                 OSSL_PARAM_construct_end()};
    ok_ = ctx_ && EVP_MAC_init(ctx_, key.data(), key.size(), params) == 1;
  }
  ~Hmac() {
    EVP_MAC_CTX_free(ctx_);
    EVP_MAC_free(mac_);
  }
  Hmac(const Hmac&) = delete;
  Hmac& operator=(const Hmac&) = delete;
  void update(const void* p, size_t n) {
    if (ok_ && n) ok_ = EVP_MAC_update(ctx_, static_cast<const uint8_t*>(p), n) == 1;
  }
  // Length-prefixed, so that no two sequences of strings feed the same bytes.
  void update_str(const std::string& s) {
    const uint64_t n = s.size();
    update(&n, sizeof n);
    update(s.data(), s.size());
  }
  Result<Digest> final() {
    Digest d{};
    size_t n = 0;
    if (!ok_ || EVP_MAC_final(ctx_, d.data(), &n, d.size()) != 1 || n != d.size())
      return make_error("HMAC-SHA-256 unavailable (OpenSSL)");
    return d;
  }

 private:
  EVP_MAC* mac_ = nullptr;
  EVP_MAC_CTX* ctx_ = nullptr;
  bool ok_ = false;
};

Digest sha256(const std::string& a, const std::vector<uint8_t>& b) {
  Digest d{};
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned n = 0;
  const uint64_t a_bytes = a.size();
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), &a_bytes, sizeof a_bytes) != 1 ||
      EVP_DigestUpdate(ctx.get(), a.data(), a.size()) != 1 ||
      (!b.empty() && EVP_DigestUpdate(ctx.get(), b.data(), b.size()) != 1) ||
      EVP_DigestFinal_ex(ctx.get(), d.data(), &n) != 1)
    d.fill(0);
  return d;
}

// Constant-time comparison: a forger learns nothing from how long a rejection took.
bool same_digest(const uint8_t* a, const uint8_t* b) {
  uint8_t diff = 0;
  for (size_t i = 0; i < kMacBytes; ++i) diff |= static_cast<uint8_t>(a[i] ^ b[i]);
  return diff == 0;
}

// A model as its structure (model JSON with the main graph's constant tensors marked omitted) and
// those constants' bytes, in operand order: printing megabytes of weights as JSON numbers made the
// cache files several times larger than the weights and slow to read back.
struct SplitModel {
  models::Model structure;
  std::vector<uint8_t> constants;
};

SplitModel split_constants(const models::Model& m) {
  SplitModel split{m, {}};
  for (auto& o : split.structure.main.operands) {
    if (!o.is_constant() || !models::is_tensor(o.type) || o.data.empty()) continue;
    split.constants.insert(split.constants.end(), o.data.begin(), o.data.end());
    std::vector<uint8_t>().swap(o.data);
    o.values_omitted = true;
  }
  return split;
}

// Undoes split_constants: fills every omitted constant from `bytes`, which must be used up exactly.
Result<void> restore_constants(models::Model& m, const uint8_t* bytes, uint64_t n) {
  uint64_t at = 0;
  for (auto& o : m.main.operands) {
    if (!o.values_omitted) continue;
    const uint64_t size = o.byte_size();
    if (size > n - at) return make_error("constants section shorter than the model's constants");
    o.data.assign(bytes + at, bytes + at + size);
    o.values_omitted = false;
    at += size;
  }
  if (at != n) return make_error("constants section longer than the model's constants");
  return {};
}

Digest model_digest(const models::Model& m) {
  const SplitModel split = split_constants(m);
  return sha256(models::to_json(split.structure).dump(), split.constants);
}

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  void bytes(const void* p, size_t n) {
    if (!n) return;  // an empty vector's data() may be null
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  std::vector<uint8_t>& data() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Bounds-checked reads: after the first failure every read returns zeros and ok() stays false.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  template <class T>
  T pod() {
    T v{};
    if (!take(sizeof(T))) return v;
    std::memcpy(&v, p_ + at_ - sizeof(T), sizeof(T));
    return v;
  }
  bool bytes(void* dst, size_t n) {
    if (!take(n)) return false;
    if (n) std::memcpy(dst, p_ + at_ - n, n);  // an empty vector's data() may be null
    return true;
  }
  std::string str() {
    const uint64_t n = pod<uint64_t>();
    if (!take(n)) return {};
    return std::string(reinterpret_cast<const char*>(p_ + at_ - n), n);
  }
  // A count of items of at least `min_item_bytes` each that can still fit.
  uint64_t count(uint64_t min_item_bytes) {
    const uint64_t c = pod<uint64_t>();
    if (min_item_bytes && c > (n_ - at_) / min_item_bytes) ok_ = false;
    return ok_ ? c : 0;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return at_ == n_; }

 private:
  bool take(uint64_t n) {
    if (!ok_ || n > n_ - at_) {
      ok_ = false;
      return false;
    }
    at_ += n;
    return true;
  }
  const uint8_t* p_;
  size_t n_;
  size_t at_ = 0;
  bool ok_ = true;
};

std::string hex(const CacheToken& token) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : token) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

void write_target(Writer& w, const NpuTarget& t) {
  w.pod(t.array_rows);
  w.pod(t.array_cols);
  w.pod(t.sram_bytes);
  w.pod(t.channels);
  for (double v : {t.clock_mhz, t.dram_gbps, t.dram_latency_ns}) w.pod(v);
  for (uint32_t v : {t.dma_bytes_per_cycle, t.dma_setup_cycles, t.descriptor_fetch_cycles, t.queue_depth,
                     t.fp32_macs_per_cycle, t.vector_pipeline_cycles})
    w.pod(v);
  w.pod<uint64_t>(t.lowered_operations.size());
  for (auto op : t.lowered_operations) w.pod(static_cast<int32_t>(op));
}

bool same_target(Reader& r, const NpuTarget& t) {
  NpuTarget got;
  got.array_rows = r.pod<uint32_t>();
  got.array_cols = r.pod<uint32_t>();
  got.sram_bytes = r.pod<uint64_t>();
  got.channels = r.pod<uint32_t>();
  // The tiling was chosen for this timing: another clock, DRAM or DMA would choose differently.
  got.clock_mhz = r.pod<double>();
  got.dram_gbps = r.pod<double>();
  got.dram_latency_ns = r.pod<double>();
  got.dma_bytes_per_cycle = r.pod<uint32_t>();
  got.dma_setup_cycles = r.pod<uint32_t>();
  got.descriptor_fetch_cycles = r.pod<uint32_t>();
  got.queue_depth = r.pod<uint32_t>();
  got.fp32_macs_per_cycle = r.pod<uint32_t>();
  got.vector_pipeline_cycles = r.pod<uint32_t>();
  for (uint64_t i = r.count(4); i > 0; --i)
    got.lowered_operations.push_back(static_cast<models::OperationType>(r.pod<int32_t>()));
  return r.ok() && got.array_rows == t.array_rows && got.array_cols == t.array_cols &&
         got.sram_bytes == t.sram_bytes && got.channels == t.channels && got.clock_mhz == t.clock_mhz &&
         got.dram_gbps == t.dram_gbps && got.dram_latency_ns == t.dram_latency_ns &&
         got.dma_bytes_per_cycle == t.dma_bytes_per_cycle && got.dma_setup_cycles == t.dma_setup_cycles &&
         got.descriptor_fetch_cycles == t.descriptor_fetch_cycles && got.queue_depth == t.queue_depth &&
         got.fp32_macs_per_cycle == t.fp32_macs_per_cycle &&
         got.vector_pipeline_cycles == t.vector_pipeline_cycles &&
         got.lowered_operations == t.lowered_operations;
}

// The MAC of a cache file: its header fields and payload, bound to the device, its version string and
// the token, so a file is valid only for the installation (key), device, driver and token it was
// written for.
Result<Digest> file_mac(const CacheIdentity& id, const char (&magic)[8], uint64_t payload_bytes,
                        const uint8_t* payload) {
  Hmac h(id.key);
  h.update_str("npusim compilation cache");
  h.update(magic, 8);
  h.update(&kFormatVersion, sizeof kFormatVersion);
  h.update_str(id.device);
  h.update_str(id.version);
  h.update(id.token.data(), id.token.size());
  h.update(&payload_bytes, sizeof payload_bytes);
  h.update(payload, payload_bytes);
  return h.final();
}

Result<Digest> write_file(const std::string& path, const CacheIdentity& id, const char (&magic)[8],
                          const std::vector<uint8_t>& payload) {
  auto mac = file_mac(id, magic, payload.size(), payload.data());
  if (!mac) return make_error(path + ": " + mac.error());
  Writer w;
  w.bytes(magic, 8);
  w.pod(kFormatVersion);
  w.pod<uint64_t>(payload.size());
  w.bytes(mac->data(), mac->size());
  w.bytes(payload.data(), payload.size());
  if (auto r = io::write_file_atomic(path, w.data()); !r) return make_error(r.error());
  return *mac;
}

// The payload of a cache file after checking magic, format version and length against the file's size
// (before a byte of the payload is read: a large file of another kind is refused at once), then the MAC.
Result<std::vector<uint8_t>> read_file(const std::string& path, const CacheIdentity& id,
                                       const char (&magic)[8], Digest* mac) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return make_error(path + ": no cache file");
  auto f = io::open_regular(path, kMaxCacheFileBytes);
  if (!f) return make_error(f.error());
  const uint64_t size = f->size();
  if (size < kHeaderBytes) return make_error(path + ": truncated (" + std::to_string(size) + " bytes)");
  std::array<uint8_t, kHeaderBytes> header{};
  if (auto r = f->read_at(0, header.data(), header.size(), path); !r) return make_error(r.error());
  if (std::memcmp(header.data(), magic, 8) != 0)
    return make_error(path + ": not a cache file of this kind (bad magic)");
  Reader r(header.data() + 8, header.size() - 8);
  const auto format = r.pod<uint32_t>();
  const auto bytes = r.pod<uint64_t>();
  r.bytes(mac->data(), mac->size());
  if (format != kFormatVersion)
    return make_error(path + ": cache format " + std::to_string(format) + ", expected " +
                      std::to_string(kFormatVersion));
  if (bytes != size - kHeaderBytes)
    return make_error(path + ": payload is " + std::to_string(size - kHeaderBytes) + " bytes, header says " +
                      std::to_string(bytes) + " (truncated or extended)");
  std::vector<uint8_t> payload(static_cast<size_t>(bytes));
  if (auto rd = f->read_at(kHeaderBytes, payload.data(), payload.size(), path); !rd)
    return make_error(rd.error());
  auto want = file_mac(id, magic, bytes, payload.data());
  if (!want) return make_error(path + ": " + want.error());
  if (!same_digest(want->data(), mac->data()))
    return make_error(path +
                      ": MAC mismatch (edited, corrupt, or written by another installation, device, "
                      "driver or token)");
  return payload;
}

// Model file: per graph, whether it has a program, the fallback reason, the model JSON and the
// program. Data file: per graph, its weights image then its constants, each with its length. A
// subgraph's model carries the main model's referenced list; it is written once, with the main graph.
void write_graph(Writer& w, Writer& data, const CompiledGraph& g, bool is_subgraph) {
  SplitModel split = split_constants(g.model);
  if (is_subgraph) split.structure.referenced.clear();
  const std::vector<uint8_t> no_weights;
  const auto& weights = g.program ? g.program->weights.bytes() : no_weights;
  data.pod<uint64_t>(weights.size());
  data.bytes(weights.data(), weights.size());
  data.pod<uint64_t>(split.constants.size());
  data.bytes(split.constants.data(), split.constants.size());
  w.pod<uint8_t>(g.program.has_value());
  w.str(g.fallback);
  w.str(models::to_json(split.structure).dump());
  if (!g.program) return;
  const Program& program = *g.program;
  w.pod(program.arena_bytes);
  w.pod(program.tiles);
  w.pod(program.cpu_operations);
  w.pod<uint64_t>(program.arena.size());
  for (const auto& [operand, slot] : program.arena) {
    w.pod(operand);
    w.pod(slot.offset);
    w.pod(slot.bytes);
  }
  w.pod<uint64_t>(program.stages.size());
  for (const auto& s : program.stages) {
    w.pod(s.operation);
    w.pod<uint8_t>(s.on_cpu);
    w.str(s.cpu_reason);
    w.str(s.tiling);
    w.pod(s.predicted_cycles);
    w.pod<uint64_t>(s.jobs.size());
    for (const auto& j : s.jobs) {
      w.pod(j.macs);
      w.pod<uint64_t>(j.commands.size());
      for (const auto& c : j.commands) w.bytes(c.bytes, sizeof c.bytes);
      w.pod<uint64_t>(j.relocations.size());
      for (const auto& rel : j.relocations) {
        w.pod(rel.descriptor);
        w.pod(static_cast<uint8_t>(rel.region));
      }
    }
  }
}

// A graph's program, checked against the model it was compiled from.
Result<Program> read_program(Reader& r, const models::Model& model, std::vector<uint8_t> weights,
                             const std::string& where) {
  Program p;
  p.weights = WeightsImage(std::move(weights));
  p.arena_bytes = r.pod<uint64_t>();
  p.tiles = r.pod<uint64_t>();
  p.cpu_operations = r.pod<uint32_t>();
  const auto& g = model.main;
  for (uint64_t n = r.count(20); n > 0; --n) {
    const auto operand = r.pod<uint32_t>();
    ArenaSlot slot{r.pod<uint64_t>(), r.pod<uint64_t>()};
    if (operand >= g.operands.size() || slot.offset > p.arena_bytes ||
        slot.bytes > p.arena_bytes - slot.offset || slot.bytes != g.operands[operand].byte_size())
      return make_error(where + "arena slot of operand " + std::to_string(operand) + " is inconsistent");
    p.arena[operand] = slot;
  }
  for (uint64_t n = r.count(13); r.ok() && n > 0; --n) {
    Stage s;
    s.operation = r.pod<uint32_t>();
    s.on_cpu = r.pod<uint8_t>() != 0;
    s.cpu_reason = r.str();
    s.tiling = r.str();
    s.predicted_cycles = r.pod<uint64_t>();
    if (s.operation >= g.operations.size())
      return make_error(where + "stage names operation " + std::to_string(s.operation) + ", out of range");
    for (uint64_t jn = r.count(24); jn > 0; --jn) {
      NpuStep& j = s.jobs.emplace_back();
      j.macs = r.pod<uint64_t>();
      for (uint64_t cn = r.count(sizeof(desc::Raw)); cn > 0; --cn)
        r.bytes(j.commands.emplace_back().bytes, sizeof(desc::Raw));
      for (uint64_t rn = r.count(5); rn > 0; --rn) {
        Relocation rel{r.pod<uint32_t>(), static_cast<Region>(r.pod<uint8_t>())};
        if (rel.descriptor >= j.commands.size() ||
            (rel.region != Region::WEIGHTS && rel.region != Region::ARENA))
          return make_error(where + "relocation out of range");
        j.relocations.push_back(rel);
      }
    }
    s.control_flow = ops::is_control_flow(g.operations[s.operation].type);
    p.control_flow_operations += s.control_flow;
    if (s.on_cpu) s.cpu_model = extract_operation(model, s.operation, &s.cpu_inputs, &s.cpu_outputs);
    p.stages.push_back(std::move(s));
  }
  if (!r.ok()) return make_error(where + "program section truncated or malformed");
  // Every operand a stage touches must have its slot (an NPU stage's DMA ranges are checked by the
  // driver at submit; this keeps the CPU stages and the I/O copies in bounds).
  for (const auto& s : p.stages) {
    const auto& op = g.operations[s.operation];
    for (const auto* list : {&op.inputs, &op.outputs})
      for (uint32_t i : *list) {
        if (i >= g.operands.size()) return make_error(where + "operation operand out of range");
        const auto& o = g.operands[i];
        if (!o.is_constant() && o.lifetime != models::Lifetime::NO_VALUE &&
            o.lifetime != models::Lifetime::SUBGRAPH && !p.arena.count(i))
          return make_error(where + "operand " + std::to_string(i) + " has no arena slot");
      }
  }
  for (const auto* list : {&g.input_indexes, &g.output_indexes})
    for (uint32_t i : *list)
      if (!p.arena.count(i))
        return make_error(where + "graph operand " + std::to_string(i) + " has no arena slot");
  return p;
}

// `referenced` (nullable): a subgraph's model gets the main model's referenced list back.
Result<CompiledGraph> read_graph(Reader& r, Reader& data, const std::string& where,
                                 const std::string& data_path,
                                 const std::vector<models::Subgraph>* referenced) {
  CompiledGraph out;
  const bool has_program = r.pod<uint8_t>() != 0;
  out.fallback = r.str();
  auto doc = nlohmann::json::parse(r.str(), nullptr, /*allow_exceptions=*/false);
  if (!r.ok() || doc.is_discarded()) return make_error(where + "model section unreadable");
  auto model = models::parse_model_json(doc, where, "");
  if (!model) return make_error(model.error());
  out.model = std::move(*model);
  if (referenced) out.model.referenced = *referenced;
  std::vector<uint8_t> weights(data.count(1));
  data.bytes(weights.data(), weights.size());
  std::vector<uint8_t> constants(data.count(1));
  data.bytes(constants.data(), constants.size());
  if (!data.ok()) return make_error(data_path + ": truncated or malformed");
  if (auto k = restore_constants(out.model, constants.data(), constants.size()); !k)
    return make_error(data_path + ": " + k.error());
  if (!has_program) {
    if (!weights.empty()) return make_error(data_path + ": weights for a graph without a program");
    return out;
  }
  auto program = read_program(r, out.model, std::move(weights), where);
  if (!program) return make_error(program.error());
  out.program = std::move(*program);
  return out;
}

}  // namespace

CacheFilePaths cache_file_paths(const std::string& dir, const CacheToken& token) {
  const std::string base = dir + "/" + hex(token);
  return {base + ".model", base + ".data"};
}

Result<void> write_compilation_cache(const std::string& dir, const CacheIdentity& id, const NpuTarget& target,
                                     const models::Model& source, const CompiledGraph& main,
                                     const std::vector<CompiledGraph>& subgraphs) {
  if (!main.program) return make_error("the main graph has no program");
  if (subgraphs.size() != main.model.referenced.size())
    return make_error(std::to_string(subgraphs.size()) + " subgraph programs for " +
                      std::to_string(main.model.referenced.size()) + " referenced subgraphs");
  // A timing-only program has no weight values to cache, and compiling it again is cheap next to
  // running it.
  if (main.program->timing_only)
    return make_error("a timing-only program (omitted constant values) is not cached");
  for (const auto& g : subgraphs)
    if (g.program && g.program->timing_only)
      return make_error("a timing-only program (omitted constant values) is not cached");
  const auto paths = cache_file_paths(dir, id.token);
  Writer data, graphs;
  write_graph(graphs, data, main, false);
  for (const auto& g : subgraphs) write_graph(graphs, data, g, true);
  auto data_mac = write_file(paths.data, id, kDataMagic, data.data());
  if (!data_mac) return make_error(data_mac.error());
  Writer w;
  w.str(id.version);
  w.bytes(id.token.data(), id.token.size());
  write_target(w, target);
  const Digest digest = model_digest(source);
  w.bytes(digest.data(), digest.size());
  // The data file's MAC: a model file pairs with exactly one data file.
  w.bytes(data_mac->data(), data_mac->size());
  w.pod<uint64_t>(1 + subgraphs.size());
  w.bytes(graphs.data().data(), graphs.data().size());
  auto model_mac = write_file(paths.model, id, kModelMagic, w.data());
  if (!model_mac) return make_error(model_mac.error());
  return {};
}

Result<CachedProgram> read_compilation_cache(const std::string& dir, const CacheIdentity& id,
                                             const NpuTarget& target, const models::Model* expected) {
  const auto paths = cache_file_paths(dir, id.token);
  Digest model_mac{}, data_mac{};
  auto payload = read_file(paths.model, id, kModelMagic, &model_mac);
  if (!payload) return make_error(payload.error());
  auto data = read_file(paths.data, id, kDataMagic, &data_mac);
  if (!data) return make_error(data.error());
  const std::string where = paths.model + ": ";
  // Past the MACs the content is the driver's own; the checks below still guard against its bugs and
  // say why a genuine cache does not apply (another model under the same token, another target).
  Reader r(payload->data(), payload->size());
  const std::string version = r.str();
  if (r.ok() && version != id.version)
    return make_error(where + "stale: written by \"" + version + "\", this device is \"" + id.version + "\"");
  CacheToken stored{};
  r.bytes(stored.data(), stored.size());
  if (r.ok() && stored != id.token) return make_error(where + "written for another token");
  if (!same_target(r, target)) return make_error(where + "compiled for another NPU configuration");
  Digest source_digest{};
  r.bytes(source_digest.data(), source_digest.size());
  if (r.ok() && expected && source_digest != model_digest(*expected))
    return make_error(where + "stale: written for a different model");
  Digest paired{};
  r.bytes(paired.data(), paired.size());
  if (r.ok() && !same_digest(paired.data(), data_mac.data()))
    return make_error(where + "does not belong to " + paths.data);

  CachedProgram c;
  c.file_bytes = payload->size() + data->size() + 2 * kHeaderBytes;
  const uint64_t graphs = r.count(3 * sizeof(uint64_t));
  if (!r.ok() || graphs == 0) return make_error(where + "graph count missing");
  Reader d(data->data(), data->size());
  for (uint64_t i = 0; i < graphs; ++i) {
    const std::string what = where + (i == 0 ? "main graph: " : "subgraph " + std::to_string(i - 1) + ": ");
    auto g = read_graph(r, d, what, paths.data, i == 0 ? nullptr : &c.main.model.referenced);
    if (!g) return make_error(g.error());
    if (i == 0) {
      if (!g->program) return make_error(what + "no program");
      c.main = std::move(*g);
    } else {
      c.subgraphs.push_back(std::move(*g));
    }
  }
  if (!r.at_end()) return make_error(where + "program section truncated or malformed");
  if (!d.at_end()) return make_error(paths.data + ": longer than its graphs");
  if (c.subgraphs.size() != c.main.model.referenced.size())
    return make_error(where + std::to_string(c.subgraphs.size()) + " subgraph programs for " +
                      std::to_string(c.main.model.referenced.size()) + " referenced subgraphs");
  return c;
}

Result<void> write_signed_file(const std::string& path, const CacheIdentity& id, const char (&magic)[8],
                               const std::vector<uint8_t>& payload) {
  auto mac = write_file(path, id, magic, payload);
  if (!mac) return make_error(mac.error());
  return {};
}

Result<std::vector<uint8_t>> read_signed_file(const std::string& path, const CacheIdentity& id,
                                              const char (&magic)[8]) {
  Digest mac{};
  return read_file(path, id, magic, &mac);
}

Result<void> write_signed_cache_file(const std::string& path, const CacheIdentity& id, bool model_file,
                                     const std::vector<uint8_t>& payload) {
  static_assert(kCacheFileHeaderBytes == kHeaderBytes);
  auto mac = write_file(path, id, model_file ? kModelMagic : kDataMagic, payload);
  if (!mac) return make_error(mac.error());
  return {};
}

std::string default_cache_key_path() {
  if (const char* p = std::getenv("NPUSIM_CACHE_KEY"); p && *p) return p;
  std::string base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::string(h) + "/.cache";
  if (base.empty()) return {};
  return base + "/npusim/cache.key";
}

Result<CacheKey> load_or_create_cache_key(const std::string& path) {
  if (path.empty())
    return make_error(
        "no place for the cache key (neither NPUSIM_CACHE_KEY, XDG_CACHE_HOME nor HOME is set)");
  CacheKey key{};
  auto read_key = [&]() -> Result<CacheKey> {
    auto f = io::open_regular(path, key.size());
    if (!f) return make_error("cache key " + f.error());
    if (f->size() != key.size())
      return make_error("cache key " + path + ": " + std::to_string(f->size()) + " bytes, expected " +
                        std::to_string(key.size()));
    if (auto r = f->read_at(0, key.data(), key.size(), path); !r) return make_error("cache key " + r.error());
    // RAND_bytes never gives 32 zero bytes; a zeroed file (truncated and refilled, or planted) would
    // let anyone forge the MACs.
    if (std::all_of(key.begin(), key.end(), [](uint8_t b) { return b == 0; }))
      return make_error("cache key " + path +
                        ": all 32 bytes are zero, not a key (delete it to make a new one)");
    return key;
  };
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return read_key();
  // First use: 32 random bytes, readable by the user alone, published by link() so that of two
  // processes creating it at once one wins and both use the winner's key.
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
    return make_error("cache key: no random bytes (OpenSSL RAND_bytes)");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());  // mode 0600
  if (fd < 0) return make_error("cache key " + path + ": cannot create: " + std::strerror(errno));
  const bool written =
      ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) && ::fsync(fd) == 0;
  ::close(fd);
  const bool linked = written && (::link(tmp.c_str(), path.c_str()) == 0 || errno == EEXIST);
  const int err = errno;
  ::unlink(tmp.c_str());
  if (!linked) return make_error("cache key " + path + ": cannot create: " + std::strerror(err));
  return read_key();
}

}  // namespace npu::hal
