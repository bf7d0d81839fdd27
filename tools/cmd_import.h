// ONNX import and int8 quantisation subcommands of npusim (`import`, `quantize`), and the model loader
// `run` shares: a .onnx path is imported, anything else read as model JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/onnx_import.h"

namespace npu::tools {

// Model JSON, zoo:NAME, or an ONNX file imported on the fly (cpu_fallback as `npusim import --cpu-fallback`).
Result<models::Model> load_model_file(const std::string& path, bool cpu_fallback);
// The same with every import option (input shapes and values bound at import).
Result<models::Model> load_model_file(const std::string& path, const models::OnnxImportOptions& options);

// Adds `import` and `quantize` to `app`; when one of them ran, *exit_code holds its exit status.
void register_import_commands(CLI::App& app, int* exit_code);

}  // namespace npu::tools
