// Layout and shape operators: Concat, Reshape/Flatten/Squeeze/Unsqueeze, Transpose, Identity, Dropout,
// Pad, Slice, Resize/Upsample, DepthToSpace/SpaceToDepth.

#include <algorithm>
#include <cmath>

#include "importer.h"

namespace npu::models::onnx_import {

Result<void> Importer::on_concat(const onnx::NodeProto& n) {
  std::vector<const Value*> in;
  const Value* first_runtime = nullptr;
  for (int i = 0; i < n.input_size(); ++i) {
    auto v = input(n, i);
    if (!v) return make_error(v.error());
    in.push_back(*v);
    if (!(*v)->is_const && !first_runtime) first_runtime = *v;
  }
  if (in.empty() || !first_runtime) return make_error("expects inputs");
  const size_t rank = first_runtime->shape.size();
  auto axis = axes_of({attr_i(n, "axis", 0)}, rank);
  if (!axis) return make_error(axis.error());
  const auto ax = static_cast<size_t>((*axis)[0]);
  std::vector<int64_t> shape = first_runtime->shape;
  shape[ax] = 0;
  std::vector<uint32_t> ops;
  for (const Value* v : in) {
    if (v->shape.size() != rank) return make_error("inputs must have the same rank");
    for (size_t k = 0; k < rank; ++k)
      if (k != ax && v->shape[k] != first_runtime->shape[k])
        return make_error("input shapes differ off the concat axis");
    shape[ax] += v->shape[ax];
    Value c = *v;
    if (c.is_const) cast_to(&c.c, kFloat);
    auto o = in_layout(c, first_runtime->perm);
    if (!o) return make_error(o.error());
    ops.push_back(*o);
  }
  const Perm& perm = first_runtime->perm;
  const auto nnapi_axis =
      static_cast<int32_t>(std::find(perm.begin(), perm.end(), static_cast<int64_t>(ax)) - perm.begin());
  ops.push_back(scalar_i32(nnapi_axis));
  const Operand& src = operand(first_runtime->operand);
  const uint32_t out = temp(src.type, nnapi_dims(shape, perm), src.scale, src.zero_point);
  op(OperationType::CONCATENATION, ops, {out});
  define(n, 0, runtime(out, shape, perm));
  return {};
}

Result<void> Importer::on_reshape(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& in = (*x)->shape;
  Result<std::vector<int64_t>> shape = std::vector<int64_t>{};
  const std::string& t = n.op_type();
  if (t == "Reshape") {
    auto spec = const_input(n, 1, "shape");
    if (!spec) return make_error(spec.error());
    shape = reshape_target(in, *spec, attr_i(n, "allowzero", 0) != 0);
  } else if (t == "Flatten") {
    auto axis = flatten_axis(attr_i(n, "axis", 1), in.size());
    if (!axis) return make_error(axis.error());
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < in.size(); ++i) (static_cast<int64_t>(i) < (*axis)[0] ? outer : inner) *= in[i];
    shape = std::vector<int64_t>{outer, inner};
  } else {
    auto axes = axes_param(n, values_);
    if (!axes) return make_error(axes.error());
    shape = t == "Squeeze" ? squeeze_shape(in, *axes) : unsqueeze_shape(in, *axes);
  }
  if (!shape) return make_error(shape.error());
  auto r = t == "Squeeze" || t == "Unsqueeze" ? reshape_ones(**x, *shape) : reshape(**x, *shape);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

Result<void> Importer::on_transpose(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  Value v = **x;
  Perm q = attr_ints(n, "perm");
  if (q.empty())
    for (size_t i = v.shape.size(); i-- > 0;) q.push_back(static_cast<int64_t>(i));
  Perm sorted = q;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != identity(v.shape.size())) return make_error("perm is not a permutation of the input's axes");
  // No data moves: the operand stays, its ONNX view changes (perm' = q⁻¹ ∘ perm).
  const Perm qi = inverse(q);
  Value out = v;
  out.shape.clear();
  for (int64_t k : q) out.shape.push_back(v.shape[static_cast<size_t>(k)]);
  for (size_t i = 0; i < v.perm.size(); ++i) out.perm[i] = qi[static_cast<size_t>(v.perm[i])];
  define(n, 0, std::move(out));
  return {};
}

Result<void> Importer::on_identity(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  define(n, 0, **x);
  return {};
}

// Dropout at inference is the identity; training mode and the mask output are not inference.
Result<void> Importer::on_dropout(const onnx::NodeProto& n) {
  if (n.output_size() > 1 && !n.output(1).empty()) return make_error("the mask output is not supported");
  auto training = input(n, 2, false);
  if (!training) return make_error(training.error());
  if (*training && (!(*training)->is_const || (*training)->c.v.empty() || (*training)->c.v[0] != 0))
    return make_error("training_mode is not supported (inference only)");
  return on_identity(n);
}

Result<void> Importer::on_pad(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const std::string mode = attr_s(n, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return make_error("mode \"" + mode + "\" is not supported (constant, reflect, edge)");
  std::vector<int64_t> pads;
  double value = 0;
  if (opset_ < 11) {
    pads = attr_ints(n, "pads");
    value = attr_f(n, "value", 0.0f);
  } else {
    auto p = const_input(n, 1, "pads");
    if (!p) return make_error(p.error());
    for (double d : p->v) {
      auto e = whole_i64(d, "pads");
      if (!e) return make_error(e.error());
      pads.push_back(*e);
    }
    auto c = input(n, 2, false);
    if (!c) return make_error(c.error());
    if (*c) {
      if (!(*c)->is_const || (*c)->c.v.size() != 1)
        return make_error("constant_value must be a constant scalar");
      value = (*c)->c.v[0];
    }
    if (n.input_size() > 3 && !n.input(3).empty()) return make_error("the axes input is not supported");
  }
  const Value& v = **x;
  const size_t rank = v.shape.size();
  if (pads.size() != 2 * rank) return make_error("pads must have 2 × rank values");
  for (int64_t p : pads)
    if (p < 0) return make_error("negative pads are not supported");
  if (mode != "constant") {
    // Reflect / edge: per padded axis one GATHER (NNAPI 1.2) of the source index of every output position.
    Value cur = v;
    for (size_t a = 0; a < rank; ++a) {
      const int64_t head = pads[a], tail = pads[a + rank], len = cur.shape[a];
      if (head == 0 && tail == 0) continue;
      if (mode == "reflect" && (head >= len || tail >= len))
        return make_error("reflect pads must be smaller than the extent " + std::to_string(len));
      std::vector<int32_t> idx;
      for (int64_t i = -head; i < len + tail; ++i) {
        int64_t j = i;
        if (mode == "reflect")
          j = j < 0 ? -j : j >= len ? 2 * (len - 1) - j : j;
        else
          j = std::clamp<int64_t>(j, 0, len - 1);
        idx.push_back(static_cast<int32_t>(j));
      }
      auto in = in_layout(cur, cur.perm);
      if (!in) return make_error(in.error());
      std::vector<int64_t> shape = cur.shape;
      shape[a] += head + tail;
      const auto axis = static_cast<int32_t>(
          std::find(cur.perm.begin(), cur.perm.end(), static_cast<int64_t>(a)) - cur.perm.begin());
      const Operand& src = operand(*in);
      const uint32_t out = temp(src.type, nnapi_dims(shape, cur.perm), src.scale, src.zero_point);
      op(OperationType::GATHER, {*in, scalar_i32(axis), tensor_i32(idx)}, {out});
      cur = runtime(out, shape, cur.perm);
    }
    define(n, 0, std::move(cur));
    return {};
  }
  if (value != 0)
    return make_error("constant_value " + std::to_string(value) +
                      " is not supported (NNAPI 1.1 PAD pads with 0)");
  for (int64_t p : pads)
    if (p < 0) return make_error("negative pads are not supported");
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int64_t> shape = v.shape;
  std::vector<double> spec;
  for (size_t i = 0; i < rank; ++i) shape[i] += pads[i] + pads[i + rank];
  for (int64_t k : v.perm) {
    spec.push_back(static_cast<double>(pads[static_cast<size_t>(k)]));
    spec.push_back(static_cast<double>(pads[static_cast<size_t>(k) + rank]));
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(shape, v.perm), src.scale, src.zero_point);
  op(OperationType::PAD, {*in, add_const(OperandType::TENSOR_INT32, {static_cast<int64_t>(rank), 2}, spec)},
     {out});
  define(n, 0, runtime(out, shape, v.perm));
  return {};
}

// Slice: starts, ends, axes, steps are attributes before opset 10, constant inputs from 10. A runtime
// value becomes STRIDED_SLICE in its own layout (an end before index 0 is the end mask).
Result<void> Importer::on_slice(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  std::vector<int64_t> param[4];
  const char* names[4] = {"starts", "ends", "axes", "steps"};
  for (int i = 0; i < 4; ++i) {
    if (opset_ < 10) {
      param[i] = attr_ints(n, names[i]);
      continue;
    }
    if (i + 1 >= n.input_size() || n.input(i + 1).empty()) continue;
    auto c = const_input(n, i + 1, names[i]);
    if (!c) return make_error(c.error());
    for (double d : c->v) param[i].push_back(to_i64(d));
  }
  const Value& v = **x;
  auto plan = slice_plan(v.shape, param[0], param[1], param[2], param[3]);
  if (!plan) return make_error(plan.error());
  std::vector<int64_t> shape;
  for (const auto& a : *plan) shape.push_back(a.count);
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int32_t> begin, end, stride;
  int32_t end_mask = 0;
  for (size_t k = 0; k < v.perm.size(); ++k) {
    const AxisSlice& a = (*plan)[static_cast<size_t>(v.perm[k])];
    const int64_t last = a.start + a.count * a.step;
    begin.push_back(static_cast<int32_t>(a.start));
    end.push_back(static_cast<int32_t>(std::max<int64_t>(last, 0)));
    stride.push_back(static_cast<int32_t>(a.step));
    if (last < 0) end_mask |= 1 << k;
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(shape, v.perm), src.scale, src.zero_point);
  op(OperationType::STRIDED_SLICE,
     {*in, tensor_i32(begin), tensor_i32(end), tensor_i32(stride), scalar_i32(0), scalar_i32(end_mask),
      scalar_i32(0)},
     {out});
  define(n, 0, runtime(out, shape, v.perm));
  return {};
}

Result<void> Importer::on_resize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& s = (*x)->shape;
  if (s.size() != 4) return make_error("only rank-4 X is supported");
  const std::string mode = attr_s(n, "mode", "nearest");
  const std::string coord = attr_s(n, "coordinate_transformation_mode",
                                   n.op_type() == "Upsample" || opset_ < 11 ? "asymmetric" : "half_pixel");
  if (mode != "linear" || coord != "asymmetric")
    return make_error("mode \"" + mode + "\" with coordinate_transformation_mode \"" + coord +
                      "\" is not supported (NNAPI 1.1 RESIZE_BILINEAR = linear, asymmetric)");
  int64_t oh = 0, ow = 0;
  const int scales_at = n.op_type() == "Upsample" || opset_ < 11 ? 1 : 2;
  auto sizes = input(n, 3, false);
  if (!sizes) return make_error(sizes.error());
  if (*sizes) {
    if (!(*sizes)->is_const || (*sizes)->c.v.size() != 4)
      return make_error("sizes must be a constant of 4 values");
    if ((*sizes)->c.v[0] != s[0] || (*sizes)->c.v[1] != s[1])
      return make_error("only H and W may be resized");
    auto h = whole_i64((*sizes)->c.v[2], "sizes"), w = whole_i64((*sizes)->c.v[3], "sizes");
    if (!h) return make_error(h.error());
    if (!w) return make_error(w.error());
    oh = *h, ow = *w;
  } else {
    auto sc = const_input(n, scales_at, "scales");
    if (!sc) return make_error(sc.error());
    if (sc->v.size() != 4 || sc->v[0] != 1 || sc->v[1] != 1) return make_error("scales must be [1, 1, h, w]");
    auto h = whole_i64(std::floor(static_cast<double>(s[2]) * sc->v[2]), "scales: output height");
    auto w = whole_i64(std::floor(static_cast<double>(s[3]) * sc->v[3]), "scales: output width");
    if (!h) return make_error(h.error());
    if (!w) return make_error(w.error());
    oh = *h, ow = *w;
  }
  if (oh < 1 || ow < 1 || oh > 65535 || ow > 65535) return make_error("output size out of range");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const std::vector<int64_t> out_shape = {s[0], s[1], oh, ow};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(OperationType::RESIZE_BILINEAR,
     {*in, scalar_i32(static_cast<int32_t>(ow)), scalar_i32(static_cast<int32_t>(oh))}, {out});
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

Result<void> Importer::on_depth_space(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto& s = (*x)->shape;
  if (s.size() != 4) return make_error("only rank-4 X is supported");
  if (attr_s(n, "mode", "DCR") != "DCR")
    return make_error("mode CRD is not supported (NNAPI uses DCR order)");
  const int64_t b = attr_i(n, "blocksize", 0);
  if (b < 1) return make_error("blocksize must be positive");
  const bool to_space = n.op_type() == "DepthToSpace";
  std::vector<int64_t> shape = s;
  if (to_space) {
    if (s[1] % (b * b)) return make_error("channels not divisible by blocksize²");
    shape = {s[0], s[1] / (b * b), s[2] * b, s[3] * b};
  } else {
    if (s[2] % b || s[3] % b) return make_error("H and W must be divisible by blocksize");
    shape = {s[0], s[1] * b * b, s[2] / b, s[3] / b};
  }
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const uint32_t out =
      temp(operand(*in).type, nnapi_dims(shape, kNhwc), operand(*in).scale, operand(*in).zero_point);
  op(to_space ? OperationType::DEPTH_TO_SPACE : OperationType::SPACE_TO_DEPTH,
     {*in, scalar_i32(static_cast<int32_t>(b))}, {out});
  define(n, 0, runtime(out, shape, kNhwc));
  return {};
}

}  // namespace npu::models::onnx_import
