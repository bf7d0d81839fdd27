// Elementwise operators: unary activations, Clip, LeakyRelu, Min/Max, Add/Sub/Mul, Pow, Div, Cast and
// the quantisation operators.

#include <cmath>
#include <limits>
#include <map>

#include "importer.h"

namespace npu::models::onnx_import {

Result<Value> Importer::unary(OperationType t, const Value& v) {
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(v.shape, v.perm), src.scale, src.zero_point);
  op(t, {*in}, {out});
  return runtime(out, v.shape, v.perm);
}

Result<void> Importer::on_unary(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {
      {"Relu", OperationType::RELU},   {"Sigmoid", OperationType::LOGISTIC}, {"Tanh", OperationType::TANH},
      {"Floor", OperationType::FLOOR}, {"Abs", OperationType::ABS},          {"Exp", OperationType::EXP},
      {"Log", OperationType::LOG},     {"Neg", OperationType::NEG},          {"Sqrt", OperationType::SQRT}};
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto y = unary(kOps.at(n.op_type()), **x);
  if (!y) return make_error(y.error());
  define(n, 0, std::move(*y));
  return {};
}

Result<void> Importer::on_clip(const onnx::NodeProto& n) {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  const Value* bound[2] = {nullptr, nullptr};  // runtime min / max (NNAPI 1.2 MAXIMUM / MINIMUM)
  if (opset_ < 11) {
    lo = attr_f(n, "min", -std::numeric_limits<float>::infinity());
    hi = attr_f(n, "max", std::numeric_limits<float>::infinity());
  } else {
    for (int i : {1, 2}) {
      auto v = input(n, i, false);
      if (!v) return make_error(v.error());
      if (!*v) continue;
      if (!(*v)->is_const) {
        bound[i - 1] = *v;
        continue;
      }
      if ((*v)->c.v.size() != 1) return make_error("min/max must be scalars");
      (i == 1 ? lo : hi) = (*v)->c.v[0];
    }
  }
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  OperationType t = OperationType::RELU;
  if (lo == 0 && hi == 6)
    t = OperationType::RELU6;
  else if (lo == -1 && hi == 1)
    t = OperationType::RELU1;
  else if (bound[0] || bound[1] || !(lo == 0 && std::isinf(hi) && hi > 0)) {
    // General or runtime bounds: MAXIMUM with the minimum, then MINIMUM with the maximum.
    Value y = v;
    auto scalar = [](double s) {
      HostTensor t1;
      t1.v = {s};
      return constant_value(t1);
    };
    if (bound[0] || !std::isinf(lo)) {
      auto m = binary(OperationType::MAXIMUM, y, bound[0] ? *bound[0] : scalar(lo));
      if (!m) return make_error(m.error());
      y = *m;
    }
    if (bound[1] || !std::isinf(hi)) {
      auto m = binary(OperationType::MINIMUM, y, bound[1] ? *bound[1] : scalar(hi));
      if (!m) return make_error(m.error());
      y = *m;
    }
    define(n, 0, std::move(y));
    return {};
  }
  auto y = unary(t, v);
  if (!y) return make_error(y.error());
  define(n, 0, std::move(*y));
  return {};
}

// LeakyRelu(x) = α·x + (1 − α)·relu(x): NNAPI 1.1 has no PRELU/LEAKY_RELU.
Result<void> Importer::on_leaky_relu(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const double alpha = attr_f(n, "alpha", 0.01f);
  HostTensor a, b;
  a.v = {alpha};
  b.v = {1 - alpha};
  const Value& v = **x;
  auto r = unary(OperationType::RELU, v);
  if (!r) return make_error(r.error());
  auto rs = binary(OperationType::MUL, *r, constant_value(b));
  if (!rs) return make_error(rs.error());
  auto xs = binary(OperationType::MUL, v, constant_value(a));
  if (!xs) return make_error(xs.error());
  auto sum = binary(OperationType::ADD, *xs, *rs);
  if (!sum) return make_error(sum.error());
  define(n, 0, std::move(*sum));
  return {};
}

// Max / Min of any number of inputs: a chain of NNAPI 1.2 MAXIMUM / MINIMUM.
Result<void> Importer::on_min_max(const onnx::NodeProto& n) {
  auto first = input(n, 0);
  if (!first) return make_error(first.error());
  const OperationType t = n.op_type() == "Max" ? OperationType::MAXIMUM : OperationType::MINIMUM;
  Value acc = **first;
  for (int i = 1; i < n.input_size(); ++i) {
    auto b = input(n, i);
    if (!b) return make_error(b.error());
    auto r = binary(t, acc, **b);
    if (!r) return make_error(r.error());
    acc = std::move(*r);
  }
  define(n, 0, std::move(acc));
  return {};
}

Result<void> Importer::on_binary(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {
      {"Add", OperationType::ADD}, {"Sub", OperationType::SUB}, {"Mul", OperationType::MUL}};
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  auto r = binary(kOps.at(n.op_type()), **a, **b);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

// Pow with a constant exponent 2 is x·x (MUL, which the NPU runs), 0.5 is SQRT, 1 the identity; other
// exponents are NNAPI 1.2 POW.
Result<void> Importer::on_pow(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto e = input(n, 1);
  if (!e) return make_error(e.error());
  const Value& v = **x;
  if ((*e)->is_const && (*e)->c.v.size() == 1) {
    const double p = (*e)->c.v[0];
    if (p == 1) {
      define(n, 0, v);
      return {};
    }
    if (p == 2 || p == 0.5) {
      auto r = p == 2 ? binary(OperationType::MUL, v, v) : unary(OperationType::SQRT, v);
      if (!r) return make_error(r.error());
      define(n, 0, std::move(*r));
      return {};
    }
  }
  auto r = binary(OperationType::POW, v, **e);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

// Div by a constant multiplies by its reciprocal (MUL runs on the NPU; the result may differ from a
// true division by one rounding); a runtime divisor is DIV, which only the CPU runs (--cpu-fallback).
Result<void> Importer::on_div(const onnx::NodeProto& n) {
  auto a = input(n, 0);
  if (!a) return make_error(a.error());
  auto b = input(n, 1);
  if (!b) return make_error(b.error());
  if ((*b)->is_const && !(*a)->is_const) {
    HostTensor r = (*b)->c;
    cast_to(&r, kFloat);
    for (double& d : r.v) d = static_cast<float>(1.0f / static_cast<float>(d));
    auto m = binary(OperationType::MUL, **a, constant_value(std::move(r)));
    if (!m) return make_error(m.error());
    define(n, 0, std::move(*m));
    return {};
  }
  if (!opt_.cpu_fallback)
    return make_error(
        "Div by a runtime tensor is not mapped to an NPU operation (--cpu-fallback runs it on the CPU device "
        "as DIV)");
  result_.cpu_only_nodes.push_back(n.op_type() + " '" + n.name() + "'");
  auto r = binary(OperationType::DIV, **a, **b);
  if (!r) return make_error(r.error());
  define(n, 0, std::move(*r));
  return {};
}

// Cast of a runtime value: only to its own type (float to float), which is the identity.
Result<void> Importer::on_cast(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const auto to = static_cast<int32_t>(attr_i(n, "to", kFloat));
  const OperandType from = operand((*x)->operand).type;
  if (to != kFloat || from != OperandType::TENSOR_FLOAT32)
    return make_error("Cast of a runtime " + std::string(to_string(from)) + " tensor to " + type_name(to) +
                      " is not supported (only float to float)");
  define(n, 0, **x);
  return {};
}

// QuantizeLinear of a runtime float tensor (per-tensor scale and zero point): NNAPI 1.2 QUANTIZE to
// uint8 (TENSOR_QUANT8_ASYMM) or, with an int8 zero point, TENSOR_QUANT8_ASYMM_SIGNED. NNAPI rounds
// halves away from zero where ONNX rounds them to even: x / scale exactly at .5 may differ by one.
Result<void> Importer::on_quantize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto s = const_input(n, 1, "y_scale");
  if (!s) return make_error(s.error());
  if (s->v.size() != 1) return make_error("per-axis quantisation of a runtime tensor is not supported");
  int32_t zp_type = kUint8;
  double zp = 0;
  if (auto z = input(n, 2, false); !z) {
    return make_error(z.error());
  } else if (*z) {
    if (!(*z)->is_const || (*z)->c.v.size() != 1) return make_error("y_zero_point must be a constant scalar");
    zp_type = (*z)->c.type;
    zp = (*z)->c.v[0];
  }
  if (zp_type != kUint8 && zp_type != kInt8)
    return make_error("y_zero_point of type " + type_name(zp_type) + " is not supported (uint8, int8)");
  const Value& v = **x;
  if (operand(v.operand).type != OperandType::TENSOR_FLOAT32) return make_error("x must be float");
  const auto scale = static_cast<float>(s->v[0]);
  if (!(scale > 0) || !std::isfinite(scale)) return make_error("y_scale must be positive");
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  const OperandType t =
      zp_type == kInt8 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  const uint32_t out = temp(t, nnapi_dims(v.shape, v.perm), scale, static_cast<int32_t>(zp));
  op(OperationType::QUANTIZE, {*in}, {out});
  define(n, 0, runtime(out, v.shape, v.perm));
  return {};
}

Result<void> Importer::on_dequantize(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  auto s = const_input(n, 1, "x_scale");
  if (!s) return make_error(s.error());
  auto zp = const_scalar(n, 2, "x_zero_point", 0);
  if (!zp) return make_error(zp.error());
  if (s->v.size() != 1) return make_error("per-axis quantisation of a runtime tensor is not supported");
  const Value& v = **x;
  if (auto q = set_quant(v, s->v[0], *zp); !q) return make_error("x: " + q.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims(v.shape, v.perm));
  op(OperationType::DEQUANTIZE, {v.operand}, {out});
  define(n, 0, runtime(out, v.shape, v.perm));
  return {};
}

Result<void> Importer::set_quant(const Value& v, double scale, double zero_point) {
  if (v.is_const) return make_error("must be a runtime tensor");
  Operand& o = model_.main.operands[v.operand];
  if (o.type != OperandType::TENSOR_QUANT8_ASYMM && o.type != OperandType::TENSOR_QUANT8_ASYMM_SIGNED)
    return make_error("must be uint8 or int8");
  const auto fs = static_cast<float>(scale);
  const auto z = static_cast<int32_t>(zero_point);
  if (!(fs > 0) || !std::isfinite(fs)) return make_error("scale must be positive");
  if (unassigned_quant_.erase(v.operand)) {
    o.scale = fs;
    o.zero_point = z;
  } else if (o.scale != fs || o.zero_point != z) {
    return make_error("scale/zero point (" + std::to_string(fs) + ", " + std::to_string(z) +
                      ") differ from the tensor's (" + std::to_string(o.scale) + ", " +
                      std::to_string(o.zero_point) + ")");
  }
  return {};
}

Result<double> Importer::const_scalar(const onnx::NodeProto& n, int i, const char* what, double def) {
  auto v = input(n, i, false);
  if (!v) return make_error(v.error());
  if (!*v) return def;
  if (!(*v)->is_const || (*v)->c.v.size() != 1)
    return make_error(std::string(what) + " must be a constant scalar");
  return (*v)->c.v[0];
}

}  // namespace npu::models::onnx_import
