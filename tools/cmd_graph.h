// `npusim graph MODEL -o OUT.dot`: NNAPI's graphDump of a model file as Graphviz .dot.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npu::tools {

// Adds the `graph` subcommand to `app`; the returned function runs it after parsing and returns the
// exit status, or -1 when `graph` was not the subcommand given.
std::function<int()> add_graph_command(CLI::App& app);

}  // namespace npu::tools
