// ComputeCore: the MAC-array compute core of one execution channel, as its tile controller drives it.
// Two implementations present this same interface: the TLM model (cycle formula + C++ arithmetic,
// sim/core/tlm_compute_core.h) and the verilated RTL (rtl/). A channel config picks one by name
// (`compute_core.model`, a row of compute_core_table.h); nothing above the channel can tell which.
//
// Contract: run_int8_tile is called from an SC_THREAD of the owning channel, computes the whole tile,
// advances simulated time by exactly the cycles it took (at the channel clock) and returns that count.
// A core whose timing is a formula (TLM) also offers compute_int8_tile: the same arithmetic without
// advancing time, so the channel can charge the cycles itself with a wait that a reset can interrupt. It
// takes any N: the result and the cycles are those of ceil(N / cols) tiles of at most `cols` columns run
// one after another, so the channel hands it a whole descriptor and the weights are packed once.
// A clocked core (RTL) cannot: a reset that arrives during one of its tiles takes effect when the tile
// ends (the channel discards the result). Timing-only command buffers use int8_tile_cycles, the
// RTL-calibrated formula, on every core: the RTL cannot run a tile without its data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "npu/common/int8_gemm.h"

namespace npu::sim {

struct ArrayGeometry {
  uint32_t rows = 16;  // PE rows: the K (reduction) extent held per weight load
  uint32_t cols = 16;  // PE columns: the N (output channel) extent of one tile
};

// One int8 GEMM tile: out[M×N] = requant(A[M×K] · W[K×N] + bias − weight_offset·rowsum(A)).
// K is arbitrary (the controller iterates it in chunks of `rows`, accumulating in int32); N ≤ cols for
// run_int8_tile, any N for compute_int8_tile and int8_tile_reference.
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
  // Computes the tile (any N, see above) without advancing simulated time and returns the cycles it
  // takes; std::nullopt for a core that can only run clocked (then call run_int8_tile per column block).
  virtual std::optional<uint64_t> compute_int8_tile(const Int8TileCommand& cmd);
  // Cycles of an M×K×N tile by the calibrated formula (systolic_int8_tile_cycles on geometry()).
  virtual uint64_t int8_tile_cycles(uint32_t m, uint32_t k, uint32_t n) const;
};

// The arithmetic every core must reproduce bit-exactly (the golden model of the RTL tests); any N.
// Dispatches at run time to the fastest kernel the host CPU supports (AVX-512 VNNI through the shared
// npu::gemm kernel, AVX2, portable); all are bit-identical, int32 wrap-around included.
void int8_tile_reference(const Int8TileCommand& cmd);
// The packed weights of the last few tiles, reused while the weight bytes are the same: the row bands of
// one weight block then pack it once per weight load instead of once per tile. A hit is decided by
// comparing the bytes themselves, so no write to the SRAM can leave a stale entry behind.
class Int8WeightCache {
 public:
  const gemm::PackedWeights& packed(const Int8TileCommand& cmd);
  uint64_t hits() const { return hits_; }
  uint64_t packs() const { return packs_; }

 private:
  struct Entry {
    uint32_t k = 0, n = 0;
    uint64_t used = 0;        // 0 = empty; else the lookup count when last used
    std::vector<int8_t> raw;  // K×N, dense
    gemm::PackedWeights packed;
  };
  std::array<Entry, 4> entries_;  // row bands of up to four weight blocks interleaved
  uint64_t clock_ = 0, hits_ = 0, packs_ = 0;
};
// int8_tile_reference with the weights packed through `cache` (bit-identical results).
void int8_tile_reference(const Int8TileCommand& cmd, Int8WeightCache& cache);
// The portable scalar kernel, the yardstick of the vectorised ones.
void int8_tile_portable(const Int8TileCommand& cmd);
// Which kernel int8_tile_reference uses on this host: "avx512vnni", "avx2" or "portable".
const char* int8_tile_kernel_name();

enum class Int8Kernel { PORTABLE, AVX2, AVX512_VNNI };
// Runs `cmd` on one particular kernel, for tests and benchmarks that compare them; false (nothing done)
// when the host CPU lacks the instructions.
bool int8_tile_with(Int8Kernel kernel, const Int8TileCommand& cmd);

}  // namespace npu::sim
