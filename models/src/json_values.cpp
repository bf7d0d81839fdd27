#include "json_values.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "npu/models/model_json.h"
#include "npu/models/tensor.h"

namespace npu::models::detail {
namespace {

void append_bytes(std::vector<uint8_t>& out, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}

std::string type_name(OperandType t) { return std::string(to_string(t)); }

// Shortest decimal text that reads back as the same float, stored as a JSON double: 0.1f prints as
// 0.1 rather than 0.10000000149011612, and still round-trips bit-exactly.
nlohmann::json float_to_json(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), f);
  double d = 0.0;
  std::from_chars(buf, res.ptr, d);
  if (d == std::trunc(d) && std::fabs(d) < 9.007199254740992e15) {
    // Integral values print as integers ("2" not "2.0"); they read back exactly as floats.
    return static_cast<int64_t>(d);
  }
  return d;
}

}  // namespace

// FLT_MAX is 2^128 - 2^104; anything below the midpoint to 2^128 rounds to it rather than to inf.
bool fits_float(double d) { return std::fabs(d) < 3.4028235677973366e38; }
// 65504 is the largest half; the midpoint to 65536 is 65520.
bool fits_half(double d) { return std::fabs(d) < 65520.0; }

std::optional<std::string> append_json_element(OperandType t, const nlohmann::json& value,
                                               std::vector<uint8_t>& out) {
  if (is_float_type(t)) {
    double d = 0.0;
    if (value.is_number()) {
      d = value.get<double>();
    } else if (value.is_string() && value.get<std::string>() == "NaN") {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (value.is_string() && value.get<std::string>() == "Infinity") {
      d = std::numeric_limits<double>::infinity();
    } else if (value.is_string() && value.get<std::string>() == "-Infinity") {
      d = -std::numeric_limits<double>::infinity();
    } else {
      return "expected a number for " + type_name(t) + ", got " + describe_json_value(value);
    }
    const bool half = t == OperandType::FLOAT16 || t == OperandType::TENSOR_FLOAT16;
    if (std::isfinite(d) && !(half ? fits_half(d) : fits_float(d))) {
      return "expected a number within +-" + std::string(half ? "65504" : "3.4028235e38") + " for " +
             type_name(t) + ", got " + describe_json_value(value);
    }
    const auto f = static_cast<float>(d);
    if (half) {
      const uint16_t h = float_to_half(f);
      append_bytes(out, &h, 2);
    } else {
      append_bytes(out, &f, 4);
    }
    return std::nullopt;
  }
  int64_t lo = 0;
  int64_t hi = 0;
  if (!integer_range(t, &lo, &hi)) return "type " + type_name(t) + " has no element values";
  const bool is_bool = t == OperandType::BOOL || t == OperandType::TENSOR_BOOL8;
  auto bad = [&]() -> std::string {
    if (is_bool)
      return "expected true, false, 0 or 1 for " + type_name(t) + ", got " + describe_json_value(value);
    return "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] for " +
           type_name(t) + ", got " + describe_json_value(value);
  };
  int64_t v = 0;
  if (is_bool && value.is_boolean()) {
    v = value.get<bool>() ? 1 : 0;
  } else if (value.is_number_unsigned()) {
    const auto u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return bad();
    v = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else {
    return bad();
  }
  if (v < lo || v > hi) return bad();
  const size_t size = element_size(t);
  // Little-endian: the low `size` bytes of the two's-complement value are the element.
  const auto u = static_cast<uint64_t>(v);
  for (size_t b = 0; b < size; ++b) out.push_back(static_cast<uint8_t>(u >> (8 * b)));
  return std::nullopt;
}

nlohmann::json element_to_json(OperandType t, std::span<const uint8_t> data, uint64_t i) {
  if (is_float_type(t)) return float_to_json(static_cast<float>(read_element(t, data, i)));
  if (t == OperandType::BOOL || t == OperandType::TENSOR_BOOL8) return read_element(t, data, i) != 0.0;
  return static_cast<int64_t>(read_element(t, data, i));
}

nlohmann::json elements_to_json(OperandType t, std::span<const uint8_t> data) {
  nlohmann::json arr = nlohmann::json::array();
  const uint32_t size = element_size(t);
  if (size == 0) return arr;
  const uint64_t n = data.size() / size;
  for (uint64_t i = 0; i < n; ++i) arr.push_back(element_to_json(t, data, i));
  return arr;
}

}  // namespace npu::models::detail
