// UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM (NNAPI 1.2; the final-state outputs are
// 1.3's): LSTM's float cell (lstm_cell.h: CIFG, peephole, projection, layer normalisation) run over
// every time step of a [max_time, batch, input_size] (time major) or [batch, max_time, input_size]
// sequence. Float32 and float16 (computed in float, rounded on the write).
//   UNIDIRECTIONAL: inputs 0-22 as LSTM's (input 0 the sequence), 23 time major (BOOL), 24-27 the
//     layer-normalisation weights (28 inputs; optional). Outputs 0 output [.., .., output_size], and
//     optionally 1 final output state, 2 final cell state.
//   BIDIRECTIONAL (61 inputs): 0 input; 1-17 the forward cell (input-to-* 1-4, recurrent-to-* 5-8,
//     peephole 9-11, biases 12-15, projection 16, 17); 18-34 the backward cell likewise; 35, 36 forward
//     output and cell state; 37, 38 backward ones; 39 auxiliary input (optional); 40-43 forward and
//     44-47 backward auxiliary input-to-* weights (optional); 48 activation, 49 cell clip, 50 projection
//     clip, 51 merge outputs (BOOL), 52 time major (BOOL); 53-56 forward and 57-60 backward layer-norm
//     weights (optional). The backward cell runs t = T−1 … 0. With auxiliary weights (cross-linking)
//     both cells add A·aux_t; with the auxiliary input but no weights (parallel linking) the backward
//     cell reads the auxiliary input instead of the input. Outputs: forward and backward outputs, or one
//     merged [.., .., fw_out + bw_out] (forward first); then optionally forward output state, forward
//     cell state, backward output state, backward cell state.
#include "kernel_util.h"
#include "kernels.h"
#include "lstm_cell.h"
#include "recurrent_util.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

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

std::vector<uint32_t> seq_shape(std::optional<bool> time_major, uint32_t time, uint32_t batch,
                                uint32_t size) {
  if (!time_major) return {0, 0, size};
  return *time_major ? std::vector<uint32_t>{time, batch, size} : std::vector<uint32_t>{batch, time, size};
}

uint64_t seq_at(bool time_major, uint64_t t, uint64_t b, uint64_t time, uint64_t batch, uint64_t size) {
  return (time_major ? t * batch + b : b * time + t) * size;
}

// The activation code and the two clips (act_at, act_at + 1, act_at + 2), as LSTM checks them.
Result<void> check_params(std::span<const OperandInfo> in, size_t act_at, OperandType t) {
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

// Runs `cell` over the sequence; `out` [.., .., out_stride] receives h at column `out_offset`.
void run_sequence(const LstmCell& cell, const std::vector<float>& x, uint64_t x_size,
                  const std::vector<float>& aux, bool time_major, uint64_t time, uint64_t batch,
                  bool backward, std::vector<float>* h, std::vector<float>* c, std::vector<float>* out,
                  uint64_t out_stride, uint64_t out_offset) {
  const uint64_t out_size = cell.shape.output_size;
  std::vector<float> xt(batch * x_size), at(batch * cell.aux_size);
  for (uint64_t k = 0; k < time; ++k) {
    const uint64_t t = backward ? time - 1 - k : k;
    for (uint64_t b = 0; b < batch; ++b) {
      const uint64_t xo = seq_at(time_major, t, b, time, batch, x_size);
      std::copy(x.begin() + xo, x.begin() + xo + x_size, xt.begin() + b * x_size);
      if (cell.shape.aux) {
        const uint64_t ao = seq_at(time_major, t, b, time, batch, cell.aux_size);
        std::copy(aux.begin() + ao, aux.begin() + ao + cell.aux_size, at.begin() + b * cell.aux_size);
      }
    }
    lstm_step(cell, batch, xt, cell.shape.aux ? std::span<const float>(at) : std::span<const float>(), h, c,
              nullptr);
    for (uint64_t b = 0; b < batch; ++b) {
      const uint64_t o = seq_at(time_major, t, b, time, batch, out_stride) + out_offset;
      std::copy(h->begin() + b * out_size, h->begin() + (b + 1) * out_size, out->begin() + o);
    }
  }
}

LstmCellLayout uni_layout(size_t inputs) {
  LstmCellLayout l;
  l.input_weights = {1, 2, 3, 4};
  l.recurrent_weights = {5, 6, 7, 8};
  l.peephole = {9, 10, 11};
  l.bias = {12, 13, 14, 15};
  l.projection_weights = 16;
  l.projection_bias = 17;
  l.output_state = 18;
  l.cell_state = 19;
  if (inputs == 28) l.layer_norm = {24, 25, 26, 27};
  return l;
}

class UnidirectionalSequenceLstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 24 && in.size() != 28)
      return make_error("expected 24 inputs (28 with layer normalisation), got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    if (auto r = expect_type(in, 23, "time major", {OperandType::BOOL}); !r) return make_error(r.error());
    const std::optional<bool> time_major = bool_param(in[23]);
    auto x = sequence(in, 0, "input", t, time_major);
    if (!x) return make_error(x.error());
    auto s = check_lstm_cell(in, uni_layout(in.size()), t, x->size, x->batch, false, 0);
    if (!s) return make_error(s.error());
    if (auto r = check_params(in, 20, t); !r) return make_error(r.error());
    if (out.size() != 1 && out.size() != 3)
      return make_error("expected 1 output (or 3 with the final states), got " + std::to_string(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    std::vector<std::vector<uint32_t>> shapes{seq_shape(time_major, x->time, x->batch, s->output_size)};
    if (out.size() == 3) {
      shapes.push_back({x->batch, s->output_size});
      shapes.push_back({x->batch, s->units});
    }
    return shapes;
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool time_major = bool_param(in[23]).value_or(false);
    const auto& d = in[0].dimensions;
    const uint64_t time = time_major ? d[0] : d[1], batch = time_major ? d[1] : d[0], input_size = d[2];
    auto cell = read_lstm_cell(in, uni_layout(in.size()), input_size, 0, int_param(in[20]).value_or(4),
                               float_param(in[21]).value_or(0.0f), float_param(in[22]).value_or(0.0f));
    if (!cell) return make_error(cell.error());
    const std::vector<float> x = read_floats(in[0]);
    std::vector<float> h = read_floats(in[18]), c = read_floats(in[19]);
    const uint64_t out_size = cell->shape.output_size;
    if (!sizes_ok(x, time * batch * input_size) || !sizes_ok(h, batch * out_size) ||
        !sizes_ok(c, batch * cell->shape.units))
      return make_error("internal: UNIDIRECTIONAL_SEQUENCE_LSTM operand sizes");
    std::vector<float> y(time * batch * out_size);
    run_sequence(*cell, x, input_size, {}, time_major, time, batch, false, &h, &c, &y, out_size, 0);
    write_floats(*out[0], y);
    if (out.size() == 3) {
      write_floats(*out[1], h);
      write_floats(*out[2], c);
    }
    return {};
  }
};

constexpr size_t kBiAux = 39, kBiAct = 48, kBiMerge = 51, kBiTimeMajor = 52;

LstmCellLayout bi_layout(bool forward) {
  LstmCellLayout l;
  const size_t o = forward ? 0 : 17;
  l.input_weights = {1 + o, 2 + o, 3 + o, 4 + o};
  l.recurrent_weights = {5 + o, 6 + o, 7 + o, 8 + o};
  l.peephole = {9 + o, 10 + o, 11 + o};
  l.bias = {12 + o, 13 + o, 14 + o, 15 + o};
  l.projection_weights = 16 + o;
  l.projection_bias = 17 + o;
  l.output_state = forward ? 35 : 37;
  l.cell_state = forward ? 36 : 38;
  const size_t a = forward ? 40 : 44, n = forward ? 53 : 57;
  l.aux_weights = {a, a + 1, a + 2, a + 3};
  l.layer_norm = {n, n + 1, n + 2, n + 3};
  l.prefix = forward ? "forward " : "backward ";
  return l;
}

class BidirectionalSequenceLstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::BIDIRECTIONAL_SEQUENCE_LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 61) return make_error("expected 61 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    if (auto r = expect_type(in, kBiMerge, "merge outputs", {OperandType::BOOL}); !r)
      return make_error(r.error());
    if (auto r = expect_type(in, kBiTimeMajor, "time major", {OperandType::BOOL}); !r)
      return make_error(r.error());
    const std::optional<bool> time_major = bool_param(in[kBiTimeMajor]);
    const std::optional<bool> merge = bool_param(in[kBiMerge]);
    if (!merge) return input_error(kBiMerge, "merge outputs", "must be a constant");
    auto x = sequence(in, 0, "input", t, time_major);
    if (!x) return make_error(x.error());
    const bool has_aux = !in[kBiAux].omitted();
    Seq aux;
    if (has_aux) {
      auto a = sequence(in, kBiAux, "auxiliary input", t, time_major);
      if (!a) return make_error(a.error());
      aux = *a;
      if ((aux.time && x->time && aux.time != x->time) || (aux.batch && x->batch && aux.batch != x->batch))
        return input_error(kBiAux, "auxiliary input", "must have the input's time steps and batches");
    }
    auto fw = check_lstm_cell(in, bi_layout(true), t, x->size, x->batch, has_aux, aux.size);
    if (!fw) return make_error(fw.error());
    // Parallel linking: the backward cell's input is the auxiliary input.
    const bool parallel = has_aux && !fw->aux;
    auto bw =
        check_lstm_cell(in, bi_layout(false), t, parallel ? aux.size : x->size, x->batch, has_aux, aux.size);
    if (!bw) return make_error(bw.error());
    if (fw->aux != bw->aux)
      return input_error(
          fw->aux ? 44 : 40,
          fw->aux ? "backward auxiliary input-to-input weights" : "forward auxiliary input-to-input weights",
          "the forward and backward auxiliary weights must be both present or both omitted");
    if (auto r = check_params(in, kBiAct, t); !r) return make_error(r.error());
    const size_t seq_outputs = *merge ? 1 : 2;
    if (out.size() != seq_outputs && out.size() != seq_outputs + 4)
      return make_error("expected " + std::to_string(seq_outputs) + " outputs (or " +
                        std::to_string(seq_outputs + 4) + " with the final states), got " +
                        std::to_string(out.size()));
    for (size_t i = 0; i < out.size(); ++i)
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    std::vector<std::vector<uint32_t>> shapes;
    if (*merge) {
      const bool known = fw->output_size && bw->output_size;
      shapes.push_back(
          seq_shape(time_major, x->time, x->batch, known ? fw->output_size + bw->output_size : 0));
    } else {
      shapes.push_back(seq_shape(time_major, x->time, x->batch, fw->output_size));
      shapes.push_back(seq_shape(time_major, x->time, x->batch, bw->output_size));
    }
    if (out.size() == seq_outputs + 4) {
      shapes.push_back({x->batch, fw->output_size});
      shapes.push_back({x->batch, fw->units});
      shapes.push_back({x->batch, bw->output_size});
      shapes.push_back({x->batch, bw->units});
    }
    return shapes;
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const bool time_major = bool_param(in[kBiTimeMajor]).value_or(false);
    const bool merge = bool_param(in[kBiMerge]).value_or(false);
    const auto& d = in[0].dimensions;
    const uint64_t time = time_major ? d[0] : d[1], batch = time_major ? d[1] : d[0], input_size = d[2];
    const bool has_aux = !in[kBiAux].omitted();
    const uint64_t aux_size = has_aux ? in[kBiAux].dimensions[2] : 0;
    const std::vector<float> x = read_floats(in[0]);
    const std::vector<float> aux = has_aux ? read_floats(in[kBiAux]) : std::vector<float>{};
    if (!sizes_ok(x, time * batch * input_size) || !sizes_ok(aux, time * batch * aux_size))
      return make_error("internal: BIDIRECTIONAL_SEQUENCE_LSTM input sizes");
    const int32_t act = int_param(in[kBiAct]).value_or(4);
    const float cell_clip = float_param(in[kBiAct + 1]).value_or(0.0f);
    const float proj_clip = float_param(in[kBiAct + 2]).value_or(0.0f);
    const bool cross = has_aux && !in[41].omitted();
    const bool parallel = has_aux && !cross;
    auto fw = read_lstm_cell(in, bi_layout(true), input_size, aux_size, act, cell_clip, proj_clip);
    if (!fw) return make_error(fw.error());
    auto bw = read_lstm_cell(in, bi_layout(false), parallel ? aux_size : input_size, aux_size, act, cell_clip,
                             proj_clip);
    if (!bw) return make_error(bw.error());
    std::vector<float> hf = read_floats(in[35]), cf = read_floats(in[36]), hb = read_floats(in[37]),
                       cb = read_floats(in[38]);
    const uint64_t fo = fw->shape.output_size, bo = bw->shape.output_size;
    if (!sizes_ok(hf, batch * fo) || !sizes_ok(cf, batch * fw->shape.units) || !sizes_ok(hb, batch * bo) ||
        !sizes_ok(cb, batch * bw->shape.units))
      return make_error("internal: BIDIRECTIONAL_SEQUENCE_LSTM state sizes");
    const std::vector<float>& bw_in = parallel ? aux : x;
    const uint64_t bw_in_size = parallel ? aux_size : input_size;
    if (merge) {
      std::vector<float> y(time * batch * (fo + bo));
      run_sequence(*fw, x, input_size, aux, time_major, time, batch, false, &hf, &cf, &y, fo + bo, 0);
      run_sequence(*bw, bw_in, bw_in_size, aux, time_major, time, batch, true, &hb, &cb, &y, fo + bo, fo);
      write_floats(*out[0], y);
    } else {
      std::vector<float> yf(time * batch * fo), yb(time * batch * bo);
      run_sequence(*fw, x, input_size, aux, time_major, time, batch, false, &hf, &cf, &yf, fo, 0);
      run_sequence(*bw, bw_in, bw_in_size, aux, time_major, time, batch, true, &hb, &cb, &yb, bo, 0);
      write_floats(*out[0], yf);
      write_floats(*out[1], yb);
    }
    const size_t states = merge ? 1 : 2;
    if (out.size() == states + 4) {
      write_floats(*out[states], hf);
      write_floats(*out[states + 1], cf);
      write_floats(*out[states + 2], hb);
      write_floats(*out[states + 3], cb);
    }
    return {};
  }
};

}  // namespace

const OperationKernel& unidirectional_sequence_lstm_kernel() {
  static const UnidirectionalSequenceLstmKernel kernel;
  return kernel;
}
const OperationKernel& bidirectional_sequence_lstm_kernel() {
  static const BidirectionalSequenceLstmKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
