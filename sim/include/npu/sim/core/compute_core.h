// ComputeCore: the MAC-array compute core of one execution channel, as its tile controller drives it.
// Two implementations present this same interface: the TLM model (cycle formula + C++ arithmetic,
// sim/core/tlm_compute_core.h) and the verilated RTL (rtl/). A channel config picks one by name
// (`compute_core.model`: "tlm" | "rtl"); nothing above the channel can tell which it runs on.
//
// Contract: run_int8_tile is called from an SC_THREAD of the owning channel, computes the whole tile,
// advances simulated time by exactly the cycles it took (at the channel clock) and returns that count.
#pragma once

#include <cstdint>

namespace npu::sim {

struct ArrayGeometry {
  uint32_t rows = 16;  // PE rows: the K (reduction) extent held per weight load
  uint32_t cols = 16;  // PE columns: the N (output channel) extent of one tile
};

// One int8 GEMM tile: out[M×N] = requant(A[M×K] · W[K×N] + bias − weight_offset·rowsum(A)).
// K is arbitrary (the controller iterates it in chunks of `rows`, accumulating in int32); N ≤ cols.
// Zero points of uint8 tensors are removed by the compiler: operands arrive as int8 (x − 128), the
// constant corrections are folded into `bias`, the activation-dependent one is `weight_offset`.
struct Int8TileCommand {
  uint32_t m = 0, k = 0, n = 0;
  const int8_t* a = nullptr;  // M×K, row stride lda
  uint32_t lda = 0;
  const int8_t* w = nullptr;  // K×N, row stride ldw
  uint32_t ldw = 0;
  const int32_t* bias = nullptr;            // N
  int32_t weight_offset = 0;                // acc −= weight_offset · Σ_k a[m][k]
  const int32_t* out_multiplier = nullptr;  // N (per-channel; per-tensor repeats one value)
  const int32_t* out_shift = nullptr;       // N, positive = left shift (npu::fx convention)
  int32_t out_zero_point = 0;
  int32_t clamp_lo = -128, clamp_hi = 127;  // in the output's integer domain
  bool out_unsigned = false;                // store uint8 (else int8) bytes
  uint8_t* out = nullptr;                   // M×N bytes, row stride ldo
  uint32_t ldo = 0;
};

class ComputeCore {
 public:
  virtual ~ComputeCore() = default;
  virtual ArrayGeometry geometry() const = 0;
  // Blocking, from an SC_THREAD; see the contract above. Returns the cycles the tile took.
  virtual uint64_t run_int8_tile(const Int8TileCommand& cmd) = 0;
  virtual const char* model_name() const = 0;  // "tlm" or "rtl"
};

// The arithmetic every core must reproduce bit-exactly (the golden model of the RTL tests).
void int8_tile_reference(const Int8TileCommand& cmd);

}  // namespace npu::sim
