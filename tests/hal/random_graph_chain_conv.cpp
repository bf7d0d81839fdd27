// The chain generator's convolutions, pools and FULLY_CONNECTED.
#include "random_graph_chain.h"

namespace npu::hal::test::chain {

Value Generator::conv(const Value& in, bool last) {
  const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
  const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
  const uint32_t o = 1 + below(6), stride = 1 + below(2);
  const bool same = below(2);
  auto [f, b] = filter_and_bias(in, {o, kh, kw, c}, o);
  const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same), out_extent(w, kw, stride, same),
                                 o};
  note(OperationType::CONV_2D);
  const Value out = result(od, acc_scale(in, f, kh * kw * c), random_zero_point(), last);
  g_.op(OperationType::CONV_2D,
        {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
         g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(below(4)))},
        {out.index});
  return out;
}

Value Generator::depthwise(const Value& in, bool last) {
  const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
  const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
  const uint32_t mult = 1 + below(2), stride = 1 + below(2);
  const bool same = below(2);
  auto [f, b] = filter_and_bias(in, {1, kh, kw, c * mult}, c * mult);
  const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same), out_extent(w, kw, stride, same),
                                 c * mult};
  note(OperationType::DEPTHWISE_CONV_2D);
  const Value out = result(od, acc_scale(in, f, kh * kw), random_zero_point(), last);
  g_.op(OperationType::DEPTHWISE_CONV_2D,
        {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
         g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(mult)),
         g_.i32(static_cast<int32_t>(below(4)))},
        {out.index});
  return out;
}

Value Generator::pool(const Value& in, bool last) {
  const bool max = below(2);
  const uint32_t h = in.dims[1], w = in.dims[2];
  const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
  const uint32_t stride = 1 + below(2);
  const bool same = below(2);
  const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same), out_extent(w, kw, stride, same),
                                 in.dims[3]};
  note(max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D);
  const Value out = result(od, in.scale, in.zero_point, last);
  g_.op(max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
        {in.index, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
         g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(kw)),
         g_.i32(static_cast<int32_t>(kh)), g_.i32(static_cast<int32_t>(below(4)))},
        {out.index});
  return out;
}

Value Generator::fully_connected(const Value& in, bool last) {
  const uint32_t size = in.dims.back();
  const uint32_t batch = static_cast<uint32_t>(count(in.dims) / size);
  const uint32_t units = 1 + below(8);
  auto [f, b] = filter_and_bias(in, {units, size}, units);
  note(OperationType::FULLY_CONNECTED);
  const Value out = result({batch, units}, acc_scale(in, f, size), random_zero_point(), last);
  g_.op(OperationType::FULLY_CONNECTED, {in.index, f.index, b, g_.i32(static_cast<int32_t>(below(4)))},
        {out.index});
  return out;
}

// Explicit padding: out = stride·(in − 1) + k − head − tail, with head + tail < k.
Value Generator::transpose_conv(const Value& in, bool last) {
  const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
  const uint32_t kh = 1 + below(3), kw = 1 + below(3), o = 1 + below(5);
  const uint32_t sh = 1 + below(2), sw = 1 + below(2);
  const uint32_t top = below(kh), bottom = below(kh - top), left = below(kw), right = below(kw - left);
  auto [f, b] = filter_and_bias(in, {o, kh, kw, c}, o);
  const std::vector<uint32_t> od{in.dims[0], sh * (h - 1) + kh - top - bottom,
                                 sw * (w - 1) + kw - left - right, o};
  note(OperationType::TRANSPOSE_CONV_2D);
  const Value out = result(od, acc_scale(in, f, kh * kw * c), random_zero_point(), last);
  auto i = [&](uint32_t v) { return g_.i32(static_cast<int32_t>(v)); };
  g_.op(OperationType::TRANSPOSE_CONV_2D,
        {in.index, f.index, b, i(left), i(right), i(top), i(bottom), i(sw), i(sh), i(below(4)),
         g_.boolean(false)},
        {out.index});
  return out;
}

Value Generator::grouped_conv(const Value& in, bool last) {
  const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
  const uint32_t groups = c % 4 == 0 && below(2) ? 4 : 2;
  const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
  const uint32_t o = groups * (1 + below(3)), stride = 1 + below(2);
  const bool same = below(2);
  auto [f, b] = filter_and_bias(in, {o, kh, kw, c / groups}, o);
  const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same), out_extent(w, kw, stride, same),
                                 o};
  note(OperationType::GROUPED_CONV_2D);
  const Value out = result(od, acc_scale(in, f, kh * kw * c / groups), random_zero_point(), last);
  g_.op(OperationType::GROUPED_CONV_2D,
        {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
         g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(groups)),
         g_.i32(static_cast<int32_t>(below(4))), g_.boolean(false)},
        {out.index});
  return out;
}

Value Generator::l2_pool(const Value& in, bool last) {
  const uint32_t h = in.dims[1], w = in.dims[2];
  const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
  const uint32_t stride = 1 + below(2);
  const bool same = below(2);
  const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same), out_extent(w, kw, stride, same),
                                 in.dims[3]};
  note(OperationType::L2_POOL_2D);
  const Value out = result(od, 0, 0, last);
  g_.op(OperationType::L2_POOL_2D,
        {in.index, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
         g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(kw)),
         g_.i32(static_cast<int32_t>(kh)), g_.i32(static_cast<int32_t>(below(4)))},
        {out.index});
  return out;
}

}  // namespace npu::hal::test::chain
