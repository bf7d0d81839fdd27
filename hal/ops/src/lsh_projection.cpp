// LSH_PROJECTION kernel (NNAPI 1.0). Signature: 0 hash seeds, TENSOR_FLOAT32 (or TENSOR_FLOAT16 since 1.2)
// [num_hash, num_bits] (num_bits <= 32), 1 input, a tensor of rank >= 1 (TENSOR_FLOAT32, TENSOR_FLOAT16
// since 1.2, TENSOR_INT32 or TENSOR_QUANT8_ASYMM; its rows are hashed as raw bytes), 2 weight, optional,
// the hash's type [rows],
// 3 type INT32: 1 sparse (deprecated since 1.2), 2 dense, 3 sparse with offsets (1.2). Output
// TENSOR_INT32 [num_hash] (sparse) or [num_hash * num_bits] (dense).
// As NNAPI's reference: bit (i, j) is sign(sum over rows r of weight[r] * (double) Fingerprint64(seed_ij
// bytes ++ row r bytes)) > 0 (weight 1 when omitted; a float16 seed is widened to float32 first, so the
// key always starts with 4 seed bytes); sparse packs a hash's bits MSB first (type 3 adds
// i * 2^num_bits), dense writes each bit. Fingerprint64 is farmhash's (farmhashna::Hash64); keys up to
// 64 bytes are implemented, so rows longer than 60 bytes are rejected.
#include <cstring>

#include "kernel_util.h"
#include "kernels.h"

namespace npu::hal::ops {

using models::OperandType;
using namespace detail;

namespace {

constexpr uint64_t kMaxKeyBytes = 64;

namespace farmhash {

constexpr uint64_t k0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t k1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t k2 = 0x9ae16a3b2f90404fULL;

uint64_t fetch64(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);  // little-endian host, as the models' byte order
  return v;
}
uint32_t fetch32(const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t rotate(uint64_t v, int s) { return s == 0 ? v : ((v >> s) | (v << (64 - s))); }
uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
uint64_t hash_len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= (a >> 47);
  uint64_t b = (v ^ a) * mul;
  b ^= (b >> 47);
  return b * mul;
}

uint64_t len0to16(const uint8_t* s, uint64_t len) {
  if (len >= 8) {
    const uint64_t mul = k2 + len * 2;
    const uint64_t a = fetch64(s) + k2;
    const uint64_t b = fetch64(s + len - 8);
    const uint64_t c = rotate(b, 37) * mul + a;
    const uint64_t d = (rotate(a, 25) + b) * mul;
    return hash_len16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = k2 + len * 2;
    const uint64_t a = fetch32(s);
    return hash_len16(len + (a << 3), fetch32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint8_t a = s[0];
    const uint8_t b = s[len >> 1];
    const uint8_t c = s[len - 1];
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return shift_mix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

uint64_t len17to32(const uint8_t* s, uint64_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = fetch64(s) * k1;
  const uint64_t b = fetch64(s + 8);
  const uint64_t c = fetch64(s + len - 8) * mul;
  const uint64_t d = fetch64(s + len - 16) * k2;
  return hash_len16(rotate(a + b, 43) + rotate(c, 30) + d, a + rotate(b + k2, 18) + c, mul);
}

uint64_t len33to64(const uint8_t* s, uint64_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = fetch64(s) * k2;
  const uint64_t b = fetch64(s + 8);
  const uint64_t c = fetch64(s + len - 8) * mul;
  const uint64_t d = fetch64(s + len - 16) * k2;
  const uint64_t y = rotate(a + b, 43) + rotate(c, 30) + d;
  const uint64_t z = hash_len16(y, a + rotate(b + k2, 18) + c, mul);
  const uint64_t e = fetch64(s + 16) * k2;
  const uint64_t f = fetch64(s + 24);
  const uint64_t g = (y + fetch64(s + len - 32)) * mul;
  const uint64_t h = (z + fetch64(s + len - 24)) * mul;
  return hash_len16(rotate(e + f, 43) + rotate(g, 30) + h, e + rotate(f + a, 18) + g, mul);
}

uint64_t fingerprint64(const uint8_t* s, uint64_t len) {
  if (len <= 16) return len0to16(s, len);
  if (len <= 32) return len17to32(s, len);
  return len33to64(s, len);
}

}  // namespace farmhash

class LshProjectionKernel final : public OperationKernel {
 public:
  models::OperationType type() const override { return models::OperationType::LSH_PROJECTION; }

  Result<std::vector<std::vector<uint32_t>>> prepare(std::span<const OperandInfo> in,
                                                     std::span<const OperandInfo> out) const override {
    if (in.size() != 4) return make_error("expected 4 inputs, got " + std::to_string(in.size()));
    if (auto r = expect_type(in, 0, "hash", {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}); !r)
      return make_error(r.error());
    if (auto r = expect_rank(in[0], 0, "hash", 2); !r) return make_error(r.error());
    if (auto r = expect_type(in, 1, "input",
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM});
        !r) {
      return make_error(r.error());
    }
    if (in[1].rank_known() && in[1].dimensions.empty()) return input_error(1, "input", "expected rank >= 1");
    if (!in[2].omitted()) {
      if (auto r = expect_type(in, 2, "weight", {in[0].type}); !r) return make_error(r.error());
      if (auto r = expect_rank(in[2], 2, "weight", 1); !r) return make_error(r.error());
      if (in[2].rank_known() && in[1].rank_known() && in[2].dimensions[0] != 0 && in[1].dimensions[0] != 0 &&
          in[2].dimensions[0] != in[1].dimensions[0])
        return input_error(2, "weight", "must have one value per input row");
    }
    auto kind = int_param_in_range(in, 3, "type", 1, 3);
    if (!kind) return make_error(kind.error());
    if (auto r = expect_output_count(out, 1); !r) return make_error(r.error());
    if (auto r = expect_output_type(out, 0, OperandType::TENSOR_INT32); !r) return make_error(r.error());
    uint32_t num_hash = 0;
    uint32_t num_bits = 0;
    if (in[0].rank_known()) {
      num_hash = in[0].dimensions[0];
      num_bits = in[0].dimensions[1];
      if (num_bits > 32)
        return input_error(0, "hash", "num_bits " + std::to_string(num_bits) + " exceeds 32");
    }
    if (in[1].rank_known() && in[1].dimensions[0] != 0) {
      if (auto total = known_product(in[1].dimensions)) {
        const uint64_t row_bytes = *total / in[1].dimensions[0] * models::element_size(in[1].type);
        if (row_bytes + 4 > kMaxKeyBytes)
          return input_error(
              1, "input", "rows of " + std::to_string(row_bytes) + " bytes are not supported (at most 60)");
      }
    }
    if (!*kind) return std::vector<std::vector<uint32_t>>{{0}};
    const uint64_t n = **kind == 2 ? uint64_t{num_hash} * num_bits : num_hash;
    if (n > 0xffffffffu) return input_error(0, "hash", "too large");
    return std::vector<std::vector<uint32_t>>{{static_cast<uint32_t>(n)}};
  }

  Result<void> execute(std::span<const OperandInfo> in, std::span<models::Tensor* const> out) const override {
    const uint64_t num_hash = in[0].dimensions[0], num_bits = in[0].dimensions[1];
    const int32_t kind = int_param(in[3]).value_or(1);
    const std::vector<float> seeds = read_floats(in[0]);
    const std::vector<float> weight = in[2].omitted() ? std::vector<float>{} : read_floats(in[2]);
    const uint64_t rows = in[1].dimensions[0];
    const std::vector<uint8_t>& data = *in[1].value;
    if (rows == 0 || data.size() % rows != 0 || seeds.size() < num_hash * num_bits ||
        (!in[2].omitted() && weight.size() < rows))
      return make_error("internal: LSH_PROJECTION operand sizes");
    const uint64_t row_bytes = data.size() / rows;
    if (row_bytes + 4 > kMaxKeyBytes) return make_error("internal: LSH_PROJECTION key too long");
    uint8_t key[kMaxKeyBytes] = {};
    auto bit = [&](float seed) {
      double score = 0.0;
      for (uint64_t r = 0; r < rows; ++r) {
        std::memcpy(key, &seed, 4);
        std::memcpy(key + 4, data.data() + r * row_bytes, row_bytes);
        const auto h = static_cast<int64_t>(farmhash::fingerprint64(key, row_bytes + 4));
        const double v = static_cast<double>(h);
        score += weight.empty() ? v : static_cast<double>(weight[r]) * v;
      }
      return score > 0 ? 1 : 0;
    };
    std::vector<int32_t> result;
    for (uint64_t i = 0; i < num_hash; ++i) {
      uint32_t signature = 0;
      for (uint64_t j = 0; j < num_bits; ++j) {
        const int b = bit(seeds[i * num_bits + j]);
        if (kind == 2) result.push_back(b);
        signature = (signature << 1) | static_cast<uint32_t>(b);
      }
      if (kind == 2) continue;
      if (kind == 3) signature += static_cast<uint32_t>(i) << num_bits;
      result.push_back(static_cast<int32_t>(signature));
    }
    write_ints(*out[0], result);
    return {};
  }
};

}  // namespace

const OperationKernel& lsh_projection_kernel() {
  static const LshProjectionKernel kernel;
  return kernel;
}

}  // namespace npu::hal::ops
