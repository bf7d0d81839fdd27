// Functional int8 compute speed on one host core, in GMAC/s of wall time:
//  (1) each tile kernel (portable, AVX2, AVX-512 VNNI) on tile shapes the compiler produces;
//  (2) the path a simulation takes: a channel of the simulated NPU executing CONV_INT8 descriptors
//      (im2col, the dispatched kernel per 16-column block, requantisation), with the SystemC kernel.
// Figures are wall-clock and machine-dependent: a benchmark, never a test.
#include <sysc/kernel/sc_dynamic_processes.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <systemc>
#include <vector>

#include "npu/common/config.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/core/compute_core.h"
#include "npu/sim/npu.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace npu;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void kernel_bench(uint32_t m, uint32_t k, uint32_t n) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> a(static_cast<size_t>(m) * k), w(static_cast<size_t>(k) * n);
  for (auto& v : a) v = static_cast<int8_t>(byte(rng));
  for (auto& v : w) v = static_cast<int8_t>(byte(rng));
  std::vector<int32_t> bias(n, 100), mult(n, 1 << 30), shift(n, -8);
  std::vector<uint8_t> out(static_cast<size_t>(m) * n);
  sim::Int8TileCommand c;
  c.m = m;
  c.k = k;
  c.n = n;
  c.a = a.data();
  c.lda = k;
  c.w = w.data();
  c.ldw = n;
  c.bias = bias.data();
  c.out_multiplier = mult.data();
  c.out_shift = shift.data();
  c.out = out.data();
  c.ldo = n;
  const double macs = static_cast<double>(m) * k * n;
  std::printf("  M=%-5u K=%-5u N=%-3u", m, k, n);
  for (auto [kernel, name] : {std::pair{sim::Int8Kernel::PORTABLE, "portable"},
                              {sim::Int8Kernel::AVX2, "avx2"},
                              {sim::Int8Kernel::AVX512_VNNI, "avx512vnni"}}) {
    if (!sim::int8_tile_with(kernel, c)) {
      std::printf("  %s n/a", name);
      continue;
    }
    int reps = 0;
    const auto t0 = Clock::now();
    do {
      sim::int8_tile_with(kernel, c);
      ++reps;
    } while (seconds_since(t0) < 0.3);
    std::printf("  %s %6.2f", name, macs * reps / seconds_since(t0) / 1e9);
  }
  std::printf("  GMAC/s\n");
}

// A channel running `tiles` CONV_INT8 descriptors of a 3×3×64 → 64 convolution over a 16×56 band.
struct ChannelBench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<ChannelBench> mmio{"mmio"};
  tlm_utils::simple_initiator_socket<ChannelBench> mem{"mem"};
  sc_core::sc_in<bool> irq{"irq"};
  explicit ChannelBench(sc_core::sc_module_name n) : sc_module(n) {}
  void access(tlm_utils::simple_initiator_socket<ChannelBench>& s, tlm::tlm_command cmd, uint64_t addr,
              void* d, unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(d));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    sc_core::sc_time delay;
    s->b_transport(gp, delay);
    sc_core::wait(delay);
  }
  void write32(uint32_t off, uint32_t v) { access(mmio, tlm::TLM_WRITE_COMMAND, off, &v, 4); }
};

}  // namespace

int sc_main(int, char*[]) {
  std::printf("int8 tile kernels (dispatch picks %s on this host):\n", sim::int8_tile_kernel_name());
  kernel_bench(3136, 576, 16);  // 56×56 outputs of a 3×3×64 convolution, one 16-column block
  kernel_bench(784, 1152, 16);  // 28×28, 3×3×128
  kernel_bench(256, 64, 16);    // a small 1×1 tile
  kernel_bench(3136, 576, 64);  // all 64 output channels at once

  sim::NpuConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  cfg.channels = 1;
  stats::Registry stats;
  sim::Npu npu("npu", cfg, stats);
  ChannelBench bench("bench");
  bench.mmio.bind(npu.mmio);
  bench.mem.bind(npu.dram().host);
  bench.irq.bind(npu.irq);
  constexpr uint32_t kTiles = 40;
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_INT8, 0};
  c.in_h = 18;
  c.in_w = 58;
  c.in_c = 64;
  c.kh = c.kw = 3;
  c.cout = 64;
  c.w_sram = 70000;
  c.bias_sram = 110000;
  c.quant_sram = 111000;
  c.out_sram = 120000;
  c.out_h = 16;
  c.out_w = 56;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.clamp_lo = -128;
  c.clamp_hi = 127;
  const std::vector<desc::Raw> cmds(kTiles, desc::encode(c));
  const double macs = static_cast<double>(kTiles) * 16 * 56 * 576 * 64;
  double wall = 0;
  sc_core::sc_spawn([&] {
    bench.access(bench.mem, tlm::TLM_WRITE_COMMAND, 0x1000, const_cast<desc::Raw*>(cmds.data()),
                 static_cast<unsigned>(cmds.size() * desc::kDescriptorBytes));
    bench.write32(regs::IRQ_MASK, 1);
    bench.write32(regs::channel_base(0) + regs::CH_CMD_BASE_LO, 0x1000);
    bench.write32(regs::channel_base(0) + regs::CH_CMD_COUNT, kTiles);
    const auto t0 = Clock::now();
    bench.write32(regs::channel_base(0) + regs::CH_DOORBELL, regs::CH_DOORBELL_START);
    sc_core::wait(bench.irq.posedge_event());
    wall = seconds_since(t0);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  std::printf(
      "channel executing %u CONV_INT8 descriptors (16×56×64 outputs, K = 576): %.0f M MACs in %.3f s = "
      "%.2f GMAC/s (simulated %.0f µs)\n",
      kTiles, macs / 1e6, wall, macs / wall / 1e9, sc_core::sc_time_stamp().to_seconds() * 1e6);
  return 0;
}
