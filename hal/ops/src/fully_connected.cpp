// FULLY_CONNECTED kernel: NNAPI validation, shape inference and the CPU reference (see
// fully_connected.h for the signature and the arithmetic contract).
#include "npu/hal/ops/fully_connected.h"

#include <array>
#include <limits>
#include <optional>

#include "kernel_util.h"
#include "kernels.h"
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
    const std::vector<int32_t> x = read_ints(in[0]);
    const std::vector<int32_t> w = read_ints(in[1]);
    const std::vector<int32_t> bias = read_ints(in[2]);
    const fx::QuantizedMultiplier qm = conv_multiplier(in[0].scale, in[1].scale, o.scale);
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(o.type, &qmin, &qmax);
    const fx::ClampRange range =
        fx::quantized_activation_range(activation, o.scale, o.zero_point, qmin, qmax);
    const int32_t x_zp = in[0].zero_point;
    const int32_t w_zp = in[1].zero_point;
    std::vector<int32_t> result(batch * units);
    for (uint64_t b = 0; b < batch; ++b) {
      for (uint64_t u = 0; u < units; ++u) {
        int32_t acc = 0;
        for (uint64_t i = 0; i < n_in; ++i) {
          acc = wrap_add(acc, int64_t{x[b * n_in + i] - x_zp} * (w[u * n_in + i] - w_zp));
        }
        acc = wrap_add(acc, bias[u]);
        result[b * units + u] = requantize(acc, qm, o.zero_point, range);
      }
    }
    write_ints(o, result);
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
