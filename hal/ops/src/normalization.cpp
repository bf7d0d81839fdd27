// L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION kernels (one file: both normalise along one axis,
// the depth by default). NNAPI signatures:
//   L2_NORMALIZATION: 0 input (rank 4 in NNAPI 1.0, 1..4 since 1.2 with or without the axis; FLOAT32/FLOAT16,
//     QUANT8_ASYMM since 1.2, QUANT8_ASYMM_SIGNED since 1.3), [1 axis INT32, default -1]. Output of the
//     input's shape; quant8 output scale 1/128 with zero point 128 (signed 0).
//     Float: x / max(sqrt(sum x^2), 1e-6). Quant8 is NNAPI's reference bit-exactly (TFLite
//     reference_ops::L2Normalization): the int32 sum of squared centred inputs gives an inverse-sqrt
//     multiplier by GetInvSqrtQuantizedMultiplierExp (fixed-point Newton-Raphson), each centred input
//     times 128 is rescaled by it, + 128, clamped. Signed inputs: the same, shifted by 128.
//   LOCAL_RESPONSE_NORMALIZATION: 0 input (rank 4 in 1.0; 1..4 since 1.2, with or without the axis;
//     FLOAT32/FLOAT16),
//     1 radius INT32 >= 0, 2 bias, 3 alpha, 4 beta (FLOAT32; FLOAT16 for FLOAT16 inputs), [5 axis].
//     out = x * (bias + alpha * sum over [c - radius, c + radius] of x^2)^-beta, in float.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// Raw gemmlowp fixed-point helpers (the caller tracks integer bits).
int32_t srdhm(int32_t a, int32_t b) { return fx::saturating_rounding_doubling_high_mul(a, b); }
int32_t sat_shift_left(int32_t x, int e) {
  const int64_t v = static_cast<int64_t>(x) * (int64_t{1} << e);
  return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
}

// TFLite GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1): 1/sqrt(input) as a multiplier
// and a right shift. An input of 0 or 1 gives the largest multiplier (1.0) and no shift, as the reference
// does: the general path below overflows for 1.
void inv_sqrt_multiplier(int32_t input, int32_t* multiplier, int* right_shift) {
  if (input <= 1) {
    *multiplier = std::numeric_limits<int32_t>::max();
    *right_shift = 0;
    return;
  }
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const unsigned max_left_shift_bits =
      static_cast<unsigned>(std::countl_zero(static_cast<uint32_t>(input))) - 1;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  shift -= static_cast<int>(left_shift_bit_pairs);
  input = static_cast<int32_t>(static_cast<uint32_t>(input) << (2 * left_shift_bit_pairs));
  // Q3.28 Newton-Raphson for 1/sqrt, starting at 1, five iterations.
  const int32_t fp_input = input >> 1;
  const int32_t half_input = fx::rounding_divide_by_pot(fp_input, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 = sat_shift_left(srdhm(srdhm(x, x), x), 6);  // Q9 -> Q3
    const int32_t d = static_cast<int32_t>(static_cast<uint32_t>(srdhm(half_three, x)) -
                                           static_cast<uint32_t>(srdhm(half_input, x3)));
    x = sat_shift_left(d, 3);  // Q6 -> Q3
  }
  x = srdhm(x, 1518500250);  // * sqrt(2)/2
  if (shift < 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x) << -shift);
    shift = 0;
  }
  *multiplier = x;
  *right_shift = shift;
}

// Axis of a normalisation (default last) and the outer/depth/inner split.
struct AxisSplit {
  uint64_t outer = 1, depth = 1, inner = 1;
};
AxisSplit split(const std::vector<uint32_t>& dims, int32_t axis) {
  AxisSplit s;
  const auto rank = static_cast<int32_t>(dims.size());
  if (axis < 0) axis += rank;
  for (int32_t k = 0; k < rank; ++k) {
    const uint64_t d = dims[static_cast<size_t>(k)];
    if (k < axis)
      s.outer *= d;
    else if (k == axis)
      s.depth = d;
    else
      s.inner *= d;
  }
  return s;
}

// Without the axis (the NNAPI 1.0 form) the axis is the last one: since NNAPI 1.2 ranks 1 to 4 are valid
// either way (NNAPI 1.0 allowed rank 4 only; this HAL is 1.3).
Result<void> check_axis_and_rank(std::span<const OperandInfo> in, size_t axis_index, bool has_axis) {
  if (!in[0].rank_known()) return {};
  const size_t rank = in[0].dimensions.size();
  if (rank < 1 || rank > 4)
    return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(rank));
  if (!has_axis) return {};
  auto axis =
      int_param_in_range(in, axis_index, "axis", -static_cast<int32_t>(rank), static_cast<int32_t>(rank) - 1);
  if (!axis) return make_error(axis.error());
  return {};
}

class L2NormalizationKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::L2_NORMALIZATION; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 1 && in.size() != 2)
      return make_error("expected 1 or 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    if (in.size() == 2) {
      if (auto r = expect_type(in, 1, "axis", {OperandType::INT32}); !r) return make_error(r.error());
    }
    if (auto r = check_axis_and_rank(in, 1, in.size() == 2); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    if (is_quant8(in[0].type)) {
      const int32_t zp = in[0].type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0;
      if (out[0].scale != 1.0f / 128.0f || out[0].zero_point != zp)
        return make_error("output 0: quant8 L2_NORMALIZATION needs scale 1/128 and zeroPoint " +
                          std::to_string(zp));
    }
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const int32_t axis = in.size() == 2 ? int_param(in[1]).value_or(-1) : -1;
    const AxisSplit s = split(in[0].dimensions, axis);
    const bool quant = is_quant8(in[0].type);
    const std::vector<float> x = quant ? std::vector<float>{} : read_floats(in[0]);
    const std::vector<int32_t> q = quant ? read_ints(in[0]) : std::vector<int32_t>{};
    std::vector<float> fy(x.size());
    std::vector<int32_t> qy(q.size());
    const int32_t offset = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
    for (uint64_t a = 0; a < s.outer; ++a) {
      for (uint64_t c = 0; c < s.inner; ++c) {
        const uint64_t base = a * s.depth * s.inner + c;
        if (!quant) {
          float sum = 0.0f;
          for (uint64_t k = 0; k < s.depth; ++k) sum += x[base + k * s.inner] * x[base + k * s.inner];
          const float norm = std::max(std::sqrt(sum), 1e-6f);
          for (uint64_t k = 0; k < s.depth; ++k) fy[base + k * s.inner] = x[base + k * s.inner] / norm;
          continue;
        }
        int32_t sum = 0;
        for (uint64_t k = 0; k < s.depth; ++k) {
          const int32_t d = q[base + k * s.inner] - in[0].zero_point;
          sum = wrap_add(sum, int64_t{d} * d);
        }
        int32_t m = 0;
        int shift = 0;
        if (sum > 0) inv_sqrt_multiplier(sum, &m, &shift);
        for (uint64_t k = 0; k < s.depth; ++k) {
          const int32_t d = q[base + k * s.inner] - in[0].zero_point;
          const int32_t scaled = sum > 0 ? fx::rounding_divide_by_pot(srdhm(128 * d, m), shift) : 0;
          // Unsigned output 128 + scaled; signed (zero point 0) the same minus 128.
          qy[base + k * s.inner] = std::clamp(128 + scaled, 0, 255) - offset;
        }
      }
    }
    if (!quant) {
      write_floats(o, fy);
      return {};
    }
    write_ints(o, qy);
    return {};
  }
};

class LrnKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::LOCAL_RESPONSE_NORMALIZATION; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 5 && in.size() != 6)
      return make_error("expected 5 or 6 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}); !r)
      return make_error(r.error());
    auto radius = int_param_in_range(in, 1, "radius", 0, 0x7fffffff);
    if (!radius) return make_error(radius.error());
    const OperandType scalar =
        in[0].type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    static constexpr const char* kRoles[] = {"bias", "alpha", "beta"};
    for (size_t i = 2; i <= 4; ++i) {
      if (auto r = expect_type(in, i, kRoles[i - 2], {scalar}); !r) return make_error(r.error());
    }
    if (in.size() == 6) {
      if (auto r = expect_type(in, 5, "axis", {OperandType::INT32}); !r) return make_error(r.error());
    }
    if (auto r = check_axis_and_rank(in, 5, in.size() == 6); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, in[0].type); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{in[0].dimensions};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const int32_t axis = in.size() == 6 ? int_param(in[5]).value_or(-1) : -1;
    const AxisSplit s = split(in[0].dimensions, axis);
    const auto radius = static_cast<int64_t>(int_param(in[1]).value_or(0));
    const float bias = float_param(in[2]).value_or(0.0f);
    const float alpha = float_param(in[3]).value_or(0.0f);
    const float beta = float_param(in[4]).value_or(0.0f);
    const std::vector<float> x = read_floats(in[0]);
    std::vector<float> y(x.size());
    const auto depth = static_cast<int64_t>(s.depth);
    for (uint64_t a = 0; a < s.outer; ++a) {
      for (uint64_t c = 0; c < s.inner; ++c) {
        const uint64_t base = a * s.depth * s.inner + c;
        for (int64_t k = 0; k < depth; ++k) {
          float sum = 0.0f;
          for (int64_t j = std::max<int64_t>(0, k - radius); j <= std::min(depth - 1, k + radius); ++j) {
            const float v = x[base + static_cast<uint64_t>(j) * s.inner];
            sum += v * v;
          }
          const uint64_t i = base + static_cast<uint64_t>(k) * s.inner;
          y[i] = x[i] * std::pow(bias + alpha * sum, -beta);
        }
      }
    }
    write_floats(*out[0], y);
    return {};
  }
};

}  // namespace

const OperationKernel& l2_normalization_kernel() {
  static const L2NormalizationKernel kernel;
  return kernel;
}
const OperationKernel& local_response_normalization_kernel() {
  static const LrnKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
