#include "npu/tools/capability_cache.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "npu/common/file_io.h"
#include "npu/hal/signed_file.h"

namespace npu::tools {
namespace {

// Three devices (the NPU, its minimal variant, the CPU), a few dozen operand types each: a file of a
// few kilobytes. The limits keep a signed but absurd entry from flooding the printout.
constexpr size_t kMaxRows = 16;
constexpr size_t kMaxItems = 1024;
constexpr size_t kMaxText = 256;

Result<void> fail(const std::string& where, const std::string& what) {
  return make_error(where + ": " + what);
}

Result<void> text(const nlohmann::json& obj, const std::string& where, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().size() > kMaxText)
    return fail(where + "." + key, "expected a string of at most " + std::to_string(kMaxText) + " bytes");
  return {};
}

Result<void> array(const nlohmann::json& obj, const std::string& where, const char* key, size_t max) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_array() || it->size() > max)
    return fail(where + "." + key, "expected an array of at most " + std::to_string(max) + " items");
  return {};
}

Result<void> number(const nlohmann::json& obj, const std::string& where, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    return fail(where + "." + key, "expected a finite number >= 0");
  return {};
}

}  // namespace

hal::CacheIdentity capability_cache_identity(const hal::CacheKey& key, const std::string& identity) {
  return hal::CacheIdentity{key, "npusim devices capability cache", identity, {}};
}

Result<void> check_capability_rows(const nlohmann::json& rows) {
  if (!rows.is_array() || rows.empty() || rows.size() > kMaxRows)
    return fail("$", "expected an array of 1 to " + std::to_string(kMaxRows) + " device rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& r = rows[i];
    const std::string where = "$[" + std::to_string(i) + "]";
    if (!r.is_object()) return fail(where, "expected an object");
    for (const char* key : {"name", "type", "version"})
      if (auto e = text(r, where, key); !e) return e;
    const auto files = r.find("cache_files");
    if (files == r.end() || !files->is_array() || files->size() != 2 ||
        !std::all_of(files->begin(), files->end(), [](const nlohmann::json& n) {
          return n.is_number_integer() && n.get<int64_t>() >= 0 && n.get<int64_t>() <= 0xffffffffLL;
        }))
      return fail(where + ".cache_files", "expected two counts");
    if (auto e = array(r, where, "extensions", kMaxItems); !e) return e;
    for (const auto& x : r["extensions"])
      if (!x.is_string() || x.get_ref<const std::string&>().size() > kMaxText)
        return fail(where + ".extensions", "expected extension names");
    if (auto e = array(r, where, "operand_performance", kMaxItems); !e) return e;
    const auto& perf = r["operand_performance"];
    for (size_t k = 0; k < perf.size(); ++k) {
      const std::string at = where + ".operand_performance[" + std::to_string(k) + "]";
      if (!perf[k].is_object()) return fail(at, "expected an object");
      if (auto e = text(perf[k], at, "type"); !e) return e;
      for (const char* key : {"exec_time", "power_usage"})
        if (auto e = number(perf[k], at, key); !e) return e;
    }
  }
  return {};
}

std::string capability_rows_text(const nlohmann::json& rows) {
  std::string out;
  char line[512];
  auto add = [&](int n) {
    out.append(line, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof line) - 1)));
  };
  add(std::snprintf(line, sizeof line, "%-20s %-12s %s\n", "name", "type", "version"));
  for (const auto& r : rows) {
    add(std::snprintf(line, sizeof line, "%-20s %-12s %s\n", r["name"].get<std::string>().c_str(),
                      r["type"].get<std::string>().c_str(), r["version"].get<std::string>().c_str()));
    // getSupportedExtensions: printed as the device answers it ("none" only when the list is empty).
    std::string extensions;
    for (const auto& e : r["extensions"])
      extensions += (extensions.empty() ? "" : ", ") + e.get<std::string>();
    out += "  cache files: " + std::to_string(r["cache_files"][0].get<uint32_t>()) + " model, " +
           std::to_string(r["cache_files"][1].get<uint32_t>()) +
           " data; extensions: " + (extensions.empty() ? std::string("none") : extensions) + "\n";
    for (const auto& p : r["operand_performance"])
      add(std::snprintf(line, sizeof line, "  %-32s exec_time %.4f  power_usage %.4f\n",
                        p["type"].get<std::string>().c_str(), p["exec_time"].get<double>(),
                        p["power_usage"].get<double>()));
  }
  return out;
}

Result<nlohmann::json> read_capability_cache(const std::string& path, const hal::CacheIdentity& id) {
  auto payload = hal::read_signed_file(path, id, kCapabilityCacheMagic);
  if (!payload) return make_error(payload.error());
  const std::string text(payload->begin(), payload->end());
  if (auto r = io::check_json_nesting(text); !r) return make_error(path + ": " + r.error());
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return make_error(path + ": the signed entry is not JSON");
  if (auto r = check_capability_rows(doc); !r) return make_error(path + ": " + r.error());
  return doc;
}

Result<void> write_capability_cache(const std::string& path, const hal::CacheIdentity& id,
                                    const nlohmann::json& rows) {
  if (auto r = check_capability_rows(rows); !r) return make_error(path + ": " + r.error());
  const std::string text = rows.dump(1) + "\n";
  return hal::write_signed_file(path, id, kCapabilityCacheMagic,
                                std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace npu::tools
