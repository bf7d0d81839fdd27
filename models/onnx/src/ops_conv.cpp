// Convolution and matrix operators: Conv (1-D and 2-D), BatchNormalization, Gemm, MatMul, QLinearConv,
// QLinearMatMul.

#include <algorithm>
#include <cmath>
#include <optional>

#include "importer.h"

namespace npu::models::onnx_import {

Result<Value> Importer::conv(const Value& x, const HostTensor& w, const std::vector<double>& bias,
                             int64_t group, const Window& win, const QuantConv* q) {
  const int64_t c = x.shape[1], m = w.dims[0], cg = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  auto xin = in_layout(x, kNhwc);  // a constant X becomes an operand here: only then has it one
  if (!xin) return make_error(xin.error());
  const float x_scale = operand(*xin).scale;
  const std::vector<int64_t> out_shape = {x.shape[0], m, win.out_h, win.out_w};
  const OperandType out_type = operand(*xin).type;
  const bool depthwise = group == c && cg == 1 && group != 1;
  if (group == 1 || depthwise) {
    // ONNX [M, C/g, kh, kw] → NNAPI CONV_2D [M, kh, kw, C] or DEPTHWISE_CONV_2D [1, kh, kw, M]
    // (depth multiplier M / C); the output channel is dimension 0 or 3 of the filter.
    const HostTensor f = transpose(w, depthwise ? Perm{1, 2, 3, 0} : Perm{0, 2, 3, 1});
    const uint32_t channel_dim = depthwise ? 3 : 0;
    uint32_t filter = 0, b = 0;
    if (q == nullptr) {
      filter = add_const(OperandType::TENSOR_FLOAT32, f.dims, f.v);
      b = add_const(OperandType::TENSOR_FLOAT32, {m}, bias);
    } else if (q->w_scales.size() > 1 || q->filter_type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      filter = add_const(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, f.dims, f.v);
      PerChannelQuant pc;
      pc.channel_dim = channel_dim;
      pc.scales =
          q->w_scales.size() == 1 ? std::vector<float>(static_cast<size_t>(m), q->w_scales[0]) : q->w_scales;
      model_.main.operands[filter].per_channel = std::move(pc);
      b = add_const(OperandType::TENSOR_INT32, {m}, bias);  // scale 0: input scale × channel scale
    } else {
      filter = add_const(q->filter_type, f.dims, f.v, q->w_scales[0], q->w_zp);
      b = add_const(OperandType::TENSOR_INT32, {m}, bias, x_scale * q->w_scales[0]);
    }
    const uint32_t out = temp(out_type, nnapi_dims(out_shape, kNhwc), q ? q->y_scale : 0.0f, q ? q->y_zp : 0);
    std::vector<uint32_t> in = {*xin, filter, b};
    for (int64_t v : {win.pl, win.pr, win.pt, win.pb, win.sw, win.sh})
      in.push_back(scalar_i32(static_cast<int32_t>(v)));
    if (depthwise) in.push_back(scalar_i32(static_cast<int32_t>(m / c)));
    const int act = static_cast<int>(in.size());
    in.push_back(scalar_i32(0));
    if (win.dh != 1 || win.dw != 1) {
      in.push_back(add_const(OperandType::BOOL, {}, {0}));
      in.push_back(scalar_i32(static_cast<int32_t>(win.dw)));
      in.push_back(scalar_i32(static_cast<int32_t>(win.dh)));
    }
    op(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, in, {out}, act);
    if (q == nullptr) convs_[out] = {filter, b, channel_dim};
    return runtime(out, out_shape, kNhwc);
  }
  if (q != nullptr) return make_error("grouped quantised convolution is not supported");
  // Grouped: NNAPI 1.1 has no GROUPED_CONV_2D kernel on the CPU reference, so each group is a channel
  // slice (STRIDED_SLICE), a CONV_2D the NPU can run, and the groups are concatenated.
  const int64_t mg = m / group;
  std::vector<uint32_t> parts;
  const auto xd = nnapi_dims(x.shape, kNhwc);
  for (int64_t g = 0; g < group; ++g) {
    const uint32_t slice = temp(OperandType::TENSOR_FLOAT32, {xd[0], xd[1], xd[2], cg});
    op(OperationType::STRIDED_SLICE,
       {*xin, tensor_i32({0, 0, 0, static_cast<int32_t>(g * cg)}),
        tensor_i32({static_cast<int32_t>(xd[0]), static_cast<int32_t>(xd[1]), static_cast<int32_t>(xd[2]),
                    static_cast<int32_t>((g + 1) * cg)}),
        tensor_i32({1, 1, 1, 1}), scalar_i32(0), scalar_i32(0), scalar_i32(0)},
       {slice});
    HostTensor wg;
    wg.dims = {mg, cg, kh, kw};
    const uint64_t per = static_cast<uint64_t>(mg * cg * kh * kw);
    wg.v.assign(w.v.begin() + static_cast<long>(g * per), w.v.begin() + static_cast<long>((g + 1) * per));
    const std::vector<double> bg(bias.begin() + g * mg, bias.begin() + (g + 1) * mg);
    Value xs = runtime(slice, {x.shape[0], cg, x.shape[2], x.shape[3]}, kNhwc);
    auto part = conv(xs, wg, bg, 1, win);
    if (!part) return make_error(part.error());
    parts.push_back(part->operand);
  }
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims(out_shape, kNhwc));
  parts.push_back(scalar_i32(3));
  op(OperationType::CONCATENATION, parts, {out});
  return runtime(out, out_shape, kNhwc);
}

Result<void> Importer::on_conv(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 1, "W");
  if (!w) return make_error(w.error());
  const bool one_d = (*x)->shape.size() == 3 && w->dims.size() == 3;
  if (!one_d && ((*x)->shape.size() != 4 || w->dims.size() != 4))
    return make_error("only 1-D and 2-D convolution (rank-3 or rank-4 X and W) is supported");
  // A constant X has no operand yet (operand 0 may not exist): only a runtime X is checked.
  if (!(*x)->is_const && operand((*x)->operand).type != OperandType::TENSOR_FLOAT32)
    return make_error("X must be float (quantised convolution is QLinearConv)");
  const int64_t group = attr_i(n, "group", 1);
  const int64_t c = (*x)->shape[1], m = w->dims[0];
  if (group < 1 || c % group != 0 || m % group != 0 || w->dims[1] * group != c)
    return make_error("W " + dims_string(w->dims) + " and group " + std::to_string(group) + " do not fit X " +
                      dims_string((*x)->shape));
  const auto ks =
      attr_ints(n, "kernel_shape",
                one_d ? std::vector<int64_t>{w->dims[2]} : std::vector<int64_t>{w->dims[2], w->dims[3]});
  if (ks != std::vector<int64_t>(w->dims.begin() + 2, w->dims.end()))
    return make_error("kernel_shape does not match W");
  std::vector<double> bias(static_cast<size_t>(m), 0.0);
  if (auto b = input(n, 2, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != static_cast<size_t>(m))
      return make_error("B must be a constant of M values");
    bias = (*b)->c.v;
  }
  cast_to(&*w, kFloat);
  if (one_d) {
    auto out = conv_1d(n, **x, *w, bias, group);
    if (!out) return make_error(out.error());
    define(n, 0, std::move(*out));
    return {};
  }
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], w->dims[2], w->dims[3], false);
  if (!win) return make_error(win.error());
  auto out = conv(**x, *w, bias, group, *win);
  if (!out) return make_error(out.error());
  define(n, 0, std::move(*out));
  return {};
}

// A 1-D convolution [N, C, L] is a 2-D one with H = 1: the operand [N, L, C] is reshaped (no data moves)
// to NHWC [N, 1, L, C], CONV_2D / DEPTHWISE_CONV_2D runs, and the result [N, 1, L', M] is reshaped back
// to [N, L', M] (ONNX [N, M, L'] in layout {0, 2, 1}).
Result<Value> Importer::conv_1d(const onnx::NodeProto& n, const Value& x, const HostTensor& w,
                                const std::vector<double>& bias, int64_t group) {
  onnx::NodeProto n2 = n;  // the same node with its 1-D attributes written as 2-D ones (H: 1, no pads)
  n2.clear_attribute();
  for (const auto& a : n.attribute()) {
    onnx::AttributeProto b = a;
    const std::string& name = a.name();
    if (name == "strides" || name == "dilations" || name == "kernel_shape") {
      if (a.ints_size() != 1) return make_error(name + " must have 1 value for a 1-D convolution");
      b.clear_ints();
      b.add_ints(1);
      b.add_ints(a.ints(0));
    } else if (name == "pads") {
      if (a.ints_size() != 2) return make_error("pads must have 2 values for a 1-D convolution");
      b.clear_ints();
      for (int64_t p : {int64_t{0}, a.ints(0), int64_t{0}, a.ints(1)}) b.add_ints(p);
    }
    *n2.add_attribute() = b;
  }
  auto win = window(n2, 1, x.shape[2], 1, w.dims[2], false);
  if (!win) return make_error(win.error());
  auto x3 = in_layout(x, {0, 2, 1});
  if (!x3) return make_error(x3.error());
  const std::vector<int64_t> x4_shape = {x.shape[0], x.shape[1], 1, x.shape[2]};
  const std::vector<int64_t> x4_dims = nnapi_dims(x4_shape, kNhwc);  // [N, 1, L, C]: the same bytes
  const Operand& src = operand(*x3);
  const uint32_t x4 = temp(src.type, x4_dims, src.scale, src.zero_point);
  op(OperationType::RESHAPE, {*x3, tensor_i32(std::vector<int32_t>(x4_dims.begin(), x4_dims.end()))}, {x4});
  HostTensor w4 = w;
  w4.dims = {w.dims[0], w.dims[1], 1, w.dims[2]};
  auto y = conv(runtime(x4, x4_shape, kNhwc), w4, bias, group, *win);
  if (!y) return make_error(y.error());
  const int64_t m = y->shape[1], l = y->shape[3];
  const uint32_t out = temp(operand(y->operand).type, {x.shape[0], l, m});
  op(OperationType::RESHAPE,
     {y->operand,
      tensor_i32({static_cast<int32_t>(x.shape[0]), static_cast<int32_t>(l), static_cast<int32_t>(m)})},
     {out});
  return runtime(out, {x.shape[0], m, l}, {0, 2, 1});
}

Result<void> Importer::on_batch_norm(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  std::vector<HostTensor> p;
  for (int i = 1; i <= 4; ++i) {
    auto t = const_input(n, i, i == 1 ? "scale" : i == 2 ? "B" : i == 3 ? "mean" : "var");
    if (!t) return make_error(t.error());
    p.push_back(std::move(*t));
  }
  if ((*x)->shape.size() < 2) return make_error("X must have a channel dimension");
  const auto ch = static_cast<size_t>((*x)->shape[1]);
  for (const auto& t : p)
    if (t.v.size() != ch) return make_error("parameters must have C = " + std::to_string(ch) + " values");
  const double eps = attr_f(n, "epsilon", 1e-5f);
  std::vector<double> scale(ch), shift(ch);
  for (size_t c = 0; c < ch; ++c) {
    scale[c] = p[0].v[c] / std::sqrt(p[3].v[c] + eps);
    shift[c] = p[1].v[c] - p[2].v[c] * scale[c];
  }
  const Value& v = **x;
  const auto conv_it = v.is_const ? convs_.end() : convs_.find(v.operand);
  if (conv_it != convs_.end() && consumers_[n.input(0)] == 1 && !graph_outputs_.count(n.input(0))) {
    // Fold into the convolution: filter channel c scaled, bias (b − mean)·s + beta.
    Operand& f = model_.main.operands[conv_it->second.filter];
    Operand& b = model_.main.operands[conv_it->second.bias];
    const uint64_t count = f.element_count();
    const uint32_t dim = conv_it->second.channel_dim;
    uint64_t inner = 1;
    for (size_t k = dim + 1; k < f.dimensions.size(); ++k) inner *= f.dimensions[k];
    for (uint64_t i = 0; i < count; ++i) {
      const size_t c = (i / inner) % ch;
      write_element(f.type, f.data, i, read_element(f.type, f.data, i) * scale[c]);
    }
    for (size_t c = 0; c < ch; ++c)
      write_element(b.type, b.data, c, read_element(b.type, b.data, c) * scale[c] + shift[c]);
    define(n, 0, v);
    return {};
  }
  // Otherwise x·s + t per channel.
  HostTensor s, t;
  s.dims = t.dims = std::vector<int64_t>(v.shape.size() - 1, 1);
  s.dims[0] = t.dims[0] = static_cast<int64_t>(ch);
  s.v = scale;
  t.v = shift;
  auto mul = binary(OperationType::MUL, v, constant_value(s));
  if (!mul) return make_error(mul.error());
  auto add = binary(OperationType::ADD, *mul, constant_value(t));
  if (!add) return make_error(add.error());
  define(n, 0, std::move(*add));
  return {};
}

Result<void> Importer::on_gemm(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = const_input(n, 1, "B");
  if (!b) return make_error(b.error());
  if ((*a)->shape.size() != 2 || b->dims.size() != 2) return make_error("A and B must be 2-D");
  Value av = **a;
  if (attr_i(n, "transA", 0)) {
    av.shape = {av.shape[1], av.shape[0]};
    if (!av.is_const)
      av.perm = {av.perm[1], av.perm[0]};
    else
      av.c = transpose(av.c, {1, 0});
  }
  // FULLY_CONNECTED weights are [N, K]: ONNX B is [K, N] unless transB.
  HostTensor w = attr_i(n, "transB", 0) ? *b : transpose(*b, {1, 0});
  const int64_t k = av.shape[1], units = w.dims[0];
  if (w.dims[1] != k)
    return make_error("B " + dims_string(b->dims) + " does not fit A " + dims_string((*a)->shape));
  const double alpha = attr_f(n, "alpha", 1.0f), beta = attr_f(n, "beta", 1.0f);
  for (double& x : w.v) x *= alpha;
  std::vector<double> bias(static_cast<size_t>(units), 0.0);
  std::optional<HostTensor> matrix_c;  // a C that varies along M: added after the FULLY_CONNECTED
  if (auto c = input(n, 2, false); !c) {
    return make_error(c.error());
  } else if (*c) {
    if (!(*c)->is_const) return make_error("C must be a constant");
    const auto& cv = (*c)->c.v;
    if (cv.size() == static_cast<size_t>(units) || cv.size() == 1) {
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = beta * cv[cv.size() == 1 ? 0 : i];
    } else {
      auto bc = broadcast_shape((*c)->shape, {av.shape[0], units});
      if (!bc || *bc != std::vector<int64_t>{av.shape[0], units})
        return make_error("C " + dims_string((*c)->shape) + " does not broadcast to [M, N]");
      matrix_c = (*c)->c;
      for (double& v : matrix_c->v) v *= beta;
    }
  }
  auto x = in_layout(av, identity(2));
  if (!x) return make_error(x.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, {av.shape[0], units});
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(OperandType::TENSOR_FLOAT32, w.dims, w.v),
      add_const(OperandType::TENSOR_FLOAT32, {units}, bias), scalar_i32(0)},
     {out}, 3);
  Value result = runtime(out, {av.shape[0], units}, identity(2));
  if (matrix_c) {
    auto sum = binary(OperationType::ADD, result, constant_value(*matrix_c));
    if (!sum) return make_error(sum.error());
    result = *sum;
  }
  define(n, 0, std::move(result));
  return {};
}

Result<void> Importer::on_matmul(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  if (!(*b)->is_const) return make_error("B must be a constant (a runtime B has no NNAPI 1.1 mapping)");
  const auto& bd = (*b)->c.dims;
  if (bd.size() != 2 || (*a)->shape.size() < 2) return make_error("B must be 2-D and A at least 2-D");
  const int64_t k = bd[0], units = bd[1];
  if ((*a)->shape.back() != k)
    return make_error("A " + dims_string((*a)->shape) + " does not fit B " + dims_string(bd));
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < (*a)->shape.size(); ++i) rows *= (*a)->shape[i];
  Value av = **a;
  if (av.shape.size() != 2) {
    auto r = reshape(av, {rows, k});
    if (!r) return make_error(r.error());
    av = *r;
  }
  auto x = in_layout(av, identity(2));
  if (!x) return make_error(x.error());
  HostTensor w = transpose((*b)->c, {1, 0});
  cast_to(&w, kFloat);
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, {rows, units});
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(OperandType::TENSOR_FLOAT32, w.dims, w.v),
      add_const(OperandType::TENSOR_FLOAT32, {units}, std::vector<double>(static_cast<size_t>(units), 0.0)),
      scalar_i32(0)},
     {out}, 3);
  Value result = runtime(out, {rows, units}, identity(2));
  if ((*a)->shape.size() != 2) {
    std::vector<int64_t> shape((*a)->shape.begin(), (*a)->shape.end() - 1);
    shape.push_back(units);
    auto r = reshape(result, shape);
    if (!r) return make_error(r.error());
    result = *r;
  }
  define(n, 0, std::move(result));
  return {};
}

// QLinearConv: CONV_2D / DEPTHWISE_CONV_2D on quant8 operands. uint8 weights per tensor, or int8 weights
// with zero point 0 (per channel when w_scale has M values: TENSOR_QUANT8_SYMM_PER_CHANNEL).
Result<void> Importer::on_qlinear_conv(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto w = const_input(n, 3, "w");
  if (!w) return make_error(w.error());
  auto ws = const_input(n, 4, "w_scale");
  if (!ws) return make_error(ws.error());
  auto wz = const_input(n, 5, "w_zero_point");
  if (!wz) return make_error(wz.error());
  auto xs = const_scalar(n, 1, "x_scale", 0), xz = const_scalar(n, 2, "x_zero_point", 0),
       ys = const_scalar(n, 6, "y_scale", 0), yz = const_scalar(n, 7, "y_zero_point", 0);
  for (const auto* r : {&xs, &xz, &ys, &yz})
    if (!*r) return make_error(r->error());
  if ((*x)->shape.size() != 4 || w->dims.size() != 4) return make_error("only 2-D convolution is supported");
  if (auto q = set_quant(**x, *xs, *xz); !q) return make_error("x: " + q.error());
  const int64_t m = w->dims[0], group = attr_i(n, "group", 1), c = (*x)->shape[1];
  if (group < 1 || c % group != 0 || m % group != 0 || w->dims[1] * group != c)
    return make_error("w " + dims_string(w->dims) + " and group " + std::to_string(group) + " do not fit x");
  QuantConv q;
  for (double v : ws->v) q.w_scales.push_back(static_cast<float>(v));
  if (q.w_scales.size() != 1 && q.w_scales.size() != static_cast<size_t>(m))
    return make_error("w_scale must have 1 or M values");
  const bool zero_zp = std::all_of(wz->v.begin(), wz->v.end(), [](double z) { return z == 0; });
  if (w->type == kInt8) {
    if (!zero_zp) return make_error("int8 weights need zero point 0 (symmetric)");
    q.filter_type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  } else if (w->type == kUint8 && q.w_scales.size() == 1 && wz->v.size() == 1) {
    if (operand((*x)->operand).type != OperandType::TENSOR_QUANT8_ASYMM)
      return make_error("uint8 weights need uint8 x");
    q.filter_type = OperandType::TENSOR_QUANT8_ASYMM;
  } else {
    return make_error("per-channel uint8 weights are not supported");
  }
  q.w_zp = static_cast<int32_t>(wz->v[0]);
  q.y_scale = static_cast<float>(*ys);
  q.y_zp = static_cast<int32_t>(*yz);
  std::vector<double> bias(static_cast<size_t>(m), 0.0);
  if (auto b = input(n, 8, false); !b) {
    return make_error(b.error());
  } else if (*b) {
    if (!(*b)->is_const || (*b)->c.v.size() != static_cast<size_t>(m))
      return make_error("B must be a constant of M values");
    bias = (*b)->c.v;
  }
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], w->dims[2], w->dims[3], false);
  if (!win) return make_error(win.error());
  auto out = conv(**x, *w, bias, group, *win, &q);
  if (!out) return make_error(out.error());
  define(n, 0, std::move(*out));
  return {};
}

// QLinearMatMul with a constant b: FULLY_CONNECTED on quant8 operands (per-tensor, b's type = a's).
Result<void> Importer::on_qlinear_matmul(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = const_input(n, 3, "b");
  if (!b) return make_error(b.error());
  auto as = const_scalar(n, 1, "a_scale", 0), az = const_scalar(n, 2, "a_zero_point", 0),
       bs = const_scalar(n, 4, "b_scale", 0), bz = const_scalar(n, 5, "b_zero_point", 0),
       ys = const_scalar(n, 6, "y_scale", 0), yz = const_scalar(n, 7, "y_zero_point", 0);
  for (const auto* r : {&as, &az, &bs, &bz, &ys, &yz})
    if (!*r) return make_error(r->error());
  if ((*a)->shape.size() != 2 || b->dims.size() != 2) return make_error("only 2-D a and b are supported");
  if (auto q = set_quant(**a, *as, *az); !q) return make_error("a: " + q.error());
  const OperandType t = operand((*a)->operand).type;
  if ((t == OperandType::TENSOR_QUANT8_ASYMM) != (b->type == kUint8))
    return make_error("a and b must both be uint8 or int8");
  const int64_t k = b->dims[0], units = b->dims[1];
  if ((*a)->shape[1] != k)
    return make_error("a " + dims_string((*a)->shape) + " does not fit b " + dims_string(b->dims));
  auto x = in_layout(**a, identity(2));
  if (!x) return make_error(x.error());
  const HostTensor wt = transpose(*b, {1, 0});
  const auto b_scale = static_cast<float>(*bs);
  const uint32_t out = temp(t, {(*a)->shape[0], units}, static_cast<float>(*ys), static_cast<int32_t>(*yz));
  op(OperationType::FULLY_CONNECTED,
     {*x, add_const(t, wt.dims, wt.v, b_scale, static_cast<int32_t>(*bz)),
      add_const(OperandType::TENSOR_INT32, {units}, std::vector<double>(static_cast<size_t>(units), 0.0),
                operand(*x).scale * b_scale),
      scalar_i32(0)},
     {out}, 3);
  define(n, 0, runtime(out, {(*a)->shape[0], units}, identity(2)));
  return {};
}

}  // namespace npu::models::onnx_import
