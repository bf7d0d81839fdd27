// The int8 tile arithmetic of the compute core (the golden model) and its vectorised forms. Every kernel
// computes acc[i][j] = Σ_k a[i][k]·w[k][j] in 32-bit wrapping arithmetic — spelled in uint32 where C++
// would otherwise call signed overflow undefined — then requantises exactly as the RTL does. Integer
// wrapping addition is associative, so summation order does not change a bit of the result; the SIMD
// kernels rely on that. The AVX-512 VNNI path is the shared exact GEMM (npu/common/int8_gemm.h: u8 × s8
// `vpdpbusd`, weights packed once per tile, the +128 of the biased activations removed with column sums);
// the AVX2 path multiplies int16 pairs: a pair sum a0·w0 + a1·w1 is at most 2·128² = 2^15 in magnitude,
// exact in the int32 lane that vpmaddwd produces.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/common/int8_gemm.h"
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

// W rearranged for pairwise int16 multiply-add: [ceil(K/2)][N padded to the vector width] int32 words, each
// holding the int16 weights of rows 2p and 2p+1 of one column (an odd K is padded with a zero row).
// Activation rows are widened to int16 the same way, so word p of a row holds activations 2p and 2p+1.
struct PackedWeights {
  uint32_t k_pairs = 0, n_padded = 0;
  std::vector<uint32_t> w;

  PackedWeights(const Int8TileCommand& c, uint32_t lanes)
      : k_pairs((c.k + 1) / 2),
        n_padded((c.n + lanes - 1) / lanes * lanes),
        w(size_t{k_pairs} * n_padded, 0) {
    for (uint32_t p = 0; p < k_pairs; ++p) {
      const int8_t* r0 = c.w + static_cast<size_t>(2 * p) * c.ldw;
      const int8_t* r1 = 2 * p + 1 < c.k ? r0 + c.ldw : nullptr;
      uint32_t* dst = &w[size_t{p} * n_padded];
      for (uint32_t j = 0; j < c.n; ++j) {
        dst[j] = static_cast<uint16_t>(static_cast<int16_t>(r0[j])) |
                 (static_cast<uint32_t>(static_cast<uint16_t>(r1 ? r1[j] : 0)) << 16);
      }
    }
  }
};

// Widens row i of A to int16 (2·k_pairs entries, the padding zero); returns Σ_k a[i][k] (wrapping).
uint32_t widen_row(const Int8TileCommand& c, uint32_t i, uint32_t k_pairs, int16_t* dst) {
  const int8_t* a = c.a + static_cast<size_t>(i) * c.lda;
  int32_t sum = 0;  // |Σ| < 2^31 for K < 2^24, the descriptor limit
  for (uint32_t kk = 0; kk < c.k; ++kk) {
    dst[kk] = a[kk];
    sum += a[kk];
  }
  if (c.k < 2 * k_pairs) dst[c.k] = 0;
  return static_cast<uint32_t>(sum);
}

// R rows × V vectors of output columns for every K pair: acc[r][v] += a_pair(r, p) · w_pair(p, v).
template <uint32_t R, uint32_t V>
__attribute__((target("avx2"))) void avx2_block(const uint32_t* wp, uint32_t w_stride, uint32_t k_pairs,
                                                const uint32_t* const* a, uint32_t* out /* R × V·8 */) {
  __m256i acc[R][V];
  for (auto& row : acc)
    for (auto& v : row) v = _mm256_setzero_si256();
  for (uint32_t p = 0; p < k_pairs; ++p, wp += w_stride) {
    __m256i w[V];
    for (uint32_t v = 0; v < V; ++v) w[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + 8 * v));
    for (uint32_t r = 0; r < R; ++r) {
      const __m256i b = _mm256_set1_epi32(static_cast<int32_t>(a[r][p]));
      for (uint32_t v = 0; v < V; ++v) acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(b, w[v]));
    }
  }
  for (uint32_t r = 0; r < R; ++r)
    for (uint32_t v = 0; v < V; ++v)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (r * V + v) * 8), acc[r][v]);
}

// The vector kernels' shared driver: rows in blocks of kRows sharing each weight load (a tail of single
// rows), columns in chunks of two vectors (a tail of one). Block(r, v) runs R = r rows, V = v vectors.
constexpr uint32_t kRows = 4;
struct BlockFns {
  using Fn = void (*)(const uint32_t*, uint32_t, uint32_t, const uint32_t* const*, uint32_t*);
  Fn rows_two, rows_one, row_two, row_one;  // kRows × 2, kRows × 1, 1 × 2, 1 × 1
};

void run_vector_kernel(const Int8TileCommand& c, uint32_t lanes, const BlockFns& fns) {
  const PackedWeights pw(c, lanes);
  const uint32_t kp = std::max(1u, pw.k_pairs);
  std::vector<int16_t> rows(size_t{kRows} * 2 * kp);
  std::vector<uint32_t> acc(size_t{kRows} * 2 * lanes);
  uint32_t row_sum[kRows];
  const uint32_t* a[kRows];
  for (uint32_t i0 = 0; i0 < c.m;) {
    const uint32_t r_count = c.m - i0 >= kRows ? kRows : 1;
    for (uint32_t r = 0; r < r_count; ++r) {
      int16_t* dst = &rows[size_t{r} * 2 * kp];
      row_sum[r] = widen_row(c, i0 + r, pw.k_pairs, dst);
      a[r] = reinterpret_cast<const uint32_t*>(dst);
    }
    for (uint32_t j0 = 0; j0 < pw.n_padded;) {
      const bool two = j0 + lanes < pw.n_padded;
      const BlockFns::Fn fn =
          r_count == kRows ? (two ? fns.rows_two : fns.rows_one) : (two ? fns.row_two : fns.row_one);
      fn(pw.w.data() + j0, pw.n_padded, pw.k_pairs, a, acc.data());
      const uint32_t width = (two ? 2 : 1) * lanes;
      const uint32_t j1 = std::min(c.n, j0 + width);
      for (uint32_t r = 0; r < r_count; ++r)
        finish_row(c, i0 + r, j0, j1, acc.data() + size_t{r} * width, row_sum[r]);
      j0 += width;
    }
    i0 += r_count;
  }
}

void int8_tile_avx2(const Int8TileCommand& c) {
  run_vector_kernel(c, 8, {avx2_block<kRows, 2>, avx2_block<kRows, 1>, avx2_block<1, 2>, avx2_block<1, 1>});
}

// The whole tile through npu::gemm: A biased to uint8 (a + 128 = a ^ 0x80) in bands of rows, so that
//   Σ_k (a_u − 128)(w − weight_offset) = Σ a·w − weight_offset·Σ a
// comes out of multiply_offsets directly; bias and requantisation follow per row.
void int8_tile_gemm(const Int8TileCommand& c, const gemm::PackedWeights& pw) {
  const std::vector<int32_t> w_offsets(c.n, c.weight_offset);
  const uint32_t band = std::min(c.m, std::max(16u, (1u << 18) / std::max(1u, c.k)));
  std::vector<uint8_t> a(size_t{band} * c.k);
  std::vector<int32_t> acc(size_t{band} * c.n);
  for (uint32_t i0 = 0; i0 < c.m; i0 += band) {
    const uint32_t rows = std::min(band, c.m - i0);
    for (uint32_t r = 0; r < rows; ++r) {
      const int8_t* src = c.a + size_t{i0 + r} * c.lda;
      uint8_t* dst = a.data() + size_t{r} * c.k;
      for (uint32_t kk = 0; kk < c.k; ++kk) dst[kk] = static_cast<uint8_t>(src[kk]) ^ 0x80u;
    }
    gemm::multiply_offsets(gemm::Kernel::AVX512_VNNI, a.data(), c.k, rows, 128, pw, w_offsets.data(),
                           acc.data(), c.n);
    for (uint32_t r = 0; r < rows; ++r) {  // finish_row's arithmetic, 16 columns at a time
      gemm::requantize_row(gemm::Kernel::AVX512_VNNI, acc.data() + size_t{r} * c.n, c.bias, c.out_multiplier,
                           c.out_shift, c.out_zero_point, c.clamp_lo, c.clamp_hi,
                           c.out + size_t{i0 + r} * c.ldo, 1, c.n);
    }
  }
}

void pack_tile_weights(const Int8TileCommand& c, gemm::PackedWeights* pw) {
  pw->pack(reinterpret_cast<const uint8_t*>(c.w), c.k, c.n, c.ldw, 1, false);
}

void int8_tile_gemm(const Int8TileCommand& c) {
  gemm::PackedWeights pw;
  pack_tile_weights(c, &pw);
  int8_tile_gemm(c, pw);
}

void int8_tile_avx512vnni(const Int8TileCommand& c) { int8_tile_gemm(c); }

using Kernel = void (*)(const Int8TileCommand&);

struct Dispatch {
  Kernel kernel;
  const char* name;
};

Dispatch select_kernel() {
  __builtin_cpu_init();
  if (gemm::kernel_available(gemm::Kernel::AVX512_VNNI)) return {int8_tile_avx512vnni, "avx512vnni"};
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

const gemm::PackedWeights& Int8WeightCache::packed(const Int8TileCommand& c) {
  ++clock_;
  auto same_bytes = [&](const Entry& e) {
    if (e.k != c.k || e.n != c.n || e.used == 0) return false;
    for (uint32_t kk = 0; kk < c.k; ++kk)
      if (std::memcmp(e.raw.data() + size_t{kk} * c.n, c.w + size_t{kk} * c.ldw, c.n) != 0) return false;
    return true;
  };
  for (Entry& e : entries_) {
    if (same_bytes(e)) {
      e.used = clock_;
      ++hits_;
      return e.packed;
    }
  }
  Entry& victim = *std::min_element(entries_.begin(), entries_.end(),
                                    [](const Entry& a, const Entry& b) { return a.used < b.used; });
  victim.k = c.k;
  victim.n = c.n;
  victim.used = clock_;
  victim.raw.resize(size_t{c.k} * c.n);
  for (uint32_t kk = 0; kk < c.k; ++kk)
    std::memcpy(victim.raw.data() + size_t{kk} * c.n, c.w + size_t{kk} * c.ldw, c.n);
  pack_tile_weights(c, &victim.packed);
  ++packs_;
  return victim.packed;
}

void int8_tile_reference(const Int8TileCommand& c, Int8WeightCache& cache) {
  if (c.m == 0 || c.n == 0) return;
  if (dispatch().kernel != int8_tile_avx512vnni) return dispatch().kernel(c);  // the others pack nothing
  int8_tile_gemm(c, cache.packed(c));
}

const char* int8_tile_kernel_name() { return dispatch().name; }

bool int8_tile_with(Int8Kernel kernel, const Int8TileCommand& c) {
  __builtin_cpu_init();
  switch (kernel) {
    case Int8Kernel::PORTABLE:
      int8_tile_portable(c);
      return true;
    case Int8Kernel::AVX2:
      if (!__builtin_cpu_supports("avx2")) return false;
      if (c.m && c.n) int8_tile_avx2(c);
      return true;
    case Int8Kernel::AVX512_VNNI:
      if (!gemm::kernel_available(gemm::Kernel::AVX512_VNNI)) return false;
      if (c.m && c.n) int8_tile_avx512vnni(c);
      return true;
  }
  return false;
}

}  // namespace npu::sim
