// Recurrent operators: LSTM, unrolled over the sequence.

#include "importer.h"

namespace npu::models::onnx_import {

// ONNX LSTM (forward, default activations, no peepholes, clip or sequence lengths) unrolled over the
// sequence: one NNAPI LSTM per step. ONNX gate order i, o, f, c becomes NNAPI's input, forget, cell,
// output; the two ONNX bias halves are summed. Outputs Y [T, 1, B, H], Y_h and Y_c [1, B, H].
Result<void> Importer::on_lstm(const onnx::NodeProto& n) {
  if (attr_s(n, "direction", "forward") != "forward")
    return make_error("only direction \"forward\" is supported");
  if (attr_i(n, "layout", 0) != 0) return make_error("only layout 0 is supported");
  if (attr_i(n, "input_forget", 0) != 0) return make_error("input_forget is not supported");
  if (find_attr(n, "clip") || find_attr(n, "activations"))
    return make_error("clip and non-default activations are not supported");
  if (n.input_size() > 4 && !n.input(4).empty()) return make_error("sequence_lens is not supported");
  if (n.input_size() > 7 && !n.input(7).empty()) return make_error("peepholes (P) are not supported");
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 1, "W");
  if (!w) return make_error(w.error());
  auto r = const_input(n, 2, "R");
  if (!r) return make_error(r.error());
  const Value& xv = **x;
  const int64_t hidden = attr_i(n, "hidden_size", 0);
  if (xv.shape.size() != 3) return make_error("X must be [seq, batch, input]");
  const int64_t steps = xv.shape[0], batch = xv.shape[1], isz = xv.shape[2];
  if (hidden < 1 || w->dims != std::vector<int64_t>{1, 4 * hidden, isz} ||
      r->dims != std::vector<int64_t>{1, 4 * hidden, hidden})
    return make_error("W/R " + dims_string(w->dims) + "/" + dims_string(r->dims) +
                      " do not fit hidden_size " + std::to_string(hidden) + " and X " +
                      dims_string(xv.shape));
  std::vector<double> bias(static_cast<size_t>(8 * hidden), 0.0);
  if (auto b = input(n, 3, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != bias.size())
      return make_error("B must be a constant [1, 8·hidden]");
    bias = (*b)->c.v;
  }
  // ONNX gate g of {i, o, f, c} for NNAPI gate k of {input, forget, cell, output}.
  const int kOnnxGate[4] = {0, 2, 3, 1};
  auto gate_rows = [&](const HostTensor& m, int g, int64_t cols) {
    const auto first = m.v.begin() + static_cast<long>(g * hidden * cols);
    return add_const(OperandType::TENSOR_FLOAT32, {hidden, cols},
                     std::vector<double>(first, first + hidden * cols));
  };
  std::vector<uint32_t> wi, ri, bi;
  for (int k = 0; k < 4; ++k) {
    const int g = kOnnxGate[k];
    wi.push_back(gate_rows(*w, g, isz));
    ri.push_back(gate_rows(*r, g, hidden));
    std::vector<double> b(static_cast<size_t>(hidden));
    for (int64_t u = 0; u < hidden; ++u)
      b[static_cast<size_t>(u)] =
          bias[static_cast<size_t>(g * hidden + u)] + bias[static_cast<size_t>((4 + g) * hidden + u)];
    bi.push_back(add_const(OperandType::TENSOR_FLOAT32, {hidden}, b));
  }
  // Initial states [1, B, H] → [B, H] (zeros when absent).
  auto state = [&](int i) -> Result<uint32_t> {
    auto s = input(n, i, false);
    if (!s) return make_error(s.error());
    if (!*s)
      return add_const(OperandType::TENSOR_FLOAT32, {batch, hidden},
                       std::vector<double>(static_cast<size_t>(batch * hidden), 0.0));
    if ((*s)->shape != std::vector<int64_t>{1, batch, hidden})
      return make_error("initial state " + dims_string((*s)->shape) + " must be [1, batch, hidden]");
    auto v = reshape_ones(**s, {batch, hidden});
    if (!v) return make_error(v.error());
    return in_layout(*v, identity(2));
  };
  auto h = state(5);
  if (!h) return make_error(h.error());
  auto c = state(6);
  if (!c) return make_error(c.error());
  auto xin = in_layout(xv, identity(3));
  if (!xin) return make_error(xin.error());
  std::vector<uint32_t> ys;
  uint32_t hs = *h, cs = *c;
  for (int64_t t = 0; t < steps; ++t) {
    // x_t = X[t] as [B, I]: a shrinking STRIDED_SLICE, or a RESHAPE when there is one step.
    const uint32_t xt = temp(OperandType::TENSOR_FLOAT32, {batch, isz});
    if (steps == 1)
      op(OperationType::RESHAPE, {*xin, tensor_i32({static_cast<int32_t>(batch), static_cast<int32_t>(isz)})},
         {xt});
    else
      op(OperationType::STRIDED_SLICE,
         {*xin, tensor_i32({static_cast<int32_t>(t), 0, 0}),
          tensor_i32({static_cast<int32_t>(t + 1), static_cast<int32_t>(batch), static_cast<int32_t>(isz)}),
          tensor_i32({1, 1, 1}), scalar_i32(0), scalar_i32(0), scalar_i32(1)},
         {xt});
    const uint32_t scratch = temp(OperandType::TENSOR_FLOAT32, {batch, 4 * hidden});
    const uint32_t h_out = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    const uint32_t c_out = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    const uint32_t y = temp(OperandType::TENSOR_FLOAT32, {batch, hidden});
    std::vector<uint32_t> in = {xt, wi[0], wi[1], wi[2], wi[3], ri[0], ri[1], ri[2], ri[3]};
    for (int k = 0; k < 3; ++k) in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // peepholes
    in.insert(in.end(), bi.begin(), bi.end());
    in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // projection weights
    in.push_back(no_value(OperandType::TENSOR_FLOAT32));  // projection bias
    in.insert(in.end(), {hs, cs, scalar_i32(4), scalar_f32(0.0f), scalar_f32(0.0f)});
    op(OperationType::LSTM, in, {scratch, h_out, c_out, y});
    ys.push_back(y);
    hs = h_out;
    cs = c_out;
  }
  // Y [T, 1, B, H]: the step outputs stacked (a reshape when there is one step).
  const uint32_t y_all = temp(OperandType::TENSOR_FLOAT32, {steps, 1, batch, hidden});
  if (steps == 1) {
    op(OperationType::RESHAPE,
       {ys[0], tensor_i32({1, 1, static_cast<int32_t>(batch), static_cast<int32_t>(hidden)})}, {y_all});
  } else {
    std::vector<uint32_t> parts;
    for (uint32_t y : ys) {
      const uint32_t y4 = temp(OperandType::TENSOR_FLOAT32, {1, 1, batch, hidden});
      op(OperationType::RESHAPE,
         {y, tensor_i32({1, 1, static_cast<int32_t>(batch), static_cast<int32_t>(hidden)})}, {y4});
      parts.push_back(y4);
    }
    parts.push_back(scalar_i32(0));
    op(OperationType::CONCATENATION, parts, {y_all});
  }
  if (!n.output(0).empty()) define(n, 0, runtime(y_all, {steps, 1, batch, hidden}, identity(4)));
  for (int i = 1; i < 3 && i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    auto v = reshape_ones(runtime(i == 1 ? hs : cs, {batch, hidden}, identity(2)), {1, batch, hidden});
    if (!v) return make_error(v.error());
    define(n, i, std::move(*v));
  }
  return {};
}

}  // namespace npu::models::onnx_import
