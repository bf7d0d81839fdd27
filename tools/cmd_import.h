// ONNX import and int8 quantisation subcommands of npusim (`import`, `quantize`). The model loader they
// and `run` share (a .onnx path is imported, anything else read as model JSON) is in tools/lib.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/onnx_import.h"
#include "npu/tools/model_file.h"  // load_model_file, which `run` shares (tools/lib)

namespace npu::tools {

// Adds `import` and `quantize` to `app`; when one of them ran, *exit_code holds its exit status.
void register_import_commands(CLI::App& app, int* exit_code);

}  // namespace npu::tools
