// Private to the random-graph generator: the chain generator behind make_random_graph(), its members
// split over random_graph_chain*.cpp by operation family.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string_view>

#include "../hal_ops/test_models.h"
#include "npu/hal/op_table.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/tensor.h"
#include "npu/models/validate.h"
#include "random_graph.h"

namespace npu::hal::test::chain {

using models::OperandType;
using models::OperationType;
using ops::test::GraphBuilder;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
using Cell = std::pair<OperationType, OperandType>;

// A tensor the next operation may consume.
struct Value {
  uint32_t index;
  std::vector<uint32_t> dims;
  float scale;
  int32_t zero_point;
};

class Generator {
 public:
  Generator(uint64_t seed, std::optional<OperandType> type) : rng_(seed), forced_type_(type) {}

  RandomGraph build() {
    const int pick = below(3);
    type_ = forced_type_ ? *forced_type_ : pick == 0 ? F32 : pick == 1 ? Q8 : S8;
    Value v = new_input({1, 1 + below(6), 1 + below(6), 1 + below(5)});
    const int ops = 1 + below(5);
    for (int i = 0; i < ops; ++i) v = step(v, i == ops - 1);
    RandomGraph g;
    g.model = g_.build();
    g.inputs = std::move(inputs_);
    g.summary = summary_;
    g.cells = std::move(cells_);
    return g;
  }

 private:
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  bool quant() const { return type_ != F32; }
  int32_t qmin() const { return type_ == S8 ? -128 : 0; }
  int32_t qmax() const { return type_ == S8 ? 127 : 255; }
  int32_t random_zero_point() { return qmin() + static_cast<int32_t>(below(256)); }
  float random_scale() { return std::ldexp(uniform(1.0f, 2.0f), -static_cast<int>(below(8))); }

  void note(OperationType op) {
    if (!summary_.empty()) summary_ += " -> ";
    summary_ += models::to_string(op);
    cells_.emplace_back(op, type_);
  }

  std::vector<int32_t> random_q(uint64_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = qmin() + static_cast<int32_t>(below(256));
    return v;
  }
  std::vector<float> random_f(uint64_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(-1.0f, 1.0f);
    return v;
  }
  static uint64_t count(const std::vector<uint32_t>& d) {
    uint64_t n = 1;
    for (uint32_t x : d) n *= x;
    return n;
  }

  Value new_input(std::vector<uint32_t> dims) {
    const float s = quant() ? random_scale() : 0.0f;
    const int32_t z = quant() ? random_zero_point() : 0;
    const uint32_t idx = g_.input(type_, dims, s, z);
    inputs_[idx] = quant() ? ops::test::int_tensor(type_, dims, random_q(count(dims)), s, z)
                           : ops::test::float_tensor(dims, random_f(count(dims)));
    return {idx, dims, s, z};
  }
  Value constant(std::vector<uint32_t> dims) {
    const float s = quant() ? random_scale() : 0.0f;
    const int32_t z = quant() ? random_zero_point() : 0;
    const uint32_t idx =
        quant() ? g_.ints(type_, dims, random_q(count(dims)), s, z) : g_.floats(dims, random_f(count(dims)));
    return {idx, dims, s, z};
  }
  // The next value: a graph output when last, else a temporary.
  Value result(std::vector<uint32_t> dims, float s, int32_t z, bool last) {
    if (!quant()) s = 0.0f, z = 0;
    const uint32_t idx = last ? g_.output(type_, dims, s, z) : g_.temp(type_, dims, s, z);
    return {idx, dims, s, z};
  }

  Value step(const Value& in, bool last);

  Value unary(const Value& in, bool last);

  Value binary(const Value& in, bool last);

  // Filter and bias of a convolution: filter quantised with its own scale, bias INT32 at in·filter.
  std::pair<Value, uint32_t> filter_and_bias(const Value& in, std::vector<uint32_t> fdims, uint32_t bias_n) {
    const Value f = constant(fdims);
    uint32_t b;
    if (quant()) {
      std::vector<int32_t> bias(bias_n);
      for (auto& x : bias) x = static_cast<int32_t>(below(2001)) - 1000;
      b = g_.ints(OperandType::TENSOR_INT32, {bias_n}, bias, in.scale * f.scale, 0);
    } else {
      b = g_.floats({bias_n}, random_f(bias_n));
    }
    return {f, b};
  }

  static uint32_t out_extent(uint32_t in, uint32_t k, uint32_t stride, bool same) {
    return same ? (in + stride - 1) / stride : (in - k + stride) / stride;
  }

  // Output scale for an accumulation over `terms` products: roughly the accumulator's spread.
  float acc_scale(const Value& in, const Value& f, uint32_t terms) {
    return in.scale * f.scale * std::sqrt(static_cast<float>(terms)) * uniform(16.0f, 96.0f);
  }

  Value conv(const Value& in, bool last);

  Value depthwise(const Value& in, bool last);

  Value pool(const Value& in, bool last);

  Value fully_connected(const Value& in, bool last);

  Value concatenation(const Value& in, bool last);

  Value softmax(const Value& in, bool last);

  Value reshape(const Value& in, bool last);

  // 0–2 elements before and after each dimension (PAD, PAD_V2): the paddings operand's values and the
  // padded shape.
  struct Padding {
    std::vector<int32_t> paddings;
    std::vector<uint32_t> dims;
  };
  Padding draw_padding(const Value& in) {
    Padding p{{}, in.dims};
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const int32_t before = static_cast<int32_t>(below(3)), after = static_cast<int32_t>(below(3));
      p.paddings.push_back(before);
      p.paddings.push_back(after);
      p.dims[d] += static_cast<uint32_t>(before + after);
    }
    return p;
  }

  Value pad(const Value& in, bool last);

  Value transpose(const Value& in, bool last);

  Value space_to_depth(const Value& in, bool last);

  Value l2_normalization(const Value& in, bool last);

  Value mean(const Value& in, bool last);

  Value prelu(const Value& in, bool last);

  Value hard_swish(const Value& in, bool last);

  Value resize_bilinear(const Value& in, bool last);

  // ABS, EXP, NEG, SIN or ELU: float-only unary operations the NPU's vector unit runs.
  Value float_unary(const Value& in, bool last);

  // Explicit padding: out = stride·(in − 1) + k − head − tail, with head + tail < k.
  Value transpose_conv(const Value& in, bool last);

  Value grouped_conv(const Value& in, bool last);

  Value resize_nearest(const Value& in, bool last);

  Value channel_shuffle(const Value& in, bool last);

  Value slice(const Value& in, bool last);

  // SPLIT along an axis whose extent the split count divides; one part goes on, the others are outputs.
  Value split(const Value& in, bool last);

  Value tile(const Value& in, bool last);

  Value expand_dims(const Value& in, bool last);

  Value pad_v2(const Value& in, bool last);

  // REDUCE_MAX or REDUCE_MIN (every type) or REDUCE_SUM (float) over one or two distinct axes.
  Value reduce(const Value& in, bool last);

  // ARGMAX or ARGMIN ends a float chain (its output is TENSOR_INT32).
  Value arg_min_max(const Value& in);

  Value l2_pool(const Value& in, bool last);

  // CAST ends a float chain: to TENSOR_INT32 (truncated toward zero after clamping).
  Value cast_to_int(const Value& in);

  std::mt19937_64 rng_;
  std::optional<OperandType> forced_type_;
  OperandType type_ = F32;
  GraphBuilder g_;
  TensorMap inputs_;
  std::string summary_;
  std::vector<Cell> cells_;
};

}  // namespace npu::hal::test::chain
