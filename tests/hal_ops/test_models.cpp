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
uint32_t GraphBuilder::omitted(OperandType t) { return add(make(t, {}, Lifetime::NO_VALUE, 0.0f, 0)); }
uint32_t GraphBuilder::subgraph(uint32_t index) {
  models::Operand o = make(OperandType::SUBGRAPH, {}, Lifetime::SUBGRAPH, 0.0f, 0);
  o.subgraph = index;
  return add(std::move(o));
}

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

Model small_shape_model() {
  GraphBuilder g;
  constexpr auto F = OperandType::TENSOR_FLOAT32;
  constexpr auto I = OperandType::TENSOR_INT32;
  const uint32_t a = g.input(F, {1, 2, 2, 2});
  const uint32_t scale = g.floats({2}, {0.5f, -2.0f});
  const uint32_t mul = g.temp(F, {1, 2, 2, 2});
  g.op(OperationType::MUL, {a, scale, g.i32(0)}, {mul});
  const uint32_t cat = g.temp(F, {1, 2, 2, 4});
  g.op(OperationType::CONCATENATION, {mul, a, g.i32(3)}, {cat});
  const uint32_t pad = g.temp(F, {1, 4, 2, 4});
  g.op(OperationType::PAD, {cat, g.ints(I, {4, 2}, {0, 0, 1, 1, 0, 0, 0, 0})}, {pad});
  const uint32_t tr = g.temp(F, {1, 4, 4, 2});
  g.op(OperationType::TRANSPOSE, {pad, g.ints(I, {4}, {0, 1, 3, 2})}, {tr});
  const uint32_t sl = g.temp(F, {1, 2, 4, 2});
  g.op(OperationType::STRIDED_SLICE,
       {tr, g.ints(I, {4}, {0, 0, 0, 0}), g.ints(I, {4}, {1, 4, 4, 2}), g.ints(I, {4}, {1, 2, 1, 1}),
        g.i32(0), g.i32(0), g.i32(0)},
       {sl});
  const uint32_t mean = g.output(F, {1, 2});
  g.op(OperationType::MEAN, {sl, g.ints(I, {2}, {2, 1}), g.i32(0)}, {mean});
  const uint32_t s2d = g.temp(F, {1, 2, 2, 8});
  g.op(OperationType::SPACE_TO_DEPTH, {tr, g.i32(2)}, {s2d});
  const uint32_t d2s = g.temp(F, {1, 4, 4, 2});
  g.op(OperationType::DEPTH_TO_SPACE, {s2d, g.i32(2)}, {d2s});
  const uint32_t l2 = g.temp(F, {1, 2, 2, 2});
  g.op(OperationType::L2_POOL_2D, {d2s, g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(2), g.i32(0)}, {l2});
  const uint32_t lrn = g.temp(F, {1, 2, 2, 2});
  g.op(OperationType::LOCAL_RESPONSE_NORMALIZATION,
       {l2, g.i32(1), g.floats({}, {1.0f}, OperandType::FLOAT32), g.floats({}, {0.5f}, OperandType::FLOAT32),
        g.floats({}, {0.75f}, OperandType::FLOAT32)},
       {lrn});
  const uint32_t rs = g.output(F, {1, 3, 3, 2});
  g.op(OperationType::RESIZE_BILINEAR, {lrn, g.i32(3), g.i32(3)}, {rs});
  return g.build();
}

Model small_quant_ops_model() {
  GraphBuilder g;
  constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
  constexpr auto I = OperandType::TENSOR_INT32;
  const uint32_t a = g.input(Q8, {1, 4, 4, 1}, 0.1f, 128);
  const uint32_t b = g.ints(Q8, {1}, {140}, 0.2f, 120);
  const uint32_t sub = g.temp(Q8, {1, 4, 4, 1}, 0.1f, 128);
  g.op(OperationType::SUB, {a, b, g.i32(0)}, {sub});
  const uint32_t lg = g.temp(Q8, {1, 4, 4, 1}, 1.0f / 256, 0);
  g.op(OperationType::LOGISTIC, {sub}, {lg});
  const uint32_t s2b = g.temp(Q8, {4, 2, 2, 1}, 1.0f / 256, 0);
  g.op(OperationType::SPACE_TO_BATCH_ND, {lg, g.ints(I, {2}, {2, 2}), g.ints(I, {2, 2}, {0, 0, 0, 0})},
       {s2b});
  const uint32_t b2s = g.temp(Q8, {1, 4, 4, 1}, 1.0f / 256, 0);
  g.op(OperationType::BATCH_TO_SPACE_ND, {s2b, g.ints(I, {2}, {2, 2})}, {b2s});
  const uint32_t sq = g.temp(Q8, {4, 4}, 1.0f / 256, 0);
  g.op(OperationType::SQUEEZE, {b2s, g.ints(I, {2}, {0, 3})}, {sq});
  const uint32_t th = g.temp(Q8, {4, 4}, 1.0f / 128, 128);
  g.op(OperationType::TANH, {sq}, {th});
  const uint32_t l2 = g.temp(Q8, {4, 4}, 1.0f / 128, 128);
  g.op(OperationType::L2_NORMALIZATION, {th, g.i32(-1)}, {l2});
  const uint32_t dq = g.temp(OperandType::TENSOR_FLOAT32, {4, 4});
  g.op(OperationType::DEQUANTIZE, {l2}, {dq});
  const uint32_t fl = g.temp(OperandType::TENSOR_FLOAT32, {4, 4});
  g.op(OperationType::FLOOR, {dq}, {fl});
  const uint32_t dv = g.output(OperandType::TENSOR_FLOAT32, {4, 4});
  g.op(OperationType::DIV, {fl, g.floats({4}, {1.0f, 2.0f, -4.0f, 0.5f}), g.i32(1)}, {dv});
  const uint32_t values = g.ints(Q8, {3, 2}, {1, 2, 3, 4, 5, 6}, 0.5f, 0);
  const uint32_t emb = g.output(Q8, {2, 2}, 0.5f, 0);
  g.op(OperationType::EMBEDDING_LOOKUP, {g.ints(I, {2}, {2, 0}), values}, {emb});
  const uint32_t ht = g.output(Q8, {2, 2}, 0.5f, 0);
  const uint32_t hits = g.output(Q8, {2}, 1.0f, 0);
  g.op(OperationType::HASHTABLE_LOOKUP, {g.ints(I, {2}, {7, 9}), g.ints(I, {3}, {3, 7, 8}), values},
       {ht, hits});
  const uint32_t lsh = g.output(I, {2});
  g.op(OperationType::LSH_PROJECTION,
       {g.floats({2, 3}, {0.1f, -0.2f, 0.3f, 1.5f, -2.5f, 3.5f}), g.ints(I, {3, 2}, {1, 2, 3, 4, 5, 6}),
        g.floats({3}, {0.5f, -1.0f, 2.0f}), g.i32(1)},
       {lsh});
  return g.build();
}

Model small_recurrent_model() {
  GraphBuilder g;
  constexpr auto F = OperandType::TENSOR_FLOAT32;
  const uint32_t x = g.input(F, {2, 3});
  const uint32_t h = g.input(F, {2, 2});
  const uint32_t hs = g.temp(F, {2, 2});
  const uint32_t rnn = g.temp(F, {2, 2});
  g.op(OperationType::RNN,
       {x, g.floats({2, 3}, {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f}),
        g.floats({2, 2}, {0.5f, -0.25f, 0.125f, 1}), g.floats({2}, {0.1f, -0.1f}), h, g.i32(0)},
       {hs, rnn});
  const uint32_t state = g.input(F, {2, 8});
  const uint32_t state_out = g.output(F, {2, 8});
  const uint32_t svdf = g.output(F, {2, 2});
  g.op(OperationType::SVDF,
       {rnn, g.floats({4, 2}, {1, -1, 0.5f, 0.25f, -0.5f, 2, 1, 1}),
        g.floats({4, 2}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f}), g.floats({2}, {0, 1}), state,
        g.i32(2), g.i32(1)},
       {state_out, svdf});
  auto w = [&](uint32_t rows, uint32_t cols, float base) {
    std::vector<float> v;
    for (uint32_t i = 0; i < rows * cols; ++i) v.push_back(base + 0.1f * static_cast<float>(i % 5) - 0.2f);
    return g.floats({rows, cols}, v);
  };
  auto v1 = [&](uint32_t n, float base) { return g.floats({n}, std::vector<float>(n, base)); };
  const uint32_t none = g.omitted(F);
  const uint32_t oh = g.input(F, {2, 2});
  const uint32_t oc = g.input(F, {2, 3});
  g.op(OperationType::LSTM,
       {x,
        none,
        w(3, 3, 0.1f),
        w(3, 3, 0.2f),
        w(3, 3, 0.3f),
        none,
        w(3, 2, 0.4f),
        w(3, 2, 0.5f),
        w(3, 2, 0.6f),
        none,
        v1(3, 0.1f),
        v1(3, 0.2f),
        none,
        v1(3, 1.0f),
        v1(3, 0.0f),
        v1(3, -0.5f),
        w(2, 3, 0.7f),
        v1(2, 0.1f),
        oh,
        oc,
        g.i32(4),
        g.floats({}, {3.0f}, OperandType::FLOAT32),
        g.floats({}, {0.0f}, OperandType::FLOAT32)},
       {g.output(F, {2, 9}), g.output(F, {2, 2}), g.output(F, {2, 3}), g.output(F, {2, 2})});
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
