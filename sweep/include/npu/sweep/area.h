// The area model (npu/sim/power/area_model.h) applied to a whole system config: the figures of the
// config's process node (npu.power.node) over its channels, arrays, SRAM, vector units, DMA and DRAM.
#pragma once

#include "npu/sim/power/area_model.h"
#include "npu/system/system.h"

namespace npu::sweep {

// Zero when the node has no area preset (every shipped node has one).
sim::AreaBreakdown design_area(const system::SystemConfig& cfg);

}  // namespace npu::sweep
