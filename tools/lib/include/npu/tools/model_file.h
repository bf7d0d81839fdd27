// Loading a model the way every npusim command names one: a model JSON file, zoo:NAME, or an ONNX file
// (.onnx) imported on the fly. The model is validated; errors are one line naming the file and the JSON
// path or operand at fault. It does not run or compile anything.
#pragma once

#include <cstdint>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/onnx_import.h"

namespace npu::tools {

// Model JSON, zoo:NAME, or an ONNX file imported on the fly (cpu_fallback as `npusim import --cpu-fallback`).
// zoo_seed seeds a zoo model's weights (as `npusim bench --seed`).
Result<models::Model> load_model_file(const std::string& path, bool cpu_fallback, uint64_t zoo_seed = 1);
// The same with every import option (input shapes and values bound at import).
Result<models::Model> load_model_file(const std::string& path, const models::OnnxImportOptions& options,
                                      uint64_t zoo_seed = 1);

}  // namespace npu::tools
