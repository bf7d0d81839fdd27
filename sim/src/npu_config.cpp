#include "npu/sim/npu_config.h"

#include "npu/common/enum_table.h"
#include "npu/regmap/npu_regs.h"

namespace npu::sim {

void NpuConfig::declare(cfg::Schema& s, ComputeCoreTable cores) {
  s.u32("npu.channels", &channels, 4, "", "Execution channels (each a MAC array + vector unit + SRAM + DMA)",
        1, 16);
  s.f64("npu.mmio_access_ns", &mmio_access_ns, 20.0, "ns", "Latency of one register access from the host",
        0.0, 10000.0);
  s.boolean(
      "npu.functional", &functional, true,
      "Compute real tensor values; false = timing-only: every block takes its time and energy but moves and "
      "computes no data (for huge models and fast sweeps)");
  s.u32("npu.weight_memory.mib", &weight_memory_mib, 512, "MiB",
        "Weight-memory region at the top of device memory, where resident model weights live (0 = none)", 0,
        1u << 20);
  s.u32("npu.channel.array.rows", &channel.array_rows, 16, "PEs", "MAC array rows (reduction depth per pass)",
        1, 256);
  s.u32("npu.channel.array.cols", &channel.array_cols, 16, "PEs",
        "MAC array columns (output channels per tile)", 1, 256);
  s.choice("npu.channel.compute_core.model", &channel.compute_core, kTlmComputeCore.name,
           factory::names(cores), "Compute core implementation: cycle-formula TLM model or verilated RTL");
  s.u32("npu.channel.vector.fp32_macs_per_cycle", &channel.fp32_macs_per_cycle, 64, "MAC/cycle",
        "Float32 multiply-accumulates per cycle of the vector unit", 1, 4096);
  s.u32("npu.channel.vector.lanes", &channel.vector_lanes, 64, "elements/cycle",
        "8-bit elements per cycle of the vector unit (elementwise, activations, pooling, reductions, FILL "
        "bytes)",
        1, 4096);
  s.u32("npu.channel.vector.pipeline_cycles", &channel.vector_pipeline_cycles, 8, "cycles",
        "Fixed latency of one vector-unit descriptor (CONV_FP32 included)", 0, 100000);
  s.u32("npu.channel.sram.kib", &channel.sram_kib, 512, "KiB", "Scratchpad SRAM per channel", 16, 65536);
  s.u32("npu.channel.sram.banks", &channel.sram_banks, 16, "banks",
        "SRAM banks, interleaved every bank_bytes_per_cycle bytes; rows a DMA moves in the same cycle that "
        "fall "
        "in one bank serialise",
        1, 256);
  s.u32("npu.channel.sram.bank_bytes_per_cycle", &channel.sram_bank_bytes_per_cycle, 16, "B/cycle",
        "Width of one SRAM bank (bytes it reads or writes per cycle, and the interleaving granule)", 1, 4096);
  s.boolean(
      "npu.channel.sram.ecc", &channel.sram_ecc, true,
      "SRAM protected by ECC: an sram_ecc upset is detected (ERROR interrupt, SRAM_ECC); false = no ECC: "
      "the upset flips bit npu.faults.sram_bit of the first byte the descriptor reads and the run goes on "
      "(silent data corruption, found only by comparing with a reference, e.g. npusim run --check)");
  s.u32("npu.channel.dma.bytes_per_cycle", &channel.dma_bytes_per_cycle, 32, "B/cycle",
        "Peak throughput of each DMA engine (dma_in, dma_out, context save/restore)", 1, 4096);
  s.u32("npu.channel.dma.setup_cycles", &channel.dma_setup_cycles, 16, "cycles",
        "Fixed cost of starting one DMA descriptor (and each context save or restore)", 0, 100000);
  s.u32("npu.channel.descriptor_fetch_cycles", &channel.descriptor_fetch_cycles, 4, "cycles",
        "Command processor decode time per descriptor (the fetch itself reads DRAM)", 0, 100000);
  s.u32("npu.channel.queue_depth", &channel.queue_depth, 4, "descriptors",
        "Descriptors the command processor may queue ahead for each engine (dma_in, compute, dma_out)", 1,
        1024);
  s.f64("npu.dram.bandwidth_gbps", &dram.bandwidth_gbps, 25.6, "GB/s",
        "DRAM bandwidth shared by all channels", 0.1, 10000.0);
  s.f64("npu.dram.latency_ns", &dram.latency_ns, 100.0, "ns", "DRAM access latency per transfer", 0.0,
        100000.0);
  s.u32("npu.dram.size_mib", &dram.size_mib, 4096, "MiB", "Device memory size (sparsely backed)", 1,
        1u << 20);
  s.u32("npu.dram.arbitration_bytes", &dram.arbitration_bytes, 4096, "B",
        "Transfer quantum at which channels are arbitrated round-robin", 64, 1u << 20);
  power.declare(s, "npu.power");
  area.declare(s, "npu.area");
  thermal.declare(s, "npu.thermal");
  dvfs.declare(s, "npu.dvfs");
  s.choice(
      "npu.faults.kind", &faults.kind, enums::to_string(regs::FaultKind::NONE),
      enums::names<regs::FaultKind>(),
      "Fault to inject: hang (the channel stops, no interrupt until reset), dma_error (ERROR interrupt), "
      "sram_ecc (an upset in SRAM a descriptor reads: ERROR interrupt with ECC, silent corruption without, "
      "npu.channel.sram.ecc), thermal_runaway (extra junction power)");
  s.u32("npu.faults.channel", &faults.channel, 0, "", "Channel the fault strikes", 0, 15);
  s.choice(
      "npu.faults.trigger", &faults.trigger, "descriptor", {"descriptor", "time"},
      "When the fault strikes: when the channel reaches descriptor at_descriptor of a command buffer, or at "
      "simulated time at_time_us (on the channel's next descriptor from then on)");
  s.u32(
      "npu.faults.at_descriptor", &faults.at_descriptor, 0, "",
      "Descriptor index (trigger = descriptor); dma_error strikes the first DMA from there on, sram_ecc the "
      "first descriptor reading SRAM");
  s.f64("npu.faults.at_time_us", &faults.at_time_us, 0.0, "µs",
        "Simulated time of the fault (trigger = time)", 0, 1e12);
  s.u32("npu.faults.sram_bit", &faults.sram_bit, 7, "",
        "Bit (0 = least significant) an sram_ecc upset flips in the first byte the descriptor reads, when "
        "npu.channel.sram.ecc is false",
        0, 7);
  s.choice("npu.timing.mode", &timing.mode, "exact", {"exact", "fast"},
           "How simulated time is kept: exact = every register access, descriptor fetch, DMA setup and "
           "DRAM arbitration quantum is its own SystemC wait (the reference model); fast = loosely timed "
           "(TLM-2.0 temporal decoupling: the driver runs ahead by up to npu.timing.quantum_ns, a channel "
           "takes each fetch and each whole DMA in one wait), faster to simulate, with the error against "
           "exact published in docs/sim.md");
  s.f64("npu.timing.quantum_ns", &timing.quantum_ns, 1000.0, "ns",
        "Fast mode: how far a driver thread may run ahead of the SystemC kernel before it synchronises "
        "(it always synchronises where it blocks). 1 us: below the us-scale ioctl and interrupt costs "
        "(host.ioctl_ns, host.bottom_half_ns), so a driver decision lands at most about one such step "
        "early; measured against exact mode in docs/sim.md \"Fast mode\" (a smaller quantum is not "
        "always closer there)",
        1.0, 1e6);
  s.f64("npu.faults.thermal_runaway_w", &faults.thermal_runaway_w, 10.0, "W",
        "Extra junction power of a thermal_runaway fault", 0, 1e4);
}

Result<void> NpuConfig::validate() const {
  if (auto r = dvfs.validate(); !r) return r;
  if (weight_memory_mib >= dram.size_mib)
    return make_error("npu.weight_memory.mib: " + std::to_string(weight_memory_mib) +
                      " MiB must be below npu.dram.size_mib (" + std::to_string(dram.size_mib) + " MiB)");
  // A thermal runaway armed at a descriptor strikes through that channel's command processor too; only
  // one at a simulated time leaves the channels alone.
  const bool uses_channel =
      faults.kind != "none" && (faults.kind != "thermal_runaway" || faults.trigger == "descriptor");
  if (uses_channel && faults.channel >= channels)
    return make_error("npu.faults.channel: channel " + std::to_string(faults.channel) + " does not exist (" +
                      std::to_string(channels) + " channels)");
  if (auto p = power.resolve(); !p) return make_error(p.error());
  if (auto a = area.resolve(power.node); !a) return make_error(a.error());
  return {};
}

}  // namespace npu::sim
