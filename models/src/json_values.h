// Element values <-> JSON, shared by the model and io JSON readers/writers (internal to npu_models).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/models/model.h"

namespace npu::models::detail {

// Appends `value` as one little-endian element of type t to `out`. On a wrong kind or out-of-range
// value returns the "expected ..., got ..." text (no file or path; the caller adds them).
std::optional<std::string> append_json_element(OperandType t, const nlohmann::json& value,
                                               std::vector<uint8_t>& out);

// Element i of `data` as JSON: numbers for floats (NaN/inf as strings), integers otherwise, and
// booleans for BOOL/TENSOR_BOOL8.
nlohmann::json element_to_json(OperandType t, std::span<const uint8_t> data, uint64_t i);

// All whole elements of `data` as a JSON array.
nlohmann::json elements_to_json(OperandType t, std::span<const uint8_t> data);

// True when d rounds to a finite float (|d| below FLT_MAX plus half an ulp), or to a finite half.
bool fits_float(double d);
bool fits_half(double d);

// Path helpers: "$.a" + key, "$.a" + index.
inline std::string child(const std::string& path, const std::string& key) { return path + "." + key; }
inline std::string child(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

}  // namespace npu::models::detail
