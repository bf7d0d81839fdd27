#include "npu/models/builder.h"

#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "npu/models/extensions.h"

namespace npu::models {
namespace {

// NNAPI implicit padding (stride ≥ 1, no dilation): SAME keeps ceil(in / stride) outputs, VALID
// ceil((in − k + 1) / stride); SAME splits the padding with the extra row at the tail.
uint32_t implicit_output(int32_t padding, uint32_t in, uint32_t k, uint32_t stride) {
  return padding == 1 ? (in + stride - 1) / stride : (in - k + stride) / stride;
}

QuantParams quant_of(const Operand& op) { return {op.scale, op.zero_point}; }

}  // namespace

bool is_quant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

uint32_t ModelBuilder::add(Operand op) {
  model_.main.operands.push_back(std::move(op));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t ModelBuilder::input(OperandType type, std::vector<uint32_t> dims, QuantParams q) {
  const uint32_t i = tensor(type, std::move(dims), q);
  model_.main.operands[i].lifetime = Lifetime::SUBGRAPH_INPUT;
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

uint32_t ModelBuilder::like(uint32_t input, std::vector<uint32_t> dims, QuantParams q) {
  const OperandType t = model_.main.operands[input].type;
  return tensor(t, std::move(dims), is_quant8(t) ? q : QuantParams{});
}

uint32_t ModelBuilder::random_constant(OperandType type, std::vector<uint32_t> dims, QuantParams q, double lo,
                                       double hi) {
  Operand op;
  op.type = type;
  op.dimensions = std::move(dims);
  op.scale = q.scale;
  op.zero_point = q.zero_point;
  op.lifetime = Lifetime::CONSTANT_COPY;
  if (options_.omit_weights) {
    op.values_omitted = true;
    return add(std::move(op));
  }
  op.data.resize(op.byte_size());
  int64_t ilo = 0, ihi = 0;
  const bool integer = integer_range(type, &ilo, &ihi);
  if (integer) {
    ilo = std::max<int64_t>(ilo, static_cast<int64_t>(lo));
    ihi = std::min<int64_t>(ihi, static_cast<int64_t>(hi));
  }
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> whole(ilo, ihi);
  const uint64_t count = op.element_count();  // once: it walks the dimensions
  for (uint64_t i = 0; i < count; ++i)
    write_element(type, op.data, i, integer ? static_cast<double>(whole(rng_)) : real(rng_));
  return add(std::move(op));
}

uint32_t ModelBuilder::scalar_constant(OperandType type, const void* value, size_t bytes) {
  Operand op;
  op.type = type;
  op.lifetime = Lifetime::CONSTANT_COPY;
  op.data.resize(bytes);
  std::memcpy(op.data.data(), value, bytes);
  return add(std::move(op));
}

uint32_t ModelBuilder::constant_i32(int32_t v) { return scalar_constant(OperandType::INT32, &v, 4); }

uint32_t ModelBuilder::constant_f32(float v) { return scalar_constant(OperandType::FLOAT32, &v, 4); }

uint32_t ModelBuilder::constant_bool(bool v) {
  const uint8_t byte = v ? 1 : 0;
  return scalar_constant(OperandType::BOOL, &byte, 1);
}

uint32_t ModelBuilder::constant_i32_tensor(const std::vector<int32_t>& values) {
  Operand op;
  op.type = OperandType::TENSOR_INT32;
  op.dimensions = {static_cast<uint32_t>(values.size())};
  op.lifetime = Lifetime::CONSTANT_COPY;
  op.data.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(op.data.data(), values.data(), op.data.size());
  return add(std::move(op));
}

uint32_t ModelBuilder::no_value(OperandType type) {
  Operand op;
  op.type = type;
  op.lifetime = Lifetime::NO_VALUE;
  return add(std::move(op));
}

void ModelBuilder::operation(OperationType type, std::vector<uint32_t> inputs,
                             std::vector<uint32_t> outputs) {
  model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
}

void ModelBuilder::mark_output(uint32_t operand) {
  model_.main.operands[operand].lifetime = Lifetime::SUBGRAPH_OUTPUT;
  model_.main.output_indexes.push_back(operand);
}

uint32_t ModelBuilder::filter_constant(OperandType type, std::vector<uint32_t> dims, uint32_t fan_in,
                                       QuantParams q) {
  if (is_quant8(type)) return random_constant(type, std::move(dims), q, -128, 255);
  const double bound = options_.init == WeightInit::HeUniform ? std::sqrt(6.0 / fan_in) : 0.5;
  return random_constant(type, std::move(dims), {}, -bound, bound);
}

uint32_t ModelBuilder::bias_constant(OperandType input_type, uint32_t units, float bias_scale) {
  const bool he = options_.init == WeightInit::HeUniform;
  if (is_quant8(input_type)) {
    // He: biases of about ±0.05 in real units, expressed in bias_scale steps.
    const double limit = he ? std::max(1.0, std::floor(0.05 / bias_scale)) : 2000.0;
    return random_constant(OperandType::TENSOR_INT32, {units}, {bias_scale, 0}, -limit, limit);
  }
  const double limit = he ? 0.05 : 0.2;
  return random_constant(input_type, {units}, {}, -limit, limit);
}

uint32_t ModelBuilder::conv_2d(uint32_t input, uint32_t out_channels, uint32_t kh, uint32_t kw,
                               int32_t padding, uint32_t stride, fx::FusedActivation act,
                               QuantParams filter_q, QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  if (in.dimensions.size() != 4) throw std::invalid_argument("conv_2d: input must be rank 4 NHWC");
  const uint32_t ih = in.dimensions[1], iw = in.dimensions[2], ic = in.dimensions[3];
  if (padding != 1 && (ih < kh || iw < kw))
    throw std::invalid_argument("conv_2d: VALID filter larger than input");
  const uint32_t oh = implicit_output(padding, ih, kh, stride);
  const uint32_t ow = implicit_output(padding, iw, kw, stride);
  const uint32_t filter = filter_constant(in.type, {out_channels, kh, kw, ic}, kh * kw * ic, filter_q);
  const uint32_t bias = bias_constant(in.type, out_channels, in.scale * filter_q.scale);
  const uint32_t out = like(input, {in.dimensions[0], oh, ow, out_channels}, out_q);
  operation(OperationType::CONV_2D,
            {input, filter, bias, constant_i32(padding), constant_i32(static_cast<int32_t>(stride)),
             constant_i32(static_cast<int32_t>(stride)), constant_i32(static_cast<int32_t>(act))},
            {out});
  return out;
}

uint32_t ModelBuilder::depthwise_conv_2d(uint32_t input, uint32_t kh, uint32_t kw, int32_t padding,
                                         uint32_t stride, fx::FusedActivation act, QuantParams filter_q,
                                         QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  if (in.dimensions.size() != 4) throw std::invalid_argument("depthwise_conv_2d: input must be rank 4 NHWC");
  const uint32_t ih = in.dimensions[1], iw = in.dimensions[2], c = in.dimensions[3];
  const uint32_t oh = implicit_output(padding, ih, kh, stride);
  const uint32_t ow = implicit_output(padding, iw, kw, stride);
  const uint32_t filter = filter_constant(in.type, {1, kh, kw, c}, kh * kw, filter_q);
  const uint32_t bias = bias_constant(in.type, c, in.scale * filter_q.scale);
  const uint32_t out = like(input, {in.dimensions[0], oh, ow, c}, out_q);
  operation(
      OperationType::DEPTHWISE_CONV_2D,
      {input, filter, bias, constant_i32(padding), constant_i32(static_cast<int32_t>(stride)),
       constant_i32(static_cast<int32_t>(stride)), constant_i32(1), constant_i32(static_cast<int32_t>(act))},
      {out});
  return out;
}

uint32_t ModelBuilder::fully_connected(uint32_t input, uint32_t units, fx::FusedActivation act,
                                       QuantParams weight_q, QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  // NNAPI flattens the input to [batch, input_size]; a rank > 2 input is one row per leading index.
  const uint32_t batch = in.dimensions.front();
  const auto in_size = static_cast<uint32_t>(in.element_count() / batch);
  const uint32_t weights = filter_constant(in.type, {units, in_size}, in_size, weight_q);
  const uint32_t bias = bias_constant(in.type, units, in.scale * weight_q.scale);
  const uint32_t out = like(input, {batch, units}, out_q);
  operation(OperationType::FULLY_CONNECTED, {input, weights, bias, constant_i32(static_cast<int32_t>(act))},
            {out});
  return out;
}

uint32_t ModelBuilder::fully_connected_with(uint32_t input, uint32_t weights, QuantParams out_q) {
  const Operand in = model_.main.operands[input];
  const Operand w = model_.main.operands[weights];
  const uint32_t units = w.dimensions.front();
  const uint32_t bias = bias_constant(in.type, units, in.scale * w.scale);
  const uint32_t out = like(input, {in.dimensions.front(), units}, out_q);
  operation(OperationType::FULLY_CONNECTED,
            {input, weights, bias, constant_i32(static_cast<int32_t>(fx::FusedActivation::NONE))}, {out});
  return out;
}

uint32_t ModelBuilder::pool_2d(OperationType type, uint32_t input, uint32_t kh, uint32_t kw, int32_t padding,
                               uint32_t stride) {
  const Operand in = model_.main.operands[input];
  if (in.dimensions.size() != 4) throw std::invalid_argument("pool_2d: input must be rank 4 NHWC");
  const uint32_t oh = implicit_output(padding, in.dimensions[1], kh, stride);
  const uint32_t ow = implicit_output(padding, in.dimensions[2], kw, stride);
  const uint32_t out = like(input, {in.dimensions[0], oh, ow, in.dimensions[3]}, quant_of(in));
  const auto s = static_cast<int32_t>(stride);
  operation(
      type,
      {input, constant_i32(padding), constant_i32(s), constant_i32(s), constant_i32(static_cast<int32_t>(kw)),
       constant_i32(static_cast<int32_t>(kh)), constant_i32(static_cast<int32_t>(fx::FusedActivation::NONE))},
      {out});
  return out;
}

uint32_t ModelBuilder::elementwise(OperationType type, uint32_t a, uint32_t b, fx::FusedActivation act,
                                   QuantParams out_q) {
  // Broadcasting: the output takes the larger-rank operand's shape (the zoo broadcasts [C] over [N, C]).
  const Operand& x = model_.main.operands[a];
  const Operand& y = model_.main.operands[b];
  std::vector<uint32_t> dims = x.dimensions.size() >= y.dimensions.size() ? x.dimensions : y.dimensions;
  const uint32_t out = like(a, std::move(dims), out_q);
  operation(type, {a, b, constant_i32(static_cast<int32_t>(act))}, {out});
  return out;
}

uint32_t ModelBuilder::reshape(uint32_t input, const std::vector<uint32_t>& dims) {
  std::vector<int32_t> shape(dims.begin(), dims.end());
  const uint32_t shape_operand = constant_i32_tensor(shape);
  const uint32_t out = like(input, dims, quant_of(model_.main.operands[input]));
  operation(OperationType::RESHAPE, {input, shape_operand}, {out});
  return out;
}

uint32_t ModelBuilder::rms_norm(uint32_t input, uint32_t gamma, float epsilon, QuantParams out_q) {
  const uint32_t out = like(input, model_.main.operands[input].dimensions, out_q);
  operation(use_extension_operation(model_, kLlmExtension, static_cast<uint16_t>(LlmOperation::RMS_NORM)),
            {input, gamma, constant_f32(epsilon)}, {out});
  return out;
}

uint32_t ModelBuilder::rope(uint32_t input, uint32_t position, uint32_t head_dim, float base,
                            QuantParams out_q) {
  const uint32_t out = like(input, model_.main.operands[input].dimensions, out_q);
  operation(use_extension_operation(model_, kLlmExtension, static_cast<uint16_t>(LlmOperation::ROPE)),
            {input, position, constant_i32(static_cast<int32_t>(head_dim)), constant_f32(base)}, {out});
  return out;
}

uint32_t ModelBuilder::matmul(uint32_t a, uint32_t b, bool transpose_b, QuantParams out_q) {
  std::vector<uint32_t> dims = model_.main.operands[a].dimensions;
  const auto& bd = model_.main.operands[b].dimensions;
  if (dims.size() < 2 || bd.size() != dims.size())
    throw std::invalid_argument("matmul: a and b need one rank, 2 or 3");
  dims.back() = transpose_b ? bd[bd.size() - 2] : bd.back();
  const uint32_t out = like(a, dims, out_q);
  operation(use_extension_operation(model_, kLlmExtension, static_cast<uint16_t>(LlmOperation::MATMUL)),
            {a, b, constant_bool(transpose_b)}, {out});
  return out;
}

uint32_t ModelBuilder::softmax(uint32_t input, float beta) {
  const uint32_t out = like(input, model_.main.operands[input].dimensions, {1.0f / 256, 0});
  operation(OperationType::SOFTMAX, {input, constant_f32(beta)}, {out});
  return out;
}

uint32_t ModelBuilder::logistic(uint32_t input) {
  const uint32_t out = like(input, model_.main.operands[input].dimensions, {1.0f / 256, 0});
  operation(OperationType::LOGISTIC, {input}, {out});
  return out;
}

uint32_t ModelBuilder::l2_normalization(uint32_t input) {
  const uint32_t out = like(input, model_.main.operands[input].dimensions, {1.0f / 128, 128});
  // NNAPI 1.0 normalises rank-4 inputs over the depth; other ranks name the axis (1.2 signature).
  std::vector<uint32_t> args{input};
  if (model_.main.operands[input].dimensions.size() != 4) args.push_back(constant_i32(-1));
  operation(OperationType::L2_NORMALIZATION, std::move(args), {out});
  return out;
}

uint32_t ModelBuilder::concatenation(const std::vector<uint32_t>& inputs, uint32_t axis) {
  const Operand first = model_.main.operands[inputs.front()];
  std::vector<uint32_t> dims = first.dimensions;
  dims[axis] = 0;
  for (uint32_t i : inputs) dims[axis] += model_.main.operands[i].dimensions[axis];
  const uint32_t out = like(inputs.front(), dims, quant_of(first));
  std::vector<uint32_t> args = inputs;
  args.push_back(constant_i32(static_cast<int32_t>(axis)));
  operation(OperationType::CONCATENATION, std::move(args), {out});
  return out;
}

uint32_t ModelBuilder::embedding_lookup(uint32_t lookups, uint32_t values) {
  const Operand v = model_.main.operands[values];
  std::vector<uint32_t> dims = v.dimensions;
  dims[0] = model_.main.operands[lookups].dimensions.front();
  const uint32_t out = like(values, dims, quant_of(v));
  operation(OperationType::EMBEDDING_LOOKUP, {lookups, values}, {out});
  return out;
}

uint32_t ModelBuilder::slice_rows(uint32_t input, uint32_t begin, uint32_t end) {
  const Operand in = model_.main.operands[input];
  if (in.dimensions.size() != 2) throw std::invalid_argument("slice_rows: input must be rank 2");
  const auto cols = static_cast<int32_t>(in.dimensions[1]);
  const uint32_t b = constant_i32_tensor({static_cast<int32_t>(begin), 0});
  const uint32_t size = constant_i32_tensor({static_cast<int32_t>(end - begin), cols});
  const uint32_t out = like(input, {end - begin, in.dimensions[1]}, quant_of(in));
  operation(OperationType::SLICE, {input, b, size}, {out});
  return out;
}

namespace {

// int_hi < 0: TENSOR_INT32 inputs over the type's full range (the builder's historical behaviour).
std::map<uint32_t, Tensor> fill_inputs(const Model& model, std::mt19937_64& rng, int32_t int_hi) {
  std::map<uint32_t, Tensor> out;
  for (uint32_t idx : model.main.input_indexes) {
    const Operand& op = model.main.operands[idx];
    Tensor t = make_tensor(op, op.dimensions);
    int64_t lo = 0, hi = 0;
    const bool integer = integer_range(op.type, &lo, &hi);
    if (op.type == OperandType::TENSOR_INT32 && int_hi >= 0) lo = 0, hi = int_hi;
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int64_t> whole(lo, hi);
    // The count once, not per element: Tensor::element_count() builds a shaped operand on each call.
    const uint64_t count = t.element_count();
    for (uint64_t i = 0; i < count; ++i)
      write_element(op.type, t.data, i, integer ? static_cast<double>(whole(rng)) : real(rng));
    out[idx] = std::move(t);
  }
  return out;
}

}  // namespace

std::map<uint32_t, Tensor> ModelBuilder::random_inputs() { return fill_inputs(model_, rng_, -1); }

std::map<uint32_t, Tensor> random_inputs(const Model& model, uint64_t seed, int32_t int_hi) {
  std::mt19937_64 rng(seed);
  return fill_inputs(model, rng, int_hi);
}

}  // namespace npu::models
