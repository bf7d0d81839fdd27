// Host-side tensors of the ONNX importer: initializers, Constant nodes and folded values, held as
// doubles (exact for every ONNX integer that can be a shape, and for float32) with ONNX dims and the
// ONNX element type. Only used inside the importer; large activations never live here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"

namespace onnx {
class TensorProto;
}

namespace npu::models::onnx_import {

// ONNX TensorProto.DataType codes the importer knows.
enum OnnxType : int32_t {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
};

// Largest constant the importer holds (elements).
constexpr uint64_t kMaxHostElements = uint64_t{1} << 28;

struct HostTensor {
  int32_t type = kFloat;
  std::vector<int64_t> dims;
  std::vector<double> v;

  uint64_t size() const { return v.size(); }
};

// Element count of dims, or an error for negative extents / overflow beyond kMaxHostElements.
Result<uint64_t> element_count(const std::vector<int64_t>& dims);

// Reads every supported storage form (typed fields and raw_data); checks the count against dims.
Result<HostTensor> from_proto(const onnx::TensorProto& t);

// Row-major strides of dims.
std::vector<uint64_t> strides_of(const std::vector<int64_t>& dims);

// out dim k = in dim perm[k].
HostTensor transpose(const HostTensor& t, const std::vector<int64_t>& perm);

// Numpy broadcast of two shapes; error when incompatible.
Result<std::vector<int64_t>> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// t broadcast to `shape` (which broadcast_shape(t.dims, shape) equals).
HostTensor broadcast_to(const HostTensor& t, const std::vector<int64_t>& shape);

// Rounds/saturates values to the element type (float32 rounding for kFloat, truncation toward zero
// for integer casts from floats as ONNX Cast does).
void cast_to(HostTensor* t, int32_t type);

std::string type_name(int32_t onnx_type);
std::string dims_string(const std::vector<int64_t>& dims);

}  // namespace npu::models::onnx_import
