// Pooling, reductions and normalisation: MaxPool/AveragePool, global pools, Reduce*, Softmax, LRN.

#include <algorithm>
#include <map>

#include "importer.h"

namespace npu::models::onnx_import {

Result<void> Importer::on_pool(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only 2-D pooling (rank-4 X) is supported");
  if (n.output_size() > 1 && !n.output(1).empty()) return make_error("the Indices output is not supported");
  const bool is_max = n.op_type() == "MaxPool";
  const auto ks = attr_ints(n, "kernel_shape");
  if (ks.size() != 2) return make_error("kernel_shape must have 2 values");
  const bool ceil_mode = attr_i(n, "ceil_mode", 0) != 0;
  if (!is_max && ceil_mode) return make_error("ceil_mode=1 is not supported for AveragePool");
  if (attr_ints(n, "dilations", {1, 1}) != std::vector<int64_t>{1, 1})
    return make_error("dilations are not supported");
  auto win = window(n, (*x)->shape[2], (*x)->shape[3], ks[0], ks[1], ceil_mode);
  if (!win) return make_error(win.error());
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const bool pads = win->pt || win->pl || win->pb || win->pr;
  if (!is_max && pads && attr_i(n, "count_include_pad", 0)) {
    // Padding zeros that count: PAD first, then a VALID average.
    const auto d = nnapi_dims((*x)->shape, kNhwc);
    const uint32_t padded =
        temp(operand(*in).type, {d[0], d[1] + win->pt + win->pb, d[2] + win->pl + win->pr, d[3]});
    op(OperationType::PAD,
       {*in, add_const(OperandType::TENSOR_INT32, {4, 2},
                       {0, 0, static_cast<double>(win->pt), static_cast<double>(win->pb),
                        static_cast<double>(win->pl), static_cast<double>(win->pr), 0, 0})},
       {padded});
    *in = padded;
    win->pt = win->pl = win->pb = win->pr = 0;
  }
  const std::vector<int64_t> out_shape = {(*x)->shape[0], (*x)->shape[1], win->out_h, win->out_w};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(is_max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
     {*in, scalar_i32(static_cast<int32_t>(win->pl)), scalar_i32(static_cast<int32_t>(win->pr)),
      scalar_i32(static_cast<int32_t>(win->pt)), scalar_i32(static_cast<int32_t>(win->pb)),
      scalar_i32(static_cast<int32_t>(win->sw)), scalar_i32(static_cast<int32_t>(win->sh)),
      scalar_i32(static_cast<int32_t>(ks[1])), scalar_i32(static_cast<int32_t>(ks[0])), scalar_i32(0)},
     {out}, 9);
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

Result<void> Importer::on_global_pool(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only rank-4 X is supported");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const auto& s = (*x)->shape;
  if (s[2] > 65535 || s[3] > 65535) return make_error("spatial extent too large");
  const std::vector<int64_t> out_shape = {s[0], s[1], 1, 1};
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(out_shape, kNhwc), src.scale, src.zero_point);
  op(n.op_type() == "GlobalMaxPool" ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
     {*in, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1), scalar_i32(1),
      scalar_i32(static_cast<int32_t>(s[3])), scalar_i32(static_cast<int32_t>(s[2])), scalar_i32(0)},
     {out}, 9);
  define(n, 0, runtime(out, out_shape, kNhwc));
  return {};
}

// ReduceMean / ReduceMax / ReduceMin / ReduceSum → MEAN / REDUCE_* keeping the value's layout. The NNAPI
// operation keeps the reduced dimensions; keepdims=0 then drops them without moving data, except that a
// reduction to a scalar keeps rank (extents 1), which broadcasts exactly like the scalar.
Result<void> Importer::on_reduce(const onnx::NodeProto& n) {
  static const std::map<std::string, OperationType> kOps = {{"ReduceMean", OperationType::MEAN},
                                                            {"ReduceMax", OperationType::REDUCE_MAX},
                                                            {"ReduceMin", OperationType::REDUCE_MIN},
                                                            {"ReduceSum", OperationType::REDUCE_SUM}};
  const OperationType t = kOps.at(n.op_type());
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  std::vector<int64_t> axes = attr_ints(n, "axes");
  if (n.op_type() == "ReduceSum" && opset_ >= 13 && n.input_size() > 1 && !n.input(1).empty()) {
    auto a = const_input(n, 1, "axes");
    if (!a) return make_error(a.error());
    axes.assign(a->v.begin(), a->v.end());
  }
  if (axes.empty()) {
    if (attr_i(n, "noop_with_empty_axes", 0)) return make_error("noop_with_empty_axes is not supported");
    for (size_t i = 0; i < v.shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  auto ax = axes_of(axes, v.shape.size());
  if (!ax) return make_error(ax.error());
  const bool keep = attr_i(n, "keepdims", 1) != 0;
  auto in = in_layout(v, v.perm);
  if (!in) return make_error(in.error());
  std::vector<int32_t> nn_axes;
  for (int64_t a : *ax)
    nn_axes.push_back(static_cast<int32_t>(std::find(v.perm.begin(), v.perm.end(), a) - v.perm.begin()));
  std::vector<int64_t> kept = v.shape, dropped;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const bool reduced = std::find(ax->begin(), ax->end(), static_cast<int64_t>(i)) != ax->end();
    if (reduced) kept[i] = 1;
    if (!reduced) dropped.push_back(v.shape[i]);
  }
  const Operand& src = operand(*in);
  const uint32_t out = temp(src.type, nnapi_dims(kept, v.perm), src.scale, src.zero_point);
  const uint32_t keep_param =
      t == OperationType::MEAN ? scalar_i32(1) : add_const(OperandType::BOOL, {}, {1});
  op(t, {*in, tensor_i32(nn_axes), keep_param}, {out});
  Value result = runtime(out, kept, v.perm);
  if (!keep && !dropped.empty()) {
    auto r = reshape_ones(result, dropped);
    if (!r) return make_error(r.error());
    result = *r;
  }
  define(n, 0, std::move(result));
  return {};
}

// Softmax before opset 13 normalises the 2-D coercion [prod(d[:axis]), prod(d[axis:])]; from 13 along
// one axis. Both become: move the normalised axes last (TRANSPOSE), 2-D RESHAPE, SOFTMAX, and back.
Result<void> Importer::on_softmax(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  const Value& v = **x;
  const size_t rank = v.shape.size();
  auto axis = axes_of({attr_i(n, "axis", opset_ < 13 ? 1 : -1)}, rank);
  if (!axis) return make_error(axis.error());
  const auto ax = (*axis)[0];
  Value moved = v;
  Perm to_last = identity(rank);
  if (opset_ >= 13 && ax != static_cast<int64_t>(rank) - 1) {
    to_last.erase(to_last.begin() + ax);
    to_last.push_back(ax);
    const Perm qi = inverse(to_last);
    moved.shape.clear();
    for (int64_t k : to_last) moved.shape.push_back(v.shape[static_cast<size_t>(k)]);
    for (size_t i = 0; i < v.perm.size(); ++i) moved.perm[i] = qi[static_cast<size_t>(v.perm[i])];
  }
  const int64_t split = opset_ >= 13 ? static_cast<int64_t>(rank) - 1 : ax;
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < rank; ++i) (static_cast<int64_t>(i) < split ? outer : inner) *= moved.shape[i];
  auto flat = reshape(moved, {outer, inner});
  if (!flat) return make_error(flat.error());
  const uint32_t sm = temp(OperandType::TENSOR_FLOAT32, {outer, inner});
  op(OperationType::SOFTMAX, {flat->operand, scalar_f32(1.0f)}, {sm});
  auto back = reshape(runtime(sm, {outer, inner}, identity(2)), moved.shape);
  if (!back) return make_error(back.error());
  Value out = *back;
  if (to_last != identity(rank)) {
    // The ONNX view of `out` is `moved`; undo the move without moving data.
    out.shape = v.shape;
    out.perm = to_last;
  }
  define(n, 0, std::move(out));
  return {};
}

Result<void> Importer::on_lrn(const onnx::NodeProto& n) {
  auto x = input(n, 0);
  if (!x) return make_error(x.error());
  if ((*x)->shape.size() != 4) return make_error("only rank-4 X is supported");
  const int64_t size = attr_i(n, "size", 0);
  if (size < 1 || size % 2 == 0) return make_error("only odd sizes map to NNAPI's symmetric radius");
  auto in = in_layout(**x, kNhwc);
  if (!in) return make_error(in.error());
  const uint32_t out = temp(OperandType::TENSOR_FLOAT32, nnapi_dims((*x)->shape, kNhwc));
  op(OperationType::LOCAL_RESPONSE_NORMALIZATION,
     {*in, scalar_i32(static_cast<int32_t>((size - 1) / 2)), scalar_f32(attr_f(n, "bias", 1.0f)),
      scalar_f32(attr_f(n, "alpha", 1e-4f) / static_cast<float>(size)), scalar_f32(attr_f(n, "beta", 0.75f))},
     {out});
  define(n, 0, runtime(out, (*x)->shape, kNhwc));
  return {};
}

}  // namespace npu::models::onnx_import
