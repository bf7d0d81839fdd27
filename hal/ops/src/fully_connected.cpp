// FULLY_CONNECTED kernel: NNAPI validation, shape inference and the CPU reference (see
// fully_connected.h for the signature and the arithmetic contract).
#include "npu/hal/ops/fully_connected.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "kernel_util.h"
#include "kernels.h"
#include "npu/common/int8_gemm.h"
#include "npu/hal/ops/operation.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

struct FcShape {
  std::optional<uint64_t> batch;  // unknown while the input's element count is unknown
  uint32_t input_size = 0;        // 0 = unknown
  uint32_t num_units = 0;
};

Result<FcShape> fc_shape(std::span<const OperandInfo> in) {
  FcShape s;
  const auto& w = in[1].dimensions;
  if (w.size() == 2) {
    s.num_units = w[0];
    s.input_size = w[1];
  }
  const auto& x = in[0].dimensions;
  if (!x.empty() && s.input_size != 0) {
    if (auto total = known_product(x)) {
      if (*total % s.input_size != 0) {
        return input_error(0, "input",
                           "element count " + std::to_string(*total) + " is not a multiple of input_size " +
                               std::to_string(s.input_size));
      }
      s.batch = *total / s.input_size;
    }
  }
  return s;
}

class FullyConnectedKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::FULLY_CONNECTED; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 4) return make_error("expected 4 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    const OperandType t = in[0].type;
    const bool quant = is_quant8(t);
    if (auto r = expect_type(in, 1, "weights", {t}); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "bias", {quant ? OperandType::TENSOR_INT32 : t}); !r)
      return make_error(r.error());
    if (in[0].rank_known() && (in[0].dimensions.size() < 2 || in[0].dimensions.size() > 4)) {
      return input_error(0, "input", "expected rank 2 to 4, got " + std::to_string(in[0].dimensions.size()));
    }
    if (auto r = expect_rank(in[1], 1, "weights", 2); !r) return make_error(r.error());
    if (auto r = expect_rank(in[2], 2, "bias", 1); !r) return make_error(r.error());
    auto act = int_param_in_range(in, 3, "fused activation", 0, 3);
    if (!act) return make_error(act.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, t); !r) return make_error(r.error());
    auto shape = fc_shape(in);
    if (!shape) return make_error(shape.error());
    const uint32_t bias_len = in[2].dimensions.size() == 1 ? in[2].dimensions[0] : 0;
    if (bias_len != 0 && shape->num_units != 0 && bias_len != shape->num_units) {
      return input_error(2, "bias",
                         "has " + std::to_string(bias_len) + " elements, expected num_units " +
                             std::to_string(shape->num_units));
    }
    if (quant && !bias_scale_matches(in[0].scale, in[1].scale, in[2].scale)) {
      return input_error(
          2, "bias",
          "scale " + std::to_string(in[2].scale) +
              " must equal input scale * weights scale = " + std::to_string(in[0].scale * in[1].scale));
    }
    if (shape->batch && *shape->batch > std::numeric_limits<uint32_t>::max()) {
      return input_error(0, "input", "batch size too large");
    }
    const uint32_t batch = shape->batch ? static_cast<uint32_t>(*shape->batch) : 0;
    return std::vector<std::vector<uint32_t>>{{batch, shape->num_units}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto shape = fc_shape(in);
    if (!shape) return make_error(shape.error());
    const auto act = int_param(in[3]);
    if (!shape->batch || shape->input_size == 0 || !act || out.size() != 1) {
      return make_error("internal: execute() called with unprepared shapes");
    }
    const uint64_t batch = *shape->batch;
    const uint64_t n_in = shape->input_size;
    const uint64_t units = shape->num_units;
    if (batch * n_in > (uint64_t{1} << 34) || batch * units * n_in > (uint64_t{1} << 40)) {
      return make_error("too large for the CPU reference");
    }
    const auto activation = static_cast<fx::FusedActivation>(*act);
    models::Tensor& o = *out[0];
    if (!is_quant8(in[0].type)) {
      const std::vector<float> x = read_floats(in[0]);
      const std::vector<float> w = read_floats(in[1]);
      const std::vector<float> bias = read_floats(in[2]);
      float lo = 0.0f;
      float hi = 0.0f;
      fx::float_activation_range(activation, &lo, &hi);
      std::vector<float> result(batch * units);
      for (uint64_t b = 0; b < batch; ++b) {
        for (uint64_t u = 0; u < units; ++u) {
          float acc = 0.0f;
          for (uint64_t i = 0; i < n_in; ++i) acc += x[b * n_in + i] * w[u * n_in + i];
          acc += bias[u];
          result[b * units + u] = acc < lo ? lo : (acc > hi ? hi : acc);
        }
      }
      write_floats(o, result);
      return {};
    }
    // Quantised: the exact integer GEMM of npu/common/int8_gemm.h (wrapping int32 sums, so the order of
    // accumulation does not matter and the result equals the definition in fully_connected.h).
    if (!in[0].has_value() || !in[1].has_value() || !in[2].has_value())
      return make_error("internal: execute() called without the input, weights or bias values");
    const std::vector<uint8_t>& xv = *in[0].value;
    const std::vector<uint8_t>& wv = *in[1].value;
    if (xv.size() < batch * n_in) return input_error(0, "input", "holds fewer bytes than its shape");
    if (wv.size() < units * n_in) return input_error(1, "weights", "holds fewer bytes than its shape");
    if (o.data.size() < batch * units) return make_error("internal: output buffer smaller than its shape");
    if (n_in > std::numeric_limits<uint32_t>::max() || units > std::numeric_limits<uint32_t>::max())
      return make_error("too large for the CPU reference");
    const std::vector<int32_t> bias = read_ints(in[2]);
    if (bias.size() < units) return input_error(2, "bias", "holds fewer values than num_units");
    const bool x_signed = in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    // Activations enter the GEMM as uint8: int8 ones biased by 128 (x ^ 0x80), their zero point with them.
    const int32_t x_offset = in[0].zero_point + (x_signed ? 128 : 0);
    std::vector<uint8_t> biased;
    const uint8_t* a = xv.data();
    if (x_signed) {
      biased.resize(batch * n_in);
      for (uint64_t i = 0; i < batch * n_in; ++i) biased[i] = xv[i] ^ 0x80u;
      a = biased.data();
    }
    gemm::PackedWeights pw;
    pw.pack(wv.data(), static_cast<uint32_t>(n_in), static_cast<uint32_t>(units), 1, n_in,
            in[1].type == OperandType::TENSOR_QUANT8_ASYMM);
    const std::vector<int32_t> w_offsets(units, pw.stored_offset(in[1].zero_point));
    const fx::QuantizedMultiplier qm = conv_multiplier(in[0].scale, in[1].scale, o.scale);
    const std::vector<int32_t> multiplier(units, qm.multiplier), shift(units, qm.shift);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range =
        fx::quantized_activation_range(activation, o.scale, o.zero_point, qmin, qmax);
    // Rows in bands, so the int32 products stay small whatever the batch.
    const uint64_t band = std::max<uint64_t>(1, (uint64_t{1} << 18) / std::max<uint64_t>(1, units));
    std::vector<int32_t> acc(std::min(batch, band) * units);
    for (uint64_t b0 = 0; b0 < batch; b0 += band) {
      const auto rows = static_cast<uint32_t>(std::min(band, batch - b0));
      gemm::multiply_offsets(a + b0 * n_in, n_in, rows, x_offset, pw, w_offsets.data(), acc.data(), units);
      // requantize(wrap_add(acc, bias), ...) of every unit, stored as bytes (two's complement for int8).
      for (uint32_t r = 0; r < rows; ++r) {
        gemm::requantize_row(acc.data() + uint64_t{r} * units, bias.data(), multiplier.data(), shift.data(),
                             o.zero_point, range.lo, range.hi, o.data.data() + (b0 + r) * units, 1,
                             static_cast<uint32_t>(units));
      }
    }
    return {};
  }
};

}  // namespace

const OperationKernel& fully_connected_kernel() {
  static const FullyConnectedKernel kernel;
  return kernel;
}

Result<FullyConnectedParams> fully_connected_params(const models::Subgraph& sg, const models::Operation& op) {
  if (op.type != models::OperationType::FULLY_CONNECTED) return make_error("not a FULLY_CONNECTED operation");
  if (op.inputs.size() != 4) return make_error("expected 4 inputs, got " + std::to_string(op.inputs.size()));
  std::vector<OperandInfo> in;
  for (uint32_t idx : op.inputs) {
    if (idx >= sg.operands.size())
      return make_error("input operand " + std::to_string(idx) + " out of range");
    in.push_back(operand_info(sg.operands[idx]));
  }
  auto shape = fc_shape(in);
  if (!shape) return make_error(shape.error());
  const auto act = in[3].type == OperandType::INT32 ? int_param(in[3]) : std::nullopt;
  if (!act || *act < 0 || *act > 3)
    return make_error("input 3 (fused activation): must be a constant in [0, 3]");
  if (shape->input_size == 0 || shape->num_units == 0)
    return make_error("input 1 (weights): shape must be known");
  FullyConnectedParams p;
  p.batch_size = shape->batch && *shape->batch <= std::numeric_limits<uint32_t>::max()
                     ? static_cast<uint32_t>(*shape->batch)
                     : 0;
  p.input_size = shape->input_size;
  p.num_units = shape->num_units;
  p.activation = static_cast<fx::FusedActivation>(*act);
  return p;
}

}  // namespace npu::hal::ops
