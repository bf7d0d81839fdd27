// `npusim regress <case-dir>`: a regression simulation (see docs/regress.md).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npu::tools {

// Adds the `regress` subcommand to `app`; the returned function runs it (after parsing, when the
// subcommand was given) and returns the exit status.
std::function<int()> add_regress_command(CLI::App& app);

}  // namespace npu::tools
