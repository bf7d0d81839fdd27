// Constant folding: an ONNX node whose inputs are all constants becomes a constant. One fold per operator
// (or family of operators); operator_table() in importer.cpp says which operator folds with which.

#include <algorithm>
#include <cmath>

#include "importer.h"

namespace npu::models::onnx_import {

Result<void> FoldInputs::need(size_t k) const {
  if (t.size() < k ||
      std::any_of(t.begin(), t.begin() + static_cast<long>(k), [](auto* p) { return p == nullptr; }))
    return make_error("expects " + std::to_string(k) + " inputs");
  return {};
}

// A Constant node: its value attribute.
Result<bool> fold_constant(const onnx::NodeProto& n, const FoldInputs& /*in*/, HostTensor& out) {
  const auto* a = find_attr(n, "value");
  if (a && a->has_t()) {
    auto c = from_proto(a->t());
    if (!c) return make_error("value: " + c.error());
    out = std::move(*c);
  } else if ((a = find_attr(n, "value_float"))) {
    out.v = {a->f()};
  } else if ((a = find_attr(n, "value_int"))) {
    out.type = kInt64, out.v = {static_cast<double>(a->i())};
  } else if ((a = find_attr(n, "value_ints"))) {
    out.type = kInt64, out.dims = {a->ints_size()};
    for (int64_t i : a->ints()) out.v.push_back(static_cast<double>(i));
  } else if ((a = find_attr(n, "value_floats"))) {
    out.dims = {a->floats_size()};
    for (float f : a->floats()) out.v.push_back(f);
  } else {
    return make_error("has no supported value attribute");
  }
  return true;
}

Result<bool> fold_shape(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  out.type = kInt64;
  out.dims = {static_cast<int64_t>(in[0]->dims.size())};
  for (int64_t d : in[0]->dims) out.v.push_back(static_cast<double>(d));
  return true;
}

Result<bool> fold_constant_of_shape(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  for (double d : in[0]->v) {
    auto e = whole_i64(d, "shape");
    if (!e) return make_error(e.error());
    out.dims.push_back(*e);
  }
  auto count = element_count(out.dims);
  if (!count) return make_error(count.error());
  double fill = 0;
  if (const auto* a = find_attr(n, "value"); a && a->has_t()) {
    auto c = from_proto(a->t());
    if (!c || c->v.size() != 1) return make_error("value must be a one-element tensor");
    out.type = c->type;
    fill = c->v[0];
  }
  out.v.assign(*count, fill);
  return true;
}

Result<bool> fold_identity(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  out = *in[0];
  return true;
}

Result<bool> fold_cast(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  out = *in[0];
  cast_to(&out, static_cast<int32_t>(attr_i(n, "to", kFloat)));
  return true;
}

// Reshape, Flatten, Squeeze, Unsqueeze: the same values, a new shape.
Result<bool> fold_reshape(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  const std::string& t = n.op_type();
  if (auto r = in.need(1); !r) return make_error(r.error());
  out = *in[0];
  Result<std::vector<int64_t>> shape = std::vector<int64_t>{};
  if (t == "Reshape") {
    if (auto r = in.need(2); !r) return make_error(r.error());
    shape = reshape_target(in[0]->dims, *in[1], attr_i(n, "allowzero", 0) != 0);
  } else if (t == "Flatten") {
    auto axis = flatten_axis(attr_i(n, "axis", 1), in[0]->dims.size());
    if (!axis) return make_error(axis.error());
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < in[0]->dims.size(); ++i)
      (static_cast<int64_t>(i) < (*axis)[0] ? outer : inner) *= in[0]->dims[i];
    shape = std::vector<int64_t>{outer, inner};
  } else {
    auto axes = axes_param(n, in.values);
    if (!axes) return make_error(axes.error());
    shape = t == "Squeeze" ? squeeze_shape(in[0]->dims, *axes) : unsqueeze_shape(in[0]->dims, *axes);
  }
  if (!shape) return make_error(shape.error());
  out.dims = *shape;
  return true;
}

Result<bool> fold_transpose(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  Perm perm = attr_ints(n, "perm");
  if (perm.empty())
    for (size_t i = in[0]->dims.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  Perm sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != identity(in[0]->dims.size()))
    return make_error("perm is not a permutation of the input's axes");
  out = transpose(*in[0], perm);
  return true;
}

Result<bool> fold_concat(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  if (in.empty() || in[0] == nullptr) return make_error("expects inputs");
  auto axis = axes_of({attr_i(n, "axis", 0)}, in[0]->dims.size());
  if (!axis) return make_error(axis.error());
  const auto ax = static_cast<size_t>((*axis)[0]);
  out.type = in[0]->type;
  out.dims = in[0]->dims;
  out.dims[ax] = 0;
  for (const auto* p : in) {
    if (p == nullptr || p->dims.size() != in[0]->dims.size())
      return make_error("inputs must have the same rank");
    for (size_t k = 0; k < p->dims.size(); ++k)
      if (k != ax && p->dims[k] != in[0]->dims[k])
        return make_error("input shapes differ off the concat axis");
    out.dims[ax] += p->dims[ax];
  }
  uint64_t outer = 1;
  for (size_t k = 0; k < ax; ++k) outer *= static_cast<uint64_t>(out.dims[k]);
  for (uint64_t o = 0; o < outer; ++o)
    for (const auto* p : in) {
      const uint64_t chunk = outer ? p->v.size() / outer : 0;
      out.v.insert(out.v.end(), p->v.begin() + static_cast<long>(o * chunk),
                   p->v.begin() + static_cast<long>((o + 1) * chunk));
    }
  return true;
}

Result<bool> fold_gather(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(2); !r) return make_error(r.error());
  const HostTensor& d = *in[0];
  auto axis = axes_of({attr_i(n, "axis", 0)}, d.dims.size());
  if (!axis) return make_error(axis.error());
  const auto ax = static_cast<size_t>((*axis)[0]);
  uint64_t outer = 1, inner = 1;
  for (size_t k = 0; k < ax; ++k) outer *= static_cast<uint64_t>(d.dims[k]);
  for (size_t k = ax + 1; k < d.dims.size(); ++k) inner *= static_cast<uint64_t>(d.dims[k]);
  out.type = d.type;
  out.dims.assign(d.dims.begin(), d.dims.begin() + static_cast<long>(ax));
  out.dims.insert(out.dims.end(), in[1]->dims.begin(), in[1]->dims.end());
  out.dims.insert(out.dims.end(), d.dims.begin() + static_cast<long>(ax) + 1, d.dims.end());
  const int64_t extent = d.dims[ax];
  for (uint64_t o = 0; o < outer; ++o)
    for (double idx : in[1]->v) {
      auto k = static_cast<int64_t>(idx);
      if (k < 0) k += extent;
      if (k < 0 || k >= extent)
        return make_error("index " + std::to_string(static_cast<int64_t>(idx)) + " out of range");
      const uint64_t base = (o * static_cast<uint64_t>(extent) + static_cast<uint64_t>(k)) * inner;
      out.v.insert(out.v.end(), d.v.begin() + static_cast<long>(base),
                   d.v.begin() + static_cast<long>(base + inner));
    }
  return true;
}

// Add, Sub, Mul, Div with numpy broadcasting; integer division truncates as ONNX does.
Result<bool> fold_arithmetic(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  const std::string& t = n.op_type();
  if (auto r = in.need(2); !r) return make_error(r.error());
  auto shape = broadcast_shape(in[0]->dims, in[1]->dims);
  if (!shape) return make_error(shape.error());
  if (auto c = element_count(*shape); !c) return make_error(c.error());
  const HostTensor a = broadcast_to(*in[0], *shape), b = broadcast_to(*in[1], *shape);
  out = a;
  const bool integer = a.type != kFloat && a.type != kDouble && a.type != kFloat16;
  for (size_t i = 0; i < out.v.size(); ++i) {
    const double x = a.v[i], y = b.v[i];
    if (t == "Add")
      out.v[i] = x + y;
    else if (t == "Sub")
      out.v[i] = x - y;
    else if (t == "Mul")
      out.v[i] = x * y;
    else if (integer && y == 0)
      return make_error("integer division by zero");
    else
      out.v[i] = integer ? std::trunc(x / y) : x / y;
  }
  cast_to(&out, a.type);
  return true;
}

// Equal, Less, Greater.
Result<bool> fold_compare(const onnx::NodeProto& n, const FoldInputs& in, HostTensor& out) {
  const std::string& t = n.op_type();
  if (auto r = in.need(2); !r) return make_error(r.error());
  auto shape = broadcast_shape(in[0]->dims, in[1]->dims);
  if (!shape) return make_error(shape.error());
  const HostTensor a = broadcast_to(*in[0], *shape), b = broadcast_to(*in[1], *shape);
  out.type = kBool;
  out.dims = *shape;
  for (size_t i = 0; i < a.v.size(); ++i)
    out.v.push_back(t == "Equal" ? a.v[i] == b.v[i] : t == "Less" ? a.v[i] < b.v[i] : a.v[i] > b.v[i]);
  return true;
}

Result<bool> fold_not(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(1); !r) return make_error(r.error());
  out = *in[0];
  for (double& v : out.v) v = v == 0;
  return true;
}

// Slice from opset 10 (starts, ends, axes, steps as inputs); before 10 it is mapped.
Result<bool> fold_slice(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (in.opset < 10) return false;
  if (auto r = in.need(3); !r) return make_error(r.error());
  auto ints = [&](size_t i) {
    std::vector<int64_t> v;
    if (i < in.size() && in[i])
      for (double d : in[i]->v) v.push_back(to_i64(d));
    return v;
  };
  auto plan = slice_plan(in[0]->dims, ints(1), ints(2), ints(3), ints(4));
  if (!plan) return make_error(plan.error());
  out.type = in[0]->type;
  for (const auto& a : *plan) out.dims.push_back(a.count);
  auto count = element_count(out.dims);
  if (!count) return make_error(count.error());
  const std::vector<uint64_t> src_strides = strides_of(in[0]->dims), dst_strides = strides_of(out.dims);
  for (uint64_t i = 0; i < *count; ++i) {
    uint64_t src = 0;
    for (size_t k = 0; k < out.dims.size(); ++k) {
      const auto c = static_cast<int64_t>((i / dst_strides[k]) % static_cast<uint64_t>(out.dims[k]));
      src += static_cast<uint64_t>((*plan)[k].start + c * (*plan)[k].step) * src_strides[k];
    }
    out.v.push_back(in[0]->v[src]);
  }
  return true;
}

Result<bool> fold_quantize(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(2); !r) return make_error(r.error());
  const HostTensor* z = in.size() > 2 ? in[2] : nullptr;
  if (in[1]->v.size() != 1 || (z && z->v.size() != 1) || in[1]->v[0] == 0)
    return make_error("per-axis QuantizeLinear of a constant is not supported");
  out.dims = in[0]->dims;
  for (double f : in[0]->v) out.v.push_back(std::nearbyint(f / in[1]->v[0]) + (z ? z->v[0] : 0));
  const int32_t type = z ? z->type : kUint8;
  const double lo = type == kInt8 ? -128 : 0, hi = type == kInt8 ? 127 : 255;
  for (double& v : out.v) v = std::clamp(v, lo, hi);
  out.type = type;
  return true;
}

Result<bool> fold_dequantize(const onnx::NodeProto& /*n*/, const FoldInputs& in, HostTensor& out) {
  if (auto r = in.need(2); !r) return make_error(r.error());
  const HostTensor& x = *in[0];
  const HostTensor& s = *in[1];
  const HostTensor* z = in.size() > 2 ? in[2] : nullptr;
  if (s.v.size() != 1 || (z && z->v.size() != 1))
    return make_error("per-axis DequantizeLinear of a constant is not supported");
  out.dims = x.dims;
  for (double q : x.v) out.v.push_back((q - (z ? z->v[0] : 0)) * s.v[0]);
  cast_to(&out, kFloat);
  return true;
}

// The input check runs for every operator, folded or not: an undefined input is an error either way.
Result<bool> Importer::fold(const onnx::NodeProto& n) {
  FoldInputs in{{}, values_, opset_};
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) {
      in.t.push_back(nullptr);
      continue;
    }
    const auto it = values_.find(n.input(i));
    if (it == values_.end())
      return make_error("input " + std::to_string(i) + " '" + n.input(i) +
                        "' is not defined before the node");
    if (!it->second.is_const) return false;  // a runtime input: mapped (Shape is handled by the caller)
    in.t.push_back(&it->second.c);
  }
  if (n.output_size() < 1) return make_error("has no output");
  const auto& table = operator_table();
  const auto entry = table.find(n.op_type());
  if (entry == table.end() || entry->second.fold == nullptr) return false;
  HostTensor out;
  auto folded = entry->second.fold(n, in, out);
  if (!folded || !*folded) return folded;
  ++result_.folded_nodes;
  define(n, 0, constant_value(std::move(out)));
  return true;
}

}  // namespace npu::models::onnx_import
