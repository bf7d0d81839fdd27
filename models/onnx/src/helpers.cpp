// Attribute, window and shape helpers of the ONNX importer (pure functions, no Importer state).

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "importer.h"

namespace npu::models::onnx_import {

Perm identity(size_t rank) {
  Perm p(rank);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

Perm inverse(const Perm& p) {
  Perm q(p.size());
  for (size_t i = 0; i < p.size(); ++i) q[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return q;
}

Value constant_value(HostTensor t) {
  Value v;
  v.is_const = true;
  v.shape = t.dims;
  v.perm = identity(t.dims.size());
  v.c = std::move(t);
  return v;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t attr_i(const onnx::NodeProto& n, const char* name, int64_t def) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : def;
}
float attr_f(const onnx::NodeProto& n, const char* name, float def) {
  const auto* a = find_attr(n, name);
  return a ? a->f() : def;
}
std::string attr_s(const onnx::NodeProto& n, const char* name, const std::string& def) {
  const auto* a = find_attr(n, name);
  return a ? a->s() : def;
}
std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const char* name, std::vector<int64_t> def) {
  const auto* a = find_attr(n, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : def;
}

int64_t to_i64(double d) {
  if (!(d < 9.2e18)) return std::numeric_limits<int64_t>::max() / 2;
  if (!(d > -9.2e18)) return -(std::numeric_limits<int64_t>::max() / 2);
  return static_cast<int64_t>(d);
}

Result<int64_t> whole_i64(double d, const std::string& what) {
  if (!(d >= -9.2e18 && d <= 9.2e18) || d != std::floor(d))
    return make_error(what + ": " + std::to_string(d) + " is not an integer in int64 range");
  return static_cast<int64_t>(d);
}

std::optional<OperandType> runtime_type(int32_t t) {
  switch (t) {
    case kFloat:
      return OperandType::TENSOR_FLOAT32;
    case kUint8:
      return OperandType::TENSOR_QUANT8_ASYMM;
    case kInt8:
      return OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    case kInt32:
      return OperandType::TENSOR_INT32;
    case kBool:
      return OperandType::TENSOR_BOOL8;
    default:
      return std::nullopt;
  }
}

Result<Window> window(const onnx::NodeProto& n, int64_t in_h, int64_t in_w, int64_t kh, int64_t kw,
                      bool ceil_mode) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  const auto strides = attr_ints(n, "strides", {1, 1});
  const auto dil = attr_ints(n, "dilations", {1, 1});
  const auto pads = attr_ints(n, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    return make_error("only 2-D windows are supported (strides, dilations, pads of 2, 2, 4 values)");
  w.sh = strides[0], w.sw = strides[1], w.dh = dil[0], w.dw = dil[1];
  if (w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1 || kh < 1 || kw < 1 || kh > 65535 || kw > 65535 ||
      w.sh > 65535 || w.sw > 65535 || w.dh > 65535 || w.dw > 65535)
    return make_error("kernel, strides and dilations must be in [1, 65535]");
  const int64_t eh = (kh - 1) * w.dh + 1, ew = (kw - 1) * w.dw + 1;
  const std::string auto_pad = attr_s(n, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    w.pt = pads[0], w.pl = pads[1], w.pb = pads[2], w.pr = pads[3];
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    auto split = [&](int64_t in, int64_t s, int64_t e, int64_t* head, int64_t* tail) {
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + e - in);
      *head = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      *tail = total - *head;
    };
    split(in_h, w.sh, eh, &w.pt, &w.pb);
    split(in_w, w.sw, ew, &w.pl, &w.pr);
  } else if (auto_pad != "VALID") {
    return make_error("auto_pad \"" + auto_pad + "\" is not known");
  }
  if (w.pt < 0 || w.pl < 0 || w.pb < 0 || w.pr < 0 || w.pt > 65535 || w.pl > 65535 || w.pb > 65535 ||
      w.pr > 65535)
    return make_error("pads must be in [0, 65535]");
  auto out = [&](int64_t in, int64_t head, int64_t* tail, int64_t s, int64_t e) -> int64_t {
    const int64_t span = in + head + *tail - e;
    if (span < 0) return 0;
    int64_t o = span / s + 1;
    if (ceil_mode && span % s != 0) {
      // ceil: one more window, which must start inside the input or the head padding (ONNX rule).
      if (o * s < in + head) {
        ++o;
        *tail += (o - 1) * s + e - (in + head + *tail);
      }
    }
    return o;
  };
  w.out_h = out(in_h, w.pt, &w.pb, w.sh, eh);
  w.out_w = out(in_w, w.pl, &w.pr, w.sw, ew);
  if (w.out_h < 1 || w.out_w < 1) return make_error("the window is larger than the padded input");
  return w;
}

Result<std::vector<int64_t>> axes_of(const std::vector<int64_t>& axes, size_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    const int64_t r = static_cast<int64_t>(rank);
    if (a < -r || a >= r)
      return make_error("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    out.push_back(a < 0 ? a + r : a);
  }
  return out;
}

Result<std::vector<int64_t>> reshape_target(const std::vector<int64_t>& in, const HostTensor& spec,
                                            bool allowzero) {
  std::vector<int64_t> out;
  int infer = -1;
  uint64_t known = 1;
  auto total = element_count(in);
  if (!total) return make_error(total.error());
  for (size_t i = 0; i < spec.v.size(); ++i) {
    const auto entry = whole_i64(spec.v[i], "shape entry");
    if (!entry) return make_error(entry.error());
    int64_t d = *entry;
    if (d == 0 && !allowzero) {
      if (i >= in.size())
        return make_error("shape entry 0 at " + std::to_string(i) + " has no input extent to copy");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return make_error("shape has more than one -1");
      infer = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) return make_error("shape entry " + std::to_string(d) + " is invalid");
    if (d != 0 && known > kMaxHostElements / static_cast<uint64_t>(d))
      return make_error("shape is too large");
    known *= static_cast<uint64_t>(d);
    out.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || *total % known != 0) return make_error("cannot infer -1 in shape " + dims_string(out));
    out[static_cast<size_t>(infer)] = static_cast<int64_t>(*total / known);
  } else if (known != *total) {
    return make_error("shape " + dims_string(out) + " does not hold the " + std::to_string(*total) +
                      " input elements");
  }
  return out;
}

Result<std::vector<int64_t>> flatten_axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis > r)
    return make_error("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return std::vector<int64_t>{axis < 0 ? axis + r : axis};
}

Result<std::vector<int64_t>> unsqueeze_shape(std::vector<int64_t> shape,
                                             const std::vector<int64_t>& axes_in) {
  auto axes = axes_of(axes_in, shape.size() + axes_in.size());
  if (!axes) return make_error(axes.error());
  std::sort(axes->begin(), axes->end());
  for (int64_t a : *axes) shape.insert(shape.begin() + a, 1);
  return shape;
}

Result<std::vector<int64_t>> squeeze_shape(const std::vector<int64_t>& shape,
                                           const std::vector<int64_t>& axes_in) {
  std::vector<int64_t> out;
  auto axes = axes_of(axes_in, shape.size());
  if (!axes) return make_error(axes.error());
  for (size_t i = 0; i < shape.size(); ++i) {
    const bool listed = std::find(axes->begin(), axes->end(), static_cast<int64_t>(i)) != axes->end();
    if (listed && shape[i] != 1)
      return make_error("cannot squeeze axis " + std::to_string(i) + " of extent " +
                        std::to_string(shape[i]));
    if (!(listed || (axes->empty() && shape[i] == 1))) out.push_back(shape[i]);
  }
  return out;
}

Result<std::vector<int64_t>> axes_param(const onnx::NodeProto& n,
                                        const std::map<std::string, Value>& values) {
  if (find_attr(n, "axes")) return attr_ints(n, "axes");
  if (n.input_size() < 2 || n.input(1).empty()) return std::vector<int64_t>{};
  const auto it = values.find(n.input(1));
  if (it == values.end() || !it->second.is_const) return make_error("axes (input 1) must be a constant");
  std::vector<int64_t> axes;
  for (double d : it->second.c.v) {
    auto a = whole_i64(d, "axes");
    if (!a) return make_error(a.error());
    axes.push_back(*a);
  }
  return axes;
}

Result<std::vector<AxisSlice>> slice_plan(const std::vector<int64_t>& shape,
                                          const std::vector<int64_t>& starts,
                                          const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                          std::vector<int64_t> steps) {
  if (ends.size() != starts.size()) return make_error("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return make_error("axes and steps must match starts in length");
  auto ax = axes_of(axes, shape.size());
  if (!ax) return make_error(ax.error());
  std::vector<AxisSlice> plan(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) plan[k] = {0, 1, shape[k]};
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t d = shape[static_cast<size_t>((*ax)[i])], step = steps[i];
    if (step == 0) return make_error("step 0");
    // Clamp first: ends like INT64_MAX / -INT64_MAX mean "to the end" in either direction.
    int64_t b = std::clamp<int64_t>(starts[i], -d - 1, d + 1),
            e = std::clamp<int64_t>(ends[i], -d - 1, d + 1);
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
    }
    const int64_t count = step > 0 ? (e - b + step - 1) / step : (b - e + (-step) - 1) / (-step);
    if (count <= 0) return make_error("the slice is empty");
    plan[static_cast<size_t>((*ax)[i])] = {b, step, count};
  }
  return plan;
}

}  // namespace npu::models::onnx_import
