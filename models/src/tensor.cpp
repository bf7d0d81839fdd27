#include "npu/models/tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace npu::models {

static_assert(std::endian::native == std::endian::little,
              "operand data is little-endian and read with memcpy; a big-endian host needs byte swaps");

uint64_t Tensor::element_count() const {
  Operand probe;
  probe.type = type;
  probe.dimensions = dimensions;
  return probe.element_count();
}

Tensor make_tensor(const Operand& desc, const std::vector<uint32_t>& dimensions) {
  Tensor t;
  t.type = desc.type;
  t.dimensions = dimensions;
  t.scale = desc.scale;
  t.zero_point = desc.zero_point;
  t.per_channel = desc.per_channel;
  t.data.assign(static_cast<size_t>(t.element_count() * element_size(desc.type)), 0);
  return t;
}

Tensor tensor_from_operand(const Operand& op) {
  Tensor t;
  t.type = op.type;
  t.dimensions = op.dimensions;
  t.scale = op.scale;
  t.zero_point = op.zero_point;
  t.per_channel = op.per_channel;
  t.data = op.data;
  return t;
}

Tensor no_value_tensor(const Operand& desc) {
  Tensor t;
  t.type = desc.type;
  t.scale = desc.scale;
  t.zero_point = desc.zero_point;
  t.per_channel = desc.per_channel;
  t.has_no_value = true;
  return t;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits = 0;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant != 0) {
    // Subnormal half: normalise into a float exponent.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  } else {
    bits = sign;
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (keep NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero) in half: shift the full mantissa and round to nearest even.
    if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: correct
  return static_cast<uint16_t>(sign | h);
}

namespace {
template <class T>
T load(std::span<const uint8_t> data, uint64_t i) {
  T v;
  std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void store(std::span<uint8_t> data, uint64_t i, T v) {
  std::memcpy(data.data() + i * sizeof(T), &v, sizeof(T));
}
template <class T>
T saturate(double v) {
  if (std::isnan(v)) return T{0};
  const double r = std::nearbyint(v);
  if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}
}  // namespace

double read_element(OperandType t, std::span<const uint8_t> data, uint64_t i) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32:
      return load<float>(data, i);
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16:
      return half_to_float(load<uint16_t>(data, i));
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      return load<int32_t>(data, i);
    case OperandType::UINT32:
      return load<uint32_t>(data, i);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return load<uint8_t>(data, i);
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      return load<uint8_t>(data, i) != 0 ? 1.0 : 0.0;
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return load<int8_t>(data, i);
    case OperandType::TENSOR_QUANT16_SYMM:
      return load<int16_t>(data, i);
    case OperandType::TENSOR_QUANT16_ASYMM:
      return load<uint16_t>(data, i);
    case OperandType::SUBGRAPH:
      return 0.0;
  }
  return 0.0;
}

void write_element(OperandType t, std::span<uint8_t> data, uint64_t i, double v) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32:
      store<float>(data, i, static_cast<float>(v));
      return;
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16:
      store<uint16_t>(data, i, float_to_half(static_cast<float>(v)));
      return;
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      store<int32_t>(data, i, saturate<int32_t>(v));
      return;
    case OperandType::UINT32:
      store<uint32_t>(data, i, saturate<uint32_t>(v));
      return;
    case OperandType::TENSOR_QUANT8_ASYMM:
      store<uint8_t>(data, i, saturate<uint8_t>(v));
      return;
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      store<uint8_t>(data, i, v != 0.0 ? 1 : 0);
      return;
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      store<int8_t>(data, i, saturate<int8_t>(v));
      return;
    case OperandType::TENSOR_QUANT16_SYMM:
      store<int16_t>(data, i, saturate<int16_t>(v));
      return;
    case OperandType::TENSOR_QUANT16_ASYMM:
      store<uint16_t>(data, i, saturate<uint16_t>(v));
      return;
    case OperandType::SUBGRAPH:
      return;
  }
}

bool integer_range(OperandType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      return true;
    case OperandType::UINT32:
      *lo = 0;
      *hi = std::numeric_limits<uint32_t>::max();
      return true;
    case OperandType::TENSOR_QUANT8_ASYMM:
      *lo = 0;
      *hi = 255;
      return true;
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      *lo = 0;
      *hi = 1;
      return true;
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      *lo = -128;
      *hi = 127;
      return true;
    case OperandType::TENSOR_QUANT16_SYMM:
      *lo = -32768;
      *hi = 32767;
      return true;
    case OperandType::TENSOR_QUANT16_ASYMM:
      *lo = 0;
      *hi = 65535;
      return true;
    default:
      return false;
  }
}

bool is_float_type(OperandType t) {
  return t == OperandType::FLOAT32 || t == OperandType::TENSOR_FLOAT32 || t == OperandType::FLOAT16 ||
         t == OperandType::TENSOR_FLOAT16;
}

}  // namespace npu::models
