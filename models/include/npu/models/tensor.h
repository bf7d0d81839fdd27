// A tensor value for one execution: element bytes plus the operand type, shape and quantisation that
// give them meaning. Used for execution inputs/outputs (io JSON), by the HAL's CPU reference, and to
// compare device results. It owns its bytes (row-major, no padding, little-endian) and is not a view
// into device memory; it does no arithmetic beyond element conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "npu/models/model.h"

namespace npu::models {

struct Tensor {
  OperandType type = OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;  // fully specified for values (scalars: empty)
  float scale = 0.0f;
  int32_t zero_point = 0;
  std::optional<PerChannelQuant> per_channel;
  std::vector<uint8_t> data;
  // An execution argument given as nothing (NNAPI RequestArgument::hasNoValue, `null` in an inputs
  // file): an optional operation input left out at execution. No dimensions, no data; the operation
  // sees the operand as NO_VALUE.
  bool has_no_value = false;

  // Element count from dimensions (1 for scalars, saturating like Operand::element_count()).
  uint64_t element_count() const;
};

// A zero-filled tensor with the operand's type and quantisation and the given dimensions.
// The caller has checked that the byte size is sane (see max_operand_bytes()).
Tensor make_tensor(const Operand& desc, const std::vector<uint32_t>& dimensions);

// A request argument with no value for an operand of `desc`'s type (has_no_value set).
Tensor no_value_tensor(const Operand& desc);

// The operand's constant value as a tensor (type, dims, quantisation and data copied).
Tensor tensor_from_operand(const Operand& op);

// IEEE 754 binary16 <-> binary32; float_to_half rounds to nearest even (overflow -> inf, NaN kept).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

// Element i of `data` (little-endian elements of type t) as a double; exact for every NNAPI type
// (floats widen, integers fit). Requires (i + 1) * element_size(t) <= data.size().
double read_element(OperandType t, std::span<const uint8_t> data, uint64_t i);

// Stores v as element i; integers are rounded to nearest and saturated to the type's range, floats
// narrowed. Same bounds requirement as read_element.
void write_element(OperandType t, std::span<uint8_t> data, uint64_t i, double v);

// Inclusive integer range of an integer/quantised/bool type (false for float types and SUBGRAPH).
bool integer_range(OperandType t, int64_t* lo, int64_t* hi);

// True for FLOAT32, FLOAT16 and their tensor types.
bool is_float_type(OperandType t);

}  // namespace npu::models
