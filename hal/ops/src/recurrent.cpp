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
//     clip, 22 projection clip (0 = none); optional 23-26 layer-norm weights are not supported. CIFG
//     (coupled input/forget) when inputs 1, 5 and 12 are omitted. Outputs 0 scratch [batch, units * 4]
//     (* 3 with CIFG; gate values input, cell, forget, output — not compared by NNAPI's CTS), 1 output
//     state out, 2 cell state out, 3 output. Gates use the logistic function; the cell input and the
//     output use the activation (0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid).
#include <algorithm>
#include <cmath>

#include "kernel_util.h"
#include "kernels.h"
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

class LstmKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::LSTM; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 23)
      return make_error("expected 23 inputs, got " + std::to_string(in.size()) +
                        (in.size() == 27 ? " (layer normalisation is not supported)" : ""));
    if (auto r = expect_type(in, 0, "input", kFloatTypes); !r) return make_error(r.error());
    const OperandType t = in[0].type;
    auto x = matrix(in, 0, "input", 0, 0, t);
    if (!x) return make_error(x.error());
    const bool cifg = in[1].omitted();
    if (cifg != in[5].omitted() || cifg != in[12].omitted())
      return input_error(1, "input-to-input weights",
                         "inputs 1, 5 and 12 must be all present or all omitted (CIFG)");
    auto wf = matrix(in, 2, "input-to-forget weights", 0, x->second, t);
    if (!wf) return make_error(wf.error());
    const uint32_t units = wf->first;
    static constexpr const char* kInW[] = {"input-to-input weights", "input-to-forget weights",
                                           "input-to-cell weights", "input-to-output weights"};
    static constexpr const char* kRecW[] = {"recurrent-to-input weights", "recurrent-to-forget weights",
                                            "recurrent-to-cell weights", "recurrent-to-output weights"};
    static constexpr const char* kBias[] = {"input gate bias", "forget gate bias", "cell bias",
                                            "output gate bias"};
    uint32_t output_size = 0;
    for (size_t g = cifg ? 1 : 0; g < 4; ++g) {
      auto w = matrix(in, 1 + g, kInW[g], units, x->second, t);
      if (!w) return make_error(w.error());
      auto r = matrix(in, 5 + g, kRecW[g], units, output_size, t);
      if (!r) return make_error(r.error());
      output_size = r->second;
      auto b = vector(in, 12 + g, kBias[g], units, t);
      if (!b) return make_error(b.error());
    }
    static constexpr const char* kPeep[] = {"cell-to-input weights", "cell-to-forget weights",
                                            "cell-to-output weights"};
    const bool peephole = !in[10].omitted();
    for (size_t p = 0; p < 3; ++p) {
      const bool want = peephole && !(cifg && p == 0);
      if (in[9 + p].omitted() == want)
        return input_error(9 + p, kPeep[p],
                           want ? "is required with peephole connections" : "must be omitted");
      if (want) {
        auto v = vector(in, 9 + p, kPeep[p], units, t);
        if (!v) return make_error(v.error());
      }
    }
    uint32_t out_size = output_size;
    if (!in[16].omitted()) {
      auto p = matrix(in, 16, "projection weights", output_size, units, t);
      if (!p) return make_error(p.error());
      out_size = p->first;
      if (!in[17].omitted()) {
        auto pb = vector(in, 17, "projection bias", out_size, t);
        if (!pb) return make_error(pb.error());
      }
    } else if (!in[17].omitted()) {
      return input_error(17, "projection bias", "must be omitted without projection weights");
    } else if (units != 0 && output_size != 0 && units != output_size) {
      return input_error(5 + (cifg ? 1 : 0), kRecW[cifg ? 1 : 0],
                         "output size must equal the number of units without a projection");
    }
    auto hs = matrix(in, 18, "output state in", x->first, out_size, t);
    if (!hs) return make_error(hs.error());
    auto cs = matrix(in, 19, "cell state in", x->first, units, t);
    if (!cs) return make_error(cs.error());
    auto act = int_param(in[20]);
    if (auto r = expect_type(in, 20, "activation", {OperandType::INT32}); !r) return make_error(r.error());
    if (act && *act != 0 && *act != 1 && *act != 3 && *act != 4 && *act != 6)
      return input_error(20, "activation", "must be 0, 1, 3, 4 or 6, got " + std::to_string(*act));
    const OperandType st = t == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    for (size_t i : {size_t{21}, size_t{22}}) {
      const char* role = i == 21 ? "cell clip" : "projection clip";
      if (auto r = expect_type(in, i, role, {st}); !r) return make_error(r.error());
      const auto v = float_param(in[i]);
      if (v && !(*v >= 0.0f)) return input_error(i, role, "must be >= 0");
    }
    if (auto r = expect_output_count(out, 4); !r) return make_error(r.error());
    for (size_t i = 0; i < 4; ++i) {
      if (auto r = expect_output_type(out, i, t); !r) return make_error(r.error());
    }
    const uint32_t batch = hs->first != 0 ? hs->first : cs->first;
    const uint64_t scratch = uint64_t{units} * (cifg ? 3 : 4);
    if (scratch > 0xffffffffu) return make_error("too many units");
    return std::vector<std::vector<uint32_t>>{
        {batch, static_cast<uint32_t>(scratch)}, {batch, out_size}, {batch, units}, {batch, out_size}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint64_t batch = in[0].dimensions[0], input_size = in[0].dimensions[1];
    const uint64_t units = in[2].dimensions[0];
    const uint64_t recurrent_size = in[6].dimensions[1];
    const uint64_t out_size = in[18].dimensions[1];
    const bool cifg = in[1].omitted();
    const bool peephole = !in[10].omitted();
    const bool projection = !in[16].omitted();
    if (recurrent_size != out_size) return make_error("internal: LSTM output size");
    auto get = [&](size_t i) { return in[i].omitted() ? std::vector<float>{} : read_floats(in[i]); };
    const std::vector<float> x = get(0), h = get(18), c_prev = get(19);
    if (!sizes_ok(x, batch * input_size) || !sizes_ok(h, batch * out_size) ||
        !sizes_ok(c_prev, batch * units))
      return make_error("internal: LSTM operand sizes");
    // Gate pre-activations: 0 input, 1 forget, 2 cell, 3 output.
    std::vector<std::vector<float>> gate(4, std::vector<float>(batch * units, 0.0f));
    for (size_t g = cifg ? 1 : 0; g < 4; ++g) {
      const std::vector<float> w = get(1 + g), r = get(5 + g), b = get(12 + g);
      if (!sizes_ok(w, units * input_size) || !sizes_ok(r, units * out_size) || !sizes_ok(b, units))
        return make_error("internal: LSTM weight sizes");
      for (uint64_t i = 0; i < batch; ++i)
        for (uint64_t u = 0; u < units; ++u) gate[g][i * units + u] = b[u];
      matvec_acc(w, units, input_size, x, batch, &gate[g]);
      matvec_acc(r, units, out_size, h, batch, &gate[g]);
    }
    const std::vector<float> pi = peephole && !cifg ? get(9) : std::vector<float>{};
    const std::vector<float> pf = peephole ? get(10) : std::vector<float>{};
    const std::vector<float> po = peephole ? get(11) : std::vector<float>{};
    if (peephole && (!sizes_ok(pf, units) || !sizes_ok(po, units) || (!cifg && !sizes_ok(pi, units))))
      return make_error("internal: LSTM peephole sizes");
    const int32_t act = int_param(in[20]).value_or(4);
    const float cell_clip = float_param(in[21]).value_or(0.0f);
    const float proj_clip = float_param(in[22]).value_or(0.0f);
    auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    std::vector<float> c(batch * units), hidden(batch * units);
    for (uint64_t i = 0; i < batch; ++i)
      for (uint64_t u = 0; u < units; ++u) {
        const uint64_t k = i * units + u;
        const float cp = c_prev[k];
        float fg = gate[1][k] + (peephole ? pf[u] * cp : 0.0f);
        fg = sigmoid(fg);
        float ig = cifg ? 1.0f - fg : sigmoid(gate[0][k] + (peephole ? pi[u] * cp : 0.0f));
        const float cand = activate(act, gate[2][k]);
        float cell = fg * cp + ig * cand;
        if (cell_clip > 0.0f) cell = std::clamp(cell, -cell_clip, cell_clip);
        const float og = sigmoid(gate[3][k] + (peephole ? po[u] * cell : 0.0f));
        c[k] = cell;
        hidden[k] = og * activate(act, cell);
        gate[0][k] = ig;
        gate[1][k] = fg;
        gate[2][k] = cand;
        gate[3][k] = og;
      }
    std::vector<float> y(batch * out_size);
    if (projection) {
      const std::vector<float> p = get(16), pb = get(17);
      if (!sizes_ok(p, out_size * units) || (!in[17].omitted() && !sizes_ok(pb, out_size)))
        return make_error("internal: LSTM projection sizes");
      for (uint64_t i = 0; i < batch; ++i)
        for (uint64_t o = 0; o < out_size; ++o) y[i * out_size + o] = pb.empty() ? 0.0f : pb[o];
      matvec_acc(p, out_size, units, hidden, batch, &y);
      if (proj_clip > 0.0f) {
        for (float& v : y) v = std::clamp(v, -proj_clip, proj_clip);
      }
    } else {
      y = hidden;
    }
    // Scratch: the gate values in NNAPI's order input, cell, forget, output (input absent with CIFG).
    std::vector<float> scratch;
    for (size_t g : {size_t{0}, size_t{2}, size_t{1}, size_t{3}}) {
      if (cifg && g == 0) continue;
      scratch.insert(scratch.end(), gate[g].begin(), gate[g].end());
    }
    write_floats(*out[0], scratch);
    write_floats(*out[1], y);
    write_floats(*out[2], c);
    write_floats(*out[3], y);
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
