#include "test_models.h"

#include <cmath>
#include <random>

namespace npu::hal::ops::test {

uint32_t GraphBuilder::add(models::Operand o) {
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

namespace {
models::Operand make(OperandType t, std::vector<uint32_t> dims, Lifetime l, float scale, int32_t zp) {
  models::Operand o;
  o.type = t;
  o.dimensions = std::move(dims);
  o.lifetime = l;
  o.scale = scale;
  o.zero_point = zp;
  return o;
}
}  // namespace

uint32_t GraphBuilder::input(OperandType t, std::vector<uint32_t> dims, float scale, int32_t zp) {
  const uint32_t i = add(make(t, std::move(dims), Lifetime::SUBGRAPH_INPUT, scale, zp));
  model_.main.input_indexes.push_back(i);
  return i;
}

uint32_t GraphBuilder::output(OperandType t, std::vector<uint32_t> dims, float scale, int32_t zp) {
  const uint32_t i = add(make(t, std::move(dims), Lifetime::SUBGRAPH_OUTPUT, scale, zp));
  model_.main.output_indexes.push_back(i);
  return i;
}

uint32_t GraphBuilder::temp(OperandType t, std::vector<uint32_t> dims, float scale, int32_t zp) {
  return add(make(t, std::move(dims), Lifetime::TEMPORARY_VARIABLE, scale, zp));
}

uint32_t GraphBuilder::floats(std::vector<uint32_t> dims, const std::vector<float>& values, OperandType t) {
  models::Operand o = make(t, std::move(dims), Lifetime::CONSTANT_COPY, 0.0f, 0);
  o.data.resize(values.size() * models::element_size(t));
  for (size_t i = 0; i < values.size(); ++i) models::write_element(t, o.data, i, values[i]);
  return add(std::move(o));
}

uint32_t GraphBuilder::ints(OperandType t, std::vector<uint32_t> dims, const std::vector<int32_t>& values,
                            float scale, int32_t zp) {
  models::Operand o = make(t, std::move(dims), Lifetime::CONSTANT_COPY, scale, zp);
  o.data.resize(values.size() * models::element_size(t));
  for (size_t i = 0; i < values.size(); ++i) models::write_element(t, o.data, i, values[i]);
  return add(std::move(o));
}

uint32_t GraphBuilder::per_channel(std::vector<uint32_t> dims, const std::vector<int32_t>& values,
                                   std::vector<float> scales) {
  const uint32_t i = ints(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, std::move(dims), values);
  model_.main.operands[i].per_channel = models::PerChannelQuant{std::move(scales), 0};
  return i;
}

uint32_t GraphBuilder::i32(int32_t v) { return ints(OperandType::INT32, {}, {v}); }
uint32_t GraphBuilder::boolean(bool v) { return ints(OperandType::BOOL, {}, {v ? 1 : 0}); }

void GraphBuilder::op(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
}

Tensor float_tensor(std::vector<uint32_t> dims, const std::vector<float>& values, OperandType t) {
  Tensor x;
  x.type = t;
  x.dimensions = std::move(dims);
  x.data.resize(values.size() * models::element_size(t));
  for (size_t i = 0; i < values.size(); ++i) models::write_element(t, x.data, i, values[i]);
  return x;
}

Tensor int_tensor(OperandType t, std::vector<uint32_t> dims, const std::vector<int32_t>& values, float scale,
                  int32_t zp) {
  Tensor x;
  x.type = t;
  x.dimensions = std::move(dims);
  x.scale = scale;
  x.zero_point = zp;
  x.data.resize(values.size() * models::element_size(t));
  for (size_t i = 0; i < values.size(); ++i) models::write_element(t, x.data, i, values[i]);
  return x;
}

std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> v;
  const uint32_t size = models::element_size(t.type);
  for (size_t i = 0; size != 0 && i < t.data.size() / size; ++i) {
    v.push_back(static_cast<float>(models::read_element(t.type, t.data, i)));
  }
  return v;
}

std::vector<int32_t> ints_of(const Tensor& t) {
  std::vector<int32_t> v;
  const uint32_t size = models::element_size(t.type);
  for (size_t i = 0; size != 0 && i < t.data.size() / size; ++i) {
    v.push_back(static_cast<int32_t>(models::read_element(t.type, t.data, i)));
  }
  return v;
}

bool fp32_close(float expected, float actual) {
  return std::fabs(expected - actual) <= 1e-5f + 5.0f * 1.1920928955078125e-7f * std::fabs(expected);
}

Model small_quant_model() {
  GraphBuilder g;
  const uint32_t in = g.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 0.5f, 128);
  const uint32_t filter = g.ints(OperandType::TENSOR_QUANT8_ASYMM, {3, 2, 2, 2},
                                 {130, 120, 128, 140, 129, 127, 126, 131, 100, 150, 128, 128,
                                  129, 129, 127, 127, 140, 116, 132, 124, 128, 128, 128, 135},
                                 0.25f, 128);
  const uint32_t bias = g.ints(OperandType::TENSOR_INT32, {3}, {10, -20, 0}, 0.125f);
  const uint32_t conv_out = g.temp(OperandType::TENSOR_QUANT8_ASYMM, {1, 2, 2, 3}, 0.5f, 100);
  g.op(OperationType::CONV_2D, {in, filter, bias, g.i32(1), g.i32(2), g.i32(2), g.i32(1)}, {conv_out});
  const uint32_t w = g.ints(OperandType::TENSOR_QUANT8_ASYMM, {2, 12},
                            {128, 129, 130, 131, 127, 126, 125, 124, 140, 120, 128, 128,
                             100, 110, 120, 130, 140, 150, 160, 128, 128, 128, 128, 128},
                            0.5f, 128);
  const uint32_t fc_bias = g.ints(OperandType::TENSOR_INT32, {2}, {5, -5}, 0.25f);
  const uint32_t out = g.output(OperandType::TENSOR_QUANT8_ASYMM, {1, 2}, 1.0f, 128);
  g.op(OperationType::FULLY_CONNECTED, {conv_out, w, fc_bias, g.i32(0)}, {out});
  return g.build();
}

Model small_float_model() {
  GraphBuilder g;
  const uint32_t in = g.input(OperandType::TENSOR_FLOAT32, {1, 1, 5, 5});
  const uint32_t filter =
      g.floats({2, 3, 3, 1}, {1, 0, -1, 2, 0, -2, 1, 0, -1, 0.5f, 0.5f, 0.5f, 0, 0, 0, -1, -1, -1});
  const uint32_t bias = g.floats({2}, {0.5f, -0.25f});
  const uint32_t conv_out = g.temp(OperandType::TENSOR_FLOAT32, {1, 2, 3, 3});
  // Explicit padding 1 all round, stride 2, RELU, NCHW, dilation 1.
  g.op(OperationType::CONV_2D,
       {in, filter, bias, g.i32(1), g.i32(1), g.i32(1), g.i32(1), g.i32(2), g.i32(2), g.i32(1),
        g.boolean(true), g.i32(1), g.i32(1)},
       {conv_out});
  const uint32_t w = g.floats({1, 18}, std::vector<float>(18, 0.125f));
  const uint32_t fc_bias = g.floats({1}, {1.0f});
  const uint32_t out = g.output(OperandType::TENSOR_FLOAT32, {1, 1});
  g.op(OperationType::FULLY_CONNECTED, {conv_out, w, fc_bias, g.i32(3)}, {out});
  return g.build();
}

Model small_mixed_model() {
  GraphBuilder g;
  constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const uint32_t in = g.input(Q8, {1, 4, 4, 2}, 0.5f, 128);
  std::vector<int32_t> fv;
  for (int i = 0; i < 18; ++i) fv.push_back(120 + (i * 7) % 17);
  const uint32_t f = g.ints(Q8, {1, 3, 3, 2}, fv, 0.25f, 128);
  const uint32_t b = g.ints(OperandType::TENSOR_INT32, {2}, {3, -3}, 0.125f);
  const uint32_t dw = g.temp(Q8, {1, 4, 4, 2}, 0.5f, 128);
  g.op(OperationType::DEPTHWISE_CONV_2D, {in, f, b, g.i32(1), g.i32(1), g.i32(1), g.i32(1), g.i32(0)}, {dw});
  const uint32_t pool = g.temp(Q8, {1, 2, 2, 2}, 0.5f, 128);
  g.op(OperationType::AVERAGE_POOL_2D, {dw, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(0)},
       {pool});
  const uint32_t sum = g.temp(Q8, {1, 2, 2, 2}, 1.0f, 128);
  g.op(OperationType::ADD, {pool, pool, g.i32(0)}, {sum});
  const uint32_t relu = g.temp(Q8, {1, 2, 2, 2}, 1.0f, 128);
  g.op(OperationType::RELU, {sum}, {relu});
  const uint32_t flat = g.temp(Q8, {1, 8}, 1.0f, 128);
  g.op(OperationType::RESHAPE, {relu, g.ints(OperandType::TENSOR_INT32, {2}, {1, -1})}, {flat});
  const uint32_t beta = g.ints(OperandType::FLOAT32, {}, {1});
  const uint32_t out = g.output(Q8, {1, 8}, 1.0f / 256.0f, 0);
  g.op(OperationType::SOFTMAX, {flat, beta}, {out});
  return g.build();
}

std::map<uint32_t, Tensor> inputs_for(const Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<uint32_t, Tensor> inputs;
  for (uint32_t idx : m.main.input_indexes) {
    if (idx >= m.main.operands.size()) continue;
    const models::Operand& o = m.main.operands[idx];
    if (!o.fully_specified() || o.element_count() > 4096 || models::element_size(o.type) == 0) continue;
    Tensor t = models::make_tensor(o, o.dimensions);
    for (auto& b : t.data) b = static_cast<uint8_t>(rng());
    if (models::is_float_type(o.type)) {
      for (uint64_t i = 0; i < t.element_count(); ++i) {
        models::write_element(o.type, t.data, i, std::uniform_real_distribution<double>(-4, 4)(rng));
      }
    }
    inputs.emplace(idx, std::move(t));
  }
  return inputs;
}

}  // namespace npu::hal::ops::test
