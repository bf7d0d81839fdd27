// Declared parameters: every tunable of a component is declared once with its JSON path, default, unit,
// description and valid range, bound to the field that holds it. A Schema loads JSON overlays (unknown
// keys and bad values rejected with the JSON path and what was expected), applies `path=value`
// overrides, and explains itself. It does not own the fields it binds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::cfg {

class Schema {
 public:
  Schema& u32(std::string path, uint32_t* field, uint32_t def, std::string unit, std::string desc,
              uint32_t min = 0, uint32_t max = UINT32_MAX);
  Schema& u64(std::string path, uint64_t* field, uint64_t def, std::string unit, std::string desc,
              uint64_t min = 0, uint64_t max = UINT64_MAX);
  Schema& f64(std::string path, double* field, double def, std::string unit, std::string desc,
              double min = -1e300, double max = 1e300);
  Schema& boolean(std::string path, bool* field, bool def, std::string desc);
  Schema& choice(std::string path, std::string* field, std::string def, std::vector<std::string> allowed,
                 std::string desc);

  // Applies a JSON object overlay; `source` names the file in errors. Keys at the top level listed in
  // `ignored_top_level` (e.g. "description") are accepted and skipped.
  Result<void> apply(const nlohmann::json& doc, const std::string& source,
                     const std::vector<std::string>& ignored_top_level = {"description"});
  // Applies one `path=value` override (value parsed as JSON, or as a bare string).
  Result<void> set(const std::string& assignment);
  // Every parameter: path, default, unit, description (one per line).
  std::string explain() const;
  // Effective values as a nested JSON object.
  nlohmann::json values() const;
  // The allowed values of the choice at `path`; empty when `path` is not a choice.
  std::vector<std::string> choices(const std::string& path) const;

 private:
  struct Param {
    std::string path;
    std::string unit;
    std::string description;
    std::string default_text;
    std::string expected;  // "an integer in [1, 16]"
    std::function<Result<void>(const nlohmann::json&)> assign;
    std::function<nlohmann::json()> get;
  };
  const Param* find(const std::string& path) const;
  bool is_prefix(const std::string& path) const;
  Result<void> walk(const nlohmann::json& node, const std::string& path, const std::string& source);
  std::vector<Param> params_;
  std::map<std::string, std::vector<std::string>> choices_;  // by path
};

}  // namespace npu::cfg
