#include "npu/models/quantize.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <tuple>

namespace npu::models {
namespace {

bool is_float_tensor(const Operand& o) { return o.type == OperandType::TENSOR_FLOAT32; }

// Asymmetric uint8 parameters covering [min, max] ∪ {0} (zero must be exact: padding, ReLU).
std::pair<float, int32_t> asym_params(Range r) {
  const double lo = std::min(0.0, static_cast<double>(r.min));
  const double hi = std::max(0.0, static_cast<double>(r.max));
  if (hi - lo < 1e-8) return {1.0f / 255.0f, 0};
  const double scale = (hi - lo) / 255.0;
  const auto zp = static_cast<int32_t>(std::clamp(std::round(-lo / scale), 0.0, 255.0));
  return {static_cast<float>(scale), zp};
}

std::vector<float> floats_of(const Operand& o) {
  std::vector<float> v(o.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(read_element(o.type, o.data, i));
  return v;
}

Range range_of(const std::vector<float>& v) {
  Range r;
  if (v.empty()) return r;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

// Union-find over operands that NNAPI requires to share quantisation.
struct Groups {
  std::vector<uint32_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

bool keeps_quantisation(OperationType t) {
  switch (t) {
    case OperationType::MAX_POOL_2D:
    case OperationType::AVERAGE_POOL_2D:
    case OperationType::RESHAPE:
    case OperationType::TRANSPOSE:
    case OperationType::PAD:
    case OperationType::STRIDED_SLICE:
    case OperationType::SQUEEZE:
    case OperationType::DEPTH_TO_SPACE:
    case OperationType::SPACE_TO_DEPTH:
    case OperationType::BATCH_TO_SPACE_ND:
    case OperationType::SPACE_TO_BATCH_ND:
    case OperationType::REDUCE_MAX:
    case OperationType::REDUCE_MIN:
    case OperationType::GATHER:
      return true;
    default:
      return false;
  }
}

bool has_quant8_form(OperationType t) {
  switch (t) {
    case OperationType::DIV:
    case OperationType::FLOOR:
    case OperationType::L2_NORMALIZATION:
    case OperationType::LOCAL_RESPONSE_NORMALIZATION:
    case OperationType::DEQUANTIZE:
    case OperationType::LSTM:
    case OperationType::RNN:
    case OperationType::SVDF:
    case OperationType::ABS:  // NNAPI 1.2 float-only functions
    case OperationType::EXP:
    case OperationType::LOG:
    case OperationType::NEG:
    case OperationType::RSQRT:
    case OperationType::SQRT:
    case OperationType::POW:
    case OperationType::REDUCE_SUM:
      return false;
    default:
      return true;
  }
}

// Float islands: each float-only operation reads its quantised inputs through DEQUANTIZE (one per
// operand), and each of its float outputs that a quantised operation reads goes through QUANTIZE with
// the parameters calibration gave it. Graph outputs produced in float stay float.
void insert_conversions(Model& q, const std::vector<Operand>& src, const std::vector<bool>& float_op,
                        const std::vector<bool>& keep_float,
                        const std::vector<std::pair<float, int32_t>>& params) {
  auto& g = q.main;
  std::vector<bool> read_quantised(src.size(), false);
  for (uint32_t k = 0; k < g.operations.size(); ++k)
    if (!float_op[k])
      for (uint32_t i : g.operations[k].inputs) read_quantised[i] = read_quantised[i] || keep_float[i];
  auto add = [&](Operand o) {
    o.lifetime = Lifetime::TEMPORARY_VARIABLE;
    o.data.clear();
    g.operands.push_back(std::move(o));
    return static_cast<uint32_t>(g.operands.size() - 1);
  };
  std::map<uint32_t, uint32_t> dequantized, quantized;
  std::vector<Operation> ops;
  for (uint32_t k = 0; k < g.operations.size(); ++k) {
    Operation op = g.operations[k];
    if (!float_op[k]) {
      for (uint32_t& i : op.inputs)
        if (keep_float[i] && !src[i].is_constant()) i = quantized.at(i);
      ops.push_back(std::move(op));
      continue;
    }
    for (uint32_t& i : op.inputs) {
      if (!is_float_tensor(src[i]) || src[i].is_constant() || keep_float[i] ||
          src[i].lifetime == Lifetime::NO_VALUE)
        continue;
      if (!dequantized.count(i)) {
        const uint32_t f = add(src[i]);
        ops.push_back({OperationType::DEQUANTIZE, {i}, {f}});
        dequantized[i] = f;
      }
      i = dequantized[i];
    }
    const std::vector<uint32_t> outs = op.outputs;
    ops.push_back(std::move(op));
    for (uint32_t o : outs) {
      if (!read_quantised[o]) continue;
      Operand qo = src[o];
      qo.type = OperandType::TENSOR_QUANT8_ASYMM;
      std::tie(qo.scale, qo.zero_point) = params[o];
      const uint32_t qi = add(qo);
      ops.push_back({OperationType::QUANTIZE, {o}, {qi}});
      quantized[o] = qi;
    }
  }
  g.operations = std::move(ops);
}

}  // namespace

std::vector<TensorMap> synthetic_inputs(const Model& model, uint32_t count, uint64_t seed, float lo,
                                        float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<TensorMap> samples(count);
  for (auto& s : samples) {
    for (uint32_t i : model.main.input_indexes) {
      const Operand& o = model.main.operands[i];
      Tensor t = make_tensor(o, o.dimensions);
      for (uint64_t k = 0; k < t.element_count(); ++k) write_element(t.type, t.data, k, dist(rng));
      s[i] = std::move(t);
    }
  }
  return samples;
}

Result<RangeMap> calibrate(const Model& model, const std::vector<TensorMap>& samples,
                           const ModelRunner& run) {
  if (samples.empty()) return make_error("calibration needs at least one input sample");
  Model probe = model;
  auto& g = probe.main;
  for (uint32_t i = 0; i < g.operands.size(); ++i) {
    if (g.operands[i].lifetime == Lifetime::TEMPORARY_VARIABLE && is_float_tensor(g.operands[i])) {
      g.operands[i].lifetime = Lifetime::SUBGRAPH_OUTPUT;
      g.output_indexes.push_back(i);
    }
  }
  RangeMap ranges;
  auto observe = [&](uint32_t i, const Tensor& t) {
    if (t.type != OperandType::TENSOR_FLOAT32 || t.data.empty()) return;
    std::vector<float> v(t.element_count());
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(read_element(t.type, t.data, k));
    const Range r = range_of(v);
    auto [it, fresh] = ranges.emplace(i, r);
    if (!fresh) it->second = {std::min(it->second.min, r.min), std::max(it->second.max, r.max)};
  };
  for (size_t s = 0; s < samples.size(); ++s) {
    auto out = run(probe, samples[s]);
    if (!out) return make_error("calibration sample " + std::to_string(s) + ": " + out.error());
    for (const auto& [i, t] : samples[s]) observe(i, t);
    for (const auto& [i, t] : *out) observe(i, t);
  }
  return ranges;
}

Result<void> check_quantizable(const Model& model) {
  const auto& ops = model.main.operands;
  if (std::any_of(ops.begin(), ops.end(), is_float_tensor)) return {};
  std::string input_types;
  for (uint32_t i : model.main.input_indexes)
    if (i < ops.size())
      input_types += (input_types.empty() ? "" : ", ") + std::string(to_string(ops[i].type));
  return make_error("the model is already quantised: no TENSOR_FLOAT32 operand to quantise (graph inputs: " +
                    (input_types.empty() ? std::string("none") : input_types) + ")");
}

Result<Model> quantize_model(const Model& model, const RangeMap& ranges, const QuantizeOptions& options) {
  if (auto ok = check_quantizable(model); !ok) return make_error(ok.error());
  Model q = model;
  auto& g = q.main;
  const auto& src = model.main.operands;
  Groups groups(src.size());
  std::vector<std::optional<std::pair<float, int32_t>>> fixed(src.size());
  // Weight and bias roles: filled by the operations that read them.
  enum class Role { None, Filter, DepthwiseFilter, FcWeights, Bias };
  std::vector<Role> role(src.size(), Role::None);
  std::vector<uint32_t> bias_of_input(src.size(), 0), bias_of_filter(src.size(), 0);
  // float_fallback: operations without a quant8 form, their outputs and their constants stay float.
  std::vector<bool> float_op(g.operations.size(), false), keep_float(src.size(), false);
  std::map<uint32_t, uint32_t> same_as_output;  // constant → the output whose quantisation it takes
  for (uint32_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    auto is_float_op =
        std::any_of(op.inputs.begin(), op.inputs.end(), [&](uint32_t i) { return is_float_tensor(src[i]); });
    if (!is_float_op) continue;
    if (!has_quant8_form(op.type)) {
      if (!options.float_fallback)
        return make_error("operations[" + std::to_string(k) + "] (" + std::string(to_string(op.type)) +
                          ") has no quant8 form in NNAPI");
      float_op[k] = true;
      for (uint32_t o : op.outputs) keep_float[o] = is_float_tensor(src[o]);
      for (uint32_t i : op.inputs)
        keep_float[i] = keep_float[i] || (src[i].is_constant() && is_float_tensor(src[i]));
      continue;
    }
    if (op.outputs.empty() || op.inputs.empty()) continue;
    if (keeps_quantisation(op.type)) groups.join(op.outputs[0], op.inputs[0]);
    // MAXIMUM/MINIMUM of two runtime values: one shared range, so neither input is requantised and the
    // NPU runs them (it does not requantise).
    // A constant operand takes the output's parameters too (see the weights loop). CONCATENATION likewise:
    // with one range for its inputs and output the NPU copies rows instead of the CPU requantising.
    const bool shares = op.type == OperationType::MAXIMUM || op.type == OperationType::MINIMUM ||
                        op.type == OperationType::CONCATENATION;
    if (shares && op.inputs.size() >= 2)
      for (uint32_t i : op.inputs) {
        if (!is_float_tensor(src[i])) continue;  // CONCATENATION's axis
        if (!src[i].is_constant())
          groups.join(op.outputs[0], i);
        else
          same_as_output[i] = op.outputs[0];
      }
    if (op.type == OperationType::LOGISTIC || op.type == OperationType::SOFTMAX)
      fixed[op.outputs[0]] = {{1.0f / 256, 0}};
    if (op.type == OperationType::TANH) fixed[op.outputs[0]] = {{1.0f / 128, 128}};
    const bool conv = op.type == OperationType::CONV_2D || op.type == OperationType::DEPTHWISE_CONV_2D;
    if (conv || op.type == OperationType::FULLY_CONNECTED) {
      if (op.inputs.size() < 3 || !src[op.inputs[1]].is_constant() || !src[op.inputs[2]].is_constant())
        return make_error("operations[" + std::to_string(k) + "]: weights and bias must be constants");
      role[op.inputs[1]] = op.type == OperationType::CONV_2D             ? Role::Filter
                           : op.type == OperationType::DEPTHWISE_CONV_2D ? Role::DepthwiseFilter
                                                                         : Role::FcWeights;
      role[op.inputs[2]] = Role::Bias;
      bias_of_input[op.inputs[2]] = op.inputs[0];
      bias_of_filter[op.inputs[2]] = op.inputs[1];
    }
  }
  // Activation parameters per group: the union of the members' ranges.
  std::map<uint32_t, Range> group_range;
  for (uint32_t i = 0; i < src.size(); ++i) {
    if (!is_float_tensor(src[i]) || src[i].is_constant() || src[i].lifetime == Lifetime::NO_VALUE) continue;
    const auto it = ranges.find(i);
    if (it == ranges.end()) return make_error("operand " + std::to_string(i) + " has no calibration range");
    auto [gr, fresh] = group_range.emplace(groups.find(i), it->second);
    if (!fresh)
      gr->second = {std::min(gr->second.min, it->second.min), std::max(gr->second.max, it->second.max)};
  }
  std::map<uint32_t, std::pair<float, int32_t>> group_fixed;
  for (uint32_t i = 0; i < src.size(); ++i)
    if (fixed[i]) group_fixed[groups.find(i)] = *fixed[i];
  std::vector<std::pair<float, int32_t>> params(src.size());  // also for kept-float values' QUANTIZE copies
  for (uint32_t i = 0; i < src.size(); ++i) {
    if (!is_float_tensor(src[i]) || src[i].is_constant() || src[i].lifetime == Lifetime::NO_VALUE) continue;
    // A fixed output (LOGISTIC, SOFTMAX, TANH) fixes its whole group: a RESHAPE after it keeps 1/256.
    const auto gf = group_fixed.find(groups.find(i));
    const auto [scale, zp] =
        gf != group_fixed.end() ? gf->second : asym_params(group_range.at(groups.find(i)));
    params[i] = {scale, zp};
    if (keep_float[i]) continue;
    g.operands[i].type = OperandType::TENSOR_QUANT8_ASYMM;
    g.operands[i].scale = scale;
    g.operands[i].zero_point = zp;
  }
  // Weights first (biases need their scales).
  for (uint32_t i = 0; i < src.size(); ++i) {
    if (!is_float_tensor(src[i]) || !src[i].is_constant() || role[i] == Role::Bias || keep_float[i]) continue;
    Operand& o = g.operands[i];
    const std::vector<float> v = floats_of(src[i]);
    const bool per_channel =
        options.per_channel && (role[i] == Role::Filter || role[i] == Role::DepthwiseFilter);
    if (per_channel) {
      const uint32_t dim = role[i] == Role::Filter ? 0 : 3;
      const uint32_t channels = o.dimensions[dim];
      uint64_t inner = 1;
      for (size_t d = dim + 1; d < o.dimensions.size(); ++d) inner *= o.dimensions[d];
      std::vector<float> amax(channels, 0.0f);
      for (size_t k = 0; k < v.size(); ++k) {
        auto& m = amax[(k / inner) % channels];
        m = std::max(m, std::fabs(v[k]));
      }
      PerChannelQuant pc;
      pc.channel_dim = dim;
      for (float m : amax) pc.scales.push_back(m > 0 ? m / 127.0f : 1.0f / 127.0f);
      o.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
      o.scale = 0;
      o.zero_point = 0;
      o.data.assign(v.size(), 0);
      for (size_t k = 0; k < v.size(); ++k)
        write_element(o.type, o.data, k, std::round(v[k] / pc.scales[(k / inner) % channels]));
      o.per_channel = std::move(pc);
      continue;
    }
    float scale;
    int32_t zp;
    if (const auto so = same_as_output.find(i); so != same_as_output.end()) {
      std::tie(scale, zp) = params[so->second];  // values outside the output's range clamp to it
    } else if (role[i] == Role::Filter || role[i] == Role::DepthwiseFilter || role[i] == Role::FcWeights) {
      const Range r = range_of(v);
      const float amax = std::max(std::fabs(r.min), std::fabs(r.max));
      scale = amax > 0 ? amax / 127.0f : 1.0f / 127.0f;  // symmetric around 128
      zp = 128;
    } else {
      std::tie(scale, zp) = asym_params(range_of(v));
    }
    o.type = OperandType::TENSOR_QUANT8_ASYMM;
    o.scale = scale;
    o.zero_point = zp;
    o.data.assign(v.size(), 0);
    for (size_t k = 0; k < v.size(); ++k) write_element(o.type, o.data, k, std::round(v[k] / scale) + zp);
  }
  for (uint32_t i = 0; i < src.size(); ++i) {
    if (role[i] != Role::Bias || !is_float_tensor(src[i])) continue;
    Operand& o = g.operands[i];
    const Operand& in = g.operands[bias_of_input[i]];
    const Operand& f = g.operands[bias_of_filter[i]];
    const std::vector<float> v = floats_of(src[i]);
    o.type = OperandType::TENSOR_INT32;
    o.zero_point = 0;
    o.data.assign(v.size() * 4, 0);
    if (f.per_channel) {
      o.scale = 0;  // NNAPI: per-channel bias scales are input_scale · filter_scale[c]
      for (size_t k = 0; k < v.size(); ++k)
        write_element(o.type, o.data, k, std::round(v[k] / (in.scale * f.per_channel->scales[k])));
    } else {
      o.scale = in.scale * f.scale;
      for (size_t k = 0; k < v.size(); ++k) write_element(o.type, o.data, k, std::round(v[k] / o.scale));
    }
  }
  if (std::any_of(float_op.begin(), float_op.end(), [](bool f) { return f; }))
    insert_conversions(q, src, float_op, keep_float, params);
  return q;
}

Tensor quantize_tensor(const Tensor& values, const Operand& desc) {
  Tensor t;
  t.type = desc.type;
  t.dimensions = values.dimensions;
  t.scale = desc.scale;
  t.zero_point = desc.zero_point;
  t.data.assign(values.element_count() * element_size(desc.type), 0);
  for (uint64_t k = 0; k < values.element_count(); ++k) {
    const double f = read_element(values.type, values.data, k);
    write_element(t.type, t.data, k, std::round(f / desc.scale) + desc.zero_point);
  }
  return t;
}

Tensor dequantize_tensor(const Tensor& q) {
  Tensor t;
  t.type = OperandType::TENSOR_FLOAT32;
  t.dimensions = q.dimensions;
  t.data.assign(q.element_count() * 4, 0);
  const bool quant =
      q.type == OperandType::TENSOR_QUANT8_ASYMM || q.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  for (uint64_t k = 0; k < q.element_count(); ++k) {
    const double v = read_element(q.type, q.data, k);
    write_element(t.type, t.data, k, quant ? (v - q.zero_point) * q.scale : v);
  }
  return t;
}

Result<QuantError> compare_quantized(const TensorMap& reference, const TensorMap& quantized) {
  QuantError e;
  double dot = 0, na = 0, nb = 0, sq = 0;
  for (const auto& [i, ref] : reference) {
    const auto it = quantized.find(i);
    if (it == quantized.end())
      return make_error("output " + std::to_string(i) + " is missing from the quantised run");
    const Tensor got = dequantize_tensor(it->second);
    if (got.element_count() != ref.element_count())
      return make_error("output " + std::to_string(i) + " has " + std::to_string(got.element_count()) +
                        " elements, the reference " + std::to_string(ref.element_count()));
    for (uint64_t k = 0; k < ref.element_count(); ++k) {
      const double a = read_element(ref.type, ref.data, k), b = read_element(got.type, got.data, k);
      e.max_abs = std::max(e.max_abs, std::fabs(a - b));
      sq += (a - b) * (a - b);
      dot += a * b;
      na += a * a;
      nb += b * b;
      ++e.elements;
    }
  }
  if (e.elements == 0) return make_error("no output elements to compare");
  e.mse = sq / static_cast<double>(e.elements);
  e.cosine = na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : (na == nb ? 1.0 : 0.0);
  return e;
}

}  // namespace npu::models
