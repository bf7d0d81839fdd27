// The compilation cache: model and data cache files keyed by a 32-byte token; a second preparation
// loads them, prepareModelFromCache needs nothing else; a corrupted, truncated, foreign (token),
// stale (driver version, model) or forged (edited, every checksum recomputed) cache is detected,
// reported and recompiled — never trusted.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hal_test_util.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/device.h"

namespace npu::hal::test {
namespace {

namespace fs = std::filesystem;

CacheToken token_of(uint8_t seed) {
  CacheToken t{};
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint8_t>(seed * 31 + i);
  return t;
}

std::string fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("npusim_cache_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The MAC key of this test process: a file of its own, so tests neither share nor touch the user's.
const std::string& test_key_path() {
  static const std::string path = [] {
    const std::string p =
        (fs::temp_directory_path() / ("npusim_cache_key_" + std::to_string(::getpid()))).string();
    fs::remove(p);
    ::setenv("NPUSIM_CACHE_KEY", p.c_str(), 1);
    return p;
  }();
  return path;
}

struct Fixture {
  TestModel t = conv_fc_quant8();
  PrepareOptions options;
  explicit Fixture(const std::string& name) {
    (void)test_key_path();
    options.cache_dir = fresh_dir(name);
    options.token = token_of(1);
  }
  ~Fixture() { fs::remove_all(options.cache_dir); }
  CacheFilePaths paths() const { return cache_file_paths(options.cache_dir, *options.token); }
};

// Prepares with the cache options and checks the result runs correctly; returns it.
PrepareResult prepare_and_check(system::System& s, NpuDevice& dev, const Fixture& f) {
  auto r = dev.prepare_model(f.t.model, f.options);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  if (!r.model) return r;
  auto out = r.model->execute_synchronously(f.t.inputs, false);
  EXPECT_TRUE(out.status.ok()) << out.status.message;
  expect_outputs_match(reference_outputs(s, f.t.model, f.t.inputs), out.outputs);
  return r;
}

TEST(HalCache, SecondPreparationAndPrepareModelFromCacheUseTheFiles) {
  Fixture f("roundtrip");
  run_on_phone([&](system::System& s) {
    NpuDevice& dev = s.npu_device();
    auto first = prepare_and_check(s, dev, f);
    EXPECT_FALSE(first.from_cache);
    EXPECT_NE(first.cache_miss.find("no cache file"), std::string::npos) << first.cache_miss;
    EXPECT_TRUE(fs::exists(f.paths().model));
    EXPECT_TRUE(fs::exists(f.paths().data));
    auto second = prepare_and_check(s, dev, f);
    EXPECT_TRUE(second.from_cache) << second.cache_miss;
    EXPECT_EQ(second.model->placement(), first.model->placement());
    // prepareModelFromCache: the files and the token only.
    auto only = dev.prepare_model_from_cache(f.options);
    ASSERT_TRUE(only.status.ok()) << only.status.message;
    EXPECT_TRUE(only.from_cache);
    auto out = only.model->execute_synchronously(f.t.inputs, false);
    ASSERT_TRUE(out.status.ok());
    expect_outputs_match(reference_outputs(s, f.t.model, f.t.inputs), out.outputs);
    // The minimal device compiles differently: the full device's cache is not its own (the MAC binds
    // the device name).
    NpuDevice& minimal = s.npu_device(10000, 1000, NpuDevice::Variant::MINIMAL);
    auto other = minimal.prepare_model_from_cache(f.options);
    EXPECT_EQ(other.status.code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_NE(other.status.message.find("MAC mismatch"), std::string::npos) << other.status.message;
  });
}

// Each way of breaking the cache is caught with its own reason, the model is recompiled (correct
// outputs) and the files are rewritten, so the next preparation uses them again.
TEST(HalCache, CorruptTruncatedForeignAndStaleCachesAreRecompiledNeverTrusted) {
  struct Case {
    const char* what;
    std::function<void(Fixture&, const NpuTarget&)> damage;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"corrupted model file",
       [](Fixture& f, const NpuTarget&) {
         auto b = read_all(f.paths().model);
         b[b.size() / 2] = static_cast<char>(b[b.size() / 2] ^ 0x40);
         write_all(f.paths().model, b);
       },
       "MAC mismatch"},
      {"corrupted data file (weights)",
       [](Fixture& f, const NpuTarget&) {
         auto b = read_all(f.paths().data);
         b[b.size() - 3] = static_cast<char>(b[b.size() - 3] ^ 1);
         write_all(f.paths().data, b);
       },
       "MAC mismatch"},
      {"truncated data file",
       [](Fixture& f, const NpuTarget&) {
         auto b = read_all(f.paths().data);
         b.resize(b.size() / 2);
         write_all(f.paths().data, b);
       },
       "truncated"},
      {"truncated header",
       [](Fixture& f, const NpuTarget&) { write_all(f.paths().model, std::vector<char>(10, 'N')); },
       "truncated"},
      {"files of another token",
       [](Fixture& f, const NpuTarget&) {
         const auto other = cache_file_paths(f.options.cache_dir, token_of(9));
         fs::copy_file(other.model, f.paths().model, fs::copy_options::overwrite_existing);
         fs::copy_file(other.data, f.paths().data, fs::copy_options::overwrite_existing);
       },
       "MAC mismatch"},  // the MAC binds the token
      {"another driver version",
       [](Fixture& f, const NpuTarget& target) {
         // Written with this installation's key for this device, under another version string: the
         // MAC binds the version too, so the file is rejected before its content is read.
         auto compiled = compile_for_npu(f.t.model, target);
         ASSERT_TRUE(compiled.ok());
         auto key = load_or_create_cache_key(test_key_path());
         ASSERT_TRUE(key.ok()) << key.error();
         const CacheIdentity old{*key, "npusim-npu", "npusim-npu hal 1.3.0 driver 0.2.9+000000000000 hw 1.0",
                                 *f.options.token};
         ASSERT_TRUE(write_compilation_cache(f.options.cache_dir, old, target, f.t.model,
                                             CompiledGraph{f.t.model, *compiled, {}})
                         .ok());
       },
       "MAC mismatch"},
      {"another model under the same token", [](Fixture& f, const NpuTarget&) { f.t = conv_fc_quant8(2); },
       "stale: written for a different model"},
  };
  run_on_phone([&](system::System& s) {
    NpuDevice& dev = s.npu_device();
    for (const auto& c : cases) {
      SCOPED_TRACE(c.what);
      Fixture f("damage");
      // A cache of another model under another token, for the "foreign" case.
      PrepareOptions other_opts = f.options;
      other_opts.token = token_of(9);
      ASSERT_TRUE(dev.prepare_model(conv_quant8().model, other_opts).status.ok());
      auto first = prepare_and_check(s, dev, f);
      ASSERT_FALSE(first.from_cache);
      c.damage(f, dev.target());
      auto again = prepare_and_check(s, dev, f);
      EXPECT_FALSE(again.from_cache);
      EXPECT_NE(again.cache_miss.find(c.reason), std::string::npos) << again.cache_miss;
      auto third = prepare_and_check(s, dev, f);
      EXPECT_TRUE(third.from_cache) << third.cache_miss;  // rewritten by the recompilation
    }
    // prepareModelFromCache with an unknown token: an error, no model.
    Fixture f("unknown");
    f.options.token = token_of(42);
    auto r = dev.prepare_model_from_cache(f.options);
    EXPECT_EQ(r.status.code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(r.model, nullptr);
    EXPECT_NE(r.status.message.find("no cache file"), std::string::npos);
    PrepareOptions no_token;
    EXPECT_EQ(dev.prepare_model_from_cache(no_token).status.code, ErrorStatus::INVALID_ARGUMENT);
  });
}

// FNV-1a 64, the checksum the cache files carried up to format 3.
uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * 1099511628211ull;
  return h;
}

// A forger who knows the file format: edits a byte of the packed weights in the data file, then
// recomputes the data file's checksum (header bytes 20..27, over the payload after them), the copy of
// it the model file keeps, and the model file's checksum. Format 3 accepted the result and ran the
// edited weights (wrong outputs, no error); a keyed MAC cannot be recomputed without the key.
void forge_weights(const CacheFilePaths& paths, size_t weight_byte) {
  constexpr size_t kSum = 20, kPayload = 28;
  auto data = read_all(paths.data);
  auto model = read_all(paths.model);
  ASSERT_GT(data.size(), kPayload + 8 + weight_byte);
  uint64_t old_data_sum = 0, new_data_sum = 0;
  std::memcpy(&old_data_sum, data.data() + kSum, 8);
  data[kPayload + 8 + weight_byte] = static_cast<char>(data[kPayload + 8 + weight_byte] ^ 0x5A);
  new_data_sum = fnv1a(data.data() + kPayload, data.size() - kPayload);
  std::memcpy(data.data() + kSum, &new_data_sum, 8);
  for (size_t i = kPayload; i + 8 <= model.size(); ++i)
    if (std::memcmp(model.data() + i, &old_data_sum, 8) == 0) std::memcpy(model.data() + i, &new_data_sum, 8);
  const uint64_t model_sum = fnv1a(model.data() + kPayload, model.size() - kPayload);
  std::memcpy(model.data() + kSum, &model_sum, 8);
  write_all(paths.data, data);
  write_all(paths.model, model);
}

TEST(HalCache, ForgedWeightsWithEveryChecksumRecomputedAreRejectedAndRecompiled) {
  run_on_phone([&](system::System& s) {
    NpuDevice& dev = s.npu_device();
    for (size_t byte : {0u, 1u, 97u, 1000u}) {
      SCOPED_TRACE("weight byte " + std::to_string(byte));
      Fixture f("forged");
      ASSERT_FALSE(prepare_and_check(s, dev, f).from_cache);
      forge_weights(f.paths(), byte);
      auto only = dev.prepare_model_from_cache(f.options);
      EXPECT_EQ(only.status.code, ErrorStatus::GENERAL_FAILURE);
      EXPECT_EQ(only.model, nullptr);
      auto again = prepare_and_check(s, dev, f);  // checks the outputs against the CPU reference
      EXPECT_FALSE(again.from_cache);
    }
  });
}

// A folder where a cache file belongs: a cache miss naming it, never an exception.
TEST(HalCache, AFolderInPlaceOfACacheFileIsAMiss) {
  Fixture f("folder");
  fs::create_directories(f.paths().model);
  run_on_phone([&](system::System& s) {
    auto r = prepare_and_check(s, s.npu_device(), f);
    EXPECT_FALSE(r.from_cache);
    EXPECT_NE(r.cache_miss.find("it is a folder, not a file"), std::string::npos) << r.cache_miss;
  });
}

}  // namespace
}  // namespace npu::hal::test
