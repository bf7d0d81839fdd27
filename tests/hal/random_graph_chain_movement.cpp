// The chain generator's data movements: reshapes, pads, transposes, slices, splits, tiles and shuffles.
#include "random_graph_chain.h"

namespace npu::hal::test::chain {

Value Generator::reshape(const Value& in, bool last) {
  const uint32_t n = static_cast<uint32_t>(count(in.dims));
  const std::vector<uint32_t> od = below(2) ? std::vector<uint32_t>{1, n} : std::vector<uint32_t>{1, 1, 1, n};
  std::vector<int32_t> shape(od.begin(), od.end());
  note(OperationType::RESHAPE);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::RESHAPE,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(shape.size())}, shape)},
        {out.index});
  return out;
}

Value Generator::pad(const Value& in, bool last) {
  const auto [paddings, od] = draw_padding(in);
  note(OperationType::PAD);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::PAD,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(in.dims.size()), 2}, paddings)},
        {out.index});
  return out;
}

Value Generator::transpose(const Value& in, bool last) {
  std::vector<int32_t> perm(in.dims.size());
  for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int32_t>(d);
  std::shuffle(perm.begin(), perm.end(), rng_);
  std::vector<uint32_t> od(in.dims.size());
  for (size_t d = 0; d < od.size(); ++d) od[d] = in.dims[static_cast<size_t>(perm[d])];
  note(OperationType::TRANSPOSE);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::TRANSPOSE,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(perm.size())}, perm)},
        {out.index});
  return out;
}

Value Generator::space_to_depth(const Value& in, bool last) {
  note(OperationType::SPACE_TO_DEPTH);
  const Value out =
      result({in.dims[0], in.dims[1] / 2, in.dims[2] / 2, in.dims[3] * 4}, in.scale, in.zero_point, last);
  g_.op(OperationType::SPACE_TO_DEPTH, {in.index, g_.i32(2)}, {out.index});
  return out;
}

Value Generator::resize_nearest(const Value& in, bool last) {
  const uint32_t h = 1 + below(8), w = 1 + below(8);
  const uint32_t mode = below(3);  // plain, align_corners, half_pixel_centers
  note(OperationType::RESIZE_NEAREST_NEIGHBOR);
  const Value out = result({in.dims[0], h, w, in.dims[3]}, in.scale, in.zero_point, last);
  g_.op(OperationType::RESIZE_NEAREST_NEIGHBOR,
        {in.index, g_.i32(static_cast<int32_t>(w)), g_.i32(static_cast<int32_t>(h)), g_.boolean(false),
         g_.boolean(mode == 1), g_.boolean(mode == 2)},
        {out.index});
  return out;
}

Value Generator::channel_shuffle(const Value& in, bool last) {
  const uint32_t c = in.dims.back();
  uint32_t groups = 1 + below(c);
  while (c % groups != 0) --groups;
  const bool negative_axis = below(2);
  note(OperationType::CHANNEL_SHUFFLE);
  const Value out = result(in.dims, in.scale, in.zero_point, last);
  g_.op(OperationType::CHANNEL_SHUFFLE,
        {in.index, g_.i32(static_cast<int32_t>(groups)),
         g_.i32(negative_axis ? -1 : static_cast<int32_t>(in.dims.size() - 1))},
        {out.index});
  return out;
}

Value Generator::slice(const Value& in, bool last) {
  std::vector<int32_t> begin, size;
  std::vector<uint32_t> od;
  for (uint32_t d : in.dims) {
    const uint32_t b = below(d), n = 1 + below(d - b);
    begin.push_back(static_cast<int32_t>(b));
    // −1 means "to the end".
    size.push_back(b + n == d && below(2) ? -1 : static_cast<int32_t>(n));
    od.push_back(n);
  }
  const uint32_t rank = static_cast<uint32_t>(in.dims.size());
  note(OperationType::SLICE);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::SLICE,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {rank}, begin),
         g_.ints(OperandType::TENSOR_INT32, {rank}, size)},
        {out.index});
  return out;
}

// SPLIT along an axis whose extent the split count divides; one part goes on, the others are outputs.
Value Generator::split(const Value& in, bool last) {
  const uint32_t axis = below(static_cast<uint32_t>(in.dims.size()));
  const uint32_t extent = in.dims[axis];
  uint32_t parts = 1 + below(std::min(extent, 4u));
  while (extent % parts != 0) --parts;
  std::vector<uint32_t> od = in.dims;
  od[axis] = extent / parts;
  const uint32_t keep = below(parts);
  note(OperationType::SPLIT);
  std::vector<uint32_t> outs;
  Value kept{};
  for (uint32_t k = 0; k < parts; ++k) {
    if (k == keep) {
      kept = result(od, in.scale, in.zero_point, last);
      outs.push_back(kept.index);
    } else {
      outs.push_back(g_.output(type_, od, quant() ? in.scale : 0.0f, quant() ? in.zero_point : 0));
    }
  }
  g_.op(OperationType::SPLIT,
        {in.index, g_.i32(static_cast<int32_t>(axis)), g_.i32(static_cast<int32_t>(parts))}, outs);
  return kept;
}

Value Generator::tile(const Value& in, bool last) {
  std::vector<int32_t> multiples;
  std::vector<uint32_t> od;
  for (uint32_t d : in.dims) {
    const uint32_t m = 1 + below(2);
    multiples.push_back(static_cast<int32_t>(m));
    od.push_back(d * m);
  }
  note(OperationType::TILE);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::TILE,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(multiples.size())}, multiples)},
        {out.index});
  return out;
}

Value Generator::expand_dims(const Value& in, bool last) {
  const uint32_t rank = static_cast<uint32_t>(in.dims.size());
  const uint32_t axis = below(rank + 1);
  std::vector<uint32_t> od = in.dims;
  od.insert(od.begin() + axis, 1u);
  note(OperationType::EXPAND_DIMS);
  const Value out = result(od, in.scale, in.zero_point, last);
  // A negative axis counts from the end of the output's rank.
  const int32_t a =
      below(2) ? static_cast<int32_t>(axis) : static_cast<int32_t>(axis) - static_cast<int32_t>(rank + 1);
  g_.op(OperationType::EXPAND_DIMS, {in.index, g_.i32(a)}, {out.index});
  return out;
}

Value Generator::pad_v2(const Value& in, bool last) {
  const auto [paddings, od] = draw_padding(in);
  const uint32_t value = quant() ? g_.i32(qmin() + static_cast<int32_t>(below(256)))
                                 : g_.floats({}, {uniform(-1.0f, 1.0f)}, OperandType::FLOAT32);
  note(OperationType::PAD_V2);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(OperationType::PAD_V2,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(in.dims.size()), 2}, paddings),
         value},
        {out.index});
  return out;
}

}  // namespace npu::hal::test::chain
