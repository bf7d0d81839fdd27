// Chain graphs of make_random_graph(): 1-5 operations drawn over float32 and quant8 tensors.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string_view>

#include "../hal_ops/test_models.h"
#include "npu/hal/op_table.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/tensor.h"
#include "npu/models/validate.h"
#include "random_graph.h"

namespace npu::hal::test {
namespace {

using models::OperandType;
using models::OperationType;
using ops::test::GraphBuilder;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
using Cell = std::pair<OperationType, OperandType>;

// A tensor the next operation may consume.
struct Value {
  uint32_t index;
  std::vector<uint32_t> dims;
  float scale;
  int32_t zero_point;
};

class Generator {
 public:
  Generator(uint64_t seed, std::optional<OperandType> type) : rng_(seed), forced_type_(type) {}

  RandomGraph build() {
    const int pick = below(3);
    type_ = forced_type_ ? *forced_type_ : pick == 0 ? F32 : pick == 1 ? Q8 : S8;
    Value v = new_input({1, 1 + below(6), 1 + below(6), 1 + below(5)});
    const int ops = 1 + below(5);
    for (int i = 0; i < ops; ++i) v = step(v, i == ops - 1);
    RandomGraph g;
    g.model = g_.build();
    g.inputs = std::move(inputs_);
    g.summary = summary_;
    g.cells = std::move(cells_);
    return g;
  }

 private:
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  bool quant() const { return type_ != F32; }
  int32_t qmin() const { return type_ == S8 ? -128 : 0; }
  int32_t qmax() const { return type_ == S8 ? 127 : 255; }
  int32_t random_zero_point() { return qmin() + static_cast<int32_t>(below(256)); }
  float random_scale() { return std::ldexp(uniform(1.0f, 2.0f), -static_cast<int>(below(8))); }

  void note(OperationType op) {
    if (!summary_.empty()) summary_ += " -> ";
    summary_ += models::to_string(op);
    cells_.emplace_back(op, type_);
  }

  std::vector<int32_t> random_q(uint64_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = qmin() + static_cast<int32_t>(below(256));
    return v;
  }
  std::vector<float> random_f(uint64_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(-1.0f, 1.0f);
    return v;
  }
  static uint64_t count(const std::vector<uint32_t>& d) {
    uint64_t n = 1;
    for (uint32_t x : d) n *= x;
    return n;
  }

  Value new_input(std::vector<uint32_t> dims) {
    const float s = quant() ? random_scale() : 0.0f;
    const int32_t z = quant() ? random_zero_point() : 0;
    const uint32_t idx = g_.input(type_, dims, s, z);
    inputs_[idx] = quant() ? ops::test::int_tensor(type_, dims, random_q(count(dims)), s, z)
                           : ops::test::float_tensor(dims, random_f(count(dims)));
    return {idx, dims, s, z};
  }
  Value constant(std::vector<uint32_t> dims) {
    const float s = quant() ? random_scale() : 0.0f;
    const int32_t z = quant() ? random_zero_point() : 0;
    const uint32_t idx =
        quant() ? g_.ints(type_, dims, random_q(count(dims)), s, z) : g_.floats(dims, random_f(count(dims)));
    return {idx, dims, s, z};
  }
  // The next value: a graph output when last, else a temporary.
  Value result(std::vector<uint32_t> dims, float s, int32_t z, bool last) {
    if (!quant()) s = 0.0f, z = 0;
    const uint32_t idx = last ? g_.output(type_, dims, s, z) : g_.temp(type_, dims, s, z);
    return {idx, dims, s, z};
  }

  Value step(const Value& in, bool last) {
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

  Value unary(const Value& in, bool last) {
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

  Value binary(const Value& in, bool last) {
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

  // Filter and bias of a convolution: filter quantised with its own scale, bias INT32 at in·filter.
  std::pair<Value, uint32_t> filter_and_bias(const Value& in, std::vector<uint32_t> fdims, uint32_t bias_n) {
    const Value f = constant(fdims);
    uint32_t b;
    if (quant()) {
      std::vector<int32_t> bias(bias_n);
      for (auto& x : bias) x = static_cast<int32_t>(below(2001)) - 1000;
      b = g_.ints(OperandType::TENSOR_INT32, {bias_n}, bias, in.scale * f.scale, 0);
    } else {
      b = g_.floats({bias_n}, random_f(bias_n));
    }
    return {f, b};
  }

  static uint32_t out_extent(uint32_t in, uint32_t k, uint32_t stride, bool same) {
    return same ? (in + stride - 1) / stride : (in - k + stride) / stride;
  }

  // Output scale for an accumulation over `terms` products: roughly the accumulator's spread.
  float acc_scale(const Value& in, const Value& f, uint32_t terms) {
    return in.scale * f.scale * std::sqrt(static_cast<float>(terms)) * uniform(16.0f, 96.0f);
  }

  Value conv(const Value& in, bool last) {
    const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
    const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
    const uint32_t o = 1 + below(6), stride = 1 + below(2);
    const bool same = below(2);
    auto [f, b] = filter_and_bias(in, {o, kh, kw, c}, o);
    const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same),
                                   out_extent(w, kw, stride, same), o};
    note(OperationType::CONV_2D);
    const Value out = result(od, acc_scale(in, f, kh * kw * c), random_zero_point(), last);
    g_.op(OperationType::CONV_2D,
          {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
           g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(below(4)))},
          {out.index});
    return out;
  }

  Value depthwise(const Value& in, bool last) {
    const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
    const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
    const uint32_t mult = 1 + below(2), stride = 1 + below(2);
    const bool same = below(2);
    auto [f, b] = filter_and_bias(in, {1, kh, kw, c * mult}, c * mult);
    const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same),
                                   out_extent(w, kw, stride, same), c * mult};
    note(OperationType::DEPTHWISE_CONV_2D);
    const Value out = result(od, acc_scale(in, f, kh * kw), random_zero_point(), last);
    g_.op(OperationType::DEPTHWISE_CONV_2D,
          {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
           g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(mult)),
           g_.i32(static_cast<int32_t>(below(4)))},
          {out.index});
    return out;
  }

  Value pool(const Value& in, bool last) {
    const bool max = below(2);
    const uint32_t h = in.dims[1], w = in.dims[2];
    const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
    const uint32_t stride = 1 + below(2);
    const bool same = below(2);
    const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same),
                                   out_extent(w, kw, stride, same), in.dims[3]};
    note(max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D);
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(max ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D,
          {in.index, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
           g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(kw)),
           g_.i32(static_cast<int32_t>(kh)), g_.i32(static_cast<int32_t>(below(4)))},
          {out.index});
    return out;
  }

  Value fully_connected(const Value& in, bool last) {
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

  Value concatenation(const Value& in, bool last) {
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

  Value softmax(const Value& in, bool last) {
    note(OperationType::SOFTMAX);
    const Value out = result(in.dims, 1.0f / 256, type_ == S8 ? -128 : 0, last);
    g_.op(OperationType::SOFTMAX, {in.index, g_.floats({}, {uniform(0.25f, 2.0f)}, OperandType::FLOAT32)},
          {out.index});
    return out;
  }

  Value reshape(const Value& in, bool last) {
    const uint32_t n = static_cast<uint32_t>(count(in.dims));
    const std::vector<uint32_t> od =
        below(2) ? std::vector<uint32_t>{1, n} : std::vector<uint32_t>{1, 1, 1, n};
    std::vector<int32_t> shape(od.begin(), od.end());
    note(OperationType::RESHAPE);
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(OperationType::RESHAPE,
          {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(shape.size())}, shape)},
          {out.index});
    return out;
  }

  // 0–2 elements before and after each dimension (PAD, PAD_V2): the paddings operand's values and the
  // padded shape.
  struct Padding {
    std::vector<int32_t> paddings;
    std::vector<uint32_t> dims;
  };
  Padding draw_padding(const Value& in) {
    Padding p{{}, in.dims};
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const int32_t before = static_cast<int32_t>(below(3)), after = static_cast<int32_t>(below(3));
      p.paddings.push_back(before);
      p.paddings.push_back(after);
      p.dims[d] += static_cast<uint32_t>(before + after);
    }
    return p;
  }

  Value pad(const Value& in, bool last) {
    const auto [paddings, od] = draw_padding(in);
    note(OperationType::PAD);
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(
        OperationType::PAD,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(in.dims.size()), 2}, paddings)},
        {out.index});
    return out;
  }

  Value transpose(const Value& in, bool last) {
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

  Value space_to_depth(const Value& in, bool last) {
    note(OperationType::SPACE_TO_DEPTH);
    const Value out =
        result({in.dims[0], in.dims[1] / 2, in.dims[2] / 2, in.dims[3] * 4}, in.scale, in.zero_point, last);
    g_.op(OperationType::SPACE_TO_DEPTH, {in.index, g_.i32(2)}, {out.index});
    return out;
  }

  Value l2_normalization(const Value& in, bool last) {
    note(OperationType::L2_NORMALIZATION);
    const Value out = result(in.dims, 1.0f / 128, type_ == S8 ? 0 : 128, last);
    g_.op(OperationType::L2_NORMALIZATION, {in.index}, {out.index});
    return out;
  }

  Value mean(const Value& in, bool last) {
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

  Value prelu(const Value& in, bool last) {
    const Value alpha = constant({in.dims.back()});
    note(OperationType::PRELU);
    const Value out = result(in.dims, random_scale(), random_zero_point(), last);
    g_.op(OperationType::PRELU, {in.index, alpha.index}, {out.index});
    return out;
  }

  Value hard_swish(const Value& in, bool last) {
    note(OperationType::HARD_SWISH);
    const Value out = result(in.dims, random_scale(), random_zero_point(), last);
    g_.op(OperationType::HARD_SWISH, {in.index}, {out.index});
    return out;
  }

  Value resize_bilinear(const Value& in, bool last) {
    const uint32_t h = 1 + below(8), w = 1 + below(8);
    note(OperationType::RESIZE_BILINEAR);
    const Value out = result({in.dims[0], h, w, in.dims[3]}, in.scale, in.zero_point, last);
    g_.op(OperationType::RESIZE_BILINEAR,
          {in.index, g_.i32(static_cast<int32_t>(w)), g_.i32(static_cast<int32_t>(h))}, {out.index});
    return out;
  }

  // ABS, EXP, NEG, SIN or ELU: float-only unary operations the NPU's vector unit runs.
  Value float_unary(const Value& in, bool last) {
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

  // Explicit padding: out = stride·(in − 1) + k − head − tail, with head + tail < k.
  Value transpose_conv(const Value& in, bool last) {
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

  Value grouped_conv(const Value& in, bool last) {
    const uint32_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
    const uint32_t groups = c % 4 == 0 && below(2) ? 4 : 2;
    const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
    const uint32_t o = groups * (1 + below(3)), stride = 1 + below(2);
    const bool same = below(2);
    auto [f, b] = filter_and_bias(in, {o, kh, kw, c / groups}, o);
    const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same),
                                   out_extent(w, kw, stride, same), o};
    note(OperationType::GROUPED_CONV_2D);
    const Value out = result(od, acc_scale(in, f, kh * kw * c / groups), random_zero_point(), last);
    g_.op(OperationType::GROUPED_CONV_2D,
          {in.index, f.index, b, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
           g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(groups)),
           g_.i32(static_cast<int32_t>(below(4))), g_.boolean(false)},
          {out.index});
    return out;
  }

  Value resize_nearest(const Value& in, bool last) {
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

  Value channel_shuffle(const Value& in, bool last) {
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

  Value slice(const Value& in, bool last) {
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
  Value split(const Value& in, bool last) {
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

  Value tile(const Value& in, bool last) {
    std::vector<int32_t> multiples;
    std::vector<uint32_t> od;
    for (uint32_t d : in.dims) {
      const uint32_t m = 1 + below(2);
      multiples.push_back(static_cast<int32_t>(m));
      od.push_back(d * m);
    }
    note(OperationType::TILE);
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(
        OperationType::TILE,
        {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(multiples.size())}, multiples)},
        {out.index});
    return out;
  }

  Value expand_dims(const Value& in, bool last) {
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

  Value pad_v2(const Value& in, bool last) {
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

  // REDUCE_MAX or REDUCE_MIN (every type) or REDUCE_SUM (float) over one or two distinct axes.
  Value reduce(const Value& in, bool last) {
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
      for (int32_t a : axes)
        reduced |= (a < 0 ? a + static_cast<int32_t>(rank) : a) == static_cast<int32_t>(d);
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
  Value arg_min_max(const Value& in) {
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

  Value l2_pool(const Value& in, bool last) {
    const uint32_t h = in.dims[1], w = in.dims[2];
    const uint32_t kh = 1 + below(std::min(h, 3u)), kw = 1 + below(std::min(w, 3u));
    const uint32_t stride = 1 + below(2);
    const bool same = below(2);
    const std::vector<uint32_t> od{in.dims[0], out_extent(h, kh, stride, same),
                                   out_extent(w, kw, stride, same), in.dims[3]};
    note(OperationType::L2_POOL_2D);
    const Value out = result(od, 0, 0, last);
    g_.op(OperationType::L2_POOL_2D,
          {in.index, g_.i32(same ? 1 : 2), g_.i32(static_cast<int32_t>(stride)),
           g_.i32(static_cast<int32_t>(stride)), g_.i32(static_cast<int32_t>(kw)),
           g_.i32(static_cast<int32_t>(kh)), g_.i32(static_cast<int32_t>(below(4)))},
          {out.index});
    return out;
  }

  // CAST ends a float chain: to TENSOR_INT32 (truncated toward zero after clamping).
  Value cast_to_int(const Value& in) {
    note(OperationType::CAST);
    const uint32_t idx = g_.output(OperandType::TENSOR_INT32, in.dims);
    g_.op(OperationType::CAST, {in.index}, {idx});
    return {idx, in.dims, 0, 0};
  }

  std::mt19937_64 rng_;
  std::optional<OperandType> forced_type_;
  OperandType type_ = F32;
  GraphBuilder g_;
  TensorMap inputs_;
  std::string summary_;
  std::vector<Cell> cells_;
};

}  // namespace

RandomGraph make_random_graph(uint64_t seed, std::optional<models::OperandType> type) {
  return Generator(seed, type).build();
}

}  // namespace npu::hal::test
