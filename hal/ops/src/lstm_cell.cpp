#include "lstm_cell.h"

#include <cmath>

#include "recurrent_util.h"

namespace npu::hal::ops::detail {

namespace {

constexpr const char* kGate[4] = {"input", "forget", "cell", "output"};

std::string role(const LstmCellLayout& l, const std::string& what) { return l.prefix + what; }

}  // namespace

Result<LstmCellShape> check_lstm_cell(std::span<const OperandInfo> in, const LstmCellLayout& l,
                                      models::OperandType t, uint32_t input_size, uint32_t batch,
                                      bool aux_input_present, uint32_t aux_size) {
  LstmCellShape s;
  const size_t iw0 = l.input_weights[0], rw0 = l.recurrent_weights[0], b0 = l.bias[0];
  s.cifg = in[iw0].omitted();
  if (s.cifg != in[rw0].omitted() || s.cifg != in[b0].omitted())
    return input_error(iw0, role(l, "input-to-input weights").c_str(),
                       "inputs " + std::to_string(iw0) + ", " + std::to_string(rw0) + " and " +
                           std::to_string(b0) + " must be all present or all omitted (CIFG)");
  std::array<std::string, 4> in_w, rec_w, bias, ln, aux_w;
  for (size_t g = 0; g < 4; ++g) {
    in_w[g] = role(l, std::string("input-to-") + kGate[g] + " weights");
    rec_w[g] = role(l, std::string("recurrent-to-") + kGate[g] + " weights");
    bias[g] = role(l, std::string(g == 2 ? "cell bias" : std::string(kGate[g]) + " gate bias"));
    ln[g] = role(l, std::string(kGate[g]) + " layer norm weights");
    aux_w[g] = role(l, std::string("auxiliary input-to-") + kGate[g] + " weights");
  }
  auto wf = matrix(in, l.input_weights[1], in_w[1].c_str(), 0, input_size, t);
  if (!wf) return make_error(wf.error());
  s.units = wf->first;
  for (size_t g = s.cifg ? 1 : 0; g < 4; ++g) {
    auto w = matrix(in, l.input_weights[g], in_w[g].c_str(), s.units, input_size, t);
    if (!w) return make_error(w.error());
    auto r = matrix(in, l.recurrent_weights[g], rec_w[g].c_str(), s.units, s.output_size, t);
    if (!r) return make_error(r.error());
    s.output_size = r->second;
    auto b = vector(in, l.bias[g], bias[g].c_str(), s.units, t);
    if (!b) return make_error(b.error());
  }
  static constexpr const char* kPeep[] = {"cell-to-input weights", "cell-to-forget weights",
                                          "cell-to-output weights"};
  s.peephole = !in[l.peephole[1]].omitted();
  for (size_t p = 0; p < 3; ++p) {
    const bool want = s.peephole && !(s.cifg && p == 0);
    const std::string name = role(l, kPeep[p]);
    if (in[l.peephole[p]].omitted() == want)
      return input_error(l.peephole[p], name.c_str(),
                         want ? "is required with peephole connections" : "must be omitted");
    if (want) {
      auto v = vector(in, l.peephole[p], name.c_str(), s.units, t);
      if (!v) return make_error(v.error());
    }
  }
  const std::string pw = role(l, "projection weights"), pb = role(l, "projection bias");
  uint32_t out_size = s.output_size;
  s.projection = !in[l.projection_weights].omitted();
  if (s.projection) {
    auto p = matrix(in, l.projection_weights, pw.c_str(), s.output_size, s.units, t);
    if (!p) return make_error(p.error());
    out_size = p->first;
    if (!in[l.projection_bias].omitted()) {
      auto v = vector(in, l.projection_bias, pb.c_str(), out_size, t);
      if (!v) return make_error(v.error());
    }
  } else if (!in[l.projection_bias].omitted()) {
    return input_error(l.projection_bias, pb.c_str(), "must be omitted without projection weights");
  } else if (s.units != 0 && s.output_size != 0 && s.units != s.output_size) {
    const size_t g = s.cifg ? 1 : 0;
    return input_error(l.recurrent_weights[g], rec_w[g].c_str(),
                       "output size must equal the number of units without a projection");
  }
  s.output_size = out_size;
  if (l.layer_norm[1] != kNone) {
    s.layer_norm = !in[l.layer_norm[1]].omitted();
    for (size_t g = 0; g < 4; ++g) {
      const bool want = s.layer_norm && !(s.cifg && g == 0);
      if (in[l.layer_norm[g]].omitted() == want)
        return input_error(l.layer_norm[g], ln[g].c_str(),
                           want ? "is required with layer normalisation" : "must be omitted");
      if (want) {
        auto v = vector(in, l.layer_norm[g], ln[g].c_str(), s.units, t);
        if (!v) return make_error(v.error());
      }
    }
  }
  if (l.aux_weights[1] != kNone) {
    s.aux = !in[l.aux_weights[1]].omitted();
    for (size_t g = 0; g < 4; ++g) {
      const bool want = s.aux && !(s.cifg && g == 0);
      if (in[l.aux_weights[g]].omitted() == want)
        return input_error(l.aux_weights[g], aux_w[g].c_str(),
                           want ? "is required with auxiliary weights" : "must be omitted");
      if (want) {
        auto v = matrix(in, l.aux_weights[g], aux_w[g].c_str(), s.units, aux_size, t);
        if (!v) return make_error(v.error());
      }
    }
    if (s.aux && !aux_input_present)
      return input_error(l.aux_weights[1], aux_w[1].c_str(), "needs the auxiliary input");
  }
  const std::string hs = role(l, "output state in"), cs = role(l, "cell state in");
  if (auto h = matrix(in, l.output_state, hs.c_str(), batch, s.output_size, t); !h)
    return make_error(h.error());
  if (auto c = matrix(in, l.cell_state, cs.c_str(), batch, s.units, t); !c) return make_error(c.error());
  return s;
}

Result<LstmCell> read_lstm_cell(std::span<const OperandInfo> in, const LstmCellLayout& l, uint64_t input_size,
                                uint64_t aux_size, int32_t activation, float cell_clip, float proj_clip) {
  LstmCell c;
  c.input_size = input_size;
  c.aux_size = aux_size;
  c.activation = activation;
  c.cell_clip = cell_clip;
  c.proj_clip = proj_clip;
  auto get = [&](size_t i) {
    return i == kNone || in[i].omitted() ? std::vector<float>{} : read_floats(in[i]);
  };
  LstmCellShape& s = c.shape;
  s.cifg = in[l.input_weights[0]].omitted();
  s.peephole = !in[l.peephole[1]].omitted();
  s.projection = !in[l.projection_weights].omitted();
  s.layer_norm = l.layer_norm[1] != kNone && !in[l.layer_norm[1]].omitted();
  s.aux = l.aux_weights[1] != kNone && !in[l.aux_weights[1]].omitted();
  s.units = in[l.input_weights[1]].dimensions[0];
  s.output_size = in[l.output_state].dimensions[1];
  const uint64_t units = s.units, rec = in[l.recurrent_weights[1]].dimensions[1];
  if (rec != s.output_size) return make_error("internal: LSTM output size");
  for (size_t g = s.cifg ? 1 : 0; g < 4; ++g) {
    c.w[g] = get(l.input_weights[g]);
    c.r[g] = get(l.recurrent_weights[g]);
    c.b[g] = get(l.bias[g]);
    if (c.w[g].size() < units * input_size || c.r[g].size() < units * rec || c.b[g].size() < units)
      return make_error("internal: LSTM weight sizes");
    if (s.layer_norm) {
      c.ln[g] = get(l.layer_norm[g]);
      if (c.ln[g].size() < units) return make_error("internal: LSTM layer norm sizes");
    }
    if (s.aux) {
      c.a[g] = get(l.aux_weights[g]);
      if (c.a[g].size() < units * aux_size) return make_error("internal: LSTM auxiliary weight sizes");
    }
  }
  if (s.peephole) {
    for (size_t p = s.cifg ? 1 : 0; p < 3; ++p) {
      c.p[p] = get(l.peephole[p]);
      if (c.p[p].size() < units) return make_error("internal: LSTM peephole sizes");
    }
  }
  if (s.projection) {
    c.proj_w = get(l.projection_weights);
    c.proj_b = get(l.projection_bias);
    if (c.proj_w.size() < s.output_size * units || (!c.proj_b.empty() && c.proj_b.size() < s.output_size))
      return make_error("internal: LSTM projection sizes");
  }
  return c;
}

void lstm_step(const LstmCell& cell, uint64_t batch, std::span<const float> x, std::span<const float> aux,
               std::vector<float>* h, std::vector<float>* c, std::vector<float>* gates) {
  const LstmCellShape& s = cell.shape;
  const uint64_t units = s.units, out_size = s.output_size;
  const std::vector<float> xv(x.begin(), x.end()), av(aux.begin(), aux.end()), hv = *h, cp = *c;
  // Gate pre-activations: 0 input, 1 forget, 2 cell, 3 output (output's peephole term comes later).
  std::vector<std::vector<float>> gate(4, std::vector<float>(batch * units, 0.0f));
  for (size_t g = s.cifg ? 1 : 0; g < 4; ++g) {
    if (!s.layer_norm)
      for (uint64_t i = 0; i < batch; ++i)
        for (uint64_t u = 0; u < units; ++u) gate[g][i * units + u] = cell.b[g][u];
    matvec_acc(cell.w[g], units, cell.input_size, xv, batch, &gate[g]);
    if (s.aux) matvec_acc(cell.a[g], units, cell.aux_size, av, batch, &gate[g]);
    matvec_acc(cell.r[g], units, out_size, hv, batch, &gate[g]);
  }
  auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  // Layer normalisation of one gate's row, then its weights and bias.
  auto normalise = [&](size_t g, uint64_t i) {
    float* row = gate[g].data() + i * units;
    float mean = 0.0f;
    for (uint64_t u = 0; u < units; ++u) mean += row[u];
    mean /= static_cast<float>(units);
    float var = 0.0f;
    for (uint64_t u = 0; u < units; ++u) var += (row[u] - mean) * (row[u] - mean);
    var /= static_cast<float>(units);
    const float inv = 1.0f / std::sqrt(var + 1e-8f);
    for (uint64_t u = 0; u < units; ++u) row[u] = (row[u] - mean) * inv * cell.ln[g][u] + cell.b[g][u];
  };
  std::vector<float> hidden(batch * units);
  for (uint64_t i = 0; i < batch; ++i) {
    for (uint64_t u = 0; u < units; ++u) {
      const uint64_t k = i * units + u;
      if (s.peephole) {
        if (!s.cifg) gate[0][k] += cell.p[0][u] * cp[k];
        gate[1][k] += cell.p[1][u] * cp[k];
      }
    }
    if (s.layer_norm)
      for (size_t g = s.cifg ? 1 : 0; g < 3; ++g) normalise(g, i);
    for (uint64_t u = 0; u < units; ++u) {
      const uint64_t k = i * units + u;
      const float fg = sigmoid(gate[1][k]);
      const float ig = s.cifg ? 1.0f - fg : sigmoid(gate[0][k]);
      const float cand = activate(cell.activation, gate[2][k]);
      float cv = fg * cp[k] + ig * cand;
      if (cell.cell_clip > 0.0f) cv = std::clamp(cv, -cell.cell_clip, cell.cell_clip);
      (*c)[k] = cv;
      if (s.peephole) gate[3][k] += cell.p[2][u] * cv;
      gate[0][k] = ig;
      gate[1][k] = fg;
      gate[2][k] = cand;
    }
    if (s.layer_norm) normalise(3, i);
    for (uint64_t u = 0; u < units; ++u) {
      const uint64_t k = i * units + u;
      gate[3][k] = sigmoid(gate[3][k]);
      hidden[k] = gate[3][k] * activate(cell.activation, (*c)[k]);
    }
  }
  if (s.projection) {
    std::vector<float> y(batch * out_size);
    for (uint64_t i = 0; i < batch; ++i)
      for (uint64_t o = 0; o < out_size; ++o)
        y[i * out_size + o] = cell.proj_b.empty() ? 0.0f : cell.proj_b[o];
    matvec_acc(cell.proj_w, out_size, units, hidden, batch, &y);
    if (cell.proj_clip > 0.0f)
      for (float& v : y) v = std::clamp(v, -cell.proj_clip, cell.proj_clip);
    *h = std::move(y);
  } else {
    *h = std::move(hidden);
  }
  if (gates) {
    gates->clear();
    for (size_t g : {size_t{0}, size_t{2}, size_t{1}, size_t{3}}) {
      if (s.cifg && g == 0) continue;
      gates->insert(gates->end(), gate[g].begin(), gate[g].end());
    }
  }
}

}  // namespace npu::hal::ops::detail
