// The operation x operand-type table. Each operation has one probe builder: the smallest valid form of
// the operation (shapes and parameters within NNAPI's rules) written once against a column type T. The
// builder places T where the operation's main data goes (activations, weights, the thing compared or
// moved), the matching bias type (T for floats, TENSOR_INT32 with scale in*filter for quantised), and
// FLOAT16 scalar parameters for TENSOR_FLOAT16. Whether a cell holds is then what validation and the
// NPU's support check say of that model; a builder never decides support itself.
#include "npu/hal/op_table.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/extensions.h"
#include "npu/models/tensor.h"
#include "npu/models/validate.h"

namespace npu::hal {
namespace {

using models::Lifetime;
using models::Model;
using models::Operand;
using models::OperandType;
using models::OperationType;

constexpr OperandType F32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType F16 = OperandType::TENSOR_FLOAT16;
constexpr OperandType I32 = OperandType::TENSOR_INT32;
constexpr OperandType Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType B8 = OperandType::TENSOR_BOOL8;
constexpr OperandType Q16A = OperandType::TENSOR_QUANT16_ASYMM;
constexpr OperandType Q16S = OperandType::TENSOR_QUANT16_SYMM;
constexpr OperandType Q8SYM = OperandType::TENSOR_QUANT8_SYMM;
constexpr OperandType PC = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;

bool is_float_tensor(OperandType t) { return t == F32 || t == F16; }

// Builds one probe model in column type `col`. Activations take the column's type (Q8 for the
// per-channel column, whose per-channel part is the filter) with a fixed quantisation.
class Probe {
 public:
  explicit Probe(OperandType col) : col_(col), t_(col == PC ? Q8 : col) {}

  OperandType t() const { return t_; }
  bool is_float() const { return is_float_tensor(t_); }
  bool is_quant() const { return !is_float() && t_ != I32 && t_ != B8; }
  // True when the model used the column as NNAPI means it (a filter for the per-channel column).
  bool column_used() const { return col_ != PC || used_filter_; }

  float scale_of(OperandType t) const {
    switch (t) {
      case Q8:
      case S8:
      case Q16S:
      case Q8SYM:
        return 0.5f;
      case Q16A:
        return 0.125f;
      default:
        return 0.0f;
    }
  }
  int32_t zero_point_of(OperandType t) const { return t == Q8 ? 128 : 0; }

  // A graph input of type t (default: the column's), quantised with the column's parameters.
  uint32_t in(std::vector<uint32_t> dims) { return in_of(t_, std::move(dims)); }
  uint32_t in_of(OperandType t, std::vector<uint32_t> dims) {
    return in_q(t, std::move(dims), scale_of(t), zero_point_of(t));
  }
  uint32_t in_q(OperandType t, std::vector<uint32_t> dims, float scale, int32_t zp) {
    const uint32_t i = add(t, std::move(dims), Lifetime::SUBGRAPH_INPUT, scale, zp);
    m_.main.input_indexes.push_back(i);
    return i;
  }
  // A graph output with shape left to inference.
  uint32_t out() { return out_of(t_); }
  uint32_t out_of(OperandType t) { return out_q(t, scale_of(t), zero_point_of(t)); }
  // An output with explicit quantisation: `q8_zero_point` is the unsigned form, shifted for signed.
  uint32_t out_fixed(float scale, int32_t q8_zero_point) {
    if (!is_quant()) return out();
    return out_q(t_, scale, t_ == S8 ? q8_zero_point - 128 : q8_zero_point);
  }
  uint32_t out_q(OperandType t, float scale, int32_t zp) {
    const uint32_t i = add(t, {}, Lifetime::SUBGRAPH_OUTPUT, scale, zp);
    m_.main.output_indexes.push_back(i);
    return i;
  }

  // A constant tensor of type t holding `real` values (quantised with t's probe parameters).
  uint32_t cst_of(OperandType t, std::vector<uint32_t> dims, const std::vector<double>& real, float scale,
                  int32_t zp) {
    const uint32_t i = add(t, dims, Lifetime::CONSTANT_COPY, scale, zp);
    Operand& o = m_.main.operands[i];
    o.data.assign(o.byte_size(), 0);
    for (size_t k = 0; k < real.size() && k < o.element_count(); ++k) {
      const double v = scale > 0 ? std::round(real[k] / scale) + zp : real[k];
      models::write_element(t, o.data, k, v);
    }
    return i;
  }
  uint32_t cst(std::vector<uint32_t> dims, const std::vector<double>& real) {
    return cst_of(t_, std::move(dims), real, scale_of(t_), zero_point_of(t_));
  }
  uint32_t ints(std::vector<uint32_t> dims, const std::vector<double>& v) {
    return cst_of(I32, dims, v, 0, 0);
  }
  // A filter of the column's type: per-channel (over `channel_dim`) in the per-channel column.
  uint32_t filter(std::vector<uint32_t> dims, uint32_t channel_dim, const std::vector<double>& real) {
    used_filter_ = true;
    if (col_ != PC) return cst(std::move(dims), real);
    const uint32_t i = cst_of(PC, dims, {}, 0, 0);
    Operand& o = m_.main.operands[i];
    o.per_channel = models::PerChannelQuant{std::vector<float>(dims[channel_dim], 0.5f), channel_dim};
    for (size_t k = 0; k < real.size() && k < o.element_count(); ++k)
      models::write_element(PC, o.data, k, std::round(real[k] / 0.5));
    return i;
  }
  // The bias matching a filter: float types share the column's type; quantised ones are INT32 with
  // scale input x filter (0 for per-channel filters, whose bias scales are per channel).
  uint32_t bias(uint32_t n) {
    if (is_float()) return cst({n}, std::vector<double>(n, 0.5));
    const float s = col_ == PC ? 0.0f : scale_of(t_) * scale_of(t_);
    return cst_of(I32, {n}, std::vector<double>(n, 1), s, 0);
  }
  uint32_t i32(int32_t v) { return scalar(OperandType::INT32, v); }
  uint32_t boolean(bool v) { return scalar(OperandType::BOOL, v ? 1 : 0); }
  // A float scalar parameter: FLOAT16 in the TENSOR_FLOAT16 column, else FLOAT32.
  uint32_t f(double v) { return scalar(t_ == F16 ? OperandType::FLOAT16 : OperandType::FLOAT32, v); }
  // An omitted optional input; quantised types still carry a valid scale (validation checks it).
  uint32_t none(OperandType t) { return add(t, {}, Lifetime::NO_VALUE, scale_of(t), zero_point_of(t)); }

  void op(OperationType type, std::vector<uint32_t> ins, std::vector<uint32_t> outs) {
    m_.main.operations.push_back({type, std::move(ins), std::move(outs)});
  }
  // An operation of com.npusim.llm (the probe model gives the extension prefix 1).
  void llm_op(models::LlmOperation code, std::vector<uint32_t> ins, std::vector<uint32_t> outs) {
    op(models::use_extension_operation(m_, models::kLlmExtension, static_cast<uint16_t>(code)),
       std::move(ins), std::move(outs));
  }
  uint32_t f32(double v) { return scalar(OperandType::FLOAT32, v); }
  Model take() { return std::move(m_); }

 private:
  uint32_t scalar(OperandType t, double v) {
    const uint32_t i = add(t, {}, Lifetime::CONSTANT_COPY, 0, 0);
    Operand& o = m_.main.operands[i];
    o.data.assign(models::element_size(t), 0);
    models::write_element(t, o.data, 0, v);
    return i;
  }
  uint32_t add(OperandType t, std::vector<uint32_t> dims, Lifetime life, float scale, int32_t zp) {
    Operand o;
    o.type = t;
    o.dimensions = std::move(dims);
    o.lifetime = life;
    o.scale = scale;
    o.zero_point = zp;
    m_.main.operands.push_back(std::move(o));
    return static_cast<uint32_t>(m_.main.operands.size() - 1);
  }

  OperandType col_, t_;
  bool used_filter_ = false;
  Model m_;
};

using Builder = std::function<void(Probe&)>;

// The prefix com.npusim.llm gets in a probe model (the first extension a model uses gets 1).
constexpr uint16_t kProbeExtensionPrefix = 1;

std::vector<double> ramp(size_t n, double start = 0.5, double step = 0.5) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i % 5);
  return v;
}

void unary(Probe& p, OperationType op) { p.op(op, {p.in({1, 2, 2, 2})}, {p.out()}); }
void binary(Probe& p, OperationType op, bool activation) {
  std::vector<uint32_t> ins{p.in({1, 2, 2, 2}), p.in({1, 2, 2, 2})};
  if (activation) ins.push_back(p.i32(0));
  p.op(op, ins, {p.out()});
}
void comparison(Probe& p, OperationType op) {
  p.op(op, {p.in({1, 2, 2, 2}), p.in({1, 2, 2, 2})}, {p.out_of(B8)});
}
void pool(Probe& p, OperationType op) {
  p.op(op, {p.in({1, 2, 2, 2}), p.i32(1), p.i32(1), p.i32(1), p.i32(2), p.i32(2), p.i32(0)}, {p.out()});
}
void reduce(Probe& p, OperationType op) {
  p.op(op, {p.in({1, 2, 2, 2}), p.ints({1}, {1}), p.boolean(false)}, {p.out()});
}
// The 23 inputs of an LSTM cell without CIFG, peephole or projection: input [2, 3], 2 units.
std::vector<uint32_t> lstm_cell_inputs(Probe& p, uint32_t x, uint32_t units, bool with_states) {
  std::vector<uint32_t> ins{x};
  for (int k = 0; k < 4; ++k) ins.push_back(p.cst({units, 3}, ramp(units * 3, 0.1, 0.1)));
  for (int k = 0; k < 4; ++k) ins.push_back(p.cst({units, units}, ramp(units * units, 0.1, 0.1)));
  for (int k = 0; k < 3; ++k) ins.push_back(p.none(p.t()));
  for (int k = 0; k < 4; ++k) ins.push_back(p.cst({units}, std::vector<double>(units, 0.5)));
  ins.push_back(p.none(p.t()));
  ins.push_back(p.none(p.t()));
  if (with_states) {
    ins.push_back(p.in({2, units}));
    ins.push_back(p.in({2, units}));
  }
  return ins;
}

const std::map<OperationType, Builder>& builders() {
  using O = OperationType;
  static const std::map<OperationType, Builder> table = {
      {O::ADD, [](Probe& p) { binary(p, O::ADD, true); }},
      {O::SUB, [](Probe& p) { binary(p, O::SUB, true); }},
      {O::MUL, [](Probe& p) { binary(p, O::MUL, true); }},
      {O::DIV, [](Probe& p) { binary(p, O::DIV, true); }},
      {O::MAXIMUM, [](Probe& p) { binary(p, O::MAXIMUM, false); }},
      {O::MINIMUM, [](Probe& p) { binary(p, O::MINIMUM, false); }},
      {O::POW, [](Probe& p) { binary(p, O::POW, false); }},
      {O::AVERAGE_POOL_2D, [](Probe& p) { pool(p, O::AVERAGE_POOL_2D); }},
      {O::MAX_POOL_2D, [](Probe& p) { pool(p, O::MAX_POOL_2D); }},
      {O::L2_POOL_2D, [](Probe& p) { pool(p, O::L2_POOL_2D); }},
      {O::CONCATENATION,
       [](Probe& p) {
         p.op(O::CONCATENATION, {p.in({1, 2, 2, 2}), p.in({1, 2, 2, 2}), p.i32(3)}, {p.out()});
       }},
      {O::CONV_2D,
       [](Probe& p) {
         p.op(O::CONV_2D,
              {p.in({1, 3, 3, 2}), p.filter({2, 2, 2, 2}, 0, ramp(16)), p.bias(2), p.i32(2), p.i32(1),
               p.i32(1), p.i32(0)},
              {p.out()});
       }},
      {O::DEPTHWISE_CONV_2D,
       [](Probe& p) {
         p.op(O::DEPTHWISE_CONV_2D,
              {p.in({1, 3, 3, 2}), p.filter({1, 2, 2, 2}, 3, ramp(8)), p.bias(2), p.i32(2), p.i32(1),
               p.i32(1), p.i32(1), p.i32(0)},
              {p.out()});
       }},
      {O::GROUPED_CONV_2D,
       [](Probe& p) {
         p.op(O::GROUPED_CONV_2D,
              {p.in({1, 3, 3, 4}), p.filter({4, 2, 2, 2}, 0, ramp(32)), p.bias(4), p.i32(2), p.i32(1),
               p.i32(1), p.i32(2), p.i32(0), p.boolean(false)},
              {p.out()});
       }},
      {O::TRANSPOSE_CONV_2D,
       [](Probe& p) {
         p.op(O::TRANSPOSE_CONV_2D,
              {p.in({1, 2, 2, 2}), p.filter({2, 2, 2, 2}, 0, ramp(16)), p.bias(2), p.ints({4}, {1, 3, 3, 2}),
               p.i32(2), p.i32(1), p.i32(1), p.i32(0), p.boolean(false)},
              {p.out()});
       }},
      {O::FULLY_CONNECTED,
       [](Probe& p) {
         p.op(O::FULLY_CONNECTED, {p.in({2, 3}), p.filter({4, 3}, 0, ramp(12)), p.bias(4), p.i32(0)},
              {p.out()});
       }},
      {O::DEPTH_TO_SPACE,
       [](Probe& p) {
         p.op(O::DEPTH_TO_SPACE, {p.in({1, 1, 1, 4}), p.i32(2)}, {p.out()});
       }},
      {O::SPACE_TO_DEPTH,
       [](Probe& p) {
         p.op(O::SPACE_TO_DEPTH, {p.in({1, 2, 2, 1}), p.i32(2)}, {p.out()});
       }},
      {O::DEQUANTIZE,
       [](Probe& p) {
         p.op(O::DEQUANTIZE, {p.in({1, 2, 2, 2})}, {p.out_of(F32)});
       }},
      {O::QUANTIZE,
       [](Probe& p) {
         p.op(O::QUANTIZE, {p.in_of(F32, {2, 2})}, {p.out()});
       }},
      {O::EMBEDDING_LOOKUP,
       [](Probe& p) {
         p.op(O::EMBEDDING_LOOKUP, {p.ints({2}, {0, 2}), p.in({3, 2})}, {p.out()});
       }},
      {O::HASHTABLE_LOOKUP,
       [](Probe& p) {
         p.op(O::HASHTABLE_LOOKUP, {p.ints({2}, {5, 7}), p.ints({3}, {3, 5, 7}), p.in({3, 2})},
              {p.out(), p.out_q(Q8, 1.0f, 0)});
       }},
      {O::FLOOR, [](Probe& p) { unary(p, O::FLOOR); }},
      {O::L2_NORMALIZATION,
       [](Probe& p) {
         p.op(O::L2_NORMALIZATION, {p.in({1, 2, 2, 2})}, {p.out_fixed(1.0f / 128, 128)});
       }},
      {O::LOCAL_RESPONSE_NORMALIZATION,
       [](Probe& p) {
         p.op(O::LOCAL_RESPONSE_NORMALIZATION, {p.in({1, 2, 2, 2}), p.i32(1), p.f(1), p.f(1), p.f(0.5)},
              {p.out()});
       }},
      {O::LOGISTIC,
       [](Probe& p) {
         p.op(O::LOGISTIC, {p.in({1, 2, 2, 2})}, {p.out_fixed(1.0f / 256, 0)});
       }},
      {O::TANH,
       [](Probe& p) {
         p.op(O::TANH, {p.in({1, 2, 2, 2})}, {p.out_fixed(1.0f / 128, 128)});
       }},
      {O::LSH_PROJECTION,
       [](Probe& p) {
         const OperandType hash = p.t() == F16 ? F16 : F32;  // the hash and weight are float16 or float32
         p.op(O::LSH_PROJECTION,
              {p.cst_of(hash, {2, 2}, {0.5, -0.5, 1, -1}, 0, 0), p.in({3, 2}),
               p.cst_of(hash, {3}, {1, 1, 1}, 0, 0), p.i32(2)},
              {p.out_of(I32)});
       }},
      {O::LSTM,
       [](Probe& p) {
         std::vector<uint32_t> ins = lstm_cell_inputs(p, p.in({2, 3}), 2, true);
         ins.push_back(p.i32(4));
         ins.push_back(p.f(0));
         ins.push_back(p.f(0));
         p.op(O::LSTM, ins, {p.out(), p.out(), p.out(), p.out()});
       }},
      {O::RELU, [](Probe& p) { unary(p, O::RELU); }},
      {O::RELU1, [](Probe& p) { unary(p, O::RELU1); }},
      {O::RELU6, [](Probe& p) { unary(p, O::RELU6); }},
      {O::RESHAPE,
       [](Probe& p) {
         p.op(O::RESHAPE, {p.in({1, 2, 2, 2}), p.ints({2}, {2, 4})}, {p.out()});
       }},
      {O::RESIZE_BILINEAR,
       [](Probe& p) {
         p.op(O::RESIZE_BILINEAR, {p.in({1, 2, 2, 2}), p.i32(3), p.i32(3)}, {p.out()});
       }},
      {O::RESIZE_NEAREST_NEIGHBOR,
       [](Probe& p) {
         p.op(O::RESIZE_NEAREST_NEIGHBOR, {p.in({1, 2, 2, 2}), p.i32(3), p.i32(3), p.boolean(false)},
              {p.out()});
       }},
      {O::RNN,
       [](Probe& p) {
         p.op(O::RNN,
              {p.in({2, 3}), p.cst({4, 3}, ramp(12)), p.cst({4, 4}, ramp(16)), p.cst({4}, ramp(4)),
               p.in({2, 4}), p.i32(1)},
              {p.out(), p.out()});
       }},
      {O::SOFTMAX,
       [](Probe& p) {
         p.op(O::SOFTMAX, {p.in({2, 4}), p.f(1)}, {p.out_fixed(1.0f / 256, 0)});
       }},
      {O::SVDF,
       [](Probe& p) {
         p.op(O::SVDF,
              {p.in({2, 3}), p.cst({4, 3}, ramp(12)), p.cst({4, 2}, ramp(8)), p.cst({4}, ramp(4)),
               p.in({2, 8}), p.i32(1), p.i32(0)},
              {p.out(), p.out()});
       }},
      {O::BATCH_TO_SPACE_ND,
       [](Probe& p) {
         p.op(O::BATCH_TO_SPACE_ND, {p.in({4, 1, 1, 1}), p.ints({2}, {2, 2})}, {p.out()});
       }},
      {O::SPACE_TO_BATCH_ND,
       [](Probe& p) {
         p.op(O::SPACE_TO_BATCH_ND, {p.in({1, 2, 2, 1}), p.ints({2}, {2, 2}), p.ints({2, 2}, {0, 0, 0, 0})},
              {p.out()});
       }},
      {O::MEAN,
       [](Probe& p) {
         p.op(O::MEAN, {p.in({1, 2, 2, 2}), p.ints({1}, {1}), p.i32(0)}, {p.out()});
       }},
      {O::PAD,
       [](Probe& p) {
         p.op(O::PAD, {p.in({1, 2, 2, 1}), p.ints({4, 2}, {0, 0, 1, 0, 0, 0, 0, 0})}, {p.out()});
       }},
      {O::PAD_V2,
       [](Probe& p) {
         const uint32_t value = p.is_float() ? p.f(0) : p.i32(0);
         p.op(O::PAD_V2, {p.in({1, 2, 2, 1}), p.ints({4, 2}, {0, 0, 1, 0, 0, 0, 0, 0}), value}, {p.out()});
       }},
      {O::SQUEEZE,
       [](Probe& p) {
         p.op(O::SQUEEZE, {p.in({1, 2, 1, 2}), p.ints({1}, {2})}, {p.out()});
       }},
      {O::STRIDED_SLICE,
       [](Probe& p) {
         p.op(O::STRIDED_SLICE,
              {p.in({1, 2, 2, 2}), p.ints({4}, {0, 0, 0, 0}), p.ints({4}, {1, 2, 2, 1}),
               p.ints({4}, {1, 1, 1, 1}), p.i32(0), p.i32(0), p.i32(0)},
              {p.out()});
       }},
      {O::TRANSPOSE,
       [](Probe& p) {
         p.op(O::TRANSPOSE, {p.in({1, 2, 2, 2}), p.ints({4}, {0, 3, 1, 2})}, {p.out()});
       }},
      {O::ABS, [](Probe& p) { unary(p, O::ABS); }},
      {O::EXP, [](Probe& p) { unary(p, O::EXP); }},
      {O::LOG, [](Probe& p) { unary(p, O::LOG); }},
      {O::NEG, [](Probe& p) { unary(p, O::NEG); }},
      {O::RSQRT, [](Probe& p) { unary(p, O::RSQRT); }},
      {O::SIN, [](Probe& p) { unary(p, O::SIN); }},
      {O::SQRT, [](Probe& p) { unary(p, O::SQRT); }},
      {O::HARD_SWISH, [](Probe& p) { unary(p, O::HARD_SWISH); }},
      {O::LOGICAL_NOT, [](Probe& p) { unary(p, O::LOGICAL_NOT); }},
      {O::LOGICAL_AND, [](Probe& p) { binary(p, O::LOGICAL_AND, false); }},
      {O::LOGICAL_OR, [](Probe& p) { binary(p, O::LOGICAL_OR, false); }},
      {O::ELU,
       [](Probe& p) {
         p.op(O::ELU, {p.in({1, 2, 2, 2}), p.f(1)}, {p.out()});
       }},
      {O::EQUAL, [](Probe& p) { comparison(p, O::EQUAL); }},
      {O::NOT_EQUAL, [](Probe& p) { comparison(p, O::NOT_EQUAL); }},
      {O::GREATER, [](Probe& p) { comparison(p, O::GREATER); }},
      {O::GREATER_EQUAL, [](Probe& p) { comparison(p, O::GREATER_EQUAL); }},
      {O::LESS, [](Probe& p) { comparison(p, O::LESS); }},
      {O::LESS_EQUAL, [](Probe& p) { comparison(p, O::LESS_EQUAL); }},
      {O::ARGMAX,
       [](Probe& p) {
         p.op(O::ARGMAX, {p.in({1, 2, 2, 2}), p.i32(3)}, {p.out_of(I32)});
       }},
      {O::ARGMIN,
       [](Probe& p) {
         p.op(O::ARGMIN, {p.in({1, 2, 2, 2}), p.i32(3)}, {p.out_of(I32)});
       }},
      {O::REDUCE_ALL, [](Probe& p) { reduce(p, O::REDUCE_ALL); }},
      {O::REDUCE_ANY, [](Probe& p) { reduce(p, O::REDUCE_ANY); }},
      {O::REDUCE_MAX, [](Probe& p) { reduce(p, O::REDUCE_MAX); }},
      {O::REDUCE_MIN, [](Probe& p) { reduce(p, O::REDUCE_MIN); }},
      {O::REDUCE_PROD, [](Probe& p) { reduce(p, O::REDUCE_PROD); }},
      {O::REDUCE_SUM, [](Probe& p) { reduce(p, O::REDUCE_SUM); }},
      {O::CAST,
       [](Probe& p) {
         p.op(O::CAST, {p.in({2, 2})}, {p.out()});
       }},
      {O::CHANNEL_SHUFFLE,
       [](Probe& p) {
         p.op(O::CHANNEL_SHUFFLE, {p.in({1, 2, 2, 4}), p.i32(2), p.i32(3)}, {p.out()});
       }},
      {O::EXPAND_DIMS,
       [](Probe& p) {
         p.op(O::EXPAND_DIMS, {p.in({2, 2}), p.i32(0)}, {p.out()});
       }},
      {O::GATHER,
       [](Probe& p) {
         p.op(O::GATHER, {p.in({3, 2}), p.i32(0), p.ints({2}, {0, 2})}, {p.out()});
       }},
      {O::INSTANCE_NORMALIZATION,
       [](Probe& p) {
         p.op(O::INSTANCE_NORMALIZATION, {p.in({1, 2, 2, 2}), p.f(1), p.f(0), p.f(0.001), p.boolean(false)},
              {p.out()});
       }},
      {O::LOG_SOFTMAX,
       [](Probe& p) {
         p.op(O::LOG_SOFTMAX, {p.in({2, 4}), p.f(1), p.i32(-1)}, {p.out()});
       }},
      {O::PRELU,
       [](Probe& p) {
         p.op(O::PRELU, {p.in({1, 2, 2, 2}), p.cst({2}, {0.5, 1})}, {p.out()});
       }},
      {O::SELECT,
       [](Probe& p) {
         p.op(O::SELECT, {p.in_of(B8, {2, 2}), p.in({2, 2}), p.in({2, 2})}, {p.out()});
       }},
      {O::SLICE,
       [](Probe& p) {
         p.op(O::SLICE, {p.in({1, 2, 2, 2}), p.ints({4}, {0, 0, 0, 0}), p.ints({4}, {1, 1, 2, 2})},
              {p.out()});
       }},
      {O::SPLIT,
       [](Probe& p) {
         p.op(O::SPLIT, {p.in({1, 2, 2, 2}), p.i32(3), p.i32(2)}, {p.out(), p.out()});
       }},
      {O::TILE,
       [](Probe& p) {
         p.op(O::TILE, {p.in({2, 2}), p.ints({2}, {1, 2})}, {p.out()});
       }},
      {O::TOPK_V2,
       [](Probe& p) {
         p.op(O::TOPK_V2, {p.in({2, 3}), p.i32(2)}, {p.out(), p.out_of(I32)});
       }},
      {O::FILL,
       [](Probe& p) {
         const uint32_t value = p.t() == I32 ? p.i32(1) : p.f(1);
         p.op(O::FILL, {p.in_of(I32, {2}), value}, {p.out()});
       }},
      {O::RANK,
       [](Probe& p) {
         p.op(O::RANK, {p.in({2, 2})}, {p.out_q(OperandType::INT32, 0, 0)});
       }},
      {O::RANDOM_MULTINOMIAL,
       [](Probe& p) {
         p.op(O::RANDOM_MULTINOMIAL, {p.in({1, 3}), p.i32(2), p.ints({2}, {1, 2})}, {p.out_of(I32)});
       }},
      {O::AXIS_ALIGNED_BBOX_TRANSFORM,
       [](Probe& p) {
         const OperandType box = p.is_quant() ? Q16A : p.t();
         p.op(O::AXIS_ALIGNED_BBOX_TRANSFORM,
              {p.cst_of(box, {2, 4}, {0, 0, 4, 4, 1, 1, 5, 5}, p.scale_of(box), p.zero_point_of(box)),
               p.in({2, 8}), p.ints({2}, {0, 0}),
               p.cst_of(box, {1, 2}, {10, 10}, p.scale_of(box), p.zero_point_of(box))},
              {p.out_of(box)});
       }},
      {O::BOX_WITH_NMS_LIMIT,
       [](Probe& p) {
         const OperandType box = p.is_quant() ? Q16A : p.t();
         p.op(O::BOX_WITH_NMS_LIMIT,
              {p.in({2, 2}),
               p.cst_of(box, {2, 8}, {0, 0, 4, 4, 0, 0, 4, 4, 5, 5, 9, 9, 5, 5, 9, 9}, p.scale_of(box),
                        p.zero_point_of(box)),
               p.ints({2}, {0, 0}), p.f(0.1), p.i32(-1), p.i32(0), p.f(0.5), p.f(0.5), p.f(0.1)},
              {p.out(), p.out_of(box), p.out_of(I32), p.out_of(I32)});
       }},
      {O::ROI_ALIGN,
       [](Probe& p) {
         const OperandType box = p.is_quant() ? Q16A : p.t();
         p.op(O::ROI_ALIGN,
              {p.in({1, 2, 2, 2}), p.cst_of(box, {1, 4}, {0, 0, 1, 1}, p.scale_of(box), p.zero_point_of(box)),
               p.ints({1}, {0}), p.i32(1), p.i32(1), p.f(1), p.f(1), p.i32(0), p.i32(0), p.boolean(false)},
              {p.out()});
       }},
      {O::ROI_POOLING,
       [](Probe& p) {
         const OperandType box = p.is_quant() ? Q16A : p.t();
         p.op(O::ROI_POOLING,
              {p.in({1, 2, 2, 2}), p.cst_of(box, {1, 4}, {0, 0, 1, 1}, p.scale_of(box), p.zero_point_of(box)),
               p.ints({1}, {0}), p.i32(1), p.i32(1), p.f(1), p.f(1), p.boolean(false)},
              {p.out()});
       }},
      {O::HEATMAP_MAX_KEYPOINT,
       [](Probe& p) {
         const OperandType box = p.is_quant() ? Q16A : p.t();
         p.op(O::HEATMAP_MAX_KEYPOINT,
              {p.in({1, 3, 3, 2}), p.cst_of(box, {1, 4}, {1, 2, 7, 8}, p.scale_of(box), p.zero_point_of(box)),
               p.boolean(false)},
              {p.out(), p.out_of(box)});
       }},
      {O::GENERATE_PROPOSALS,
       [](Probe& p) {
         const OperandType anchor = p.is_quant() ? Q16S : p.t();
         const OperandType info = p.is_quant() ? Q16A : p.t();
         p.op(O::GENERATE_PROPOSALS,
              {p.in({1, 1, 2, 2}), p.in({1, 1, 2, 8}),
               p.cst_of(anchor, {2, 4}, {0, 0, 4, 4, 1, 0, 5, 4}, p.scale_of(anchor), 0),
               p.cst_of(info, {1, 2}, {10, 12}, p.scale_of(info), 0), p.f(8), p.f(8), p.i32(-1), p.i32(-1),
               p.f(0.5), p.f(1), p.boolean(false)},
              {p.out(), p.out_of(info), p.out_of(I32)});
       }},
      {O::DETECTION_POSTPROCESSING,
       [](Probe& p) {
         p.op(O::DETECTION_POSTPROCESSING,
              {p.in({1, 3, 3}), p.in({1, 3, 4}), p.cst({3, 4}, {5, 5, 10, 10, 6, 6, 10, 10, 25, 25, 10, 10}),
               p.f(10), p.f(10), p.f(5), p.f(5), p.boolean(true), p.i32(3), p.i32(1), p.i32(2), p.f(0.5),
               p.f(0.5), p.boolean(false)},
              {p.out(), p.out(), p.out_of(I32), p.out_of(I32)});
       }},
      {O::UNIDIRECTIONAL_SEQUENCE_RNN,
       [](Probe& p) {
         p.op(O::UNIDIRECTIONAL_SEQUENCE_RNN,
              {p.in({2, 1, 3}), p.cst({4, 3}, ramp(12)), p.cst({4, 4}, ramp(16)), p.cst({4}, ramp(4)),
               p.in({1, 4}), p.i32(1), p.i32(1)},
              {p.out()});
       }},
      {O::BIDIRECTIONAL_SEQUENCE_RNN,
       [](Probe& p) {
         p.op(O::BIDIRECTIONAL_SEQUENCE_RNN,
              {p.in({2, 1, 3}), p.cst({4, 3}, ramp(12)), p.cst({4, 4}, ramp(16)), p.cst({4}, ramp(4)),
               p.in({1, 4}), p.cst({4, 3}, ramp(12)), p.cst({4, 4}, ramp(16)), p.cst({4}, ramp(4)),
               p.in({1, 4}), p.none(p.t()), p.none(p.t()), p.none(p.t()), p.i32(1), p.boolean(true),
               p.boolean(false)},
              {p.out(), p.out()});
       }},
      {O::UNIDIRECTIONAL_SEQUENCE_LSTM,
       [](Probe& p) {
         std::vector<uint32_t> ins = lstm_cell_inputs(p, p.in({1, 2, 3}), 2, false);
         ins.push_back(p.in({1, 2}));
         ins.push_back(p.in({1, 2}));
         ins.push_back(p.i32(4));
         ins.push_back(p.f(0));
         ins.push_back(p.f(0));
         ins.push_back(p.boolean(false));
         p.op(O::UNIDIRECTIONAL_SEQUENCE_LSTM, ins, {p.out()});
       }},
      {O::BIDIRECTIONAL_SEQUENCE_LSTM,
       [](Probe& p) {
         const uint32_t x = p.in({2, 1, 3});
         std::vector<uint32_t> ins = lstm_cell_inputs(p, x, 2, false);
         std::vector<uint32_t> bw = lstm_cell_inputs(p, x, 2, false);
         ins.insert(ins.end(), bw.begin() + 1, bw.end());
         for (int k = 0; k < 4; ++k) ins.push_back(p.in({1, 2}));
         for (int k = 0; k < 9; ++k) ins.push_back(p.none(p.t()));
         ins.push_back(p.i32(4));
         ins.push_back(p.f(0));
         ins.push_back(p.f(0));
         ins.push_back(p.boolean(true));
         ins.push_back(p.boolean(true));
         for (int k = 0; k < 8; ++k) ins.push_back(p.none(p.t()));
         p.op(O::BIDIRECTIONAL_SEQUENCE_LSTM, ins, {p.out()});
       }},
      {O::QUANTIZED_16BIT_LSTM,
       [](Probe& p) {
         if (p.t() != Q8) return;  // the operation's only form: Q8 activations and weights, Q16 cell state
         std::vector<uint32_t> ins{p.in_q(Q8, {1, 2}, 1.0f / 128, 128)};
         for (int k = 0; k < 8; ++k) ins.push_back(p.cst_of(Q8, {2, 2}, {0, 0, 0, 0}, 1.0f / 32, 128));
         for (int k = 0; k < 4; ++k) ins.push_back(p.cst_of(I32, {2}, {0, 0}, 1.0f / 4096, 0));
         ins.push_back(p.in_q(Q16S, {1, 2}, 1.0f / 2048, 0));
         ins.push_back(p.in_q(Q8, {1, 2}, 1.0f / 128, 128));
         p.op(O::QUANTIZED_16BIT_LSTM, ins, {p.out_q(Q16S, 1.0f / 2048, 0), p.out_q(Q8, 1.0f / 128, 128)});
       }},
      {O::QUANTIZED_LSTM,
       [](Probe& p) {
         if (p.t() != S8) return;  // the operation's only form: int8 activations, 16-bit cell state
         const OperandType w = Q8SYM;
         std::vector<uint32_t> ins{p.in_q(S8, {1, 2}, 1.0f / 128, 0)};
         for (int k = 0; k < 8; ++k) ins.push_back(p.cst_of(w, {2, 2}, {0, 0, 0, 0}, 1.0f / 32, 0));
         for (int k = 0; k < 3; ++k) ins.push_back(p.none(Q16S));
         for (int k = 0; k < 4; ++k) ins.push_back(p.cst_of(I32, {2}, {0, 0}, 0, 0));
         ins.push_back(p.none(w));
         ins.push_back(p.none(I32));
         ins.push_back(p.in_q(S8, {1, 2}, 1.0f / 128, 0));
         ins.push_back(p.in_q(Q16S, {1, 2}, 1.0f / 2048, 0));
         for (int k = 0; k < 4; ++k) ins.push_back(p.none(Q16S));
         for (int k = 0; k < 2; ++k) ins.push_back(p.f(0));
         for (int k = 0; k < 4; ++k) ins.push_back(p.f(1.0 / 4096));
         ins.push_back(p.i32(0));
         ins.push_back(p.f(1.0 / 128));
         p.op(O::QUANTIZED_LSTM, ins,
              {p.out_q(S8, 1.0f / 128, 0), p.out_q(Q16S, 1.0f / 2048, 0), p.out_q(S8, 1.0f / 128, 0)});
       }},
  };
  return table;
}

// com.npusim.llm's operations, by code within the extension (models/extensions.h).
const std::map<models::LlmOperation, Builder>& llm_builders() {
  using L = models::LlmOperation;
  static const std::map<L, Builder> table = {
      {L::RMS_NORM,
       [](Probe& p) {
         p.llm_op(L::RMS_NORM, {p.in({2, 4}), p.cst({4}, {1, 0.5, 2, 1}), p.f32(1e-5)}, {p.out()});
       }},
      {L::ROPE,
       [](Probe& p) {
         p.llm_op(L::ROPE, {p.in({2, 8}), p.i32(3), p.i32(4), p.f32(10000)}, {p.out()});
       }},
      {L::MATMUL,
       [](Probe& p) {
         p.llm_op(L::MATMUL, {p.in({2, 3}), p.in({4, 3}), p.boolean(true)}, {p.out()});
       }},
  };
  return table;
}

}  // namespace

const std::vector<OperandType>& op_table_types() {
  static const std::vector<OperandType> types = {F32, F16, I32, Q8, S8, PC, Q8SYM, Q16A, Q16S, B8};
  return types;
}

Model operation_probe_model(OperationType op, OperandType type) {
  Probe p(type);
  if (models::is_extension_type(op)) {
    const auto& llm = llm_builders();
    const auto it = models::type_prefix(static_cast<uint32_t>(op)) == kProbeExtensionPrefix
                        ? llm.find(static_cast<models::LlmOperation>(
                              models::type_within_extension(static_cast<uint32_t>(op))))
                        : llm.end();
    if (it == llm.end()) return {};
    it->second(p);
    if (!p.column_used()) return {};
    return p.take();
  }
  const auto& all = builders();
  const auto it = all.find(op);
  if (it == all.end()) return {};
  it->second(p);
  if (!p.column_used()) return {};
  return p.take();
}

std::vector<OpTableRow> probe_operation_table(const NpuTarget& target) {
  std::vector<OperationType> ops;
  for (int32_t code = 0; code <= static_cast<int32_t>(OperationType::RANK); ++code)
    if (code != static_cast<int32_t>(OperationType::IF) && code != static_cast<int32_t>(OperationType::WHILE))
      ops.push_back(static_cast<OperationType>(code));
  for (const auto& [code, builder] : llm_builders())
    ops.push_back(models::extension_operation_type(kProbeExtensionPrefix, static_cast<uint16_t>(code)));
  std::vector<OpTableRow> rows;
  for (const OperationType op : ops) {
    OpTableRow row;
    row.op = op;
    row.extension = models::is_extension_type(op);
    row.registered = row.extension ? true : ops::find_kernel(op) != nullptr;
    for (OperandType type : op_table_types()) {
      OpTypeCell cell;
      Model m = operation_probe_model(op, type);
      if (m.main.operations.empty()) {
        cell.cpu_error = "no probe in this type";
      } else if (auto v = models::validate_model(m); !v.ok()) {
        cell.cpu_error = v.error();
      } else if (auto o = ops::validate_operations(m); !o.ok()) {
        cell.cpu_error = o.error();
      } else {
        cell.valid = true;
        // The CPU reference computes no vendor extension (a valid form, refused by the CPU device).
        cell.cpu = !row.extension;
        if (row.extension) cell.cpu_error = "refused: vendor extension " + std::string(models::kLlmExtension);
        // The NPU decides on known shapes, as the device does after inference.
        if (auto shapes = ops::infer_shapes(m, m.main); shapes.ok()) {
          for (size_t i = 0; i < m.main.operands.size(); ++i)
            m.main.operands[i].dimensions = shapes.value()[i];
        }
        cell.npu_reason = npu_unsupported_reason(m, 0, target);
        cell.npu = cell.npu_reason.empty();
      }
      if (row.name.empty() && !m.main.operations.empty()) row.name = models::operation_name(m, op);
      row.cells.push_back(std::move(cell));
    }
    if (row.name.empty()) row.name = std::string(models::to_string(op));
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::string short_name(OperandType t) {
  switch (t) {
    case F32:
      return "F32";
    case F16:
      return "F16";
    case I32:
      return "I32";
    case Q8:
      return "Q8";
    case S8:
      return "S8";
    case PC:
      return "Q8+PC";
    case Q8SYM:
      return "Q8SYM";
    case Q16A:
      return "Q16A";
    case Q16S:
      return "Q16S";
    case B8:
      return "B8";
    default:
      return std::string(models::to_string(t));
  }
}

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string operation_table_markdown(const std::vector<OpTableRow>& rows) {
  std::ostringstream md;
  md << "| operation |";
  for (OperandType t : op_table_types()) md << ' ' << short_name(t) << " |";
  md << " why the NPU runs a CPU cell as a CPU stage |\n|---|";
  for (size_t i = 0; i < op_table_types().size(); ++i) md << "---|";
  md << "---|\n";
  for (const OpTableRow& row : rows) {
    md << "| " << row.name << (row.registered ? "" : " (no CPU kernel)") << " |";
    std::vector<std::string> reasons;
    if (row.extension) reasons.push_back("vendor extension: the CPU refuses it (no CPU stage)");
    for (const OpTypeCell& c : row.cells) {
      md << ' ' << (c.npu ? (c.cpu ? "C N" : "N") : c.cpu ? "C" : "") << (c.cpu || c.npu ? " |" : "|");
      if (c.valid && !c.npu && std::find(reasons.begin(), reasons.end(), c.npu_reason) == reasons.end())
        reasons.push_back(c.npu_reason);
    }
    std::string why;
    for (const std::string& r : reasons) why += (why.empty() ? "" : "; ") + r;
    md << ' ' << escape_cell(why) << (why.empty() ? "|" : " |") << '\n';
  }
  return md.str();
}

}  // namespace npu::hal
