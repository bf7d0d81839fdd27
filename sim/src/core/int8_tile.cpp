// The int8 tile arithmetic of the compute core (the golden model) and its vectorised forms. Every kernel
// computes acc[i][j] = Σ_k a[i][k]·w[k][j] in 32-bit wrapping arithmetic — spelled in uint32 where C++
// would otherwise call signed overflow undefined — then requantises exactly as the RTL does. Integer
// wrapping addition is associative, so summation order does not change a bit of the result; the SIMD
// kernels rely on that and on products of int8 values fitting int16 pairs: a pair sum a0·w0 + a1·w1 is
// at most 2·128² = 2^15 in magnitude, exact in the int32 lane that vpmaddwd / vpdpwssd produce.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/sim/core/compute_core.h"

namespace npu::sim {
namespace {

// Requantises columns [j0, j1) of row i from their accumulated Σ a·w (acc[j - j0]) and stores them.
void finish_row(const Int8TileCommand& c, uint32_t i, uint32_t j0, uint32_t j1, const uint32_t* acc,
                uint32_t row_sum) {
  uint8_t* out = c.out + static_cast<size_t>(i) * c.ldo;
  const uint32_t offset_term = static_cast<uint32_t>(c.weight_offset) * row_sum;
  for (uint32_t j = j0; j < j1; ++j) {
    const auto scaled = fx::multiply_by_quantized_multiplier(
        static_cast<int32_t>(acc[j - j0] + static_cast<uint32_t>(c.bias[j]) - offset_term),
        {c.out_multiplier[j], c.out_shift[j]});
    const int32_t v = std::clamp(
        static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(c.out_zero_point)),
        c.clamp_lo, c.clamp_hi);
    out[j] = c.out_unsigned ? static_cast<uint8_t>(v) : static_cast<uint8_t>(static_cast<int8_t>(v));
  }
}

uint32_t pair_of(int8_t lo, int8_t hi) {
  return static_cast<uint16_t>(static_cast<int16_t>(lo)) |
         (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16);
}

// The operands rearranged for pairwise int16 multiply-add: W as [K/2][N padded to `lanes`] int32 words, each
// holding the int16 weights of rows 2p and 2p+1 of one column; A rows as int32 words holding the int16
// activations 2p and 2p+1 (odd K padded with a zero row/column, which adds nothing).
struct PairedOperands {
  uint32_t k_pairs = 0, n_padded = 0;
  std::vector<uint32_t> w;

  PairedOperands(const Int8TileCommand& c, uint32_t lanes)
      : k_pairs((c.k + 1) / 2),
        n_padded((c.n + lanes - 1) / lanes * lanes),
        w(size_t{k_pairs} * n_padded, 0) {
    for (uint32_t p = 0; p < k_pairs; ++p) {
      const int8_t* r0 = c.w + static_cast<size_t>(2 * p) * c.ldw;
      const int8_t* r1 = 2 * p + 1 < c.k ? r0 + c.ldw : nullptr;
      uint32_t* dst = &w[size_t{p} * n_padded];
      for (uint32_t j = 0; j < c.n; ++j) dst[j] = pair_of(r0[j], r1 ? r1[j] : 0);
    }
  }

  // Pairs of row i into `dst` (k_pairs words); returns Σ_k a[i][k] (wrapping).
  uint32_t row_pairs(const Int8TileCommand& c, uint32_t i, uint32_t* dst) const {
    const int8_t* a = c.a + static_cast<size_t>(i) * c.lda;
    uint32_t sum = 0;
    for (uint32_t p = 0; p < k_pairs; ++p) {
      const int8_t lo = a[2 * p];
      const int8_t hi = 2 * p + 1 < c.k ? a[2 * p + 1] : 0;
      sum +=
          static_cast<uint32_t>(static_cast<int32_t>(lo)) + static_cast<uint32_t>(static_cast<int32_t>(hi));
      dst[p] = pair_of(lo, hi);
    }
    return sum;
  }
};

// Rows are processed in blocks of kRowBlock sharing each weight load; columns in chunks of two vectors.
constexpr uint32_t kRowBlock = 4;

__attribute__((target("avx2"))) void int8_tile_avx2(const Int8TileCommand& c) {
  constexpr uint32_t kLanes = 8;  // int32 lanes of a ymm register
  const PairedOperands ops(c, kLanes);
  std::vector<uint32_t> a_pairs(size_t{kRowBlock} * std::max(1u, ops.k_pairs));
  uint32_t row_sum[kRowBlock];
  alignas(32) uint32_t acc_out[kRowBlock][2 * kLanes];
  for (uint32_t i0 = 0; i0 < c.m; i0 += kRowBlock) {
    const uint32_t rows = std::min(kRowBlock, c.m - i0);
    for (uint32_t r = 0; r < kRowBlock; ++r) {
      uint32_t* dst = &a_pairs[size_t{r} * ops.k_pairs];
      if (r < rows) {
        row_sum[r] = ops.row_pairs(c, i0 + r, dst);
      } else {
        std::fill(dst, dst + ops.k_pairs, 0u);
      }
    }
    for (uint32_t j0 = 0; j0 < ops.n_padded; j0 += 2 * kLanes) {
      const bool two = j0 + kLanes < ops.n_padded;
      __m256i acc[kRowBlock][2];
      for (auto& a : acc) a[0] = a[1] = _mm256_setzero_si256();
      const uint32_t* wp = ops.w.data() + j0;
      for (uint32_t p = 0; p < ops.k_pairs; ++p, wp += ops.n_padded) {
        const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp));
        const __m256i w1 = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + kLanes)) : w0;
        for (uint32_t r = 0; r < kRowBlock; ++r) {
          const __m256i b = _mm256_set1_epi32(static_cast<int32_t>(a_pairs[size_t{r} * ops.k_pairs + p]));
          acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(b, w0));
          acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(b, w1));
        }
      }
      const uint32_t j1 = std::min(c.n, j0 + 2 * kLanes);
      for (uint32_t r = 0; r < rows; ++r) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(acc_out[r]), acc[r][0]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(acc_out[r] + kLanes), acc[r][1]);
        if (j0 < j1) finish_row(c, i0 + r, j0, j1, acc_out[r], row_sum[r]);
      }
    }
  }
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) void int8_tile_avx512vnni(const Int8TileCommand& c) {
  constexpr uint32_t kLanes = 16;  // int32 lanes of a zmm register
  const PairedOperands ops(c, kLanes);
  std::vector<uint32_t> a_pairs(size_t{kRowBlock} * std::max(1u, ops.k_pairs));
  uint32_t row_sum[kRowBlock];
  alignas(64) uint32_t acc_out[kRowBlock][2 * kLanes];
  for (uint32_t i0 = 0; i0 < c.m; i0 += kRowBlock) {
    const uint32_t rows = std::min(kRowBlock, c.m - i0);
    for (uint32_t r = 0; r < kRowBlock; ++r) {
      uint32_t* dst = &a_pairs[size_t{r} * ops.k_pairs];
      if (r < rows) {
        row_sum[r] = ops.row_pairs(c, i0 + r, dst);
      } else {
        std::fill(dst, dst + ops.k_pairs, 0u);
      }
    }
    for (uint32_t j0 = 0; j0 < ops.n_padded; j0 += 2 * kLanes) {
      const bool two = j0 + kLanes < ops.n_padded;
      __m512i acc[kRowBlock][2];
      for (auto& a : acc) a[0] = a[1] = _mm512_setzero_si512();
      const uint32_t* wp = ops.w.data() + j0;
      for (uint32_t p = 0; p < ops.k_pairs; ++p, wp += ops.n_padded) {
        const __m512i w0 = _mm512_loadu_si512(wp);
        const __m512i w1 = two ? _mm512_loadu_si512(wp + kLanes) : w0;
        for (uint32_t r = 0; r < kRowBlock; ++r) {
          const __m512i b = _mm512_set1_epi32(static_cast<int32_t>(a_pairs[size_t{r} * ops.k_pairs + p]));
          acc[r][0] = _mm512_dpwssd_epi32(acc[r][0], b, w0);
          acc[r][1] = _mm512_dpwssd_epi32(acc[r][1], b, w1);
        }
      }
      const uint32_t j1 = std::min(c.n, j0 + 2 * kLanes);
      for (uint32_t r = 0; r < rows; ++r) {
        _mm512_store_si512(acc_out[r], acc[r][0]);
        _mm512_store_si512(acc_out[r] + kLanes, acc[r][1]);
        if (j0 < j1) finish_row(c, i0 + r, j0, j1, acc_out[r], row_sum[r]);
      }
    }
  }
}

using Kernel = void (*)(const Int8TileCommand&);

struct Dispatch {
  Kernel kernel;
  const char* name;
};

Dispatch select_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw"))
    return {int8_tile_avx512vnni, "avx512vnni"};
  if (__builtin_cpu_supports("avx2")) return {int8_tile_avx2, "avx2"};
  return {int8_tile_portable, "portable"};
}

const Dispatch& dispatch() {
  static const Dispatch d = select_kernel();  // the host CPU does not change during a run
  return d;
}

}  // namespace

void int8_tile_portable(const Int8TileCommand& c) {
  std::vector<uint32_t> acc(c.n);
  for (uint32_t i = 0; i < c.m; ++i) {
    const int8_t* a_row = c.a + static_cast<size_t>(i) * c.lda;
    uint32_t row_sum = 0;
    std::fill(acc.begin(), acc.end(), 0u);
    for (uint32_t kk = 0; kk < c.k; ++kk) {
      const int32_t a = a_row[kk];
      row_sum += static_cast<uint32_t>(a);
      const int8_t* w_row = c.w + static_cast<size_t>(kk) * c.ldw;
      for (uint32_t j = 0; j < c.n; ++j) acc[j] += static_cast<uint32_t>(a * static_cast<int32_t>(w_row[j]));
    }
    finish_row(c, i, 0, c.n, acc.data(), row_sum);
  }
}

void int8_tile_reference(const Int8TileCommand& c) {
  if (c.m == 0 || c.n == 0) return;
  dispatch().kernel(c);
}

const char* int8_tile_kernel_name() { return dispatch().name; }

}  // namespace npu::sim
