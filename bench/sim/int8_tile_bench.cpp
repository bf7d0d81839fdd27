// Functional int8 compute speed on one host core, in GMAC/s:
//  (1) the shared exact GEMM (npu/common/int8_gemm.h: portable, AVX-512 VNNI) alone, raw int32 sums;
//  (2) each tile kernel (portable, AVX2, AVX-512 VNNI) with its requantisation, on tile shapes the
//      compiler produces;
//  (3) the path a simulation takes: a channel of the simulated NPU executing CONV_INT8 descriptors of
//      ResNet-18-like conv and FC shapes (im2col once per descriptor, weights packed once per descriptor,
//      the dispatched kernel over every output channel, requantisation), with the SystemC kernel.
// Kernel figures are per CPU second of this thread (so other processes on the cores do not lower them);
// the channel lines give both CPU and wall seconds. Where oneDNN is installed (Debian libdnnl-dev; the
// bench alone links it, found at configure time) every GEMM and channel line also prints oneDNN's
// u8 x s8 -> s32 matmul on the same M, K, N, one thread, weights reordered once, per CPU second of the
// process. Machine-dependent: a benchmark, never a test.
// docs/sim.md has a reading.
#include <sysc/kernel/sc_dynamic_processes.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <systemc>
#include <vector>

#include "npu/common/config.h"
#include "npu/common/int8_gemm.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/core/compute_core.h"
#include "npu/sim/npu.h"

#ifdef NPUSIM_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
// Debian's oneDNN runs on OpenMP, which reads OMP_NUM_THREADS before main: one thread is asked for here.
extern "C" void omp_set_num_threads(int) __attribute__((weak));
#endif

namespace {

using Clock = std::chrono::steady_clock;
using namespace npu;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU seconds this thread has run: the kernels' speed even when other processes share the cores (the
// SystemC kernel runs every process of a simulation on this one thread).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// oneDNN's GMAC/s for an M×K×N u8 × s8 → s32 matmul (random data), or a negative value when the bench
// was built without it.
double dnnl_gmacs(uint32_t m, uint32_t k, uint32_t n) {
#ifdef NPUSIM_HAVE_DNNL
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(static_cast<size_t>(m) * k);
  std::vector<int8_t> w(static_cast<size_t>(k) * n);
  for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
  for (auto& v : w) v = static_cast<int8_t>(byte(rng) - 128);
  std::vector<int32_t> c(static_cast<size_t>(m) * n);
  const dnnl::memory::dims ad{m, k}, wd{k, n}, cd{m, n};
  const dnnl::memory::desc a_md(ad, dt::u8, tag::ab), w_any(wd, dt::s8, tag::any), c_md(cd, dt::s32, tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_any, c_md), eng);
  dnnl::memory w_user({wd, dt::s8, tag::ab}, eng, w.data());
  dnnl::memory w_mem(pd.weights_desc(), eng);
  dnnl::reorder(w_user, w_mem).execute(strm, w_user, w_mem);
  dnnl::memory a_mem(a_md, eng, a.data()), c_mem(c_md, eng, c.data());
  const dnnl::matmul prim(pd);
  auto run = [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, c_mem}});
    strm.wait();
  };
  run();  // first call: kernel generation
  int reps = 0;
  const double t0 = process_cpu_seconds();
  do {
    run();
    ++reps;
  } while (process_cpu_seconds() - t0 < 0.3);
  return static_cast<double>(m) * k * n * reps / (process_cpu_seconds() - t0) / 1e9;
#else
  (void)m, (void)k, (void)n;
  return -1;
#endif
}

void gemm_bench(uint32_t m, uint32_t k, uint32_t n) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(static_cast<size_t>(m) * k), w(static_cast<size_t>(k) * n);
  for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
  for (auto& v : w) v = static_cast<uint8_t>(byte(rng));
  gemm::PackedWeights pw;
  pw.pack(w.data(), k, n, n, 1, false);
  std::vector<int32_t> c(static_cast<size_t>(m) * n);
  const double macs = static_cast<double>(m) * k * n;
  std::printf("  M=%-5u K=%-5u N=%-4u", m, k, n);
  for (auto kernel : {gemm::Kernel::PORTABLE, gemm::Kernel::AVX512_VNNI}) {
    if (!gemm::kernel_available(kernel)) {
      std::printf("  %s n/a", gemm::kernel_name(kernel));
      continue;
    }
    int reps = 0;
    const double t0 = thread_cpu_seconds();
    do {
      gemm::multiply(kernel, a.data(), k, m, pw, c.data(), n);
      ++reps;
    } while (thread_cpu_seconds() - t0 < 0.3);
    std::printf("  %s %7.2f", gemm::kernel_name(kernel), macs * reps / (thread_cpu_seconds() - t0) / 1e9);
  }
  if (const double d = dnnl_gmacs(m, k, n); d >= 0) std::printf("  oneDNN %7.2f", d);
  std::printf("  GMAC/s per CPU second\n");
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
    const double t0 = thread_cpu_seconds();
    do {
      sim::int8_tile_with(kernel, c);
      ++reps;
    } while (thread_cpu_seconds() - t0 < 0.3);
    std::printf("  %s %6.2f", name, macs * reps / (thread_cpu_seconds() - t0) / 1e9);
  }
  std::printf("  GMAC/s per CPU second\n");
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

// One CONV_INT8 descriptor shape run through the channel: out_h × out_w outputs of a kh × kw × in_c
// convolution to cout channels (stride 1, no padding), its operands laid out one after another in SRAM.
struct Shape {
  const char* what;
  uint32_t out_h, out_w, in_c, kh, kw, cout;
};

desc::Conv conv_descriptor(const Shape& s) {
  auto align = [](uint32_t x) { return (x + 63) / 64 * 64; };
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_INT8, 0};
  c.in_h = s.out_h + s.kh - 1;
  c.in_w = s.out_w + s.kw - 1;
  c.in_c = s.in_c;
  c.kh = s.kh;
  c.kw = s.kw;
  c.cout = s.cout;
  c.in_sram = 0;
  c.w_sram = align(c.in_h * c.in_w * c.in_c);
  c.bias_sram = align(c.w_sram + s.kh * s.kw * s.in_c * s.cout);
  c.quant_sram = align(c.bias_sram + 4 * s.cout);
  c.out_sram = align(c.quant_sram + 8 * s.cout);
  c.out_h = s.out_h;
  c.out_w = s.out_w;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.clamp_lo = -128;
  c.clamp_hi = 127;
  c.flags = desc::kConvInputUnsigned | desc::kConvOutputUnsigned;
  return c;
}

}  // namespace

int sc_main(int, char*[]) {
#ifdef NPUSIM_HAVE_DNNL
  if (omp_set_num_threads) omp_set_num_threads(1);  // oneDNN on one core, as the channel
  std::printf("oneDNN %d.%d.%d beside each figure\n", dnnl_version()->major, dnnl_version()->minor,
              dnnl_version()->patch);
#else
  std::printf("oneDNN not found at configure time (Debian libdnnl-dev): no figure beside ours\n");
#endif
  std::printf("shared int8 GEMM, raw int32 sums (host kernel: %s):\n",
              gemm::kernel_name(gemm::host_kernel()));
  gemm_bench(3136, 576, 64);   // 56×56 outputs of a 3×3×64 convolution
  gemm_bench(784, 1152, 128);  // 28×28, 3×3×128
  gemm_bench(196, 2304, 256);  // 14×14, 3×3×256
  gemm_bench(49, 4608, 512);   // 7×7, 3×3×512
  gemm_bench(1, 512, 1000);    // the classifier, batch 1
  std::printf("int8 tile kernels with requantisation (dispatch picks %s on this host):\n",
              sim::int8_tile_kernel_name());
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
  // Shapes of ResNet-18's layers as the compiler tiles them for a 512 KiB channel SRAM.
  const Shape shapes[] = {
      {"conv 3x3x64->64, 16x56 band", 16, 56, 64, 3, 3, 64},
      {"conv 3x3x128->128, 8x28 band", 8, 28, 128, 3, 3, 128},
      {"conv 3x3x256->64, 14x14", 14, 14, 256, 3, 3, 64},
      {"conv 3x3x512->64, 7x7", 7, 7, 512, 3, 3, 64},
      {"conv 1x1x512->128, 7x7", 7, 7, 512, 1, 1, 128},
      {"fc 512->256, batch 1", 1, 1, 512, 1, 1, 256},
  };
  std::printf("channel executing CONV_INT8 descriptors (kernel %s, %ux%u array):\n",
              sim::int8_tile_kernel_name(), cfg.channel.array_rows, cfg.channel.array_cols);
  sc_core::sc_spawn([&] {
    bench.write32(regs::IRQ_MASK, 1);
    for (const Shape& s : shapes) {
      const uint64_t m = uint64_t{s.out_h} * s.out_w, k = uint64_t{s.kh} * s.kw * s.in_c;
      // About 1 G MACs per shape, at least 4 descriptors.
      const auto tiles = static_cast<uint32_t>(std::max<uint64_t>(4, 1000000000ull / (m * k * s.cout)));
      const std::vector<desc::Raw> cmds(tiles, desc::encode(conv_descriptor(s)));
      bench.access(bench.mem, tlm::TLM_WRITE_COMMAND, 0x1000, const_cast<desc::Raw*>(cmds.data()),
                   static_cast<unsigned>(cmds.size() * desc::kDescriptorBytes));
      bench.write32(regs::channel_base(0) + regs::CH_CMD_BASE_LO, 0x1000);
      bench.write32(regs::channel_base(0) + regs::CH_CMD_COUNT, tiles);
      const auto t0 = Clock::now();
      const double cpu0 = thread_cpu_seconds();
      bench.write32(regs::channel_base(0) + regs::CH_DOORBELL, regs::CH_DOORBELL_START);
      sc_core::wait(bench.irq.posedge_event());
      const double wall = seconds_since(t0), cpu = thread_cpu_seconds() - cpu0;
      bench.write32(regs::channel_base(0) + regs::CH_IRQ_STATUS, 0x7);  // acknowledge: the line drops
      const double macs = static_cast<double>(tiles) * m * k * s.cout;
      std::printf(
          "  %-30s M=%-4llu K=%-5llu N=%-4u x%-5u %5.0f M MACs: %7.2f GMAC/s per CPU second (%.3f s), "
          "%7.2f per wall second\n",
          s.what, static_cast<unsigned long long>(m), static_cast<unsigned long long>(k), s.cout, tiles,
          macs / 1e6, macs / cpu / 1e9, cpu, macs / wall / 1e9);
      if (const double d = dnnl_gmacs(static_cast<uint32_t>(m), static_cast<uint32_t>(k), s.cout); d >= 0)
        std::printf("  %-30s oneDNN matmul on the same M, K, N: %7.2f GMAC/s per CPU second\n", "", d);
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  return 0;
}
