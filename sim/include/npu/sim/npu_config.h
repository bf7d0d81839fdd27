// Hardware parameters of the simulated NPU. The defaults are the phone-class preset; every parameter is
// declared once in declare() with its default, unit, description and range (`npusim config --explain`).
// Channels are identical: one `npu.channel.*` block configures them all. The core clock is the DVFS
// table's operating point in force (`npu.dvfs.opp<i>.mhz`, starting at `npu.dvfs.initial_point`): a design
// has one V/f curve and no separate nominal clock.
#pragma once

#include <cstdint>
#include <string>

#include "npu/common/config.h"
#include "npu/common/result.h"
#include "npu/sim/core/compute_core_table.h"
#include "npu/sim/power/area_model.h"
#include "npu/sim/power/power_config.h"

namespace npu::sim {

struct ChannelConfig {
  uint32_t array_rows = 0;
  uint32_t array_cols = 0;
  std::string compute_core;  // a row of the compute-core table (compute_core_table.h)
  uint32_t fp32_macs_per_cycle = 0;
  uint32_t vector_lanes = 0;
  uint32_t vector_pipeline_cycles = 0;
  uint32_t sram_kib = 0;
  uint32_t sram_banks = 0;
  uint32_t sram_bank_bytes_per_cycle = 0;  // also the interleaving granule
  bool sram_ecc = true;                    // false: an sram_ecc upset corrupts the data silently
  uint32_t dma_bytes_per_cycle = 0;
  uint32_t dma_setup_cycles = 0;
  uint32_t descriptor_fetch_cycles = 0;
  uint32_t queue_depth = 0;  // descriptors waiting per engine (dma_in, compute, dma_out)
};

struct DramConfig {
  double bandwidth_gbps = 0;
  double latency_ns = 0;
  uint32_t size_mib = 0;
  uint32_t arbitration_bytes = 0;
};

// One injected fault (npu.faults.*); the Npu API and CH_FAULT_INJECT arm more at run time.
struct FaultConfig {
  std::string kind;  // a regs::FaultKind name
  uint32_t channel = 0;
  std::string trigger;  // "descriptor" | "time"
  uint32_t at_descriptor = 0;
  double at_time_us = 0;
  uint32_t sram_bit = 7;  // bit an sram_ecc upset flips when ECC is off
  double thermal_runaway_w = 0;
};

// How simulated time is kept (npu.timing.*). exact: every register access, descriptor fetch, DMA setup
// and DRAM arbitration quantum is a SystemC wait (the reference; every published figure). fast: loosely
// timed (TLM-2.0 temporal decoupling): the driver's threads run ahead of the kernel by up to
// `quantum_ns` and synchronise where they block, and a channel takes each descriptor fetch and each DMA
// (setup, latency and its whole transfer, the DRAM port shared max-min fairly among the transfers in
// flight instead of round-robin per quantum) in one wait. Docs: docs/sim.md "Fast mode".
struct TimingConfig {
  std::string mode = "exact";  // "exact" | "fast"
  double quantum_ns = 0;
  bool fast() const { return mode == "fast"; }
};

struct NpuConfig {
  uint32_t channels = 0;
  double mmio_access_ns = 0;
  bool functional = true;
  uint32_t weight_memory_mib = 0;
  ChannelConfig channel;
  DramConfig dram;
  PowerConfig power;
  AreaConfig area;
  ThermalConfig thermal;
  DvfsConfig dvfs;
  FaultConfig faults;
  TimingConfig timing;

  // The core clock at reset: the initial operating point's frequency.
  double clock_mhz() const { return dvfs.points[dvfs.initial_point].mhz; }
  // Declares every parameter (and sets the defaults) on `schema` under the `npu.` prefix; the compute
  // core is one of `cores` (the system layer passes a table with the RTL core).
  void declare(cfg::Schema& schema, ComputeCoreTable cores = kSimComputeCores);
  // Rules that span parameters (DVFS ordering, weight memory inside DRAM, the fault's channel), each
  // error naming the key at fault.
  Result<void> validate() const;
};

}  // namespace npu::sim
