#include "random_graph.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <random>
#include <string_view>

#include "../hal_ops/test_models.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"

namespace npu::hal::test {
namespace {

using models::OperandType;
using models::OperationType;
using ops::test::GraphBuilder;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

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

  void note(std::string_view name) {
    if (!summary_.empty()) summary_ += " -> ";
    summary_ += name;
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
      switch (below(18)) {
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
          return fully_connected(in, last);
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
        default:
          if (rank4) return resize_bilinear(in, last);
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
    note(models::to_string(op));
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
    note(models::to_string(op));
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
    note("CONV_2D");
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
    note("DEPTHWISE_CONV_2D");
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
    note(max ? "MAX_POOL_2D" : "AVERAGE_POOL_2D");
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
    note("FULLY_CONNECTED");
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
    note("CONCATENATION");
    const Value out = result(od, random_scale(), random_zero_point(), last);
    g_.op(OperationType::CONCATENATION, {in.index, other.index, g_.i32(3)}, {out.index});
    return out;
  }

  Value softmax(const Value& in, bool last) {
    note("SOFTMAX");
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
    note("RESHAPE");
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(OperationType::RESHAPE,
          {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(shape.size())}, shape)},
          {out.index});
    return out;
  }

  Value pad(const Value& in, bool last) {
    std::vector<int32_t> paddings;
    std::vector<uint32_t> od = in.dims;
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const int32_t before = static_cast<int32_t>(below(3)), after = static_cast<int32_t>(below(3));
      paddings.push_back(before);
      paddings.push_back(after);
      od[d] += static_cast<uint32_t>(before + after);
    }
    note("PAD");
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
    note("TRANSPOSE");
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(OperationType::TRANSPOSE,
          {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(perm.size())}, perm)},
          {out.index});
    return out;
  }

  Value space_to_depth(const Value& in, bool last) {
    note("SPACE_TO_DEPTH");
    const Value out =
        result({in.dims[0], in.dims[1] / 2, in.dims[2] / 2, in.dims[3] * 4}, in.scale, in.zero_point, last);
    g_.op(OperationType::SPACE_TO_DEPTH, {in.index, g_.i32(2)}, {out.index});
    return out;
  }

  Value l2_normalization(const Value& in, bool last) {
    note("L2_NORMALIZATION");
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
    note("MEAN");
    const Value out = result(od, in.scale, in.zero_point, last);
    g_.op(OperationType::MEAN,
          {in.index, g_.ints(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes),
           g_.i32(keep ? 1 : 0)},
          {out.index});
    return out;
  }

  Value prelu(const Value& in, bool last) {
    const Value alpha = constant({in.dims.back()});
    note("PRELU");
    const Value out = result(in.dims, random_scale(), random_zero_point(), last);
    g_.op(OperationType::PRELU, {in.index, alpha.index}, {out.index});
    return out;
  }

  Value hard_swish(const Value& in, bool last) {
    note("HARD_SWISH");
    const Value out = result(in.dims, random_scale(), random_zero_point(), last);
    g_.op(OperationType::HARD_SWISH, {in.index}, {out.index});
    return out;
  }

  Value resize_bilinear(const Value& in, bool last) {
    const uint32_t h = 1 + below(8), w = 1 + below(8);
    note("RESIZE_BILINEAR");
    const Value out = result({in.dims[0], h, w, in.dims[3]}, in.scale, in.zero_point, last);
    g_.op(OperationType::RESIZE_BILINEAR,
          {in.index, g_.i32(static_cast<int32_t>(w)), g_.i32(static_cast<int32_t>(h))}, {out.index});
    return out;
  }

  std::mt19937_64 rng_;
  std::optional<OperandType> forced_type_;
  OperandType type_ = F32;
  GraphBuilder g_;
  TensorMap inputs_;
  std::string summary_;
};

std::string compare(const TensorMap& want, const TensorMap& got) {
  for (const auto& [idx, w] : want) {
    auto it = got.find(idx);
    if (it == got.end()) return "output " + std::to_string(idx) + " missing";
    const models::Tensor& g = it->second;
    if (w.dimensions != g.dimensions || w.data.size() != g.data.size())
      return "output " + std::to_string(idx) + " shape differs";
    if (!models::is_float_type(w.type)) {
      if (w.data != g.data) return "output " + std::to_string(idx) + " bytes differ";
      continue;
    }
    for (uint64_t i = 0; i < w.element_count(); ++i) {
      const double e = models::read_element(w.type, w.data, i), a = models::read_element(g.type, g.data, i);
      if (!(std::fabs(e - a) <= 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e)))
        return "output " + std::to_string(idx) + " element " + std::to_string(i) + ": cpu " +
               std::to_string(e) + ", npu " + std::to_string(a);
    }
  }
  return "";
}

std::string save(const RandomGraph& g, uint64_t seed, const std::string& dir) {
  const std::string base = dir + "/random_graph_" + std::to_string(seed);
  (void)models::save_model_json(g.model, base + ".json");
  std::ofstream(base + ".inputs.json") << models::io_to_json(g.inputs).dump(1) << "\n";
  return base + ".json";
}

}  // namespace

RandomGraph make_random_graph(uint64_t seed, std::optional<models::OperandType> type) {
  return Generator(seed, type).build();
}

std::string save_random_graph(uint64_t seed, const std::string& dir) {
  return save(make_random_graph(seed), seed, dir);
}

std::string check_random_graph(system::System& s, uint64_t seed, const std::string& failure_dir,
                               std::string* npu_placement) {
  const RandomGraph g = make_random_graph(seed);
  std::string problem;
  ExecutionResult results[2];
  Device* devices[2] = {&s.cpu_device(), &s.npu_device()};
  for (int d = 0; d < 2 && problem.empty(); ++d) {
    auto p = devices[d]->prepare_model(g.model);
    if (!p.status.ok()) {
      problem = std::string(d ? "npu" : "cpu") + " prepare: " + p.status.message;
      break;
    }
    if (d == 1 && npu_placement) *npu_placement = p.model->placement();
    results[d] = p.model->execute_synchronously(g.inputs, false);
    if (!results[d].status.ok())
      problem = std::string(d ? "npu" : "cpu") + " execute: " + results[d].status.message;
  }
  if (problem.empty()) problem = compare(results[0].outputs, results[1].outputs);
  if (problem.empty()) return "";
  if (!failure_dir.empty()) save(g, seed, failure_dir);
  return "seed " + std::to_string(seed) + " (" + g.summary + "): " + problem;
}

}  // namespace npu::hal::test
