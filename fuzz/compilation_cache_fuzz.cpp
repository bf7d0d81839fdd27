// The compilation-cache files that prepareModelFromCache reads (hal/compilation_cache.h). A genuine
// cache of a small quant8 model is written once; the first byte of an input picks how it is attacked:
//   even: an edit without the key (byte patches over the genuine model and data files, as offset +
//         value pairs). Property: the read is rejected (so the device recompiles) unless every patch
//         left the files as they were; an edited cache is never accepted, so no wrong output can come
//         from it.
//   odd:  a forgery with the key: the rest is a model payload and a data payload (u32 length of the
//         first, then both), signed as a genuine file would be, reaching the structural checks past the
//         MACs. Property: the read is an error, or a program whose model passes validation; no crash.
// NPUSIM_FUZZ_WRITE_SEEDS=DIR writes the genuine payloads there as seeds of both kinds and exits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bytes.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/compiler.h"
#include "npu/models/builder.h"
#include "npu/models/validate.h"
#include "scratch_dir.h"

namespace {

using namespace npu;

struct Genuine {
  hal::CacheIdentity id;
  hal::NpuTarget target;
  models::Model source;
  std::string model_file, data_file;  // the files as written
  hal::CacheFilePaths paths;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

const Genuine& genuine() {
  static const Genuine* g = [] {
    auto* out = new Genuine;
    for (size_t i = 0; i < out->id.key.size(); ++i) out->id.key[i] = static_cast<uint8_t>(0xA5 ^ i);
    out->id.device = "npusim-npu";
    out->id.version = "fuzz";
    for (size_t i = 0; i < out->id.token.size(); ++i) out->id.token[i] = static_cast<uint8_t>(i);
    models::ModelBuilder b(7);
    const models::QuantParams q{0.05f, 128};
    uint32_t x = b.input(models::OperandType::TENSOR_QUANT8_ASYMM, {1, 8, 8, 4}, q);
    x = b.conv_2d(x, 8, 3, 3, 1, 1, fx::FusedActivation::RELU, {0.02f, 128}, q);
    x = b.pool_2d(models::OperationType::MAX_POOL_2D, x, 2, 2, 2, 2);
    x = b.fully_connected(b.reshape(x, {1, 128}), 10, fx::FusedActivation::NONE, {0.02f, 128}, q);
    b.mark_output(x);
    out->source = b.model();
    auto program = hal::compile_for_npu(out->source, out->target);
    if (!program) {
      std::fprintf(stderr, "compilation_cache fuzz: %s\n", program.error().c_str());
      std::abort();
    }
    hal::CompiledGraph main{out->source, std::move(*program), ""};
    const std::string dir = fuzz::scratch_dir();
    if (auto w = hal::write_compilation_cache(dir, out->id, out->target, out->source, main); !w) {
      std::fprintf(stderr, "compilation_cache fuzz: %s\n", w.error().c_str());
      std::abort();
    }
    out->paths = hal::cache_file_paths(dir, out->id.token);
    out->model_file = slurp(out->paths.model);
    out->data_file = slurp(out->paths.data);
    if (!hal::read_compilation_cache(dir, out->id, out->target, &out->source)) std::abort();
    return out;
  }();
  return *g;
}

void write_seeds(const Genuine& g, const std::string& dir) {
  const std::string mp = g.model_file.substr(hal::kCacheFileHeaderBytes);
  const std::string dp = g.data_file.substr(hal::kCacheFileHeaderBytes);
  const auto n = static_cast<uint32_t>(mp.size());
  std::string forged = "\x01";
  forged.append(reinterpret_cast<const char*>(&n), 4);
  put(dir + "/forged_genuine_payloads", forged + mp + dp);
  // An edit that changes one byte of the model file's payload and one of the data file.
  std::string edit(1, '\0');
  for (uint32_t off : {static_cast<uint32_t>(hal::kCacheFileHeaderBytes + 3),
                       static_cast<uint32_t>(g.model_file.size() + hal::kCacheFileHeaderBytes + 1)}) {
    edit.append(reinterpret_cast<const char*>(&off), 4);
    edit += '\x5a';
  }
  put(dir + "/edit_two_bytes", edit);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Genuine& g = genuine();
  if (const char* dir = std::getenv("NPUSIM_FUZZ_WRITE_SEEDS")) {
    write_seeds(g, dir);
    std::exit(0);
  }
  fuzz::Bytes in(data, size);
  const std::string dir = fuzz::scratch_dir();
  if ((in.u8() & 1) == 0) {
    std::string files = g.model_file + g.data_file;
    for (int i = 0; i < 64 && in.left() >= 5; ++i) {
      const uint32_t off = in.u32() % files.size();
      files[off] = static_cast<char>(in.u8());
    }
    const std::string model = files.substr(0, g.model_file.size()), dat = files.substr(g.model_file.size());
    put(g.paths.model, model);
    put(g.paths.data, dat);
    auto r = hal::read_compilation_cache(dir, g.id, g.target, &g.source);
    const bool unchanged = model == g.model_file && dat == g.data_file;
    if (r.ok() != unchanged) {
      std::fprintf(stderr, "compilation_cache fuzz: an edited cache was %s\n",
                   r.ok() ? "accepted" : "refused unchanged");
      std::abort();
    }
    return 0;
  }
  const uint32_t n = in.u32();
  const auto model = in.take(n);
  const auto dat = in.take(in.left());
  if (!hal::write_signed_cache_file(g.paths.model, g.id, true, model) ||
      !hal::write_signed_cache_file(g.paths.data, g.id, false, dat))
    std::abort();
  auto r = hal::read_compilation_cache(dir, g.id, g.target, nullptr);
  // The device validates a cached model before use (NpuDevice::prepare_from_cache): run that too.
  if (r) (void)models::validate_model(r->main.model);
  return 0;
}
