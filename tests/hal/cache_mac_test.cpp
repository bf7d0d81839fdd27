// The compilation cache's keyed MAC, byte by byte: a cache written for (key, device, version, token)
// reads back only under exactly those, and flipping any single byte of either file — header, program,
// model structure, weights — is rejected. The files are read directly (read_compilation_cache), so
// every byte position is tried in a few seconds.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "hal_test_util.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/device.h"
#include "test_models.h"

namespace npu::hal::test {
namespace {

namespace fs = std::filesystem;

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

CacheKey key_of(uint8_t seed) {
  CacheKey k{};
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<uint8_t>(seed + 7 * i);
  return k;
}

TEST(HalCacheMac, EveryFlippedByteOfEitherFileIsRejected) {
  const fs::path dir = fs::temp_directory_path() / ("npusim_cache_mac_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  run_on_phone([&](system::System& s) {
    const NpuTarget& target = s.npu_device().target();
    // A small CONV_2D -> FULLY_CONNECTED model: both files are a few kilobytes, every byte is tried.
    TestModel t;
    t.model = ops::test::small_quant_model();
    auto program = compile_for_npu(t.model, target);
    ASSERT_TRUE(program.ok()) << program.error();
    CacheToken token{};
    token[3] = 9;
    const CacheIdentity id{key_of(1), "npusim-npu", s.npu_device().version_string(), token};
    ASSERT_TRUE(
        write_compilation_cache(dir.string(), id, target, t.model, CompiledGraph{t.model, *program, {}})
            .ok());
    auto good = read_compilation_cache(dir.string(), id, target, &t.model);
    ASSERT_TRUE(good.ok()) << good.error();
    EXPECT_EQ(good->main.program->weights.bytes(), program->weights.bytes());

    // Bound to the key, the device and the version string.
    for (const CacheIdentity& other : {CacheIdentity{key_of(2), id.device, id.version, token},
                                       CacheIdentity{id.key, "npusim-npu-minimal", id.version, token},
                                       CacheIdentity{id.key, id.device, id.version + "x", token}}) {
      auto r = read_compilation_cache(dir.string(), other, target, &t.model);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.error().find("MAC mismatch"), std::string::npos) << r.error();
    }
    // Bound to the token: the files renamed to another token's names are rejected.
    CacheToken other_token = token;
    other_token[0] = 1;
    const auto paths = cache_file_paths(dir.string(), token);
    const auto other_paths = cache_file_paths(dir.string(), other_token);
    fs::copy_file(paths.model, other_paths.model);
    fs::copy_file(paths.data, other_paths.data);
    auto renamed = read_compilation_cache(
        dir.string(), CacheIdentity{id.key, id.device, id.version, other_token}, target, &t.model);
    ASSERT_FALSE(renamed.ok());
    EXPECT_NE(renamed.error().find("MAC mismatch"), std::string::npos) << renamed.error();

    // Every byte of both files, flipped one at a time.
    size_t tried = 0, rejected = 0;
    for (const std::string& path : {paths.model, paths.data}) {
      const auto original = read_all(path);
      for (size_t i = 0; i < original.size(); ++i) {
        auto edited = original;
        edited[i] = static_cast<char>(edited[i] ^ 0x01);
        write_all(path, edited);
        ++tried;
        rejected += !read_compilation_cache(dir.string(), id, target, &t.model).ok();
      }
      write_all(path, original);
    }
    EXPECT_GT(tried, 2000u);
    EXPECT_EQ(rejected, tried);
    EXPECT_TRUE(read_compilation_cache(dir.string(), id, target, &t.model).ok());
  });
  fs::remove_all(dir);
}

TEST(HalCacheMac, TheKeyIsCreatedOnceAndKeptPrivate) {
  const fs::path dir = fs::temp_directory_path() / ("npusim_cache_key_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string path = (dir / "sub" / "cache.key").string();
  auto first = load_or_create_cache_key(path);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_NE(*first, CacheKey{});
  EXPECT_EQ(fs::file_size(path), 32u);
  EXPECT_EQ(fs::status(path).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
  auto second = load_or_create_cache_key(path);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, *first);
  // A damaged key is an error naming the file, not a silently different key.
  std::ofstream(path, std::ios::trunc) << "short";
  auto damaged = load_or_create_cache_key(path);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().find(path + ": 5 bytes, expected 32"), std::string::npos) << damaged.error();
  fs::remove_all(dir);
}

// 32 zero bytes are no key: anyone could compute the MACs under it.
TEST(HalCacheMac, AnAllZeroKeyIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("npusim_cache_zero_key_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "cache.key").string();
  std::ofstream(path, std::ios::binary) << std::string(32, '\0');
  auto zero = load_or_create_cache_key(path);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error(),
            "cache key " + path + ": all 32 bytes are zero, not a key (delete it to make a new one)");
  fs::remove_all(dir);
}

// The header is read and checked against the file's size before the payload: a 3 GiB file that is not a
// cache file was read whole (and, with a plausible header, MAC'd: 16 s) before its magic was looked at.
// The child process may map at most 1 GiB, so reading the whole file cannot succeed; the sparse file costs
// no disk.
TEST(HalCacheMac, AHugeFileIsRefusedByItsHeaderBeforeBeingRead) {
  const fs::path dir = fs::temp_directory_path() / ("npusim_cache_huge_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const CacheIdentity id{key_of(1), "npusim-npu", "v", CacheToken{}};
  const auto paths = cache_file_paths(dir.string(), id.token);
  for (const std::string& header : {std::string("NOTACACHEFILE"), std::string("NPUSIMMC")}) {
    {
      std::ofstream out(paths.model, std::ios::binary | std::ios::trunc);
      out << header;
    }
    fs::resize_file(paths.model, 3ull << 30);
    auto read_capped = [&] {
      const rlimit cap{1ull << 30, 1ull << 30};
      ::setrlimit(RLIMIT_AS, &cap);
      auto r = read_compilation_cache(dir.string(), id, NpuTarget{}, nullptr);
      std::fprintf(stderr, "%s\n", r.ok() ? "read" : r.error().c_str());
      std::_Exit(r.ok() ? 1 : 0);
    };
    EXPECT_EXIT(read_capped(), ::testing::ExitedWithCode(0),
                header == "NPUSIMMC" ? "cache format 0, expected" : "bad magic");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::hal::test
