#include "cmd_graph.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "npu/common/file_io.h"
#include "npu/hal/graph_dump.h"
#include "npu/tools/model_file.h"

namespace npu::tools {
namespace {

struct GraphOptions {
  std::string model, out;
  bool cpu_fallback = false;
};

int graph_command(const GraphOptions& o) {
  auto model = load_model_file(o.model, o.cpu_fallback);  // the loader `run` and `bench` use
  if (!model) {
    std::fprintf(stderr, "npusim: %s\n", model.error().c_str());
    return 1;
  }
  const std::string dot = hal::graph_dump(*model);
  if (o.out.empty() || o.out == "-") {
    std::fputs(dot.c_str(), stdout);
    return 0;
  }
  if (auto w = io::write_file_atomic(o.out, dot); !w) {
    std::fprintf(stderr, "npusim: %s\n", w.error().c_str());
    return 1;
  }
  std::printf("%s: %zu operations, %zu operands -> %s\n", o.model.c_str(), model->main.operations.size(),
              model->main.operands.size(), o.out.c_str());
  return 0;
}

}  // namespace

std::function<int()> add_graph_command(CLI::App& app) {
  auto options = std::make_shared<GraphOptions>();
  auto* cmd = app.add_subcommand("graph", "Write a model as a Graphviz .dot graph (NNAPI graphDump)");
  cmd->add_option("model", options->model, "Model JSON (README: Model JSON), ONNX file (.onnx), or zoo:NAME")
      ->required();
  cmd->add_flag("--cpu-fallback", options->cpu_fallback,
                "ONNX: import operators only the CPU reference runs");
  cmd->add_option("-o,--output", options->out, "Where to write the .dot file (default: stdout)");
  return [cmd, options]() { return cmd->parsed() ? graph_command(*options) : -1; };
}

}  // namespace npu::tools
