// STRIDED_SLICE kernel (NNAPI 1.1). NNAPI signature: input 0 a tensor of rank 1..4 (FLOAT32/FLOAT16/
// QUANT8_ASYMM(_SIGNED)), inputs 1 begin, 2 end, 3 strides (1-D TENSOR_INT32 of length rank, strides
// non-zero), 4 begin_mask, 5 end_mask, 6 shrink_axis_mask (INT32 bit masks). Per dimension, as NNAPI's
// reference (TFLite StartForAxis/StopForAxis): a masked begin/end means the full range in the stride's
// direction; negative indices count from the end; begin and end are clamped to [0, d] (stride > 0) or
// [-1, d-1] (stride < 0). A shrunk axis takes the single element at begin and is dropped from the
// output (begin must then be in range). Output extent ceil((end - begin) / stride); an empty slice is
// an error (NNAPI has no zero-sized tensors here). With every axis shrunk the output is [1].
#include <algorithm>
#include <limits>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

struct Slice {
  std::vector<int64_t> begin, stride;
  std::vector<uint32_t> extent;  // per input dimension
  std::vector<uint32_t> shape;   // output (shrunk axes dropped)
};

// The resolved slice, or nullopt while a parameter or extent is unknown.
Result<std::optional<Slice>> resolve(std::span<const OperandInfo> in) {
  const auto& dims = in[0].dimensions;
  const size_t rank = dims.size();
  const auto b = int_tensor_value(in[1]);
  const auto e = int_tensor_value(in[2]);
  const auto s = int_tensor_value(in[3]);
  const auto bm = int_param(in[4]);
  const auto em = int_param(in[5]);
  const auto sm = int_param(in[6]);
  static constexpr const char* kRoles[] = {"", "begin", "end", "strides"};
  for (size_t i = 1; i <= 3; ++i) {
    const auto& v = i == 1 ? b : (i == 2 ? e : s);
    if (v && v->size() != rank)
      return input_error(
          i, kRoles[i],
          "has " + std::to_string(v->size()) + " values, input rank is " + std::to_string(rank));
  }
  if (s) {
    for (int32_t v : *s) {
      if (v == 0) return input_error(3, "strides", "must be non-zero");
    }
  }
  if (!b || !e || !s || !bm || !em || !sm) return std::optional<Slice>();
  for (uint32_t d : dims) {
    if (d == 0) return std::optional<Slice>();
  }
  Slice sl;
  for (size_t k = 0; k < rank; ++k) {
    const int64_t d = dims[k];
    const int64_t stride = (*s)[k];
    const bool shrink = (static_cast<uint32_t>(*sm) >> k) & 1u;
    int64_t begin = (*b)[k];
    int64_t end = (*e)[k];
    if ((static_cast<uint32_t>(*bm) >> k) & 1u)
      begin = stride > 0 ? 0 : d - 1;
    else if (begin < 0)
      begin += d;
    if (shrink) {
      if (begin < 0 || begin >= d)
        return input_error(1, "begin",
                           "index " + std::to_string((*b)[k]) + " of shrunk dimension " + std::to_string(k) +
                               " is out of range");
      sl.begin.push_back(begin);
      sl.stride.push_back(1);
      sl.extent.push_back(1);
      continue;
    }
    if ((static_cast<uint32_t>(*em) >> k) & 1u)
      end = stride > 0 ? d : -1;
    else if (end < 0)
      end += d;
    int64_t extent = 0;
    if (stride > 0) {
      begin = std::clamp<int64_t>(begin, 0, d);
      end = std::clamp<int64_t>(end, 0, d);
      if (end > begin) extent = (end - begin + stride - 1) / stride;
    } else {
      begin = std::clamp<int64_t>(begin, -1, d - 1);
      end = std::clamp<int64_t>(end, -1, d - 1);
      if (begin > end) extent = (begin - end - stride - 1) / -stride;
    }
    if (extent == 0) {
      return make_error("output 0: the slice is empty along dimension " + std::to_string(k) +
                        " (zero-sized tensors are not supported)");
    }
    sl.begin.push_back(begin);
    sl.stride.push_back(stride);
    sl.extent.push_back(static_cast<uint32_t>(extent));
    sl.shape.push_back(static_cast<uint32_t>(extent));
  }
  // Every axis shrunk: NNAPI's output is [1] (a tensor has rank >= 1). An empty shape here would read as
  // "unknown" and let any declared shape through (a declared [2] got two elements).
  if (sl.shape.empty()) sl.shape.push_back(1);
  return std::optional<Slice>(sl);
}

class StridedSliceKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::STRIDED_SLICE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 7) return make_error("expected 7 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kFloatAndQuant8); !r) return make_error(r.error());
    static constexpr const char* kRoles[] = {"", "begin", "end", "strides"};
    for (size_t i = 1; i <= 3; ++i) {
      if (auto r = expect_type(in, i, kRoles[i], {OperandType::TENSOR_INT32}); !r)
        return make_error(r.error());
      if (auto r = expect_rank(in[i], i, kRoles[i], 1); !r) return make_error(r.error());
    }
    static constexpr const char* kMasks[] = {"begin mask", "end mask", "shrink axis mask"};
    for (size_t i = 4; i <= 6; ++i) {
      if (auto r = expect_type(in, i, kMasks[i - 4], {OperandType::INT32}); !r) return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[0]); !r) return make_error(r.error());
    if (!in[0].rank_known()) return std::vector<std::vector<uint32_t>>{{}};
    const size_t rank = in[0].dimensions.size();
    if (rank < 1 || rank > 4)
      return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(rank));
    auto sl = resolve(in);
    if (!sl) return make_error(sl.error());
    if (!*sl) return std::vector<std::vector<uint32_t>>{{}};
    return std::vector<std::vector<uint32_t>>{(*sl)->shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto sl = resolve(in);
    if (!sl || !*sl) return make_error("internal: slice unknown at execution");
    const Slice& s = **sl;
    const std::vector<uint64_t> is = row_major_strides(in[0].dimensions);
    const size_t rank = s.extent.size();
    return gather_elements(in[0], *out[0], [&](uint64_t flat) {
      uint64_t src = 0;
      for (size_t k = rank; k-- > 0;) {
        const uint64_t c = flat % s.extent[k];
        flat /= s.extent[k];
        src += static_cast<uint64_t>(s.begin[k] + static_cast<int64_t>(c) * s.stride[k]) * is[k];
      }
      return src;
    });
  }
};

}  // namespace

const OperationKernel& strided_slice_kernel() {
  static const StridedSliceKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
