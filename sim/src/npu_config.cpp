#include "npu/sim/npu_config.h"

namespace npu::sim {

void NpuConfig::declare(cfg::Schema& s) {
  s.u32("npu.channels", &channels, 4, "", "Execution channels (each a MAC array + vector unit + SRAM + DMA)", 1,
        16);
  s.f64("npu.clock_mhz", &clock_mhz, 1000.0, "MHz", "NPU core clock", 1.0, 10000.0);
  s.f64("npu.mmio_access_ns", &mmio_access_ns, 20.0, "ns", "Latency of one register access from the host", 0.0,
        10000.0);
  s.u32("npu.channel.array.rows", &channel.array_rows, 16, "PEs", "MAC array rows (reduction depth per pass)", 1,
        256);
  s.u32("npu.channel.array.cols", &channel.array_cols, 16, "PEs", "MAC array columns (output channels per tile)",
        1, 256);
  s.choice("npu.channel.compute_core.model", &channel.compute_core, "tlm", {"tlm", "rtl"},
           "Compute core implementation: cycle-formula TLM model or verilated RTL");
  s.u32("npu.channel.vector.fp32_macs_per_cycle", &channel.fp32_macs_per_cycle, 64, "MAC/cycle",
        "Float32 multiply-accumulates per cycle of the vector unit", 1, 4096);
  s.u32("npu.channel.vector.lanes", &channel.vector_lanes, 64, "elements/cycle",
        "8-bit elements per cycle of the vector unit (elementwise, activations, pooling, reductions)", 1, 4096);
  s.u32("npu.channel.sram.kib", &channel.sram_kib, 512, "KiB", "Scratchpad SRAM per channel", 16, 65536);
  s.u32("npu.channel.dma.bytes_per_cycle", &channel.dma_bytes_per_cycle, 32, "B/cycle",
        "Peak DMA engine throughput", 1, 4096);
  s.u32("npu.channel.dma.setup_cycles", &channel.dma_setup_cycles, 16, "cycles",
        "Fixed cost of starting one DMA descriptor", 0, 100000);
  s.u32("npu.channel.descriptor_fetch_cycles", &channel.descriptor_fetch_cycles, 4, "cycles",
        "Command processor decode time per descriptor (the fetch itself reads DRAM)", 0, 100000);
  s.f64("npu.dram.bandwidth_gbps", &dram.bandwidth_gbps, 25.6, "GB/s", "DRAM bandwidth shared by all channels",
        0.1, 10000.0);
  s.f64("npu.dram.latency_ns", &dram.latency_ns, 100.0, "ns", "DRAM access latency per transfer", 0.0, 100000.0);
  s.u32("npu.dram.size_mib", &dram.size_mib, 4096, "MiB", "Device memory size (sparsely backed)", 1, 1u << 20);
  s.u32("npu.dram.arbitration_bytes", &dram.arbitration_bytes, 4096, "B",
        "Transfer quantum at which channels are arbitrated round-robin", 64, 1u << 20);
}

}  // namespace npu::sim
