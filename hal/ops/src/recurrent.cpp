// RNN, SVDF and LSTM kernels (NNAPI 1.0; one file: the recurrent cells share the float matrix-vector
// helpers and the 2-D [batch, size] signature checks). Float only (TENSOR_FLOAT32, and TENSOR_FLOAT16
// computed in float); one time step per execution, states in and out as NNAPI defines them.
//   RNN: 0 input [batch, input_size], 1 weights [units, input_size], 2 recurrent weights [units, units],
//     3 bias [units], 4 hidden state in [batch, units], 5 activation; outputs 0 hidden state out and
//     1 output, both act(W x + R h + b) [batch, units].
//   SVDF: 0 input [batch, input_size], 1 weights_feature [filters, input_size], 2 weights_time
//     [filters, memory], 3 bias [units] (optional), 4 state in [batch, memory * filters], 5 rank
//     (filters = units * rank), 6 activation; outputs 0 state out, 1 output [batch, units]. As NNAPI's
//     reference: the newest state column is W_f x, each filter's activation is its state row dotted with
//     its weights_time row, units sum `rank` consecutive filters (+ bias), and the state shifts left.
//   LSTM: inputs 0 input, 1-4 input-to-{input, forget, cell, output} weights, 5-8 recurrent-to-* weights,
//     9-11 peephole cell-to-{input, forget, output} (optional), 12-15 gate biases, 16 projection weights
//     and 17 projection bias (optional), 18 output state in, 19 cell state in, 20 activation, 21 cell
//     clip, 22 projection clip (0 = none); 23-26 layer-norm weights (27 inputs, NNAPI 1.2). CIFG
//     (coupled input/forget) when inputs 1, 5 and 12 are omitted. Outputs 0 scratch [batch, units * 4]
//     (* 3 with CIFG; gate values input, cell, forget, output — not compared by NNAPI's CTS), 1 output
//     state out, 2 cell state out, 3 output. Gates use the logistic function; the cell input and the
//     output use the activation (0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid).
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
#include "lstm_cell.h"
#include "recurrent_util.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class RnnKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RNN; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 6) return make_error("expected 6 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    auto x = matrix(in, 0, "input", 0, 0, t);
    if (!x) return make_error(x.error());
    auto w = matrix(in, 1, "weights", 0, x->second, t);
    if (!w) return make_error(w.error());
    auto rw = matrix(in, 2, "recurrent weights", w->first, w->first, t);
    if (!rw) return make_error(rw.error());
    const uint32_t units = rw->first;
    auto b = vector(in, 3, "bias", units, t);
    if (!b) return make_error(b.error());
    auto h = matrix(in, 4, "hidden state in", x->first, units, t);
    if (!h) return make_error(h.error());
    auto act = int_param_in_range(in, 5, "fused activation", 0, 3);
    if (!act) return make_error(act.error());
    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    for (size_t i = 0; i < 2; ++i) {
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    }
    const std::vector<uint32_t> shape{h->first, units};
    return std::vector<std::vector<uint32_t>>{shape, shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint64_t batch = in[0].dimensions[0], input_size = in[0].dimensions[1];
    const uint64_t units = in[1].dimensions[0];
    const std::vector<float> x = read_floats(in[0]), w = read_floats(in[1]), r = read_floats(in[2]),
                             b = read_floats(in[3]), h = read_floats(in[4]);
    if (!sizes_ok(x, batch * input_size) || !sizes_ok(w, units * input_size) || !sizes_ok(r, units * units) ||
        !sizes_ok(b, units) || !sizes_ok(h, batch * units))
      return make_error("internal: RNN operand sizes");
    std::vector<float> y(batch * units);
    for (uint64_t i = 0; i < batch; ++i)
      for (uint64_t u = 0; u < units; ++u) y[i * units + u] = b[u];
    matvec_acc(w, units, input_size, x, batch, &y);
    matvec_acc(r, units, units, h, batch, &y);
    const int32_t act = int_param(in[5]).value_or(0);
    for (float& v : y) v = activate(act, v);
    write_floats(*out[0], y);
    write_floats(*out[1], y);
    return {};
  }
};

class SvdfKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SVDF; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 7) return make_error("expected 7 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    auto x = matrix(in, 0, "input", 0, 0, t);
    if (!x) return make_error(x.error());
    auto wf = matrix(in, 1, "weights feature", 0, x->second, t);
    if (!wf) return make_error(wf.error());
    auto wt = matrix(in, 2, "weights time", wf->first, 0, t);
    if (!wt) return make_error(wt.error());
    auto rank = int_param_in_range(in, 5, "rank", 1, 0xffff);
    if (!rank) return make_error(rank.error());
    const uint32_t filters = wt->first;
    uint32_t units = 0;
    if (*rank && filters != 0) {
      if (filters % static_cast<uint32_t>(**rank) != 0)
        return input_error(5, "rank", "does not divide the " + std::to_string(filters) + " filters");
      units = filters / static_cast<uint32_t>(**rank);
    }
    if (!in[3].omitted()) {
      auto b = vector(in, 3, "bias", units, t);
      if (!b) return make_error(b.error());
    }
    const uint64_t state_size = uint64_t{wt->second} * filters;
    if (state_size > 0xffffffffu) return input_error(2, "weights time", "too large");
    auto s = matrix(in, 4, "state in", x->first, static_cast<uint32_t>(state_size), t);
    if (!s) return make_error(s.error());
    auto act = int_param_in_range(in, 6, "fused activation", 0, 3);
    if (!act) return make_error(act.error());
    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    for (size_t i = 0; i < 2; ++i) {
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    }
    return std::vector<std::vector<uint32_t>>{{s->first, static_cast<uint32_t>(state_size)},
                                              {s->first, units}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint64_t batch = in[0].dimensions[0], input_size = in[0].dimensions[1];
    const uint64_t filters = in[1].dimensions[0], memory = in[2].dimensions[1];
    const auto rank = static_cast<uint64_t>(int_param(in[5]).value_or(1));
    if (rank == 0 || filters % rank != 0) return make_error("internal: SVDF rank");
    const uint64_t units = filters / rank;
    const std::vector<float> x = read_floats(in[0]), wf = read_floats(in[1]), wt = read_floats(in[2]);
    const std::vector<float> bias = in[3].omitted() ? std::vector<float>(units, 0.0f) : read_floats(in[3]);
    std::vector<float> state = read_floats(in[4]);
    if (!sizes_ok(x, batch * input_size) || !sizes_ok(wf, filters * input_size) ||
        !sizes_ok(wt, filters * memory) || !sizes_ok(bias, units) ||
        !sizes_ok(state, batch * memory * filters) || memory == 0)
      return make_error("internal: SVDF operand sizes");
    std::vector<float> y(batch * units);
    for (uint64_t b = 0; b < batch; ++b) {
      float* s = state.data() + b * memory * filters;
      for (uint64_t f = 0; f < filters; ++f) {
        float acc = 0.0f;
        for (uint64_t c = 0; c < input_size; ++c) acc += wf[f * input_size + c] * x[b * input_size + c];
        s[f * memory + memory - 1] = acc;
      }
      for (uint64_t u = 0; u < units; ++u) y[b * units + u] = bias[u];
      for (uint64_t f = 0; f < filters; ++f) {
        float dot = 0.0f;
        for (uint64_t m = 0; m < memory; ++m) dot += wt[f * memory + m] * s[f * memory + m];
        y[b * units + f / rank] += dot;
      }
      for (uint64_t f = 0; f < filters; ++f) {
        float* row = s + f * memory;
        std::copy(row + 1, row + memory, row);
        row[memory - 1] = 0.0f;
      }
    }
    const int32_t act = int_param(in[6]).value_or(0);
    for (float& v : y) v = activate(act, v);
    write_floats(*out[0], state);
    write_floats(*out[1], y);
    return {};
  }
};

// LSTM's inputs: 23, or 27 with the layer-normalisation weights (NNAPI 1.2).
LstmCellLayout lstm_layout(size_t inputs) {
  LstmCellLayout l;
  l.input_weights = {1, 2, 3, 4};
  l.recurrent_weights = {5, 6, 7, 8};
  l.peephole = {9, 10, 11};
  l.bias = {12, 13, 14, 15};
  l.projection_weights = 16;
  l.projection_bias = 17;
  l.output_state = 18;
  l.cell_state = 19;
  if (inputs == 27) l.layer_norm = {23, 24, 25, 26};
  return l;
}

// The activation code and the two clips of an LSTM (positions act, act + 1, act + 2); errors name them.
Result<void> check_lstm_params(std::span<const OperandInfo> in, size_t act_at, OperandType t) {
  if (auto r = expect_type(in, act_at, "activation", {OperandType::INT32}); !r) return make_error(r.error());
  const auto act = int_param(in[act_at]);
  if (act && *act != 0 && *act != 1 && *act != 3 && *act != 4 && *act != 6)
    return input_error(act_at, "activation", "must be 0, 1, 3, 4 or 6, got " + std::to_string(*act));
  const OperandType st = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  for (size_t i : {act_at + 1, act_at + 2}) {
    const char* role = i == act_at + 1 ? "cell clip" : "projection clip";
    if (auto r = expect_type(in, i, role, {st}); !r) return make_error(r.error());
    const auto v = float_param(in[i]);
    if (v && !(*v >= 0.0f)) return input_error(i, role, "must be >= 0");
  }
  return {};
}

class LstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 23 && in.size() != 27)
      return make_error("expected 23 inputs (27 with layer normalisation), got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    auto x = matrix(in, 0, "input", 0, 0, t);
    if (!x) return make_error(x.error());
    auto s = check_lstm_cell(in, lstm_layout(in.size()), t, x->second, x->first, false, 0);
    if (!s) return make_error(s.error());
    if (auto r = check_lstm_params(in, 20, t); !r) return make_error(r.error());
    if (auto r = expect_output_count(out, 4); !r) return make_error(r.error());
    for (size_t i = 0; i < 4; ++i) {
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    }
    uint32_t batch = x->first;
    for (size_t i : {size_t{18}, size_t{19}})
      if (batch == 0 && in[i].rank_known()) batch = in[i].dimensions[0];
    const uint64_t scratch = uint64_t{s->units} * (s->cifg ? 3 : 4);
    if (scratch > 0xffffffffu) return make_error("too many units");
    return std::vector<std::vector<uint32_t>>{{batch, static_cast<uint32_t>(scratch)},
                                              {batch, s->output_size},
                                              {batch, s->units},
                                              {batch, s->output_size}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint64_t batch = in[0].dimensions[0], input_size = in[0].dimensions[1];
    auto cell = read_lstm_cell(in, lstm_layout(in.size()), input_size, 0, int_param(in[20]).value_or(4),
                               float_param(in[21]).value_or(0.0f), float_param(in[22]).value_or(0.0f));
    if (!cell) return make_error(cell.error());
    const std::vector<float> x = read_floats(in[0]);
    std::vector<float> h = read_floats(in[18]), c = read_floats(in[19]), gates;
    if (!sizes_ok(x, batch * input_size) || !sizes_ok(h, batch * cell->shape.output_size) ||
        !sizes_ok(c, batch * cell->shape.units))
      return make_error("internal: LSTM operand sizes");
    lstm_step(*cell, batch, x, {}, &h, &c, &gates);
    write_floats(*out[0], gates);
    write_floats(*out[1], h);
    write_floats(*out[2], c);
    write_floats(*out[3], h);
    return {};
  }
};

}  // namespace

const OperationKernel& rnn_kernel() {
  static const RnnKernel kernel;
  return kernel;
}
const OperationKernel& svdf_kernel() {
  static const SvdfKernel kernel;
  return kernel;
}
const OperationKernel& lstm_kernel() {
  static const LstmKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
