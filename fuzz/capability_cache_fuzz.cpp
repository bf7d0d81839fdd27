// `npusim devices`' capability cache (tools/capability_cache.h). A genuine entry of three device rows is
// written once; the first byte of an input picks how it is attacked:
//   even: an edit without the key (byte patches over the genuine file, as offset + value pairs, and a
//         length to cut it to). Property: the read is rejected (so devices measures again) unless the
//         file is exactly as written; an edited entry is never believed.
//   odd:  a forgery with the key: the rest is the payload, signed as a genuine file would be, reaching
//         the JSON and row checks past the MAC. Property: the read is an error, or rows that
//         check_capability_rows accepts and the table prints from without an exception.
// NPUSIM_FUZZ_WRITE_SEEDS=DIR writes seeds of both kinds there and exits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bytes.h"
#include "npu/hal/signed_file.h"
#include "npu/tools/capability_cache.h"
#include "scratch_dir.h"

namespace {

using namespace npu;

struct Genuine {
  hal::CacheIdentity id;
  std::string path, file, payload;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

nlohmann::json rows() {
  nlohmann::json r = nlohmann::json::array();
  for (const char* name : {"npusim-npu", "npusim-npu-minimal", "npusim-cpu"}) {
    nlohmann::json perf = nlohmann::json::array();
    for (const char* type : {"TENSOR_FLOAT32", "TENSOR_QUANT8_ASYMM", "IF", "WHILE"})
      perf.push_back({{"type", type}, {"exec_time", 0.25}, {"power_usage", 0.5}});
    r.push_back({{"name", name},
                 {"type", name == std::string("npusim-cpu") ? "CPU" : "ACCELERATOR"},
                 {"version", "0.1.0 driver 1"},
                 {"cache_files", {1, 1}},
                 {"extensions", nlohmann::json::array({"com.npusim.llm"})},
                 {"operand_performance", perf}});
  }
  return r;
}

const Genuine& genuine() {
  static const Genuine* g = [] {
    auto* out = new Genuine;
    for (size_t i = 0; i < out->id.key.size(); ++i) out->id.key[i] = static_cast<uint8_t>(0x5A ^ i);
    out->id = tools::capability_cache_identity(out->id.key, "{\"npu\": {}}\nnpusim 0.1.0\nfuzz\nrows 2");
    out->path = fuzz::scratch_dir() + "/devices-0000000000000000.caps";
    if (auto w = tools::write_capability_cache(out->path, out->id, rows()); !w) {
      std::fprintf(stderr, "capability_cache fuzz: %s\n", w.error().c_str());
      std::abort();
    }
    out->file = slurp(out->path);
    out->payload = out->file.substr(hal::kCacheFileHeaderBytes);
    if (!tools::read_capability_cache(out->path, out->id)) std::abort();
    return out;
  }();
  return *g;
}

void write_seeds(const Genuine& g, const std::string& dir) {
  put(dir + "/forged_genuine_payload", "\x01" + g.payload);
  put(dir + "/forged_top_level_array", "\x01[1, 2, 3]");
  put(dir + "/forged_deep", "\x01" + std::string(5000, '[') + std::string(5000, ']'));
  std::string edit(1, '\0');
  const auto off = static_cast<uint32_t>(hal::kCacheFileHeaderBytes + 20);
  edit.append(reinterpret_cast<const char*>(&off), 4);
  edit += '7';
  put(dir + "/edit_one_byte", edit);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Genuine& g = genuine();
  if (const char* dir = std::getenv("NPUSIM_FUZZ_WRITE_SEEDS")) {
    write_seeds(g, dir);
    std::exit(0);
  }
  fuzz::Bytes in(data, size);
  if ((in.u8() & 1) == 0) {
    std::string file = g.file;
    // A cut first (0: none), then patches.
    const uint32_t cut = in.u32();
    if (cut != 0) file.resize(cut % (file.size() + 1));
    for (int i = 0; i < 64 && in.left() >= 5 && !file.empty(); ++i) {
      const uint32_t off = in.u32() % file.size();
      file[off] = static_cast<char>(in.u8());
    }
    put(g.path, file);
    auto r = tools::read_capability_cache(g.path, g.id);
    if (r.ok() != (file == g.file)) {
      std::fprintf(stderr, "capability_cache fuzz: an edited entry was %s\n",
                   r.ok() ? "believed" : "refused unchanged");
      std::abort();
    }
    return 0;
  }
  const auto payload = in.take(in.left());
  if (!hal::write_signed_file(g.path, g.id, tools::kCapabilityCacheMagic, payload)) std::abort();
  auto r = tools::read_capability_cache(g.path, g.id);
  if (r) (void)tools::capability_rows_text(*r);  // npusim devices prints them: no exception may escape
  return 0;
}
