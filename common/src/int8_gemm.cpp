// The exact int8 GEMM kernels (see int8_gemm.h). The VNNI kernel keeps an R × V block of 16-lane int32
// accumulators in registers: each step broadcasts four activation bytes of a row and multiplies them with a
// 64-byte group of packed weights (`vpdpbusd`: u8 × s8, four products summed into each int32 lane, wrapping
// like the adders of the portable loop). Products of a u8 and an s8 are at most 255·128 in magnitude, so a
// group of four never overflows before it is added.
#include "npu/common/int8_gemm.h"

#include "npu/common/fixed_point.h"

// GCC 12 reports the deliberately undefined operand of some AVX-512 intrinsics as "maybe uninitialized"
// (a false positive in its own header, fixed in GCC 13); the warning is silenced for that header only.
// Clang has no such warning (and -Werror rejects the unknown name).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace npu::gemm {

void PackedWeights::pack(const uint8_t* src, uint32_t k, uint32_t n, size_t k_stride, size_t n_stride,
                         bool src_unsigned) {
  k_ = k;
  n_ = n;
  unsigned_ = src_unsigned;
  groups_ = (k + 3) / 4;
  panels_ = (n + kLanes - 1) / kLanes;
  data_.assign(size_t{panels_} * groups_ * 64, 0);
  col_sums_.assign(n, 0);
  const uint32_t flip = src_unsigned ? 0x80808080u : 0u;
  const uint32_t full = k / 4;
  // Four consecutive k of one column form one 32-bit word of the packed group (k in the low byte).
  if (k_stride == 1) {  // columns contiguous in k (N×K, as CONV_2D and FULLY_CONNECTED filters are stored)
    for (uint32_t p = 0; p < panels_; ++p) {
      const uint32_t lanes = std::min(kLanes, n - p * kLanes);
      int8_t* dst = data_.data() + size_t{p} * groups_ * 64;  // written in order, 64 bytes per group
      for (uint32_t g = 0; g < full; ++g, dst += 64) {
        for (uint32_t l = 0; l < lanes; ++l) {
          uint32_t word;
          std::memcpy(&word, src + (size_t{p} * kLanes + l) * n_stride + size_t{g} * 4, 4);
          word ^= flip;
          std::memcpy(dst + l * 4, &word, 4);
        }
      }
      if (full < groups_) {
        for (uint32_t l = 0; l < lanes; ++l)
          for (uint32_t kk = full * 4; kk < k; ++kk)
            dst[l * 4 + kk % 4] = static_cast<int8_t>(src[(size_t{p} * kLanes + l) * n_stride + kk] ^ flip);
      }
    }
    for (uint32_t j = 0; j < n; ++j) {
      const uint8_t* col = src + j * n_stride;
      int32_t sum = 0;  // |Σ| ≤ 128·K: no overflow for any K a caller can hold in memory here
      for (uint32_t kk = 0; kk < k; ++kk) sum += static_cast<int8_t>(col[kk] ^ static_cast<uint8_t>(flip));
      col_sums_[j] = sum;
    }
    return;
  }
  // Rows contiguous in j (K×N, as the NPU's SRAM holds them) or any other strides: four rows at a time,
  // a missing fourth row (K % 4) read as zeros.
  static const uint8_t zeros[1] = {};
  for (uint32_t g = 0; g < groups_; ++g) {
    const uint8_t* r[4];
    size_t step[4];
    for (uint32_t q = 0; q < 4; ++q) {
      const bool real = g * 4 + q < k;
      r[q] = real ? src + (size_t{g} * 4 + q) * k_stride : zeros;
      step[q] = real ? n_stride : 0;
    }
    const uint32_t rows = std::min(4u, k - g * 4);
    for (uint32_t p = 0; p < panels_; ++p) {
      const uint32_t lanes = std::min(kLanes, n - p * kLanes);
      int8_t* dst = data_.data() + (size_t{p} * groups_ + g) * 64;
      int32_t* sums = col_sums_.data() + p * kLanes;
      for (uint32_t l = 0; l < lanes; ++l) {
        const size_t j = size_t{p} * kLanes + l;
        uint32_t word = 0;
        for (uint32_t q = 0; q < 4; ++q) word |= uint32_t{r[q][j * step[q]]} << (8 * q);
        // Only real rows are flipped: the padding row stays zero.
        word ^= flip & (rows == 4 ? 0xFFFFFFFFu : (1u << (8 * rows)) - 1);
        std::memcpy(dst + l * 4, &word, 4);
        for (uint32_t q = 0; q < 4; ++q) sums[l] += static_cast<int8_t>(word >> (8 * q));
      }
    }
  }
}

namespace {

void multiply_portable(const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c,
                       size_t ldc) {
  const uint32_t k = w.k(), n = w.n();
  for (uint32_t p = 0; p < w.panels(); ++p) {
    const int8_t* b = w.panel(p);
    const uint32_t j0 = p * PackedWeights::kLanes;
    const uint32_t width = std::min(PackedWeights::kLanes, n - j0);
    for (uint32_t i = 0; i < m; ++i) {
      const uint8_t* row = a + i * lda;
      uint32_t acc[PackedWeights::kLanes] = {};
      for (uint32_t kk = 0; kk < k; ++kk) {
        const uint32_t x = row[kk];
        const int8_t* g = b + size_t{kk / 4} * 64 + kk % 4;
        for (uint32_t l = 0; l < PackedWeights::kLanes; ++l)
          acc[l] += x * static_cast<uint32_t>(static_cast<int32_t>(g[l * 4]));
      }
      for (uint32_t l = 0; l < width; ++l) c[i * ldc + j0 + l] = static_cast<int32_t>(acc[l]);
    }
  }
}

#define NPU_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// Rows [0, R) of a (stride lda) times V panels (panel stride `pstride` bytes) into c; the last vector
// stores only `last_lanes` columns.
template <int R, int V>
NPU_VNNI void vnni_block(const uint8_t* a, size_t lda, const int8_t* b, size_t pstride, uint32_t full_groups,
                         uint32_t tail, int32_t* c, size_t ldc, uint32_t last_lanes) {
  __m512i acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_si512();
  for (uint32_t g = 0; g < full_groups; ++g) {
    __m512i wv[V];
    for (int v = 0; v < V; ++v) wv[v] = _mm512_loadu_si512(b + v * pstride + size_t{g} * 64);
    for (int r = 0; r < R; ++r) {
      int32_t x;
      std::memcpy(&x, a + r * lda + size_t{g} * 4, 4);
      const __m512i xb = _mm512_set1_epi32(x);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], xb, wv[v]);
    }
  }
  if (tail) {  // K % 4 bytes left in each row: read only those (the packed weights beyond K are zero)
    const size_t g = full_groups;
    __m512i wv[V];
    for (int v = 0; v < V; ++v) wv[v] = _mm512_loadu_si512(b + v * pstride + g * 64);
    for (int r = 0; r < R; ++r) {
      int32_t x = 0;
      std::memcpy(&x, a + r * lda + g * 4, tail);
      const __m512i xb = _mm512_set1_epi32(x);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], xb, wv[v]);
    }
  }
  const auto last_mask = static_cast<__mmask16>((1u << last_lanes) - 1);
  for (int r = 0; r < R; ++r) {
    int32_t* out = c + r * ldc;
    for (int v = 0; v < V - 1; ++v) _mm512_storeu_si512(out + 16 * v, acc[r][v]);
    _mm512_mask_storeu_epi32(out + 16 * (V - 1), last_mask, acc[r][V - 1]);
  }
}

using BlockFn = void (*)(const uint8_t*, size_t, const int8_t*, size_t, uint32_t, uint32_t, int32_t*, size_t,
                         uint32_t);

// Rows per block for V panels: R·V accumulators plus V weight vectors and a broadcast within 32 registers.
template <int V>
constexpr int kRowsFor = V == 1   ? 16
                         : V == 2 ? 12
                         : V == 3 ? 8
                                  : 6;
constexpr int kMaxPanels = 4;

template <int V, size_t... I>
BlockFn pick_block(int rows, std::index_sequence<I...>) {
  static constexpr BlockFn table[] = {vnni_block<static_cast<int>(I) + 1, V>...};
  return table[rows - 1];
}

// A block of `rows` rows (1 ≤ rows ≤ kRowsFor<v>) by v panels.
BlockFn block_fn(int v, int rows) {
  switch (v) {
    case 1:
      return pick_block<1>(rows, std::make_index_sequence<kRowsFor<1>>());
    case 2:
      return pick_block<2>(rows, std::make_index_sequence<kRowsFor<2>>());
    case 3:
      return pick_block<3>(rows, std::make_index_sequence<kRowsFor<3>>());
    default:
      return pick_block<4>(rows, std::make_index_sequence<kRowsFor<4>>());
  }
}
constexpr int kRows[kMaxPanels] = {kRowsFor<1>, kRowsFor<2>, kRowsFor<3>, kRowsFor<4>};

void multiply_vnni(const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c, size_t ldc) {
  const uint32_t k = w.k(), n = w.n();
  const uint32_t full_groups = k / 4, tail = k % 4;
  const size_t pstride = size_t{w.groups()} * 64;
  // Rows in bands whose activations stay in the L2 cache while every panel passes over them.
  const uint32_t band = static_cast<uint32_t>(std::max<size_t>(48, size_t{384} * 1024 / std::max(1u, k)));
  for (uint32_t i0 = 0; i0 < m; i0 += band) {
    const uint32_t i_end = std::min(m, i0 + band);
    for (uint32_t p = 0; p < w.panels();) {
      const int v = static_cast<int>(std::min<uint32_t>(kMaxPanels, w.panels() - p));
      const uint32_t j0 = p * PackedWeights::kLanes;
      const uint32_t last_lanes = std::min<uint32_t>(PackedWeights::kLanes, n - (j0 + (v - 1) * 16));
      const int rows = kRows[v - 1];
      for (uint32_t i = i0; i < i_end;) {
        const int r = static_cast<int>(std::min<uint32_t>(rows, i_end - i));
        block_fn(v, r)(a + i * lda, lda, w.panel(p), pstride, full_groups, tail, c + i * ldc + j0, ldc,
                       last_lanes);
        i += r;
      }
      p += v;
    }
  }
}

bool has_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

}  // namespace

bool kernel_available(Kernel k) {
  static const bool vnni = has_vnni();  // the host CPU does not change during a run
  return k == Kernel::PORTABLE || (k == Kernel::AVX512_VNNI && vnni);
}

Kernel host_kernel() {
  static const Kernel k = kernel_available(Kernel::AVX512_VNNI) ? Kernel::AVX512_VNNI : Kernel::PORTABLE;
  return k;
}

const char* kernel_name(Kernel k) { return k == Kernel::AVX512_VNNI ? "avx512vnni" : "portable"; }

void multiply(Kernel kernel, const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c,
              size_t ldc) {
  if (m == 0 || w.n() == 0) return;
  if (w.k() == 0) {
    for (uint32_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + w.n(), 0);
    return;
  }
  if (kernel == Kernel::AVX512_VNNI && kernel_available(kernel))
    multiply_vnni(a, lda, m, w, c, ldc);
  else
    multiply_portable(a, lda, m, w, c, ldc);
}

void multiply(const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c, size_t ldc) {
  multiply(host_kernel(), a, lda, m, w, c, ldc);
}

void multiply_offsets(Kernel kernel, const uint8_t* a, size_t lda, uint32_t m, int32_t a_offset,
                      const PackedWeights& w, const int32_t* w_offsets, int32_t* c, size_t ldc) {
  multiply(kernel, a, lda, m, w, c, ldc);
  const uint32_t k = w.k(), n = w.n();
  const auto za = static_cast<uint32_t>(a_offset);
  const int32_t* col_sums = w.column_sums();
  // Σ(a − za)(w − zw) = Σ a·w − zw·Σ a − za·Σ w + K·za·zw, every term modulo 2^32.
  std::vector<uint32_t> col_term(n);
  for (uint32_t j = 0; j < n; ++j) {
    const uint32_t zw = w_offsets ? static_cast<uint32_t>(w_offsets[j]) : 0u;
    col_term[j] = k * za * zw - za * static_cast<uint32_t>(col_sums[j]);
  }
  const bool any_zw = w_offsets && std::any_of(w_offsets, w_offsets + n, [](int32_t v) { return v != 0; });
  for (uint32_t i = 0; i < m; ++i) {
    int32_t* row = c + i * ldc;
    uint32_t row_sum = 0;
    if (any_zw) {
      const uint8_t* x = a + i * lda;
      for (uint32_t kk = 0; kk < k; ++kk) row_sum += x[kk];
    }
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t zw = w_offsets ? static_cast<uint32_t>(w_offsets[j]) : 0u;
      row[j] = static_cast<int32_t>(static_cast<uint32_t>(row[j]) + col_term[j] - zw * row_sum);
    }
  }
}

namespace {

int32_t requantize_one(int32_t acc, int32_t bias, int32_t multiplier, int32_t shift, int32_t zero_point,
                       int32_t lo, int32_t hi) {
  const auto sum = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias));
  const int32_t scaled = fx::multiply_by_quantized_multiplier(sum, {multiplier, shift});
  const auto v = static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(zero_point));
  return std::min(std::max(v, lo), hi);  // as the vector form: max with lo, then min with hi
}

// 16 lanes of requantize_one for shifts ≤ 0, step by step as fixed_point.h spells it:
//   saturating_rounding_doubling_high_mul: (a·b + (a·b ≥ 0 ? 2^30 : 1 − 2^30)) / 2^31, truncating toward
//   zero, in 64 bits (even and odd lanes separately); INT32_MIN·INT32_MIN saturates to INT32_MAX;
//   rounding_divide_by_pot by e = min(−shift, 31): (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)).
// (a·b + nudge) / 2^31 toward zero for the even 32-bit lanes of a and b, as 64-bit lanes.
NPU_VNNI inline __m512i high_mul_even(__m512i a, __m512i b) {
  const __m512i ab = _mm512_mul_epi32(a, b);  // sign-extended 32 × 32 → 64
  const __mmask8 neg = _mm512_cmplt_epi64_mask(ab, _mm512_setzero_si512());
  const __m512i x = _mm512_add_epi64(ab, _mm512_mask_blend_epi64(neg, _mm512_set1_epi64(int64_t{1} << 30),
                                                                 _mm512_set1_epi64(1 - (int64_t{1} << 30))));
  const __mmask8 x_neg = _mm512_cmplt_epi64_mask(x, _mm512_setzero_si512());
  return _mm512_srai_epi64(_mm512_mask_add_epi64(x, x_neg, x, _mm512_set1_epi64((int64_t{1} << 31) - 1)), 31);
}

NPU_VNNI inline __m512i requantize16(__m512i acc, __m512i mult, __m512i shift, __m512i zp, __m512i lo,
                                     __m512i hi) {
  const auto high_mul = high_mul_even;
  const __m512i even = high_mul(acc, mult);
  const __m512i odd = high_mul(_mm512_srli_epi64(acc, 32), _mm512_srli_epi64(mult, 32));
  __m512i x = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i int_min = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 both_min = _mm512_cmpeq_epi32_mask(acc, int_min) & _mm512_cmpeq_epi32_mask(mult, int_min);
  x = _mm512_mask_mov_epi32(x, both_min, _mm512_set1_epi32(INT32_MAX));
  const __m512i e = _mm512_min_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), shift), _mm512_set1_epi32(31));
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), e), _mm512_set1_epi32(1));
  const __m512i remainder = _mm512_and_si512(x, mask);
  const __mmask16 x_neg = _mm512_cmplt_epi32_mask(x, _mm512_setzero_si512());
  const __m512i threshold = _mm512_mask_add_epi32(_mm512_srai_epi32(mask, 1), x_neg,
                                                  _mm512_srai_epi32(mask, 1), _mm512_set1_epi32(1));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(remainder, threshold);
  __m512i r = _mm512_srav_epi32(x, e);
  r = _mm512_mask_add_epi32(r, up, r, _mm512_set1_epi32(1));
  r = _mm512_add_epi32(r, zp);
  return _mm512_min_epi32(_mm512_max_epi32(r, lo), hi);
}

NPU_VNNI void requantize_row_vnni(const int32_t* acc, const int32_t* bias, const int32_t* multiplier,
                                  const int32_t* shift, int32_t zero_point, int32_t lo, int32_t hi,
                                  uint8_t* out, uint32_t n) {
  const __m512i zp = _mm512_set1_epi32(zero_point), vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  for (uint32_t j = 0; j < n; j += 16) {
    const uint32_t lanes = std::min(16u, n - j);
    const auto m = static_cast<__mmask16>((1u << lanes) - 1);
    const __m512i sh = _mm512_maskz_loadu_epi32(m, shift + j);
    if (_mm512_mask_cmpgt_epi32_mask(m, sh, _mm512_setzero_si512())) {  // a left shift: the scalar form
      for (uint32_t l = 0; l < lanes; ++l)
        out[j + l] = static_cast<uint8_t>(
            requantize_one(acc[j + l], bias[j + l], multiplier[j + l], shift[j + l], zero_point, lo, hi));
      continue;
    }
    const __m512i sum =
        _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + j), _mm512_maskz_loadu_epi32(m, bias + j));
    const __m512i v = requantize16(sum, _mm512_maskz_loadu_epi32(m, multiplier + j), sh, zp, vlo, vhi);
    _mm_mask_storeu_epi8(out + j, m, _mm512_cvtepi32_epi8(v));
  }
}

}  // namespace

void requantize_row(Kernel kernel, const int32_t* acc, const int32_t* bias, const int32_t* multiplier,
                    const int32_t* shift, int32_t zero_point, int32_t lo, int32_t hi, uint8_t* out,
                    size_t out_stride, uint32_t n) {
  if (kernel == Kernel::AVX512_VNNI && out_stride == 1 && kernel_available(kernel))
    return requantize_row_vnni(acc, bias, multiplier, shift, zero_point, lo, hi, out, n);
  for (uint32_t j = 0; j < n; ++j)
    out[j * out_stride] =
        static_cast<uint8_t>(requantize_one(acc[j], bias[j], multiplier[j], shift[j], zero_point, lo, hi));
}

}  // namespace npu::gemm
