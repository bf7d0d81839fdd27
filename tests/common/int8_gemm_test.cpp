// The exact int8 GEMM (npu/common/int8_gemm.h) against a plain scalar loop written here from the
// definition Σ_k (a − za)(w − zw) mod 2^32: random shapes with K, N and M tails around the kernels'
// block sizes (4 bytes of K, 16 columns, up to 16 rows), uint8 and int8 weight sources in both layouts,
// zero points 0 / 128 / 255 and signed ones, and sums that wrap around 32 bits.
#include "npu/common/int8_gemm.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "npu/common/fixed_point.h"

namespace {

using namespace npu::gemm;

struct Case {
  uint32_t m, k, n;
  bool w_unsigned, w_transposed;  // transposed: W given N×K (k contiguous), as CONV_2D / FC filters are
  std::vector<uint8_t> a, w;      // a: M×lda, lda = k + 5
  int32_t a_zero = 0;
  std::vector<int32_t> w_zero;  // per column, in the source's domain (uint8 or int8 values)
};

// The definition, in 64-bit then truncated: independent of the packing and of the kernels.
std::vector<int32_t> scalar_reference(const Case& c) {
  std::vector<int32_t> out(size_t{c.m} * c.n);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t j = 0; j < c.n; ++j) {
      int64_t acc = 0;
      for (uint32_t kk = 0; kk < c.k; ++kk) {
        const uint8_t raw = c.w_transposed ? c.w[size_t{j} * c.k + kk] : c.w[size_t{kk} * c.n + j];
        const int64_t wv = c.w_unsigned ? int64_t{raw} : int64_t{static_cast<int8_t>(raw)};
        acc += (int64_t{c.a[size_t{i} * (c.k + 5) + kk]} - c.a_zero) * (wv - c.w_zero[j]);
      }
      out[size_t{i} * c.n + j] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc)));
    }
  return out;
}

std::vector<int32_t> run(Kernel kernel, const Case& c) {
  PackedWeights pw;
  if (c.w_transposed)
    pw.pack(c.w.data(), c.k, c.n, 1, c.k, c.w_unsigned);
  else
    pw.pack(c.w.data(), c.k, c.n, c.n, 1, c.w_unsigned);
  std::vector<int32_t> offsets(c.n);
  for (uint32_t j = 0; j < c.n; ++j) offsets[j] = pw.stored_offset(c.w_zero[j]);
  const size_t ldc = c.n + 3;
  std::vector<int32_t> out(size_t{c.m} * ldc, 0x5A5A5A5A);
  multiply_offsets(kernel, c.a.data(), c.k + 5, c.m, c.a_zero, pw, offsets.data(), out.data(), ldc);
  std::vector<int32_t> packed(size_t{c.m} * c.n);
  for (uint32_t i = 0; i < c.m; ++i) {
    for (uint32_t j = 0; j < c.n; ++j) packed[size_t{i} * c.n + j] = out[i * ldc + j];
    for (uint32_t j = c.n; j < ldc; ++j)
      EXPECT_EQ(out[i * ldc + j], 0x5A5A5A5A) << "row " << i << " written past column N";
  }
  return packed;
}

Case random_case(std::mt19937& rng, uint32_t m, uint32_t k, uint32_t n, bool extreme) {
  std::uniform_int_distribution<int> byte(0, 255), coin(0, 1), pick(0, 4);
  Case c{m, k, n, coin(rng) == 1, coin(rng) == 1, {}, {}, 0, {}};
  auto value = [&] { return static_cast<uint8_t>(extreme ? (coin(rng) ? 0 : 255) : byte(rng)); };
  c.a.resize(size_t{m} * (k + 5));
  c.w.resize(size_t{k} * n);
  for (auto& v : c.a) v = value();
  for (auto& v : c.w) v = value();
  const int32_t zeros[] = {0, 128, 255, -128, 127};
  c.a_zero = zeros[pick(rng)];
  const bool per_column = coin(rng);
  const int32_t shared = zeros[pick(rng)];
  for (uint32_t j = 0; j < n; ++j) c.w_zero.push_back(per_column ? zeros[pick(rng)] : shared);
  return c;
}

void expect_exact(const Case& c, const std::string& what) {
  const std::vector<int32_t> want = scalar_reference(c);
  EXPECT_EQ(run(Kernel::PORTABLE, c), want) << what << " portable";
  if (kernel_available(Kernel::AVX512_VNNI)) {
    EXPECT_EQ(run(Kernel::AVX512_VNNI, c), want) << what << " vnni";
  }
  EXPECT_EQ(run(host_kernel(), c), want) << what << " via " << kernel_name(host_kernel());
}

TEST(Int8Gemm, MatchesTheScalarDefinitionOnRandomShapes) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<uint32_t> dim(1, 80);
  for (int i = 0; i < 250; ++i) {
    const uint32_t m = dim(rng), k = dim(rng) * (i % 4 == 0 ? 9 : 1), n = dim(rng);
    expect_exact(random_case(rng, m, k, n, i % 5 == 0), "case " + std::to_string(i));
  }
}

TEST(Int8Gemm, EveryTailOfKNAndM) {
  std::mt19937 rng(5);
  for (uint32_t k : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 63u, 64u, 65u})
    for (uint32_t n : {1u, 15u, 16u, 17u, 33u, 48u, 63u, 64u, 65u, 80u})
      for (uint32_t m : {1u, 5u, 6u, 7u, 11u, 12u, 13u, 16u, 17u, 49u})
        expect_exact(random_case(rng, m, k, n, false),
                     "m " + std::to_string(m) + " k " + std::to_string(k) + " n " + std::to_string(n));
}

// Every zero-point pairing the CPU reference meets: uint8 activations (0, 128, 255) and int8 (−128, 127,
// 0) against uint8 weights, int8 weights and per-channel symmetric ones (zero point 0).
TEST(Int8Gemm, ZeroPointsOfEveryOperandType) {
  std::mt19937 rng(9);
  for (int32_t za : {0, 128, 255, -128, 127})
    for (int32_t zw : {0, 128, 255, -128, 127})
      for (bool w_unsigned : {false, true}) {
        Case c = random_case(rng, 13, 27, 35, false);
        c.a_zero = za;
        c.w_unsigned = w_unsigned;
        c.w_zero.assign(c.n, zw);
        expect_exact(c, "za " + std::to_string(za) + " zw " + std::to_string(zw) +
                            (w_unsigned ? " uint8 w" : " int8 w"));
      }
}

// K = 2^16 + 3 products of 255·(−128) each: the sum leaves int32 and wraps, identically in every kernel.
TEST(Int8Gemm, SumsWrapAround32Bits) {
  std::mt19937 rng(11);
  Case c = random_case(rng, 3, (1u << 16) + 3, 20, false);
  std::fill(c.a.begin(), c.a.end(), uint8_t{255});
  c.w_unsigned = false;
  std::fill(c.w.begin(), c.w.end(), uint8_t{0x80});
  c.a_zero = -128;
  c.w_zero.assign(c.n, 127);
  const auto want = scalar_reference(c);
  ASSERT_NE(int64_t{want[0]}, (int64_t{255} + 128) * (-128 - 127) * int64_t{c.k}) << "the case must wrap";
  expect_exact(c, "wrap");
}

TEST(Int8Gemm, EmptyKGivesZeroOffsetsOnly) {
  Case c{4, 0, 18, false, false, std::vector<uint8_t>(4 * 5, 7), {}, 3, std::vector<int32_t>(18, 5)};
  const auto want = scalar_reference(c);
  EXPECT_EQ(want, std::vector<int32_t>(4 * 18, 0));
  expect_exact(c, "k 0");
}

// The output stage against fixed_point.h's scalar functions: random and extreme accumulators, biases that
// wrap, multipliers of every size (0 and INT32_MIN included), right and left shifts, tails of 16 lanes.
TEST(Int8Gemm, RequantizeRowMatchesTheFixedPointFunctions) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), shift(-40, 4), byte(-128, 255),
      len(1, 40);
  for (int round = 0; round < 400; ++round) {
    const uint32_t n = static_cast<uint32_t>(len(rng));
    std::vector<int32_t> acc(n), bias(n), mult(n), sh(n);
    for (uint32_t j = 0; j < n; ++j) {
      const int kind = static_cast<int>(rng() % 8);
      acc[j] = kind == 0   ? INT32_MIN
               : kind == 1 ? INT32_MAX
               : kind == 2 ? static_cast<int32_t>(rng() % 2001) - 1000
                           : any(rng);
      bias[j] = rng() % 3 == 0 ? 0 : any(rng);
      mult[j] =
          rng() % 9 == 0 ? (rng() % 2 ? 0 : INT32_MIN) : (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
      sh[j] = round % 4 == 0 ? shift(rng) : std::min(0, shift(rng));  // mostly right shifts, as real layers
    }
    if (round % 50 == 0)
      std::fill(bias.begin(), bias.end(), 0), std::fill(mult.begin(), mult.end(), INT32_MIN);
    const int32_t zp = byte(rng);
    int32_t lo = byte(rng), hi = byte(rng);
    if (lo > hi) std::swap(lo, hi);
    std::vector<uint8_t> want(n);
    for (uint32_t j = 0; j < n; ++j) {
      const auto sum = static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + static_cast<uint32_t>(bias[j]));
      const int32_t scaled = npu::fx::multiply_by_quantized_multiplier(sum, {mult[j], sh[j]});
      const auto v = static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(zp));
      want[j] = static_cast<uint8_t>(std::clamp(v, lo, hi));
    }
    for (Kernel kernel : {Kernel::PORTABLE, Kernel::AVX512_VNNI}) {
      if (!kernel_available(kernel)) continue;
      std::vector<uint8_t> got(n + 1, 0xEE);
      requantize_row(kernel, acc.data(), bias.data(), mult.data(), sh.data(), zp, lo, hi, got.data(), 1, n);
      EXPECT_EQ(got[n], 0xEE) << "wrote past n";
      got.resize(n);
      EXPECT_EQ(got, want) << "round " << round << " " << kernel_name(kernel);
    }
  }
}

}  // namespace
