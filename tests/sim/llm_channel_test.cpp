// The channel's support for com.npusim.llm and EMBEDDING_LOOKUP, driven as bare-metal firmware would:
// a CONV whose weights arrive unpacked (kConvWeights* flags: MATMUL's second operand, read at run time)
// gives the packed form's bytes in the packed form's cycles, and DMA_GATHER fetches table rows named by
// indices in SRAM, stopping at an index outside the table.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "npu/common/fixed_point.h"
#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

// A = 4 rows × K = 40 (uint8, zero point 131), B = 16 × 40 as MATMUL with transpose_b holds it (uint8, zero
// point 120), one 1×1 CONV of M = 4, K = 40, N = 16, requantised by 0.5 (multiplier 2^30, shift 0) onto zero
// point 128. Packed (what the compiler does for constant weights): B transposed to K × N, shifted to int8,
// bias_j = −za'·Σ_k w'[k][j] + K·za'·zw' with za' = 3, zw' = −8. Runtime: B's bytes as they are, the flags,
// bias K·za'·zw' = 40·3·(−8) = −960 for every channel. The expected bytes are the documented semantics,
// y = clamp(128 + rescale(Σ_k (a − 131)(b − 120), 0.5), 0, 255), computed below.
TEST(LlmChannel, RuntimeWeightsConvEqualsThePackedForm) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  constexpr uint32_t M = 4, K = 40, N = 16;
  constexpr int32_t za = 131, zb = 120;
  const auto a = test::pattern(M * K, 3);
  const auto b = test::pattern(N * K, 4);  // [N, K]
  std::vector<int32_t> want(M * N);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      int32_t acc = 0;
      for (uint32_t k = 0; k < K; ++k) acc += (a[m * K + k] - za) * (b[n * K + k] - zb);
      const int32_t y = 128 + fx::multiply_by_quantized_multiplier(acc, {1 << 30, 0});
      want[m * N + n] = std::clamp(y, 0, 255);
    }
  // Packed block: K × N int8 weights, bias, multipliers, shifts.
  std::vector<uint8_t> packed(K * N + 12 * N);
  std::vector<int32_t> bias(N), runtime_bias(N, K * (za - 128) * (zb - 128));
  for (uint32_t n = 0; n < N; ++n) {
    int32_t sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
      const auto w = static_cast<int8_t>(b[n * K + k] ^ 0x80);
      packed[k * N + n] = static_cast<uint8_t>(w);
      sum += w;
    }
    bias[n] = -(za - 128) * sum + K * (za - 128) * (zb - 128);
  }
  std::memcpy(packed.data() + K * N, bias.data(), 4 * N);
  for (uint32_t n = 0; n < N; ++n) {
    const int32_t m = 1 << 30;
    std::memcpy(packed.data() + K * N + 4 * N + 4 * n, &m, 4);
  }
  std::vector<uint8_t> runtime(b);  // [N, K] as is, then the same bias-slot layout
  runtime.resize(K * N + 12 * N, 0);
  std::memcpy(runtime.data() + K * N, runtime_bias.data(), 4 * N);
  std::memcpy(runtime.data() + K * N + 4 * N, packed.data() + K * N + 4 * N, 4 * N);

  constexpr uint64_t kA = 0x100000, kPacked = 0x110000, kRuntime = 0x120000, kOut0 = 0x200000,
                     kOut1 = 0x210000;
  constexpr uint32_t kW = 0, kBias = K * N, kQuant = K * N + 4 * N, kIn = 2048, kOut = 4096;
  auto program = [&](uint64_t weights, uint64_t out, bool flags) {
    auto c = desc::decode<desc::Conv>(test::conv1x1(kIn, 1, M, K, kW, N, kBias, kQuant, kOut));
    c.pad_value = za - 128;
    c.weight_offset = zb - 128;
    c.out_zero_point = 128;
    c.clamp_lo = 0;
    c.clamp_hi = 255;
    c.flags = desc::kConvInputUnsigned | desc::kConvOutputUnsigned;
    if (flags)
      c.flags |= desc::kConvWeightsTransposed | desc::kConvWeightsUnsigned | desc::kConvWeightColumnSums;
    return std::vector<desc::Raw>{test::dma_in(weights, kW, K * N + 12 * N), test::dma_in(kA, kIn, M * K),
                                  desc::encode(c), test::dma_out(out, kOut, M * N), test::fence()};
  };
  uint64_t packed_cycles = 0, runtime_cycles = 0;
  std::vector<uint8_t> out_packed, out_runtime;
  sc_core::sc_spawn([&] {
    fw.write_mem(kA, a.data(), a.size());
    fw.write_mem(kPacked, packed.data(), packed.size());
    fw.write_mem(kRuntime, runtime.data(), runtime.size());
    EXPECT_EQ(fw.run(0, 0x1000, program(kPacked, kOut0, false)), regs::CH_IRQ_DONE);
    packed_cycles = fw.cycles(0);
    EXPECT_EQ(fw.run(1, 0x2000, program(kRuntime, kOut1, true)), regs::CH_IRQ_DONE);
    runtime_cycles = fw.cycles(1);
    out_packed = fw.read_mem(kOut0, M * N);
    out_runtime = fw.read_mem(kOut1, M * N);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  for (uint32_t i = 0; i < M * N; ++i) {
    EXPECT_EQ(out_packed[i], want[i]) << i;
    EXPECT_EQ(out_runtime[i], want[i]) << i;
  }
  // The loader adapts the weights as they stream in: the same cycles as the packed form.
  EXPECT_EQ(runtime_cycles, packed_cycles);
}

// Float, transposed: A = [1, 2, 3], B = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] as [N = 4, K = 3],
// bias 0: A·Bᵀ = 1, 2, 3, 6.
TEST(LlmChannel, TransposedFloatWeights) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  const std::vector<float> a{1, 2, 3}, b{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, zeros(4, 0.0f);
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_FP32, 0};
  c.in_sram = 0, c.in_h = 1, c.in_w = 1, c.in_c = 3;
  c.w_sram = 64, c.kh = c.kw = 1, c.cout = 4;
  c.bias_sram = 128, c.out_sram = 192, c.out_h = 1, c.out_w = 1;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.clamp_lo = std::bit_cast<int32_t>(-1e30f), c.clamp_hi = std::bit_cast<int32_t>(1e30f);
  c.flags = desc::kConvWeightsTransposed;
  std::vector<float> out;
  sc_core::sc_spawn([&] {
    fw.write_mem(0x100000, a.data(), 12);
    fw.write_mem(0x100100, b.data(), 48);
    fw.write_mem(0x100200, zeros.data(), 16);
    EXPECT_EQ(fw.run(0, 0x1000,
                     {test::dma_in(0x100000, 0, 12), test::dma_in(0x100100, 64, 48),
                      test::dma_in(0x100200, 128, 16), desc::encode(c), test::dma_out(0x200000, 192, 16),
                      test::fence()}),
              regs::CH_IRQ_DONE);
    const auto bytes = fw.read_mem(0x200000, 16);
    out.resize(4);
    std::memcpy(out.data(), bytes.data(), 16);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 6}));
}

desc::Raw gather(uint64_t table, uint32_t sram, uint32_t row_bytes, uint32_t rows, uint32_t index_sram,
                 uint32_t table_rows) {
  desc::DmaGather g{};
  g.h = {desc::Opcode::DMA_GATHER, 0};
  g.dev = table;
  g.sram = sram;
  g.row_bytes = row_bytes;
  g.rows = rows;
  g.dev_stride = row_bytes;
  g.sram_stride = row_bytes;
  g.index_sram = index_sram;
  g.table_rows = table_rows;
  return desc::encode(g);
}

// A table of 5 rows of 8 bytes (row r holds bytes 10·r .. 10·r + 7); indices 3, 0, 3 give rows 3, 0, 3.
// An index of 5 (one past the table) stops the channel with INDEX_OUT_OF_RANGE at the gather.
TEST(LlmChannel, GatherFetchesIndexedRowsAndRefusesOutOfRange) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  std::vector<uint8_t> table(40);
  for (uint32_t i = 0; i < 40; ++i) table[i] = static_cast<uint8_t>(10 * (i / 8) + i % 8);
  const std::vector<int32_t> good{3, 0, 3}, bad{1, 5, 0};
  std::vector<uint8_t> out;
  uint32_t irq = 0, status = 0, index = 0;
  sc_core::sc_spawn([&] {
    fw.write_mem(0x100000, table.data(), table.size());
    fw.write_mem(0x110000, good.data(), 12);
    fw.write_mem(0x120000, bad.data(), 12);
    EXPECT_EQ(fw.run(0, 0x1000,
                     {test::dma_in(0x110000, 512, 12), gather(0x100000, 0, 8, 3, 512, 5),
                      test::dma_out(0x200000, 0, 24), test::fence()}),
              regs::CH_IRQ_DONE);
    out = fw.read_mem(0x200000, 24);
    irq = fw.run(1, 0x2000,
                 {test::dma_in(0x120000, 512, 12), gather(0x100000, 0, 8, 3, 512, 5), test::fence()});
    status = fw.ch_reg(1, regs::CH_STATUS);
    index = fw.ch_reg(1, regs::CH_ERROR_INDEX);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  std::vector<uint8_t> want;
  for (uint32_t r : {3u, 0u, 3u})
    for (uint32_t i = 0; i < 8; ++i) want.push_back(static_cast<uint8_t>(10 * r + i));
  EXPECT_EQ(out, want);
  EXPECT_EQ(irq, regs::CH_IRQ_ERROR);
  EXPECT_EQ(regs::CH_STATUS_ERROR.get(status), static_cast<uint32_t>(regs::ChannelError::INDEX_OUT_OF_RANGE));
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(*stats.find_counter("npu.ch0.dma.bytes_in"), 12u + 24);
}

}  // namespace
