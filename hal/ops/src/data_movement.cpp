// EXPAND_DIMS, SLICE, SPLIT and TILE kernels (NNAPI 1.2): pure data movement, every output element a
// copy of one input element, so outputs keep the input's type, scale and zero point (NNAPI requires the
// same quantisation) and signed quant8 results are the unsigned ones shifted by 128. Input 0 is a
// TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32, TENSOR_QUANT8_ASYMM or (since 1.3)
// TENSOR_QUANT8_ASYMM_SIGNED tensor.
//   EXPAND_DIMS: input 1 axis (INT32 in [-(n + 1), n]); output rank n + 1 with an extent 1 at the axis.
//   SLICE: input 0 of rank 1..4, input 1 begin and input 2 size (1-D TENSOR_INT32 of length rank);
//     0 <= begin < extent, size -1 (to the end) or 1..extent - begin.
//   SPLIT: input 1 axis (INT32 in [-n, n)), input 2 num_splits (INT32 >= 1, the output count, dividing
//     the axis extent); output k holds the k-th equal piece along the axis.
//   TILE: input 0 of rank 1..4, input 1 multiples (1-D TENSOR_INT32 of length rank, each >= 1); output
//     extent k is extent k * multiples[k], the input repeated.
#include "axis_util.h"
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

constexpr std::initializer_list<OperandType> kDataTypes = {
    OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
    OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED};

// Output `index` has input 0's type and quantisation.
Result<void> expect_output_like(std::span<const OperandInfo> out, size_t index, const OperandInfo& input) {
  if (auto r = expect_output_type(out, index, input.type); !r) return r;
  if (is_quant8(input.type) && (out[index].scale != input.scale || out[index].zero_point != input.zero_point))
    return make_error("output " + std::to_string(index) + ": quantisation must equal the input's (scale " +
                      std::to_string(input.scale) + ", zeroPoint " + std::to_string(input.zero_point) + ")");
  return {};
}

Result<void> expect_rank_1_to_4(const OperandInfo& in) {
  if (in.rank_known() && (in.dimensions.empty() || in.dimensions.size() > 4))
    return input_error(0, "input", "expected rank 1 to 4, got " + std::to_string(in.dimensions.size()));
  return {};
}

// A 1-D TENSOR_INT32 parameter of `rank` values (checked when its shape or value is known).
Result<std::optional<std::vector<int32_t>>> rank_vector(std::span<const OperandInfo> in, size_t index,
                                                        const char* role, const OperandInfo& input) {
  if (auto r = expect_type(in, index, role, {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
  if (auto r = expect_rank(in[index], index, role, 1); !r) return make_error(r.error());
  if (!input.rank_known()) return std::optional<std::vector<int32_t>>();
  const size_t rank = input.dimensions.size();
  const auto& d = in[index].dimensions;
  if (d.size() == 1 && d[0] != 0 && d[0] != rank)
    return input_error(
        index, role,
        "expected " + std::to_string(rank) + " values (the input's rank), got " + std::to_string(d[0]));
  auto v = int_tensor_value(in[index]);
  if (v && v->size() != rank)
    return input_error(
        index, role,
        "expected " + std::to_string(rank) + " values (the input's rank), got " + std::to_string(v->size()));
  return v;
}

// Source element of output element `flat` for an output that is a window/tiling of the input:
// input coordinate k = (output coordinate k) % modulo[k] + offset[k].
uint64_t source_of(uint64_t flat, const std::vector<uint32_t>& od, const std::vector<uint64_t>& is,
                   const std::vector<uint64_t>& offset, const std::vector<uint64_t>& modulo) {
  uint64_t src = 0;
  for (size_t k = od.size(); k-- > 0;) {
    const uint64_t c = flat % od[k];
    flat /= od[k];
    src += (c % modulo[k] + offset[k]) * is[k];
  }
  return src;
}

class ExpandDimsKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::EXPAND_DIMS; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kDataTypes); !r) return make_error(r.error());
    auto axis = axis_param(in, 1, "axis", in[0], 1);
    if (!axis) return make_error(axis.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like(out, 0, in[0]); !r) return make_error(r.error());
    if (!*axis) return std::vector<std::vector<uint32_t>>{{}};
    std::vector<uint32_t> shape = in[0].dimensions;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(**axis), 1u);
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    return gather_elements(in[0], *out[0], [](uint64_t i) { return i; });  // same bytes, new shape
  }
};

class SliceKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SLICE; }

  // Begin offsets and output extents once known.
  struct Window {
    std::vector<uint64_t> begin;
    std::vector<uint32_t> size;
  };

  Result<std::optional<Window>> window(std::span<const OperandInfo> in) const {
    auto begin = rank_vector(in, 1, "begin", in[0]);
    if (!begin) return make_error(begin.error());
    auto size = rank_vector(in, 2, "size", in[0]);
    if (!size) return make_error(size.error());
    if (!*begin || !*size || !in[0].rank_known()) return std::optional<Window>();
    Window w;
    for (size_t k = 0; k < in[0].dimensions.size(); ++k) {
      const int64_t d = in[0].dimensions[k];
      const int64_t b = (**begin)[k];
      const int64_t s = (**size)[k];
      if (d == 0) return std::optional<Window>();
      if (b < 0 || b >= d)
        return input_error(1, "begin",
                           "begin[" + std::to_string(k) + "] = " + std::to_string(b) + " outside [0, " +
                               std::to_string(d) + ")");
      if (s != -1 && (s < 1 || b + s > d))
        return input_error(2, "size",
                           "size[" + std::to_string(k) + "] = " + std::to_string(s) +
                               " must be -1 or in [1, " + std::to_string(d - b) + "]");
      w.begin.push_back(static_cast<uint64_t>(b));
      w.size.push_back(static_cast<uint32_t>(s == -1 ? d - b : s));
    }
    return std::optional<Window>(w);
  }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kDataTypes); !r) return make_error(r.error());
    if (auto r = expect_rank_1_to_4(in[0]); !r) return make_error(r.error());
    auto w = window(in);
    if (!w) return make_error(w.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like(out, 0, in[0]); !r) return make_error(r.error());
    if (!*w) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(in[0].dimensions.size(), 0)};
    return std::vector<std::vector<uint32_t>>{(*w)->size};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto w = window(in);
    if (!w || !*w) return make_error("internal: unprepared SLICE");
    const std::vector<uint32_t>& od = out[0]->dimensions;
    const std::vector<uint64_t> is = row_major_strides(in[0].dimensions);
    const std::vector<uint64_t> modulo(od.begin(), od.end());
    return gather_elements(in[0], *out[0],
                           [&](uint64_t i) { return source_of(i, od, is, (*w)->begin, modulo); });
  }
};

class SplitKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::SPLIT; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kDataTypes); !r) return make_error(r.error());
    if (in[0].rank_known() && in[0].dimensions.empty()) return input_error(0, "input", "expected rank >= 1");
    auto axis = axis_param(in, 1, "axis", in[0]);
    if (!axis) return make_error(axis.error());
    auto splits = int_param_in_range(in, 2, "num_splits", 1, 0x7fffffff);
    if (!splits) return make_error(splits.error());
    if (*splits && static_cast<size_t>(**splits) != out.size())
      return input_error(2, "num_splits",
                         "is " + std::to_string(**splits) + " but the operation has " +
                             std::to_string(out.size()) + " outputs");
    if (out.empty()) return make_error("expected at least 1 output");
    for (size_t k = 0; k < out.size(); ++k)
      if (auto r = expect_output_like(out, k, in[0]); !r) return make_error(r.error());
    std::vector<std::vector<uint32_t>> shapes(out.size(), std::vector<uint32_t>(in[0].dimensions.size(), 0));
    if (!*axis || !*splits) return shapes;
    std::vector<uint32_t> piece = in[0].dimensions;
    const uint32_t extent = piece[**axis];
    if (extent != 0) {
      if (extent % static_cast<uint32_t>(**splits) != 0)
        return input_error(
            2, "num_splits",
            std::to_string(**splits) + " does not divide the axis extent " + std::to_string(extent));
      piece[**axis] = extent / static_cast<uint32_t>(**splits);
    }
    return std::vector<std::vector<uint32_t>>(out.size(), piece);
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    auto axis = axis_param(in, 1, "axis", in[0]);
    if (!axis || !*axis) return make_error("internal: unprepared SPLIT");
    const std::vector<uint64_t> is = row_major_strides(in[0].dimensions);
    for (size_t k = 0; k < out.size(); ++k) {
      const std::vector<uint32_t>& od = out[k]->dimensions;
      std::vector<uint64_t> offset(od.size(), 0);
      offset[**axis] = static_cast<uint64_t>(od[**axis]) * k;
      const std::vector<uint64_t> modulo(od.begin(), od.end());
      if (auto r = gather_elements(in[0], *out[k],
                                   [&](uint64_t i) { return source_of(i, od, is, offset, modulo); });
          !r)
        return r;
    }
    return {};
  }
};

class TileKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::TILE; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "input", kDataTypes); !r) return make_error(r.error());
    if (auto r = expect_rank_1_to_4(in[0]); !r) return make_error(r.error());
    auto m = rank_vector(in, 1, "multiples", in[0]);
    if (!m) return make_error(m.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like(out, 0, in[0]); !r) return make_error(r.error());
    if (!*m) return std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(in[0].dimensions.size(), 0)};
    std::vector<uint32_t> shape(in[0].dimensions.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      const int32_t v = (**m)[k];
      if (v < 1)
        return input_error(1, "multiples",
                           "multiples[" + std::to_string(k) + "] must be >= 1, got " + std::to_string(v));
      const uint64_t e = static_cast<uint64_t>(in[0].dimensions[k]) * static_cast<uint64_t>(v);
      if (e > 0xffffffffu) return input_error(1, "multiples", "tiled extent overflows");
      shape[k] = static_cast<uint32_t>(e);
    }
    if (const auto n = known_product(shape);
        n && *n > models::max_operand_bytes() / models::element_size(in[0].type))
      return input_error(1, "multiples", "output of " + models::dims_to_string(shape) + " is too large");
    return std::vector<std::vector<uint32_t>>{shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<uint32_t>& od = out[0]->dimensions;
    const std::vector<uint64_t> is = row_major_strides(in[0].dimensions);
    const std::vector<uint64_t> offset(od.size(), 0);
    const std::vector<uint64_t> modulo(in[0].dimensions.begin(), in[0].dimensions.end());
    return gather_elements(in[0], *out[0], [&](uint64_t i) { return source_of(i, od, is, offset, modulo); });
  }
};

}  // namespace

const OperationKernel& expand_dims_kernel() {
  static const ExpandDimsKernel kernel;
  return kernel;
}
const OperationKernel& slice_kernel() {
  static const SliceKernel kernel;
  return kernel;
}
const OperationKernel& split_kernel() {
  static const SplitKernel kernel;
  return kernel;
}
const OperationKernel& tile_kernel() {
  static const TileKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
