// TOPK_V2 kernel (NNAPI 1.2): the k largest entries of each last-dimension row, largest first.
// NNAPI signature: input 0 a tensor of rank >= 1 (TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32,
// TENSOR_QUANT8_ASYMM; TENSOR_QUANT8_ASYMM_SIGNED since 1.3), input 1 k (INT32 in [1, last extent]);
// output 0 the values (input type and quantisation, shape [..., k]), output 1 their indices in the row
// (TENSOR_INT32, same shape). Equal values keep row order (the lower index first); NaN ranks last.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

class TopKV2Kernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::TOPK_V2; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r =
            expect_type(in, 0, "input",
                        {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r)
      return make_error(r.error());
    if (in[0].rank_known() && in[0].dimensions.empty()) return input_error(0, "input", "expected rank >= 1");
    const uint32_t last = in[0].dimensions.empty() ? 0 : in[0].dimensions.back();
    auto k = int_param_in_range(in, 1, "k", 1, last == 0 ? 0x7fffffff : static_cast<int32_t>(last));
    if (!k) return make_error(k.error());
    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (out[1].type != OperandType::TENSOR_INT32)
      return make_error("output 1: expected TENSOR_INT32, got " +
                        std::string(models::to_string(out[1].type)));
    std::vector<uint32_t> shape = in[0].dimensions;
    if (!shape.empty()) shape.back() = *k ? static_cast<uint32_t>(**k) : 0;
    return std::vector<std::vector<uint32_t>>{shape, shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const auto k = int_param(in[1]);
    if (!k || in[0].dimensions.empty()) return make_error("internal: unprepared TOPK_V2");
    const uint64_t n = in[0].dimensions.back();
    const auto kk = static_cast<uint64_t>(*k);
    const uint64_t rows = n == 0 ? 0 : in[0].value->size() / models::element_size(in[0].type) / n;
    std::vector<double> x(rows * n);
    for (uint64_t i = 0; i < x.size(); ++i) x[i] = models::read_element(in[0].type, *in[0].value, i);
    std::vector<uint64_t> source(rows * kk);
    std::vector<int32_t> indices(rows * kk);
    std::vector<uint64_t> order(n);
    for (uint64_t r = 0; r < rows; ++r) {
      std::iota(order.begin(), order.end(), uint64_t{0});
      const double* row = x.data() + r * n;
      // NaN ranks below every number (and equal to NaN), keeping the order strict-weak.
      std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
        return !std::isnan(row[a]) && (std::isnan(row[b]) || row[a] > row[b]);
      });
      for (uint64_t j = 0; j < kk; ++j) {
        source[r * kk + j] = r * n + order[j];
        indices[r * kk + j] = static_cast<int32_t>(order[j]);
      }
    }
    if (auto res = gather_elements(in[0], *out[0], [&](uint64_t i) { return source[i]; }); !res) return res;
    write_ints(*out[1], indices);
    return {};
  }
};

}  // namespace

const OperationKernel& topk_v2_kernel() {
  static const TopKV2Kernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
