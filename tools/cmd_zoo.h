// `npusim zoo list|write`: the built-in model zoo (docs/models.md).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npu::tools {

// Adds the `zoo` subcommand to `app`; the returned function runs it after parsing and returns the exit
// status, or -1 when `zoo` was not the subcommand given.
std::function<int()> add_zoo_command(CLI::App& app);

}  // namespace npu::tools
