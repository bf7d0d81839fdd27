#include "npu/models/builder.h"

#include <cstring>
#include <map>
#include <stdexcept>


namespace npu::models {
namespace {

// NNAPI implicit padding (stride ≥ 1, no dilation): SAME keeps ceil(in / stride) outputs, VALID
// ceil((in − k + 1) / stride); SAME splits the padding with the extra row at the tail.
uint32_t implicit_output(int32_t padding, uint32_t in, uint32_t k, uint32_t stride) {
  return padding == 1 ? (in + stride - 1) / stride : (in - k + stride) / stride;
}

bool is_quant(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

}  // namespace

uint32_t ModelBuilder::add(Operand op) {
  model_.main.operands.push_back(std::move(op));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t ModelBuilder::input(OperandType type, std::vector<uint32_t> dims, QuantParams q) {
  Operand op;
  op.type = type;
  op.dimensions = std::move(dims);
  op.scale = q.scale;
  op.zero_point = q.zero_point;
  op.lifetime = Lifetime::SUBGRAPH_INPUT;
  const uint32_t i = add(std::move(op));
  model_.main.input_indexes.push_back(i);
  return i;
}

uint32_t ModelBuilder::tensor(OperandType type, std::vector<uint32_t> dims, QuantParams q) {
  Operand op;
  op.type = type;
  op.dimensions = std::move(dims);
  op.scale = q.scale;
  op.zero_point = q.zero_point;
  return add(std::move(op));
}

uint32_t ModelBuilder::random_constant(OperandType type, std::vector<uint32_t> dims, QuantParams q, double lo,
                                       double hi) {
  Operand op;
  op.type = type;
  op.dimensions = std::move(dims);
  op.scale = q.scale;
  op.zero_point = q.zero_point;
  op.lifetime = Lifetime::CONSTANT_COPY;
  op.data.resize(op.byte_size());
  int64_t ilo = 0, ihi = 0;
  const bool integer = integer_range(type, &ilo, &ihi);
  if (integer) {
    ilo = std::max<int64_t>(ilo, static_cast<int64_t>(lo));
    ihi = std::min<int64_t>(ihi, static_cast<int64_t>(hi));
  }
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> whole(ilo, ihi);
  for (uint64_t i = 0; i < op.element_count(); ++i)
    write_element(type, op.data, i, integer ? static_cast<double>(whole(rng_)) : real(rng_));
  return add(std::move(op));
}

uint32_t ModelBuilder::constant_i32(int32_t v) {
  Operand op;
  op.type = OperandType::INT32;
  op.lifetime = Lifetime::CONSTANT_COPY;
  op.data.resize(4);
  std::memcpy(op.data.data(), &v, 4);
  return add(std::move(op));
}

uint32_t ModelBuilder::constant_bool(bool v) {
  Operand op;
  op.type = OperandType::BOOL;
  op.lifetime = Lifetime::CONSTANT_COPY;
  op.data = {static_cast<uint8_t>(v ? 1 : 0)};
  return add(std::move(op));
}

void ModelBuilder::operation(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
}

void ModelBuilder::mark_output(uint32_t operand) {
  model_.main.operands[operand].lifetime = Lifetime::SUBGRAPH_OUTPUT;
  model_.main.output_indexes.push_back(operand);
}

uint32_t ModelBuilder::conv_2d(uint32_t input, uint32_t out_channels, uint32_t kh, uint32_t kw, int32_t padding,
                               uint32_t stride, fx::FusedActivation act, QuantParams filter_q, QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  if (in.dimensions.size() != 4) throw std::invalid_argument("conv_2d: input must be rank 4 NHWC");
  const uint32_t ih = in.dimensions[1], iw = in.dimensions[2], ic = in.dimensions[3];
  if (padding != 1 && (ih < kh || iw < kw)) throw std::invalid_argument("conv_2d: VALID filter larger than input");
  const uint32_t oh = implicit_output(padding, ih, kh, stride);
  const uint32_t ow = implicit_output(padding, iw, kw, stride);
  const bool quant = is_quant(in.type);
  const uint32_t filter = quant ? random_constant(in.type, {out_channels, kh, kw, ic}, filter_q, -128, 255)
                                : random_constant(in.type, {out_channels, kh, kw, ic}, {}, -0.5, 0.5);
  const uint32_t bias = quant ? random_constant(OperandType::TENSOR_INT32, {out_channels},
                                                {in.scale * filter_q.scale, 0}, -2000, 2000)
                              : random_constant(in.type, {out_channels}, {}, -0.2, 0.2);
  const uint32_t out = tensor(in.type, {in.dimensions[0], oh, ow, out_channels}, out_q);
  operation(OperationType::CONV_2D,
            {input, filter, bias, constant_i32(padding), constant_i32(static_cast<int32_t>(stride)),
             constant_i32(static_cast<int32_t>(stride)), constant_i32(static_cast<int32_t>(act))},
            {out});
  return out;
}

uint32_t ModelBuilder::fully_connected(uint32_t input, uint32_t units, fx::FusedActivation act, QuantParams weight_q,
                                       QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  // NNAPI flattens the input to [batch, input_size]; a rank > 2 input is one row per leading index.
  const uint32_t batch = in.dimensions.front();
  const auto in_size = static_cast<uint32_t>(in.element_count() / batch);
  const bool quant = is_quant(in.type);
  const uint32_t weights = quant ? random_constant(in.type, {units, in_size}, weight_q, -128, 255)
                                 : random_constant(in.type, {units, in_size}, {}, -0.5, 0.5);
  const uint32_t bias = quant ? random_constant(OperandType::TENSOR_INT32, {units}, {in.scale * weight_q.scale, 0},
                                                -2000, 2000)
                              : random_constant(in.type, {units}, {}, -0.2, 0.2);
  const uint32_t out = tensor(in.type, {batch, units}, out_q);
  operation(OperationType::FULLY_CONNECTED, {input, weights, bias, constant_i32(static_cast<int32_t>(act))}, {out});
  return out;
}

std::map<uint32_t, Tensor> ModelBuilder::random_inputs() {
  std::map<uint32_t, Tensor> out;
  for (uint32_t idx : model_.main.input_indexes) {
    const Operand& op = model_.main.operands[idx];
    Tensor t = make_tensor(op, op.dimensions);
    int64_t lo = 0, hi = 0;
    const bool integer = integer_range(op.type, &lo, &hi);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int64_t> whole(lo, hi);
    for (uint64_t i = 0; i < t.element_count(); ++i)
      write_element(op.type, t.data, i, integer ? static_cast<double>(whole(rng_)) : real(rng_));
    out[idx] = std::move(t);
  }
  return out;
}

}  // namespace npu::models
