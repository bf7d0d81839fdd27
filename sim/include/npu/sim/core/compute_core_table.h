// The compute cores a channel can be built with, as a factory table (npu/common/factory_table.h): a row
// per core with its `npu.channel.compute_core.model` name, a description and its constructor. sim/ sees
// only the TLM core, so its own table holds that row alone; the system layer, which also sees rtl/,
// passes a table of both (system::compute_cores()). The config schema (NpuConfig::declare) and the
// channels' construction (compute_core_factory in npu.h) read the same table.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "npu/common/factory_table.h"

namespace npu::sim {

class ClockDomain;
class ComputeCore;
struct ChannelConfig;

// What a core's constructor is given.
struct ComputeCoreArgs {
  std::string instance_name;  // module name, e.g. "ch0_core"
  const ChannelConfig& channel;
  const ClockDomain& clock;
  std::string waves_prefix;  // cores that trace write <prefix>.<instance_name>.vcd; empty = off
};

// Returns nullptr with `error` set when the core cannot be built (e.g. no RTL for that array size).
using MakeComputeCore = std::unique_ptr<ComputeCore> (*)(const ComputeCoreArgs& args, std::string* error);
using ComputeCoreRow = factory::Row<MakeComputeCore>;
// Tables are static arrays: a span of one may be kept.
using ComputeCoreTable = std::span<const ComputeCoreRow>;

std::unique_ptr<ComputeCore> make_tlm_compute_core(const ComputeCoreArgs& args, std::string* error);

inline constexpr ComputeCoreRow kTlmComputeCore{"tlm", "cycle-formula TLM model (fast)",
                                                make_tlm_compute_core};

// The cores sim/ builds on its own.
inline constexpr ComputeCoreRow kSimComputeCores[] = {kTlmComputeCore};

}  // namespace npu::sim
