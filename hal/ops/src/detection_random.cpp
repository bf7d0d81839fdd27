// RANDOM_MULTINOMIAL of NNAPI 1.2 (CPU only; kept with the detection operations it was listed with).
//   RANDOM_MULTINOMIAL: 0 logits [batches, classes] (float32/16), 1 samples (INT32 > 0), 2 seeds
//     TENSOR_INT32 [2]. Output TENSOR_INT32 [batches, samples]: class indices drawn from softmax(logits)
//     per row by inverse CDF on a splitmix64 stream seeded from both seeds (and the row), so the same
//     seeds give the same samples on every run and device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "detection_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class RandomMultinomialKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::RANDOM_MULTINOMIAL; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "logits", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}); !r)
      return make_error(r.error());
    if (auto r = expect_2d(in[0], 0, "logits", 0, 0); !r) return make_error(r.error());
    auto samples = int_param_in_range(in, 1, "samples", 1, std::numeric_limits<int32_t>::max());
    if (!samples) return make_error(samples.error());
    if (auto r = expect_type(in, 2, "seeds", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[2], 2, "seeds", 1); !r) return make_error(r.error());
    if (in[2].rank_known() && dim(in[2], 0) && dim(in[2], 0) != 2)
      return input_error(2, "seeds", "expected 2 values, got " + std::to_string(dim(in[2], 0)));
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_INT32); !r) return make_error(r.error());
    return std::vector<std::vector<uint32_t>>{
        {dim(in[0], 0), *samples ? static_cast<uint32_t>(**samples) : 0}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<float> logits = read_floats(in[0]);
    const std::vector<int32_t> seeds = read_ints(in[2]);
    const uint64_t batches = in[0].dimensions[0], classes = in[0].dimensions[1];
    const auto samples = static_cast<uint64_t>(int_param(in[1]).value_or(1));
    std::vector<int32_t> result(batches * samples);
    for (uint64_t b = 0; b < batches; ++b) {
      const float* row = &logits[b * classes];
      float mx = -std::numeric_limits<float>::infinity();
      for (uint64_t c = 0; c < classes; ++c) mx = std::max(mx, row[c]);
      if (!(mx > -std::numeric_limits<float>::infinity()))
        return input_error(0, "logits", "row " + std::to_string(b) + " gives every class probability 0");
      std::vector<double> cdf(classes);
      double total = 0.0;
      for (uint64_t c = 0; c < classes; ++c) cdf[c] = total += std::exp(static_cast<double>(row[c] - mx));
      uint64_t state = (static_cast<uint64_t>(static_cast<uint32_t>(seeds[0])) << 32) ^
                       static_cast<uint32_t>(seeds[1]) ^ (b * 0x632be59bd9b4e019ull);
      for (uint64_t s = 0; s < samples; ++s) {
        const double u = static_cast<double>(splitmix64(&state) >> 11) * 0x1.0p-53 * total;  // [0, total)
        const uint64_t c = static_cast<uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        result[b * samples + s] = static_cast<int32_t>(std::min(c, classes - 1));
      }
    }
    write_ints(*out[0], result);
    return {};
  }
};

}  // namespace

const OperationKernel& random_multinomial_kernel() {
  static const RandomMultinomialKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
