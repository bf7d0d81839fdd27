// Internal to the compiler: what every operation lowering shares (descriptor emission, SRAM/arena
// alignment, operand sources, flat chunking) and the per-family lowerings in lower_<family>.cpp.
// A lowering answers two questions: why the NPU cannot run an operation (empty: it can), and the
// descriptors of its jobs (one per channel used). Not here: CONV_2D / FULLY_CONNECTED (compiler.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/models/model.h"
#include "npu/regmap/descriptors.h"

namespace npu::hal::lower {

inline constexpr uint64_t kSramAlign = 64;
inline constexpr uint64_t kArenaAlign = 256;
inline uint64_t align(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool is_quant8(models::OperandType t);
uint32_t elem_bytes(models::OperandType t);   // 4 for TENSOR_FLOAT32, else 1
desc::DType dtype_of(models::OperandType t);  // F32, U8 or S8
// A constant INT32 scalar operand's value (nullopt when it is not a constant scalar).
std::optional<int32_t> const_int(const models::Model& m, uint32_t operand);
// A rank-4 activation's extents whichever its layout (NHWC [n, h, w, c] or NCHW [n, c, h, w]).
struct Nhwc {
  uint32_t n, h, w, c;
};
Nhwc nhwc_extents(const models::Operand& o, bool nchw);
// Empty when every listed operand has known dimensions, else the reason.
std::string unknown_dims_reason(const models::Model& m, std::initializer_list<uint32_t> operands);
// ±inf bit patterns, or the fused activation's float range, as descriptor clamp fields.
void float_clamp(int32_t activation, int32_t* lo, int32_t* hi);

// Appends descriptors to one job, numbering them; DMAs get a relocation for their device address.
class Emitter {
 public:
  explicit Emitter(NpuStep& step) : step_(step) {}
  void dma(desc::Opcode op, Region region, uint64_t dev, uint64_t sram, uint64_t row_bytes, uint64_t rows = 1,
           uint64_t dev_stride = 0, uint64_t sram_stride = 0);
  // A DMA_GATHER of `rows` rows of the table at `dev` (`table_rows` rows, `dev_stride` apart) picked by
  // the int32 indices at index_sram.
  void gather(Region region, uint64_t dev, uint64_t sram, uint64_t row_bytes, uint64_t rows,
              uint64_t dev_stride, uint64_t sram_stride, uint64_t index_sram, uint64_t table_rows);
  template <class T>
  void op(T d) {
    d.h.id = next_id_++;
    step_.commands.push_back(desc::encode(d));
  }
  // From here on only [offset, offset + bytes) of SRAM is live (bytes 0: nothing).
  void preempt_point(uint64_t offset, uint64_t bytes);
  void fence();
  NpuStep& step() { return step_; }

 private:
  NpuStep& step_;
  uint32_t next_id_ = 0;
};

// NCHW operands (NNAPI 1.2's layout flag) stay NCHW in the arena, as the model declares them, while
// every compute descriptor works on NHWC tiles in SRAM: the DMA converts on the way, one 2-D descriptor
// per channel plane. Each moves that channel's `pixels` consecutive elements (contiguous in DRAM: whole
// bursts) to every `channels`-th SRAM element (a scatter; the channel charges its SRAM bank conflicts,
// plus the per-descriptor setup, fetch and DRAM latency). Why the DMA and not conversion steps
// (NCHW→NHWC before the operation, back after): the vector unit has no transpose, so a conversion
// step would itself be these per-channel DMAs, plus a write of the converted tensor to the arena and a
// read back, and two more stages; gathering on the way in costs only the descriptors (one per channel
// per tile instead of one) and the scatter. Consecutive NCHW operations need no conversion pair at
// all: the arena never holds a converted copy. Channels, not pixels, per descriptor: a descriptor per
// pixel would read single elements a plane apart from DRAM, which the DRAM model (bytes, no bursts)
// would not charge for, so it would look cheaper than it is.
// `dev` is the first element of channel 0's run; planes are `plane_bytes` apart.
void dma_nchw_in(Emitter& emit, Region region, uint64_t dev, uint64_t plane_bytes, uint64_t sram,
                 uint32_t channels, uint64_t pixels, uint32_t elem);
void dma_nchw_out(Emitter& emit, uint64_t dev, uint64_t plane_bytes, uint64_t sram, uint32_t channels,
                  uint64_t pixels, uint32_t elem);

// Where an operand's bytes live on the device: its arena slot, or (a constant) a copy appended to the
// weights image (zeros when a timing-only model omits the values).
struct Source {
  Region region;
  uint64_t offset;
};
Source operand_source(const models::Model& m, uint32_t operand, Program& prog);
// Appends bytes to the weights image (aligned) and returns their offset.
uint64_t append_weights(Program& prog, const void* data, uint64_t bytes);

// Elementwise work over `count` items in chunks that fit the SRAM: `fixed_bytes` at SRAM offset 0 hold
// per-job constants (loaded by `prologue`), then one or two (alternating, so loads overlap compute)
// buffers of `chunk_capacity · bytes_per_item` bytes. Chunks are multiples of `granule` items and are
// spread over up to target.channels jobs; `body` emits one chunk (first item, items, buffer offset).
struct FlatWork {
  uint64_t count = 0;
  uint64_t granule = 1;
  uint64_t fixed_bytes = 0;
  uint64_t bytes_per_item = 0;
};
// Empty when one granule fits the SRAM, else the reason.
std::string flat_fits(const FlatWork& w, const NpuTarget& target);
using FlatPrologue = std::function<void(Emitter&)>;
using FlatBody =
    std::function<void(Emitter&, uint64_t first, uint64_t items, uint64_t buffer, uint64_t capacity)>;
void lower_flat(const FlatWork& w, const NpuTarget& target, std::vector<NpuStep>& jobs,
                const FlatPrologue& prologue, const FlatBody& body);

// A windowed operation (depthwise convolution, pooling; NHWC in SRAM, NHWC or NCHW in the arena) tiled
// into output-row bands × input-channel blocks: per block, constants (`fixed_bytes(cb)` at SRAM 0, loaded
// by `load_block`), then one or two (alternating) input bands and output tiles. Input rows outside the
// image are padding the descriptor skips, so a band holds every real row its outputs read.
struct SpatialOp {
  uint32_t batch, in_h, in_w, in_c, out_h, out_w;
  uint32_t kh, stride_h, dil_h;
  int32_t pad_top;
  uint32_t depth_multiplier;  // output channels per input channel (1 for pooling)
  uint32_t elem;              // element bytes
  bool nchw = false;          // input and output are NCHW in the arena (dma_nchw_in / dma_nchw_out)
  std::function<uint64_t(uint32_t cb)> fixed_bytes;
  // Batch and image extents from the input and output activations, in either layout.
  void set_extents(const Nhwc& in, const Nhwc& out, bool layout_nchw) {
    batch = in.n;
    in_h = in.h;
    in_w = in.w;
    in_c = in.c;
    out_h = out.h;
    out_w = out.w;
    nchw = layout_nchw;
  }
};
struct SpatialTile {
  uint32_t rb, cb, buffers;
};
Result<SpatialTile> choose_spatial_tile(const SpatialOp& s, const NpuTarget& target);
// One tile's compute descriptor: the band is at in_sram (in_rows × in_w × cb, its first row is image row
// `first_row`; output row 0 of the tile reads band row `row_origin`), outputs go to out_sram.
struct SpatialTileRef {
  uint32_t n, oy0, rb, c0, cb;
  uint64_t in_sram, in_rows, out_sram;
  int32_t row_origin;
};
using BlockLoader = std::function<void(Emitter&, uint32_t c0, uint32_t cb)>;
using TileCompute = std::function<void(Emitter&, const SpatialTileRef&)>;
void lower_spatial(const SpatialOp& s, SpatialTile tile, const NpuTarget& target, Source input,
                   uint64_t out_base, std::vector<NpuStep>& jobs, const BlockLoader& load_block,
                   const TileCompute& compute);

// A family of operations the NPU lowers.
struct Lowering {
  std::string (*unsupported)(const models::Model& m, uint32_t index, const NpuTarget& target);
  Result<void> (*lower)(const models::Model& m, uint32_t index, const NpuTarget& target, Program& prog,
                        std::vector<NpuStep>& jobs);
};
// The lowering of an operation type, nullptr when the NPU has none (CONV_2D / FULLY_CONNECTED are the
// compiler's own).
const Lowering* find_lowering(models::OperationType type);

const Lowering& select_lowering();           // SELECT
const Lowering& resize_bilinear_lowering();  // RESIZE_BILINEAR
const Lowering& eltwise_lowering();          // ADD, SUB, MUL, MAXIMUM, MINIMUM, PRELU
const Lowering& activation_lowering();       // RELU*, LOGISTIC, TANH, ABS, EXP, LOG, NEG, RSQRT, SQRT
const Lowering& pool_lowering();             // AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D
const Lowering& depthwise_lowering();        // DEPTHWISE_CONV_2D
const Lowering& softmax_lowering();          // SOFTMAX, LOG_SOFTMAX
const Lowering& mean_lowering();             // MEAN, REDUCE_SUM, REDUCE_MAX
const Lowering& copy_lowering();             // RESHAPE, EXPAND_DIMS, SQUEEZE, same-type CAST, CONCATENATION
const Lowering& pad_lowering();              // PAD, PAD_V2

// SLICE, SPLIT, TILE, CHANNEL_SHUFFLE, RESIZE_NEAREST_NEIGHBOR, TRANSPOSE, STRIDED_SLICE, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH, BATCH_TO_SPACE_ND
const Lowering& gather_rows_lowering();
const Lowering& argminmax_lowering();     // ARGMAX, ARGMIN
const Lowering& grouped_conv_lowering();  // GROUPED_CONV_2D (as a block-diagonal CONV_2D)
const Lowering&
transpose_conv_lowering();                // TRANSPOSE_CONV_2D (flipped-filter CONV_2Ds, one per output phase)
const Lowering& table_gather_lowering();  // EMBEDDING_LOOKUP, GATHER (DMA_GATHER)

// Vendor extension com.npusim.llm (models/extensions.h)
const Lowering& rms_norm_lowering();  // RMS_NORM on the vector unit
const Lowering& rope_lowering();      // ROPE on the vector unit
const Lowering& matmul_lowering();    // MATMUL on the MAC array (compiler.cpp: the runtime-weights CONV)
// The lowering of an operation type of `m` (NNAPI or vendor extension), nullptr when the NPU has none.
const Lowering* find_lowering(const models::Model& m, models::OperationType type);

// Where a convolution's outputs land when they are one phase of a bigger output rather than a tensor of
// their own: output pixel (n, y, x) of the convolution is pixel (n, y·step_h + row0, x·step_w + col0) of
// the output operand's arena slot, which holds full_h × full_w pixels per image (a strided
// TRANSPOSE_CONV_2D, lower_transpose_conv.cpp). Stored one output row per DMA (NHWC) or one row of one
// channel per DMA (NCHW). `skip_rows` and
// `skip_cols` move the convolution's window that far into the input, past its top and left edges, which a
// CONV_2D's (unsigned) paddings cannot say: the model's head paddings must then be 0.
struct OutputView {
  uint32_t step_h, step_w, row0, col0, full_h, full_w;
  uint32_t skip_rows = 0, skip_cols = 0;
};

// The compiler's CONV_2D / FULLY_CONNECTED lowering of operation `index` (compiler.cpp), for lowerings
// that rewrite an operation into one of those; `view` scatters the outputs as above.
Result<void> lower_conv_operation(const models::Model& m, uint32_t index, const NpuTarget& target,
                                  Program& prog, std::vector<NpuStep>& jobs,
                                  const OutputView* view = nullptr);

}  // namespace npu::hal::lower
