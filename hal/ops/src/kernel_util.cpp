#include "kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace npu::hal::ops::detail {

OperandInfo operand_info(const models::Operand& op) {
  OperandInfo info;
  info.type = op.type;
  info.lifetime = op.lifetime;
  info.dimensions = op.dimensions;
  info.scale = op.scale;
  info.zero_point = op.zero_point;
  info.per_channel = op.per_channel ? &*op.per_channel : nullptr;
  info.value = op.is_constant() ? &op.data : nullptr;
  return info;
}

std::string input_name(size_t index, const char* role) {
  return "input " + std::to_string(index) + " (" + role + ")";
}

Error input_error(size_t index, const char* role, const std::string& what) {
  return make_error(input_name(index, role) + ": " + what);
}

Result<void> expect_type(std::span<const OperandInfo> inputs, size_t index, const char* role,
                         std::initializer_list<OperandType> allowed) {
  if (index >= inputs.size()) return input_error(index, role, "missing");
  const OperandInfo& in = inputs[index];
  if (in.omitted()) return input_error(index, role, "is required but has no value (NO_VALUE)");
  for (OperandType t : allowed) {
    if (in.type == t) return {};
  }
  std::string list;
  for (OperandType t : allowed) {
    if (!list.empty()) list += " or ";
    list += models::to_string(t);
  }
  return input_error(index, role, "expected " + list + ", got " + std::string(models::to_string(in.type)));
}

Result<void> expect_rank(const OperandInfo& in, size_t index, const char* role, size_t rank) {
  if (in.rank_known() && in.dimensions.size() != rank) {
    return input_error(index, role,
                       "expected rank " + std::to_string(rank) + ", got " +
                           std::to_string(in.dimensions.size()) + " " +
                           models::dims_to_string(in.dimensions));
  }
  return {};
}

std::optional<int32_t> int_param(const OperandInfo& in) {
  if (!in.has_value() || in.value->size() < 4) return std::nullopt;
  int32_t v = 0;
  std::memcpy(&v, in.value->data(), 4);
  return v;
}

std::optional<bool> bool_param(const OperandInfo& in) {
  if (!in.has_value() || in.value->empty()) return std::nullopt;
  return (*in.value)[0] != 0;
}

Result<std::optional<int32_t>> int_param_in_range(std::span<const OperandInfo> inputs, size_t index,
                                                  const char* role, int32_t lo, int32_t hi) {
  if (auto r = expect_type(inputs, index, role, {OperandType::INT32}); !r) return make_error(r.error());
  const auto v = int_param(inputs[index]);
  if (v && (*v < lo || *v > hi)) {
    const std::string range = hi == std::numeric_limits<int32_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return input_error(index, role, "expected a value " + range + ", got " + std::to_string(*v));
  }
  return v;
}

Result<void> expect_output_count(std::span<const OperandInfo> outputs, size_t n) {
  if (outputs.size() != n) {
    return make_error("expected " + std::to_string(n) + " output" + (n == 1 ? "" : "s") + ", got " +
                      std::to_string(outputs.size()));
  }
  return {};
}

Result<void> expect_output_type(std::span<const OperandInfo> outputs, size_t index, OperandType type) {
  if (index >= outputs.size()) return make_error("output " + std::to_string(index) + ": missing");
  if (outputs[index].type != type) {
    return make_error("output " + std::to_string(index) + ": expected " +
                      std::string(models::to_string(type)) + " (the input type), got " +
                      std::string(models::to_string(outputs[index].type)));
  }
  return {};
}

std::vector<float> read_floats(const OperandInfo& in) {
  std::vector<float> out;
  if (!in.has_value()) return out;
  const std::vector<uint8_t>& bytes = *in.value;
  const uint32_t size = models::element_size(in.type);
  if (size == 0) return out;
  const size_t n = bytes.size() / size;
  out.resize(n);
  if (in.type == OperandType::TENSOR_FLOAT32 || in.type == OperandType::FLOAT32) {
    if (n > 0) std::memcpy(out.data(), bytes.data(), n * 4);  // empty vectors may hold null
    return out;
  }
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(models::read_element(in.type, bytes, i));
  return out;
}

std::vector<int32_t> read_ints(const OperandInfo& in) {
  std::vector<int32_t> out;
  if (!in.has_value()) return out;
  const std::vector<uint8_t>& bytes = *in.value;
  const uint32_t size = models::element_size(in.type);
  if (size == 0) return out;
  const size_t n = bytes.size() / size;
  out.resize(n);
  switch (in.type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      for (size_t i = 0; i < n; ++i) out[i] = bytes[i];
      return out;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(bytes[i]);
      return out;
    case OperandType::TENSOR_INT32:
    case OperandType::INT32:
      if (n > 0) std::memcpy(out.data(), bytes.data(), n * 4);
      return out;
    default:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(models::read_element(in.type, bytes, i));
      return out;
  }
}

void write_floats(models::Tensor& out, std::span<const float> values) {
  const size_t n = std::min<size_t>(values.size(),
                                    out.data.size() / std::max<uint32_t>(1, models::element_size(out.type)));
  if (out.type == OperandType::TENSOR_FLOAT32) {
    if (n > 0) std::memcpy(out.data.data(), values.data(), n * 4);
    return;
  }
  for (size_t i = 0; i < n; ++i) models::write_element(out.type, out.data, i, values[i]);
}

void write_ints(models::Tensor& out, std::span<const int32_t> values) {
  const size_t n = std::min<size_t>(values.size(),
                                    out.data.size() / std::max<uint32_t>(1, models::element_size(out.type)));
  if (out.type == OperandType::TENSOR_QUANT8_ASYMM || out.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    for (size_t i = 0; i < n; ++i)
      out.data[i] = static_cast<uint8_t>(values[i]);  // two's complement for int8
    return;
  }
  for (size_t i = 0; i < n; ++i) models::write_element(out.type, out.data, i, values[i]);
}

bool is_quant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

bool bias_scale_matches(float input_scale, float filter_scale, float bias_scale) {
  const double product = input_scale * filter_scale;  // float product, as NNAPI computes it
  const double bias = bias_scale;
  return std::fabs(product - bias) <= 1e-6 * std::min(product, bias);
}

std::optional<std::vector<uint32_t>> merge_shapes(const std::vector<uint32_t>& declared,
                                                  const std::vector<uint32_t>& inferred) {
  if (declared.empty()) return inferred;
  if (inferred.empty()) return declared;
  if (declared.size() != inferred.size()) return std::nullopt;
  std::vector<uint32_t> out(declared.size());
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] != 0 && inferred[i] != 0 && declared[i] != inferred[i]) return std::nullopt;
    out[i] = declared[i] != 0 ? declared[i] : inferred[i];
  }
  return out;
}

std::optional<uint64_t> known_product(std::span<const uint32_t> dims) {
  uint64_t p = 1;
  for (uint32_t d : dims) {
    if (d == 0) return std::nullopt;
    if (p > std::numeric_limits<uint64_t>::max() / d) return std::nullopt;
    p *= d;
  }
  return p;
}

std::optional<std::vector<uint32_t>> broadcast_shape(const std::vector<uint32_t>& a,
                                                     const std::vector<uint32_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<uint32_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 0 || y == 0) {
      out[i] = (x == 1 || y == 1) ? 0 : std::max(x, y);  // unknown unless the other side fixes it
      continue;
    }
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

uint64_t broadcast_index(uint64_t flat, const std::vector<uint32_t>& shape,
                         const std::vector<uint32_t>& dims) {
  uint64_t index = 0;
  uint64_t stride = 1;
  const size_t offset = shape.size() - std::min(shape.size(), dims.size());
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return 0;
    const uint64_t coord = flat % shape[i];
    flat /= shape[i];
    if (i >= offset && i - offset < dims.size()) {
      const uint32_t d = dims[i - offset];
      if (d != 1) index += coord * stride;
      stride *= d;
    }
  }
  return index;
}

std::vector<uint64_t> row_major_strides(const std::vector<uint32_t>& dims) {
  std::vector<uint64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

Result<void> expect_output_like_input(std::span<const OperandInfo> outputs, const OperandInfo& input) {
  if (auto r = expect_output_type(outputs, 0, input.type); !r) return r;
  if (is_quant8(input.type) &&
      (outputs[0].scale != input.scale || outputs[0].zero_point != input.zero_point)) {
    return make_error("output 0: quantisation must equal the input's (scale " + std::to_string(input.scale) +
                      ", zeroPoint " + std::to_string(input.zero_point) + ")");
  }
  return {};
}

Result<void> expect_rank_at_most(const OperandInfo& in, size_t index, const char* role, size_t max_rank) {
  if (in.dimensions.size() > max_rank) {
    return input_error(
        index, role,
        "expected rank <= " + std::to_string(max_rank) + ", got " + std::to_string(in.dimensions.size()));
  }
  return {};
}

std::optional<std::vector<int32_t>> int_tensor_value(const OperandInfo& in) {
  if (!in.has_value() || in.type != OperandType::TENSOR_INT32) return std::nullopt;
  return read_ints(in);
}

std::optional<float> float_param(const OperandInfo& in) {
  if (!in.has_value()) return std::nullopt;
  if (in.type == OperandType::FLOAT32 && in.value->size() >= 4) {
    float v = 0.0f;
    std::memcpy(&v, in.value->data(), 4);
    return v;
  }
  if (in.type == OperandType::FLOAT16 && in.value->size() >= 2) {
    return static_cast<float>(models::read_element(in.type, *in.value, 0));
  }
  return std::nullopt;
}

}  // namespace npu::hal::ops::detail
