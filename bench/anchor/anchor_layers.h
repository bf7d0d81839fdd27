// The anchor layers: seven ResNet-18 and MobileNet convolution / fully-connected shapes beside SCALE-Sim
// v2's published-model cycle counts for them on a 32×32 array (scalesim_v2_layers.csv in this folder),
// each buildable as a one-operation quant8 model, and the hardware overrides under which npusim is
// compared with them (one channel of a 32×32 array, near-ideal memory). Shared by the anchor bench and
// the test that pins the compiler's cycles on these layers. It does not run anything.
//
// SCALE-Sim's conventions, which the CSV follows: no padding; output size ceil((H − R + stride) / stride);
// GEMM M = output pixels, K = R·S·C, N = filters; ideal = M·K·N / 1024 (every PE busy every cycle).
// NNAPI's VALID padding gives ceil((H − R + 1) / stride) outputs, one fewer for a strided layer whose
// last window SCALE-Sim counts, so the model's input is (out − 1)·stride + R rows and columns: exactly
// the rows the CSV's outputs read, and the same GEMM (M, K, N).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::anchor {

struct AnchorLayer {
  std::string name;
  uint32_t ifmap_h = 0, ifmap_w = 0, filt_h = 0, filt_w = 0, channels = 0, num_filters = 0, stride = 0;
  uint32_t ofmap_h = 0, ofmap_w = 0;
  uint64_t gemm_m = 0, gemm_k = 0, gemm_n = 0, macs = 0;
  uint64_t ideal_cycles = 0;  // M·K·N / 1024, rounded up
  uint64_t scalesim_ws = 0;   // SCALE-Sim v2, weight-stationary, 32×32
  uint64_t scalesim_os = 0;   // SCALE-Sim v2, output-stationary, 32×32
  // A 1×1 filter on a 1×1 map: FULLY_CONNECTED [1, channels] → [1, num_filters].
  bool fully_connected() const { return ifmap_h == 1 && ifmap_w == 1 && filt_h == 1 && filt_w == 1; }
};

// Reads the CSV (header line, then one layer a line). Every derived column (ofmap, GEMM, MACs, ideal) is
// checked against the shape; an error names the file, line and column.
Result<std::vector<AnchorLayer>> read_anchor_layers(const std::string& csv_path);

// The layer as a quant8 model (CONV_2D VALID or FULLY_CONNECTED, no activation), seeded weights; with
// `omit_weights` a timing-only model (constants as sizes only: same descriptors and cycles, nothing to pack).
models::Model anchor_model(const AnchorLayer& layer, uint64_t seed, bool omit_weights);

// Every layer as an independent operation of one model (one input and one output each), in CSV order.
models::Model anchor_batch_model(const std::vector<AnchorLayer>& layers, uint64_t seed, bool omit_weights);

// The hardware overrides of the comparison, on top of configs/npu/default.json: one channel of a 32×32
// int8 array (512 KiB SRAM at 1 GHz, as the preset) and DRAM at its 10 TB/s ceiling with 0 ns latency.
//  - IDEAL_DRAM keeps the preset's DMA engines (32 B/cycle each, 16 SRAM banks): the channel's own port
//    still takes a byte per 1/32 cycle, so a layer's first load and last store cost what they would.
//  - IDEAL_MEMORY also widens each DMA engine to 1024 B/cycle over 64 banks, so memory hardly costs
//    anything: SCALE-Sim's figures assume memory never stalls the array. What remains is the
//    per-descriptor DMA setup and fetch, and the array's fill and drain.
enum class Memory { IDEAL_DRAM, IDEAL_MEMORY };
const char* to_string(Memory m);
std::vector<std::string> near_ideal_overrides(Memory m);

}  // namespace npu::anchor
