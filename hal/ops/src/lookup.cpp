// EMBEDDING_LOOKUP and HASHTABLE_LOOKUP kernels (one file: both copy rows of a values tensor selected
// by a 1-D TENSOR_INT32 of lookups; the output has the values' type and quantisation and shape
// [number of lookups, values extents 1..]). Value types FLOAT32, INT32, QUANT8_ASYMM (NNAPI 1.0),
// FLOAT16 (1.2), QUANT8_ASYMM_SIGNED (1.3 — EMBEDDING_LOOKUP only; HASHTABLE_LOOKUP keeps 1.0 types).
//   EMBEDDING_LOOKUP: inputs 0 lookups, 1 values (rank >= 2); a lookup outside [0, rows) is an error.
//   HASHTABLE_LOOKUP: inputs 0 lookups, 1 keys (1-D TENSOR_INT32, NNAPI requires them sorted
//     ascending), 2 values [number of keys, ...]; outputs 0 the rows, 1 hits (TENSOR_QUANT8_ASYMM
//     [lookups]: 1 found, 0 missing, whose row is zeros). Keys are matched by linear scan (first match),
//     which equals NNAPI's binary search for sorted unique keys and stays defined for unsorted ones.
#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

Result<std::vector<uint32_t>> lookup_shape(std::span<const OperandInfo> in, size_t values_index) {
  const OperandInfo& v = in[values_index];
  if (!v.rank_known() || !in[0].rank_known()) return std::vector<uint32_t>{};
  if (v.dimensions.size() < 2)
    return input_error(values_index, "values",
                       "expected rank >= 2, got " + std::to_string(v.dimensions.size()));
  std::vector<uint32_t> shape = v.dimensions;
  shape[0] = in[0].dimensions[0];
  return shape;
}

class EmbeddingLookupKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::EMBEDDING_LOOKUP; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 2) return make_error("expected 2 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "lookups", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "lookups", 1); !r) return make_error(r.error());
    if (auto r =
            expect_type(in, 1, "values",
                        {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                         OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
        !r) {
      return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[1]); !r) return make_error(r.error());
    auto shape = lookup_shape(in, 1);
    if (!shape) return make_error(shape.error());
    if (const auto idx = int_tensor_value(in[0]); idx && in[1].rank_known() && in[1].dimensions[0] != 0) {
      for (int32_t i : *idx) {
        if (i < 0 || static_cast<uint32_t>(i) >= in[1].dimensions[0])
          return input_error(0, "lookups",
                             "index " + std::to_string(i) + " out of range [0, " +
                                 std::to_string(in[1].dimensions[0]) + ")");
      }
    }
    return std::vector<std::vector<uint32_t>>{*shape};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<int32_t> idx = read_ints(in[0]);
    const uint64_t rows = in[1].dimensions[0];
    const uint64_t row = rows == 0 ? 0 : known_product(in[1].dimensions).value_or(0) / rows;
    if (row == 0) return make_error("internal: empty values");
    return gather_elements(in[1], *out[0], [&](uint64_t flat) {
      const uint64_t l = flat / row;
      const int32_t r = l < idx.size() ? idx[l] : -1;
      if (r < 0 || static_cast<uint64_t>(r) >= rows) return ~uint64_t{0} - 1;  // out of range: an error
      return static_cast<uint64_t>(r) * row + flat % row;
    });
  }
};

class HashtableLookupKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::HASHTABLE_LOOKUP; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 3) return make_error("expected 3 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "lookups", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "lookups", 1); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "keys", {OperandType::TENSOR_INT32}); !r) return make_error(r.error());
    if (auto r = expect_rank(in[1], 1, "keys", 1); !r) return make_error(r.error());
    if (auto r = expect_type(in, 2, "values",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM});
        !r) {
      return make_error(r.error());
    }
    if (auto r = expect_output_count(out, 2); !r) return make_error(r.error());
    if (auto r = expect_output_like_input(out, in[2]); !r) return make_error(r.error());
    if (out[1].type != OperandType::TENSOR_QUANT8_ASYMM)
      return make_error("output 1 (hits): expected TENSOR_QUANT8_ASYMM, got " +
                        std::string(models::to_string(out[1].type)));
    auto shape = lookup_shape(in, 2);
    if (!shape) return make_error(shape.error());
    if (in[1].rank_known() && in[2].rank_known() && in[2].dimensions.size() >= 1 &&
        in[1].dimensions[0] != 0 && in[2].dimensions[0] != 0 && in[1].dimensions[0] != in[2].dimensions[0]) {
      return input_error(2, "values",
                         "has " + std::to_string(in[2].dimensions[0]) + " rows for " +
                             std::to_string(in[1].dimensions[0]) + " keys");
    }
    const uint32_t n = in[0].rank_known() ? in[0].dimensions[0] : 0;
    return std::vector<std::vector<uint32_t>>{*shape, {n}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const std::vector<int32_t> lookups = read_ints(in[0]);
    const std::vector<int32_t> keys = read_ints(in[1]);
    const uint64_t rows = in[2].dimensions[0];
    const uint64_t row = rows == 0 ? 0 : known_product(in[2].dimensions).value_or(0) / rows;
    if (row == 0) return make_error("internal: empty values");
    std::vector<uint64_t> found(lookups.size(), kFill);
    std::vector<int32_t> hits(lookups.size(), 0);
    for (size_t l = 0; l < lookups.size(); ++l) {
      for (size_t k = 0; k < keys.size() && k < rows; ++k) {
        if (keys[k] == lookups[l]) {
          found[l] = k;
          hits[l] = 1;
          break;
        }
      }
    }
    write_ints(*out[1], hits);
    return gather_elements(
        in[2], *out[0],
        [&](uint64_t flat) {
          const uint64_t l = flat / row;
          if (l >= found.size() || found[l] == kFill) return kFill;
          return found[l] * row + flat % row;
        },
        0);  // missing rows are zero bytes, as NNAPI memsets them
  }
};

}  // namespace

const OperationKernel& embedding_lookup_kernel() {
  static const EmbeddingLookupKernel kernel;
  return kernel;
}
const OperationKernel& hashtable_lookup_kernel() {
  static const HashtableLookupKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
