// MEAN (NNAPI 1.1) and REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_SUM (1.2)
// kernels: one signature, one axis walk.
// NNAPI signature: input 0 a tensor of rank 1..4, input 1 the axes (1-D TENSOR_INT32, each in
// [-rank, rank), repeats allowed), input 2 keep_dims (MEAN: INT32, > 0 keeps reduced dimensions as
// extent 1; REDUCE_*: BOOL); output of the same type. Reducing every dimension without keep_dims gives
// shape [1]. Types: MEAN FLOAT32/FLOAT16/QUANT8_ASYMM (QUANT8_ASYMM_SIGNED since 1.3); REDUCE_SUM
// FLOAT32/FLOAT16; REDUCE_MAX/MIN those and both quant8 types, whose output must keep the input's
// scale and zero point (the result is one of the input values); REDUCE_PROD FLOAT32/FLOAT16 (product in
// input order, float32); REDUCE_ALL/ANY TENSOR_BOOL8 (logical and/or; results 0 or 1).
// Float MEAN and SUM add in input order; MAX/MIN start from the first element.
// MEAN float: sum in input order, divided by the element count. Quant8 MEAN follows NNAPI's reference
// (TFLite reference_ops::Mean<uint8_t, int32_t>): the raw quantised values are summed in int32 and
// divided by the count with truncation; scale and zero point are not applied (the output is read with
// its own). Signed values are offset by 128 first so the result equals the unsigned one minus 128.
#include <algorithm>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

// Which dimensions are reduced; nullopt while the axes are unknown.
Result<std::optional<std::vector<bool>>> reduced_axes(std::span<const OperandInfo> in, size_t rank) {
  const auto axes = int_tensor_value(in[1]);
  if (!axes) return std::optional<std::vector<bool>>();
  std::vector<bool> reduce(rank, false);
  const auto r = static_cast<int32_t>(rank);
  for (int32_t a : *axes) {
    if (a < -r || a >= r)
      return input_error(1, "axes",
                         "axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    reduce[static_cast<size_t>(a < 0 ? a + r : a)] = true;
  }
  return std::optional<std::vector<bool>>(reduce);
}

enum class Reduce { kAll, kAny, kMean, kMax, kMin, kProd, kSum };

class ReduceKernel final : public OperationKernel {
 public:
  ReduceKernel(models::OperationType type, Reduce f) : type_(type), f_(f) {}
  models::OperationType type() const override { return type_; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    auto t = f_ == Reduce::kSum || f_ == Reduce::kProd
                 ? expect_type(in, 0, "input", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16})
             : f_ == Reduce::kAll || f_ == Reduce::kAny
                 ? expect_type(in, 0, "input", {OperandType::TENSOR_BOOL8})
                 : expect_type(in, 0, "input", kFloatAndQuant8);
    if (!t) return make_error(t.error());
    if (auto r = expect_type(in, 1, "axes", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[1], 1, "axes", 1); !r) return make_error(r.error());
    if (auto r =
            expect_type(in, 2, "keep_dims", {f_ == Reduce::kMean ? OperandType::INT32 : OperandType::BOOL});
        !r)
      return make_error(r.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (f_ == Reduce::kMax || f_ == Reduce::kMin) {
      if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    } else if (auto r = expect_output_type(out, 0, in[0].type); !r) {
      return make_error(r.error());
    }
    if (!in[0].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const size_t rank = in[0].dimensions.size();
    if (rank < 1 || rank > 4)
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(rank));
    auto reduce = reduced_axes(in, rank);
    if (!reduce) return make_error(reduce.error());
    std::optional<int32_t> keep = int_param(in[2]);
    if (f_ != Reduce::kMean) {
      const std::optional<bool> k = bool_param(in[2]);
      keep = k ? std::optional<int32_t>(*k ? 1 : 0) : std::nullopt;
    }
    if (!*reduce || !keep) return std::vector<std::vector<uint32_t>>{{}};
    std::vector<uint32_t> shape;
    for (size_t k = 0; k < rank; ++k) {
      if (!(**reduce)[k])
        shape.push_back(in[0].dimensions[k]);
      else if (*keep > 0)
        shape.push_back(1);
    }
    if (shape.empty()) shape.push_back(1);
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    models::Tensor& o = *out[0];
    const auto& dims = in[0].dimensions;
    const size_t rank = dims.size();
    auto reduce = reduced_axes(in, rank);
    if (!reduce || !*reduce) return make_error("internal: axes unknown at execution");
    // Output position of each input element: the index over the kept dimensions.
    std::vector<uint32_t> kept(rank);
    for (size_t k = 0; k < rank; ++k) kept[k] = (**reduce)[k] ? 1 : dims[k];
    const uint64_t n_out = known_product(kept).value_or(1);
    const uint64_t n_in = known_product(dims).value_or(0);
    const uint64_t count = n_out == 0 ? 0 : n_in / n_out;
    if (count == 0) return make_error("internal: empty reduction");
    const std::vector<uint64_t> ks = row_major_strides(kept);
    auto out_index = [&](uint64_t flat) {
      uint64_t idx = 0;
      for (size_t k = rank; k-- > 0;) {
        const uint64_t c = flat % dims[k];
        flat /= dims[k];
        if (!(**reduce)[k]) idx += c * ks[k];
      }
      return idx;
    };
    if (f_ == Reduce::kAll || f_ == Reduce::kAny) {
      const std::vector<uint8_t>& x = *in[0].value;
      std::vector<int32_t> r(n_out, f_ == Reduce::kAll ? 1 : 0);
      for (uint64_t i = 0; i < n_in; ++i) {
        int32_t& v = r[out_index(i)];
        v = f_ == Reduce::kAll ? (v != 0 && x[i] != 0) : (v != 0 || x[i] != 0);
      }
      write_ints(o, r);
      return {};
    }
    if (f_ == Reduce::kProd) {
      const std::vector<float> x = read_floats(in[0]);
      std::vector<float> prod(n_out, 1.0f);
      for (uint64_t i = 0; i < n_in; ++i) prod[out_index(i)] *= x[i];
      write_floats(o, prod);
      return {};
    }
    if (f_ == Reduce::kMax || f_ == Reduce::kMin) {
      // Extremes work on floats and raw quantised values alike: first element, then compare.
      const bool quant = is_quant8(in[0].type);
      const std::vector<float> x = quant ? std::vector<float>() : read_floats(in[0]);
      const std::vector<int32_t> q = quant ? read_ints(in[0]) : std::vector<int32_t>();
      std::vector<bool> seen(n_out, false);
      std::vector<float> fr(quant ? 0 : n_out);
      std::vector<int32_t> qr(quant ? n_out : 0);
      for (uint64_t i = 0; i < n_in; ++i) {
        const uint64_t k = out_index(i);
        const bool first = !seen[k];
        seen[k] = true;
        if (quant)
          qr[k] = first ? q[i] : f_ == Reduce::kMax ? std::max(qr[k], q[i]) : std::min(qr[k], q[i]);
        else
          fr[k] = first ? x[i] : f_ == Reduce::kMax ? std::max(fr[k], x[i]) : std::min(fr[k], x[i]);
      }
      if (quant)
        write_ints(o, qr);
      else
        write_floats(o, fr);
      return {};
    }
    if (!is_quant8(in[0].type)) {
      const std::vector<float> x = read_floats(in[0]);
      std::vector<float> sum(n_out, 0.0f);
      for (uint64_t i = 0; i < n_in; ++i) sum[out_index(i)] += x[i];
      if (f_ == Reduce::kMean)
        for (float& s : sum) s /= static_cast<float>(count);
      write_floats(o, sum);
      return {};
    }
    int32_t qmin = 0;
    int32_t qmax = 0;
    quant8_range(in[0].type, &qmin, &qmax);
    const std::vector<int32_t> q = read_ints(in[0]);
    std::vector<int32_t> sum(n_out, 0);
    for (uint64_t i = 0; i < n_in; ++i) {
      int32_t& s = sum[out_index(i)];
      s = wrap_add(s, q[i] - qmin);
    }
    for (int32_t& s : sum)
      s = std::clamp(s / static_cast<int32_t>(std::min<uint64_t>(count, 0x7fffffff)), 0, 255) + qmin;
    write_ints(o, sum);
    return {};
  }

 private:
  models::OperationType type_;
  Reduce f_;
};

}  // namespace

const OperationKernel& reduce_all_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_ALL, Reduce::kAll);
  return kernel;
}
const OperationKernel& reduce_any_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_ANY, Reduce::kAny);
  return kernel;
}
const OperationKernel& reduce_prod_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_PROD, Reduce::kProd);
  return kernel;
}
const OperationKernel& mean_kernel() {
  static const ReduceKernel kernel(models::OperationType::MEAN, Reduce::kMean);
  return kernel;
}
const OperationKernel& reduce_max_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_MAX, Reduce::kMax);
  return kernel;
}
const OperationKernel& reduce_min_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_MIN, Reduce::kMin);
  return kernel;
}
const OperationKernel& reduce_sum_kernel() {
  static const ReduceKernel kernel(models::OperationType::REDUCE_SUM, Reduce::kSum);
  return kernel;
}

}  // namespace npu::hal::ops
