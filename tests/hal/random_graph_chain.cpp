// The chain generator: graph assembly, the step that draws each operation, and the elementwise,
// normalisation, reduction and resize operations.
#include "random_graph_chain.h"

namespace npu::hal::test::chain {

Value Generator::step(const Value& in, bool last) {
  const bool rank4 = in.dims.size() == 4;
  for (;;) {
    switch (below(32)) {
      case 0:
        return unary(in, last);
      case 1:
      case 2:
        return binary(in, last);
      case 3:
        if (rank4) return conv(in, last);
        break;
      case 4:
        if (rank4) return depthwise(in, last);
        break;
      case 5:
        if (rank4) return pool(in, last);
        break;
      case 6:
        if (in.dims.size() >= 2) return fully_connected(in, last);
        break;
      case 7:
        if (rank4) return concatenation(in, last);
        break;
      case 8:
        return softmax(in, last);
      case 9:
        return reshape(in, last);
      case 10:
        return pad(in, last);
      case 11:
        return transpose(in, last);
      case 12:
        if (rank4 && in.dims[1] % 2 == 0 && in.dims[2] % 2 == 0) return space_to_depth(in, last);
        break;
      case 13:
        if (rank4) return l2_normalization(in, last);
        break;
      case 14:
        if (rank4) return mean(in, last);
        break;
      case 15:
        return prelu(in, last);
      case 16:
        return hard_swish(in, last);
      case 17:
        if (rank4) return resize_bilinear(in, last);
        break;
      case 18:
        if (!quant()) return float_unary(in, last);
        break;
      case 19:
        if (rank4) return transpose_conv(in, last);
        break;
      case 20:
        if (rank4 && in.dims[3] % 2 == 0) return grouped_conv(in, last);
        break;
      case 21:
        if (rank4) return resize_nearest(in, last);
        break;
      case 22:
        if (in.dims.back() % 2 == 0) return channel_shuffle(in, last);
        break;
      case 23:
        return slice(in, last);
      case 24:
        return split(in, last);
      case 25:
        if (count(in.dims) <= 256) return tile(in, last);
        break;
      case 26:
        if (in.dims.size() < 4) return expand_dims(in, last);
        break;
      case 27:
        return pad_v2(in, last);
      case 28:
        return reduce(in, last);
      case 29:
        if (last && !quant()) return arg_min_max(in);
        break;
      case 30:
        if (rank4 && !quant()) return l2_pool(in, last);
        break;
      default:
        if (last && !quant()) return cast_to_int(in);
        break;
    }
  }
}

Value Generator::unary(const Value& in, bool last) {
  static constexpr OperationType kOps[] = {OperationType::RELU, OperationType::RELU1, OperationType::RELU6,
                                           OperationType::LOGISTIC, OperationType::TANH};
  const OperationType op = kOps[below(5)];
  float s = in.scale;
  int32_t z = in.zero_point;
  if (op == OperationType::LOGISTIC) s = 1.0f / 256, z = type_ == S8 ? -128 : 0;
  if (op == OperationType::TANH) s = 1.0f / 128, z = type_ == S8 ? 0 : 128;
  note(op);
  const Value out = result(in.dims, s, z, last);
  g_.op(op, {in.index}, {out.index});
  return out;
}

Value Generator::binary(const Value& in, bool last) {
  static constexpr OperationType kOps[] = {OperationType::ADD, OperationType::SUB, OperationType::MUL,
                                           OperationType::MAXIMUM, OperationType::MINIMUM};
  const OperationType op = kOps[below(5)];
  // The other operand: same shape or the innermost extent only (broadcast), input or constant.
  std::vector<uint32_t> other_dims = below(2) ? in.dims : std::vector<uint32_t>{in.dims.back()};
  const Value other = below(2) ? new_input(other_dims) : constant(other_dims);
  float s = random_scale();
  // MUL needs output scale > product of the input scales (NNAPI 1.0-1.1 rule, kept).
  if (op == OperationType::MUL) s = in.scale * other.scale * uniform(1.1f, 8.0f);
  const int32_t z = random_zero_point();
  note(op);
  const Value out = result(in.dims, s, z, last);
  std::vector<uint32_t> args{in.index, other.index};
  if (op == OperationType::ADD || op == OperationType::SUB || op == OperationType::MUL)
    args.push_back(g_.i32(static_cast<int32_t>(below(4))));
  g_.op(op, args, {out.index});
  return out;
}

Value Generator::concatenation(const Value& in, bool last) {
  // Since NN HAL 1.2 the inputs may have different scales and zero points from the output's.
  std::vector<uint32_t> other_dims = in.dims;
  other_dims[3] = 1 + below(4);
  const Value other = below(2) ? new_input(other_dims) : constant(other_dims);
  std::vector<uint32_t> od = in.dims;
  od[3] += other_dims[3];
  note(OperationType::CONCATENATION);
  const Value out = result(od, random_scale(), random_zero_point(), last);
  g_.op(OperationType::CONCATENATION, {in.index, other.index, g_.i32(3)}, {out.index});
  return out;
}

Value Generator::softmax(const Value& in, bool last) {
  note(OperationType::SOFTMAX);
  const Value out = result(in.dims, 1.0f / 256, type_ == S8 ? -128 : 0, last);
  g_.op(OperationType::SOFTMAX, {in.index, g_.floats({}, {uniform(0.25f, 2.0f)}, OperandType::FLOAT32)},
        {out.index});
  return out;
}

Value Generator::l2_normalization(const Value& in, bool last) {
  note(OperationType::L2_NORMALIZATION);
  const Value out = result(in.dims, 1.0f / 128, type_ == S8 ? 0 : 128, last);
  g_.op(OperationType::L2_NORMALIZATION, {in.index}, {out.index});
  return out;
}

Value Generator::mean(const Value& in, bool last) {
  // Spatial mean (axes 1 and 2) or over one random axis, keeping or dropping the reduced extents.
  std::vector<int32_t> axes =
      below(2) ? std::vector<int32_t>{1, 2} : std::vector<int32_t>{1 + static_cast<int32_t>(below(3))};
  const bool keep = below(2);
  std::vector<uint32_t> od;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int32_t>(d)) != axes.end();
    if (!reduced)
      od.push_back(in.dims[d]);
    else if (keep)
      od.push_back(1);
  }
  note(OperationType::MEAN);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::MEAN,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes),
         g_.i32(keep ? 1 : 0)},
        {out.index});
  return out;
}

Value Generator::prelu(const Value& in, bool last) {
  const Value alpha = constant({in.dims.back()});
  note(OperationType::PRELU);
  const Value out = result(in.dims, random_scale(), random_zero_point(), last);
  g_.op(OperationType::PRELU, {in.index, alpha.index}, {out.index});
  return out;
}

Value Generator::hard_swish(const Value& in, bool last) {
  note(OperationType::HARD_SWISH);
  const Value out = result(in.dims, random_scale(), random_zero_point(), last);
  g_.op(OperationType::HARD_SWISH, {in.index}, {out.index});
  return out;
}

Value Generator::resize_bilinear(const Value& in, bool last) {
  const uint32_t h = 1 + below(8), w = 1 + below(8);
  note(OperationType::RESIZE_BILINEAR);
  const Value out = result({in.dims[0], h, w, in.dims[3]}, in.scale, in.zero_point, last);
  g_.op(OperationType::RESIZE_BILINEAR,
        {in.index, g_.i32(static_cast<int32_t>(w)), g_.i32(static_cast<int32_t>(h))}, {out.index});
  return out;
}

// ABS, EXP, NEG, SIN or ELU: float-only unary operations the NPU's vector unit runs.
Value Generator::float_unary(const Value& in, bool last) {
  static constexpr OperationType kOps[] = {OperationType::ABS, OperationType::EXP, OperationType::NEG,
                                           OperationType::SIN, OperationType::ELU};
  const OperationType op = kOps[below(5)];
  note(op);
  const Value out = result(in.dims, 0, 0, last);
  std::vector<uint32_t> args{in.index};
  if (op == OperationType::ELU) args.push_back(g_.floats({}, {uniform(0.25f, 2.0f)}, OperandType::FLOAT32));
  g_.op(op, args, {out.index});
  return out;
}

// REDUCE_MAX or REDUCE_MIN (every type) or REDUCE_SUM (float) over one or two distinct axes.
Value Generator::reduce(const Value& in, bool last) {
  const uint32_t rank = static_cast<uint32_t>(in.dims.size());
  const OperationType op = !quant() && below(3) == 0 ? OperationType::REDUCE_SUM
                           : below(2)                ? OperationType::REDUCE_MAX
                                                     : OperationType::REDUCE_MIN;
  std::vector<int32_t> axes{static_cast<int32_t>(below(rank))};
  if (rank > 1 && below(2)) {
    const int32_t second = static_cast<int32_t>(below(rank));
    if (second != axes[0]) axes.push_back(second - static_cast<int32_t>(rank));  // negative form
  }
  const bool keep = below(2);
  std::vector<uint32_t> od;
  for (uint32_t d = 0; d < rank; ++d) {
    bool reduced = false;
    for (int32_t a : axes) reduced |= (a < 0 ? a + static_cast<int32_t>(rank) : a) == static_cast<int32_t>(d);
    if (!reduced)
      od.push_back(in.dims[d]);
    else if (keep)
      od.push_back(1);
  }
  if (od.empty()) od.push_back(1);  // every axis reduced without keep_dims: NNAPI gives shape [1]
  note(op);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(op,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes),
         g_.boolean(keep)},
        {out.index});
  return out;
}

// ARGMAX or ARGMIN ends a float chain (its output is TENSOR_INT32).
Value Generator::arg_min_max(const Value& in) {
  const OperationType op = below(2) ? OperationType::ARGMAX : OperationType::ARGMIN;
  const uint32_t axis = below(static_cast<uint32_t>(in.dims.size()));
  std::vector<uint32_t> od;
  for (uint32_t d = 0; d < in.dims.size(); ++d)
    if (d != axis) od.push_back(in.dims[d]);
  if (od.empty()) od.push_back(1);
  note(op);
  const uint32_t idx = g_.output(OperandType::TENSOR_INT32, od);
  g_.op(op, {in.index, g_.i32(static_cast<int32_t>(axis))}, {idx});
  return {idx, od, 0, 0};
}

// CAST ends a float chain: to TENSOR_INT32 (truncated toward zero after clamping).
Value Generator::cast_to_int(const Value& in) {
  note(OperationType::CAST);
  const uint32_t idx = g_.output(OperandType::TENSOR_INT32, in.dims);
  g_.op(OperationType::CAST, {in.index}, {idx});
  return {idx, in.dims, 0, 0};
}

}  // namespace npu::hal::test::chain

namespace npu::hal::test {

RandomGraph make_random_graph(uint64_t seed, std::optional<models::OperandType> type) {
  return chain::Generator(seed, type).build();
}

}  // namespace npu::hal::test
