#include "host_tensor.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "npu/models/tensor.h"

namespace npu::models::onnx_import {

Result<uint64_t> element_count(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return make_error("negative dimension " + std::to_string(d));
    if (d != 0 && n > kMaxHostElements / static_cast<uint64_t>(d))
      return make_error("tensor of shape " + dims_string(dims) + " is too large");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

namespace {

uint32_t raw_size(int32_t type) {
  switch (type) {
    case kFloat:
    case kInt32:
      return 4;
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    case kUint16:
    case kInt16:
    case kFloat16:
      return 2;
    case kInt64:
    case kDouble:
      return 8;
    default:
      return 0;
  }
}

double read_raw(int32_t type, const char* p) {
  switch (type) {
    case kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case kInt32: {
      int32_t i;
      std::memcpy(&i, p, 4);
      return i;
    }
    case kUint8:
      return static_cast<uint8_t>(*p);
    case kInt8:
      return static_cast<int8_t>(*p);
    case kBool:
      return *p != 0 ? 1.0 : 0.0;
    case kUint16: {
      uint16_t i;
      std::memcpy(&i, p, 2);
      return i;
    }
    case kInt16: {
      int16_t i;
      std::memcpy(&i, p, 2);
      return i;
    }
    case kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return half_to_float(h);
    }
    case kInt64: {
      int64_t i;
      std::memcpy(&i, p, 8);
      return static_cast<double>(i);
    }
    case kDouble: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    default:
      return 0;
  }
}

}  // namespace

Result<HostTensor> from_proto(const onnx::TensorProto& t) {
  HostTensor h;
  h.type = t.data_type();
  const uint32_t esize = raw_size(h.type);
  if (esize == 0) return make_error("element type " + type_name(h.type) + " is not supported");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return make_error("external tensor data is not supported");
  if (t.has_segment()) return make_error("segmented tensors are not supported");
  h.dims.assign(t.dims().begin(), t.dims().end());
  auto n = element_count(h.dims);
  if (!n) return make_error(n.error());
  h.v.reserve(*n);
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != *n * esize)
      return make_error("raw_data has " + std::to_string(raw.size()) + " bytes, shape " +
                        dims_string(h.dims) + " of " + type_name(h.type) + " needs " +
                        std::to_string(*n * esize));
    for (uint64_t i = 0; i < *n; ++i) h.v.push_back(read_raw(h.type, raw.data() + i * esize));
    return h;
  }
  auto check = [&](uint64_t have) -> Result<void> {
    if (have != *n)
      return make_error("has " + std::to_string(have) + " values, shape " + dims_string(h.dims) + " needs " +
                        std::to_string(*n));
    return {};
  };
  switch (h.type) {
    case kFloat:
      if (auto r = check(t.float_data_size()); !r) return make_error(r.error());
      for (float f : t.float_data()) h.v.push_back(f);
      break;
    case kInt64:
      if (auto r = check(t.int64_data_size()); !r) return make_error(r.error());
      for (int64_t i : t.int64_data()) h.v.push_back(static_cast<double>(i));
      break;
    case kDouble:
      if (auto r = check(t.double_data_size()); !r) return make_error(r.error());
      for (double d : t.double_data()) h.v.push_back(d);
      break;
    case kFloat16:
      if (auto r = check(t.int32_data_size()); !r) return make_error(r.error());
      for (int32_t i : t.int32_data()) h.v.push_back(half_to_float(static_cast<uint16_t>(i)));
      break;
    default:  // int32, int16, uint16, int8, uint8, bool: int32_data
      if (auto r = check(t.int32_data_size()); !r) return make_error(r.error());
      for (int32_t i : t.int32_data()) h.v.push_back(i);
      cast_to(&h, h.type);
      break;
  }
  return h;
}

std::vector<uint64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<uint64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * static_cast<uint64_t>(dims[i]);
  return s;
}

HostTensor transpose(const HostTensor& t, const std::vector<int64_t>& perm) {
  HostTensor out;
  out.type = t.type;
  for (int64_t p : perm) out.dims.push_back(t.dims[static_cast<size_t>(p)]);
  out.v.resize(t.v.size());
  const auto in_strides = strides_of(t.dims);
  const size_t rank = perm.size();
  std::vector<int64_t> idx(rank, 0);
  for (uint64_t o = 0; o < out.v.size(); ++o) {
    uint64_t src = 0;
    for (size_t k = 0; k < rank; ++k)
      src += static_cast<uint64_t>(idx[k]) * in_strides[static_cast<size_t>(perm[k])];
    out.v[o] = t.v[src];
    for (size_t k = rank; k-- > 0;) {
      if (++idx[k] < out.dims[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

Result<std::vector<int64_t>> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return make_error("shapes " + dims_string(a) + " and " + dims_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

HostTensor broadcast_to(const HostTensor& t, const std::vector<int64_t>& shape) {
  HostTensor out;
  out.type = t.type;
  out.dims = shape;
  std::vector<int64_t> padded(shape.size() - t.dims.size(), 1);
  padded.insert(padded.end(), t.dims.begin(), t.dims.end());
  const auto in_strides = strides_of(padded);
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  out.v.resize(n);
  std::vector<int64_t> idx(shape.size(), 0);
  for (uint64_t o = 0; o < n; ++o) {
    uint64_t src = 0;
    for (size_t k = 0; k < shape.size(); ++k)
      if (padded[k] != 1) src += static_cast<uint64_t>(idx[k]) * in_strides[k];
    out.v[o] = t.v[src];
    for (size_t k = shape.size(); k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

void cast_to(HostTensor* t, int32_t type) {
  auto clamp = [](double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); };
  for (double& x : t->v) {
    if (std::isnan(x) && type != kFloat && type != kDouble && type != kFloat16) x = 0;
    switch (type) {
      case kFloat:
        x = static_cast<float>(x);
        break;
      case kFloat16:
        x = half_to_float(float_to_half(static_cast<float>(x)));
        break;
      case kBool:
        x = x != 0 ? 1 : 0;
        break;
      case kUint8:
        x = clamp(std::trunc(x), 0, 255);
        break;
      case kInt8:
        x = clamp(std::trunc(x), -128, 127);
        break;
      case kUint16:
        x = clamp(std::trunc(x), 0, 65535);
        break;
      case kInt16:
        x = clamp(std::trunc(x), -32768, 32767);
        break;
      case kInt32:
        x = clamp(std::trunc(x), std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        break;
      case kInt64:
        x = clamp(std::trunc(x), -9.2e18, 9.2e18);
        break;
      default:
        break;
    }
  }
  t->type = type;
}

std::string type_name(int32_t onnx_type) {
  switch (onnx_type) {
    case kFloat:
      return "float";
    case kUint8:
      return "uint8";
    case kInt8:
      return "int8";
    case kUint16:
      return "uint16";
    case kInt16:
      return "int16";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kBool:
      return "bool";
    case kFloat16:
      return "float16";
    case kDouble:
      return "double";
    default:
      return "type " + std::to_string(onnx_type);
  }
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace npu::models::onnx_import
