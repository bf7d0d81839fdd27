// Helpers shared by the kernels (internal to npu_hal_ops): signature checks with uniform messages,
// scalar parameter reads, typed element access and the quantised output stage.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/quant_math.h"

namespace npu::hal::ops::detail {

using models::OperandType;

// The operation's view of a model operand: declared shape and quantisation, value for constants.
OperandInfo operand_info(const models::Operand& op);

// "input 1 (filter)" for error messages.
std::string input_name(size_t index, const char* role);

Error input_error(size_t index, const char* role, const std::string& what);

// The input exists, is not omitted, and has one of the allowed types.
Result<void> expect_type(std::span<const OperandInfo> inputs, size_t index, const char* role,
                         std::initializer_list<OperandType> allowed);

// Rank check when the rank is known.
Result<void> expect_rank(const OperandInfo& in, size_t index, const char* role, size_t rank);

// A scalar INT32/BOOL parameter's value, or nullopt while it is not known (non-constant input).
std::optional<int32_t> int_param(const OperandInfo& in);
std::optional<bool> bool_param(const OperandInfo& in);

// A known INT32 scalar in [lo, hi]; nullopt when unknown. Errors name the input.
Result<std::optional<int32_t>> int_param_in_range(std::span<const OperandInfo> inputs, size_t index,
                                                  const char* role, int32_t lo, int32_t hi);

// Output check: declared type equals `type` and (for quant types) has usable quant params.
Result<void> expect_output_type(std::span<const OperandInfo> outputs, size_t index, OperandType type);

// Count of outputs is exactly n.
Result<void> expect_output_count(std::span<const OperandInfo> outputs, size_t n);

// Element values as float (any float type, or integers).
std::vector<float> read_floats(const OperandInfo& in);
// Element values as int32 (quant/int types).
std::vector<int32_t> read_ints(const OperandInfo& in);
// Writes floats into a float tensor (FLOAT32 or FLOAT16).
void write_floats(models::Tensor& out, std::span<const float> values);
// Writes already-clamped quantised values.
void write_ints(models::Tensor& out, std::span<const int32_t> values);

bool is_quant8(OperandType t);  // TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED

// NNAPI requires bias_scale == input_scale * filter_scale up to a relative 1e-6 (as TFLite's
// GetQuantizedConvolutionMultipler checks); the product is formed in float first, as NNAPI does.
bool bias_scale_matches(float input_scale, float filter_scale, float bias_scale);

// The quantised output stage shared by conv-like kernels: requantise the int32 accumulator, add the
// output zero point, clamp to the activation range.
inline int32_t requantize(int32_t acc, fx::QuantizedMultiplier qm, int32_t output_zero_point,
                          fx::ClampRange range) {
  int32_t v = fx::multiply_by_quantized_multiplier(acc, qm) + output_zero_point;
  if (v < range.lo) v = range.lo;
  if (v > range.hi) v = range.hi;
  return v;
}

// 32-bit two's-complement accumulation (wraps like an int32 hardware accumulator, without UB).
inline int32_t wrap_add(int32_t a, int64_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(static_cast<uint64_t>(b)));
}

// Merges an inferred shape into a declared one (0 = unknown); nullopt when they conflict.
std::optional<std::vector<uint32_t>> merge_shapes(const std::vector<uint32_t>& declared,
                                                  const std::vector<uint32_t>& inferred);

// Product of dims with overflow and unknown (0) detection: nullopt if any extent is 0 or overflow.
std::optional<uint64_t> known_product(std::span<const uint32_t> dims);

// Broadcast shape of a and b, right-aligned (NNAPI/numpy: extents equal or 1; 0 = unknown);
// nullopt when incompatible.
std::optional<std::vector<uint32_t>> broadcast_shape(const std::vector<uint32_t>& a,
                                                     const std::vector<uint32_t>& b);

// Flat index into `dims` (right-aligned against `shape`, extents 1 broadcast) for the multi-index of
// element `flat` of `shape`.
uint64_t broadcast_index(uint64_t flat, const std::vector<uint32_t>& shape,
                         const std::vector<uint32_t>& dims);

// Row-major strides of `dims` (elements).
std::vector<uint64_t> row_major_strides(const std::vector<uint32_t>& dims);

// The tensor types every data-movement operation accepts (NNAPI 1.0-1.3).
inline constexpr std::initializer_list<OperandType> kFloatAndQuant8 = {
    OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
    OperandType::TENSOR_QUANT8_ASYMM_SIGNED};

// Output 0 has the input's type and, for quantised types, the same scale and zero point.
Result<void> expect_output_like_input(std::span<const OperandInfo> outputs, const OperandInfo& input);

// Rank at most `max_rank` when known.
Result<void> expect_rank_at_most(const OperandInfo& in, size_t index, const char* role, size_t max_rank);

// A known constant 1-D TENSOR_INT32 value (nullopt when not known yet).
std::optional<std::vector<int32_t>> int_tensor_value(const OperandInfo& in);

// A scalar FLOAT32 (or FLOAT16) parameter's value, or nullopt while unknown.
std::optional<float> float_param(const OperandInfo& in);

// Element-wise copy for data-movement kernels: out element i takes input element src(i), or the
// `fill` element bytes when src(i) == kFill. Element size from the input type; indices are trusted
// (the kernel derived them from validated shapes) but still bounds-checked, so a bug is an error.
inline constexpr uint64_t kFill = ~uint64_t{0};
template <class SourceIndex>
Result<void> gather_elements(const OperandInfo& in, models::Tensor& out, SourceIndex src,
                             int32_t fill_value = 0) {
  const uint32_t es = models::element_size(in.type);
  if (es == 0 || !in.has_value()) return make_error("internal: no input value");
  const uint64_t n_in = in.value->size() / es;
  const uint64_t n_out = out.data.size() / es;
  std::vector<uint8_t> fill(es, 0);
  if (es == 1) fill[0] = static_cast<uint8_t>(fill_value);
  for (uint64_t i = 0; i < n_out; ++i) {
    const uint64_t s = src(i);
    const uint8_t* from = nullptr;
    if (s == kFill) {
      from = fill.data();
    } else if (s < n_in) {
      from = in.value->data() + s * es;
    } else {
      return make_error("internal: source element " + std::to_string(s) + " out of range");
    }
    for (uint32_t b = 0; b < es; ++b) out.data[i * es + b] = from[b];
  }
  return {};
}

}  // namespace npu::hal::ops::detail
