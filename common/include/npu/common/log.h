// Named loggers. A component's logger name is its instance name (`npu.ch0.dma`) or one of the NNAPI-style
// tags (compilation, cpuexe, driver, execution, manager, model). NPUSIM_LOG selects what prints:
// empty = quiet, `1` or `all` = everything, or a comma list of tags / name prefixes (`driver,npu.ch0`).
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace npu::log {

// Returns the logger for `name`, creating it on first use with the level NPUSIM_LOG selects.
std::shared_ptr<spdlog::logger> get(const std::string& name);

// True when NPUSIM_LOG (or set_filter) enables `name`.
bool enabled(const std::string& name);

// Overrides NPUSIM_LOG for this process (tests, CLI --log); applies to existing loggers too.
void set_filter(const std::string& filter);

// The simulated clock (ns) every log line is stamped with, "[   68.312 us] [driver.regs] ...";
// nullptr: lines carry no time. The simulation sets it (it is not the host's wall clock).
void set_clock(std::function<uint64_t()> now_ns);

// The first selector of `filter` no logger can match (its first dotted part is none of the tags and
// component roots npusim logs under: compilation, cpuexe, driver, execution, manager, model,
// scheduling, npu), or empty when every one can; "all" and "1" are always valid.
std::string unknown_selector(const std::string& filter);
// Those roots, comma-separated, for error messages.
std::string known_roots();

}  // namespace npu::log
