// The host memory a run may take, checked before the large buffers are allocated: a 200-byte model
// with a [65536, 65536] float input grew to 23.8 GB and was killed by the kernel. The budget is
// NPUSIM_MEMORY_LIMIT (or `npusim run --memory-limit`: bytes, or with a K, M, G or T suffix), else 3/4
// of the physical memory, or of the address-space limit (ulimit -v) when that is lower. A run holds
// each main-graph input and output at least twice (the host's buffer and the simulated DRAM's copy),
// so that is what is checked; what a run needs beyond (weights, temporaries) is not estimated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::tools {

// "12G", "512M", "1048576": the bytes; an error for anything else (zero included).
Result<uint64_t> parse_memory_size(const std::string& text);

// The budget in bytes: `override_bytes` if set, else NPUSIM_MEMORY_LIMIT, else the default above. An
// unreadable NPUSIM_MEMORY_LIMIT is an error naming it.
Result<uint64_t> memory_budget(std::optional<uint64_t> override_bytes = std::nullopt);

// An error naming the model (`name`), the largest input or output and the budget when the main
// graph's inputs and outputs (fully specified ones; twice, as above) do not fit in `budget`.
Result<void> check_host_memory(const models::Model& model, const std::string& name, uint64_t budget);

}  // namespace npu::tools
