// The compiler's double-buffered convolution on the pipelined channel, end to end: outputs ping-pong
// between two SRAM buffers and weights stay resident, so the channel's engines overlap; the bytes still
// equal the CPU reference exactly.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "npu/hal/compiler.h"
#include "npu/models/builder.h"
#include "npu/system/system.h"

namespace {

using npu::fx::FusedActivation;
using npu::models::ModelBuilder;
using npu::models::OperandType;
using npu::models::QuantParams;

const QuantParams kIn{0.02f, 128}, kW{0.01f, 120}, kMid{0.05f, 100}, kOut{0.1f, 128};

// 40×40×32 → 3×3 conv → 48 channels, on one channel with 64 KiB of SRAM: the output does not fit in one
// tile, so the compiler cuts it into row bands (tiling chosen by its cost model).
npu::models::Model conv_model(ModelBuilder& b) {
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 40, 40, 32}, kIn);
  b.mark_output(b.conv_2d(x, 48, 3, 3, 1, 1, FusedActivation::RELU, kW, kOut));
  return b.model();
}

TEST(Pipeline, CompilerDoubleBuffersOutputsAndLoadsEachWeightsBlockOnce) {
  ModelBuilder b(31);
  const auto model = conv_model(b);
  npu::hal::NpuTarget target;  // 16×16 array, one channel
  target.sram_bytes = 64 * 1024;
  target.channels = 1;
  auto prog = npu::hal::compile_for_npu(model, target);
  ASSERT_TRUE(prog.ok()) << prog.error();
  const auto& job = prog->stages.at(0).jobs.at(0);
  std::set<uint32_t> weight_regions;  // descriptor indices whose DMA reads the weights image
  for (const auto& r : job.relocations)
    if (r.region == npu::hal::Region::WEIGHTS) weight_regions.insert(r.descriptor);
  std::vector<uint32_t> out_buffers;
  std::map<uint64_t, int> weight_loads;  // weights-image offset → loads
  uint32_t points = 0;
  uint64_t high = 0;
  for (uint32_t i = 0; i < job.commands.size(); ++i) {
    const auto& raw = job.commands[i];
    const auto op = npu::desc::opcode_of(raw);
    if (op == npu::desc::Opcode::PREEMPT_POINT) ++points;
    if (op == npu::desc::Opcode::DMA_IN && weight_regions.count(i))
      ++weight_loads[npu::desc::decode<npu::desc::Dma>(raw).dev];
    if (op != npu::desc::Opcode::CONV_INT8) continue;
    const auto c = npu::desc::decode<npu::desc::Conv>(raw);
    out_buffers.push_back(c.out_sram);
    high = std::max<uint64_t>(high, c.out_sram + uint64_t{c.out_h} * c.out_w * c.cout);
  }
  ASSERT_GE(out_buffers.size(), 3u) << prog->stages.at(0).tiling;
  EXPECT_EQ(points, out_buffers.size()) << "one PREEMPT_POINT per tile";
  EXPECT_LE(high, target.sram_bytes);
  // 48 output channels are 3 weights blocks of 16 (one array width); the SRAM holds all three, so each
  // is loaded once however the bands are ordered.
  EXPECT_EQ(weight_loads.size(), 3u) << prog->stages.at(0).tiling;
  for (const auto& [offset, loads] : weight_loads) EXPECT_EQ(loads, 1) << "weights block at " << offset;
  // Outputs alternate between two buffers: tile i computes while tile i − 1's outputs are stored.
  for (size_t i = 1; i < out_buffers.size(); ++i) {
    EXPECT_NE(out_buffers[i], out_buffers[i - 1]) << "tile " << i;
    if (i >= 2) {
      EXPECT_EQ(out_buffers[i], out_buffers[i - 2]) << "tile " << i;
    }
  }
}

// Sequentially the channel would take (fetch + dma_in + compute + dma_out) cycles; pipelined, the loads
// of band i + 1 and the stores of band i − 1 run under the compute of band i, so the elapsed busy cycles
// are strictly fewer than that sum (the figures are printed; the sim-level ChannelTiming test shows the
// same on a hand-built command buffer with exact arithmetic).
TEST(Pipeline, DoubleBufferedConvOverlapsAndMatchesReferenceExactly) {
  ModelBuilder b(31);
  const auto model = conv_model(b);
  auto inputs = b.random_inputs();
  auto cfg = npu::system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json",
                                             {"npu.channels=1", "npu.channel.sram.kib=64"});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = npu::system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  npu::hal::ExecutionResult npu_result, cpu_result;
  auto end = (*sys)->run([&](npu::system::System& s) {
    auto prepared = s.npu_device().prepare_model(model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    npu_result = prepared.model->execute_synchronously(inputs, true);
    auto ref = s.cpu_device().prepare_model(model);
    ASSERT_TRUE(ref.status.ok());
    cpu_result = ref.model->execute_synchronously(inputs, false);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  ASSERT_TRUE(npu_result.status.ok()) << npu_result.status.message;
  for (const auto& [idx, want] : cpu_result.outputs) EXPECT_EQ(npu_result.outputs.at(idx).data, want.data);

  auto& st = (*sys)->stats();
  const uint64_t elapsed = *st.find_counter("npu.ch0.busy_cycles");
  const uint64_t fetch = *st.find_counter("npu.ch0.cmd.fetch_cycles");
  const uint64_t in = *st.find_counter("npu.ch0.dma_in.busy_cycles");
  const uint64_t compute = *st.find_counter("npu.ch0.compute.busy_cycles");
  const uint64_t out = *st.find_counter("npu.ch0.dma_out.busy_cycles");
  std::printf("elapsed %llu < fetch %llu + dma_in %llu + compute %llu + dma_out %llu = %llu cycles\n",
              static_cast<unsigned long long>(elapsed), static_cast<unsigned long long>(fetch),
              static_cast<unsigned long long>(in), static_cast<unsigned long long>(compute),
              static_cast<unsigned long long>(out),
              static_cast<unsigned long long>(fetch + in + compute + out));
  EXPECT_LT(elapsed, fetch + in + compute + out);
  // Compute is the long pole: with the loads and stores hidden, elapsed is within 10% of compute alone.
  EXPECT_LT(elapsed, compute + compute / 10);
}

}  // namespace
