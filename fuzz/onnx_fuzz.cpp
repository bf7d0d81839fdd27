// ONNX import (npusim import / run of a .onnx file): the bytes are the file, imported with the CPU
// fallback on so every mapped and CPU-only operator is reachable. Properties: an error naming the file or
// a model, never a crash, an exception or undefined behaviour; an imported model passes the model
// validation and the operation-level validation returns (whatever it says).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "npu/hal/ops/reference_executor.h"
#include "npu/models/onnx_import.h"
#include "npu/models/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  npu::models::OnnxImportOptions opt;
  opt.cpu_fallback = true;
  auto r = npu::models::import_onnx_bytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                          "fuzz.onnx", opt);
  if (!r) {
    if (r.error().rfind("fuzz.onnx: ", 0) != 0) std::abort();  // every error names the file
    return 0;
  }
  if (!npu::models::validate_model(r->model)) std::abort();  // the importer made an invalid model
  (void)npu::hal::ops::validate_operations(r->model);
  return 0;
}
