// `npusim bench`: the MLTS-style benchmark (tools/mlts, docs/models.md).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npu::tools {

// Adds the `bench` subcommand to `app`; the returned function runs it after parsing and returns the exit
// status, or -1 when `bench` was not the subcommand given.
std::function<int()> add_bench_command(CLI::App& app);

}  // namespace npu::tools
