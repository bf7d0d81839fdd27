// Exact integer GEMM for quantised operands: C[M×N] = Σ_k (a[i][k] − a_offset)·(w[k][j] − w_offset[j]) in
// 32-bit two's-complement (wrapping) arithmetic. Shared by the CPU reference kernels (hal/ops: CONV_2D,
// FULLY_CONNECTED) and the simulated NPU's compute core (sim/), which must agree with each other bit for bit.
//
// Activations are read as uint8 bytes; weights are packed once (PackedWeights) into int8 — a uint8 source is
// stored as w − 128 and its offsets shifted to match — so the inner loop is one u8×s8 dot product of four
// bytes (AVX-512 VNNI `vpdpbusd`) per lane. The zero points are applied afterwards from row sums of A and the
// packed column sums of W:
//   Σ (a − za)(w − zw) = Σ a·w − zw·Σ a − za·Σ w + K·za·zw
// Integer wrapping addition is associative, so every kernel (VNNI, portable) gives the same bits whatever
// its summation order. This header does no requantisation (callers own their output stage) and no float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::gemm {

enum class Kernel { PORTABLE, AVX512_VNNI };

// The kernel multiply() uses when none is named: AVX512_VNNI when the host CPU has it, else PORTABLE.
Kernel host_kernel();
const char* kernel_name(Kernel k);  // "portable" | "avx512vnni"
bool kernel_available(Kernel k);    // false when the host CPU lacks the instructions

// A K×N int8 weight matrix in the kernels' layout: panels of 16 columns, each K rounded up to a multiple
// of four and stored as groups of 4 consecutive k for each of the 16 columns (64 bytes per group).
// Padding (k ≥ K, j ≥ N) is zero, so it contributes nothing to any product.
class PackedWeights {
 public:
  static constexpr uint32_t kLanes = 16;  // columns per panel (one 512-bit vector of int32)

  // Packs the matrix whose element (k, j) is the byte src[k·k_stride + j·n_stride]. A uint8 source
  // (`src_unsigned`) is stored as w − 128; value(k, j) then returns w − 128 and callers shift their weight
  // offsets by 128 (stored_offset()).
  void pack(const uint8_t* src, uint32_t k, uint32_t n, size_t k_stride, size_t n_stride, bool src_unsigned);

  uint32_t k() const { return k_; }
  uint32_t n() const { return n_; }
  uint32_t groups() const { return groups_; }  // ceil(K / 4)
  uint32_t panels() const { return panels_; }  // ceil(N / 16)
  const int8_t* panel(uint32_t p) const { return data_.data() + size_t{p} * groups_ * 64; }
  int8_t value(uint32_t k, uint32_t j) const {
    return panel(j / kLanes)[size_t{k / 4} * 64 + (j % kLanes) * 4 + k % 4];
  }
  // Σ_k value(k, j), wrapping.
  const int32_t* column_sums() const { return col_sums_.data(); }
  // The offset of the stored values that corresponds to an offset `zero_point` of the source values.
  int32_t stored_offset(int32_t zero_point) const { return zero_point - (unsigned_ ? 128 : 0); }

 private:
  uint32_t k_ = 0, n_ = 0, groups_ = 0, panels_ = 0;
  bool unsigned_ = false;
  std::vector<int8_t> data_;
  std::vector<int32_t> col_sums_;
};

// c[i·ldc + j] = Σ_k a[i·lda + k] · w.value(k, j) (mod 2^32), a read as uint8; rows i < m.
void multiply(const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c, size_t ldc);
void multiply(Kernel kernel, const uint8_t* a, size_t lda, uint32_t m, const PackedWeights& w, int32_t* c,
              size_t ldc);

// c[i·ldc + j] = Σ_k (a[i·lda + k] − a_offset) · (w.value(k, j) − w_offsets[j]) (mod 2^32). w_offsets is in
// the stored domain (PackedWeights::stored_offset) and may be null for all zeros.
void multiply_offsets(Kernel kernel, const uint8_t* a, size_t lda, uint32_t m, int32_t a_offset,
                      const PackedWeights& w, const int32_t* w_offsets, int32_t* c, size_t ldc);
inline void multiply_offsets(const uint8_t* a, size_t lda, uint32_t m, int32_t a_offset,
                             const PackedWeights& w, const int32_t* w_offsets, int32_t* c, size_t ldc) {
  multiply_offsets(host_kernel(), a, lda, m, a_offset, w, w_offsets, c, ldc);
}

// The output stage of a quantised row, NNAPI's arithmetic (npu::fx): for j < n,
//   v = multiply_by_quantized_multiplier(acc[j] + bias[j], {multiplier[j], shift[j]}) + zero_point
// (additions wrapping in 32 bits), clamped to [lo, hi] and stored as its low byte (uint8, or int8 in two's
// complement) at out[j·out_stride]. Vectorised on AVX-512 for right shifts (shift ≤ 0, every multiplier
// below 1); bit-identical to the scalar form, which `kernel` PORTABLE forces.
void requantize_row(Kernel kernel, const int32_t* acc, const int32_t* bias, const int32_t* multiplier,
                    const int32_t* shift, int32_t zero_point, int32_t lo, int32_t hi, uint8_t* out,
                    size_t out_stride, uint32_t n);
inline void requantize_row(const int32_t* acc, const int32_t* bias, const int32_t* multiplier,
                           const int32_t* shift, int32_t zero_point, int32_t lo, int32_t hi, uint8_t* out,
                           size_t out_stride, uint32_t n) {
  requantize_row(host_kernel(), acc, bias, multiplier, shift, zero_point, lo, hi, out, out_stride, n);
}

}  // namespace npu::gemm
