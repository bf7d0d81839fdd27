// UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN (NNAPI 1.2; the final hidden-state
// outputs are NNAPI 1.3's). The RNN cell of every time step is RNN's: h_t = act(W·x_t + R·h_{t−1} + b),
// activation 0 none, 1 relu, 2 relu1, 3 relu6. Float32 and float16 (computed in float, rounded on the write).
//   UNIDIRECTIONAL: 0 input [max_time, batch, input_size] (time major) or [batch, max_time, input_size],
//     1 weights [units, input_size], 2 recurrent weights [units, units], 3 bias [units], 4 hidden state
//     [batch, units], 5 activation, 6 time major (INT32 0/1). Outputs 0 output [.., .., units] in the
//     input's layout, optional 1 final hidden state [batch, units].
//   BIDIRECTIONAL: 0 input, 1-4 forward weights, recurrent weights, bias, hidden state, 5-8 the backward
//     ones, 9 auxiliary input (optional, [.., .., aux_size] in the input's layout), 10, 11 forward and
//     backward auxiliary weights [units, aux_size] (optional), 12 activation, 13 time major (BOOL),
//     14 merge outputs (BOOL). The forward cell runs t = 0 … T−1, the backward cell T−1 … 0. With the
//     auxiliary input and weights (cross-linking) each cell adds aux_weights·aux_t; with the auxiliary
//     input but no weights (parallel linking) the backward cell reads the auxiliary input instead of
//     the input. Outputs: forward output [.., .., fw_units] and backward output, or with merging one
//     output [.., .., fw_units + bw_units] (forward first); then optionally the final forward and
//     backward hidden states.
#include "kernel_util.h"
#include "kernels.h"
#include "recurrent_util.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// [max_time, batch, size] shape facts of a sequence tensor (0 = unknown).
struct Seq {
  uint32_t time = 0, batch = 0, size = 0;
};

Result<Seq> sequence(std::span<const OperandInfo> in, size_t i, const char* role, OperandType t,
                     std::optional<bool> time_major) {
  if (auto r = expect_type(in, i, role, {t}); !r) return make_error(r.error());
  if (auto r = expect_rank(in[i], i, role, 3); !r) return make_error(r.error());
  Seq s;
  if (!in[i].rank_known() || !time_major) return s;
  const auto& d = in[i].dimensions;
  s.time = *time_major ? d[0] : d[1];
  s.batch = *time_major ? d[1] : d[0];
  s.size = d[2];
  return s;
}

std::vector<uint32_t> seq_shape(bool time_major, uint32_t time, uint32_t batch, uint32_t size) {
  return time_major ? std::vector<uint32_t>{time, batch, size} : std::vector<uint32_t>{batch, time, size};
}

// Element offset of [t, b, 0] in a sequence tensor of `size` per step.
uint64_t seq_at(bool time_major, uint64_t t, uint64_t b, uint64_t time, uint64_t batch, uint64_t size) {
  return (time_major ? t * batch + b : b * time + t) * size;
}

// One direction of a sequence RNN over all steps. `aux` and `aux_w` may be empty (no auxiliary term).
struct Cell {
  std::vector<float> w, r, b, h, aux_w;
  uint64_t units = 0;
};

void run_cell(Cell& c, const std::vector<float>& x, uint64_t input_size, const std::vector<float>& aux,
              uint64_t aux_size, bool time_major, uint64_t time, uint64_t batch, bool backward, int32_t act,
              std::vector<float>* out, uint64_t out_size, uint64_t out_offset) {
  std::vector<float> step(batch * c.units);
  std::vector<float> xt(batch * input_size), at(batch * aux_size);
  for (uint64_t k = 0; k < time; ++k) {
    const uint64_t t = backward ? time - 1 - k : k;
    for (uint64_t b = 0; b < batch; ++b) {
      const uint64_t xo = seq_at(time_major, t, b, time, batch, input_size);
      std::copy(x.begin() + xo, x.begin() + xo + input_size, xt.begin() + b * input_size);
      if (!c.aux_w.empty()) {
        const uint64_t ao = seq_at(time_major, t, b, time, batch, aux_size);
        std::copy(aux.begin() + ao, aux.begin() + ao + aux_size, at.begin() + b * aux_size);
      }
      for (uint64_t u = 0; u < c.units; ++u) step[b * c.units + u] = c.b[u];
    }
    matvec_acc(c.w, c.units, input_size, xt, batch, &step);
    if (!c.aux_w.empty()) matvec_acc(c.aux_w, c.units, aux_size, at, batch, &step);
    matvec_acc(c.r, c.units, c.units, c.h, batch, &step);
    for (float& v : step) v = activate(act, v);
    c.h = step;
    for (uint64_t b = 0; b < batch; ++b) {
      const uint64_t o = seq_at(time_major, t, b, time, batch, out_size) + out_offset;
      std::copy(step.begin() + b * c.units, step.begin() + (b + 1) * c.units, out->begin() + o);
    }
  }
}

class UnidirectionalSequenceRnnKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::UNIDIRECTIONAL_SEQUENCE_RNN; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 7) return make_error("expected 7 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    auto tm = int_param_in_range(in, 6, "time major", 0, 1);
    if (!tm) return make_error(tm.error());
    const std::optional<bool> time_major = *tm ? std::optional<bool>(**tm == 1) : std::nullopt;
    auto x = sequence(in, 0, "input", t, time_major);
    if (!x) return make_error(x.error());
    auto w = matrix(in, 1, "weights", 0, x->size, t);
    if (!w) return make_error(w.error());
    auto rw = matrix(in, 2, "recurrent weights", w->first, w->first, t);
    if (!rw) return make_error(rw.error());
    const uint32_t units = rw->first;
    if (auto b = vector(in, 3, "bias", units, t); !b) return make_error(b.error());
    auto h = matrix(in, 4, "hidden state", x->batch, units, t);
    if (!h) return make_error(h.error());
    if (auto a = int_param_in_range(in, 5, "fused activation", 0, 3); !a) return make_error(a.error());
    if (out.size() != 1 && out.size() != 2)
      return make_error("expected 1 output (or 2 with the final hidden state), got " +
                        std::to_string(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    std::vector<std::vector<uint32_t>> shapes;
    shapes.push_back(time_major ? seq_shape(*time_major, x->time, h->first, units)
                                : std::vector<uint32_t>{0, 0, units});
    if (out.size() == 2) shapes.push_back({h->first, units});
    return shapes;
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool time_major = int_param(in[6]).value_or(0) == 1;
    const auto& d = in[0].dimensions;
    const uint64_t time = time_major ? d[0] : d[1], batch = time_major ? d[1] : d[0], input_size = d[2];
    Cell c;
    c.units = in[1].dimensions[0];
    c.w = read_floats(in[1]);
    c.r = read_floats(in[2]);
    c.b = read_floats(in[3]);
    c.h = read_floats(in[4]);
    const std::vector<float> x = read_floats(in[0]);
    if (!sizes_ok(x, time * batch * input_size) || !sizes_ok(c.w, c.units * input_size) ||
        !sizes_ok(c.r, c.units * c.units) || !sizes_ok(c.b, c.units) || !sizes_ok(c.h, batch * c.units))
      return make_error("internal: UNIDIRECTIONAL_SEQUENCE_RNN operand sizes");
    std::vector<float> y(time * batch * c.units);
    run_cell(c, x, input_size, {}, 0, time_major, time, batch, false, int_param(in[5]).value_or(0), &y,
             c.units, 0);
    write_floats(*out[0], y);
    if (out.size() == 2) write_floats(*out[1], c.h);
    return {};
  }
};

class BidirectionalSequenceRnnKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::BIDIRECTIONAL_SEQUENCE_RNN; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 15) return make_error("expected 15 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    for (size_t i : {size_t{13}, size_t{14}})
      if (auto r = expect_type(in, i, i == 13 ? "time major" : "merge outputs", {OperandType::BOOL}); !r)
        return make_error(r.error());
    const std::optional<bool> time_major = bool_param(in[13]);
    const std::optional<bool> merge = bool_param(in[14]);
    auto x = sequence(in, 0, "input", t, time_major);
    if (!x) return make_error(x.error());
    const bool has_aux = !in[9].omitted();
    const bool fw_aux_w = !in[10].omitted(), bw_aux_w = !in[11].omitted();
    if (fw_aux_w != bw_aux_w)
      return input_error(fw_aux_w ? 11 : 10,
                         fw_aux_w ? "backward auxiliary weights" : "forward auxiliary weights",
                         "the auxiliary weights must be both present or both omitted");
    if (fw_aux_w && !has_aux) return input_error(9, "auxiliary input", "is required with auxiliary weights");
    Seq aux;
    if (has_aux) {
      auto a = sequence(in, 9, "auxiliary input", t, time_major);
      if (!a) return make_error(a.error());
      aux = *a;
      if ((aux.time && x->time && aux.time != x->time) || (aux.batch && x->batch && aux.batch != x->batch))
        return input_error(9, "auxiliary input", "must have the input's time steps and batches");
      if (!fw_aux_w && aux.size && x->size && aux.size != x->size)
        return input_error(9, "auxiliary input",
                           "feeds the backward cell (no auxiliary weights), so its size must be the input's");
    }
    uint32_t units[2] = {0, 0};
    for (int dir = 0; dir < 2; ++dir) {
      const size_t base = dir == 0 ? 1 : 5;
      const char* names[2][4] = {
          {"forward weights", "forward recurrent weights", "forward bias", "forward hidden state"},
          {"backward weights", "backward recurrent weights", "backward bias", "backward hidden state"}};
      const uint32_t cell_input = dir == 1 && has_aux && !fw_aux_w ? aux.size : x->size;
      auto w = matrix(in, base, names[dir][0], 0, cell_input, t);
      if (!w) return make_error(w.error());
      auto rw = matrix(in, base + 1, names[dir][1], w->first, w->first, t);
      if (!rw) return make_error(rw.error());
      units[dir] = rw->first;
      if (auto b = vector(in, base + 2, names[dir][2], units[dir], t); !b) return make_error(b.error());
      if (auto h = matrix(in, base + 3, names[dir][3], x->batch, units[dir], t); !h)
        return make_error(h.error());
      if (fw_aux_w) {
        auto aw = matrix(in, 10 + dir, dir ? "backward auxiliary weights" : "forward auxiliary weights",
                         units[dir], aux.size, t);
        if (!aw) return make_error(aw.error());
      }
    }
    if (auto a = int_param_in_range(in, 12, "fused activation", 0, 3); !a) return make_error(a.error());
    if (!merge) return make_error("input 14 (merge outputs): must be a constant");
    const size_t seq_outputs = *merge ? 1 : 2;
    if (out.size() != seq_outputs && out.size() != seq_outputs + 2)
      return make_error("expected " + std::to_string(seq_outputs) + " outputs (or " +
                        std::to_string(seq_outputs + 2) + " with the final hidden states), got " +
                        std::to_string(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    auto shape = [&](uint32_t n) {
      return time_major ? seq_shape(*time_major, x->time, x->batch, n) : std::vector<uint32_t>{0, 0, n};
    };
    const bool known = units[0] && units[1];
    std::vector<std::vector<uint32_t>> shapes;
    if (*merge) {
      shapes.push_back(shape(known ? units[0] + units[1] : 0));
    } else {
      shapes.push_back(shape(units[0]));
      shapes.push_back(shape(units[1]));
    }
    if (out.size() == seq_outputs + 2) {
      shapes.push_back({x->batch, units[0]});
      shapes.push_back({x->batch, units[1]});
    }
    return shapes;
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool time_major = bool_param(in[13]).value_or(false), merge = bool_param(in[14]).value_or(false);
    const auto& d = in[0].dimensions;
    const uint64_t time = time_major ? d[0] : d[1], batch = time_major ? d[1] : d[0], input_size = d[2];
    const bool has_aux = !in[9].omitted(), cross = !in[10].omitted();
    const std::vector<float> x = read_floats(in[0]);
    const std::vector<float> aux = has_aux ? read_floats(in[9]) : std::vector<float>{};
    const uint64_t aux_size = has_aux ? in[9].dimensions[2] : 0;
    if (!sizes_ok(x, time * batch * input_size) || !sizes_ok(aux, time * batch * aux_size))
      return make_error("internal: BIDIRECTIONAL_SEQUENCE_RNN input sizes");
    Cell cells[2];
    for (int dir = 0; dir < 2; ++dir) {
      const size_t base = dir == 0 ? 1 : 5;
      Cell& c = cells[dir];
      c.units = in[base].dimensions[0];
      c.w = read_floats(in[base]);
      c.r = read_floats(in[base + 1]);
      c.b = read_floats(in[base + 2]);
      c.h = read_floats(in[base + 3]);
      if (cross) c.aux_w = read_floats(in[10 + dir]);
      const uint64_t cin = in[base].dimensions[1];
      if (!sizes_ok(c.w, c.units * cin) || !sizes_ok(c.r, c.units * c.units) || !sizes_ok(c.b, c.units) ||
          !sizes_ok(c.h, batch * c.units) || (cross && !sizes_ok(c.aux_w, c.units * aux_size)))
        return make_error("internal: BIDIRECTIONAL_SEQUENCE_RNN weight sizes");
    }
    const int32_t act = int_param(in[12]).value_or(0);
    const uint64_t fw = cells[0].units, bw = cells[1].units;
    // Parallel linking: the backward cell reads the auxiliary input in place of the input.
    const bool parallel = has_aux && !cross;
    if (merge) {
      std::vector<float> y(time * batch * (fw + bw));
      run_cell(cells[0], x, input_size, aux, aux_size, time_major, time, batch, false, act, &y, fw + bw, 0);
      run_cell(cells[1], parallel ? aux : x, parallel ? aux_size : input_size, aux, aux_size, time_major,
               time, batch, true, act, &y, fw + bw, fw);
      write_floats(*out[0], y);
    } else {
      std::vector<float> yf(time * batch * fw), yb(time * batch * bw);
      run_cell(cells[0], x, input_size, aux, aux_size, time_major, time, batch, false, act, &yf, fw, 0);
      run_cell(cells[1], parallel ? aux : x, parallel ? aux_size : input_size, aux, aux_size, time_major,
               time, batch, true, act, &yb, bw, 0);
      write_floats(*out[0], yf);
      write_floats(*out[1], yb);
    }
    const size_t states = merge ? 1 : 2;
    if (out.size() == states + 2) {
      write_floats(*out[states], cells[0].h);
      write_floats(*out[states + 1], cells[1].h);
    }
    return {};
  }
};

}  // namespace

const OperationKernel& unidirectional_sequence_rnn_kernel() {
  static const UnidirectionalSequenceRnnKernel kernel;
  return kernel;
}
const OperationKernel& bidirectional_sequence_rnn_kernel() {
  static const BidirectionalSequenceRnnKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
