// Operand emission of the ONNX importer: operands, constants, operations and layout changes.

#include <limits>

#include "importer.h"

namespace npu::models::onnx_import {

uint32_t Importer::add_operand(Operand o) {
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t Importer::temp(OperandType t, const std::vector<int64_t>& dims, float scale, int32_t zp) {
  Operand o;
  o.type = t;
  for (int64_t d : dims) o.dimensions.push_back(static_cast<uint32_t>(d));
  o.scale = scale;
  o.zero_point = zp;
  return add_operand(std::move(o));
}

uint32_t Importer::add_const(OperandType t, const std::vector<int64_t>& dims,
                             const std::vector<double>& values, float scale, int32_t zp) {
  Operand o;
  o.type = t;
  for (int64_t d : dims) o.dimensions.push_back(static_cast<uint32_t>(d));
  o.scale = scale;
  o.zero_point = zp;
  o.lifetime = Lifetime::CONSTANT_COPY;
  o.data.resize(values.size() * element_size(t));
  for (size_t i = 0; i < values.size(); ++i) write_element(t, o.data, i, values[i]);
  return add_operand(std::move(o));
}

uint32_t Importer::scalar_i32(int32_t v) {
  return add_const(OperandType::INT32, {}, {static_cast<double>(v)});
}

uint32_t Importer::scalar_f32(float v) { return add_const(OperandType::FLOAT32, {}, {v}); }
uint32_t Importer::tensor_i32(const std::vector<int32_t>& v) {
  return add_const(OperandType::TENSOR_INT32, {static_cast<int64_t>(v.size())},
                   std::vector<double>(v.begin(), v.end()));
}

uint32_t Importer::op(OperationType t, std::vector<uint32_t> in, std::vector<uint32_t> out, int act_input) {
  model_.main.operations.push_back({t, std::move(in), std::move(out)});
  const auto index = static_cast<uint32_t>(model_.main.operations.size() - 1);
  if (act_input >= 0) act_input_[index] = act_input;
  return index;
}

std::vector<int64_t> Importer::nnapi_dims(const std::vector<int64_t>& shape, const Perm& perm) {
  std::vector<int64_t> d;
  for (int64_t p : perm) d.push_back(shape[static_cast<size_t>(p)]);
  return d;
}

Value Importer::runtime(uint32_t operand_index, std::vector<int64_t> shape, Perm perm) {
  Value v;
  v.operand = operand_index;
  v.shape = std::move(shape);
  v.perm = std::move(perm);
  return v;
}

Result<const Value*> Importer::input(const onnx::NodeProto& n, int i, bool required) {
  if (i >= n.input_size() || n.input(i).empty()) {
    if (required) return make_error("input " + std::to_string(i) + " is missing");
    return static_cast<const Value*>(nullptr);
  }
  const auto it = values_.find(n.input(i));
  if (it == values_.end())
    return make_error("input " + std::to_string(i) + " '" + n.input(i) + "' is not defined before the node");
  return &it->second;
}

Result<HostTensor> Importer::const_input(const onnx::NodeProto& n, int i, const char* what) {
  auto v = input(n, i);
  if (!v) return make_error(v.error());
  if (!(*v)->is_const)
    return make_error(std::string(what) + " (input " + std::to_string(i) + ") must be a constant");
  return (*v)->c;
}

Result<uint32_t> Importer::in_layout(const Value& v, const Perm& perm) {
  if (perm.size() > 4 || v.shape.size() > 4)
    return make_error("tensors of rank " + std::to_string(v.shape.size()) +
                      " are not supported (NNAPI: rank <= 4)");
  for (int64_t d : v.shape)
    if (d < 1 || d > std::numeric_limits<uint32_t>::max())
      return make_error("dimension " + std::to_string(d) + " is not supported");
  if (v.is_const) {
    auto t = runtime_type(v.c.type);
    if (!t) return make_error("constant of type " + type_name(v.c.type) + " cannot be an operand");
    const HostTensor c = transpose(v.c, perm);
    return add_const(*t, c.dims, c.v, *t == OperandType::TENSOR_QUANT8_ASYMM ? 1.0f : 0.0f);
  }
  unassigned_quant_.erase(v.operand);  // read as it is: its quantisation is now fixed
  if (v.perm == perm) return v.operand;
  const auto key = std::make_pair(v.operand, perm);
  if (const auto it = transposed_.find(key); it != transposed_.end()) return it->second;
  // Only extents of 1 move: the element order is unchanged, so a RESHAPE (which the NPU copies) does it.
  auto non_one_axes = [&](const Perm& p) {
    Perm axes;
    for (int64_t k : p)
      if (v.shape[static_cast<size_t>(k)] != 1) axes.push_back(k);
    return axes;
  };
  if (non_one_axes(v.perm) == non_one_axes(perm)) {
    const Operand& src = operand(v.operand);
    const std::vector<int64_t> dims = nnapi_dims(v.shape, perm);
    const uint32_t out = temp(src.type, dims, src.scale, src.zero_point);
    op(OperationType::RESHAPE, {v.operand, tensor_i32(std::vector<int32_t>(dims.begin(), dims.end()))},
       {out});
    transposed_[key] = out;
    return out;
  }
  // Operand dim k holds ONNX dim v.perm[k]; target dim i needs ONNX dim perm[i] = operand dim inv[perm[i]].
  const Perm inv = inverse(v.perm);
  std::vector<int32_t> t;
  for (int64_t p : perm) t.push_back(static_cast<int32_t>(inv[static_cast<size_t>(p)]));
  const Operand& src = operand(v.operand);
  const uint32_t out = temp(src.type, nnapi_dims(v.shape, perm), src.scale, src.zero_point);
  op(OperationType::TRANSPOSE, {v.operand, tensor_i32(t)}, {out});
  transposed_[key] = out;
  return out;
}

Result<Value> Importer::reshape(const Value& v, const std::vector<int64_t>& shape) {
  if (shape.size() > 4)
    return make_error("reshape to rank " + std::to_string(shape.size()) +
                      " is not supported (NNAPI: rank <= 4)");
  if (shape.empty() && !v.is_const)
    return make_error("reshape of a runtime value to rank 0 is not supported (NNAPI tensors have rank >= 1)");
  auto x = in_layout(v, identity(v.shape.size()));
  if (!x) return make_error(x.error());
  const Operand& src = operand(*x);
  const uint32_t out = temp(src.type, shape, src.scale, src.zero_point);
  std::vector<int32_t> s(shape.begin(), shape.end());
  op(OperationType::RESHAPE, {*x, tensor_i32(s)}, {out});
  return runtime(out, shape, identity(shape.size()));
}

// Elementwise a (op) b with numpy broadcasting. Operands keep a shared permuted layout when they have
// one; a constant is laid out to match the runtime side.
Result<Value> Importer::binary(OperationType t, const Value& a, const Value& b, int32_t act) {
  auto shape = broadcast_shape(a.shape, b.shape);
  if (!shape) return make_error(shape.error());
  const size_t rank = shape->size();
  if (rank > 4) return make_error("rank " + std::to_string(rank) + " is not supported (NNAPI: rank <= 4)");
  Perm perm = identity(rank);
  if (a.is_const && b.is_const) return make_error("operations on two constants are not supported here");
  const Value& r = a.is_const ? b : a;
  if (r.shape.size() == rank && (a.is_const || b.is_const || (a.perm == b.perm && b.shape.size() == rank)))
    perm = r.perm;
  auto lay = [&](const Value& v) -> Result<uint32_t> {
    if (!v.is_const) {
      if (v.shape.size() != rank && perm != identity(rank)) return make_error("internal: layout mismatch");
      return in_layout(v, v.shape.size() == rank ? perm : identity(v.shape.size()));
    }
    HostTensor c = v.c;
    c.dims.insert(c.dims.begin(), rank - c.dims.size(), 1);
    cast_to(&c, kFloat);
    Value padded = constant_value(std::move(c));
    if (operand(r.operand).type != OperandType::TENSOR_FLOAT32)
      return make_error(
          "integer elementwise arithmetic is not supported (ONNX wraps integers, NNAPI quant8 rescales)");
    return in_layout(padded, perm);
  };
  auto x = lay(a);
  if (!x) return make_error(x.error());
  auto y = lay(b);
  if (!y) return make_error(y.error());
  const Operand& src = operand(r.operand);
  const uint32_t out = temp(src.type, nnapi_dims(*shape, perm), src.scale, src.zero_point);
  if (t == OperationType::MAXIMUM || t == OperationType::MINIMUM || t == OperationType::POW)
    op(t, {*x, *y}, {out});  // NNAPI 1.2 binary operations have no fused activation
  else
    op(t, {*x, *y, scalar_i32(act)}, {out}, 2);
  return runtime(out, *shape, perm);
}

Result<Value> Importer::reshape_ones(const Value& v, const std::vector<int64_t>& shape) {
  if (shape.size() > 4)
    return make_error("rank " + std::to_string(shape.size()) + " is not supported (NNAPI: rank <= 4)");
  if (v.is_const) {
    Value c = v;
    c.c.dims = c.shape = shape;
    c.perm = identity(shape.size());
    return c;
  }
  if (shape.empty())
    return make_error("squeeze of a runtime value to rank 0 is not supported (NNAPI tensors have rank >= 1)");
  // The j-th non-1 axis of the old shape is the j-th non-1 axis of the new one.
  std::vector<int64_t> new_axis(v.shape.size(), -1);
  std::vector<bool> used(shape.size(), false);
  size_t j = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == 1) continue;
    while (j < shape.size() && shape[j] == 1) ++j;
    if (j == shape.size() || shape[j] != v.shape[i]) return make_error("internal: not a reshape of ones");
    new_axis[i] = static_cast<int64_t>(j);
    used[j++] = true;
  }
  Perm perm;
  for (int64_t k : v.perm)
    if (new_axis[static_cast<size_t>(k)] >= 0) perm.push_back(new_axis[static_cast<size_t>(k)]);
  for (size_t k = 0; k < shape.size(); ++k)
    if (!used[k]) perm.push_back(static_cast<int64_t>(k));
  const std::vector<int64_t> dims = nnapi_dims(shape, perm);
  const Operand& src = operand(v.operand);
  if (std::vector<uint32_t>(dims.begin(), dims.end()) == src.dimensions)
    return runtime(v.operand, shape, perm);
  unassigned_quant_.erase(v.operand);
  const uint32_t out = temp(src.type, dims, src.scale, src.zero_point);
  std::vector<int32_t> d(dims.begin(), dims.end());
  op(OperationType::RESHAPE, {v.operand, tensor_i32(d)}, {out});
  return runtime(out, shape, perm);
}

uint32_t Importer::no_value(OperandType t) {
  Operand o;
  o.type = t;
  o.lifetime = Lifetime::NO_VALUE;
  return add_operand(std::move(o));
}

}  // namespace npu::models::onnx_import
